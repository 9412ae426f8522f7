"""Streaming re-judge of a session log: judge and compare as lines arrive, keep nothing per line.

:class:`StreamJudge` is :class:`spit.log.Rejudge` (the engine's own log reader) with its three
collecting points turned into callbacks: the referee's verdicts, bad lines and the device's
verdict lines go straight to their consumers instead of into lists, so memory does not grow
with the log.  Device verdict lines that the device wrote in the log's canonical form (it always
does, with ``spit.words.items_json``) are matched by their text without being parsed.

The device's verdicts and the re-judged ones are compared by a
:class:`host_tools.replay_matcher.Matcher`; the judge tells it to settle every time more than
``HORIZON_US`` behind the newest event.
"""

import json
import re

from spit import verdicts as V
from spit.cards import CardError
from spit.log import Rejudge, parse_header, parse_event, read_evidence, LogError, _MAX_LINE, _too_deep
from spit.intake import EV_TICK, EV_CARD
from spit.referee import Referee
from spit.rules import make_ruleset, RulesetError
from spit.notation import ERROR_NAMES
from spit.words import verdict_items, items_json
from host_tools.replay_matcher import shown

HORIZON_US = 60 * 1000000   # a verdict this far behind the newest event is settled
SETTLE_EVERY = 2048         # lines between settling old times
# A tail longer than this may make a line longer than spit.log's limit (_MAX_LINE): such lines take the
# slow path, which checks the exact length ('{"t": ' + 13 digits + ', ' is at most 21 characters).
_LONG_TAIL = _MAX_LINE - 21
_SAID = object()            # a held line before the header that was not JSON (already reported)
PRE_HEADER = 64             # JSON lines held while waiting for the header (as spit.log's _PRE_HEADER)
TEXT_MEMO_MAX = 20000       # parsed event and verdict texts kept for reuse (a bounded cache)
# Verdict fields that change from one verdict to the next (dt_us, a round number): position in
# the referee's (a, b, c, d), see spit.notation._FIELDS.
_OPEN_FIELD = {V.V_ACCEPT: 3, V.V_TIE: 3, V.V_LATE: 2, V.V_ROUND_START: 0, V.V_COUNTDOWN: 1, V.V_ROUND_END: 2}
_SENTINEL = 1987654321      # an int no verdict field holds, marking the open field in a template
# A line as the writers write it: '{"t": N, ' then an event's or a verdict's fields.
_CANONICAL = re.compile(r'\{"t": (0|[1-9][0-9]*), (("verdict": )?.*\})\s*\Z', re.S)


class StreamJudge(Rejudge):
    """Re-judge line by line and hand everything on at once.

    Callbacks (any may be None): ``on_verdict(line, t, code, a, b, c, d)`` for every referee
    verdict, ``on_items(line, items)`` with the verdict in the log's vocabulary (built only when
    set), ``on_header(referee)`` once the rules are known, ``on_problem(line, message)`` for a
    bad line, ``on_input(t, kind, a, b, c)`` for every input event judged (``spit.log.parse_event``'s
    values).  A :class:`host_tools.replay_matcher.Matcher` gets both sides for comparison."""

    def __init__(self, matcher=None, on_verdict=None, on_items=None, on_problem=None, on_input=None,
                 on_header=None):
        Rejudge.__init__(self)
        self.on_header = on_header
        self.matcher = matcher
        self.on_verdict = on_verdict
        self.on_items = on_items
        self.on_problem = on_problem
        self.on_input = on_input
        self.header_problem = None
        self.max_t = 0
        self._texts = {}
        self._events = {}
        self.unterminated = None   # the log's last line, if it has no newline
        self._held = []            # (line_no, JSON value or _SAID: a bad line) before the header
        self._held_json = 0        # how many of them are JSON
        self._next_settle = SETTLE_EVERY
        self._sink = self._make_sink()

    # --- Rejudge's collecting points, as callbacks ---

    def _make_sink(self):
        """The referee's verdict sink (Rejudge's ``_sink``, set on the instance so the referee gets
        it): a closure over the callbacks, called for every verdict."""
        on_verdict, on_items, matcher = self.on_verdict, self.on_items, self.matcher
        texts, text_of = self._texts, self._text
        fifo = matcher.fifo if matcher is not None else None

        def sink(code, ms, us, a, b, c, d):
            t = ms * 1000 + us
            line = self.line_no
            if on_verdict is not None:
                on_verdict(line, t, code, a, b, c, d)
            items = None
            if on_items is not None:
                items = verdict_items(code, ms, us, a, b, c, d)
                on_items(line, items)
            if matcher is not None:
                tail = texts.get((code, a, b, c, d))
                if tail is None:
                    tail = text_of(code, a, b, c, d)
                if matcher.pending:
                    matcher.rejudged(t, line, tail, items or (code, ms, us, a, b, c, d))
                else:
                    fifo.append((t, line, tail, items or (code, ms, us, a, b, c, d)))
        return sink

    def _text(self, code, a, b, c, d):
        """The canonical text of a verdict after ``{"t": N, ``.  A race's ``dt_us`` and a round
        number differ from verdict to verdict: for those the text is kept as a template with that
        field left open, so races and rounds cost a format instead of a JSON rendering."""
        texts = self._texts
        if len(texts) >= TEXT_MEMO_MAX:
            texts.clear()
        open_field = _OPEN_FIELD.get(code)
        values = [a, b, c, d]
        if open_field is None or values[open_field] < 0:
            tail = items_json(verdict_items(code, 0, 0, a, b, c, d))[len('{"t": 0, '):]
            texts[(code, a, b, c, d)] = tail
            return tail
        value = values[open_field]
        values[open_field] = _SENTINEL
        key = (code, values[0], values[1], values[2], values[3], None)
        template = texts.get(key)
        if template is None:
            text = items_json(verdict_items(code, 0, 0, values[0], values[1], values[2], values[3]))
            template = text[len('{"t": 0, '):].replace("%", "%%").replace(str(_SENTINEL), "%d", 1)
            texts[key] = template
        return template % value

    def _bad(self, reason, message, pile=-1, value=-1):
        if self.unterminated is not None and self.unterminated.strip():
            message = "truncated last line (the log ends mid-line): %s" % shown(self.unterminated.strip())
        if self.on_problem is not None and message is not None:
            self.on_problem(self.line_no, message)
        if self.referee is None:   # before the header: only a problem (this may be no log at all)
            return
        items = [("t", self.last_t), ("verdict", "error"), ("reason", ERROR_NAMES[reason])]
        if pile >= 0:
            items.append(("pile", pile))
        items.append(("line", self.line_no))
        if self.on_verdict is not None:
            self.on_verdict(self.line_no, self.last_t, V.V_ERROR, reason, pile, -1, -1)
        if self.on_items is not None:
            self.on_items(self.line_no, items)

    @property
    def verdicts(self):
        raise AttributeError("StreamJudge keeps no verdicts: use its callbacks")

    # --- lines ---

    def feed_line(self, line):
        if self.referee is None:
            self._feed_first(line)
            return
        Rejudge.feed_line(self, line)

    def _start(self, referee):
        self.referee = referee
        if self.on_header is not None:
            self.on_header(referee)

    def feed_lines(self, lines, progress=None, every=20000):
        """Feed an iterable of lines (``feed_line`` for each, in one tight loop: the per-line
        cost is what bounds a long replay); returns the last line.  ``progress(done)`` is called
        every ``every`` lines."""
        last = None
        lines = iter(lines)
        for line in lines:
            last = line
            self.feed_line(line)
            if self.referee is not None:
                break
        if self.referee is None:
            return last
        if self.matcher is None:
            for line in lines:
                last = line
                self.feed_line(line)
            return last
        events = self._events
        matcher = self.matcher
        fifo = matcher.fifo
        popleft = fifo.popleft
        device = matcher.device
        feed_line = self.feed_line
        learn = self._learn
        canonical = _CANONICAL.match
        on_input = self.on_input
        feed = self.referee.feed
        advance = self.referee.advance
        n = self.line_no
        max_t = self.max_t
        for line in lines:
            last = line
            n += 1
            if progress is not None and n % every == 1:
                progress(n - 1)
            m = canonical(line)
            if m is not None:
                digits, tail, is_verdict = m.groups()
                t = int(digits)
                if is_verdict:
                    # Matcher.device's usual case, inlined: the device line is the next re-judged one.
                    if fifo and not matcher.pending:
                        head = fifo[0]
                        if head[0] == t and head[2] == tail:
                            popleft()
                            matcher.device_lines += 1
                            if t > matcher.last_device_t:
                                matcher.last_device_t = t
                            continue
                    if len(tail) <= _LONG_TAIL and not _too_deep("{" + tail):
                        self.line_no = n
                        device(t, n, tail)
                        continue
                    # (too long or too deep: the slow path says it is malformed, as spit.log does)
                event = events.get(tail) if not is_verdict else False
                if event is None:
                    event = learn(tail)
                if event:   # Rejudge.feed_line_obj for a line parsed before
                    self.line_no = n
                    self.last_t = t
                    if t > max_t:
                        max_t = t
                    kind, a, b, c, e = event
                    if on_input is not None:
                        on_input(t, kind, a, b, c)
                    ms, us = divmod(t, 1000)
                    if kind == EV_TICK:
                        advance(ms, us)
                    else:
                        feed(kind, ms, us, a, b, c, e)
                    if n >= self._next_settle:
                        self._next_settle = n + SETTLE_EVERY
                        matcher.settle(max_t - HORIZON_US)
                    continue
            self.line_no = n - 1
            if line[-1:] != "\n":
                self.unterminated = line   # only the last line of a file can end without a newline
            self.max_t = max_t
            feed_line(line)
            max_t = self.max_t
        self.max_t = max_t
        return last

    def _learn(self, tail):
        """The parsed event for a line's text after ``t``, or False if only the slow path can
        say what is wrong with it (or it needs the whole object)."""
        event = False
        if len(tail) > _LONG_TAIL or _too_deep("{" + tail):
            return False   # the slow path (spit.log's checks) says what is wrong: not memoised
        try:
            obj = json.loads('{"t": 0, ' + tail)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and obj.get("t") == 0 and "verdict" not in obj:
            try:
                kind, _ms, _us, a, b, c = parse_event(obj)
                e = read_evidence(obj) if kind == EV_CARD else 0
            except (LogError, CardError):
                pass
            else:
                event = (kind, a, b, c, e)
        if len(self._events) >= TEXT_MEMO_MAX:
            self._events.clear()
        self._events[tail] = event
        return event

    def _feed_first(self, line):
        """Lines up to the header (docs/log-format.md): the header is the first JSON object with a
        ``spitlog`` key.  Text that is not JSON is a bad line at once; other JSON lines are held
        (at most PRE_HEADER) until the header comes: then the events among them are judged after
        it and the rest (arrays, objects that are neither header nor event, verdict lines) are
        ``error`` ``malformed`` and skipped.  A bad header is one ``error`` ``malformed`` and the
        classic rules apply.  A log with no header in its first PRE_HEADER JSON lines is
        re-judged with the classic rules and the held lines are used as what they are (events,
        device verdicts)."""
        text = line.strip()
        self.line_no += 1
        if not text:
            return
        if len(text) > _MAX_LINE or _too_deep(text):
            message = "not a log line (%d characters): %s" % (len(text), shown(text))
        else:
            try:
                obj = json.loads(text)
                message = None
            except ValueError:
                message = "not valid JSON: %s" % shown(text)
        if message is not None:
            self._bad(V.E_MALFORMED, message)   # said now; its error verdict comes once the rules are known
            self._held.append((self.line_no, _SAID))
            return
        if not (isinstance(obj, dict) and "spitlog" in obj):
            self._held.append((self.line_no, obj))
            self._held_json += 1
            if self._held_json >= PRE_HEADER:
                self._headerless()
            return
        problem = None
        try:
            rules, counts = parse_header(obj)
        except (LogError, RulesetError) as e:
            problem = "bad header (%s): re-judged with the classic rules and 26 | 26 cards, " \
                      "so verdicts may differ from the device's" % e
            rules, counts = make_ruleset("classic"), None
        line_no = self.line_no
        self._start(Referee(rules, counts, self._sink))
        held, self._held, self._held_json = self._held, [], 0
        for n, held_obj in held:     # what came before the header: events wait for it, the rest is bad
            self.line_no = n
            if held_obj is _SAID:
                self._bad(V.E_MALFORMED, None)
            elif isinstance(held_obj, dict) and "ev" in held_obj and "verdict" not in held_obj:
                self.feed_line_obj(held_obj)
            else:
                self._bad(V.E_MALFORMED, "before the header: not a header or event line (skipped): %s"
                          % shown(json.dumps(held_obj)))
        self.line_no = line_no
        if problem is not None:
            self.header_problem = problem
            self._bad(V.E_MALFORMED, problem)

    def _headerless(self):
        """No header among the first lines: the classic rules, said once; the held lines are
        used as what they are."""
        held, self._held, self._held_json = self._held, [], 0
        line_no = self.line_no
        self.line_no = next(n for n, obj in held if obj is not _SAID)
        self.header_problem = "no valid header (the first line must be the header {\"spitlog\": 1, ...}): " \
                              "re-judged with the classic rules and 26 | 26 cards, so verdicts may differ " \
                              "from the device's"
        self._start(Referee(make_ruleset("classic"), None, self._sink))
        self._bad(V.E_MALFORMED, self.header_problem)    # said once, one error (as spit.log does)
        for n, obj in held:
            self.line_no = n
            if obj is _SAID:
                self._bad(V.E_MALFORMED, None)
            else:
                self.feed_line_obj(obj)
        self.line_no = line_no

    def feed_line_obj(self, obj):
        if isinstance(obj, dict):
            if "verdict" in obj:
                if self.matcher is not None:
                    self.matcher.device(obj.get("t"), self.line_no, None, obj)
                return
            t = obj.get("t")
            if isinstance(t, int) and not isinstance(t, bool) and t > self.max_t:
                self.max_t = t
            if self.on_input is not None:
                try:
                    kind, _ms, _us, a, b, c = parse_event(obj)
                except (LogError, CardError):
                    pass
                else:
                    self.on_input(obj["t"], kind, a, b, c)
        Rejudge.feed_line_obj(self, obj)
        if self.matcher is not None and self.line_no >= self._next_settle:
            self._next_settle = self.line_no + SETTLE_EVERY
            self.matcher.settle(self.max_t - HORIZON_US)

    def finish(self):
        if self.referee is None and self._held_json:
            self._headerless()
        Rejudge.finish(self)
        if self.matcher is not None:
            self.matcher.settle(0, final=True)
