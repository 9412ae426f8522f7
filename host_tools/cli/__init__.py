"""The ``spit`` command: one entry point, one module per subcommand.

Installed as the ``spit`` console script (pyproject: ``host_tools.cli:main``); ``python -m host_tools`` runs it
too.  Every module of this package (``host_tools/cli/<name>.py``) is a subcommand, or a few related ones:
its ``add_subcommands(subparsers)`` registers them, each with ``func`` set; ``func(args)`` returns the exit
code.  To add a command, write such a module: nothing else names it.  A module whose imports are missing
from an install (``sim`` needs the firmware tree) is left out of ``spit --help``, not an error.
"""

import argparse
import importlib
import sys

OPTIONAL_SUBCOMMANDS = ("host_tools.cli.sim",)   # registered when their imports are there


def subcommand_modules():
    """The names of this package's subcommand modules, sorted (``host_tools.cli.replay`` ...)."""
    import pkgutil
    return sorted("host_tools.cli." + info.name for info in pkgutil.iter_modules(__path__)
                  if not info.name.startswith("_"))

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
    for name in subcommand_modules():
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            if name not in OPTIONAL_SUBCOMMANDS or not (e.name or "").startswith(("spit", "referee", "drivers")):
                raise
            continue
        module.add_subcommands(subparsers)
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
