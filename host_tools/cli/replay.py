"""``spit replay``: re-judge a session log (host_tools/replay): timeline, JSON or an HTML picture."""

import argparse

from host_tools import replay

REPLAY_DESCRIPTION = """Re-judge a session log with the same rules engine the referee runs, and show what happened:
a timeline (time, verdict, pile tops, races with their delta t), then a summary. Verdicts the device
wrote into the log are compared with the re-judged ones; every difference is flagged as
"MISMATCH line N: device said X, re-judge says Y". Bad lines are reported on stderr with their
line numbers and the replay goes on."""

REPLAY_EPILOG = """examples:
  spit replay logs/session-0007.spitlog           the timeline and a summary
  spit replay game.spitlog --html game.html       also write a picture of the game (one HTML file)
  spit replay game.spitlog --json | jq .verdict   the verdicts as JSON Lines, for scripts
  spit replay game.spitlog --quiet                summary and mismatches only

exit codes:
  0  replayed, no problems        3  the device's verdicts differ from the re-judge
  1  the log cannot be read       4  the log has bad lines (they were skipped)
  2  bad command line"""


def add_subcommands(subparsers):
    """Register ``spit replay`` (host_tools/replay/__init__.py) on an argparse subparsers object."""
    p = subparsers.add_parser("replay", help="re-judge a session log: timeline, JSON or an HTML picture",
                              description=REPLAY_DESCRIPTION, epilog=REPLAY_EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", metavar="LOG", help="session log (.spitlog / .jsonl); - reads stdin")
    p.add_argument("--json", action="store_true",
                   help="print the re-judged verdicts as JSON Lines instead of the timeline")
    p.add_argument("--html", metavar="OUT", help="also write a self-contained HTML page with a timeline picture")
    p.add_argument("--quiet", "-q", action="store_true", help="no timeline: only mismatches and the summary")
    p.set_defaults(func=replay.run)
    return p
