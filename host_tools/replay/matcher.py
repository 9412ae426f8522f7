"""The device's verdicts against the re-judged ones, for ``spit replay``.

:class:`Matcher` pairs the device's verdicts with the re-judged ones by ``t``.  A time that has
both sides equal is forgotten at once; what is left over at a time older than the one its caller
names (:class:`host_tools.replay.stream.StreamJudge` says ``HORIZON_US`` behind the newest event)
is compared field by field (cards normalised, order kept, a diff) and reported as mismatches.
Only unmatched verdicts are ever held.
"""

import difflib
import json
from collections import deque

from spit.cards import parse_card, format_card, CardError
from spit.words import verdict_items

# Verdicts only the firmware can produce (nothing in the log's events shows them again).
DEVICE_ONLY_ERRORS = ("unknown_uid", "reader_down", "overflow")
CARD_FIELDS = ("card", "top", "winner")


def shown(text, limit=60):
    """A piece of a bad line, safe to print: control characters and non-ASCII escaped."""
    cut = text[:limit]
    return ascii(cut)[1:-1] + ("..." if len(text) > limit else "")


def normalise(fields):
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


class Matcher:
    """Device verdicts vs re-judged ones, settled per ``t``.

    ``report(line, device_text or None, rejudge_text or None)`` is called for each difference;
    ``cut_off`` counts re-judged verdicts later than the device's last logged verdict, left over
    at the end: the device writes its verdicts in the order it judges them, so those are what a
    log that ends early (power cut, full flash) lacks, not disagreements."""

    def __init__(self, report):
        self.report = report
        # Re-judged verdicts not yet matched, in emission order: (t, line, text, items). The
        # device writes its verdicts in the same order, so a device line normally matches the head.
        self.fifo = deque()
        self.pending = {}        # t -> ([(line, text, obj)], [(line, text, items)]) when out of step
        self.device_lines = 0
        self.last_device_t = -1
        self.cut_off = 0

    def device(self, t, line, text, obj=None):
        """A device verdict line: ``text`` is its part after ``{"t": N, `` (canonical form), or
        None with the parsed ``obj``."""
        self.device_lines += 1
        if isinstance(t, int) and t > self.last_device_t:
            self.last_device_t = t
        fifo = self.fifo
        if fifo and not self.pending:
            head = fifo[0]
            if head[0] == t and head[2] == text and text is not None:
                fifo.popleft()
                return
        self._drain()
        b = self.pending.get(t)
        if b is None:
            self.pending[t] = ([(line, text, obj)], [])
            return
        rj = b[1]
        if rj and not b[0] and text is not None and rj[0][1] == text:
            del rj[0]
            if not rj:
                del self.pending[t]
            return
        b[0].append((line, text, obj))

    def rejudged(self, t, line, text, items):
        """``items``: the verdict as log items, or the referee's raw tuple (turned into items only
        if it is left over)."""
        if not self.pending:
            self.fifo.append((t, line, text, items))
            return
        b = self.pending.get(t)
        if b is None:
            self.fifo.append((t, line, text, items))
            return
        dev = b[0]
        if dev and not b[1] and dev[0][1] == text:
            del dev[0]
            if not dev:
                del self.pending[t]
            return
        b[1].append((line, text, items))

    def _drain(self):
        """Move the unmatched re-judged verdicts into the per-time buckets."""
        pending = self.pending
        for t, line, text, items in self.fifo:
            b = pending.get(t)
            if b is None:
                pending[t] = ([], [(line, text, items)])
            else:
                b[1].append((line, text, items))
        self.fifo.clear()

    def settle(self, before_t, final=False):
        """Compare every time older than ``before_t`` (all of them when ``final``)."""
        self._drain()
        if final:
            due = list(self.pending)
        else:
            due = [t for t in self.pending if isinstance(t, int) and t < before_t]
        due.sort(key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0))
        for t in due:
            dev, rj = self.pending.pop(t)
            self._settle_one(t, dev, rj, final)

    def _settle_one(self, t, dev, rj, final):
        if not self.device_lines:
            return   # a log without device verdicts: nothing to compare
        dev_texts = []
        for line, text, obj in dev:
            if obj is None:
                try:
                    obj = json.loads('{"t": %d, %s' % (t, text))
                except ValueError:
                    obj = {"verdict": "(unreadable line: %s)" % shown(text)}
            if not isinstance(obj, dict):
                obj = {"verdict": "(not an object: %s)" % shown(str(obj))}
            if obj.get("verdict") == "error" and obj.get("reason") in DEVICE_ONLY_ERRORS:
                continue
            dev_texts.append((line, normalise(obj)))
        rj_texts = []
        for line, _text, items in rj:
            if isinstance(items, tuple):
                items = verdict_items(*items)
            if final and isinstance(t, int) and t > self.last_device_t:
                self.cut_off += 1   # judged after the device's last written verdict: the log ends first
                continue
            rj_texts.append((line, normalise(dict(items))))
        matcher = difflib.SequenceMatcher(None, [d[1] for d in dev_texts], [r[1] for r in rj_texts],
                                          autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                d = dev_texts[i1 + k] if i1 + k < i2 else None
                r = rj_texts[j1 + k] if j1 + k < j2 else None
                self.report(d[0] if d else r[0], d[1] if d else None, r[1] if r else None)
