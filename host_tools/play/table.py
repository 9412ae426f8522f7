"""The table two people play on: the simulation's table and firmware ports with hands, not bots.

``PlayTable`` is the simulated table of `spit sim` (``host_tools.sim``: the real deal, stocks, spit
piles, cards carried across rounds) driving the real firmware on the virtual board (``vboard``) or
flashed onto the emulated Pico (``rp2``), with two changes: the players are people (their keys land
cards, press STUCK/READY and the slap pads), and the table does only what hands do without choosing:
a card the referee rejects goes back where it came from, the spit cards are flipped when the
countdown ends, won piles are handed out and the next round is laid out.  Everything else (READY,
STUCK, slaps, a question's answer: pad presses then STUCK, docs/hardware.md) is the people's keys,
reaching the firmware as button presses at the pins.

Table time is microseconds since the session started; ``advance(t)`` runs the table and the
firmware up to ``t`` (the terminal follows the wall clock).
"""

import heapq

from spit import verdicts as V
from spit.intake import EV_STUCK, EV_SLAP, EV_READY
from spit.rules import fits, make_ruleset, MODE_TABLEAU, MODE_OWN_DECK, MODE_SPEED
from spit.words import verdict_dict
from host_tools.sim.bots import Bot, SKILLS
from host_tools.sim.run import Sim, Result

MS = 1000
SEC = 1000000
PRESS_US = 60 * MS       # a button press, as the simulation's (host_tools/sim/firmware.py)
HAND_US = 150 * MS       # the fastest a hand lands one card after another
ANSWER_JUDGED_US = 2 * PRESS_US + 130 * MS   # a STUCK press -> its release judged (debounce, reorder)


class Hands(Bot):
    """A person's hands: never plays by itself (``wake`` and ``notice`` do nothing); its timing
    is used only for what the table does for them (flipping spit cards, taking a card back)."""

    def notice(self, t):
        pass

    def wake(self, t, _arg):
        pass


class PlaySim(Sim):
    """``Sim`` with people: no automatic READY, slaps or answers, no watchdog ending a quiet game."""

    def __init__(self, rules, seed, port_factory, on_verdict=None):
        self.on_any_verdict = on_verdict
        Sim.__init__(self, rules, seed, ("steady", "steady"), None, 24 * 60, True, port_factory, None)
        bots = self.bots
        self.bots = [Hands(p, SKILLS["steady"], bots[p].rng, self) for p in range(2)]
        # Anything the bots scheduled for themselves while the firmware booted is dropped.
        self.heap = [e for e in self.heap if getattr(e[2], "__self__", None) not in bots]
        heapq.heapify(self.heap)

    def on_verdict(self, code, t, a, b, c, d):
        Sim.on_verdict(self, code, t, a, b, c, d)
        if self.on_any_verdict is not None:
            self.on_any_verdict(code, t, a, b, c, d)

    def _watchdog(self, t, _arg):
        pass            # people may think for as long as they like

    def _slap(self, t, player):
        pass            # people slap with their keys

    def _answer(self, t, arg):
        pass            # people answer with the pads and STUCK

    def feed(self, t, ev):
        Sim.feed(self, t, ev)
        if ev[0] == EV_STUCK and self.phase == "question" and self.end_reason == V.R_BLOCKED:
            # A STUCK press ends an answer (docs/hardware.md).  Once the referee has it, a blocked
            # round's slaps open (R-ROUND-2, -3) without a word of its own: only a bad_answer
            # error says it was refused.  Look again once the press is judged.
            self.at(t + ANSWER_JUDGED_US, self._answered, self.errors.get("bad_answer", 0))

    def _answered(self, t, refused_before):
        if self.phase == "question" and self.errors.get("bad_answer", 0) == refused_before:
            self.phase = "slap"

    def _round_over(self, t, _arg):
        Sim._round_over(self, t, _arg)
        # The next round is laid out; READY is the people's to press.
        self.heap = [e for e in self.heap if not (e[2] == self.feed and e[3][0] == EV_READY)]
        heapq.heapify(self.heap)

    def step_until(self, t):
        """Run every table event due up to ``t`` and the firmware to ``t`` (``Sim.run``'s loop)."""
        heap = self.heap
        sync = self.port.sync
        while heap and heap[0][0] <= t and not self.over:
            te, _seq, fn, arg = heapq.heappop(heap)
            if te > self.now:
                self.now = te
            sync(self.now)
            self._dispatch()
            if self.over:
                break
            fn(self.now, arg)
        if t > self.now:          # (after the game too: the LEDs and the buzzer go on)
            self.now = t
            sync(t)
            self._dispatch()

    def finish(self):
        """End the session (the firmware writes its log out) and return the ``Result``."""
        if not self.over:
            self.end_t = self.now
        self.port.close(self.now + self.rules.reorder_us + 1)
        self._dispatch()
        return Result(self)


def vboard_port(sim, counts, rng, extra):
    from host_tools.sim.firmware import FirmwarePort
    return FirmwarePort(sim, sim.rules, counts)


def rp2_port(sim, counts, rng, extra):
    from host_tools.sim.rp2 import Rp2Port
    return Rp2Port(sim, sim.rules, counts)


class PlayTable:
    """The game two people play: their actions, what the table shows, the referee's words."""

    def __init__(self, ruleset="classic", options=None, seed=1, board="vboard", port_factory=None):
        self.rules = make_ruleset(ruleset, options)
        self.board_kind = board
        self.said = []           # (t_us, verdict name, fields dict): the referee's verdicts so far
        self.notes = []          # what the table did or refused, for the screen: (t_us, text)
        self.picked = [None, None]   # a player's chosen source (index) waiting for a pile key
        self._free = {}              # player -> table time their hand can press a button again
        self._hand_free = {}         # player -> table time their hand can land the next card
        factory = port_factory or (rp2_port if board == "rp2" else vboard_port)
        self.sim = PlaySim(self.rules, seed, factory, self._verdict)

    # ---- time ---------------------------------------------------------------------------------
    @property
    def now(self):
        return self.sim.now

    @property
    def over(self):
        return self.sim.over

    def advance(self, t):
        self.sim.step_until(t)

    def _verdict(self, code, t, a, b, c, d):
        f = verdict_dict(code, t // MS, t % MS, a, b, c, d)
        self.said.append((t, f["verdict"], f))
        if len(self.said) > 400:
            del self.said[:100]

    def note(self, text):
        self.notes.append((self.now, text))
        if len(self.notes) > 50:
            del self.notes[:10]

    # ---- what a player can see and play ------------------------------------------------------
    def sources(self, player):
        """The player's face-up cards by position: ``[card or -1]`` (tableau stocks, the speed
        hand, the own-deck row); -1 is an empty place."""
        seat = self.sim.table.seats[player]
        mode = self.rules.mode
        if mode == MODE_TABLEAU:
            return [s[-1] if s else -1 for s in seat.stocks]
        if mode == MODE_SPEED:
            return list(seat.hand)
        if mode == MODE_OWN_DECK:
            return list(seat.row)
        return []

    def _src_key(self, player, index):
        """The table's source id for position ``index`` (a stock or row index, or the hand)."""
        from host_tools.sim.game import SRC_HAND
        return SRC_HAND if self.rules.mode == MODE_SPEED else index

    def piles(self):
        return self.sim.table.npiles

    def tops(self):
        """``[(card, rank)]`` per pile as the players see it (card -1: empty)."""
        table = self.sim.table
        return [table.top(p) for p in range(table.npiles)]

    def fits(self, pile, card):
        card_top, rank = self.tops()[pile]
        return card_top >= 0 and fits(self.rules, card_top, rank, card)

    # ---- actions ------------------------------------------------------------------------------
    def pick(self, player, index):
        """Choose the card at position ``index`` for the next pile key."""
        srcs = self.sources(player)
        if not 0 <= index < len(srcs) or srcs[index] == -1:
            self.picked[player] = None
            self.note("player %d: no card at place %d" % (player, index + 1))
            return False
        self.picked[player] = index
        return True

    def land_picked(self, player, pile):
        index = self.picked[player]
        self.picked[player] = None
        if index is None:
            self.note("player %d: pick a card first" % player)
            return False
        return self.land(player, index, pile)

    def land(self, player, index, pile):
        """The card at ``index`` of ``player``'s face-up cards lands on ``pile`` now."""
        sim = self.sim
        srcs = self.sources(player)
        if not 0 <= pile < sim.table.npiles:
            self.note("there is no pile %d" % pile)
            return False
        if not 0 <= index < len(srcs) or srcs[index] == -1:
            self.note("player %d: no card at place %d" % (player, index + 1))
            return False
        card = srcs[index]
        bot = sim.bots[player]
        src = self._src_key(player, index)
        aimed = sim.table.top(pile)[0]
        bot.take(src, card)
        sim.table.seats[player].pending += 1
        # One hand moves one card at a time: keys typed faster than that land one after the other.
        t = max(self.now, self._hand_free.get(player, 0))
        self._hand_free[player] = t + HAND_US
        bot.last_land = t
        sim.throw(t, player, pile, card, src, False, aimed)
        return True

    def land_by_name(self, player, name, pile):
        """Land the face-up card called ``name`` ("7H", "10S", "Jk") of ``player`` on ``pile``."""
        from spit.cards import parse_card
        try:
            card = parse_card(name)
        except (ValueError, KeyError):
            self.note("%r names no card" % name)
            return False
        srcs = self.sources(player)
        if card not in srcs:
            self.note("player %d has no %s face up" % (player, name))
            return False
        return self.land(player, srcs.index(card), pile)

    def fill_gap(self, player):
        """R-PLAY-7: the top card of the player's biggest stock moves to an empty stock place."""
        if self.rules.mode != MODE_TABLEAU:
            return False
        stocks = self.sim.table.seats[player].stocks
        empty = [i for i in range(len(stocks)) if not stocks[i]]
        donors = [i for i in range(len(stocks)) if len(stocks[i]) >= 2]
        if not empty or not donors:
            self.note("player %d: no gap to fill" % player)
            return False
        donor = max(donors, key=lambda i: len(stocks[i]))
        stocks[empty[0]].append(stocks[donor].pop())
        return True

    def _press(self, player, button, ev):
        """A press of one of ``player``'s buttons.  Keys typed faster than a hand can press a
        button are pressed one after the other (a press holds it PRESS_US, a release as long),
        and so are the buttons of one hand (an answer: the pad N times, then STUCK)."""
        t = max(self.now, self._free.get(player, 0))
        self._free[player] = t + 2 * PRESS_US
        self.sim.at(t, self.sim.feed, ev)

    def stuck(self, player):
        """The player's STUCK button (also READY, and the end of an answer)."""
        self._press(player, "stuck", (EV_STUCK, player, 0, 0))

    def pad(self, player, pile):
        """The player's slap pad of ``pile`` (a slap, or one unit of an answer)."""
        if not 0 <= pile < self.sim.table.npiles:
            return False
        self._press(player, ("slap", pile), (EV_SLAP, player, pile, 0))
        return True

    # ---- the end --------------------------------------------------------------------------------
    def finish(self):
        """End the session: the firmware closes its log; ``Result.lines`` is the log read off the
        board (the virtual board's flash, or `spit logs pull` from the emulated Pico)."""
        return self.sim.finish()

    def phase(self):
        """What the people are doing now, in words."""
        return self.sim.phase

    def question(self):
        """The open question's fields while the referee waits for its answer, else None (a card
        judged meanwhile, an early one say, does not close it; the answer does)."""
        if self.sim.phase != "question":
            return None
        for _t, name, f in reversed(self.said):
            if name == "question":
                return f
            if name in ("pile_won", "round_start", "game_over"):
                return None
        return None
