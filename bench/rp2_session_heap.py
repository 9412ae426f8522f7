"""Game after game on one boot of the emulated Pico: does the firmware's heap grow?

    .venv/bin/python bench/rp2_session_heap.py [--games N] [--preset P]   (default: 12 games of speed)

bench_rp2 boots the firmware for each game; this boots it once, as a table does, and plays
``N`` games on it (the simulated players of ``spit sim``; after each game over both players
press READY, a short STUCK press each, and the firmware writes the log and starts the next
session).  The heap in use is read from MicroPython's allocation table in the chip's RAM (no code
on the board, as bench_rp2 reads it): per game, the lowest in use in any second of the game
(the live heap once the pauses' ``gc.collect()`` ran), the heap 2 s after the session started, and
the game's high-water mark.  Growth is the lowest in use over the last half of the games against
the first half (the boot's own session left out), per hour of table time.

The emulator runs 2-3x slower than a Pico, so a 4-hour session would take most of a day:
``bench/mp_session_heap.py`` plays 4 hours on the unix port instead (growth only, the heap there
is 64-bit); this shows the same on the chip's own heap, over fewer games.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import os
import sys
import time

import host_tools.rp2emu  # noqa: F401  (the emulated Pico)

MS = 1000
HOUR_US = 3600 * 1000 * MS
READY_LIMIT_US = 60 * 1000 * MS   # READY pressed -> the next session's first verdict
WARM_UP = 1   # games left out of the growth: the boot's session (the next ones are started by READY)


def session_port(pico, t0, since, counted):
    """The sim's port for a session of ``pico`` that started at emulated ``t0`` (us), whose
    verdicts begin at ``pico.verdicts[since]``: Rp2Port on a board that is already running
    (landings counted in ``counted[0]``)."""
    from host_tools.sim.rp2 import SYNC_US, Rp2Port, verdict_tuple

    class SessionPort(Rp2Port):
        def __init__(self, sim, rules, counts):
            self.sim = sim
            self.rules = rules
            self.out = [verdict_tuple(obj) for _, obj in pico.verdicts[since:]]
            self.lines = None
            self.synced = 0
            self.pico = pico
            self.emu = pico.emu
            self.table = pico.table
            self.t0 = t0
            pico.on_verdict = lambda obj: self.out.append(verdict_tuple(obj))
            sim.at(SYNC_US, self._periodic, 0)

        def land(self, sim, t, pile, card, player):
            counted[0] += 1
            return Rp2Port.land(self, sim, t, pile, card, player)

        def close(self, t):
            self.sync(t)   # (the board plays on: the next game follows)

    return SessionPort


def next_session(pico):
    """After the game over the cards are gathered and both players press READY; returns
    ``(t0, index)`` of the session the firmware starts (when its first verdict came, and where
    it is in ``pico.verdicts``), or ``None``."""
    table = pico.table
    pico.on_verdict = None   # (the last game's port is done: the next one takes them from here)
    seen = len(pico.verdicts)
    now = table.now_us
    for em in table.emulators:   # the players gather the cards: every tag leaves its reader's field
        for tag in list(em.tags):
            em.remove_tag(tag.uid)
    table.press(0, "stuck", now + 500 * MS, hold_us=60 * MS)
    table.press(1, "stuck", now + 800 * MS, hold_us=60 * MS)
    while table.now_us < now + READY_LIMIT_US:
        table.run_until(table.now_us + 10 * MS)
        for i in range(seen, len(pico.verdicts)):
            if pico.verdicts[i][1]["verdict"] == "round_start":
                return table.now_us, i
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--preset", default="speed")
    ap.add_argument("--dump-dir", help="keep the chip's SRAM at each game's start+2 s here (game-N.ram: "
                    "bench/heap_holders.py --load game-2.ram --against game-5.ram shows what a later game holds)")
    args = ap.parse_args(argv)
    from bench.rp2_bench_setup import READ_MS, bench_board, pn532_model
    from host_tools.rp2emu.board import FlashedPico
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.rp2emu.heap import locate
    from host_tools.sim.run import run_game
    from spit.rules import make_ruleset
    reason = why_unavailable()
    if reason:
        sys.exit("rp2_session_heap: %s" % reason)
    rules = make_ruleset(args.preset)
    atb, blocks = locate()
    wall = time.monotonic()

    def say(text):
        print("rp2_session_heap: %s" % text, file=sys.stderr, flush=True)

    say("%d games of %s on one boot of the emulated Pico (2-3x slower than real time)" % (args.games, args.preset))
    pico = FlashedPico(bench_board(rules.piles), args.preset, {}, emulator=pn532_model(READ_MS), progress=say)
    pico.emu.heap_probe(atb, blocks)
    t0, since = pico.t0, 0
    rows = []
    print("%5s %9s %8s %12s %12s %11s %9s %7s" % ("game", "table s", "play s", "start+2s B", "lowest B",
                                                   "peak B", "landings", "wall s"))
    try:
        for game in range(1, args.games + 1):
            pico.table.run_until(t0 + 2000 * MS)
            start_heap = pico.emu.heap(reset=True)["now"]
            if args.dump_dir:
                os.makedirs(args.dump_dir, exist_ok=True)
                pico.emu.save_ram(os.path.join(args.dump_dir, "game-%d.ram" % game))
            counted = [0]
            port = session_port(pico, t0, since, counted)
            result = run_game(rules, seed=game, keep_log=False,
                              port_factory=lambda sim, c, rng, extra, port=port: port(sim, sim.rules, c))
            heap = pico.emu.heap()
            floors = [f for s, f in heap["floors"]]
            row = (game, t0 / 1e6, (pico.table.now_us - t0) / 1e6, start_heap, min(floors) if floors else -1,
                   heap["peak"], counted[0], time.monotonic() - wall)
            rows.append(row)
            print("%5d %9.1f %8.1f %12d %12d %11d %9d %7.0f%s" % (row + (
                "" if result.finished else "  DID NOT END: %s" % "; ".join(result.notes[-3:]),)), flush=True)
            nxt = next_session(pico)
            if nxt is None:
                print("the board did not start a new game after game %d" % game)
                return 1
            t0, since = nxt
    finally:
        pico.close()
    rest = rows[WARM_UP:]
    if len(rest) < 4:
        print("too few games to tell growth")
        return 0
    # The lowest in use over each half of the games after the warm-up: a collect's floor, which a
    # stale word (the collector is conservative) can raise for a game or two, so the halves' lowest.
    half = len(rest) // 2
    lo_first = min(r[4] for r in rest[:half])
    lo_last = min(r[4] for r in rest[-half:])
    # (the halves' mean start times apart)
    span_h = (sum(r[1] for r in rest[-half:]) - sum(r[1] for r in rest[:half])) / half * 1e6 / HOUR_US
    print("lowest heap in use in any second: games %d-%d %d B, games %d-%d %d B; highest peak %d B" % (
        rest[0][0], rest[half - 1][0], lo_first, rest[-half][0], rest[-1][0], lo_last, max(r[5] for r in rows)))
    growth = (lo_last - lo_first) / span_h if span_h else 0.0
    print("growth: %+.0f B per hour of table time (%d B over %.2f h)" % (growth, lo_last - lo_first, span_h))
    from bench import report
    report.check("heap_growth_bytes_per_hour", round(growth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
