"""The ``spit`` command: one entry point, one subcommand per job.

Installed as the ``spit`` console script (pyproject: ``host_tools.cli:main``); ``python -m host_tools`` runs it
too.  Subcommands come from their own modules, each with an ``add_subcommands(subparsers)`` (or
``add_subcommand``) that sets ``func``; ``func(args)`` returns the exit code.  ``spit sim`` is optional: it is
registered when ``host_tools.cli_sim`` can be imported.
"""

import argparse
import sys

from host_tools import cli_emu, cli_enroll, cli_flash, replay

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
    try:
        from host_tools import cli_sim
    except ImportError:
        cli_sim = None
    if cli_sim is not None:
        cli_sim.add_subcommands(subparsers)
    cli_flash.add_subcommands(subparsers)
    cli_emu.add_subcommands(subparsers)
    cli_enroll.add_subcommands(subparsers)
    add_replay(subparsers)
    return parser


def main(argv=None):
    """Parse ``argv`` (default: the command line), run the subcommand, return its exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("spit %s: interrupted\n" % args.command)
        return 130
    except BrokenPipeError:   # e.g. `spit replay x --json | head`
        try:
            sys.stdout = None
        finally:
            return 0


if __name__ == "__main__":
    sys.exit(main())
