"""Corrections: the players fix what the sensors got wrong, so a misread never ends a game.

A mixin of ``Referee`` (split out to keep modules readable).  ``undo`` takes the last card of a
pile back (R-PLAY-4 says a played card stays: only the players' agreement removes it);
``top`` says what the pile's top card really is (a landing the readers missed).
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from typing import Any

# Copies of other modules' codes: const() is inlined per module only, so a use costs no global
# and attribute lookup (and spit.verdicts, for one, need not be on the board).
# generated from spit.verdicts, spit.intake, spit.referee, spit.rules, spit.cards by scripts/gen_consts.py: do
#   not edit
_V_ERROR = const(11)
_V_UNDO = const(18)
_V_RESYNC = const(19)
_E_UNEXPECTED = const(7)       # an event that has no meaning in the current phase
_E_UNDO_LIMIT = const(14)      # an undo past the cards the referee remembers on that pile
_NEVER_T = const(-0x20000000)  # spit.intake _FLOOR: times further back are clamped here: "long ago" (and "never")
_PH_PLAY = const(1)            # spit cards, then free play
_HIST = const(32)              # cards remembered per pile (for undo and "late": docs/log-format.md)
_SPIT_BIT = const(64)
_RANK_SHIFT = const(9)
_MODE_SPEED = const(2)         # R-SPEED-1: hands of five, side piles (002 names it)
_JOKER = const(0)
# end generated
_UNDO_MAX = const(16)     # an undo takes back at most the pile's last 16 cards (docs/log-format.md)


class Corrections:
    # Provided by Referee (annotations only, for pyright).
    rules: "Any"
    npiles: int
    phase: int
    played: int
    unread: list
    top: "Any"
    top_rank: "Any"
    size: "Any"
    land_t: "Any"
    need_spit: "Any"
    spitter: "Any"
    spit_left: list
    first_flip: bool
    _own_deck: bool
    left: list
    _hist: "Any"
    _hist_lo: "Any"
    _seen: "Any"
    _emit: "Any"
    _land: "Any"
    intents: "Any"

    def _on_undo(self, ms, us, pile):
        """Correction: the last card on this pile is taken back (players agreed).

        Only while the round is played (countdown or play): once it is settled (slaps,
        question, between rounds, game over) its piles are no longer the referee's to change.
        At most the pile's last ``_UNDO_MAX`` cards are taken back (``undo_limit`` past them:
        set the top with ``top``); the history remembers the card under them too."""
        if not (0 <= pile < self.npiles) or self.size[pile] == 0 or self.phase > _PH_PLAY:
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, pile, -1, -1)
            return
        size = self.size[pile]
        n = size - 1   # (the top's entry)
        # The floor: the last _UNDO_MAX cards of the pile as it stands (an undo lowers the size,
        # not the floor: a run of undos ends _UNDO_MAX cards down; new landings raise it).
        lo = self._hist_lo[pile]
        if size - _UNDO_MAX > lo:
            lo = size - _UNDO_MAX
        if n < lo:
            self._emit(_V_ERROR, ms, us, _E_UNDO_LIMIT, pile, -1, -1)
            return
        self._hist_lo[pile] = lo
        self.size[pile] = n
        hist = self._hist
        h = hist[pile * _HIST + n % _HIST]
        card = h & 63
        player = (h >> 7 & 3) - 1
        own = self._own_deck
        i = (player if (own and player >= 0) else 0) * 64 + card
        if self._seen[i] > 0:
            self._seen[i] -= 1
        if h & _SPIT_BIT:
            self.need_spit[pile] = 1
            self.spitter[pile] = player
            if own:
                self.left[player] += 1
            elif not (self.rules.mode == _MODE_SPEED and self.first_flip):
                self.spit_left[player] += 1   # (Speed's middle cards are no side-pile cards)
        else:
            self.played -= 1
            if own and player >= 0:
                self.left[player] += 1
        self.land_t[pile] = _NEVER_T   # nothing to race against
        top = -1
        rank = 0
        if n > 0:
            h = hist[pile * _HIST + (n - 1) % _HIST]
            top = h & 63
            # The rank that card counted as when it landed: R-CARD-4 as_below, a joker still
            # counts as the card it covers (docs/rules.md, joker_next).
            rank = h >> _RANK_SHIFT
        self.top[pile] = top
        self.top_rank[pile] = rank
        self._emit(_V_UNDO, ms, us, pile, card, top, -1)

    def _on_top(self, ms, us, pile, card):
        """Correction: the pile's top card is ``card`` (a landing the readers missed)."""
        # (a card code's check as in referee._on_card: spit.cards.is_card)
        if (not (0 <= pile < self.npiles) or self.phase != _PH_PLAY
                or card < 0 or card > 63 or (card != _JOKER and not 1 <= (card & 15) <= 13)):
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, pile, card, -1)
            return
        spit = self.need_spit[pile]
        player = self.spitter[pile] if spit else -1
        i = card + 64 * player if self._own_deck and player >= 0 else card
        if self._seen[i] == 255:
            self._seen[i] = 254   # (_land counts this card: its count stays at the 255 cap)
        self._land(ms, us, pile, card, player, _SPIT_BIT if spit else 0)
        self.land_t[pile] = _NEVER_T   # a correction, not a landing to race against
        if not spit:
            if self.unread[pile] > 0:
                # That unread touch on this pile was this card: _land counted it as played and
                # puts it in the pile's size (R-ROUND-5).
                self.unread[pile] -= 1
            if self.intents is not None:
                self.intents.on_play(ms)   # play is live: the STUCK lamps go out
        self._emit(_V_RESYNC, ms, us, pile, card, -1, -1)
