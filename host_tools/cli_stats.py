"""``spit stats LOG...``: per-player statistics over one or many session logs (a league evening).

Each log is re-judged with the rules engine (as ``spit replay`` does) and the players' numbers are
added up: games and rounds won, reaction times, races won and lost, ties, illegal plays, STUCK
presses.  See :mod:`host_tools.stats` for what each number means.
"""

import argparse
import sys

from host_tools import replay, stats

DESCRIPTION = """Per-player statistics over session logs: games and rounds won, reaction times (from a
pile's change to the player's next card), races won and lost, ties, illegal plays and STUCK presses.
Every log is re-judged with the referee's own rules engine. Cards are credited to a player only
where the log names them (own-deck games, spit cards, STUCK and slaps): the rest is "not named"."""

EPILOG = """examples:
  spit stats logs/*.spitlog            an evening of games
  spit stats game.spitlog              one game

exit codes: 0 ok, 1 a log could not be read (the others are still counted), 2 bad command line"""


def run(args, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    evening = stats.Evening()
    failed = 0
    for path in args.logs:
        try:
            stream = replay.open_log(path)
        except replay.ReplayError as e:
            err.write("spit stats: %s (skipped)\n" % e)
            failed += 1
            continue
        try:
            with stream:
                rep = replay.replay_lines(stream, keep=True)
        except OSError as e:
            err.write("spit stats: %s: cannot read: %s (skipped)\n" % (path, e.strerror or e))
            failed += 1
            continue
        if rep.referee is None:
            first = rep.problems[0] if rep.problems else (1, "no header line")
            err.write("spit stats: %s: not a session log: line %d: %s (skipped)\n" % (path, first[0], first[1]))
            failed += 1
            continue
        if rep.n_problems:
            err.write("spit stats: %s: %s skipped\n" % (path, replay.plural(rep.n_problems, "bad line")))
        evening.add(stats.GameStats(rep))
    if evening.games:
        for line in stats.table(evening):
            out.write(line + "\n")
    return 1 if failed else 0


def add_subcommands(subparsers):
    """Register ``stats`` on the ``spit`` command's subparsers."""
    p = subparsers.add_parser("stats", help="per-player statistics over session logs (a league evening)",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", metavar="LOG", help="session logs (.spitlog)")
    p.set_defaults(func=run)
    return p
