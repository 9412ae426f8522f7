"""The log's words: the names of verdicts, reasons and input events and their fields
(docs/log-format.md), and the log header.

Like python-chess's notation, this imports the core and the core never imports it.  It is
not on the device: ``spit flash`` builds the log line tables and the header's template from it
(``spit.logtables``) and writes them to the board's ``logtables.bin``.  A verdict or event as ordered ``(key, value)`` items
and their JSON text are ``spit.words`` (host side, like reading and re-judging logs in
``spit.log``).
"""

import json

from spit.intake import (EV_TOUCH, EV_CARD, EV_STUCK, EV_SLAP, EV_READY, EV_UNDO, EV_TOP,
                         EV_ANSWER, EV_TICK, EV_QUIET)
from spit.verdicts import E_UNKNOWN_CARD, E_BAD_ANSWER, E_UNKNOWN_UID, E_READER, E_OVERFLOW, E_MALFORMED

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
    "quiet": (EV_QUIET, "pile", None, None),
}


def header_line(rules, counts, extra=None):
    obj = {"spitlog": LOG_VERSION, "ruleset": rules.name, "options": rules.options, "counts": list(counts)}
    if extra:
        for k in extra:
            obj[k] = extra[k]
    return json.dumps(obj)
