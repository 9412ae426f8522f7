"""A verdict or input event as the log writes it: ordered ``(key, value)`` items and their
JSON text (docs/log-format.md), from the tables of ``spit.notation``.

Host side (tools, tests, re-judging logs): it allocates dicts and strings.  The device writes
the same text without allocating, from tables built at boot (``referee/logline.py``; its tests
compare every line with these).
"""

import json

from spit.cards import format_card, is_card
from spit.intake import EVENT_NAMES
from spit.verdicts import V_GAME_OVER, V_ERROR, REASON_NAMES
from spit.notation import (VERDICT_NAMES, ERROR_NAMES, QUESTION_NAMES, EVENT_FIELDS, _FIELDS,
                           _NOT_CARD_ERRORS)


def micros(t_ms, t_us):
    """Session time in integer microseconds (a big int past 17.9 min on the RP2040: logs only)."""
    return t_ms * 1000 + t_us


def verdict_items(code, t_ms, t_us, a, b, c, d):
    """The log form of one verdict as ordered ``[(key, value), ...]``: ``t``, ``verdict``,
    then its fields.  Fields holding -1 are left out (no pile, no player ...), except a
    game_over winner (-1 = draw)."""
    out = [("t", micros(t_ms, t_us)), ("verdict", VERDICT_NAMES[code])]
    names = _FIELDS[code]
    values = (a, b, c, d)
    for i in range(4):
        name = names[i]
        if name is None:
            continue
        v = values[i]
        at = name.find("@")
        kind = ""
        if at >= 0:
            kind = name[at + 1:]
            name = name[:at]
        if v == -1 and not (code == V_GAME_OVER and name == "winner"):
            continue
        if code == V_ERROR and name == "value" and a not in _NOT_CARD_ERRORS and is_card(v):
            name = "card"
            kind = "card"   # the card the bad event carried
        if kind == "card":
            v = format_card(v)
        elif kind == "reason":
            v = REASON_NAMES[v]
        elif kind == "error":
            v = ERROR_NAMES[v]
        elif kind == "ask":
            v = QUESTION_NAMES[v]
        out.append((name, v))
    return out


def verdict_dict(code, t_ms, t_us, a, b, c, d):
    out = {}
    for k, v in verdict_items(code, t_ms, t_us, a, b, c, d):
        out[k] = v
    return out


def items_json(items):
    """One JSON object with keys in the given order (dict order differs on MicroPython)."""
    parts = []
    for k, v in items:
        if isinstance(v, str):
            parts.append('"%s": %s' % (k, json.dumps(v)))
        else:
            parts.append('"%s": %d' % (k, v))
    return "{" + ", ".join(parts) + "}"


def event_items(kind, t, a, b, c):
    """The log form of an input event, as ordered (key, value) pairs."""
    name = EVENT_NAMES[kind]
    spec = EVENT_FIELDS[name]
    out = [("t", t), ("ev", name)]
    vals = (a, b, c)
    for i in range(3):
        field = spec[i + 1]
        if field is None:
            continue
        if field.endswith("?"):
            if vals[i] < 0:
                continue
            field = field[:-1]
        v = vals[i]
        if field == "card":
            v = format_card(v)
        out.append((field, v))
    return out
