"""The ``spit`` command: one entry point, one subcommand per job.

Installed as the ``spit`` console script (pyproject: ``host_tools.cli:main``); ``python -m host_tools`` runs it
too.  Subcommands come from the modules in ``SUBCOMMANDS``, each with an ``add_subcommands(subparsers)`` that
sets ``func``; ``func(args)`` returns the exit code.  To add a command, write such a module and add its
name to ``SUBCOMMANDS`` (or to ``OPTIONAL_SUBCOMMANDS`` if it may be missing from an install).
"""

import argparse
import importlib
import sys

from host_tools import replay

SUBCOMMANDS = ("host_tools.cli_flash", "host_tools.cli_emu", "host_tools.cli_enroll", "host_tools.cli_stats",
               "host_tools.cli_watch", "host_tools.cli_league", "host_tools.cli_play",
               "host_tools.cli_doctor")
OPTIONAL_SUBCOMMANDS = ("host_tools.cli_sim",)   # registered when they import

DESCRIPTION = "Spit referee: PC tools for the card-game referee (flash a board, enroll cards, replay and " \
              "simulate games)."

EPILOG = """examples:
  spit sim                                  play a refereed game on a simulated table (no hardware)
  spit flash --port /dev/ttyACM0            put the firmware on a Pico
  spit enroll --port /dev/ttyUSB0           map the NFC tags of a deck to cards (cards.json)
  spit logs pull                            copy the session logs off the board
  spit emu --pty /tmp/pico --fs pico.fs     an emulated Pico (real MicroPython) to flash and test
  spit replay logs/game.spitlog --html g.html
                                            re-judge a game: timeline and a picture
  spit stats logs/*.spitlog                 per-player statistics over an evening's games
  spit league logs/*.spitlog                ratings and standings over many evenings
  spit watch --port /dev/ttyACM0            a live page of the game for the room (TV, phones)

Run `spit COMMAND --help` for the options of one command."""


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


def add_replay(subparsers):
    """Register ``spit replay`` (host_tools/replay.py) on an argparse subparsers object."""
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


def build_parser():
    """The argparse parser with every available subcommand registered."""
    parser = argparse.ArgumentParser(prog="spit", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    try:
        from spit import __version__ as version
    except ImportError:
        version = "unknown"
    parser.add_argument("--version", action="version", version="spit-referee %s" % version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in OPTIONAL_SUBCOMMANDS + SUBCOMMANDS:
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            if name in SUBCOMMANDS or e.name != name:
                raise
            continue
        module.add_subcommands(subparsers)
    add_replay(subparsers)
    _remember_parsers(parser)
    return parser


def _remember_parsers(parser):
    """Give every (sub)command's namespace its own parser, so a bad flag after ``spit replay`` is
    answered with ``spit replay``'s usage, not the top-level one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.set_defaults(_parser=sub)
                _remember_parsers(sub)


def parse_args(parser, argv):
    """``parser.parse_args`` with unknown arguments reported by the subcommand that got them."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        getattr(args, "_parser", parser).error("unrecognized arguments: %s" % " ".join(extra))
    return args


def main(argv=None):
    """Parse ``argv`` (default: the command line), run the subcommand, return its exit code."""
    args = parse_args(build_parser(), argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("spit %s: interrupted\n" % args.command)
        return 130
    except BrokenPipeError:   # e.g. `spit replay x --json | head`
        sys.stdout = None   # (nothing more to say: the reader left)
        return 0


if __name__ == "__main__":
    sys.exit(main())
