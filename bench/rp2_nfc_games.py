"""Whole games (or their first ``--seconds``) on the emulated Pico under PN532 option combinations
(issue 26): the firmware image on rp2040js, the strict PN532 model under the piles, the
simulated players.  CPU-heavy (2-3x slower than real time): a few combinations, short games, or ``--games`` to play
named preset:combination pairs to their end.

    .venv/bin/python -m bench.rp2_nfc_games --preset classic --seconds 20 --combos 0,2
    .venv/bin/python -m bench.rp2_nfc_games --games speed:0,own_deck:1 --seconds 0
    .venv/bin/python -m bench.rp2_nfc_games --all --games own_deck:96 --seconds 0 --logs build/nfc-logs

Combination numbers are those of the 9 covering combinations (``pn532_options.combinations``),
or with ``--all`` of all 192 (``all_combinations``: the classes that only whole games tell
apart, docs/hardware.md).
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import os
import sys
import time

READER_ERRORS = ("no_read", "reader_down", "unknown_uid", "duplicate_card")


def rejudged(lines):
    """``(mismatches, digest)`` of a pulled session log: the device's verdicts the re-judge
    (`spit replay`) does not give, and a CRC-32 of the verdict lines (same digest, same game to
    the microsecond: combinations that the firmware cannot tell apart give the same)."""
    import zlib
    from host_tools.replay import replay_lines
    rep = replay_lines(lines)
    digest = 0
    for line in lines:
        if '"verdict"' in line:
            digest = zlib.crc32(line.strip().encode(), digest)
    return rep.n_mismatches + rep.n_problems, digest


def main(argv=None):
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.sim.rp2 import Rp2Port
    from host_tools.sim.run import run_game
    from host_tools.vboard.pn532_options import all_combinations, combinations, label
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--combos", default="0,2")
    ap.add_argument("--games", default="",
                    help="preset:combo pairs, comma separated (instead of --preset and --combos)")
    ap.add_argument("--all", action="store_true",
                    help="combination numbers index all 192 combinations, not the 9 covering ones")
    ap.add_argument("--logs", default="",
                    help="a folder to keep each game's pulled session log in (PRESET-COMBO.spitlog), for `spit replay`")
    args = ap.parse_args(argv)
    table = all_combinations() if args.all else combinations()
    if args.games:
        plan = [(g.split(":")[0], int(g.split(":")[1])) for g in args.games.split(",")]
    else:
        plan = [(args.preset, int(i)) for i in args.combos.split(",")]
    whole = args.seconds <= 0
    minutes = 30.0 if whole else args.seconds / 60.0
    reason = why_unavailable()
    if reason:
        print("emulated Pico unavailable: %s" % reason)
        return 0
    lost = disagreements = reader_errors = rejudge_mismatches = 0
    unfinished = 0
    for preset, i in plan:
        combo = table[i]
        wall = time.monotonic()
        result = run_game(preset, seed=1, max_minutes=minutes,
                          port_factory=lambda sim, c, rng, extra, combo=combo: Rp2Port(sim, sim.rules, c, emulator=combo))
        errors = dict(result.errors)
        notes = [n for n in result.notes if not n.startswith("unfinished")]
        if whole and not result.finished:
            unfinished += 1
        ending = ("ended (%s)" % result.reason) if result.finished else "not ended"
        print("%s, combo %d %s: %s, %d plays in %.0f s of play, lost %d, disagreements %d, reader errors %d, "
              "other %s (%.0f s wall)" % (
                  preset, i, label(combo), ending, result.stats.get("plays", 0),
                  (result.length_us or result.sim.now) / 1e6, errors.get("no_read", 0), len(notes),
                  sum(errors.get(k, 0) for k in READER_ERRORS),
                  dict((k, v) for k, v in errors.items() if k not in READER_ERRORS) or "-",
                  time.monotonic() - wall))
        mismatches, digest = rejudged(result.lines)
        if args.logs:
            os.makedirs(args.logs, exist_ok=True)
            with open(os.path.join(args.logs, "%s-%d.spitlog" % (preset, i)), "w") as f:
                f.write("".join(line if line.endswith("\n") else line + "\n" for line in result.lines))
        collisions = sum(e.ciu.collisions for e in result.sim.port.table.emulators)
        print("    its log: %d lines, verdicts digest %08x, re-judged by `spit replay`: %d mismatches; "
              "%d exchanges the chip answered with collision_status" % (len(result.lines), digest, mismatches, collisions))
        for note in notes[:3]:
            print("    " + note)
        rejudge_mismatches += mismatches
        sys.stdout.flush()
        lost += errors.get("no_read", 0)
        disagreements += len(notes)
        reader_errors += sum(errors.get(k, 0) for k in READER_ERRORS)
    from bench import report
    report.check("lost_cards", lost)
    report.check("table_disagreements", disagreements)
    report.check("reader_errors", reader_errors)
    report.check("rejudge_mismatches", rejudge_mismatches)
    if whole:
        print("games that did not end: %d of %d" % (unfinished, len(plan)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
