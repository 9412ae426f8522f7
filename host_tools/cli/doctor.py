"""``spit doctor``: the bring-up checklist as an interactive program (host_tools/doctor.py)."""

import argparse
import sys

DESCRIPTION = """Check a board step by step, with the people at the table: each PN532 reader (its firmware
version, its IRQ line, whether another reader answers with it), a card on pile 0 (UID and the read
time after the touch sensor's edge), every STUCK button and slap pad (with its contact bounce), a
card on each pile (its touch sensor's edge against its read; its reader's first-contact PN532 probe,
then a second card on it for the probe's two-card questions; the answers go into the board's board.json),
cards added to pile 0 one by one (the read time as the pile grows, against touch_match_us; the curve
is kept on the PC in doctor-<board>-<date>.json beside the report), every LED zone and the buzzer. Each check says PASS, FAIL with the likely cause (the row of the wiring
table in docs/hardware.md) or SKIP; the report is saved. The referee pauses while it runs (never during
a game, unless --force) and runs again afterwards."""

EPILOG = """at the table: do what the '>>' lines say. "Is it lit / did you hear it": press a STUCK button for
yes, a slap pad for no. "Add card 3 of 8 to pile 0": put one more card on the pile; a STUCK button ends
the pile early.

examples:
  spit doctor --port /dev/ttyACM0
  spit doctor --port /tmp/pico --report first-board.txt     the emulated Pico (spit emu --table)
  spit doctor --steps readers,buttons                        only some checks

exit codes: 0 every check passed or was skipped, 1 a check failed, 2 the board could not be checked"""


def run(args):
    from host_tools.doctor import STEPS, run_doctor
    from host_tools.device.manifest import FlashError
    steps = tuple(s.strip() for s in args.steps.split(",")) if args.steps else STEPS
    bad = [s for s in steps if s not in STEPS]
    if bad:
        sys.stderr.write("spit doctor: --steps: unknown %s (known: %s)\n" % (", ".join(bad), ", ".join(STEPS)))
        return 2
    try:
        report = run_doctor(args.port, args.report, force=args.force, steps=steps, cards=args.pile_cards)
    except FlashError as e:
        sys.stderr.write("spit doctor: %s\n" % e)
        return 2
    if not report.done:
        return 2
    return 1 if report.counts()["fail"] else 0


def _cards(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 52:
        raise argparse.ArgumentTypeError("a number of cards from 1 to 52, not %r" % text)
    return n


def add_subcommands(subparsers):
    p = subparsers.add_parser("doctor", help="check a board's readers, buttons, LEDs and buzzer, step by step",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", help="serial port of the board (default: auto, the first Pico found)")
    p.add_argument("--report", default="doctor-report.txt", metavar="FILE",
                   help="where the report is saved (default doctor-report.txt)")
    p.add_argument("--steps", metavar="LIST", help="comma-separated checks (default: all of readers,buttons,"
                                                   "card,touch,probe,range,leds,buzzer)")
    p.add_argument("--pile-cards", type=_cards, default=8, metavar="N",
                   help="how many cards the range step asks for, one at a time (default 8; 1-52)")
    p.add_argument("--force", action="store_true", help="run even during a game (the game is lost)")
    p.set_defaults(func=run)
    return p
