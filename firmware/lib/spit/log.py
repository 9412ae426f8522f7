"""The session log ("spitlog", docs/log-format.md): parse, re-judge, write.

JSON Lines.  The first line is the header ``{"spitlog": 1, "ruleset": .., "options": ..,
"counts": [..]}``; then input events ``{"t": us, "ev": name, ...}``; lines with a
``"verdict"`` key are verdicts the device logged (kept apart, for comparison).  ``t`` is
integer microseconds since the session start.  A bad line never stops a re-judge: it becomes
an ``error`` verdict carrying its line number.
"""

import json

from spit import verdicts as V
from spit.notation import header_line, ERROR_NAMES, LOG_VERSION, EVENT_FIELDS  # noqa: F401
from spit.words import verdict_items, event_items  # noqa: F401
from spit.cards import parse_card, CardError
from spit.intake import EV_TICK, EV_CARD, EVID_ALONE, EVID_SHARED, EVID_SHIFT, EVID_UNIT, EVID_UNITS_MAX
from spit.referee import Referee
from spit.rules import make_ruleset, RulesetError

class LogError(ValueError):
    """A log line that cannot be used; the message says why."""


# Bounds of every number a log line may carry, so that the engine's int arrays and the
# device's 31-bit small ints hold them on every Python (CPython would raise OverflowError
# in an array, MicroPython would silently truncate 2**40 to 0).
_MAX_FIELD = 0x3FFFFFFF   # |pile|, |player|, |value| (2**30 - 1)
_MAX_T_MS = 0x3FFFFFFF    # t below 2**30 ms (12.4 days): session ms stay small ints
_MAX_LINE = 4096          # characters: no real line comes near (and nesting stays shallow)
_PRE_HEADER = 64          # event lines kept while waiting for the header


def _int_field(obj, key, optional=False):
    if key not in obj:
        if optional:
            return -1
        raise LogError("missing %r" % key)
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise LogError("%r must be an integer, not %r" % (key, v))
    if v > _MAX_FIELD or v < -_MAX_FIELD:
        raise LogError("%r out of range: %d" % (key, v))
    return v


def parse_header(obj):
    """``(ruleset, counts)`` from the header object; raises LogError/RulesetError."""
    if not isinstance(obj, dict) or "spitlog" not in obj:
        raise LogError("the first line must be the header {\"spitlog\": 1, ...}")
    version = obj["spitlog"]
    if isinstance(version, bool) or not isinstance(version, int) or version != LOG_VERSION:
        raise LogError("unsupported spitlog version %r (this reader knows %d)" % (version, LOG_VERSION))
    name = obj.get("ruleset", "classic")
    if not isinstance(name, str):
        raise LogError("'ruleset' must be a preset name, not %r" % (name,))
    options = obj.get("options")
    if options is not None and not isinstance(options, dict):
        raise LogError("'options' must be an object, not %r" % (options,))
    rules = make_ruleset(name, options)
    counts = obj.get("counts")
    if counts is None:
        counts = rules.default_counts()
    if not isinstance(counts, list) or len(counts) != 2:
        raise LogError("'counts' must be a list of two integers")
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int) or c < 0 or c > 200:
            raise LogError("'counts' must be a list of two integers 0..200")
    return rules, counts


def _too_deep(line):
    """True when JSON arrays/objects nest deeper than any log line does (CPython's parser
    would recurse, MicroPython's would run out of memory: both get the same verdict)."""
    if line.count("[") + line.count("{") <= 8:
        return False
    depth = 0
    in_str = False
    esc = False
    for ch in line:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "[" or ch == "{":
            depth += 1
            if depth > 8:
                return True
        elif ch == "]" or ch == "}":
            depth -= 1
    return False


def _field_spec(field):
    if field is None:
        return None
    optional = field.endswith("?")
    name = field[:-1] if optional else field
    return (name, name == "card", optional)


# Event name -> (kind, spec for a, b, c); a spec is (field, is a card code, optional).
_SPECS = {}
for _name in EVENT_FIELDS:
    _e = EVENT_FIELDS[_name]
    _SPECS[_name] = (_e[0], _field_spec(_e[1]), _field_spec(_e[2]), _field_spec(_e[3]))
_CARDS = {}   # card code -> int: each code is parsed once per process


def _card_field(obj):
    if "card" not in obj:
        raise LogError("missing 'card'")
    code = obj["card"]
    if isinstance(code, str):
        c = _CARDS.get(code)
        if c is None:
            c = parse_card(code)
            _CARDS[code] = c
        return c
    return parse_card(code)   # raises CardError naming it


def read_evidence(obj):
    """A card event's read evidence for the engine (``spit.intake`` ``EVID_*``; 0: none) from
    its ``"act": [us, tags]`` (docs/log-format.md): ``us`` from the start of the reader's
    activation that found the tag to the read's ``t`` (0..2**30 - 1; kept in 100 us units, at
    most 204.7 ms), ``tags`` the tags that answered that activation (1: it alone; 2: more).
    Raises LogError for any other value."""
    act = obj.get("act")
    if act is None:
        return 0
    if not isinstance(act, list) or len(act) != 2:
        raise LogError("'act' must be [us, tags], not %r" % (act,))
    us, tags = act
    for v in act:
        if isinstance(v, bool) or not isinstance(v, int):
            raise LogError("'act' must hold two integers, not %r" % (act,))
    if not 0 <= us <= _MAX_FIELD or tags not in (1, 2):
        raise LogError("'act' out of range: %r (us 0..2**30 - 1, tags 1 or 2)" % (act,))
    units = us // EVID_UNIT
    return (EVID_ALONE if tags == 1 else EVID_SHARED) | min(units, EVID_UNITS_MAX) << EVID_SHIFT


def parse_event(obj):
    """``(kind, ms, us, a, b, c)`` for an input event object; raises LogError or CardError."""
    if not isinstance(obj, dict):
        raise LogError("not a JSON object")
    name = obj.get("ev")
    spec = _SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise LogError("unknown event %r" % (name,))
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int):
        t = _int_field(obj, "t")   # raises with the reason
    if t < 0:
        raise LogError("'t' must not be negative")
    if t // 1000 >= _MAX_T_MS:
        raise LogError("'t' out of range: %d (logs cover at most 2**30 ms)" % t)
    vals = [0, 0, 0]
    for i in range(3):
        f = spec[i + 1]
        if f is None:
            continue
        if f[1]:
            vals[i] = _card_field(obj)
        else:
            vals[i] = _int_field(obj, f[0], f[2])
    return spec[0], t // 1000, t % 1000, vals[0], vals[1], vals[2]


class Rejudge:
    """Re-judge a session log line by line.

    ``verdicts`` is the list of ``(line_no, items)`` (ordered key/value pairs of
    docs/log-format.md); the referee's raw verdicts are turned into items only when asked for.
    """

    def __init__(self):
        self.referee = None
        self._entries = []          # (line_no, raw verdict tuple) or (line_no, items)
        self._verdicts = None
        self.device_verdicts = []   # (line_no, dict) as logged by the device
        self.problems = []          # (line_no, message) for every bad line
        self.line_no = 0
        self.last_t = 0
        self._pending = []          # (line_no, event object) seen before the header

    @property
    def verdicts(self):
        if self._verdicts is None or len(self._verdicts) != len(self._entries):
            out = []
            for line_no, v in self._entries:
                out.append((line_no, verdict_items(*v) if isinstance(v, tuple) else v))
            self._verdicts = out
        return self._verdicts

    def _sink(self, code, ms, us, a, b, c, d):
        self._entries.append((self.line_no, (code, ms, us, a, b, c, d)))

    def _bad(self, reason, message, pile=-1, value=-1):
        self.problems.append((self.line_no, message))
        items = [("t", self.last_t), ("verdict", "error"), ("reason", ERROR_NAMES[reason])]
        if pile >= 0:
            items.append(("pile", pile))
        items.append(("line", self.line_no))
        self._entries.append((self.line_no, items))

    def feed_line(self, line):
        self.line_no += 1
        line = line.strip()
        if not line:
            return
        if len(line) > _MAX_LINE or _too_deep(line):
            self._bad(V.E_MALFORMED, "not a log line (%d characters): %s" % (len(line), line[:60]))
            return
        try:
            obj = json.loads(line)
        except (ValueError, RuntimeError, MemoryError):
            self._bad(V.E_MALFORMED, "not valid JSON: %s" % line[:60])
            return
        if self.referee is None:
            self._before_header(obj)
            return
        self.feed_line_obj(obj)

    def _before_header(self, obj):
        """Lines before the header: the first object with a ``spitlog`` key is the header (a bad
        one is said once; the classic rules then apply).  Anything else is said and skipped, as
        a line that is not JSON is, except event lines: they wait for the header (a log with
        none is judged with the classic rules at the end)."""
        if isinstance(obj, dict) and "spitlog" in obj:
            counts = None
            try:
                rules, counts = parse_header(obj)
            except (LogError, RulesetError) as e:
                self._bad(V.E_MALFORMED, "bad header, refereeing with the classic rules: %s" % e)
                rules = make_ruleset("classic")
            self._make_referee(rules, counts)
        elif isinstance(obj, dict) and "ev" in obj:
            self._pending.append((self.line_no, obj))
            if len(self._pending) >= _PRE_HEADER:
                self._no_header()
        else:
            self._bad(V.E_MALFORMED, "before the header: a line that is no header")

    def _make_referee(self, rules, counts):
        self.referee = Referee(rules, counts, self._sink)
        line_no = self.line_no
        for n, obj in self._pending:
            self.line_no = n
            self.feed_line_obj(obj)
        self.line_no = line_no
        self._pending = []

    def _no_header(self):
        self._bad(V.E_MALFORMED, "no header line: refereeing with the classic rules")
        self._make_referee(make_ruleset("classic"), None)

    def feed_line_obj(self, obj):
        if isinstance(obj, dict) and "verdict" in obj:
            self.device_verdicts.append((self.line_no, obj))
            return
        try:
            kind, ms, us, a, b, c = parse_event(obj)
        except CardError as e:
            pile = obj.get("pile", -1) if isinstance(obj, dict) else -1
            ok = not isinstance(pile, bool) and isinstance(pile, int) and 0 <= pile <= _MAX_FIELD
            self._bad(V.E_UNKNOWN_CARD, str(e), pile if ok else -1)
            return
        except LogError as e:
            self._bad(V.E_MALFORMED, str(e))
            return
        e = 0
        if kind == EV_CARD and "act" in obj:
            try:
                e = read_evidence(obj)
            except LogError as err:
                self._bad(V.E_MALFORMED, str(err))
                return
        self.last_t = obj["t"]
        ref = self.referee
        if ref is None:
            return
        if kind == EV_TICK:
            ref.advance(ms, us)
        else:
            ref.feed(kind, ms, us, a, b, c, e)

    def finish(self):
        if self.referee is None and self._pending:
            self._no_header()
        if self.referee is None:
            self._bad(V.E_MALFORMED, "empty log: no header")
            return
        self.referee.flush()


def rejudge(lines):
    """Re-judge an iterable of log lines; returns the finished ``Rejudge``."""
    r = Rejudge()
    for line in lines:
        r.feed_line(line)
    r.finish()
    return r
