"""The physical table: a real deal, stocks, spit piles, center piles, cards carried across rounds.

Everything a real table holds is here, card by card, so that cards can be counted at any moment
(52 + jokers, or two decks for R-OWN-1).  The referee (engine or firmware) only sees what lands
on the center piles; the simulation applies its verdicts to this table the way players obey
the lamps: an illegal, late or early card is taken back to where it came from, piles are handed
out as the ``pile_won`` verdicts say.

Plain Python that also runs under the MicroPython unix port: no dataclasses, no typing, and an
own LCG (:class:`Rng`) so the same seed gives the same game on both interpreters.
"""

from spit.cards import full_deck, JOKER
from spit.legal import AS_CARD
from spit.rules import MODE_OWN_DECK, MODE_SPEED, JOKER_ANY

# Where a card in a player's hands came from (to put it back when the referee rejects it).
SRC_HAND = -1     # speed: the secret hand
SRC_SPIT = -2     # the spit pile (tableau), side pile (speed) or deck (own deck)
SRC_MIDDLE = -3   # speed: the single middle card of the first flip

# States of a card on a center pile.
S_PENDING = 0     # landed, no verdict yet
S_IN = 1          # counts: accepted, a spit card, or an unread touch the referee counted
S_OUT = 2         # rejected (illegal / late / early): its owner is about to take it back


class Rng:
    """A deterministic linear congruential generator (mod 2**32); 24-bit outputs."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF
        for _ in range(3):
            self.next()

    def next(self):
        self.x = (self.x * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.x >> 8

    def below(self, n):
        """An int in 0..n-1 (0 when n <= 0)."""
        if n <= 1:
            return 0
        return self.next() % n

    def between(self, lo, hi):
        """An int in lo..hi (inclusive)."""
        return lo + self.below(hi - lo + 1)

    def chance(self, per_mille):
        return self.below(1000) < per_mille

    def shuffle(self, items):
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self):
        """An independent generator (one per bot, one for the sensors...)."""
        return Rng(self.next())


class Seat:
    """What one player holds."""

    def __init__(self):
        self.cards = []     # between rounds: everything the player owns (R-ROUND-5)
        self.stocks = []    # tableau: the stock piles, face-up card last (R-SETUP-2/3)
        self.spit = []      # spit pile / speed side pile / own deck beyond the row; top card last
        self.hand = []      # speed: the secret hand (at most five)
        self.stock = []     # speed: the personal stock the hand is drawn from
        self.row = []       # own deck: the face-up row, -1 for an empty slot (R-OWN-1)
        self.middle = []    # speed: the single middle card flipped at the first spit
        self.won = []       # center cards taken at the end of a round
        self.carry = 0      # cards in the hand on their way to a pile
        self.pending = 0    # own cards on a pile (or on the way) whose verdict is not seen yet

    def held(self):
        """Cards this player holds outside the center (including cards in flight)."""
        n = len(self.cards) + len(self.spit) + len(self.hand) + len(self.stock) + len(self.middle)
        n += len(self.won) + self.carry
        for s in self.stocks:
            n += len(s)
        for c in self.row:
            if c != -1:
                n += 1
        return n

    def stock_count(self):
        """Tableau cards left (what a player answers to the referee's ``stock_left`` question)."""
        n = 0
        for s in self.stocks:
            n += len(s)
        return n + len(self.hand) + len(self.stock)


class Table:
    """The physical game state for one ruleset, dealt from a seeded :class:`Rng`."""

    def __init__(self, rules, rng):
        self.rules = rules
        self.rng = rng
        self.npiles = rules.piles
        self.piles = [[] for _ in range(self.npiles)]     # [card, player, state, src, unread, aimed top]
        self.hist = [[(0, -1, 0)] for _ in range(self.npiles)]   # (t_us, top, top_rank) changes
        self.awaiting = [False] * self.npiles              # a spit card is due on this pile
        self.seats = [Seat(), Seat()]
        self.single = -1        # R-STALL-2: the only pile still spat on this round
        self.flips = 0          # spit flips this round (R-STALL-4: pile 2 is filled in turn)
        self.first_flip = True  # speed: the first flip uses the middle cards
        self.deck_size = 0
        self._deal()

    # --- dealing and laying out ---
    def _deal(self):
        rules = self.rules
        rng = self.rng
        if rules.mode == MODE_OWN_DECK:
            for seat in self.seats:
                seat.cards = full_deck(rules.jokers)
                rng.shuffle(seat.cards)
            self.deck_size = 2 * len(self.seats[0].cards)
            return
        deck = full_deck(rules.jokers)
        rng.shuffle(deck)
        self.deck_size = len(deck)
        if rules.mode == MODE_SPEED:
            counts = rules.default_counts()
            side = rules.speed_side
            self.seats[0].stock = deck[:counts[0]]
            self.seats[1].stock = deck[counts[0]:counts[0] + counts[1]]
            rest = deck[counts[0] + counts[1]:]
            for p in range(2):
                self.seats[p].spit = rest[p * side:(p + 1) * side]
                self.seats[p].middle = [rest[2 * side + p]]
            return
        counts = rules.default_counts()   # R-SETUP-1 (26/26, jokers split)
        self.seats[0].cards = deck[:counts[0]]
        self.seats[1].cards = deck[counts[0]:counts[0] + counts[1]]

    def counts(self):
        """Each player's cards at the start of the game/round (what the referee is told)."""
        rules = self.rules
        if rules.mode == MODE_SPEED:
            return [len(self.seats[0].stock), len(self.seats[1].stock)]
        return [len(self.seats[0].cards), len(self.seats[1].cards)]

    def layout(self):
        """Shuffle each player's cards and lay out a new round (R-SETUP-2/3/4, R-ROUND-5)."""
        rules = self.rules
        for p in range(self.npiles):
            self.piles[p] = []
            self.hist[p] = [(0, -1, 0)]
            self.awaiting[p] = False
        self.single = -1
        self.flips = 0
        for seat in self.seats:
            seat.pending = 0
            if rules.mode == MODE_SPEED:
                while len(seat.hand) < 5 and seat.stock:
                    seat.hand.append(seat.stock.pop())
                continue
            cards = seat.cards
            seat.cards = []
            if rules.mode == MODE_OWN_DECK:
                seat.row = []
                for _ in range(rules.row):
                    seat.row.append(cards.pop() if cards else -1)
                seat.spit = cards
                continue
            self.rng.shuffle(cards)
            seat.stocks = []
            i = 0
            for size in range(1, rules.stocks + 1):
                # R-SETUP-4: as far as the cards go.
                take = cards[i:i + size]
                i += len(take)
                seat.stocks.append(take)
            seat.spit = cards[i:]

    def gather(self):
        """End of a round: each player collects won piles, stocks and spit pile (R-ROUND-5)."""
        for seat in self.seats:
            cards = seat.cards + seat.won
            seat.won = []
            for s in seat.stocks:
                cards.extend(s)
            seat.stocks = []
            cards.extend(seat.spit)
            seat.spit = []
            seat.cards = cards

    def total(self):
        """Every card on the table, wherever it is (conservation check)."""
        n = self.seats[0].held() + self.seats[1].held()
        for pile in self.piles:
            n += len(pile)
        return n

    # --- the center piles ---
    def top(self, pile):
        """``(card, rank)`` of the physical top card; rank 0 = wild (joker), card -1 = empty."""
        entries = self.piles[pile]
        i = len(entries) - 1
        while i >= 0 and entries[i][2] == S_OUT:
            i -= 1   # players see the red/orange lamp: that card does not count
        if i < 0:
            return -1, 0
        card = entries[i][0]
        if card != JOKER:
            return card, card & 15
        if self.rules.joker_next == JOKER_ANY:
            return card, 0
        while i > 0:   # as_below: the rank of the first real card underneath
            i -= 1
            below = entries[i][0]
            if below != JOKER and entries[i][2] != S_OUT:
                # (with alternate colours its colour too: the whole card, spit.legal.AS_CARD)
                return card, (below | AS_CARD) if self.rules.alternate_colours else below & 15
        return card, 0

    def seen_top(self, pile, t):
        """The top as it was at time ``t`` (what a player who looked then saw)."""
        h = self.hist[pile]
        for i in range(len(h) - 1, -1, -1):
            if h[i][0] <= t:
                return h[i][1], h[i][2]
        return h[0][1], h[0][2]

    def _changed(self, pile, t):
        card, rank = self.top(pile)
        h = self.hist[pile]
        h.append((t, card, rank))
        if len(h) > 12:
            del h[0:4]

    def land(self, t, pile, card, player, src, spit, aimed=-1):
        """A card touches a pile (R-PLAY-4); ``aimed``: the top its player meant to play on."""
        self.piles[pile].append([card, player, S_PENDING, src, False, aimed])
        if spit:
            self.awaiting[pile] = False
        self.seats[player].carry -= 1
        self._changed(pile, t)

    def find(self, pile, card, player, pending_only=True):
        """The lowest pending entry of ``card`` on ``pile`` (``player`` -1: any owner)."""
        entries = self.piles[pile] if 0 <= pile < self.npiles else ()
        for e in entries:
            if e[0] == card and (player < 0 or e[1] == player) and (e[2] == S_PENDING or not pending_only):
                return e
        return None

    def keep(self, t, pile, entry):
        """The referee counted this card: it stays, in the referee's order (under pending cards)."""
        entries = self.piles[pile]
        entries.remove(entry)
        i = len(entries)
        while i > 0 and entries[i - 1][2] != S_IN:
            i -= 1
        entries.insert(i, entry)
        entry[2] = S_IN
        self._changed(pile, t)

    def reject(self, t, pile, entry):
        """The referee's lamp says this card does not count."""
        entry[2] = S_OUT
        self._changed(pile, t)

    def take_back(self, t, pile, entry):
        """Its owner takes a rejected card back to where it came from (R-PLAY-5)."""
        entries = self.piles[pile]
        if entry not in entries:
            return
        entries.remove(entry)
        self._changed(pile, t)
        self.give_back(entry[1], entry[3], entry[0])

    def give_back(self, player, src, card):
        seat = self.seats[player]
        if src == SRC_SPIT:
            seat.spit.append(card)
        elif src == SRC_MIDDLE:
            seat.middle.append(card)
        elif src == SRC_HAND:
            seat.hand.append(card)
        elif self.rules.mode == MODE_OWN_DECK:
            if seat.row[src] == -1:
                seat.row[src] = card
            else:
                seat.spit.append(card)   # the slot was refilled meanwhile: back on the deck
        else:
            seat.stocks[src].append(card)

    def hand_out(self, pile, player):
        """``pile_won``: the counted cards of ``pile`` go to ``player``; returns their number."""
        kept = []
        won = self.seats[player].won
        for e in self.piles[pile]:
            if e[2] == S_IN:
                won.append(e[0])
            else:
                kept.append(e)
        n = len(self.piles[pile]) - len(kept)
        self.piles[pile] = kept
        return n

    def smallest_pile(self, avoid=-1):
        best = -1
        for p in range(self.npiles):
            if p != avoid and (best < 0 or len(self.piles[p]) < len(self.piles[best])):
                best = p
        return best

    # --- spitting (R-PLAY-1, R-STALL-1/2/4, R-SPEED-1, R-OWN-1) ---
    def plan_spit(self):
        """Who flips onto which pile at the coming spit: a list ``spitter[pile]`` (-1: nobody).

        Recycles the speed center piles first when both side piles are empty (R-SPEED-1).
        """
        rules = self.rules
        n = self.npiles
        plan = [-1] * n
        left = [len(self.seats[0].spit), len(self.seats[1].spit)]
        if rules.mode == MODE_OWN_DECK:
            for p in range(2):
                if left[p] > 0:
                    plan[p] = p
        elif rules.mode == MODE_SPEED:
            if self.first_flip:
                plan[0] = 0
                plan[1] = 1
            else:
                if left[0] == 0 and left[1] == 0:
                    self.recycle()
                for p in range(2):
                    if self.seats[p].spit:
                        plan[p] = p
        elif self.single >= 0:
            if left[self.single] > 0:
                plan[self.single] = self.single
        elif left[0] > 0 and left[1] > 0:
            plan[0] = 0
            plan[1] = 1
            if n == 3:
                k = self.flips % 2   # "the players fill pile 2 in turn, player 0 first"
                if left[k] >= 2:
                    plan[2] = k
                elif left[1 - k] >= 2:
                    plan[2] = 1 - k
        else:
            for q in range(2):
                if left[q] > 0:
                    self.single = q   # R-STALL-2: the lone spitter, onto their own pile
                    plan[q] = q
        for p in range(n):
            if plan[p] >= 0:
                self.awaiting[p] = True
        return plan

    def flipped(self):
        """A whole spit (all planned cards) was started."""
        self.flips += 1
        self.first_flip = False

    def recycled_entries(self, pile):
        """The cards of ``pile`` a recycle takes (R-SPEED-1): the counted cards under the referee's
        top, its last counted card.  Cards the lamps rejected (their owners are about to take them
        back) and cards not judged yet stay on the pile: players at a real table leave the top they
        play on and do not shuffle a card that does not count into the side piles."""
        entries = self.piles[pile]
        counted = [e for e in entries if e[2] == S_IN]
        return counted[:-1]

    def recycle(self):
        """R-SPEED-1: the center piles but their tops become the side piles (shuffled)."""
        cards = []
        for p in range(self.npiles):
            gone = self.recycled_entries(p)
            for e in gone:
                cards.append(e[0])
            if gone:
                self.piles[p] = [e for e in self.piles[p] if not any(e is g for g in gone)]
        self.rng.shuffle(cards)
        half = (len(cards) + 1) // 2
        self.seats[0].spit = cards[:half]
        self.seats[1].spit = cards[half:]
        return len(cards)

    def take_spit(self, player):
        """The player's next spit card (from the middle at the first speed flip), or -1."""
        seat = self.seats[player]
        if self.rules.mode == MODE_SPEED and seat.middle:
            seat.carry += 1
            return seat.middle.pop(), SRC_MIDDLE
        if not seat.spit:
            return -1, SRC_SPIT
        seat.carry += 1
        return seat.spit.pop(), SRC_SPIT
