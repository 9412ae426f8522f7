"""The firmware loop: a step, the card path, and the work at pauses (functions of
``referee.app.App``, which declares their state in ``App.__init__``).

They live here to keep app.py short; app.py binds them in its class body (``run_forever =
loop.run_forever``), so a call costs what a method defined there costs.

``poll()`` (the first half of every step: inputs, readers, engine, LEDs; referee/app.py's
docstring).  The card path, read -> feed -> judge -> draw -> log, is ``take_card()`` (its
docstring lists the order): the first card a reader's step reads is fed at once, its LED frame
drawn at its first verdict (``landed()``, called by the engine's sink ``App._verdict``), then
its log record (``logged()``), then the verdict's reactions and record; ``judge_cards()`` and
``feed_cards()``, first thing in the next step: any later card of that step, the engine's
advance to the clock, the LEDs again.  ``run_locked()``: the engine and the LEDs run with the
heap locked.
``run_forever()``: step, then idle (WFE) until an interrupt stamps an input or 1 ms passes.
``pause_work()`` (the second half of every step): in play the live console echo, one record
(no allocation); at a pause (``at_pause()``) one piece of the session log's flash work.
Flash erase/program masks interrupts for up to ~45 ms (a 4 KB erase), so the log goes to
flash only where no card, slap or press can be timed: between rounds once the slaps are
settled, after the game, in the correction menu (docs/hardware.md, flash writes).
"""

import gc
import time

from micropython import const

from spit.cardmap import uid_hex
from referee.sessionlog import RECORD_BYTES

# Copies of other modules' codes: const() is inlined per module only, so a use costs no global
# and attribute lookup (and spit.verdicts, for one, need not be on the board).
# generated from spit.verdicts, spit.intake, spit.referee by scripts/gen_consts.py: do not edit
_E_UNKNOWN_UID = const(10)  # firmware: a tag UID missing from the card map
_E_OVERFLOW = const(13)     # firmware: input or event buffer overflowed
_EV_CARD = const(2)         # a: pile, b: card, c: player (-1 unknown); e: the read's evidence (below)
_EV_TOP = const(7)          # a: pile, b: card        (correction: the top card really is ...)
_EV_QUIET = const(10)       # a: pile  (its reader found no other tag of its last activation: ``quiet``)
_EVID_ALONE = const(1)
_EVID_SHARED = const(2)
_EVID_SHIFT = const(2)
_EVID_UNIT = const(100)
_EVID_UNITS_MAX = const(2047)
_PH_BETWEEN = const(4)      # between rounds: waiting for both READY
_PH_OVER = const(5)
# end generated

_DRAIN_MAX = const(8)      # events taken from the ring per step (the rest next step: ~80 us each)
# Reader bus work per step: once the readers served in a step have used this much, the
# rest wait for the next step (a PN532 scan step takes ~2 ms of SPI and Python on the chip).
_READERS_US = const(700)
_DRAW_BEFORE_US = const(3000)   # a step this long leaves drawing the LEDs to the next step
_HOLD_BACK_US = const(100000)   # an unfed edge older than this no longer holds the engine back
_READ_HOLD_US = const(500000)   # ... nor a reader's activation not reported for this long (advance_now)
# A card read this far into a step is judged in the next (judging and drawing it take ~2 ms more).
_JUDGE_NOW_BEFORE_US = const(2000)
_CARDS_IN = const(4)        # cards one reader step can deliver before they are fed (a group)
_CARD_INTS = const(6)       # a queued card: ms, us, pile, card, owner, evidence
CARD_QUEUE_INTS = const(_CARD_INTS * _CARDS_IN)   # App._card_queue
_HOUSEKEEP_MS = const(1000)   # reader re-reports, debouncer expiry
_IDLE_US = const(1000)    # longest idle wait after a step with no input waiting
_ECHO_BEFORE_US = const(1500)   # no console echo in a step that has already taken this long ...
_ECHO_WAIT_MS = const(50)       # ... unless the echo has waited this long (every step was long) ...
_ECHO_LATEST_US = const(2000)   # ... and the step has taken less than this (an echo costs 1-3 ms)
_FORMAT_PER_STEP = const(2)   # log records formatted into the Logbook's buffer per step at a pause (~1 ms each)
_DRAIN_AHEAD = const(16)   # in play, records left free when the oldest start going to the Logbook


def run_forever(self):
    import machine
    idle = machine.idle
    ring = self.ring
    probe = self.loop_pin
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    while True:   # (App.step's two halves, called here as functions: a call less per step)
        if probe is not None:
            probe.value(1)
            poll(self)
            pause_work(self)
            probe.value(0)
        else:
            poll(self)
            pause_work(self)
        leds = self.leds
        if self._judge or ring.head != ring.tail or (leds is not None and leds.pending):
            continue   # (a step that read a card is followed at once by its judge_cards step)
        # Nothing waiting: idle (WFE) until an interrupt or the next millisecond.  A hard
        # IRQ stamps an edge into the ring and wakes the core, so a reader's reply (its
        # IRQ line is an input too) or a touch is taken at once, not after a fixed sleep;
        # timed work (animation frames, reader timeouts) waits at most _IDLE_US.
        t0 = ticks_us()
        while ring.head == ring.tail and ticks_diff(ticks_us(), t0) < _IDLE_US:   # (len(ring), no call)
            idle()


def pause_work(self):
    """In play: echo one new log record to the console (no allocation, after the LEDs).
    At a pause (no card can land: between rounds, after the game, the correction menu),
    one piece of log work per step: format a few records into the Logbook's buffer, or
    write that buffer (one flash write: at most one erase), or sync the file, or start
    the next session, or ``gc.collect()`` once."""
    slog = self.slog
    book = self.book
    paused = self.paused = self.at_pause()
    live = self.live
    if live is not None and live.requests:
        live.poll(self, self.clock.ms)   # (a reader's '?', every 100 ms: never blocks)
    if book is not None and book.flushes != self.stalls.seen:
        self.stalls.note(book, self.clock.ms, paused)   # (a forced write in this step)
    if paused and self.lock_failures != self._lock_reported:
        self._lock_reported = self.lock_failures
        self.out("spit-referee: an allocation under the heap lock (%d): the loop goes on "
                 "unlocked this session" % self.lock_failures)
        return
    if not paused:
        self._swept = False
        if self._read:
            return   # (nothing more in a step whose reader fed or judged a card)
        ms = self.clock.ms
        spent = time.ticks_diff(time.ticks_us(), self.step_us)
        if spent >= _ECHO_BEFORE_US and (spent >= _ECHO_LATEST_US or 0 <= ms - self._echo_ms < _ECHO_WAIT_MS):
            # A long step: the echo waits for a shorter one, but not for ever.  A reader that
            # scans on its own (a chip that wakes halted tags) makes most steps long, and the
            # console (spit console, spit watch) went silent for seconds while the log had it all.
            return
        self._echo_ms = ms
        if book is not None and slog.pending + _DRAIN_AHEAD >= slog.capacity:
            # A very long round: the records are nearly all in use.  The oldest goes to the
            # Logbook's RAM buffer (echoed too, if it was not), one a step (hundreds of steps
            # a second, a few records), so that the arrays never fill in a card's step
            # (SessionLog._push); a full buffer is written to flash here, at a step without a
            # card (one write, interrupts masked ~45 ms; the input stamps inside it are
            # corrected as for any write: FlashStalls).
            if book.free() >= RECORD_BYTES:
                slog.drain(1)
            else:
                book.write_buffered()
        elif slog.echo is not None:
            # One record per step (~1 ms on the chip; hundreds of steps a second keep the
            # console up with the LEDs): the records wait in RAM (the flash write has them).
            slog.echo_some(1)
        return
    if slog.pending and (book is None or book.free() >= RECORD_BYTES):
        slog.drain(_FORMAT_PER_STEP)
        return
    if book is not None and (book.bytes_buffered or not self._synced):
        if book.bytes_buffered:
            book.write_buffered()
            self._synced = False
        else:
            book.sync()
            self._synced = True
        self.stalls.note(book, self.clock.ms, True)
        return
    if self._restart:
        self._restart = False
        self.new_session()
        gc.collect()   # (the last game's engine)
        return
    if not self._swept:
        self._swept = True
        gc.collect()


def at_pause(self):
    """True where no card, slap or press can be timed: between rounds (after the slaps:
    waiting for READY and the next deal), after the game, in the correction menu."""
    ph = self.referee.phase
    return self.corr.menu or ph == _PH_BETWEEN or ph == _PH_OVER


def poll(self):
    """Inputs, readers, engine, LEDs: everything a landing needs (allocates nothing).
    A step whose reader delivered a card ends there (its first card is judged and drawn in
    it: ``take_card``); the next step (run at once) feeds any later card of it, advances the
    engine to the clock and sends the reader's next command."""
    if self._judge:
        self._judge = False
        self._read = True   # (no console echo in this step either)
        self.run_locked(judge_cards)
        p = self._fed_pile
        if p >= 0:
            # Then the reader that read the card takes its next step (it halts the tag
            # and scans for one under it; the other piles' verdicts wait for that scan).
            self._fed_pile = -1
            self.readers[p].service(time.ticks_us())
        self.steps += 1
        return
    self.step_us = time.ticks_us()
    ring = self.ring
    st = self.stalls
    book = self.book
    n = 0
    tail = ring.tail
    while n < _DRAIN_MAX and tail != ring.head:
        # InputRing.pop written out (a call less per edge): the slot is read, then freed.
        src = ring.sources[tail]
        ticks = ring.stamps[tail]
        tail += 1
        if tail == ring.size:
            tail = 0
        ring.tail = tail
        n += 1
        if src >> 2 == 1 and st.watch_ms < 0 and (book is None or book.flushes == st.seen):
            # A reader's IRQ line (sources 4..7: clean, not debounced), no flash write to
            # correct its stamp for (App._input's reader case, without its call).
            if self.readers[src & 3].note_irq(ticks):
                self._replied = src & 3
                break   # a reader's reply came in: it is served now, later inputs next step
        elif src >> 2 == 1 or self.deb.accept(src, ticks):
            self._input(src, ticks)
            if self._replied >= 0:
                break   # (as above)
    self._read = False
    first = self._replied
    clock = self.clock
    if first >= 0:
        # A listing's reply is in (its IRQ edge was drained above): that reader alone this
        # step, before anything else (its card's LED frame first: drawn at the last step's
        # clock, a few ms back at most); the other readers wait for the next step, and so do
        # the debouncer's held edges and the overflow count when it delivered a card.
        self._replied = -1
        self.readers[first].service(self.step_us)
        if self._judge:
            return   # (the next step judges the card: see above)
    # Button and pad edges held by the debouncer until their level proved stable: one
    # a step (a STUCK press or a slap can start much engine work); the next one waits
    # for the next step, with its edge's time.
    src = self.deb.pop_due(time.ticks_us())
    if src >= 0:
        self._input(src, self.deb.ticks)
    # The session clock moves to now after the inputs (their stamps convert the same from
    # any recent anchor).
    clock.update()
    if ring.overflows != self._overflows:
        lost = ring.overflows - self._overflows
        self._overflows = ring.overflows
        self.referee.report(clock.ms, clock.us, _E_OVERFLOW, -1, lost)
    if first < 0:
        now = time.ticks_us()
        # In turn, until a card was fed or the bus work of this step reached _READERS_US:
        # the others wait for the next step (a step stays short; their replies keep the
        # IRQ edge's time).
        readers = self.readers
        k = self._next_reader
        for _ in readers:
            r = readers[k]
            k += 1
            if k == len(readers):
                k = 0
            r.service(now)
            if self._read or time.ticks_diff(time.ticks_us(), now) > _READERS_US:
                break
        self._next_reader = k
    if self._judge:
        return   # (the next step judges the card: see above)
    ms = clock.ms
    self.corr.tick(ms)
    self.run_locked(advance_now)
    if time.ticks_diff(time.ticks_us(), self.step_us) > _DRAW_BEFORE_US:
        self._judge = True   # a long step already: the LEDs are drawn first in the next
    else:
        self._render(ms)
    if ms - self._housekeep_ms >= _HOUSEKEEP_MS:
        self._housekeep(ms, clock.us)
    self.steps += 1


def feed_cards(self):
    """Feed the cards read and queued since the last step, in their order."""
    q = self._card_queue
    n = self._cards_in
    self._cards_in = 0
    i = 0
    slog = self.slog
    referee = self.referee
    while i < n * _CARD_INTS:
        # (App.feed, with the read's evidence: in the log's card line and to the engine)
        e = q[i + 5]
        slog.event(_EV_CARD, q[i], q[i + 1], q[i + 2], q[i + 3], (q[i + 4] + 1) | e << 2)   # (logged)
        referee.feed(_EV_CARD, q[i], q[i + 1], q[i + 2], q[i + 3], q[i + 4], e)
        i += _CARD_INTS


def judge_cards(self):
    """A card was read in the last step (the first one fed and drawn there): feed the queued
    ones, advance the engine to the clock and draw the LEDs, first thing in this step
    (``run_forever`` does not idle in between), before the reader's next bus command, the
    other readers and the input ring (``run_locked``)."""
    if self._cards_in:
        self.feed_cards()
    p = self._quiet_pile
    if p >= 0:
        self._quiet_pile = -1
        quiet_pile(self, p)   # (after its cards: see App._on_quiet)
    clock = self.clock
    clock.update()
    advance_now(self)
    self._render(clock.ms)


def quiet_pile(self, pile):
    """``referee.quiet(pile)`` (the pile's reader found no other tag of its last activation),
    logged as a ``quiet`` line at the horizon when it ended a hold (only a read that shared its
    activation holds: spit.intake): it changes when the engine judges, and with that a tied
    card's landing time, so a re-judge must see it where the device did.  True: events wait
    to be judged."""
    r = self.referee.quiet(pile)
    if r:
        slog = self.slog
        slog.event(_EV_QUIET, slog.h_ms, slog.h_us, pile, 0, 0)
    return r > 1


def advance_now(self):
    """The engine's verdicts due by the clock's time, into the session log (``run_locked``);
    never past an input edge stamped before it and not fed yet (one left in the ring, or held
    by the debouncer for its level: it is fed in a later step, and judging past it would make
    it ``late_event``: two STUCK releases 60 us apart were, one a step on the emulated Pico),
    unless that edge has waited ``_HOLD_BACK_US`` (a chattering line does not stop the game);
    nor past the time of a reader's activation whose tags it has not reported yet
    (``NfcReader.hold_us``), unless it has waited ``_READ_HOLD_US``: a collision walked bit by
    bit took 160 ms on the emulated Pico, and a touch given up after the rules' touch_match_us
    (120 ms) made its reads ``late_event`` and the race went to the wrong card (issue 26)."""
    clock = self.clock
    ms = clock.ms
    us = clock.us
    now = time.ticks_us()
    t = self.deb.held_first()
    ring = self.ring
    if ring.head != ring.tail:
        s = ring.stamps[ring.tail]
        if t < 0 or time.ticks_diff(s, t) < 0:
            t = s
    if t >= 0 and time.ticks_diff(now, t) >= _HOLD_BACK_US:
        t = -1
    for r in self.readers:
        a = r.hold_us
        if a >= 0 and time.ticks_diff(now, a) < _READ_HOLD_US and (t < 0 or time.ticks_diff(a, t) < 0):
            t = a
    if t >= 0:
        clock.convert(t)
        if clock.ev_ms < ms or (clock.ev_ms == ms and clock.ev_us < us):
            ms = clock.ev_ms
            us = clock.ev_us
    self.referee.advance(ms, us)
    self.slog.advanced(ms, us)


def run_locked(self, fn):
    """``fn(self)`` (a function of this module: no bound method to make, which would
    allocate) with the heap locked: it allocates nothing, and MicroPython then puts its
    call frames on the C stack instead of allocating and freeing a heap block for every
    call of a function with more than 11 words of frame, which costs the chip up to 0.3 ms
    a call when the heap is fragmented.
    A MemoryError there (something allocates after all) stops the locking for the session:
    the loop goes on, and the next pause prints it."""
    lock = self.heap_lock
    if lock is None:
        fn(self)
        return
    lock()
    try:
        fn(self)
    except MemoryError:
        self.heap_lock = None
        self.lock_failures += 1
    finally:
        self.heap_unlock()


def on_card(self, pile, uid, ticks):
    """A reader's card (``uid`` a view, valid during this call): looked up, fed and drawn
    (the step's first card) or queued for the next step, and kept for a rejection, with the
    heap locked (nothing here allocates, and MicroPython then keeps call frames on the C stack
    instead of allocating each one: 1.5 ms -> 0.6 ms on the chip).  An unknown tag and a
    correction's resync, which print or may allocate, are handled after the lock."""
    if self.waiting:
        return   # (no session yet: a card on a pile is read again, early, once it starts)
    self._read = True
    # The read's evidence (the reader's, valid during this call): whether its tag answered
    # the activation alone, and how long before this stamp that activation began.
    r = self.readers[pile]
    d = time.ticks_diff(ticks, r.act_us) // _EVID_UNIT   # (never negative: the activation came first)
    if d > _EVID_UNITS_MAX:
        d = _EVID_UNITS_MAX
    self._evidence = (_EVID_ALONE if r.alone else _EVID_SHARED) | d << _EVID_SHIFT
    st = self.stalls
    book = self.book
    if st.watch_ms >= 0 or (book is not None and book.flushes != st.seen):
        ticks = st.stamp(ticks, book, self.clock.ms, self.paused)
    # The step's first card is fed and drawn by take_card itself (see there), unless the
    # step is long already (the next step's judge_cards then: no step holds both).
    first = self._now = not (self._judge or self._cards_in) and time.ticks_diff(
        time.ticks_us(), self.step_us) < _JUDGE_NOW_BEFORE_US
    taken = None
    lock = self.heap_lock
    if lock is not None:
        lock()
        try:
            taken = take_card(self, pile, uid, ticks)
        except MemoryError:
            self.heap_lock = None   # (see run_locked; the card is taken again, unlocked)
            self.lock_failures += 1
        finally:
            self.heap_unlock()
        if self._landing is not None:
            logged(self)   # (it failed in the feed, before its first verdict)
    if taken is None:
        if first and not self._now:
            return   # (it failed while the card was fed: never fed twice)
        taken = take_card(self, pile, uid, ticks)
    if taken:
        return
    clock = self.clock
    ms = clock.ev_ms
    us = clock.ev_us
    cm = self.cards
    self.feed_cards()   # (what was read before it first)
    if cm.card < 0:
        self.slog.uid_note = uid_hex(uid).encode()
        self.referee.report(ms, us, _E_UNKNOWN_UID, pile, -1)
        self.out("spit-referee: pile %d: unknown tag %s (not in cards.json)" % (pile, uid_hex(uid)))
    elif self.corr.take_resync(pile):
        self.feed(_EV_TOP, ms, us, pile, cm.card, 0)


def take_card(self, pile, uid, ticks):
    """The card path of a read card (``on_card``'s usual path), in this order:

    1. read: the landing's session time (the reader's stamp, converted) and its card (the
       card map's lookup of the UID);
    2. feed: the step's first card goes to the engine now; a later card of the step waits in
       ``_card_queue`` for the next step's ``judge_cards``, which feeds it before the engine
       advances;
    3. judge: the engine judges what is due, the card too when its touch came first, and
       sends each verdict to ``App._verdict``;
    4. draw: at the feed's first verdict, the LED frame (``landed``: the engine set the
       intents before its sink);
    5. log: the card's record (``logged``), then each verdict's reactions and record
       (``App._verdict``).  A feed with no verdict logs the card after it; the next step's
       ``judge_cards`` advances the engine and draws.

    False for an unknown tag or a pending resync (the card map's ``card``, the clock's
    ``ev_ms``/``ev_us`` hold what the caller needs)."""
    clock = self.clock
    clock.convert(ticks)
    cm = self.cards
    if not cm.lookup(uid, len(uid)) or self.corr.resync == pile:
        return False
    owner = cm.owner if self.own_deck else -1
    if self._now:
        # The step's first card: fed now (2, 3); its first verdict draws and logs it (4, 5:
        # App._verdict calls landed); no verdict yet, it is logged here.  The reader's own
        # bookkeeping, the engine's advance to the clock and the reader's halt come after
        # (the next step: judge_cards).
        self._now = False
        self._fed_pile = pile
        self._landing = uid
        self.referee.feed(_EV_CARD, clock.ev_ms, clock.ev_us, pile, cm.card, owner, self._evidence)
        if self._landing is not None:
            logged(self)
    else:
        keep_uid(self, pile, uid)
        # Any later card of this step waits for the next step's judge_cards, which feeds it
        # before the engine advances (as if fed here): the reader's step stays short however
        # many tags one reply or group brings.
        n = self._cards_in
        if n == _CARDS_IN:
            self.feed_cards()   # (a group of more cards than slots: the first ones now)
            n = 0
        q = self._card_queue
        i = n * _CARD_INTS
        q[i] = clock.ev_ms
        q[i + 1] = clock.ev_us
        q[i + 2] = pile
        q[i + 3] = cm.card
        q[i + 4] = owner
        q[i + 5] = self._evidence
        self._cards_in = n + 1
    self._judge = True
    self._fed_pile = pile
    return True


def landed(self):
    """The first verdict of the card ``take_card`` feeds (``App._verdict``, before the
    verdict's reactions and record): the LED frame of what the engine has judged, then the
    card's log record (``logged``)."""
    if self._shown is self.intents and self.leds is not None:
        self.leds.render(self.intents, self.clock.ms)   # (what _render does then; locked)
    else:
        self._render(self.clock.ms)
    logged(self)


def logged(self):
    """The card ``take_card`` fed: its log record (before any verdict record of the feed, as
    ``App.feed`` writes it: the engine does not move the log's fields) and its UID kept for a
    rejection."""
    pile = self._fed_pile
    uid = self._landing
    self._landing = None
    clock = self.clock
    cm = self.cards
    # The log keeps the owner (-1, 0, 1) + 1 with the read's evidence (never 0 here) above it:
    # referee/logline.py writes them apart ("player", "act").
    self.slog.event(_EV_CARD, clock.ev_ms, clock.ev_us, pile, cm.card,
                    ((cm.owner if self.own_deck else -1) + 1) | self._evidence << 2)
    keep_uid(self, pile, uid)


def keep_uid(self, pile, uid):
    """The card's UID, kept to forget it if the card is rejected (``App._forget_card``)."""
    rejected = self.rejected
    if pile < len(self.readers):
        if rejected.pending[pile]:
            rejected.forget_now(pile, self.readers[pile])
        rejected.keep(pile, self.cards.card, uid)


def draw_leds(self):
    """``leds.render`` of what ``_render`` chose (``run_locked``: drawing allocates nothing)."""
    self.leds.render(self._draw_src, self._draw_ms)
