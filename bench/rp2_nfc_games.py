"""Whole games (or their first ``--seconds``) on the emulated Pico under PN532 option combinations
(issue 26): the firmware image on rp2040js, the strict PN532 model under the piles, the
simulated players.  CPU-heavy (3-6x slower than real time): a few combinations, short games.

    .venv/bin/python -m bench.rp2_nfc_games --preset classic --seconds 20 --combos 0,2
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import sys
import time

READER_ERRORS = ("no_read", "reader_down", "unknown_uid", "duplicate_card")


def main(argv=None):
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.sim.rp2 import Rp2Port
    from host_tools.sim.run import run_game
    from host_tools.vboard.pn532_options import combinations, label
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--combos", default="0,2")
    args = ap.parse_args(argv)
    reason = why_unavailable()
    if reason:
        print("emulated Pico unavailable: %s" % reason)
        return 0
    lost = disagreements = reader_errors = 0
    for i in args.combos.split(","):
        combo = combinations()[int(i)]
        wall = time.monotonic()
        result = run_game(args.preset, seed=1, max_minutes=args.seconds / 60.0,
                          port_factory=lambda sim, c, rng, extra, combo=combo: Rp2Port(sim, sim.rules, c, emulator=combo))
        errors = dict(result.errors)
        notes = [n for n in result.notes if not n.startswith("unfinished")]
        print("%s %s: %d plays in %.0f s of play, lost %d, disagreements %d, reader errors %d, other %s "
              "(%.0f s wall)" % (args.preset, label(combo), result.stats.get("plays", 0), args.seconds,
                                errors.get("no_read", 0), len(notes),
                                sum(errors.get(k, 0) for k in READER_ERRORS),
                                dict((k, v) for k, v in errors.items() if k not in READER_ERRORS) or "-",
                                time.monotonic() - wall))
        for note in notes[:3]:
            print("    " + note)
        sys.stdout.flush()
        lost += errors.get("no_read", 0)
        disagreements += len(notes)
        reader_errors += sum(errors.get(k, 0) for k in READER_ERRORS)
    from bench import report
    report.check("lost_cards", lost)
    report.check("table_disagreements", disagreements)
    report.check("reader_errors", reader_errors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
