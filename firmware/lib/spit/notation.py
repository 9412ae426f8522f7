"""The log's words: verdicts and input events in their JSON form, and the log header.

Like python-chess's notation, this imports the core and the core never imports it.  It
allocates (dicts, strings), so the device uses it only when writing the log.  Reading and
re-judging logs is ``spit.log`` (host side).
"""

import json

from spit.cards import format_card, is_card
from spit.intake import (EV_TOUCH, EV_CARD, EV_STUCK, EV_SLAP, EV_READY, EV_UNDO, EV_TOP,
                         EV_ANSWER, EV_TICK, EVENT_NAMES)
from spit.verdicts import (V_GAME_OVER, V_ERROR, REASON_NAMES, E_UNKNOWN_CARD, E_BAD_ANSWER,
                           E_UNKNOWN_UID, E_READER, E_OVERFLOW, E_MALFORMED)

# Error reasons whose "value" is never a card (a count, a raw code, ...).
_NOT_CARD_ERRORS = (E_UNKNOWN_CARD, E_BAD_ANSWER, E_UNKNOWN_UID, E_READER, E_OVERFLOW, E_MALFORMED)

VERDICT_NAMES = ("", "accept", "illegal", "late", "tie", "early", "spit_call", "spit",
                 "round_end", "pile_won", "game_over", "error", "stuck", "question",
                 "countdown", "round_start", "recycle", "score", "undo", "resync")

ERROR_NAMES = ("unknown_card", "bad_pile", "bad_player", "malformed", "no_read", "duplicate_card",
               "slap_too_early", "unexpected", "bad_answer", "late_event", "unknown_uid",
               "reader_down", "no_owner", "overflow", "undo_limit")
QUESTION_NAMES = ("stock_left", "went_out")

# Field names for a, b, c, d per verdict code. A name ending in "@card" is a card,
# "@reason"/"@error"/"@ask" index the name tables. None: field unused.
_FIELDS = (
    None,
    ("pile", "card@card", "player", "dt_us"),           # accept
    ("pile", "card@card", "top@card", None),            # illegal
    ("pile", "card@card", "dt_us", "top@card"),         # late
    ("pile", "card@card", "winner@card", "dt_us"),      # tie
    ("pile", "card@card", None, None),                  # early
    ("piles", None, None, None),                        # spit_call
    ("pile", "card@card", "player", None),              # spit
    ("reason@reason", "player", "round", None),         # round_end
    ("player", "pile", "size", None),                   # pile_won
    ("winner", "reason@reason", None, None),            # game_over
    ("reason@error", "pile", "value", "player"),        # error
    ("player", None, None, None),                       # stuck
    ("ask@ask", "player", "max", None),                 # question
    ("ms", "round", None, None),                        # countdown
    ("round", "cards0", "cards1", "single_pile"),       # round_start
    ("cards", None, None, None),                        # recycle
    ("player", "score", None, None),                    # score
    ("pile", "card@card", "top@card", None),            # undo (card taken back, new top)
    ("pile", "card@card", None, None),                  # resync (the pile's top card is ...)
)


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


# --- input events and the header (docs/log-format.md) ---

LOG_VERSION = 1

# Event name -> (kind, field for a, field for b, field for c); "card" fields hold card codes.
EVENT_FIELDS = {
    "touch": (EV_TOUCH, "pile", None, None),
    "card": (EV_CARD, "pile", "card", "player?"),
    "stuck": (EV_STUCK, "player", None, None),
    "slap": (EV_SLAP, "player", "pile", None),
    "ready": (EV_READY, "player", None, None),
    "undo": (EV_UNDO, "pile", None, None),
    "top": (EV_TOP, "pile", "card", None),
    "answer": (EV_ANSWER, "player", "value", None),
    "tick": (EV_TICK, None, None, None),
}


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


def header_line(rules, counts, extra=None):
    obj = {"spitlog": LOG_VERSION, "ruleset": rules.name, "options": rules.options, "counts": list(counts)}
    if extra:
        for k in extra:
            obj[k] = extra[k]
    return json.dumps(obj)
