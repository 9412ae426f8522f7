"""The players' side of the referee's verdicts in a simulated game: they obey them as they would the lamps.

:class:`VerdictReactions` is mixed into :class:`host_tools.sim.run.Sim`: ``on_verdict`` counts each
verdict in the stats and makes the table follow it (keep or take back a card, put a missed read right,
flip spit cards after a countdown, answer a question, hand out the piles, lay out the next round).  It
works on the simulation's state (``table``, ``bots``, ``port``, ``stats``, ``notes``, ``phase``) and
through its event queue (``at``, ``feed``, ``_changed``, ``_slap``), which ``Sim`` provides.  Plain
Python that also runs under the MicroPython unix port.
"""

from spit import verdicts as V
from spit.intake import EV_READY, EV_ANSWER, EV_TOP
from spit.notation import ERROR_NAMES
from spit.rules import MODE_OWN_DECK, MODE_SPEED, SLAP_BOTH
from spit.verdicts import REASON_NAMES
from host_tools.sim.game import SRC_SPIT, SRC_MIDDLE, S_IN, S_PENDING

MS = 1000


class VerdictReactions:
    """What the players do when the referee speaks (see the module docstring)."""

    def on_verdict(self, code, t, a, b, c, d):
        st = self.stats
        now = self.now
        table = self.table
        if code == V.V_ACCEPT or code == V.V_SPIT:
            entry = table.find(a, b, c if self.rules.mode == MODE_OWN_DECK else -1)
            if entry is None:
                self.notes.append("t=%d: %s of a card not on pile %d" % (t, "accept" if code == V.V_ACCEPT else "spit", a))
                return
            if code == V.V_SPIT and c >= 0 and c != entry[1]:
                self.notes.append("t=%d: spit card of player %d counted for player %d" % (t, entry[1], c))
            table.keep(now, a, entry)
            seat = table.seats[entry[1]]
            seat.pending -= 1
            if code == V.V_ACCEPT:
                st["plays"] += 1
                if d >= 0:
                    st["races"] += 1
                self.bots[entry[1]].accepted()
            self._changed(now)
        elif code == V.V_ILLEGAL or code == V.V_LATE or code == V.V_EARLY:
            st["illegal" if code == V.V_ILLEGAL else "late" if code == V.V_LATE else "early"] += 1
            if code == V.V_LATE:
                st["races"] += 1
            entry = table.find(a, b, -1)
            if entry is None:
                return
            table.reject(now, a, entry)
            owner = self.bots[entry[1]]
            table.seats[entry[1]].pending -= 1
            owner.rejected_card(now, b, a, entry[5])
            self.at(now + owner.reaction(), self._take_back, (a, entry))
        elif code == V.V_TIE:
            st["ties"] += 1
        elif code == V.V_COUNTDOWN:
            self._countdown(t, a)
        elif code == V.V_SPIT_CALL:
            st["spit_calls"] += 1
        elif code == V.V_ROUND_START:
            st["rounds"] += 1
            if [b, c] != list(self.expected):
                self.notes.append("round %d: referee counts %d|%d, table %d|%d" % (a, b, c, self.expected[0],
                                                                                 self.expected[1]))
        elif code == V.V_ROUND_END:
            self.phase = "slap"
            self.end_reason = a
        elif code == V.V_QUESTION:
            self.phase = "question"
            self.at(now + self.bots[b].rng.between(2000, 4000) * MS, self._answer, (b, c, a))
        elif code == V.V_PILE_WON:
            self._lift_all(b, True)
            n = table.hand_out(b, a)
            if n != c:
                self.notes.append("t=%d: pile %d has %d cards, referee says %d" % (t, b, n, c))
            if not self.round_closing:
                self.round_closing = True
                self.at(now + 1500 * MS, self._round_over, 0)
        elif code == V.V_GAME_OVER:
            self.over = True
            self.phase = "over"
            self.winner = a
            self.reason = REASON_NAMES[b]
            self.end_t = t
        elif code == V.V_ERROR:
            st["errors"] += 1
            name = ERROR_NAMES[a] if 0 <= a < len(ERROR_NAMES) else str(a)
            self.errors[name] = self.errors.get(name, 0) + 1
            if a == V.E_NO_READ:
                self._unread(b)
            elif a == V.E_SLAP_EARLY and self.phase == "slap":
                self.phase = "play"
                self._changed(now)
        elif code == V.V_RECYCLE:
            # R-SPEED-1: the players take the center piles but their tops as new side piles
            # (the spit call's countdown follows this verdict).
            self._recycle()
            if a != self.recycled:
                self.notes.append("t=%d: recycle of %d cards, table had %d" % (t, a, self.recycled))

    recycled = 0
    out_player = -1   # who went out this round (the referee may ask)

    def _take_back(self, t, arg):
        pile, entry = arg
        table = self.table
        was_top = table.piles[pile] and table.piles[pile][-1] is entry
        if entry in table.piles[pile]:
            self.port.lift(t, pile, entry[0], entry[1])
        table.take_back(t, pile, entry)
        if entry[3] in (SRC_SPIT, SRC_MIDDLE) and self.phase == "play":
            table.awaiting[pile] = True
            self._spit_cards(t, entry[1], [pile])
        if was_top:
            self._changed(t)

    def _lift_all(self, pile, counted_only):
        """Cards leave a pile (handed out, cleared): their tags leave the reader's field."""
        entries = self.table.piles[pile] if 0 <= pile < self.table.npiles else ()
        for e in entries:
            if e[2] == S_IN or not counted_only:
                self.port.lift(self.now, pile, e[0], e[1])

    def _unread(self, pile):
        """A touch the readers missed: it counts; the player puts the card's identity right (``top``)."""
        entries = self.table.piles[pile] if 0 <= pile < self.table.npiles else ()
        flagged = False
        for e in entries:
            flagged = flagged or (e[4] and e[2] == S_PENDING)
        for e in entries:
            # Fast mode knows which read failed; firmware mode: the oldest card still waiting.
            if (e[4] or not flagged) and e[2] == S_PENDING:
                e[2] = S_IN
                self.table.seats[e[1]].pending -= 1
                bot = self.bots[e[1]]
                self.at(self.now + bot.reaction() + 800 * MS, self._correct, (pile, e))
                self._changed(self.now)
                return

    def _correct(self, t, arg):
        pile, entry = arg
        entries = self.table.piles[pile]
        if self.phase == "play" and entries and entries[-1] is entry:
            self.feed(t, (EV_TOP, pile, entry[0], 0))

    # --- spitting (R-PLAY-1, R-STALL-1) ---
    def _countdown(self, t0, cd_ms):
        self.phase = "countdown"
        self.cd_end = t0 + cd_ms * MS
        self._recycle()
        self.recycled = 0
        plan = self.table.plan_spit()
        self.at(self.cd_end, self._spit_now, plan)

    def _recycle(self):
        """Speed with both side piles empty: the center piles but their tops become them."""
        table = self.table
        if self.rules.mode == MODE_SPEED and not table.first_flip and not (table.seats[0].spit
                                                                     or table.seats[1].spit):
            for p in range(table.npiles):
                for e in table.recycled_entries(p):   # (their tags leave the reader's field)
                    self.port.lift(self.now, p, e[0], e[1])
            self.recycled = table.recycle()

    def _spit_now(self, t, plan):
        self.phase = "play"
        last = t
        for q in range(2):
            piles = [p for p in range(len(plan)) if plan[p] == q]
            if piles:
                last = max(last, self._spit_cards(t, q, piles))
        self.table.flipped()
        self.live_at = last + self.rules.slow_spit_ms * MS
        self._changed(t)

    def _spit_cards(self, t, q, piles):
        """Player ``q`` flips a spit card onto each of ``piles``, one after the other."""
        bot = self.bots[q]
        tq = t + bot.reaction()
        land = tq
        for p in piles:
            card, src = self.table.take_spit(q)
            if card < 0:
                continue
            land = tq + bot.move()
            table_seat = self.table.seats[q]
            table_seat.pending += 1
            self.throw(land, q, p, card, src, True)
            bot.last_land = land
            tq = land + 120 * MS
        bot.busy_until = max(bot.busy_until, tq)
        return land

    # --- questions, slaps, the next round ---
    def _answer(self, t, arg):
        player, most, ask = arg
        if ask == V.Q_WENT_OUT:   # both slapped: "did you go out?"
            self.feed(t, (EV_ANSWER, player, 1 if player == self.out_player else 0, 0))
            return
        value = self.table.seats[player].stock_count()
        if value > most:
            self.notes.append("t=%d: player %d holds %d stock cards, the referee allows %d" % (t, player, value, most))
            value = most
        self.feed(t, (EV_ANSWER, player, value, 0))
        if self.end_reason != V.R_BLOCKED or self.over:
            return
        if self.rules.slap == SLAP_BOTH:
            self._slap(t, 0)
            self._slap(t, 1)
        else:
            s0 = self.table.seats[0].stock_count()
            s1 = self.table.seats[1].stock_count()
            self._slap(t, 1 if s1 < s0 else 0)

    def _round_over(self, t, _arg):
        self.round_closing = False
        if self.over:
            return
        table = self.table
        for p in range(table.npiles):   # cards still out there go home with their owners
            self._lift_all(p, False)
            for e in table.piles[p]:
                table.seats[e[1]].cards.append(e[0])
            table.piles[p] = []
        table.gather()
        self.expected = table.counts()
        if table.total() != table.deck_size:
            self.notes.append("t=%d: %d cards on the table, deck has %d" % (t, table.total(), table.deck_size))
        table.layout()
        self.phase = "between"
        for bot in self.bots:
            bot.busy_until = 0
            self.at(t + bot.rng.between(6000, 12000) * MS, self.feed, (EV_READY, bot.player, 0, 0))
