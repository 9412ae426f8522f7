"""The session log ("spitlog", docs/log-format.md): the one reader of log lines, and re-judging.

JSON Lines.  The first line is the header ``{"spitlog": 1, "ruleset": .., "options": ..,
"counts": [..]}``; then input events ``{"t": us, "ev": name, ...}``; lines with a
``"verdict"`` key are verdicts the device logged (kept apart, for comparison).  ``t`` is
integer microseconds since the session start.  A bad line never stops a re-judge: it becomes
an ``error`` verdict carrying its line number.

:class:`Rejudge` is the reader every re-judge goes through (``spit replay``, ``spit stats``,
the replay page, ``spit sim``'s check and a re-judge under MicroPython): each line is read the
same way on CPython and MicroPython (``spit.logjson``: strict JSON, one whitespace set, no
duplicate key) and every field is bound once (``spit.logfields.parse_event``).  Lines in the form the
writers write (``{"t": N, `` then the rest) are read once per distinct rest: its event is kept
(``_memo``) and the next line with the same rest costs a dictionary lookup.
"""

import json as _json
import sys

from spit import verdicts as V
from spit.notation import header_line, ERROR_NAMES, LOG_VERSION, EVENT_FIELDS  # noqa: F401
from spit.words import verdict_items, event_items  # noqa: F401
from spit.cards import CardError
from spit.intake import EV_TICK, EV_CARD, EV_QUIET
from spit.logjson import loads, JSONError
from spit.logfields import (LogError, parse_header, parse_event, read_evidence, line_t,  # noqa: F401
                            _MAX_FIELD, _T_END)
from spit.referee import Referee
from spit.rules import make_ruleset, RulesetError


_MAX_LINE = 4096          # characters: no real line comes near
_PRE_HEADER = 64          # non-blank lines read while waiting for the header
_WS = " \t\r\n"           # the whitespace a line may have around its JSON (JSON's own)
# Rejudge.feed_lines' split of a line in the writers' form (t and the rest), as one C call on
# CPython; MicroPython's re has no \Z (nor re.S): there the loop splits with str methods, the
# same way (tests/engine/fuzz.py reads logs both ways on CPython).
_SPLIT = None
if sys.implementation.name != "micropython":
    import re
    _SPLIT = re.compile(r'\{"t": (0|[1-9][0-9]*), (("verdict": )?.*[^ \t\r\n]|)[ \t\r\n]*\Z', re.S).match
_BOM = "\ufeff"           # a byte order mark: dropped before the first line only
_MEMO_MAX = 2048          # distinct line rests kept read (a real log has a few hundred)
_MEMO_TAIL = _MAX_LINE - 21   # a longer rest may make a line too long: '{"t": ' + 13 digits + ', '


_VERDICT = (0,)   # _memo: this rest is a valid verdict line's (the device's)


class Rejudge:
    """Read a session log line by line and re-judge it: the one reader of log lines.

    ``verdicts`` is the list of ``(line_no, items)`` (ordered key/value pairs of
    docs/log-format.md); the referee's raw verdicts are turned into items only when asked for.
    ``device_verdicts`` holds the device's verdict lines ``(line_no, dict)``, ``problems`` a
    ``(line_no, message)`` per bad line.  ``on_input(t, kind, a, b, c)``, if set, sees every
    input event judged.  :class:`host_tools.replay.stream.StreamJudge` turns the collecting
    points (``_sink``, ``_bad``, ``_device``) into callbacks.
    """

    def __init__(self):
        self.referee = None
        self._entries = []          # (line_no, raw verdict tuple) or (line_no, items)
        self._verdicts = None
        self.device_verdicts = []   # (line_no, dict) as logged by the device
        self.problems = []          # (line_no, message) for every bad line
        self.line_no = 0
        self.last_t = 0             # the last input event's t
        self.max_t = 0              # the newest t of an input event
        self.on_input = None
        self.header_problem = None  # what was wrong with the header (or its absence)
        self.not_a_log = False      # no header nor any JSON line in the first _PRE_HEADER lines
        self._held = []             # (line_no, JSON value, message if bad, text) before the header
        self._held_json = 0         # how many of them are JSON
        self._seen = 0              # non-blank lines before the header
        self._memo = {}             # a line's rest after '{"t": N, ' -> (kind, a, b, c, e) or _VERDICT
        self._raw = ""              # the line being read the whole way (_read)
        self._check_at = 1 << 62    # line number at which the fast loop calls _every
        self._split = _SPLIT        # (None: str methods only, as on MicroPython)
        # The re-judged verdicts awaiting the device's lines, in order: (t, line, text, items),
        # text as the writers write it after '{"t": t, ' (StreamJudge: its Matcher's fifo).  A
        # device line with that text is the head's: used as it is (the re-judge's own text is
        # valid), unless ``expect_held`` holds anything (then they are out of step).
        self.expect = None
        self.expect_held = None

    @property
    def verdicts(self):
        if self._verdicts is None or len(self._verdicts) != len(self._entries):
            out = []
            for line_no, v in self._entries:
                out.append((line_no, verdict_items(*v) if isinstance(v, tuple) else v))
            self._verdicts = out
        return self._verdicts

    # --- the collecting points (StreamJudge makes them callbacks) ---
    def _sink(self, code, ms, us, a, b, c, d):
        self._entries.append((self.line_no, (code, ms, us, a, b, c, d)))

    def _bad(self, reason, message, pile=-1, t=-1):
        """A bad line: its ``error`` verdict (its own ``t`` when it has a good one)."""
        self.problems.append((self.line_no, message))
        items = [("t", t if t >= 0 else self.last_t), ("verdict", "error"), ("reason", ERROR_NAMES[reason])]
        if pile >= 0:
            items.append(("pile", pile))
        items.append(("line", self.line_no))
        self._entries.append((self.line_no, items))

    def _device(self, t, text, obj):
        self.device_verdicts.append((self.line_no, obj))

    def _matched(self, count, newest_t):
        """``count`` device verdict lines were the next ``expect``ed ones (the newest at
        ``newest_t``): they were used as they are, unread."""

    def _started(self):
        """The referee exists (the header was read, or its absence decided)."""

    def _every(self, n):
        """Called by the fast loop at line ``_check_at``; returns the next such line."""
        return 1 << 62

    # --- lines ---
    def feed_line(self, line):
        self.feed_lines((line,))

    def feed_lines(self, lines):
        """Read an iterable of lines (text, with or without the newline); returns the last one.
        Lines in the writers' form whose rest was read before take the fast loop below; every
        other line is read the whole way (``_read``), and its rest kept for the next time."""
        last = None
        it = iter(lines)
        if self.referee is None:
            for line in it:
                last = line
                self.line_no += 1
                if not self.not_a_log:
                    self._read(line, -1, None)
                if self.referee is not None:
                    break
            if self.referee is None:
                return last
        feed = self.referee.feed
        advance = self.referee.advance
        memo = self._memo
        on_input = self.on_input
        expect = self.expect
        held = self.expect_held
        matched = 0
        matched_t = -1
        tick = EV_TICK
        t_end = _T_END
        n = self.line_no
        max_t = self.max_t
        check = self._check_at
        split = self._split
        for line in it:
            last = line
            n += 1
            # The writers' form: '{"t": ' digits (no sign, leading zero, space, ...) ', ' rest.
            # (v: it starts as a verdict line does: first, is it the text the re-judge gave?)
            t = -1
            tail = ""
            v = None
            if split is not None:   # (CPython: the same split as below, in one C call)
                m = split(line)
                if m is not None:
                    digits, tail, v = m.groups()
                    t = int(digits)
            elif line[:6] == '{"t": ':
                i = line.find(", ", 7)
                if i > 6:
                    digits = line[6:i]
                    try:
                        t = int(digits)
                    except ValueError:
                        t = -1
                    if t >= 0 and str(t) == digits:
                        tail = line[i + 2:].rstrip(_WS)
                        v = tail[:11] == '"verdict": ' or None
                    else:
                        t = -1
            if 0 <= t < t_end:
                if v is not None:
                    if expect is not None and expect and not held:
                        head = expect[0]
                        if head[0] == t and head[2] == tail:
                            expect.popleft()   # (the re-judge's own text: valid as it is)
                            matched += 1
                            if t > matched_t:
                                matched_t = t
                            continue
                    ev = None
                else:
                    ev = memo.get(tail)   # (its rests are short: the line is too, _MEMO_TAIL)
                if ev is not None:
                    kind, a, b, c, e = ev   # (parse_event's and read_evidence's, when the rest was read)
                    self.line_no = n
                    self.last_t = t
                    if t > max_t:
                        max_t = t
                    if on_input is not None:
                        on_input(t, kind, a, b, c)
                    if kind < tick:
                        feed(kind, t // 1000, t % 1000, a, b, c, e)
                    elif kind == tick:
                        advance(t // 1000, t % 1000)
                    else:
                        self._quiet(t, a)
                    if n >= check:
                        self.max_t = max_t
                        if matched:
                            self._matched(matched, matched_t)
                            matched = 0
                        check = self._check_at = self._every(n)
                    continue
            else:
                t = -1   # (the whole way: a t out of bounds too)
            self.line_no = n
            self.max_t = max_t
            if matched:
                self._matched(matched, matched_t)
                matched = 0
            self._read(line, t, tail if t >= 0 else None)
            max_t = self.max_t
        self.max_t = max_t
        if matched:
            self._matched(matched, matched_t)
        return last

    def _read(self, line, t, tail):
        """One line the whole way.  ``tail``: its rest after ``{"t": t, `` when it has that form
        (kept in the memo once read)."""
        self._raw = line
        if self.line_no == 1 and line[:1] == _BOM:
            line = line[1:]   # (a file's byte order mark, not part of its first line)
        text = line.strip(_WS)
        if not text:
            return
        obj = None
        message = None
        if len(text) > _MAX_LINE:
            message = "not a log line (%d characters): %s" % (len(text), text[:60])
        elif tail is not None and self._memo.get(tail) is _VERDICT:
            obj = _json.loads(text)   # (its rest was read strictly before)
        else:
            try:
                obj = loads(text)
            except JSONError as e:
                message = "not valid JSON: %s (%s)" % (text[:60], e)
        if self.referee is not None:
            if message is None:
                self._judge(obj, tail)
            else:
                self._bad(V.E_MALFORMED, self._said(message))
            return
        # Before the header (docs/log-format.md, "Header"): lines wait for it.
        self._seen += 1
        if message is None and isinstance(obj, dict) and "spitlog" in obj:
            self._header(obj)
            return
        self._held.append((self.line_no, obj, None if message is None else self._said(message), text[:60]))
        if message is None:
            self._held_json += 1
        if self._seen >= _PRE_HEADER:
            if self._held_json:
                self._no_header()
            else:
                self.not_a_log = True
                self._take_held(False)
                self._bad(V.E_MALFORMED, "no session log: neither a header nor any JSON in its first %d "
                                         "lines (nothing more is read)" % _PRE_HEADER)

    def _said(self, message):
        """The message for a bad line (StreamJudge: a cut last line says so)."""
        return message

    def _judge(self, obj, tail):
        """A line after the header: an input event, or a verdict line of the device."""
        if isinstance(obj, dict) and "verdict" in obj:
            if tail is not None:
                self._remember(tail, _VERDICT)
            self._device(obj.get("t"), tail, obj)
            return
        try:
            kind, ms, us, a, b, c = parse_event(obj)
            e = read_evidence(obj) if kind == EV_CARD else 0
        except CardError as err:
            pile = obj.get("pile", -1) if isinstance(obj, dict) else -1
            ok = not isinstance(pile, bool) and isinstance(pile, int) and 0 <= pile <= _MAX_FIELD
            t = line_t(obj)
            self._bad(V.E_UNKNOWN_CARD, self._said(str(err)), pile if ok else -1, -1 if t is None else t)
            return
        except LogError as err:
            t = line_t(obj)
            self._bad(V.E_MALFORMED, self._said(str(err)), -1, -1 if t is None else t)
            return
        if tail is not None:
            self._remember(tail, (kind, a, b, c, e))
        t = ms * 1000 + us
        self.last_t = t
        if t > self.max_t:
            self.max_t = t
        if self.on_input is not None:
            self.on_input(t, kind, a, b, c)
        ref = self.referee
        if ref is None:
            return   # (never: lines wait for the referee)
        if kind == EV_TICK:
            ref.advance(ms, us)
        elif kind == EV_QUIET:
            self._quiet(t, a)
        else:
            ref.feed(kind, ms, us, a, b, c, e)

    def _quiet(self, t, pile):
        """A ``quiet`` line: the device told its engine that the pile's reader found no other tag
        of its last activation (that read stops holding later events back), then advanced it."""
        ref = self.referee
        if ref is not None and ref.quiet(pile) > 1:
            ref.advance(t // 1000, t % 1000)

    def _remember(self, tail, value):
        if len(tail) > _MEMO_TAIL:
            return   # (a line with it may be too long: read the whole way each time)
        memo = self._memo
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[tail] = value

    # --- the header (docs/log-format.md, "Header") ---
    def _header(self, obj):
        """The header: a problem with it is said first, then the rules start (round_start), then
        the lines that waited are taken in their order: events are judged, any other is bad."""
        try:
            rules, counts = parse_header(obj)
        except (LogError, RulesetError) as e:
            self.header_problem = ("bad header (%s): re-judged with the classic rules and 26 | 26 cards, "
                                   "so verdicts may differ from the device's" % e)
            self._bad(V.E_MALFORMED, self.header_problem)
            rules = make_ruleset("classic")
            counts = None
        self._make_referee(rules, counts, False)

    def _no_header(self):
        """No header among the first lines: said once (at the first JSON line), the classic
        rules, and the lines that waited are used as what they are (events, device verdicts)."""
        line_no = self.line_no
        for n, obj, message, _text in self._held:
            if message is None:
                self.line_no = n
                break
        self.header_problem = ("no valid header (the first line must be the header {\"spitlog\": 1, ...}): "
                               "re-judged with the classic rules and 26 | 26 cards, so verdicts may "
                               "differ from the device's")
        self._bad(V.E_MALFORMED, self.header_problem)
        self.line_no = line_no
        self._make_referee(make_ruleset("classic"), None, True)

    def _make_referee(self, rules, counts, as_is):
        self.referee = Referee(rules, counts, self._sink)
        self._started()
        line_no = self.line_no
        self._take_held(as_is)
        self.line_no = line_no

    def _take_held(self, as_is):
        held = self._held
        self._held = []
        self._held_json = 0
        for n, obj, message, text in held:
            self.line_no = n
            if message is not None:
                self._bad(V.E_MALFORMED, message)
            elif isinstance(obj, dict) and ("ev" in obj or as_is) and ("verdict" not in obj or as_is) \
                    and self.referee is not None:
                self._judge(obj, None)
            else:
                self._bad(V.E_MALFORMED, "before the header: not a header or event line (skipped): %s" % text)

    def finish(self):
        if self.referee is None and self._held_json:
            self._no_header()
        if self.referee is None:
            if not self.not_a_log:
                self._take_held(False)
                self.line_no = max(self.line_no, 1)
                self._bad(V.E_MALFORMED, "empty log: no header")
            return
        self.referee.flush()


def rejudge(lines):
    """Re-judge an iterable of log lines; returns the finished ``Rejudge``."""
    r = Rejudge()
    r.feed_lines(lines)
    r.finish()
    return r
