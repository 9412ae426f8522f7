"""Verdict codes.

The referee reports each verdict as small ints ``(code, t_ms, t_us, a, b, c, d)`` to a sink,
so nothing is allocated per event.  ``spit.notation`` turns them into the log vocabulary of
docs/log-format.md; this module holds only the codes, to keep the device's heap small.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


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
E_UNDO_LIMIT = const(14)    # an undo past the cards the referee remembers on that pile

# Questions the referee asks the players (verdict "question", field "ask").
Q_STOCK_LEFT = const(0)     # how many stock cards does this player still hold?
Q_WENT_OUT = const(1)       # did this player go out (1) or the opponent (0)?
