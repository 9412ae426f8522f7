"""``spit sim``: play refereed games on a simulated table (no hardware needed).

One game (default): two bots deal, lay out and play; the referee judges every card; progress on
stderr; then the session log is written, re-judged and shown as the replay timeline, and an HTML
page is written.  ``--games N``: a statistics table instead (rounds, stalemates, races, ties,
illegal and late cards, game length, winner split).
"""

import argparse
import contextlib
import io
import os
import sys
import time

import host_tools  # noqa: F401,E402  (the engine on the path in a checkout)

from spit.rules import make_ruleset, RulesetError, PRESETS

DESCRIPTION = """Play Spit on a simulated table: two bot players with human reaction times (about 190 ms plus
their skill) really deal and play by the ruleset; card landings go through a model of the touch sensors
and NFC readers to the referee's rules engine (--mode fast) or to the real firmware running on the
virtual board (--mode firmware). One game shows the replay timeline and writes the session log and an
HTML page; --games N prints statistics instead."""

EPILOG = """examples:
  spit sim                                   one refereed game: timeline, spit-sim.spitlog, spit-sim.html
  spit sim --ruleset tableau --seed 7        another ruleset and deal
  spit sim --games 200                       statistics over 200 games
  spit sim --games 200 --option wrap=ace_only     ... with the ace-only link (R-CARD-3)
  spit sim --games 200 --option piles=3           ... with three center piles (R-STALL-4)
  spit sim --mode firmware                   the real firmware loop on the virtual board
  spit sim --mode rp2 --seconds 60           the firmware on an emulated Pico (real MicroPython rp2)

presets: %s. Options (--option k=v, repeatable): wrap=both|ace_only|none, piles=2|3, jokers=0..2,
slow_spit_ms=2000, stocks=4|5, points_target=100, rounds_in_a_row=3, timer_ms=600000, colours=alternate,
slap=both|out_only|choose, round_end=stocks|stocks_and_spit ...""" % ", ".join(sorted(PRESETS))


def parse_options(pairs):
    """``["wrap=ace_only", "piles=3"]`` -> ``{"wrap": "ace_only", "piles": 3}``; ValueError names the bad one."""
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise ValueError("--option %r: expected KEY=VALUE" % pair)
        key, value = pair.split("=", 1)
        key = key.strip()
        value = value.strip()
        if value.lstrip("-").isdigit():
            out[key] = int(value)
        elif value.lower() in ("true", "false", "on", "off", "yes", "no"):
            out[key] = 1 if value.lower() in ("true", "on", "yes") else 0
        else:
            out[key] = value
    return out


class Progress:
    """Progress on stderr: a line per round, a running status at least every second."""

    def __init__(self, stream, quiet=False):
        self.stream = stream
        self.quiet = quiet
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.last = self.start
        self.round = 0

    def game(self, sim):
        st = sim.stats
        if st["rounds"] != self.round:
            self.round = st["rounds"]
            if not self.quiet:
                c = sim.expected
                self._line("round %d  cards %d | %d  (t=%s)" % (self.round, c[0], c[1], _mmss(sim.now)))
        now = time.monotonic()
        if now - self.last >= 1.0:
            self.last = now
            self._status("t=%s  round %d  plays %d  spit calls %d  races %d  illegal %d" % (
                _mmss(sim.now), st["rounds"], st["plays"], st["spit_calls"], st["races"], st["illegal"]))

    def games(self, done, total):
        now = time.monotonic()
        if done == total or now - self.last >= 1.0 or done == 1:
            self.last = now
            self._status("games %d/%d (%.1f s)" % (done, total, now - self.start))

    def _line(self, text):
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write("spit sim: %s\n" % text)
        self.stream.flush()

    def _status(self, text):
        if self.tty:
            self.stream.write("\r\033[Kspit sim: %s" % text)
        else:
            self.stream.write("spit sim: %s\n" % text)
        self.stream.flush()

    def done(self):
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _mmss(t_us):
    s = t_us // 1000000
    return "%d:%02d" % (s // 60, s % 60)


def permille(text):
    """argparse type for ``--misread``: an integer 0..1000."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number of reads per 1000, got %r" % text)
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError("must be 0..1000 (reads per 1000 that fail), got %d" % value)
    return value


def game_path(path, seed, games):
    """``--log x.spitlog`` with ``--games N``: one file per game, ``x-SEED.spitlog``."""
    if games is None:
        return path
    root, ext = os.path.splitext(path)
    return "%s-%d%s" % (root, seed, ext)


def _check_outputs(args, err):
    """Say before playing if a --log/--html file cannot be written (for each game's name)."""
    from host_tools.replay import check_writable
    games = args.games if args.games is not None else 1
    for path in (args.log or (None if args.games else "spit-sim.spitlog"),
                 args.html or (None if args.games else "spit-sim.html")):
        if path is None:
            continue
        for seed in (args.seed, args.seed + games - 1):
            why = check_writable(game_path(path, seed, args.games))
            if why:
                err.write("spit sim: %s\n" % why)
                return False
    return True


def _port_factory(mode):
    if mode == "fast":
        return None
    if mode == "rp2":
        from host_tools.rp2emu.emulator import why_unavailable
        reason = why_unavailable()
        if reason:
            raise ImportError(reason)
        from host_tools.sim.rp2 import rp2_port
        return rp2_port
    from host_tools.sim.firmware import firmware_port
    return firmware_port


def run(args, out=None, err=None):
    """``spit sim`` for parsed ``args``; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        options = parse_options(args.option)
        rules = make_ruleset(args.ruleset, options)
    except (ValueError, RulesetError) as e:
        err.write("spit sim: %s\n" % e)
        return 2
    skills = tuple(s.strip() for s in args.skills.split(","))
    from host_tools.sim.bots import SKILLS
    if len(skills) != 2 or skills[0] not in SKILLS or skills[1] not in SKILLS:
        err.write("spit sim: --skills: two of %s, comma-separated (got %r)\n" % (", ".join(sorted(SKILLS)), args.skills))
        return 2
    try:
        factory = _port_factory(args.mode)
    except ImportError as e:
        err.write("spit sim: --mode %s cannot run here: %s\n" % (args.mode, e))
        return 1
    if args.games is not None and args.games < 1:
        err.write("spit sim: --games must be at least 1\n")
        return 2
    if args.seconds is not None and not (0 < args.seconds < float("inf")):
        err.write("spit sim: --seconds must be a number of seconds above 0, got %s (leave it out to play the "
                  "game out)\n" % args.seconds)
        return 2
    if not _check_outputs(args, err):
        return 1
    from host_tools.sim.ports import SensorModel
    sensors = SensorModel(misread_pm=args.misread)
    progress = Progress(err, args.quiet)
    if args.games is not None:
        return _batch(args, rules, options, skills, sensors, factory, progress, out)
    from host_tools.sim.run import run_game
    if args.mode == "rp2":
        err.write("spit sim: the referee is the firmware flashed onto an emulated Pico (real MicroPython rp2); "
                  "the emulator runs a few times slower than real time\n")
    max_minutes = args.seconds / 60.0 if args.seconds else 90
    result = run_game(rules, seed=args.seed, skills=skills, sensors=sensors, port_factory=factory,
                      progress=progress.game, max_minutes=max_minutes)
    progress.done()
    return _report_game(args, result, out, err)


def _batch(args, rules, options, skills, sensors, factory, progress, out):
    from host_tools.sim.stats import run_batch, table
    written = []

    def keep_files(result, seed):
        """--games N with --log/--html: each game's log and page, named after its seed."""
        if args.log:
            path = game_path(args.log, seed, args.games)
            _write_log(path, result.lines)
            written.append(path)
        if args.html:
            from host_tools import replay
            from host_tools.replay import page as replay_html
            path = game_path(args.html, seed, args.games)
            replay_html.write(path, replay.rejudge_lines(result.lines), title="seed %d" % seed)
            written.append(path)

    keep = keep_files if (args.log or args.html) else None
    quiet_firmware = io.StringIO()
    with contextlib.redirect_stdout(quiet_firmware):   # firmware mode: no boot banner per game in the table
        summary = run_batch(rules, None, args.games, seed=args.seed, skills=skills, sensors=sensors,
                            port_factory=factory, progress=progress.games, on_result=keep,
                            max_minutes=args.seconds / 60.0 if args.seconds else 90)
    progress.done()
    opts = ", ".join("%s=%s" % (k, options[k]) for k in sorted(options)) or "none"
    out.write("spit sim: %d games, ruleset %s, options: %s, seeds %d..%d, %s mode\n" % (
        args.games, rules.name, opts, args.seed, args.seed + args.games - 1, args.mode))
    for line in table(summary, skills):
        out.write(line + "\n")
    if written:
        out.write("wrote %d files: %s\n" % (len(written), " ".join(written) if len(written) <= 6 else
                                                "%s ... %s" % (written[0], written[-1])))
    return 0


def _write_log(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")


def _report_game(args, result, out, err):
    from host_tools import replay
    from host_tools.replay import page as replay_html
    lines = result.lines
    log_path = args.log or "spit-sim.spitlog"
    try:
        _write_log(log_path, lines)
    except OSError as e:
        err.write("spit sim: %s: cannot write: %s\n" % (log_path, e.strerror or e))
        return 1
    rep = replay.rejudge_lines(lines)
    if not args.quiet:
        for text in replay.timeline(rep):
            out.write(text + "\n")
        out.write("\n")
    for m in rep.mismatches:
        out.write(replay.mismatch_text(m) + "\n")
    for text in replay.summary(rep):
        out.write(text + "\n")
    disagreements = [n for n in result.notes if not n.startswith("unfinished")]
    if disagreements:
        out.write("table/referee disagreements: %d (first: %s)\n" % (len(disagreements), disagreements[0]))
    else:
        out.write("table/referee disagreements: 0\n")
    for note in result.notes:
        if note.startswith("unfinished"):
            out.write("game %s\n" % note)
    out.write("simulated %s of play (seed %d); wrote %s\n" % (_mmss(result.length_us), args.seed, log_path))
    html_path = args.html or "spit-sim.html"
    try:
        replay_html.write(html_path, rep, title=os.path.basename(log_path))
    except OSError as e:
        err.write("spit sim: %s: cannot write: %s\n" % (html_path, e.strerror or e))
        return 1
    out.write("wrote %s\n" % html_path)
    return 3 if rep.mismatches else 0


def configure_parser(p):
    p.add_argument("--games", type=int, metavar="N", help="play N games and print statistics")
    p.add_argument("--ruleset", default="classic", help="preset: %s (default classic)" % ", ".join(sorted(PRESETS)))
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="ruleset option (repeatable)")
    p.add_argument("--seed", type=int, default=1, help="deal and bot behaviour; same seed, same game (default 1)")
    p.add_argument("--log", metavar="OUT", help="session log to write (default spit-sim.spitlog; with --games N "
                                                "one per game, OUT-SEED.spitlog)")
    p.add_argument("--html", metavar="OUT", help="HTML page to write (default spit-sim.html; with --games N one "
                                                 "per game, OUT-SEED.html)")
    p.add_argument("--mode", choices=("fast", "firmware", "rp2"), default="fast",
                   help="fast: the rules engine directly; firmware: the real firmware on the virtual board; "
                        "rp2: the firmware flashed onto an emulated Pico running the real MicroPython")
    p.add_argument("--seconds", type=float, metavar="N",
                   help="stop the game after N seconds of simulated play (default: play it out, 90 min at most)")
    p.add_argument("--skills", default="quick,steady", help="the two bots' skills: quick, steady, novice "
                                                              "(default quick,steady)")
    p.add_argument("--misread", type=permille, default=0, metavar="PERMILLE",
                   help="NFC reads that fail, per mille (default 0)")
    p.add_argument("--quiet", "-q", action="store_true", help="no timeline and no per-round progress")
    p.set_defaults(func=run)
    return p


def add_subcommands(subparsers):
    """Register ``sim`` on the ``spit`` command's subparsers."""
    p = subparsers.add_parser("sim", help="play refereed games on a simulated table (no hardware)",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    return configure_parser(p)
