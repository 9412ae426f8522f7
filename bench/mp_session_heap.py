"""Hours of play on one boot: the firmware's heap over a long session, on the real MicroPython.

    .venv/bin/micropython -X heapsize=8m bench/mp_session_heap.py [HOURS] [PRESET]   (default: 4 hours of classic)

The emulated Pico (bench_rp2) runs 2-3x slower than real time, so a 4-hour session there takes
a day.  This runs the same firmware on the MicroPython unix port instead, on the virtual board
(``host_tools/vboard``: PN532 emulators, pins, the session clock's ticks wrapping every 17.9 min
as on the chip), with the simulated players of ``spit sim`` (``host_tools/sim``): one boot, game
after game, both players pressing READY after each game over, as at a real table, until the
hours of table time have passed.  After each game's restart (the firmware has written the log,
started the next session file and run ``gc.collect()``), the bench collects again and reads
``gc.mem_alloc()``.

The heap is the unix port's (64-bit: objects are bigger than on the chip) and holds the bench's
own objects too (the players, the table, the emulators; their logs are cleared every game), so
the absolute figure is not the chip's (bench_rp2 measures that).  What it shows is growth: the
heap after the last games against the first, per hour.  Prints a table per hour, then
``growth: N B per hour``.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import gc
import sys
import time
from array import array

from host_tools.sim.firmware import FirmwarePort
from host_tools.sim.run import run_game
from host_tools.vboard.pins import PWM
from host_tools.vboard.runner import VirtualTable

MS = 1000
HOUR_US = 3600 * 1000 * MS
MAX_GAMES = 2000
WARM_UP = 2      # games whose heap is not compared (the first loads what is loaded once)


class SessionPort(FirmwarePort):
    """``FirmwarePort`` on a board that is already running: the game's table time 0 is the
    board's time ``offset`` (when the firmware started this session)."""

    def __init__(self, sim, rules, vt, offset):
        self.sim = sim
        self.rules = rules
        self.offset = offset
        self.join(sim, vt)

    def sync(self, t):
        if t > self.synced:
            self.vt.run_until(self.offset + t)
            self.synced = t

    def land(self, sim, t, pile, card, player):
        self.vt.land_card(pile, card, self.offset + t, touch=True, owner=self._owner(player))
        return True

    def lift(self, t, pile, card, player):
        self.vt.lift_card(pile, card, self.offset + t, owner=self._owner(player))

    def _press(self, player, what, t, hold_us):
        self.vt.press(player, what, self.offset + t, hold_us=hold_us)

    def close(self, t):
        self.sync(t)   # (the board plays on: the next game follows)

    def log_lines(self):
        return []


def clear_fakes(vt):
    """The virtual board's records of what it saw (the console echo, the PN532 commands, the
    buzzer's tones): the bench's memory, not the firmware's.  Each is replaced by a new empty
    one: a MicroPython list or bytearray emptied in place keeps its capacity, so the heap would
    hold the longest game's records so far (it grew in steps of 4-40 KB over hours that way)."""
    if vt.console is not None:
        vt.console = type(vt.console)()
    for pwm in PWM.registry.values():
        pwm.history = []
    for em in vt.emulators:
        for name in ("commands", "raw_frames", "listed"):
            if getattr(em, name, None) is not None:
                setattr(em, name, [])


def play_one(vt, app, preset, game, offset, started):
    """One game from ``offset`` to its game over, then both players' READY and the board's next
    session; returns that session's start (board time), or -1 if none came.  (A function of its
    own: its locals, the players and the table among them, are gone when the heap is read.)"""
    result = run_game(preset, seed=game, keep_log=False,
                      port_factory=lambda sim, c, rng, extra: SessionPort(sim, sim.rules, vt, offset))
    if not result.finished:
        print("game %d did not finish: %s" % (game, result.notes))
    result = None
    # Game over: both players press READY (a short STUCK press each), as at the table.
    sessions = app.sessions
    now = vt.now_us
    vt.press(0, "stuck", now + 500 * MS, hold_us=60 * MS)
    vt.press(1, "stuck", now + 800 * MS, hold_us=60 * MS)
    limit = now + 60_000 * MS
    while app.sessions == sessions and vt.now_us < limit:
        vt.run_until(vt.now_us + 100 * MS)
    if app.sessions == sessions:
        print("the board did not start a new game after game %d" % game)
        return -1
    offset = started[0]
    vt.run_until(offset + 2_000 * MS)   # (the new session's pause work: gc.collect())
    return offset


def main(argv):
    hours = float(argv[1]) if len(argv) > 1 else 4.0
    preset = argv[2] if len(argv) > 2 else "classic"
    every = int(argv[3]) if len(argv) > 3 else 10   # a table row every this many games
    vt = VirtualTable(ruleset=preset)
    app = vt.app
    started = [0]   # the board time of the last session start (set, never appended: no garbage)
    new_session = app.new_session

    def noted_new_session():
        started[0] = vt.now_us
        new_session()

    app.new_session = noted_new_session
    # Per game, preallocated (the bench's own records must not grow the heap it measures): the
    # table time (ms) at its start and the heap after collect then.
    at_ms = array("i", bytes(4 * MAX_GAMES))
    heap = array("i", bytes(4 * MAX_GAMES))
    offset = 0
    wall = time.time()
    game = 0
    print("mp_session_heap: %.1f h of %s on one boot (MicroPython %s, unix port, virtual board)" % (
        hours, preset, ".".join(str(v) for v in sys.implementation.version[:3])))
    print("%6s %10s %12s %10s %8s" % ("game", "table h", "heap B", "sessions", "wall s"))
    while offset < hours * HOUR_US and game < MAX_GAMES:
        clear_fakes(vt)
        gc.collect()
        heap[game] = gc.mem_alloc()
        at_ms[game] = offset // MS
        if game % every == 0:
            print("%6d %10.2f %12d %10d %8.0f" % (game, offset / HOUR_US, heap[game], app.sessions,
                                                  time.time() - wall))
        game += 1
        offset = play_one(vt, app, preset, game, offset, started)
        if offset < 0:
            return 1
    vt.close()
    print("%d games, %.2f h of table time, %.0f s of wall time" % (game, offset / HOUR_US, time.time() - wall))
    if game < WARM_UP + 4:
        print("too few games to tell growth")
        return 0
    # Growth: the lowest heap in the last quarter of the games against the first quarter after
    # the warm-up (the first games load what the bench and the firmware load once).
    quarter = (game - WARM_UP) // 4
    first = range(WARM_UP, WARM_UP + quarter)
    last = range(game - quarter, game)
    lo_first = min(heap[i] for i in first)
    lo_last = min(heap[i] for i in last)
    span_h = (at_ms[last[-1]] - at_ms[first[0]]) / 3600000.0
    print("heap after collect at a game start: lowest in the first quarter of the games (from game %d) "
          "%d B, in the last quarter %d B (%.2f h later)" % (WARM_UP, lo_first, lo_last, span_h))
    growth = (lo_last - lo_first) / span_h if span_h > 0 else 0.0
    print("growth: %+.0f B per hour" % growth)
    from bench import report   # (after the measurement: its targets are the bench's heap)
    report.check("heap_growth_bytes_per_hour", round(growth))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
