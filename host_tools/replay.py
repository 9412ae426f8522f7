"""``spit replay LOG``: re-judge a session log with the shared rules engine and explain it.

The log (docs/log-format.md) is fed line by line to :class:`spit.log.Rejudge`, the same code
the referee runs on the board.  The result is shown as a readable timeline (default), as JSON
Lines (``--json``, the log's verdict vocabulary in canonical key order) and/or as one
self-contained HTML page (``--html OUT``, see :mod:`host_tools.replay_html`).  Verdicts the
device wrote into the log are compared with the re-judged ones.

Exit codes: 0 ok, 1 the log cannot be replayed (missing, unreadable, empty), 2 bad usage,
3 the device's verdicts differ from the re-judge, 4 the log has bad lines (replayed anyway).
"""

import difflib
import os
import sys
import time

try:
    import spit  # noqa: F401  (installed by pyproject)
except ImportError:  # running from a checkout: the engine lives in firmware/lib
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "firmware", "lib"))

from spit.cards import parse_card, format_card, CardError
from spit.log import Rejudge
try:
    from spit.notation import items_json   # the engine's canonical verdict JSON
except ImportError:  # engines before spit.notation existed
    from spit.verdicts import items_json

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MISMATCH = 3
EXIT_BAD_LINES = 4

# Verdicts only the firmware can produce (nothing in the log's events shows them again).
DEVICE_ONLY_ERRORS = ("unknown_uid", "reader_down", "overflow")
PILE_VERDICTS = ("spit", "accept", "illegal", "late", "tie", "early", "undo", "resync")
CARD_FIELDS = ("card", "top", "winner")
PROGRESS_EVERY = 20000

REASON_WORDS = {"out": "went out", "blocked": "nobody can play (blocked)", "timer": "the timer ran out",
                "points": "points target reached", "streak": "rounds in a row", "no_cards": "no cards left"}


class ReplayError(Exception):
    """The log cannot be replayed at all; the message is one line."""


class Replay:
    """A re-judged log: ``records`` = [(line_no, t, kind, fields)] plus the raw ``Rejudge``."""

    def __init__(self, rejudge, problems):
        self.rejudge = rejudge
        self.problems = problems
        self.records = [(line, items[0][1], items[1][1], dict(items[2:])) for line, items in rejudge.verdicts]
        self.npiles = rejudge.referee.npiles if rejudge.referee is not None else 2
        self.mismatches = compare(rejudge.device_verdicts, rejudge.verdicts)
        self.rounds, self.game = analyse(self.records, rejudge.referee)


class RoundStats:
    """Counts for one round, for the summary line and the HTML table."""

    def __init__(self, number, start, cards):
        self.number = number
        self.start = start
        self.end = start
        self.cards_start = cards
        self.cards_after = None
        self.plays = self.races = self.late = self.ties = self.illegal = 0
        self.early = self.spit_calls = self.errors = 0
        self.end_reason = None
        self.out_player = None
        self.piles_won = []   # (player, pile, size)


def analyse(records, referee):
    """Per-round statistics and the game result ``(winner, reason)`` or None."""
    rounds = []
    game = None
    cur = None
    for _line, t, kind, f in records:
        if kind == "round_start":
            if cur is not None and cur.cards_start is None:   # only log errors before the first round
                rounds.pop()
                errors = cur.errors
            else:
                errors = 0
                if cur is not None and cur.cards_after is None:
                    cur.cards_after = (f["cards0"], f["cards1"])
            cur = RoundStats(f["round"], t, (f["cards0"], f["cards1"]))
            cur.errors = errors
            rounds.append(cur)
            continue
        if cur is None:
            cur = RoundStats(1, 0, None)
            rounds.append(cur)
        cur.end = max(cur.end, t)
        if kind == "accept":
            cur.plays += 1
            cur.races += "dt_us" in f
        elif kind == "late":
            cur.races += 1
            cur.late += 1
        elif kind == "tie":
            cur.ties += 1
        elif kind == "illegal":
            cur.illegal += 1
        elif kind == "early":
            cur.early += 1
        elif kind == "spit_call":
            cur.spit_calls += 1
        elif kind == "error":
            cur.errors += 1
        elif kind == "round_end":
            cur.end_reason = f["reason"]
            cur.out_player = f.get("player")
        elif kind == "pile_won":
            cur.piles_won.append((f["player"], f["pile"], f["size"]))
        elif kind == "game_over":
            game = (f["winner"], f["reason"])
    if cur is not None and cur.cards_after is None and cur.piles_won and referee is not None:
        cur.cards_after = (referee.cards[0], referee.cards[1])
    return rounds, game


# --- reading and re-judging ---

def read_log(path):
    """The log's lines (``-`` reads stdin) and whether its last line is cut off."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise ReplayError("%s: no such file" % path)
    except IsADirectoryError:
        raise ReplayError("%s: is a directory, not a log file" % path)
    except OSError as e:
        raise ReplayError("%s: cannot read: %s" % (path, e.strerror or e))
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise ReplayError("%s: empty log (no header line)" % path)
    lines = text.split("\n")
    truncated = lines[-1] != ""
    if not truncated:
        lines.pop()
    return lines, truncated


def rejudge_lines(lines, truncated=False, progress=None):
    """Feed ``lines`` to the engine; returns a :class:`Replay`.  ``progress(done, total)``
    is called every PROGRESS_EVERY lines."""
    r = Rejudge()
    total = len(lines)
    for i, line in enumerate(lines):
        if progress is not None and i % PROGRESS_EVERY == 0 and i:
            progress(i, total)
        r.feed_line(line)
    r.finish()
    problems = list(r.problems)
    if truncated and problems and problems[-1][0] == total and lines[-1].strip():
        problems[-1] = (total, "truncated last line (the log ends mid-line): %s" % lines[-1][:40])
    return Replay(r, problems)


# --- device verdicts vs the re-judge ---

def _normalise(fields):
    """A device or re-judged verdict as a comparable, printable string (no ``t``)."""
    parts = [str(fields.get("verdict"))]
    for key in sorted(k for k in fields if k not in ("t", "verdict")):
        v = fields[key]
        if key in CARD_FIELDS and isinstance(v, str):
            try:
                v = format_card(parse_card(v))
            except CardError:
                pass
        parts.append("%s=%s" % (key, v))
    return " ".join(parts)


def compare(device_verdicts, verdicts):
    """``[(line_no, device_text or None, rejudge_text or None)]`` for every difference, in time order.

    Verdicts are matched by ``t`` and, within one ``t``, by their order (a diff).  Errors
    about the log file itself and firmware-only errors are not compared."""
    if not device_verdicts:
        return []
    by_t = {}
    for line, obj in device_verdicts:
        if obj.get("verdict") == "error" and obj.get("reason") in DEVICE_ONLY_ERRORS:
            continue
        by_t.setdefault(obj.get("t"), ([], []))[0].append((line, _normalise(obj)))
    for line, items in verdicts:
        if items[1][1] == "error" and items[-1][0] == "line":
            continue
        by_t.setdefault(items[0][1], ([], []))[1].append((line, _normalise(dict(items))))
    out = []
    for t in sorted(by_t, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0)):
        dev, rj = by_t[t]
        matcher = difflib.SequenceMatcher(None, [d[1] for d in dev], [r[1] for r in rj], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                d = dev[i1 + k] if i1 + k < i2 else None
                r = rj[j1 + k] if j1 + k < j2 else None
                line = d[0] if d else r[0]
                out.append((line, d[1] if d else None, r[1] if r else None))
    return out


def mismatch_text(m):
    line, dev, rj = m
    return "MISMATCH line %d: device said %s, re-judge says %s" % (
        line, dev or "nothing", rj or "nothing")


# --- the text timeline ---

def fmt_time(t_us):
    ms = t_us // 1000
    return "%d:%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def fmt_ms(us):
    return "%.1f ms" % (us / 1000.0)


def describe(kind, f):
    """One verdict in words (without time and tops)."""
    pile = "pile %s  " % f["pile"] if "pile" in f and kind in PILE_VERDICTS else ""
    card = f.get("card", "")
    if kind == "accept":
        who = "  by player %d" % f["player"] if "player" in f else ""
        race = "  (race: +%s, fits too)" % fmt_ms(f["dt_us"]) if "dt_us" in f else ""
        return "%sACCEPT %s%s%s" % (pile, card, who, race)
    if kind == "spit":
        return "%sSPIT %s  (player %s's spit card)" % (pile, card, f.get("player", "?"))
    if kind == "illegal":
        return "%sILLEGAL %s  (%s)" % (pile, card, "does not fit %s" % f["top"] if "top" in f else "empty pile")
    if kind == "late":
        return "%sLATE %s  (+%s behind %s)" % (pile, card, fmt_ms(f["dt_us"]), f["top"])
    if kind == "tie":
        return "%sTIE %s vs %s  (+%s: %s stays underneath)" % (pile, card, f["winner"], fmt_ms(f["dt_us"]),
                                                               f["winner"])
    if kind == "early":
        return "%sEARLY %s  (before the spit cards)" % (pile, card)
    if kind == "undo":
        return "%sUNDO %s taken back" % (pile, card)
    if kind == "resync":
        return "%sTOP is %s  (correction)" % (pile, card)
    if kind == "round_start":
        single = "  (single spit pile)" if "single_pile" in f else ""
        return "ROUND %d starts  cards %d | %d%s" % (f["round"], f["cards0"], f["cards1"], single)
    if kind == "countdown":
        return "countdown %.1f s" % (f["ms"] / 1000.0)
    if kind == "stuck":
        return "player %d STUCK" % f["player"]
    if kind == "spit_call":
        return "SPIT CALL  both stuck: countdown, then spit cards (%d pile%s)" % (
            f["piles"], "" if f["piles"] == 1 else "s")
    if kind == "recycle":
        return "RECYCLE  %d center cards become side piles" % f["cards"]
    if kind == "round_end":
        who = "player %d " % f["player"] if "player" in f else ("a player " if f["reason"] == "out" else "")
        return "ROUND %s ENDS  %s%s" % (f.get("round", "?"), who, REASON_WORDS.get(f["reason"], f["reason"]))
    if kind == "pile_won":
        return "player %d takes pile %d  (%d cards)" % (f["player"], f["pile"], f["size"])
    if kind == "question":
        if f.get("ask") == "went_out":
            return "QUESTION  player %d: did you go out? (1 yes, 0 no)" % f["player"]
        return "QUESTION  player %d: how many stock cards left? (0..%d)" % (f["player"], f["max"])
    if kind == "score":
        return "player %d score %d" % (f["player"], f["score"])
    if kind == "game_over":
        who = "a draw" if f["winner"] < 0 else "player %d wins" % f["winner"]
        return "GAME OVER  %s (%s)" % (who, REASON_WORDS.get(f["reason"], f["reason"]))
    if kind == "error":
        extra = "".join("  %s %s" % (k, f[k]) for k in ("pile", "player", "value") if k in f)
        where = "  (log line %d)" % f["line"] if "line" in f else ""
        return "ERROR %s%s%s" % (f["reason"], extra, where)
    return "%s %s" % (kind.upper(), " ".join("%s=%s" % kv for kv in f.items()))


def timeline(replay):
    """The timeline lines: time, the verdict in words, the pile tops after pile verdicts."""
    tops = [None] * replay.npiles
    out = []
    for _line, t, kind, f in replay.records:
        if kind == "round_start":
            tops = [None] * replay.npiles
        elif kind in ("spit", "accept", "resync") and 0 <= f["pile"] < len(tops):
            tops[f["pile"]] = f["card"]
        elif kind == "undo" and 0 <= f["pile"] < len(tops):
            tops[f["pile"]] = f.get("top")
        text = describe(kind, f)
        if kind in PILE_VERDICTS and kind != "tie":
            text = "%-44s tops: %s" % (text, " | ".join(c or "--" for c in tops))
        out.append("%8s  %s" % (fmt_time(t), text))
    return out


def summary(replay):
    """The closing summary lines."""
    rs = replay.rounds

    def total(attr):
        return sum(getattr(r, attr) for r in rs)

    lines = ["summary: %d round%s, %d plays, %d races (%d late), %d ties, %d illegal, %d early, "
             "%d spit calls, %d errors" % (len(rs), "" if len(rs) == 1 else "s", total("plays"), total("races"),
                                           total("late"), total("ties"), total("illegal"), total("early"),
                                           total("spit_calls"), total("errors"))]
    if replay.game is not None:
        winner, reason = replay.game
        who = "a draw" if winner < 0 else "player %d" % winner
        lines.append("winner: %s (%s)" % (who, REASON_WORDS.get(reason, reason)))
    elif rs:
        lines.append("no winner yet: the log ends in round %d" % rs[-1].number)
    if replay.rejudge.device_verdicts:
        lines.append("device verdicts: %d logged, %d mismatch%s" % (
            len(replay.rejudge.device_verdicts), len(replay.mismatches), "" if len(replay.mismatches) == 1 else "es"))
    return lines


# --- the command ---

def _progress_printer(stream, name):
    if not stream.isatty():
        return None
    start = time.monotonic()

    def show(done, total):
        if time.monotonic() - start > 1.0:
            stream.write("\rspit replay: %s: %d/%d lines (%d%%)" % (name, done, total, 100 * done // total))
            stream.flush()
    return show


def run(args, out=None, err=None):
    """Run ``spit replay`` for parsed ``args``; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        lines, truncated = read_log(args.log)
    except ReplayError as e:
        err.write("spit replay: %s\n" % e)
        return EXIT_ERROR
    progress = _progress_printer(err, args.log)
    replay = rejudge_lines(lines, truncated, progress)
    if progress is not None:
        err.write("\r\033[K")
    if replay.rejudge.referee is None:
        first = replay.problems[0] if replay.problems else (1, "no header line")
        err.write("spit replay: %s: not a session log: line %d: %s\n" % (args.log, first[0], first[1]))
        return EXIT_ERROR
    for line_no, message in replay.problems:
        err.write("%s: line %d: %s\n" % (args.log, line_no, message))
    if args.json:
        for _line, items in replay.rejudge.verdicts:
            out.write(items_json(items) + "\n")
    elif not args.quiet:
        for text in timeline(replay):
            out.write(text + "\n")
        out.write("\n")
    report = err if args.json else out
    for m in replay.mismatches:
        report.write(mismatch_text(m) + "\n")
    if not args.json:
        for text in summary(replay):
            out.write(text + "\n")
    if args.html:
        from host_tools import replay_html
        if progress is not None and len(replay.records) > PROGRESS_EVERY:
            err.write("spit replay: writing %s ...\r" % args.html)
            err.flush()
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(replay_html.render(replay, title=os.path.basename(args.log)))
        except OSError as e:
            err.write("spit replay: %s: cannot write: %s\n" % (args.html, e.strerror or e))
            return EXIT_ERROR
        if not args.json:
            out.write("wrote %s\n" % args.html)
    if replay.mismatches:
        return EXIT_MISMATCH
    if replay.problems:
        return EXIT_BAD_LINES
    return EXIT_OK
