"""The referee: a state machine fed timestamped input events, emitting verdicts.

Feed it events (``feed(kind, ms, us, a, b, c)``, kinds ``intake.EV_*``) in any order close to
their time; it orders them (``intake.EventQueue``), judges plays (R-PLAY-*), stalemates and spit calls (R-STALL-*),
round ends and slaps (R-ROUND-*) and game ends (R-GAME-*), and reports every verdict as small
ints to ``sink(code, t_ms, t_us, a, b, c, d)`` (see ``verdicts``) while keeping
``intents`` (LED zones) up to date.  What it cannot see it asks for with a ``question``
verdict, answered by an ``answer`` event.  Round settlement lives in ``settle.py``.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


from spit.intake import EventQueue
from spit.legal import fits
from spit.settle import Settlement
from spit.corrections import Corrections

PH_COUNTDOWN = const(0)  # R-PLAY-1: "one, two, three, SPIT"; cards now are early
PH_PLAY = const(1)       # spit cards, then free play
PH_SLAP = const(2)       # R-ROUND-3/4: a player went out, piles are being claimed
PH_QUESTION = const(3)   # waiting for the players' answer
PH_BETWEEN = const(4)    # between rounds: waiting for both READY
PH_OVER = const(5)

_HIST = const(32)        # cards remembered per pile (for undo and "late": docs/log-format.md)
_HIST_MASK = const(31)
# A history entry: card | _SPIT_BIT if a spit card | (player + 1) << 7 | rank << 9, the rank
# the pile's top counted as after that landing (top_rank).
_SPIT_BIT = const(64)
# After a countdown its spit cards are due within this; later, both STUCK end the wait (a card
# never read is put right by then: docs/rules.md, "a spit card that never comes").
_SPIT_DUE_MS = const(5000)
_RANK_SHIFT = const(9)

# Copies of other modules' codes, inlined by the compiler (const() is inlined per module
# only: an imported name is a global lookup per use, and a name in this module's table).
# _NEVER_T: land_t of a pile with no landing to race against (round start, undo, top):
# intake._FLOOR, further back than any judged time (a real landing is kept above it,
# _rebase), so that a difference from it is over 500 s and still a small int.
# generated from spit.verdicts, spit.intake, spit.legal, spit.rules, spit.cards, spit.timebase by
#   scripts/gen_consts.py: do not edit
_V_ACCEPT = const(1)
_V_ILLEGAL = const(2)
_V_LATE = const(3)
_V_TIE = const(4)
_V_EARLY = const(5)
_V_SPIT_CALL = const(6)
_V_SPIT = const(7)
_V_ERROR = const(11)
_V_STUCK = const(12)
_V_COUNTDOWN = const(14)
_V_ROUND_START = const(15)
_V_RECYCLE = const(16)
_R_NO_CARDS = const(5)            # R-GAME-1/2/3: the player who went out has no cards left
_E_UNKNOWN_CARD = const(0)        # a card code / tag that names no card
_E_BAD_PILE = const(1)            # a pile number the table does not have
_E_BAD_PLAYER = const(2)
_E_NO_READ = const(4)             # a touch on a pile with no card read after it (misread?)
_E_DUPLICATE = const(5)           # a second copy of a card already in the center this round
_E_UNEXPECTED = const(7)          # an event that has no meaning in the current phase
_E_LATE_EVENT = const(9)          # an event that arrived after later ones were already judged
_E_NO_OWNER = const(12)           # own-deck game: a card event without its player
_EV_TOUCH = const(1)              # a: pile
_EV_CARD = const(2)               # a: pile, b: card, c: player (-1 unknown); e: the read's evidence (below)
_EV_STUCK = const(3)              # a: player
_EV_SLAP = const(4)               # a: player, b: pile
_EV_READY = const(5)              # a: player
_EV_UNDO = const(6)               # a: pile                 (correction: take back the last card)
_EV_TOP = const(7)                # a: pile, b: card        (correction: the top card really is ...)
_EV_ANSWER = const(8)             # a: player, b: value     (answer to the referee's question)
_EV_NO_READ = const(11)           # a touch no card read claimed; a: pile
_EV_OFF_TABLE = const(12)         # a card read on a pile the table does not have (as EV_CARD)
_NEVER_T = const(-0x20000000)     # spit.intake _FLOOR: times further back are clamped here: "long ago" (and "never")
_F_LATE = const(1)                # _process flag: arrived after later events were judged
_F_TIED = const(2)                # _process flag: cannot be ordered against the previous landing on its pile
_F_ORDERED = const(4)             # a card read the evidence orders after the previous landing on its pile
_AS_CARD = const(64)
_MODE_OWN_DECK = const(1)
_MODE_TABLEAU = const(0)          # one shared deck, stocks + spit pile (000, 001, 002)
_MODE_SPEED = const(2)            # R-SPEED-1: hands of five, side piles (002 names it)
_JOKER_ANY = const(0)             # anything may be played on a joker
_JOKER = const(0)
_SATURATED_US = const(500000000)  # 500 s: |differences| are clamped here
# end generated


class Referee(EventQueue, Settlement, Corrections):
    # The loop's entry points in this class's own table: MicroPython looks a method up in the
    # instance, then in each class in turn (about 4.6 us per class on the RP2040).
    feed = EventQueue.feed
    advance = EventQueue.advance

    def __init__(self, rules, counts=None, sink=None, intents=None):
        # The loop calls advance every step and quiet after each read.  MicroPython looks a
        # method up in the instance's attributes first, and this instance has about 80 of them
        # in 97 slots found by one-byte name hashes: "advance" missed there only after a run of
        # 32 full slots (15 us on the chip), "quiet" after 7.  Their bound methods (made once)
        # set first, before the other attributes, take their own slots: found at the first probe.
        self.advance = self.advance
        self.quiet = self.quiet
        self.feed = self.feed   # (likewise: the loop feeds every touch and card read)
        n = rules.piles
        EventQueue.__init__(self, n, rules.reorder_us, rules.touch_match_us, rules.relist_us)
        self.rules = rules
        # Option values the per-card path reads (one attribute lookup instead of two).
        self._own_deck = rules.mode == _MODE_OWN_DECK
        self._tie_window = rules.tie_window_us
        self._race_window = rules.race_window_us
        self._slow_spit = rules.slow_spit_ms > 0
        # _steps[top_rank] >> rank & 1: a card of that rank (not a joker) goes on that rank
        # (fits(), R-CARD-2/3, precomputed): bit r of entry top_rank is set when a card of rank
        # r (1..13) goes on a top that counts as top_rank (1..13); all 0 when the colours matter
        # too (R-CARD-5: fits() decides every card).
        # (With the colour rule a joker's top_rank may be a whole card | _AS_CARD, up to 127.)
        steps = [0] * (128 if rules.alternate_colours else 14)
        if not rules.alternate_colours:
            for top in range(1, 14):
                for r in range(1, 14):
                    if fits(rules, top, top, r):   # (top: that rank's card of suit 0)
                        steps[top] |= 1 << r
        self._steps = steps
        self._joker_any = rules.joker_next == _JOKER_ANY
        # R-CARD-4 as_below with R-CARD-5: a joker keeps the whole card it covers (its colour too).
        self._joker_card = rules.alternate_colours and not self._joker_any
        self.sink = sink
        self.intents = intents   # a spit.intents.LedIntents, or None (no LEDs); set once, here
        # Its on_accept as a plain function in the instance (called with the intents): found
        # at once, where a method is looked for in the intents' instance first (see intake.py).
        self._on_accept_fn = None if intents is None else type(intents).on_accept
        if counts is None:
            counts = rules.default_counts()
        self.cards = [counts[0], counts[1]]   # each player's cards at the start of a round
        # Piles.
        # (Lists of small ints, as in intake.py: quicker to index than arrays on the RP2040.)
        self.top = [-1] * n          # top card (-1: empty)
        self.top_rank = [0] * n      # the rank the top counts as (0: wild joker)
        self.size = [0] * n
        # Time of the last landing (for races and ties) in the intake's units (EventQueue._done,
        # the judged time: one small int, moved with the intake's base by _rebase).
        self.land_t = [_NEVER_T] * n
        self.need_spit = [0] * n
        self.spitter = [-1] * n
        # History entries (see _SPIT_BIT), for undo and "late": pile p's ring of _HIST from
        # p * _HIST, written at size[p] (the card now k-th from the bottom at k - 1).
        self._hist = [0] * (n * _HIST)
        # The undo floor: an undo never takes back a card below it (corrections.py: at most the
        # pile's last _UNDO_MAX cards; the ring keeps the card under them too).
        self._hist_lo = [0] * n
        # Players.
        self.stock_start = [0, 0]    # tableau cards at round start (R-SETUP-2/3/4)
        self.spit_left = [0, 0]      # cards left in the spit pile (or own deck, or side pile)
        self.stock_left = [0, 0]     # filled at round end
        self.left = [0, 0]           # own-deck: cards not yet played to the center
        self.stuck = [False, False]
        self.ready = [False, False]
        self.score = [0, 0]
        self._seen = bytearray(128)  # cards in the center this round, per deck owner (_clear_seen)
        self.round = 0
        self.phase = PH_COUNTDOWN
        self.played = 0              # accepted plays this round (not spit cards)
        # Per pile, touches with no card read this round: cards played all the same, in the
        # pile its taker gets (R-ROUND-5).
        self.unread = [0] * n
        self.single_pile = -1        # R-STALL-2: the only pile still spat on
        self.flips = 0
        self.first_flip = True       # speed: the first flip uses the two middle cards
        self.cd_ms = 0               # countdown end
        self.cd_us = 0
        self.live_ms = 0             # slow spit: play allowed from here (R-STALL-3)
        self.live_us = 0
        self.winner = -1
        self.over_reason = -1
        self.timer_due = False
        Settlement.__init__(self)
        self._start_round(0, 0)

    # --- public (session time in ms + us within the ms; events go in through ``feed``) ---
    def report(self, ms, us, reason, pile, value):
        """An error seen outside the engine (unknown tag, dead reader): flag it at once."""
        self._emit(_V_ERROR, ms, us, reason, pile, value, -1)

    # --- internals ---
    def _emit(self, code, ms, us, a, b, c, d):
        if self.intents is not None:
            self.intents.on_verdict(code, ms, a, b, c)
        sink = self.sink
        if sink is not None:
            sink(code, ms, us, a, b, c, d)

    def _start_round(self, ms, us):
        rules = self.rules
        mode = rules.mode
        self.round += 1
        for p in range(self.npiles):
            self.top[p] = -1
            self.top_rank[p] = 0
            self.size[p] = 0
            self.land_t[p] = _NEVER_T
            self._hist_lo[p] = 0
            # A spit card still awaited (a spit call cut short by the round's end, or taken
            # back by an undo) belongs to the old round: the new countdown plans afresh.
            self.need_spit[p] = 0
            self.spitter[p] = -1
            self.unread[p] = 0
        self._clear_seen()
        for p in range(2):   # (stuck: cleared by _countdown below)
            c = self.cards[p]
            self.ready[p] = False
            if mode == _MODE_TABLEAU:
                # R-SETUP-2/3/4: stocks first, the rest is the spit pile.
                s = c if c < rules.stock_cards else rules.stock_cards
                self.stock_start[p] = s
                self.spit_left[p] = c - s
            elif mode == _MODE_OWN_DECK:
                self.left[p] = c
            else:
                self.stock_start[p] = c
                self.spit_left[p] = rules.speed_side
        self.played = 0
        self.single_pile = -1
        self.flips = 0
        self._emit(_V_ROUND_START, ms, us, self.round, self.cards[0], self.cards[1], -1)
        self._countdown(ms, us)

    def _clear_seen(self):
        """No card in the center.  The codes that are no card (ranks 14 and 15, rank 0 but the
        joker) count as seen 255 times: _on_card's duplicate test sends them to _refuse_card."""
        seen = self._seen
        for i in range(128):
            r = i & 15
            seen[i] = 255 if r > 13 or (r == 0 and i & 48) else 0

    def _phase_to(self, phase):
        self.phase = phase
        # Time alone moves only a countdown, the slap window and the game timer.
        self._timed = phase == PH_COUNTDOWN or phase == PH_SLAP or (self.rules.timer_ms > 0 and phase != PH_OVER)

    def _countdown(self, ms, us):
        """R-PLAY-1 / R-STALL-1: a countdown, then the next card on each pile is its spit card."""
        self._phase_to(PH_COUNTDOWN)
        cd = self.rules.countdown_ms
        self.cd_ms = self.live_ms = ms + cd
        self.cd_us = self.live_us = us
        stuck = self.stuck
        stuck[0] = False
        stuck[1] = False
        self._emit(_V_COUNTDOWN, ms, us, cd, self.round, -1, -1)

    def _plan_spit(self, ms, us):
        """Decide who spits onto which pile at the coming flip.  Returns how many piles get a
        spit card (0: nobody can)."""
        rules = self.rules
        n = self.npiles
        spitter = self.spitter
        for p in range(n):
            spitter[p] = -1
        left = self.spit_left
        if rules.mode == _MODE_OWN_DECK:
            # R-OWN-1: a player spits while their deck (beyond the row) has cards.
            for p in range(2):
                if self.left[p] > rules.row:
                    spitter[p] = p
        elif rules.mode == _MODE_SPEED:
            if self.first_flip:
                spitter[0] = 0   # R-SPEED-1: the two single middle cards start the piles
                spitter[1] = 1
            else:
                if left[0] == 0 and left[1] == 0:
                    self._recycle(ms, us)
                for p in range(2):
                    if left[p] > 0:
                        spitter[p] = p
        elif self.single_pile >= 0:
            q = self.single_pile
            if left[q] > 0:
                spitter[q] = q
        elif left[0] > 0 and left[1] > 0:
            spitter[0] = 0
            spitter[1] = 1
            if n == 3:
                # R-STALL-4: the third pile is filled by the players in turn.
                k = self.flips % 2
                if left[k] >= 2:
                    spitter[2] = k
                elif left[1 - k] >= 2:
                    spitter[2] = 1 - k
        else:
            # R-STALL-2: only one player has spit cards: they spit alone, onto their pile.
            for q in range(2):
                if left[q] > 0:
                    self.single_pile = q
                    spitter[q] = q
        piles = 0
        for p in range(n):
            q = 1 if spitter[p] >= 0 else 0
            self.need_spit[p] = q
            piles += q
        if piles:
            self.flips += 1   # flips planned this round (the round's first flip included)
        return piles

    def _recycle(self, ms, us):
        # R-SPEED-1: the center piles but their top cards become the new side piles.
        # Those cards come back into play: only the tops stay seen (duplicate check).
        total = 0
        seen = self._seen
        self._clear_seen()
        hist = self._hist
        for p in range(self.npiles):
            n = self.size[p]
            if n > 1:
                total += n - 1
                self.size[p] = 1
                hist[p * _HIST] = hist[p * _HIST + ((n - 1) & _HIST_MASK)]   # the top's entry
                self._hist_lo[p] = 0
            t = self.top[p]
            if t >= 0:
                seen[t] += 1
        self.spit_left[0] = (total + 1) // 2
        self.spit_left[1] = total // 2
        self._emit(_V_RECYCLE, ms, us, total, -1, -1, -1)

    def _clock_to(self, ms, us):
        phase = self.phase
        # (Session times compare as spit.timebase.before does, written out: that module is
        # then not installed on the board.)
        if phase == PH_COUNTDOWN and (ms > self.cd_ms or (ms == self.cd_ms and us >= self.cd_us)):
            self._phase_to(PH_PLAY)
            if self.spit_done():
                self._plan_spit(ms, us)
            if self.intents is not None:
                self.intents.on_spit_now(self.cd_ms)
        elif phase == PH_SLAP and self.slap_deadline_ms >= 0 and ms >= self.slap_deadline_ms:
            self.assign_piles(self.slap_deadline_ms, 0)
        t = self.rules.timer_ms
        if t > 0 and ms >= t and not self.timer_due and self.phase != PH_OVER:
            self.timer_due = True   # R-GAME-6
            self.timer_expired(t, 0)

    def spit_done(self):
        """No pile is waiting for its spit card."""
        return 1 not in self.need_spit   # (need_spit holds 0 or 1 per pile)

    def _process(self, kind, ms, us, a, b, c, flags):
        if flags & _F_LATE:
            card = kind == _EV_CARD or kind == _EV_OFF_TABLE
            self._emit(_V_ERROR, ms, us, _E_LATE_EVENT, a if card else -1, -1, -1)
        if kind == _EV_CARD:
            self._on_card(ms, us, a, b, c, flags & (_F_TIED | _F_ORDERED))
        elif kind == _EV_OFF_TABLE:
            self._refuse_card(ms, us, a, b, c)   # a card read on a pile the table does not have
        elif kind == _EV_STUCK:
            self._on_stuck(ms, us, a)
        elif kind == _EV_SLAP:
            self._on_slap(ms, us, a, b)
        elif kind == _EV_READY:
            self._on_ready(ms, us, a)
        elif kind == _EV_NO_READ:
            if self.phase == PH_PLAY:
                self.unread[a] += 1   # (a: a pile of the table, as the touch's)
            self._emit(_V_ERROR, ms, us, _E_NO_READ, a, -1, -1)
        elif kind == _EV_UNDO:
            self._on_undo(ms, us, a)
        elif kind == _EV_TOP:
            self._on_top(ms, us, a, b)
        elif kind == _EV_ANSWER:
            self.on_answer(ms, us, a, b)
        elif kind == _EV_TOUCH:
            self._emit(_V_ERROR, ms, us, _E_BAD_PILE, a, -1, -1)

    def _on_card(self, ms, us, pile, card, player, tied):
        """The checked play: judge a card read in landing order (R-PLAY-*, R-CARD-*); ``_land``
        makes the state change.  ``pile`` is one of the table's (the intake sends a read on
        any other pile to ``_process`` as ``EV_OFF_TABLE``).  The per-card path: locals,
        precomputed option values, private copies of the codes it emits (``const`` is inlined
        per module only), no allocation; anything unusual goes to ``_refuse_card``."""
        # (card & -64: not 0..63; player * player > 1: not -1, 0 or 1)
        if self.phase != PH_PLAY or card & -64 or player * player > 1:
            self._refuse_card(ms, us, pile, card, player)
            return
        own = self._own_deck
        seen = self._seen
        i = card + 64 * player if own and player >= 0 else card   # (_clear_seen)
        n = seen[i]
        r = card & 15
        if n and (card != _JOKER or n >= self.rules.jokers):
            if r > 13 or (r == 0 and card != _JOKER):
                self._refuse_card(ms, us, pile, card, player)   # no card (_clear_seen)
                return
            # Two copies of one card (or more jokers than the deck has) in the center: a
            # card-map or misread problem.  (Slot 0, the joker's, counts them.)
            self._emit(_V_ERROR, ms, us, _E_DUPLICATE, pile, card, player)
            return
        if own and player < 0:
            self._emit(_V_ERROR, ms, us, _E_NO_OWNER, pile, card, -1)
        if self.need_spit[pile]:
            if card == _JOKER and not self.rules.jokers:
                # R-CARD-1: no joker in this deck, not even as a spit card (it would make the
                # pile wild); the pile still waits for its spit card.  (Spit cards only.)
                self._emit(_V_ILLEGAL, ms, us, pile, card, self.top[pile], -1)
                return
            self._land(ms, us, pile, card, self.spitter[pile], _SPIT_BIT)
            self._emit(_V_SPIT, ms, us, pile, card, self.spitter[pile], -1)
            return
        if self._slow_spit and (ms < self.live_ms or (ms == self.live_ms and us < self.live_us)
                                or not self.spit_done()):
            # R-STALL-3: wait 2 s after the spit flip
            self._emit(_V_EARLY, ms, us, pile, card, -1, -1)
            return
        # R-PLAY-5: judged in landing order; the loser of a race against the new top.
        # (self._done: this card's landing time, in the intake's units, as land_t)
        land_t = self.land_t
        land = land_t[pile]
        done = self._done
        dt = done - land   # (a small int: both are intake times, _NEVER_T the lowest)
        if (dt < self._tie_window and not tied & _F_ORDERED) or (tied & _F_TIED and land != _NEVER_T):
            # Too close to order, or the reads cannot tell which landing came first (the
            # race rule, intake.py): never name a winner the evidence does not show.  (A read
            # the evidence orders after the last landing is no tie however close: _F_ORDERED.)
            # (dt reported saturated: _NEVER_T is over 500 s back; the race windows are shorter)
            self._emit(_V_TIE, ms, us, pile, card, self.top[pile], dt if dt < _SATURATED_US else _SATURATED_US)
        top_rank = self.top_rank
        rank = top_rank[pile]
        # The common case first: the rank fits by the precomputed table (no call); fits()
        # decides the rest (rank 0: a wild joker or an empty pile; r 0: a joker).
        if not (self._steps[rank] >> r & 1 or fits(self.rules, self.top[pile], rank, card)):
            if dt < self._race_window and self._fits_before(pile, card):
                self._emit(_V_LATE, ms, us, pile, card, dt, self.top[pile])
            else:
                self._emit(_V_ILLEGAL, ms, us, pile, card, self.top[pile], -1)
            return
        # The play's state change: _land's for a play (spit 0), written out here (no call per
        # landing; tests/engine/test_play_streams.py pins the verdicts both give).
        if card != _JOKER or self._joker_any:
            rank = r   # (a joker: 0, wild)
        elif self._joker_card and self.top[pile] > 0:
            rank = self.top[pile] | _AS_CARD   # (with the colour rule: the whole card it covers)
        self.top[pile] = card
        top_rank[pile] = rank   # (R-CARD-4 as_below: a joker keeps the rank below)
        land_t[pile] = done
        seen[i] = n + 1   # (below 255: a card seen that often is refused above)
        size = self.size
        n = size[pile]
        size[pile] = n + 1
        self._hist[pile * _HIST + (n & _HIST_MASK)] = card | (player + 1) << 7 | rank << _RANK_SHIFT
        self.played += 1
        if own and player >= 0:
            self.left[player] -= 1
        stuck = self.stuck
        stuck[0] = False   # (the STUCK lamps go out with the verdict: LedIntents.on_accept)
        stuck[1] = False
        # _emit(V_ACCEPT, ...) written out: one call less per landing.
        it = self._on_accept_fn
        if it is not None:
            it(self.intents, pile, ms)
        it = self.sink
        if it is not None:
            it(_V_ACCEPT, ms, us, pile, card, player, dt if dt < self._race_window else -1)
        if own and player >= 0 and self.left[player] == 0:
            self.game_over(ms, us, player, _R_NO_CARDS)   # R-OWN-1

    def _fits_before(self, pile, card):
        """R-PLAY-5: would ``card`` have fitted on the pile's top before its last landing (the
        loser of a race)?  No when there was no card under it (the pile was empty, or it is
        a recycled pile's top).  (The ring remembers the card under the top: undos take back at
        most _UNDO_MAX cards below the pile's highest size, corrections.py.)"""
        n = self.size[pile] - 2   # the card under the top
        if n < 0:
            return False
        h = self._hist[pile * _HIST + (n & _HIST_MASK)]
        return fits(self.rules, h & 63, h >> _RANK_SHIFT, card)

    def _refuse_card(self, ms, us, pile, card, player):
        """A card read that is not judged: a bad pile, card or player, or not in play."""
        if not (0 <= pile < self.npiles):
            self._emit(_V_ERROR, ms, us, _E_BAD_PILE, pile, card, player)
        elif card < 0 or card > 63 or (card != _JOKER and not 1 <= (card & 15) <= 13):
            self._emit(_V_ERROR, ms, us, _E_UNKNOWN_CARD, pile, card, player)
        elif player < -1 or player > 1:
            self._emit(_V_ERROR, ms, us, _E_BAD_PLAYER, pile, card, player)
        elif self.phase == PH_OVER:
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, pile, card, player)
        else:
            self._emit(_V_EARLY, ms, us, pile, card, -1, -1)

    def _land(self, ms, us, pile, card, player, spit):
        """The raw state change of a card landing (no judging): a spit card (``spit``
        _SPIT_BIT) or a correction's card.  A play judged by ``_on_card`` makes the same
        change (spit 0) written out there."""
        # (The top before it stays in the history: _fits_before.)
        rank = card & 15   # (a joker: 0, wild)
        if card == _JOKER and not self._joker_any:
            # R-CARD-4 as_below: the rank below (a wild one stays wild); with the colour rule,
            # the whole card below (a card: > 0; a joker below passes on what it counts as).
            rank = self.top_rank[pile]
            if self._joker_card and self.top[pile] > 0:
                rank = self.top[pile] | _AS_CARD
        self.top[pile] = card
        self.top_rank[pile] = rank
        self.land_t[pile] = self._done   # (the landing's judged time, see _on_card)
        own = self._own_deck
        # (below 255: _on_card lands no card seen that often, _on_top keeps the cap)
        self._seen[card + 64 * player if own and player >= 0 else card] += 1
        n = self.size[pile]
        self.size[pile] = n + 1
        self._hist[pile * _HIST + (n & _HIST_MASK)] = card | spit | (player + 1) << 7 | rank << _RANK_SHIFT
        if spit:
            s = player
            self.need_spit[pile] = 0
            if own:
                self.left[s] -= 1
            elif not (self.rules.mode == _MODE_SPEED and self.first_flip):
                self.spit_left[s] -= 1
            if self.spit_done():
                self.first_flip = False
                self.live_ms = ms + self.rules.slow_spit_ms
                self.live_us = us
        else:
            self.played += 1
            if own and player >= 0:
                self.left[player] -= 1
            stuck = self.stuck
            stuck[0] = False
            stuck[1] = False
            # (the STUCK lamps go out with the verdict: LedIntents.on_accept / on_play)

    def _rebase(self, ms, us):
        # The intake's times move with its base: the landing times too (a real landing older
        # than the oldest time kept stays just above _NEVER_T).
        shift = (ms - self._base_ms) * 1000
        land = self.land_t
        for p in range(self.npiles):
            t = land[p]
            if t != _NEVER_T:
                t -= shift
                land[p] = t if t > _NEVER_T else _NEVER_T + 1
        return EventQueue._rebase(self, ms, us)

    def _on_stuck(self, ms, us, player):
        if player & -2:   # (not 0 or 1)
            self._emit(_V_ERROR, ms, us, _E_BAD_PLAYER, -1, -1, player)
            return
        phase = self.phase
        if phase == PH_BETWEEN:
            self._on_ready(ms, us, player)   # STUCK doubles as READY between rounds
            return
        if phase == PH_SLAP and self.out_unknown:
            self.declare_out(ms, us, player)   # "I went out" (docs/rules.md, who went out)
            return
        if phase > PH_PLAY:
            # One rule for every input: no meaning now (slaps, a question, the game is over)
            # -> error unexpected.
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, -1, -1, player)
            return
        stuck = self.stuck
        if phase != PH_PLAY or stuck[player] or (not self.spit_done() and ms - self.cd_ms < _SPIT_DUE_MS):
            # A repeat of what the referee already acted on (a second press, a press racing
            # the other player's into the spit call it started, or while the spit cards are
            # on their way): nothing new, no error.
            return
        stuck[player] = True
        self._emit(_V_STUCK, ms, us, player, -1, -1, -1)
        if not stuck[1 - player]:
            return
        need = self.need_spit
        for p in range(self.npiles):
            if need[p]:
                # R-STALL-2: both stuck while a pile still waits for its spit card, long after
                # the countdown: its spitter has none (the count kept here was wrong: a wrong
                # answer, a card never read).  That pile waits no more; a deck has only the row.
                need[p] = 0
                q = self.spitter[p]
                self.spit_left[q] = 0
                if self._own_deck:
                    self.left[q] = self.rules.row
                self.first_flip = False
        # R-STALL-1: both stuck.
        piles = self._plan_spit(ms, us)
        if piles:
            self._emit(_V_SPIT_CALL, ms, us, piles, -1, -1, -1)   # piles getting a spit card
            self._countdown(ms, us)
        else:
            self.blocked(ms, us)

    def _on_ready(self, ms, us, player):
        if player & -2:   # (not 0 or 1)
            self._emit(_V_ERROR, ms, us, _E_BAD_PLAYER, -1, -1, player)
            return
        phase = self.phase
        if phase != PH_BETWEEN:
            if phase != PH_COUNTDOWN:   # in a countdown: a repeat of the READY that started it
                self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, -1, -1, player)
            return
        ready = self.ready
        ready[player] = True
        if ready[0] and ready[1]:
            self._start_round(ms, us)

    def _on_slap(self, ms, us, player, pile):
        if player & -2:   # (not 0 or 1)
            self._emit(_V_ERROR, ms, us, _E_BAD_PLAYER, pile, -1, player)
            return
        if pile not in self._piles:
            self._emit(_V_ERROR, ms, us, _E_BAD_PILE, pile, -1, player)
            return
        phase = self.phase
        if phase == PH_PLAY:
            self.going_out(ms, us, player, pile)
        elif phase == PH_SLAP:
            self.claim(ms, us, player, pile)
        else:
            self._emit(_V_ERROR, ms, us, _E_UNEXPECTED, pile, -1, player)
