"""The fields of a session log line (docs/log-format.md): each bound once, here.

``parse_event`` turns an input event object into the engine's ``(kind, ms, us, a, b, c)``,
``parse_header`` the header into ``(ruleset, counts)``; both raise ``LogError`` (a card code no
card has: ``CardError``).  The bounds keep every value a small int the engine's arrays and the
device's 31-bit ints hold, on every Python.  A host module (``spit.log`` reads logs with it).
"""

from spit.notation import LOG_VERSION, EVENT_FIELDS
from spit.cards import parse_card, CardError
from spit.intake import EVID_ALONE, EVID_SHARED, EVID_SHIFT, EVID_UNIT, EVID_UNITS_MAX
from spit.rules import make_ruleset


class LogError(ValueError):
    """A log line that cannot be used; the message says why."""


# Bounds of every number a log line may carry, so that the engine's int arrays and the
# device's 31-bit small ints hold them on every Python (CPython would raise OverflowError
# in an array, MicroPython would silently truncate 2**40 to 0).
_MAX_FIELD = 0x3FFFFFFF   # |pile|, |player|, |value| (2**30 - 1)
_T_END = 0x40000000 * 1000   # t below 2**30 ms (12.4 days): session ms stay small ints
_CODE_CHARS = "0123456789AaCcDdHhJjKkQqSsTt"   # what a card code is written with


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
    c = _CARDS.get(code) if isinstance(code, str) else None
    if c is None:
        if isinstance(code, str):
            # Only the characters of card codes (no space, nothing non-ASCII): str.strip and
            # str.upper differ between CPython and MicroPython beyond these.
            for ch in code:
                if ch not in _CODE_CHARS:
                    raise CardError("unknown card code %r" % code)
        c = parse_card(code)   # raises CardError naming it
        if len(_CARDS) < 256:
            _CARDS[code] = c
    return c


def line_t(obj):
    """The line's ``t`` if it is one (an integer, 0 <= t < 2**30 ms), else None."""
    t = obj.get("t") if isinstance(obj, dict) else None
    if isinstance(t, bool) or not isinstance(t, int) or t < 0 or t >= _T_END:
        return None
    return t


def parse_event(obj):
    """``(kind, ms, us, a, b, c)`` for an input event object; raises LogError or CardError.
    ``t`` is checked first (a line with a bad ``t`` is ``malformed`` whatever else it has)."""
    if not isinstance(obj, dict):
        raise LogError("not a JSON object")
    t = line_t(obj)
    if t is None:
        if "t" not in obj:
            raise LogError("missing 't'")
        t = obj["t"]
        if isinstance(t, bool) or not isinstance(t, int):
            raise LogError("'t' must be an integer, not %r" % (t,))
        if t < 0:
            raise LogError("'t' must not be negative")
        raise LogError("'t' out of range: %d (logs cover less than 2**30 ms)" % t)
    name = obj.get("ev")
    spec = _SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise LogError("unknown event %r" % (name,))
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
