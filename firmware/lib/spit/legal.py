"""What the referee needs at play time: the ruleset object and the legality test.

``spit.rules`` builds and validates a ``Ruleset`` from a preset and options; this module holds
only what the per-event path uses, so a memory-tight device can drop ``spit.rules`` (its preset
and option tables) once the ruleset is made.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

# Copies of the codes ``spit.rules`` defines (const() is inlined per module only; the board
# has no spit.rules).
# generated from spit.rules, spit.cards by scripts/gen_consts.py: do not edit
_WRAP_BOTH = const(0)      # R-CARD-2: A links K and 2 both ways
_WRAP_ACE_ONLY = const(1)  # R-CARD-3: only an Ace goes on a K or a 2, never K/2 onto an Ace
_MODE_SPEED = const(2)     # R-SPEED-1: hands of five, side piles (002 names it)
_JOKER = const(0)
# end generated

# A top that counts as a whole card (``top_rank`` | AS_CARD: that card's rank and colour): a
# joker under ``joker_next = as_below`` with ``colours = alternate`` keeps the card it covers
# (docs/rules.md, joker_next).  Public: spit.referee keeps a copy.
AS_CARD = const(64)

# R-OWN-1: each player has their own deck (003).  Public: the board's startup reads it here (the
# other option codes are spit.rules'; a Ruleset holds them as small ints).
MODE_OWN_DECK = const(1)


class Ruleset:
    """A validated ruleset (made by ``spit.rules.make_ruleset``): small ints and bools the
    referee reads per event, plus ``options``, the full canonical option dict (for logs)."""

    # Set by spit.rules (annotations only: no runtime cost on MicroPython).
    name: str
    options: dict
    wrap: int
    alternate_colours: bool
    joker_next: int
    slap: int
    round_end: int
    mode: int
    jokers: int
    piles: int
    stocks: int
    stock_cards: int
    slow_spit_ms: int
    points_target: int
    timer_ms: int
    rounds_in_a_row: int
    row: int
    speed_side: int
    tie_window_us: int
    race_window_us: int
    countdown_ms: int
    reorder_us: int
    touch_match_us: int
    relist_us: int
    slap_window_ms: int

    def default_counts(self):
        if self.mode == MODE_OWN_DECK:
            return [52 + self.jokers, 52 + self.jokers]
        if self.mode == _MODE_SPEED:
            # 52 = 2 middle cards + 2 side piles + two personal stocks (hand included).
            each = (52 - 2 - 2 * self.speed_side) // 2
            return [each, each]
        return [26 + self.jokers // 2, 26 + (self.jokers + 1) // 2]


def fits(rules, top, top_rank, card):
    """R-CARD-2..5: may ``card`` go on a pile whose top card is ``top``?

    ``top_rank`` is the rank the top counts as (differs from the top's own rank only for a
    joker under ``joker_next = as_below``); 0 means "wild": anything fits.  With
    ``colours = alternate`` such a joker counts as the whole card it covers: ``top_rank`` is
    that card | ``AS_CARD``, and a card must fit it in rank and colour (docs/rules.md).
    ``top < 0`` means an empty pile: nothing fits (a pile is started only by a spit card).
    """
    if top < 0:
        return False
    if card == _JOKER:
        return rules.jokers > 0  # R-CARD-4: a joker is wild and may be played on anything
    if top_rank & AS_CARD:
        top = top_rank & 63   # (R-CARD-4 as_below: the joker counts as the card it covers)
        top_rank = top & 15
    if rules.alternate_colours and top != _JOKER:
        # R-CARD-5: the other colour than the top card (a wild joker has no colour).
        ts = top >> 4
        cs = card >> 4
        if (ts == 1 or ts == 2) == (cs == 1 or cs == 2):
            return False
    if top_rank == 0:
        return True
    r = card & 15
    if top_rank == 1 and rules.wrap == _WRAP_ACE_ONLY:
        # R-CARD-3: "only Aces go onto Kings or 2s, not the other way": nothing but a
        # joker may cover an Ace, which is what makes stalemates more frequent.
        return False
    d = r - top_rank
    if d == 1 or d == -1:
        return True
    if d == 12 or d == -12:
        # Ace next to King. R-CARD-2: both ways. R-CARD-3: only an Ace onto a King.
        if rules.wrap == _WRAP_BOTH:
            return True
        return rules.wrap == _WRAP_ACE_ONLY and r == 1
    return False
