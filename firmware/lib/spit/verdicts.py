"""Verdict codes and their log/JSON form.

The referee reports each verdict as small ints ``(code, t_ms, t_us, a, b, c, d)`` to a sink,
so nothing is allocated per event.  ``verdict_dict`` turns one into the log vocabulary of
docs/log-format.md (that allocates: host tools and the flash logger use it off the hot path).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from spit.cards import format_card

V_ACCEPT = const(1)
V_ILLEGAL = const(2)
V_LATE = const(3)
V_TIE = const(4)
V_EARLY = const(5)
V_SPIT_CALL = const(6)
V_SPIT = const(7)
V_ROUND_END = const(8)
V_PILE_WON = const(9)
V_GAME_OVER = const(10)
V_ERROR = const(11)
V_STUCK = const(12)
V_QUESTION = const(13)
V_COUNTDOWN = const(14)
V_ROUND_START = const(15)
V_RECYCLE = const(16)
V_SCORE = const(17)
V_UNDO = const(18)
V_RESYNC = const(19)

VERDICT_NAMES = ("", "accept", "illegal", "late", "tie", "early", "spit_call", "spit",
                 "round_end", "pile_won", "game_over", "error", "stuck", "question",
                 "countdown", "round_start", "recycle", "score", "undo", "resync")

# Reasons for round_end / game_over (field "reason").
R_OUT = const(0)        # a player went out (emptied what the ruleset requires)
R_BLOCKED = const(1)    # nobody can play and no spit cards are left
R_TIMER = const(2)      # R-GAME-6: the 10-minute timer ran out
R_POINTS = const(3)     # R-GAME-4: a score reached the target
R_STREAK = const(4)     # R-GAME-5: rounds won in a row
R_NO_CARDS = const(5)   # R-GAME-1/2/3: the player who went out has no cards left
REASON_NAMES = ("out", "blocked", "timer", "points", "streak", "no_cards")

# Error reasons (verdict "error", field "reason").  Refereeing always continues.
E_UNKNOWN_CARD = const(0)   # a card code / tag that names no card
E_BAD_PILE = const(1)       # a pile number the table does not have
E_BAD_PLAYER = const(2)
E_MALFORMED = const(3)      # a log line that is not a valid event
E_NO_READ = const(4)        # a touch on a pile with no card read after it (misread?)
E_DUPLICATE = const(5)      # a second copy of a card already in the center this round
E_SLAP_EARLY = const(6)     # a slap although that player cannot have gone out yet
E_UNEXPECTED = const(7)     # an event that has no meaning in the current phase
E_BAD_ANSWER = const(8)     # an answer out of range, or with no question asked
E_LATE_EVENT = const(9)     # an event that arrived after later ones were already judged
E_UNKNOWN_UID = const(10)   # firmware: a tag UID missing from the card map
E_READER = const(11)        # firmware: an NFC reader stopped answering
E_NO_OWNER = const(12)      # own-deck game: a card event without its player
E_OVERFLOW = const(13)      # firmware: input or event buffer overflowed
ERROR_NAMES = ("unknown_card", "bad_pile", "bad_player", "malformed", "no_read", "duplicate_card",
               "slap_too_early", "unexpected", "bad_answer", "late_event", "unknown_uid",
               "reader_down", "no_owner", "overflow")

# Questions the referee asks the players (verdict "question", field "ask").
Q_STOCK_LEFT = const(0)     # how many stock cards does this player still hold?
QUESTION_NAMES = ("stock_left",)

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
            parts.append('"%s": "%s"' % (k, v))
        else:
            parts.append('"%s": %d' % (k, v))
    return "{" + ", ".join(parts) + "}"
