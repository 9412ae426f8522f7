"""``spit replay LOG``: re-judge a session log with the shared rules engine and explain it.

The log (docs/log-format.md) is streamed line by line through the engine's own log reader
(:class:`host_tools.replay.stream.StreamJudge`, the referee the board runs), and every verdict
is handed on as it is made: to the timeline (default), to JSON Lines (``--json``, the log's
verdict vocabulary in canonical key order), to the round counts, and to the comparison with the
verdicts the device wrote into the log.  Nothing per line is kept unless the HTML page
(``--html OUT``, :mod:`host_tools.replay.page`) needs it, so a log of a million events replays in
constant memory.

Exit codes: 0 ok, 1 the log cannot be replayed (missing, unreadable, empty, binary), 2 bad
usage, 3 the device's verdicts differ from the re-judge, 4 the log has bad lines (replayed anyway).
"""

import gc
import io
import os
import sys
import time

import host_tools  # noqa: F401,E402  (the engine on the path in a checkout)

from spit.words import items_json
from host_tools.replay.matcher import Matcher
from host_tools.replay.stream import StreamJudge
from host_tools.replay.text import Timeline, RoundTally, describe, summary, mismatch_text, timeline  # noqa: F401
from host_tools.replay.text import fmt_time, fmt_ms, plural, REASON_WORDS, ERROR_WORDS  # noqa: F401

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_MISMATCH = 3
EXIT_BAD_LINES = 4

PROGRESS_EVERY = 20000
KEEP_PROBLEMS = 200        # bad lines kept for the page (all are printed)
KEEP_MISMATCHES = 200      # mismatches kept for the page (all are printed)
BINARY_PROBE = 4096


class ReplayError(Exception):
    """The log cannot be replayed at all; the message is one line."""


class Replay:
    """What a replay found.  ``records`` (``[(line, t, kind, fields)]``) and ``verdicts``
    (``[(line, items)]``) are filled only when asked for (the HTML page, tests); counts are always
    there.  ``problems``/``mismatches`` hold the first few; ``n_problems``/``n_mismatches`` count all."""

    def __init__(self, keep=False):
        self.keep = keep
        self.records = [] if keep else None
        self.verdicts = [] if keep else None
        self.tally = RoundTally()
        self.problems = []
        self.n_problems = 0
        self.mismatches = []
        self.n_mismatches = 0
        self.device_verdicts = 0
        self.cut_off = 0
        self.truncated = None      # the cut-off last line, if the log ends mid-line
        self.header_problem = None
        self.referee = None
        self.lines = 0
        self.npiles = 2
        self.inputs = [] if keep else None   # (t, kind, a, b, c) of every input event (spit.intake EV_*)

    @property
    def rounds(self):
        return self.tally.rounds

    @property
    def game(self):
        return self.tally.game

    @property
    def rejudge(self):
        """The name callers used before streaming (``replay.rejudge.verdicts``, ``.referee``)."""
        return self

    @property
    def rules_name(self):
        return self.referee.rules.name if self.referee is not None else "?"

    def add_problem(self, line, message):
        self.n_problems += 1
        if len(self.problems) < KEEP_PROBLEMS:
            self.problems.append((line, message))

    def add_mismatch(self, line, device, rejudge):
        self.n_mismatches += 1
        if len(self.mismatches) < KEEP_MISMATCHES:
            self.mismatches.append((line, device, rejudge))


def replay_lines(lines, keep=False, on_items=None, on_problem=None, on_mismatch=None, on_header=None,
                 progress=None, total=None, on_input=None):
    """Stream ``lines`` (an iterable of text lines, with or without their newline) through the
    referee; returns a :class:`Replay`.  ``on_items(line, items)``: every verdict in the log's
    vocabulary; ``on_problem(line, message)``; ``on_mismatch(line, device, rejudge)``;
    ``progress(done, total)`` every PROGRESS_EVERY lines (``total`` may be None); ``on_input(t, kind,
    a, b, c)`` every input event (answers and STUCK presses tell who won a round)."""
    rep = Replay(keep)

    def problem(line, message):
        rep.add_problem(line, message)
        if on_problem is not None:
            on_problem(line, message)

    def mismatch(line, device, rejudge):
        rep.add_mismatch(line, device, rejudge)
        if on_mismatch is not None:
            on_mismatch(line, device, rejudge)

    items_sinks = [f for f in (on_items, _keeper(rep) if keep else None) if f is not None]
    if len(items_sinks) == 2:
        first, second = items_sinks

        def both(line, items):
            first(line, items)
            second(line, items)
        items_sink = both
    else:
        items_sink = items_sinks[0] if items_sinks else None
    matcher = Matcher(mismatch)
    inputs = [f for f in ((lambda t, kind, a, b, c: rep.inputs.append((t, kind, a, b, c))) if keep else None,
                          on_input) if f is not None]
    if len(inputs) == 2:
        def input_sink(t, kind, a, b, c):
            inputs[0](t, kind, a, b, c)
            inputs[1](t, kind, a, b, c)
    else:
        input_sink = inputs[0] if inputs else None
    judge = StreamJudge(matcher, on_verdict=rep.tally.add, on_items=items_sink, on_problem=problem,
                        on_input=input_sink, on_header=on_header)
    gc_was = gc.isenabled()
    gc.disable()   # streaming leaves no garbage cycles; the collector would only walk live objects
    try:
        judge.feed_lines(lines, None if progress is None else (lambda n: progress(n, total)),
                                PROGRESS_EVERY)
        if judge.unterminated is not None and rep.problems and rep.problems[-1][0] == judge.line_no:
            rep.truncated = judge.unterminated
        judge.finish()
    finally:
        if gc_was:
            gc.enable()
    if judge.referee is None and not rep.problems:
        rep.add_problem(max(judge.line_no, 1), "empty log: no header")
    rep.referee = judge.referee
    rep.lines = judge.line_no
    rep.npiles = judge.referee.npiles if judge.referee is not None else 2
    rep.device_verdicts = matcher.device_lines
    rep.cut_off = matcher.cut_off
    rep.header_problem = judge.header_problem
    rep.tally.close(judge.referee)
    return rep


def _keeper(rep):
    def keep(line, items):
        rep.verdicts.append((line, items))
        rep.records.append((line, items[0][1], items[1][1], dict(items[2:])))
    return keep


def rejudge_lines(lines, truncated=False, progress=None):
    """Re-judge a list of log lines (no newlines) and keep every verdict: for ``spit sim`` and
    tests.  ``truncated``: the last line was cut off mid-line."""
    it = [line + "\n" for line in lines]
    if truncated and it:
        it[-1] = lines[-1]
    return replay_lines(it, keep=True, progress=progress, total=len(lines))


# --- opening a log ---

def open_log(path):
    """A text stream of the log (``-``: stdin), checked to be text; raises ReplayError."""
    try:
        if path == "-":
            raw = sys.stdin.buffer
        else:
            raw = open(path, "rb")
    except FileNotFoundError:
        raise ReplayError("%s: no such file" % path)
    except IsADirectoryError:
        raise ReplayError("%s: is a directory, not a log file" % path)
    except OSError as e:
        raise ReplayError("%s: cannot read: %s" % (path, e.strerror or e))
    try:
        head = raw.peek(BINARY_PROBE)[:BINARY_PROBE] if hasattr(raw, "peek") else b""
    except OSError as e:
        raise ReplayError("%s: cannot read: %s" % (path, e.strerror or e))
    if not head.strip() and path != "-":
        raw.close()
        raise ReplayError("%s: empty log (no header line)" % path)
    why = binary_reason(head)
    if why:
        if path != "-":
            raw.close()
        raise ReplayError("%s: not a session log: %s" % (path, why))
    # (A byte order mark, a log saved by a Windows editor, is dropped by the reader, spit.log, as
    # under MicroPython: it is not part of the header line.)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="\n")


def binary_reason(head):
    """Why ``head`` (the file's first bytes) is not a text log, or None.  Only the first line
    decides, and only when it is not text at all (not UTF-8, or a NUL before any line end in the
    first bytes): a log whose first line is text is read by the reader (spit.log), which says
    what is wrong with each line alike on every Python (a NUL or another control character is
    one bad line, a later line with a bad byte too: the good lines are kept)."""
    end = head.find(b"\n")
    first = head if end < 0 else head[:end + 1]
    magic = {b"PK\x03\x04": "a zip archive", b"\x1f\x8b": "gzip data", b"\x89PNG": "a PNG image",
             b"\x7fELF": "a program", b"%PDF": "a PDF document", b"M\xceb": "MicroPython bytecode (.mpy)"}
    what = next((name for m, name in magic.items() if head.startswith(m)), None)
    nul = b"\0" in first
    kind = "binary data" if nul or what else None
    try:
        first.decode("utf-8")
    except UnicodeDecodeError as e:
        if not (e.start >= len(first) - 3 and e.reason == "unexpected end of data"):   # (not a cut character)
            kind = kind or "not UTF-8 text (byte 0x%02x at offset %d)" % (first[e.start], e.start)
    else:
        if not what and not (nul and end < 0):
            return None
    if kind is None:
        return None   # (text, cut by the probe's end)
    start = " ".join("%02x" % b for b in head[:8])
    return "it is %s, not JSON Lines text (starts with bytes %s%s)" % (
        kind, start, "; looks like %s" % what if what else "")


# --- the command ---

def printable(text):
    """``text`` with control characters escaped (a bad line's NUL bytes are not sent to the terminal)."""
    return "".join(c if c >= " " and c != "\x7f" else "\\x%02x" % ord(c) for c in text)


def check_writable(path):
    """None if ``path`` can be written, else why not (one line): checked before a long replay."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return "%s: is a directory" % path
    if not os.path.isdir(folder):
        return "%s: cannot write: no such folder %s" % (path, folder)
    if os.path.exists(path) and not os.access(path, os.W_OK) or not os.access(folder, os.W_OK):
        return "%s: cannot write: permission denied" % path
    return None


def _progress_printer(stream, name):
    if not stream.isatty():
        return None
    start = time.monotonic()

    def show(done, total):
        if time.monotonic() - start > 1.0:
            stream.write("\rspit replay: %s: %d lines%s" % (name, done, " of ~%d" % total if total else ""))
            stream.flush()
    return show


def run(args, out=None, err=None):
    """Run ``spit replay`` for parsed ``args``; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        stream = open_log(args.log)
    except ReplayError as e:
        err.write("spit replay: %s\n" % e)
        return EXIT_ERROR
    if args.html:
        why = check_writable(args.html)
        if why:
            err.write("spit replay: %s\n" % why)
            return EXIT_ERROR
    report = err if args.json else out
    text_timeline = None if (args.json or args.quiet) else Timeline()

    # Bad lines before the header (at most spit.log's _PRE_HEADER): their messages and error
    # verdicts are printed only once a header follows (else the file is no log at all).
    held = []
    held_items = []
    header_seen = []

    def on_items(line, items):
        if not header_seen:
            held_items.append((line, items))
        elif args.json:
            out.write(items_json(items) + "\n")
        else:
            out.write(text_timeline.line(items) + "\n")

    def on_problem(line, message):
        if not header_seen:
            held.append((line, message))
            return
        err.write("%s: line %d: %s\n" % (args.log, line, printable(message)))

    def on_header(referee):
        header_seen.append(referee)
        if text_timeline is not None:
            text_timeline.set_table(referee)
        for line, message in held:
            on_problem(line, message)
        for line, items in held_items:
            on_items(line, items)

    def on_mismatch(line, device, rejudge):
        report.write(mismatch_text((line, device, rejudge)) + "\n")

    progress = _progress_printer(err, args.log)
    try:
        with stream:
            rep = replay_lines(stream, keep=bool(args.html),
                               on_items=on_items if (args.json or text_timeline is not None) else None,
                               on_problem=on_problem, on_mismatch=on_mismatch, progress=progress,
                               on_header=on_header, on_input=text_timeline.input if text_timeline is not None else None)
    except BrokenPipeError:
        raise   # `spit replay --json LOG | head`: cli.main ends quietly
    except OSError as e:
        err.write("spit replay: %s: cannot read: %s\n" % (args.log, e.strerror or e))
        return EXIT_ERROR
    if progress is not None:
        err.write("\r\033[K")
    if rep.referee is None and rep.lines == 0:
        err.write("spit replay: %s: empty log (no header line)\n" % args.log)
        return EXIT_ERROR
    if rep.referee is None:
        first = rep.problems[0] if rep.problems else (1, "no header line")
        err.write("spit replay: %s: not a session log: line %d: %s\n" % (args.log, first[0], first[1]))
        return EXIT_ERROR
    if rep.cut_off:
        err.write("%s: the log ends before the device wrote its last %s (cut off?): not counted as "
                  "disagreements\n" % (args.log, plural(rep.cut_off, "verdict")))
    if text_timeline is not None:
        for text in text_timeline.finish():
            out.write(text + "\n")
        out.write("\n")
    if not args.json:
        for text in summary(rep, text_timeline.story if text_timeline is not None else None):
            out.write(text + "\n")
    if args.html:
        from host_tools.replay import page as replay_html
        try:
            replay_html.write(args.html, rep, title=os.path.basename(args.log))
        except OSError as e:
            err.write("spit replay: %s: cannot write: %s\n" % (args.html, e.strerror or e))
            return EXIT_ERROR
        if not args.json:
            out.write("wrote %s\n" % args.html)
    if rep.n_mismatches:
        return EXIT_MISMATCH
    if rep.n_problems:
        return EXIT_BAD_LINES
    return EXIT_OK
