"""``spit emu``: an emulated Raspberry Pi Pico running the real MicroPython, its USB serial a pty.

    spit emu --pty /tmp/pico --fs pico.fs --cards-out cards.json &   # a board on /tmp/pico
    spit flash --port /tmp/pico --cards cards.json   # the real mpremote installs the referee
    spit console --port /tmp/pico                # the REPL / the live session log
    spit logs pull --port /tmp/pico              # the session logs

The table around the chip (readers, sensors, buttons) is modelled too (``--board``, default on
for a board file with readers), so the flashed referee finds its PN532s and can referee
edges driven from a test.  Ctrl-C (or SIGTERM) stops it; with ``--fs`` the file system is saved
then, so the next ``spit emu --fs`` boots the flashed board again.
"""

import argparse
import signal
import sys

DESCRIPTION = """Run an emulated Raspberry Pi Pico (RP2040, rp2040js) with the real MicroPython rp2
firmware, its USB serial on a pseudo-terminal, so `spit flash`, `spit console` and `spit logs pull`
work against it unchanged (--port PTY). Emulated time follows the wall clock while idle. The board's
PN532 readers, touch sensors, buttons and LEDs are modelled at the pins (--board)."""

EPILOG = """examples:
  spit emu --pty /tmp/pico --fs pico.fs --cards-out cards.json
                                                 serve until Ctrl-C; the flash is saved in pico.fs
  spit flash --port /tmp/pico --cards cards.json (in another terminal) install the referee
  spit emu --pty /tmp/pico --fs pico.fs          later: boots the flashed referee from pico.fs
  spit emu --pty /tmp/pico --fs pico.fs --table  ... and play on its table in this terminal

The MicroPython image (RPI_PICO v1.26.1 .uf2, micropython.org) and the RP2040 bootrom come from
--firmware/--bootrom, $SPIT_RP2_FIRMWARE/$SPIT_RP2_BOOTROM, or ../shared/rp2/ beside the project."""


def write_cards(path, ruleset):
    """The emulated table's tag map (the virtual deck: one tag per card) for `spit flash --cards`."""
    import json
    from spit.rules import make_ruleset
    from host_tools.rp2emu.install import default_cards
    with open(path, "w") as f:
        json.dump({"cardmap": 1, "cards": default_cards(make_ruleset(ruleset))}, f, indent=1)


def run(args):
    from host_tools.rp2emu.emulator import EmulatorError, Rp2Emulator
    from host_tools.rp2emu.serial_pty import SerialPty
    err = sys.stderr
    if args.cards_out:
        try:
            write_cards(args.cards_out, args.ruleset)
        except (OSError, ValueError) as e:
            err.write("spit emu: --cards-out %s: %s\n" % (args.cards_out, e))
            return 2
        err.write("spit emu: wrote the emulated table's card map to %s (spit flash --cards %s)\n"
                  % (args.cards_out, args.cards_out))
    if args.table and args.board == "none":
        err.write("spit emu: --table needs a board (--board NAME)\n")
        return 2
    try:
        emu = Rp2Emulator(args.firmware, args.bootrom, fs_image=args.fs)
    except EmulatorError as e:
        err.write("spit emu: %s\n" % e)
        return 1
    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):     # Ctrl-C or kill: stop, then save the flash
        signal.signal(sig, lambda *a: stop.append("stop"))
    link = None
    runner = None
    try:
        if args.board != "none":
            from host_tools.rp2emu.table import Rp2Table
            try:
                rtable = Rp2Table(emu, args.board)
                runner = rtable.run_until_ns
            except (OSError, ValueError, KeyError) as e:
                err.write("spit emu: --board %s: %s\n" % (args.board, e))
                return 2
            if args.table:     # this terminal shows the table and takes keys (host_tools/play/linked.py)
                from host_tools.play.linked import Linked
                linked = Linked(emu, rtable, args.ruleset)
                emu.on_serial = linked.serial
        try:
            link = SerialPty(emu, args.pty, runner)
        except OSError as e:
            err.write("spit emu: --pty %s: %s\n" % (args.pty, e))
            return 2
        err.write("spit emu: an emulated Pico (MicroPython rp2) on %s%s; Ctrl-C stops it%s\n" % (
            link.path, " -> " + link.port if args.pty else "",
            ", saving its flash to " + args.fs if args.fs else ""))
        err.flush()
        try:
            if args.table:
                from host_tools.cli.play import Terminal
                from host_tools.play.linked import serve
                term = Terminal(sys.stdin.fileno())
                try:
                    serve(linked, link, sys.stdout, term, colour=not args.no_colour,
                          stop=lambda: bool(stop))
                finally:
                    term.close()
            else:
                link.serve(stop=lambda: bool(stop), seconds=args.seconds)
        except KeyboardInterrupt:
            pass
        if args.fs:
            emu.save_fs(args.fs)
            err.write("spit emu: saved the flash file system to %s\n" % args.fs)
    except EmulatorError as e:
        err.write("spit emu: %s\n" % e)
        return 1
    finally:
        if link is not None:
            link.close()
        emu.close()
    return 0


def add_subcommands(subparsers):
    p = subparsers.add_parser("emu", help="an emulated Pico with the real MicroPython, on a pty",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--firmware", metavar="UF2", help="MicroPython RPI_PICO image (default: $SPIT_RP2_FIRMWARE "
                                                     "or ../shared/rp2/RPI_PICO-v1.26.1.uf2)")
    p.add_argument("--bootrom", metavar="BIN", help="RP2040 B1 bootrom (default: $SPIT_RP2_BOOTROM or "
                                                    "../shared/rp2/rp2040-bootrom-b1.bin)")
    p.add_argument("--fs", metavar="IMAGE", help="flash file-system image: booted if it exists, saved on exit")
    p.add_argument("--pty", metavar="LINK", help="make LINK a symlink to the pty (default: print the pty path)")
    p.add_argument("--board", default="pico", metavar="NAME",
                   help="model this board's readers, sensors and buttons at the pins (boards/NAME.json; "
                        "'none' for a bare chip; default pico)")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds of wall time")
    p.add_argument("--cards-out", metavar="FILE", help="also write the emulated table's card map (its virtual "
                                                       "deck's tags) for `spit flash --cards FILE`")
    p.add_argument("--ruleset", default="classic", help="deck for --cards-out (own_deck: two decks; default classic)")
    p.add_argument("--table", action="store_true",
                   help="show the table in this terminal and take keys: two players at one keyboard land "
                        "cards, press STUCK/READY and the pads (as `spit play`); between games, keys press the "
                        "buttons and /P CARD PILE puts a card on a pile (for `spit doctor`)")
    p.add_argument("--no-colour", action="store_true", help="with --table: LED zones as words only")
    p.set_defaults(func=run)
    return p

