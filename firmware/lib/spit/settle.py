"""Round ends, slaps, questions and game ends (R-ROUND-*, R-GAME-*).

A mixin of ``Referee``: it works on the referee's state and is split out only to keep each
module readable.  The referee cannot see the stocks: when a player slaps it checks the slap is
possible (enough cards were played), derives the opponent's leftover stock from what it saw,
and when that cannot be derived (a blocked round, the timer) it asks with a ``question``.  It
does not guess who went out either: when the cards seen allow both, the player says so (STUCK
during the slaps) or is asked (``went_out``) before the piles are given out.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


# What an answer settles (question_after):
_AFTER_NONE = const(0)
_AFTER_BLOCKED = const(1)    # the stock split after a blocked round
_AFTER_TIMER = const(2)      # the stock split when the 10-minute timer ran out
_AFTER_WENT_OUT = const(3)   # who went out, when both slapped and either could have

# Copies of other modules' codes (const() is inlined per module only; spit.verdicts is not
# installed on the board, and importing spit.referee for its phases would be circular).
# generated from spit.verdicts, spit.referee, spit.legal, spit.rules by scripts/gen_consts.py: do not edit
_V_ROUND_END = const(8)
_V_PILE_WON = const(9)
_V_GAME_OVER = const(10)
_V_ERROR = const(11)
_V_QUESTION = const(13)
_V_SCORE = const(17)
_R_OUT = const(0)                # a player went out (emptied what the ruleset requires)
_R_BLOCKED = const(1)            # nobody can play and no spit cards are left
_R_TIMER = const(2)              # R-GAME-6: the 10-minute timer ran out
_R_POINTS = const(3)             # R-GAME-4: a score reached the target
_R_STREAK = const(4)             # R-GAME-5: rounds won in a row
_R_NO_CARDS = const(5)           # R-GAME-1/2/3: the player who went out has no cards left
_E_SLAP_EARLY = const(6)         # a slap although that player cannot have gone out yet
_E_UNEXPECTED = const(7)         # an event that has no meaning in the current phase
_E_BAD_ANSWER = const(8)         # an answer out of range, or with no question asked
_Q_STOCK_LEFT = const(0)         # how many stock cards does this player still hold?
_Q_WENT_OUT = const(1)           # did this player go out (1) or the opponent (0)?
_PH_SLAP = const(2)              # R-ROUND-3/4: a player went out, piles are being claimed
_PH_QUESTION = const(3)          # waiting for the players' answer
_PH_BETWEEN = const(4)           # between rounds: waiting for both READY
_PH_OVER = const(5)
_MODE_OWN_DECK = const(1)
_MODE_TABLEAU = const(0)         # one shared deck, stocks + spit pile (000, 001, 002)
_MODE_SPEED = const(2)           # R-SPEED-1: hands of five, side piles (002 names it)
_SLAP_BOTH = const(0)            # R-ROUND-3 (000, 002): both slap
_END_STOCKS_AND_SPIT = const(1)  # R-ROUND-2: ... and their spit pile too
# end generated


_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from typing import Any


class Settlement:
    # Provided by Referee, the class this mixin is part of (annotations only, for pyright).
    rules: "Any"
    npiles: int
    phase: int
    round: int
    played: int
    unread: list
    single_pile: int
    timer_due: bool
    winner: int
    over_reason: int
    cards: list
    size: "Any"
    stock_start: list
    spit_left: list
    stock_left: list
    left: list
    score: list
    ready: list
    _emit: "Any"
    _phase_to: "Any"
    intents: "Any"

    def __init__(self):
        self.out_player = -1        # who went out this round (-1: blocked, or not known yet)
        self.out_unknown = False    # someone went out, but who is still to be asked
        self.round_winner = -1
        self.first_slapper = -1
        self.slap_pile = [-1, -1]
        self.slap_deadline_ms = -1
        self.question_player = -1
        self.question_total = 0
        self.question_after = _AFTER_NONE
        self.streak_player = -1
        self.streak = 0
        self._owner = [-1, -1, -1]
        self._taken = [0, 0]

    def center_cards(self):
        """Cards that reached the center this round, on all piles: those played, and those
        that landed with no read (played all the same, R-ROUND-5)."""
        total = self.played
        for n in self.unread:
            total += n
        return total

    # --- a player goes out (their first slap) ---
    def can_be_out(self, player):
        """Enough cards reached the center for ``player`` to have gone out (R-ROUND-1/2)."""
        rules = self.rules
        return self.center_cards() >= self.stock_start[player] and not (
            rules.round_end == _END_STOCKS_AND_SPIT and rules.mode == _MODE_TABLEAU
            and self.spit_left[player] > 0)

    def going_out(self, ms, us, player, pile):
        rules = self.rules
        mode = rules.mode
        both = rules.slap == _SLAP_BOTH and mode != _MODE_SPEED and self.can_be_out(1 - player)
        out = self.can_be_out(player)
        if mode == _MODE_OWN_DECK or not (out or both):
            # R-OWN-1 ends by itself when the last card is played: a slap means nothing.
            # Otherwise not enough cards reached the center for this player (nor, when both
            # slap, for the opponent) to be out (R-ROUND-1/2).
            self._emit(_V_ERROR, ms, us, _E_SLAP_EARLY if mode != _MODE_OWN_DECK else _E_UNEXPECTED,
                       pile, -1, player)
            return
        if mode == _MODE_SPEED:
            self.game_over(ms, us, player, _R_OUT)   # R-SPEED-1: played out hand and stock
            return
        if both and out:
            # Both slap, and either could be the one who went out: the first hand down is no
            # proof.  The slaps are taken as usual; who went out is said (STUCK) or asked
            # (_AFTER_WENT_OUT) before the piles and card counts are settled.
            self.out_unknown = True
            self.out_player = -1
        else:
            # R-ROUND-3 (000, 002): both slap, so the opponent's hand may come down first;
            # a slapper who cannot be out says that the other player went out.
            self._set_out(player if out else 1 - player)
        self._emit(_V_ROUND_END, ms, us, _R_OUT, self.out_player, self.round, -1)
        self._open_slaps()
        if self.single_pile >= 0 and not self.out_unknown:
            self.assign_piles(ms, us)   # R-ROUND-6: no slap, the opponent takes the center
        else:
            self.claim(ms, us, player, pile)

    def declare_out(self, ms, us, player):
        """During the slaps, with who went out unknown: ``player`` says it was them (STUCK)."""
        if not self.can_be_out(player):
            self._emit(_V_ERROR, ms, us, _E_SLAP_EARLY, -1, -1, player)
            return
        self._set_out(player)
        self._show_round_winner(ms)
        if self.single_pile >= 0:
            self.assign_piles(ms, us)   # R-ROUND-6: the opponent takes the center

    def _show_round_winner(self, ms):
        """The lamps of a round end, once its winner is known after the ``round_end`` verdict
        (who went out said or asked, a blocked round's split answered): the winner's zone
        pulses green, the other's (a question, a STUCK press) goes out (docs/hardware.md)."""
        if self.intents is not None:
            self.intents.on_verdict(_V_ROUND_END, ms, _R_OUT, self.round_winner, self.round)

    def _set_out(self, player):
        """``player`` went out: the opponent's stock is what the center does not account for."""
        other = 1 - player
        self.out_unknown = False
        self.out_player = player
        self.round_winner = player
        self.stock_left[player] = 0
        opp_played = self.center_cards() - self.stock_start[player]
        left = self.stock_start[other] - opp_played
        self.stock_left[other] = left if left > 0 else 0
        if self.single_pile < 0 and self.rules.round_end != _END_STOCKS_AND_SPIT \
                and self.spit_left[player] == 0:
            # R-GAME-1/3, R-ROUND-6: with no spit cards left this player is already down to
            # the opponent's single spit pile (the next flip would make it official).
            self.single_pile = other

    def _open_slaps(self):
        self._phase_to(_PH_SLAP)
        self.first_slapper = -1
        self.slap_pile[0] = -1
        self.slap_pile[1] = -1
        self.slap_deadline_ms = -1

    def claim(self, ms, us, player, pile):
        """R-ROUND-3/4: a slap (or a choice) on a pile while piles are being claimed."""
        slap_pile = self.slap_pile
        if slap_pile[player] >= 0:
            return
        rules = self.rules
        mode = rules.slap
        # The player who went out (or won a blocked round, R-ROUND-2); -1: either may slap.
        claimer = self.out_player if self.out_player >= 0 else self.round_winner
        if mode != _SLAP_BOTH and claimer >= 0 and player != claimer:
            # R-ROUND-3 (001) / R-ROUND-4: only the player who went out claims a pile.
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, pile, -1, player)
            return
        slap_pile[player] = pile
        if self.first_slapper < 0:
            self.first_slapper = player
            self.slap_deadline_ms = ms + rules.slap_window_ms
        if mode != _SLAP_BOTH or slap_pile[1 - player] >= 0:
            self.assign_piles(ms, us)

    def assign_piles(self, ms, us):
        """Give out the center piles, carry the card counts over, check the game end."""
        first = self.first_slapper
        if self.out_unknown:
            # The slaps are in; the counts depend on who went out: ask the first slapper.
            self.question_player = first if first >= 0 else 0
            self.question_total = 1
            self.question_after = _AFTER_WENT_OUT
            self._phase_to(_PH_QUESTION)
            self._emit(_V_QUESTION, ms, us, _Q_WENT_OUT, self.question_player, 1, -1)
            return
        n = self.npiles
        out = self.out_player
        if first < 0:
            first = out if out >= 0 else 0
        claimed = self.slap_pile[first]   # the first slapper's pile is theirs (R-ROUND-3/4)
        rest = 1 - first   # the other takes the rest: the pile they slapped, or all if the same
        if self.single_pile >= 0 and out >= 0:
            # R-ROUND-6: the first out takes nothing; the opponent takes the center.
            claimed = -1
            rest = 1 - out
        owner = self._owner
        for p in range(n):
            owner[p] = rest
        if claimed >= 0:
            owner[claimed] = first
        taken = self._taken
        taken[0] = 0
        taken[1] = 0
        for p in range(n):
            size = self.size[p] + self.unread[p]   # R-ROUND-5: unread cards are in it too
            taken[owner[p]] += size
            self._emit(_V_PILE_WON, ms, us, owner[p], p, size, -1)
        rules = self.rules
        target = rules.points_target
        cards = self.cards
        score = self.score
        for p in range(2):
            kept = self.stock_left[p] + self.spit_left[p]   # R-ROUND-5
            cards[p] = taken[p] + kept
            if target > 0:
                score[p] += kept   # R-GAME-4: a point per card left
                self._emit(_V_SCORE, ms, us, p, score[p], -1, -1)
        # The round is settled: the streak (R-GAME-5), then the game's end (R-GAME-1..6).
        rw = self.round_winner   # (-1: nobody, a blocked round's equal stocks)
        if rw < 0 or rw != self.streak_player:
            # A new streak, or (-1) R-GAME-5: a round nobody won breaks "in a row".
            self.streak_player = rw
            self.streak = 0
        if rw >= 0:
            self.streak += 1
        if out >= 0 and cards[out] == 0:
            self.game_over(ms, us, out, _R_NO_CARDS)   # R-GAME-1/2/3
        elif cards[0] == 0 or cards[1] == 0:
            self.game_over(ms, us, 0 if cards[0] == 0 else 1, _R_NO_CARDS)
        elif target > 0 and (score[0] >= target or score[1] >= target):
            s0 = score[0]
            s1 = score[1]
            self.game_over(ms, us, 0 if s0 < s1 else 1 if s1 < s0 else rw, _R_POINTS)
        elif rules.rounds_in_a_row > 0 and self.streak >= rules.rounds_in_a_row:
            self.game_over(ms, us, self.streak_player, _R_STREAK)   # R-GAME-5
        elif self.timer_due:
            self._fewer_wins(ms, us, cards[0], cards[1], _R_TIMER)   # R-GAME-6
        else:
            self._phase_to(_PH_BETWEEN)
            self.ready[0] = False
            self.ready[1] = False

    # --- blocked rounds, the timer, questions ---
    def blocked(self, ms, us):
        """Both stuck and no spit card left anywhere (R-ROUND-1, R-ROUND-2, R-OWN-1)."""
        mode = self.rules.mode
        if mode == _MODE_OWN_DECK:
            # R-OWN-1: fewer cards left wins.
            self._fewer_wins(ms, us, self.left[0], self.left[1], _R_BLOCKED)
        elif mode != _MODE_TABLEAU:
            self.game_over(ms, us, -1, _R_BLOCKED)   # Speed with nothing to recycle: a draw
        else:
            self.out_player = -1
            self.out_unknown = False
            self._ask(ms, us, _R_BLOCKED, _AFTER_BLOCKED)

    def timer_expired(self, ms, us):
        own_deck = self.rules.mode == _MODE_OWN_DECK
        if own_deck or self.phase == _PH_BETWEEN:
            # R-GAME-6: own deck, the cards not yet played to the center; between rounds, the
            # cards each player has for the next.
            counts = self.left if own_deck else self.cards
            self._fewer_wins(ms, us, counts[0], counts[1], _R_TIMER)
        elif self.phase != _PH_SLAP and self.phase != _PH_QUESTION:
            # (during the slaps or a question it is settled when this round's piles are given
            # out: timer_due)
            self._ask(ms, us, _R_TIMER, _AFTER_TIMER)

    def _fewer_wins(self, ms, us, a, b, reason):
        # R-GAME-6, R-OWN-1: fewer cards in total wins; as many: a draw.
        self.game_over(ms, us, 0 if a < b else 1 if b < a else -1, reason)

    def _ask(self, ms, us, reason, after):
        """The round ends for ``reason`` (blocked, the timer) with the stocks unseen: how many
        stock cards player 0 has left is asked (``after`` says what the answer settles)."""
        self._emit(_V_ROUND_END, ms, us, reason, -1, self.round, -1)
        total = self.stock_start[0] + self.stock_start[1] - self.center_cards()
        if total < 0:
            total = 0
        self.question_total = total
        self.question_player = 0
        self.question_after = after
        self._phase_to(_PH_QUESTION)
        self._emit(_V_QUESTION, ms, us, _Q_STOCK_LEFT, 0, total, -1)

    def on_answer(self, ms, us, player, value):
        after = self.question_after
        out = player if value == 1 else 1 - player   # (a went_out answer: 1 is "I went out")
        if self.phase != _PH_QUESTION or player != self.question_player \
                or value < 0 or value > self.question_total \
                or (after == _AFTER_WENT_OUT and not self.can_be_out(out)):
            # (who went out: the cards seen may say otherwise; the question stands)
            self._emit(_V_ERROR, ms, us, _E_BAD_ANSWER, -1, value, player)
            return
        if after == _AFTER_WENT_OUT:
            self._set_out(out)
            self._show_round_winner(ms)
            self._phase_to(_PH_SLAP)
            self.assign_piles(ms, us)
            return
        stock_left = self.stock_left
        stock_left[player] = value
        stock_left[1 - player] = self.question_total - value
        s0 = stock_left[0]
        s1 = stock_left[1]
        if after == _AFTER_TIMER:
            if self.rules.mode != _MODE_SPEED:
                # R-GAME-6: stock and spit cards.  In Speed: hand and stock (asked); the side
                # piles are nobody's cards.
                s0 += self.spit_left[0]
                s1 += self.spit_left[1]
            self._fewer_wins(ms, us, s0, s1, _R_TIMER)
            return
        # R-ROUND-2: in a blocked round the player with fewer tableau cards wins it.
        self.round_winner = 0 if s0 < s1 else 1 if s1 < s0 else -1
        self._show_round_winner(ms)
        self._open_slaps()

    def game_over(self, ms, us, winner, reason):
        self._phase_to(_PH_OVER)
        self.winner = winner
        self.over_reason = reason
        self._emit(_V_GAME_OVER, ms, us, winner, reason, -1, -1)
