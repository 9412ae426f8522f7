"""``spit play``: an emulated table in the terminal that two people play on at one keyboard.

    spit play                                  the virtual board (the real firmware, fast)
    spit play --rp2                            the emulated Pico: the referee flashed onto real MicroPython
    spit play --ruleset speed --log g.spitlog  another ruleset; the session log is kept in g.spitlog

The screen shows the LED strip as the firmware drives it, the pile tops, each player's face-up
cards and the buzzer's sounds as words; the keys land cards, press STUCK/READY and the slap pads
(host_tools/play/keys.py).  At the end the board's session log is read off its flash (pulled with
`spit logs pull` from the emulated Pico), written to --log and re-judged, as `spit replay` does.
"""

import argparse
import os
import select
import sys
import time

DESCRIPTION = """Play Spit on an emulated table in this terminal: two people at one keyboard, refereed by the
real firmware on the virtual board (default) or flashed onto an emulated Pico running the real
MicroPython (--rp2). The screen shows the LED strip as the firmware drives it, the pile tops, each
player's face-up cards and the buzzer's sounds as words. At the end the board's session log is
written to --log and re-judged (exit 3 if the device's verdicts differ)."""

EPILOG = """keys (two players at one keyboard):
  player 0: 1-5 pick a face-up card, then q/w (e) land it on pile 0/1 (2); a STUCK/READY;
            z/x (c) the slap pads of pile 0/1 (2); f move a card into an empty stock place
  player 1: 6-0 pick, u/i (o) land, j STUCK/READY, m/, (.) pads, k fill a gap
  /0 7H 1 + Enter   land player 0's face-up 7H on pile 1
  a question from the referee: press that player's pad N times, then STUCK
  Q or Ctrl-C       end the session (the log is kept)

examples:
  spit play                                   a classic game on the virtual board
  spit play --option rounds_in_a_row=1        a short game: the first round decides
  spit play --rp2 --log evening.spitlog       on the emulated Pico; keep its session log"""

MAX_LAG_US = 200000     # the table may fall behind the wall clock by this much, then time stretches


def _options(pairs):
    from host_tools.cli.sim import parse_options
    return parse_options(pairs or [])


class Terminal:
    """stdin as single keys (no echo, no line buffering, Ctrl-C as a key), restored on close."""

    def __init__(self, fd):
        self.fd = fd
        self.saved = None
        if os.isatty(fd):
            import termios
            self.saved = termios.tcgetattr(fd)
            mode = termios.tcgetattr(fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
            mode[6][termios.VMIN] = 1
            mode[6][termios.VTIME] = 0
            termios.tcsetattr(fd, termios.TCSANOW, mode)

    def keys(self, timeout):
        """The keys typed within ``timeout`` seconds ('' if none; None at end of input)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return ""
        data = os.read(self.fd, 256)
        if not data:
            return None
        return data.decode("utf-8", "replace")

    def close(self):
        if self.saved is not None:
            import termios
            termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)


def play(table, out, term, speed=1.0, colour=True, frame_s=0.1, linger_us=2000000):
    """Run ``table`` (``PlayTable``) against the wall clock until the game is over or Q."""
    from host_tools.play.hardware import BoardView
    from host_tools.play.keys import Keyboard
    from host_tools.play.screen import render
    view = BoardView(table.sim.port)
    kb = Keyboard(table)
    wall0 = time.monotonic()
    base = table.now
    shown = 0.0
    over_at = None
    while not kb.quit:
        keys = term.keys(0.02)
        if keys is None:
            kb.quit = True
            break
        for ch in keys:
            kb.key(ch)
        target = base + int((time.monotonic() - wall0) * speed * 1000000)
        if target - table.now > MAX_LAG_US:     # the table cannot keep up: stretch time
            wall0 = time.monotonic()
            base = table.now + MAX_LAG_US // 4
            target = base
        table.advance(target)
        view.listen(table.now)
        if table.over and over_at is None:
            over_at = table.now
        if keys or time.monotonic() - shown >= frame_s:
            out.write(render(table, view, kb, colour=colour))
            out.flush()
            shown = time.monotonic()
        if over_at is not None and table.now - over_at >= linger_us:
            break                                # the end shown on the LEDs for a while
    out.write(render(table, view, kb, colour=colour))
    out.flush()


def report(result, path, out):
    """Write the log read off the board to ``path``, re-judge it; the exit code."""
    from host_tools import replay
    lines = result.lines
    with open(path, "w") as f:
        for line in lines:
            f.write(line + "\n")
    rep = replay.rejudge_lines(lines)
    out.write("\nthe board's session log: %s (%d lines)\n" % (path, len(lines)))
    for m in rep.mismatches:
        out.write(replay.mismatch_text(m) + "\n")
    for text in replay.summary(rep):
        out.write(text + "\n")
    out.write("re-judged: %d mismatches\n" % len(rep.mismatches))
    return 3 if rep.mismatches else 0


def run(args):
    from spit.rules import RulesetError
    from host_tools.play.table import PlayTable
    err = sys.stderr
    try:
        options = _options(args.option)
        table_kind = "rp2" if args.rp2 else "vboard"
        if args.rp2:
            err.write("spit play: flashing the referee onto an emulated Pico and booting it (a minute) ...\n")
        table = PlayTable(args.ruleset, options, args.seed, table_kind)
    except (RulesetError, ValueError) as e:
        err.write("spit play: %s\n" % e)
        return 2
    except Exception as e:  # noqa: BLE001 - the emulator missing, a boot failure: one line
        err.write("spit play: cannot start the table: %s\n" % e)
        return 1
    term = Terminal(sys.stdin.fileno())
    try:
        play(table, sys.stdout, term, speed=args.speed, colour=not args.no_colour)
    finally:
        term.close()
    result = table.finish()
    return report(result, args.log, sys.stdout)


def add_subcommands(subparsers):
    p = subparsers.add_parser("play", help="an emulated table in the terminal: two people play, the firmware referees",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ruleset", default="classic", help="preset: classic, family, own_deck, speed, tableau")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="ruleset option (repeatable)")
    p.add_argument("--seed", type=int, default=1, help="the deal (default 1)")
    p.add_argument("--rp2", action="store_true",
                   help="referee on the emulated Pico (real MicroPython, `spit flash`ed; slower) instead of "
                        "the virtual board")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="table seconds per wall second (default 1)")
    p.add_argument("--log", default="spit-play.spitlog", metavar="OUT",
                   help="where the board's session log goes (default spit-play.spitlog)")
    p.add_argument("--no-colour", action="store_true", help="LED zones as words only")
    p.set_defaults(func=run)
    return p
