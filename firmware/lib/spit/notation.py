"""The log's words: the names of verdicts, reasons and input events and their fields
(docs/log-format.md), and the log header.

Like python-chess's notation, this imports the core and the core never imports it.  On the
device it is loaded only to build the log line tables at boot (``referee/logline.py``) and to
write the header at a session start.  A verdict or event as ordered ``(key, value)`` items
and their JSON text are ``spit.words`` (host side, like reading and re-judging logs in
``spit.log``).
"""

import json
from array import array

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

from spit.cards import JOKER, format_card
from spit.intake import (EV_TOUCH, EV_CARD, EV_STUCK, EV_SLAP, EV_READY, EV_UNDO, EV_TOP,
                         EV_ANSWER, EV_TICK, EVENT_NAMES)
from spit.verdicts import (V_ERROR, V_GAME_OVER, REASON_NAMES, E_UNKNOWN_CARD, E_BAD_ANSWER,
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


def header_line(rules, counts, extra=None):
    obj = {"spitlog": LOG_VERSION, "ruleset": rules.name, "options": rules.options, "counts": list(counts)}
    if extra:
        for k in extra:
            obj[k] = extra[k]
    return json.dumps(obj)


# Field kinds of the device's line tables (referee/logline.py keeps the same values as consts).
_LINE_INT = const(0)
_LINE_CARD = const(1)
_LINE_NAME = const(2)        # an index into a name table (its first piece given)
_LINE_ERR_VALUE = const(3)   # an error's value: a card unless the error never carries one
_LINE_KEEP = const(8)        # flag: -1 is written (a game_over winner: a draw)
_LINE_OPTIONAL = const(16)   # flag: a negative value is left out (an event's "player?")


def line_tables():
    """The log's words as the device's line writer (``referee.logline.LineFormat``) keeps them:
    every piece of text once in one ``bytes`` (``text``, piece k at ``at[k]:at[k + 1]``), and per
    verdict code / event kind the piece ids and field kinds of its head and fields.  Built at
    boot; this module (and so this code) is dropped from the device's heap afterwards."""
    pieces = [""]   # piece 0: nothing
    ids = {}

    def piece(text):   # a shared piece (keys)
        k = ids.get(text)
        if k is None:
            k = ids[text] = len(pieces)
            pieces.append(text)
        return k

    def table(names, form):   # consecutive pieces; returns the first one's id
        first = len(pieces)
        for name in names:
            pieces.append(form % name)
        return first

    reason = table(REASON_NAMES, '"%s"')
    error = table(ERROR_NAMES, '"%s"')
    ask = table(QUESTION_NAMES, '"%s"')
    rank = table([format_card(r)[:-1] for r in range(1, 14)], "%s") - 1   # rank 1..13
    suits = "".join(format_card(16 * s + 1)[-1] for s in range(4)).encode()
    joker = piece('"%s"' % format_card(JOKER))
    card_key = piece(', "card": ')
    uid_key = piece(', "uid": ')
    start_text = piece('{"t": ')
    # Verdicts: a head piece (``, "verdict": "accept"``) per code, then per field (4 a
    # code) its key piece (0: unused), kind and, for a name, its table's first piece.
    nv = len(VERDICT_NAMES)
    vhead = bytearray(nv)
    vkey = bytearray(4 * nv)
    vkind = bytearray(4 * nv)
    vbase = bytearray(4 * nv)
    for code in range(1, nv):
        vhead[code] = piece(', "verdict": "%s"' % VERDICT_NAMES[code])
        fields = _FIELDS[code]   # (the engine's table of verdict fields)
        if fields is None:
            continue
        for i in range(4):
            name = fields[i]
            if name is None:
                continue
            kind = _LINE_INT
            mark = name.find("@")
            if mark >= 0:
                tag = name[mark + 1:]
                name = name[:mark]
                if tag == "card":
                    kind = _LINE_CARD
                else:
                    kind = _LINE_NAME
                    vbase[4 * code + i] = (reason if tag == "reason" else
                                           error if tag == "error" else ask)
            if code == V_ERROR and name == "value":
                kind = _LINE_ERR_VALUE
            if code == V_GAME_OVER and name == "winner":
                kind |= _LINE_KEEP
            vkey[4 * code + i] = piece(', "%s": ' % name)
            vkind[4 * code + i] = kind
    # Events: a head piece (``, "ev": "touch"``) per kind, then per field (3 a kind)
    # its key piece (0: none) and kind.
    ne = len(EVENT_NAMES)
    ehead = bytearray(ne)
    ekey = bytearray(3 * ne)
    ekind = bytearray(3 * ne)
    for kind in range(1, ne):
        name = EVENT_NAMES[kind]
        ehead[kind] = piece(', "ev": "%s"' % name)
        fields = EVENT_FIELDS.get(name)
        for i in range(3):
            f = fields[i + 1] if fields else None
            if f is None:
                continue
            k = _LINE_INT
            if f.endswith("?"):
                f = f[:-1]
                k = _LINE_OPTIONAL
            if f == "card":
                k |= _LINE_CARD
            ekey[3 * kind + i] = piece(', "%s": ' % f)
            ekind[3 * kind + i] = k
    not_card = _NOT_CARD_ERRORS   # errors whose value is never a card (a tuple)
    if len(pieces) > 255:
        raise ValueError("log line pieces")
    text = "".join(pieces).encode()
    at = array("H", bytes(2 * len(pieces) + 2))
    for k in range(len(pieces)):
        at[k + 1] = at[k] + len(pieces[k].encode())
    return (text, at, rank, suits, joker, card_key, uid_key, start_text, vhead, vkey, vkind, vbase,
            ehead, ekey, ekind, not_card)
