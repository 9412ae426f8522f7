"""Streaming re-judge of a session log: judge and compare as lines arrive, keep nothing per line.

:class:`StreamJudge` is :class:`spit.log.Rejudge` (the one log reader, shared with every other
re-judge and with MicroPython) with its collecting points turned into callbacks: the referee's
verdicts, bad lines and the device's verdict lines go straight to their consumers instead of
into lists, so memory does not grow with the log.  A device verdict line in the writers' form
(``spit.words.items_json``) whose text is the next re-judged verdict's is used as it is.

The device's verdicts and the re-judged ones are compared by a
:class:`host_tools.replay.matcher.Matcher`; the judge tells it to settle every time more than
``HORIZON_US`` behind the newest event.
"""

from spit import verdicts as V
from spit.log import Rejudge
from spit.notation import ERROR_NAMES
from spit.words import verdict_items, items_json
from host_tools.replay.matcher import shown

HORIZON_US = 60 * 1000000   # a verdict this far behind the newest event is settled
SETTLE_EVERY = 2048         # lines between settling old times
TEXT_MEMO_MAX = 20000       # verdict texts kept for reuse (a bounded cache)
# Verdict fields that change from one verdict to the next (dt_us, a round number): position in
# the referee's (a, b, c, d), see spit.notation._FIELDS.
_OPEN_FIELD = {V.V_ACCEPT: 3, V.V_TIE: 3, V.V_LATE: 2, V.V_ROUND_START: 0, V.V_COUNTDOWN: 1, V.V_ROUND_END: 2}
_SENTINEL = 1987654321      # an int no verdict field holds, marking the open field in a template


class StreamJudge(Rejudge):
    """Re-judge line by line and hand everything on at once.

    Callbacks (any may be None): ``on_verdict(line, t, code, a, b, c, d)`` for every referee
    verdict, ``on_items(line, items)`` with the verdict in the log's vocabulary (built only when
    set), ``on_header(referee)`` once the rules are known, ``on_problem(line, message)`` for a
    bad line, ``on_input(t, kind, a, b, c)`` for every input event judged (``spit.log.parse_event``'s
    values).  A :class:`host_tools.replay.matcher.Matcher` gets both sides for comparison."""

    def __init__(self, matcher=None, on_verdict=None, on_items=None, on_problem=None, on_input=None,
                 on_header=None):
        Rejudge.__init__(self)
        self.on_header = on_header
        self.matcher = matcher
        self.on_verdict = on_verdict
        self.on_items = on_items
        self.on_problem = on_problem
        self.on_input = on_input
        self._texts = {}
        self.unterminated = None   # the log's last line, if it has no newline (and is bad)
        self._progress = None
        self._progress_every = 20000
        self._progress_at = 1 << 62
        self._settle_at = SETTLE_EVERY
        self._check_at = SETTLE_EVERY   # (Rejudge's fast loop calls _every there)
        self._sink = self._make_sink()
        if matcher is not None:
            self.expect = matcher.fifo
            self.expect_held = matcher.pending

    # --- Rejudge's collecting points, as callbacks ---

    def _make_sink(self):
        """The referee's verdict sink (Rejudge's ``_sink``, set on the instance so the referee gets
        it): a closure over the callbacks, called for every verdict."""
        on_verdict, on_items, matcher = self.on_verdict, self.on_items, self.matcher
        texts, text_of = self._texts, self._text
        fifo = matcher.fifo if matcher is not None else None
        if on_items is None and matcher is not None:
            # spit replay --quiet, spit stats: no items per verdict (the same sink, fewer tests)
            get = texts.get
            pending = matcher.pending   # (the Matcher's own dict: never replaced)
            append = fifo.append
            rejudged = matcher.rejudged

            def quiet_sink(code, ms, us, a, b, c, d):
                t = ms * 1000 + us
                line = self.line_no
                if on_verdict is not None:
                    on_verdict(line, t, code, a, b, c, d)
                tail = get((code, a, b, c, d))
                if tail is None:
                    tail = text_of(code, a, b, c, d)
                if pending:
                    rejudged(t, line, tail, (code, ms, us, a, b, c, d))
                else:
                    append((t, line, tail, (code, ms, us, a, b, c, d)))
            return quiet_sink

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

    def _said(self, message):
        raw = self._raw
        if raw[-1:] != "\n" and raw.strip():
            self.unterminated = raw   # (only a file's last line can end without a newline)
            return "truncated last line (the log ends mid-line): %s" % shown(raw.strip())
        return message

    def _bad(self, reason, message, pile=-1, t=-1):
        if self.on_problem is not None:
            self.on_problem(self.line_no, message)
        if t < 0:
            t = self.last_t
        items = [("t", t), ("verdict", "error"), ("reason", ERROR_NAMES[reason])]
        if pile >= 0:
            items.append(("pile", pile))
        items.append(("line", self.line_no))
        if self.on_verdict is not None:
            self.on_verdict(self.line_no, t, V.V_ERROR, reason, pile, -1, -1)
        if self.on_items is not None:
            self.on_items(self.line_no, items)

    def _device(self, t, text, obj):
        if self.matcher is not None:
            self.matcher.device(t, self.line_no, text, obj)

    def _matched(self, count, newest_t):
        # Device lines the reader found equal to the next re-judged verdict (Matcher.device's
        # usual case, done in Rejudge's loop on the Matcher's own fifo).
        matcher = self.matcher
        matcher.device_lines += count
        if newest_t > matcher.last_device_t:
            matcher.last_device_t = newest_t

    def _started(self):
        if self.on_header is not None:
            self.on_header(self.referee)

    def _every(self, n):
        if n >= self._settle_at:
            if self.matcher is not None:
                self.matcher.settle(self.max_t - HORIZON_US)
            self._settle_at = n + SETTLE_EVERY
        if n >= self._progress_at:
            self._progress(n - 1)   # (lines done before this one)
            self._progress_at += self._progress_every
        return min(self._settle_at, self._progress_at)

    @property
    def verdicts(self):
        raise AttributeError("StreamJudge keeps no verdicts: use its callbacks")

    def feed_lines(self, lines, progress=None, every=20000):
        """Feed an iterable of lines (:meth:`spit.log.Rejudge.feed_lines`); returns the last
        line.  ``progress(done)`` is called about every ``every`` lines."""
        self._progress = progress
        self._progress_every = every
        self._progress_at = every + 1 if progress is not None else 1 << 62
        self._check_at = min(self._settle_at, self._progress_at)
        return Rejudge.feed_lines(self, lines)

    def finish(self):
        Rejudge.finish(self)
        if self.matcher is not None:
            self.matcher.settle(0, final=True)
