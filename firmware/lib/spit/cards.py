"""Card codes <-> small ints.

A card is one small int: ``suit * 16 + rank``, rank 1 (Ace) .. 13 (King), suit 0..3 for
C, D, H, S.  Jokers are ``JOKER`` (rank 0).  Small ints keep every comparison allocation-free
on the RP2040.  Codes: ``AS 2H .. 10D JC QS KH`` (``TD`` also means ten, any case) and ``JK``.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

JOKER = const(0)
# By rank (1 Ace .. 13 King) and suit (0..3); the board's enrollment script keeps generated copies
# (referee/enroll.py: scripts/gen_consts.py).
RANK_CODES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CODES = "CDHS"
RANK_NAMES = ("", "Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
              "Queen", "King")
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")

class CardError(ValueError):
    """A card code that names no card."""


def rank_of(card):
    return card & 15


def is_card(card):
    """True for a valid encoded card (or joker)."""
    if card == JOKER:
        return True
    r = card & 15
    return 1 <= r <= 13 and 0 <= (card >> 4) <= 3


def parse_card(code):
    """Parse a card code such as ``"QH"``, ``"10d"``, ``"TD"`` or ``"JK"`` into its int."""
    if not isinstance(code, str):
        raise CardError("card code must be a string, not %r" % (code,))
    c = code.strip().upper()
    if c == "JK":
        return JOKER
    if len(c) < 2 or len(c) > 3:
        raise CardError("unknown card code %r" % code)
    rank_code = c[:-1]
    suit = SUIT_CODES.find(c[-1])
    if rank_code == "T":
        rank_code = "10"
    rank = -1
    for i in range(1, 14):
        if RANK_CODES[i] == rank_code:
            rank = i
            break
    if rank < 0 or suit < 0:
        raise CardError("unknown card code %r" % code)
    return suit * 16 + rank


def format_card(card):
    if card == JOKER:
        return "JK"
    if not is_card(card):
        raise CardError("not a card: %r" % (card,))
    return RANK_CODES[card & 15] + SUIT_CODES[card >> 4]


def card_name(code, nth_joker=1):
    """A card code's name for people: ``"QH"`` -> ``"Queen of Hearts"``, ``"JK"`` -> ``"first Joker"``
    (``nth_joker`` 2: ``"second Joker"``)."""
    card = parse_card(code)
    if card == JOKER:
        return "first Joker" if nth_joker == 1 else "second Joker"
    return "%s of %s" % (RANK_NAMES[card & 15], SUIT_NAMES[card >> 4])


def full_deck(jokers=0):
    """The 52 cards (plus ``jokers`` jokers) in a fixed order: suits C D H S, ranks A..K."""
    deck = []
    for s in range(4):
        for r in range(1, 14):
            deck.append(s * 16 + r)
    for _ in range(jokers):
        deck.append(JOKER)
    return deck
