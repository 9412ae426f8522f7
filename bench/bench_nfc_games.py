"""Whole games of every preset on the virtual board under the PN532 model's option combinations
(issue 26 acceptance): the simulated table (host_tools/sim, ``--mode firmware``) plays through
the real firmware, with the strict PN532 model under the piles.

Per game: finished, plays, lost cards (the referee's ``no_read`` errors: a touch no read
followed), wrong winners / table disagreements (the sim's notes: the table and the referee
disagree about a pile, a count or a card), reader-caused referee errors (``reader_down``,
``unknown_uid``, ``duplicate_card``) and the other errors by name (those the players cause:
early slaps, bad answers ...), wall seconds.

    .venv/bin/python -m bench.bench_nfc_games                 # 5 presets x the 9 combinations
    .venv/bin/python -m bench.bench_nfc_games --full          # x the 192 (hours)
    .venv/bin/python -m bench.bench_nfc_games --presets classic --combos 0,3
    .venv/bin/python -m bench.bench_nfc_games --config     # readers with the probe's answers (board.json)
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import os
import sys
import time

from bench import report

READER_ERRORS = ("no_read", "reader_down", "unknown_uid", "duplicate_card")


def board_with_answers(piles, combo):
    """The board file (pico, pico_3pile) with the probe's answers for a chip with the options ``combo``
    in every reader's ``chip`` (as the probe or ``spit flash --probe`` write them)."""
    import json
    from host_tools.vboard.pn532_options import DEFAULTS
    from host_tools import REPO
    with open(os.path.join(REPO, "boards", "pico_3pile.json" if piles == 3 else "pico.json"),
              encoding="utf-8") as f:
        board = json.load(f)
    for reader in board["nfc"]["readers"]:
        reader["chip"] = dict(DEFAULTS, **combo)
    return board


def play(preset, combo, seed=1, config=False):
    """One whole game on the virtual board with the PN532 model's options ``combo``; ``config``: the
    readers have the probe's answers for that chip in board.json."""
    from host_tools.sim.firmware import FirmwarePort
    from host_tools.sim.run import run_game
    wall = time.monotonic()

    def port(sim, c, rng, extra):
        board = board_with_answers(sim.rules.piles, combo) if config else None
        return FirmwarePort(sim, sim.rules, c, board=board, emulator=combo)
    result = run_game(preset, seed=seed, port_factory=port)
    errors = dict(result.errors)
    return {
        "preset": preset, "finished": result.finished, "plays": result.stats.get("plays", 0),
        "lost": errors.get("no_read", 0),
        "disagreements": [n for n in result.notes if not n.startswith("unfinished")],
        "reader_errors": sum(errors.get(k, 0) for k in READER_ERRORS),
        "other_errors": dict((k, v) for k, v in errors.items() if k not in READER_ERRORS),
        "wall_s": time.monotonic() - wall,
    }


def main(argv=None):
    from host_tools.vboard.pn532_options import all_combinations, combinations, label
    from spit.rules import PRESETS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="all 192 option combinations")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--combos", default="", help="indices into the combination list")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--config", action="store_true",
                    help="the readers have the probe's answers for their chip in board.json (else the defaults)")
    args = ap.parse_args(argv)
    combos = all_combinations() if args.full else combinations()
    if args.combos:
        combos = [combos[int(i)] for i in args.combos.split(",")]
    print("%-9s %-70s %4s %5s %4s %5s %6s %s" % ("preset", "PN532 options", "end", "plays", "lost",
                                                  "wrong", "rdrerr", "other errors (players')"))
    bad = lost = disagreements = reader_errors = unfinished = 0
    for combo in combos:
        for preset in args.presets.split(","):
            with open(os.devnull, "w") as quiet:
                saved = sys.stdout
                sys.stdout = quiet
                try:
                    r = play(preset, combo, args.seed, args.config)
                finally:
                    sys.stdout = saved
            wrong = len(r["disagreements"])
            bad += r["lost"] + wrong + r["reader_errors"] + (not r["finished"])
            lost += r["lost"]
            disagreements += wrong
            reader_errors += r["reader_errors"]
            unfinished += not r["finished"]
            print("%-9s %-70s %4s %5d %4d %5d %6d %s  (%.0f s)" % (
                preset, label(combo), "yes" if r["finished"] else "NO", r["plays"], r["lost"], wrong,
                r["reader_errors"], ", ".join("%s %d" % kv for kv in sorted(r["other_errors"].items())) or "-",
                r["wall_s"]))
            for note in r["disagreements"][:3]:
                print("    " + note)
            sys.stdout.flush()
    print("games with lost cards, wrong winners, reader errors or no end: %d" % bad)
    report.check("lost_cards", lost)
    report.check("table_disagreements", disagreements)
    report.check("reader_errors", reader_errors)
    report.check("unfinished_games", unfinished)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
