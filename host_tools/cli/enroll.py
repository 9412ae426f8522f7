"""The ``spit enroll`` subcommand: argument parsing and error reporting around host_tools.enroll.

``host_tools/cli/__init__.py`` calls :func:`add_subcommands` with its argparse subparsers object; the parsed
namespace's ``func(args)`` returns the process exit code. ``python -m host_tools.cli.enroll ...`` runs the
subcommand on its own.
"""

import argparse
import os
import sys

DESCRIPTION = """\
Map NFC tags to playing cards and write the card map the firmware loads.
Sort the deck first: clubs, diamonds, hearts, spades, each A 2..10 J Q K (then two jokers with --jokers).
Each prompt waits for a new tag. While waiting, type u + Enter to undo the last card or q + Enter to stop.
The file is saved after every card; run the same command again to resume."""

EPILOG = """\
examples:
  spit enroll --port /dev/ttyUSB0                       USB PN532 reader (HSU/UART mode)
  spit enroll --port COM5 --deck 1 --out decks.json     own-deck games: codes get "@1"
  spit enroll --port /dev/ttyUSB0 --write-tags          also store the code in each tag
  spit enroll --board-port /dev/ttyACM0                 use the board's own reader over mpremote"""


def add_subcommands(subparsers):
    """Register ``enroll`` on an argparse subparsers object."""
    parser = subparsers.add_parser(
        "enroll", help="map NFC tags to cards (writes cards.json)", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    configure_parser(parser)
    return parser


def configure_parser(parser):
    """Add the enroll options to ``parser`` and set its handler."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="serial port of a USB PN532 reader (e.g. /dev/ttyUSB0, COM5)")
    source.add_argument("--board-port", metavar="PORT",
                        help="serial port of a Spit referee board: run its enrollment mode via mpremote")
    parser.add_argument("--out", default="cards.json", help="card map file to create or resume (default: %(default)s)")
    parser.add_argument("--deck", metavar="P", help="deck owner for own-deck games, player 0 or 1: codes become e.g. QH@P")
    parser.add_argument("--write-tags", action="store_true",
                        help="also write the card code into each tag (NTAG pages 4..) and verify it")
    parser.add_argument("--jokers", action="store_true", help="enroll two jokers (JK) after the 52 cards")
    parser.add_argument("--timeout", type=float, default=0.0, metavar="SECONDS",
                        help="give up when no new tag comes within this many seconds (default: wait forever)")
    parser.add_argument("--force", action="store_true",
                        help="with --board-port: stop the referee even during a game (the game is lost)")
    parser.add_argument("--undo-last", action="store_true",
                        help="first remove the most recently enrolled card of this deck from --out")
    parser.set_defaults(func=run_enroll)
    return parser


def missing_device(port):
    """Why nothing can be at ``port`` (a device path that does not exist), or None.  mpremote would
    only say the port "may be in use by another program"."""
    if port.startswith("/dev/") and not os.path.exists(port):
        return "no device at %s: is the board plugged in? (spit flash finds a connected Pico by itself)" % port
    return None


def run_enroll(args, commands=None, echo=print):
    """Run ``spit enroll`` for parsed ``args``; returns the exit code. ``commands``: typed-line source."""
    from host_tools import enroll
    try:
        if args.deck is not None and args.deck not in ("0", "1"):
            raise enroll.EnrollError("--deck must be 0 or 1 (the player who owns the deck in own-deck games), "
                                     "got %r" % args.deck)
        if args.timeout < 0:
            raise enroll.EnrollError("--timeout must be >= 0")
        if args.board_port:
            if args.write_tags or args.undo_last:
                raise enroll.EnrollError("--write-tags and --undo-last need --port (a USB reader)")
            missing = missing_device(args.board_port)
            if missing:
                raise enroll.EnrollError(missing)
            # The enrollment stops the referee (mpremote run): never during a game; started
            # again afterwards (docs/live-protocol.md: host_tools/device/referee.py).
            from host_tools.device import referee as board_referee
            from host_tools.device.manifest import FlashError
            try:
                board_referee.guard(args.board_port, getattr(args, "force", False), sys.stderr)
            except FlashError as e:
                raise enroll.EnrollError(str(e))
            try:
                enroll.run_board_enrollment(args.board_port, args.out, args.deck, args.jokers,
                                            timeout_s=args.timeout)
            finally:
                try:
                    board_referee.restart(args.board_port, sys.stdout)
                except FlashError as e:
                    print("spit enroll: %s" % e, file=sys.stderr)
            return 0
        enroll.load_card_map(args.out)                      # a bad file fails before touching the reader
        if args.undo_last:
            enroll.Enroller(None, args.out, deck=args.deck, jokers=args.jokers, echo=echo).undo_last()
        reader = enroll.Pn532Reader(args.port)
        try:
            echo("PN532 firmware %d.%d on %s" % (reader.firmware[1], reader.firmware[2], args.port))
            session = enroll.Enroller(reader, args.out, deck=args.deck, jokers=args.jokers,
                                      write_tags=args.write_tags, timeout_s=args.timeout,
                                      commands=commands or enroll.StdinCommands(), echo=echo)
            session.run()
        finally:
            reader.close()
    except enroll.EnrollQuit:
        echo("Stopped; progress is saved in %s." % args.out)
        return 0
    except enroll.EnrollError as exc:
        print("spit enroll: error: %s" % exc, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("spit enroll: interrupted; progress is saved in %s" % args.out, file=sys.stderr)
        return 130
    return 0


def main(argv=None):
    """Stand-alone entry point: ``python -m host_tools.cli.enroll --port ...``."""
    parser = argparse.ArgumentParser(prog="spit enroll", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    configure_parser(parser)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
