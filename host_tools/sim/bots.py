"""Two bot players with a reaction-time model.

A bot sees only what a player sees: its own face-up cards (stock tops, speed hand, own-deck row)
and the center pile tops -- as they were ``LOOK_MS`` ago (perception lag), so two bots aiming at
the same pile within a few ms race, and a card chosen on a top that was just covered lands late,
all by themselves.  Timing per action: a simple reaction of about 190 ms when something changes,
plus the bot's decision time; moving a card to a pile takes ``move`` ms and turning the next
stock card up ``flip`` ms.  Errors: now and then a card that does not fit (misjudged rank), a
slow realisation of being stuck, and (slow spit) playing before the wait is over.

Bots act through the simulation (``host_tools.sim.run.Sim``): ``sim.throw`` (a card leaves the
hand and lands later), ``sim.press``, ``sim.at`` (schedule).  Times are integer microseconds.
Plain Python, MicroPython-compatible.
"""

from spit.rules import fits, MODE_TABLEAU, MODE_OWN_DECK, MODE_SPEED, END_STOCKS_AND_SPIT
from host_tools.sim.game import SRC_HAND

MS = 1000
LOOK_MS = 90            # perception lag: a look shows the table as it was this long ago
REACTION_MS = (170, 215)  # simple reaction time (~190 ms)


class Skill:
    """Per-bot timing (ms ranges) and error rates (per mille)."""

    def __init__(self, name, decide, move, flip, illegal_pm, slow_stuck_pm, eager_pm):
        self.name = name
        self.decide = decide          # choosing a card once the bot looks
        self.move = move              # hand to pile
        self.flip = flip              # turning the next stock card face up (R-PLAY-6)
        self.illegal_pm = illegal_pm  # a play that does not fit (misjudged rank)
        self.slow_stuck_pm = slow_stuck_pm   # realises late (0.5-3 s) that nothing fits
        self.eager_pm = eager_pm      # slow spit: plays before the wait is over (R-STALL-3)


SKILLS = {
    "quick": Skill("quick", (70, 160), (170, 260), (110, 170), 6, 100, 30),
    "steady": Skill("steady", (110, 240), (200, 320), (130, 200), 10, 200, 15),
    "novice": Skill("novice", (220, 480), (260, 420), (160, 260), 35, 350, 60),
}


class Bot:
    def __init__(self, player, skill, rng, sim):
        self.player = player
        self.skill = skill
        self.rng = rng
        self.sim = sim
        self.table = sim.table
        self.rules = sim.rules
        self.seat = sim.table.seats[player]
        self.busy_until = 0
        self.last_land = 0
        self.pressed_stuck = False
        self.token = 0
        self.rejected = {}        # (card, pile, top) -> True: do not try that again on that top
        self.plays = 0
        self.illegal_tries = 0

    # --- timing ---
    def reaction(self):
        return self.rng.between(REACTION_MS[0], REACTION_MS[1]) * MS

    def decide(self):
        return self.rng.between(self.skill.decide[0], self.skill.decide[1]) * MS

    def move(self):
        return self.rng.between(self.skill.move[0], self.skill.move[1]) * MS + self.rng.below(MS)

    def notice(self, t):
        """Something on the table changed at ``t``: look again after a reaction."""
        self.pressed_stuck = False
        self.token += 1   # a STUCK press still to come is reconsidered
        self.sim.at(t + self.reaction() + self.decide(), self.wake, 0)

    # --- what the bot can play ---
    def sources(self):
        """``[(src, card)]``: the bot's face-up playable cards."""
        seat = self.seat
        mode = self.rules.mode
        out = []
        if mode == MODE_TABLEAU:
            for i in range(len(seat.stocks)):
                s = seat.stocks[i]
                if s:
                    out.append((i, s[-1]))
        elif mode == MODE_SPEED:
            for c in seat.hand:
                out.append((SRC_HAND, c))
        else:
            for i in range(len(seat.row)):
                if seat.row[i] != -1:
                    out.append((i, seat.row[i]))
        return out

    def take(self, src, card):
        seat = self.seat
        seat.carry += 1
        if src == SRC_HAND:
            seat.hand.remove(card)
        elif self.rules.mode == MODE_OWN_DECK:
            seat.row[src] = -1
        else:
            seat.stocks[src].pop()

    def is_out(self):
        """Nothing left to play that going out requires (R-ROUND-1/2, R-SPEED-1)."""
        seat = self.seat
        mode = self.rules.mode
        if mode == MODE_OWN_DECK:
            return False   # R-OWN-1 ends by itself with the last card
        if mode == MODE_SPEED:
            return not seat.hand and not seat.stock
        for s in seat.stocks:
            if s:
                return False
        return not (self.rules.round_end == END_STOCKS_AND_SPIT and seat.spit)

    # --- one look at the table ---
    def wake(self, t, _arg):
        sim = self.sim
        if sim.phase != "play" or t < self.busy_until:
            return
        table = self.table
        if self.rules.slow_spit_ms and t < sim.live_at + self.skill.decide[0] * MS:
            if not self.rng.chance(self.skill.eager_pm):
                self.sim.at(sim.live_at + self.reaction(), self.wake, 0)
                return
        seen = t - LOOK_MS * MS
        if seen <= self.last_land:
            seen = self.last_land   # the bot saw its own card land
        spitting = True in table.awaiting
        tops = []
        for p in range(table.npiles):
            if table.awaiting[p]:
                tops.append(None)
            else:
                tops.append(table.seen_top(p, seen))
        srcs = self.sources()
        good = []
        bad = []
        for src, card in srcs:
            for p in range(table.npiles):
                top = tops[p]
                if top is None or top[0] < 0:
                    continue
                if fits(self.rules, top[0], top[1], card):
                    if (card, p, top[0]) not in self.rejected:
                        good.append((src, card, p, top[0]))
                else:
                    bad.append((src, card, p, top[0]))
        if bad and self.rng.chance(self.skill.illegal_pm):
            self.illegal_tries += 1
            self.play(t, bad[self.rng.below(len(bad))])
            return
        if good:
            self.play(t, self.pick(good))
            return
        if self.seat.pending or self.seat.carry:
            return   # wait for the verdict on the card still out there
        if self.rules.mode == MODE_TABLEAU and self.fill_gap(t):
            return
        if self.is_out():
            sim.go_out(t, self.player)
            return
        if not self.pressed_stuck and not spitting:
            self.pressed_stuck = True
            delay = self.reaction()
            if self.rng.chance(self.skill.slow_stuck_pm):
                delay += self.rng.between(500, 3000) * MS
            sim.at(t + delay, self._press_stuck, self.token)

    def _press_stuck(self, t, token):
        """R-STALL-1: press STUCK -- unless something changed since the bot decided to."""
        if token == self.token and self.sim.phase == "play":
            self.sim.press_stuck(t, self.player)

    def pick(self, good):
        """Tableau: prefer the fullest stock (it turns up a new card); else any."""
        if self.rules.mode != MODE_TABLEAU:
            return good[self.rng.below(len(good))]
        best = []
        most = -1
        for g in good:
            n = len(self.seat.stocks[g[0]])
            if n > most:
                best = [g]
                most = n
            elif n == most:
                best.append(g)
        return best[self.rng.below(len(best))]

    def play(self, t, choice):
        src, card, pile, aimed = choice
        self.token += 1
        self.take(src, card)
        land = t + self.move()
        self.seat.pending += 1
        self.plays += 1
        self.last_land = land
        flip = 60 * MS   # letting go of the card
        if self.rules.mode == MODE_TABLEAU:
            flip = self.rng.between(self.skill.flip[0], self.skill.flip[1]) * MS
        self.busy_until = land + flip
        self.sim.throw(land, self.player, pile, card, src, False, aimed)
        self.sim.at(self.busy_until + self.decide(), self.wake, 0)

    def fill_gap(self, t):
        """R-PLAY-7: move a face-up top card into an empty stock slot to turn up the card below."""
        stocks = self.seat.stocks
        empty = -1
        donor = -1
        for i in range(len(stocks)):
            if not stocks[i]:
                if empty < 0:
                    empty = i
            elif len(stocks[i]) >= 2 and (donor < 0 or len(stocks[i]) > len(stocks[donor])):
                donor = i
        if empty < 0 or donor < 0:
            return False
        stocks[empty].append(stocks[donor].pop())
        self.busy_until = t + self.move() + self.rng.between(self.skill.flip[0], self.skill.flip[1]) * MS
        self.sim.at(self.busy_until + self.decide(), self.wake, 0)
        return True

    # --- reacting to the referee ---
    def rejected_card(self, t, card, pile, top):
        """The lamp says our card does not count: take it back after a reaction."""
        self.rejected[(card, pile, top)] = True
        if len(self.rejected) > 64:
            self.rejected = {}
        self.busy_until = max(self.busy_until, t + self.reaction() + 150 * MS)

    def accepted(self):
        """Speed: draw up to five; own deck: refill the row from the deck (R-SPEED-1, R-OWN-1)."""
        seat = self.seat
        if self.rules.mode == MODE_SPEED:
            while len(seat.hand) + seat.pending < 5 and seat.stock:
                seat.hand.append(seat.stock.pop())
        elif self.rules.mode == MODE_OWN_DECK:
            for i in range(len(seat.row)):
                if seat.row[i] == -1 and seat.spit:
                    seat.row[i] = seat.spit.pop()
