"""Event intake: order by hardware timestamp, match card reads to touches (R-PLAY-5).

Input events reach the referee out of order: an NFC identity read lands milliseconds after
the touch edge that marks the true landing, and readers are serviced one after the other.
``EventQueue`` therefore

* keeps each pile's unmatched touches sorted by their time (not by arrival);
* matches each card read to the earliest unmatched touch on its pile taken at most
  ``touch_match_us`` before it and not after it; the card then counts as landed at the touch
  time.  A read with no such touch (no sensor, or the sensor missed the landing) lands at the
  read's own time;
* orders the reads of one pile by the reader's evidence (``feed``'s ``e``, the log's ``act``:
  docs/log-format.md): a tag answers every activation while it lies in the field, so a read of
  a later activation (another time) landed after the earlier reads' cards (flag
  ``_F_ORDERED``: no tie, however close), and a read of the same activation (the same time on
  the pile) is *tied* to the previous one;
* without evidence (older logs), never names a winner it cannot know (the race rule,
  docs/rules.md): a PN532 that finds two
  tags in its field reads them in UID order, not landing order.  So a read is *tied* to the
  previous landing on its pile (the referee then calls ``tie``) when its pairing is uncertain:
  its touch came no later than an earlier read on the pile (both cards were on the pile when
  that read was made, so which touch is whose cannot be told), or it has no touch of its own
  and came within ``relist_us`` of the previous read (a card already in the field when the
  reader listed again: one the touch sensor merged into the previous edge, or a pile without
  a sensor); a touch-less read with exactly the previous read's time (one activation found
  both tags) shares that read's landing time;
* keeps events in a small buffer sorted by time and releases one only when the newest time
  seen (the *horizon*) is ``reorder_us`` past it AND no touch earlier than it still waits for
  its read AND, for ``relist_us`` after a pile's last read that did not answer its activation
  alone (evidence ``EVID_SHARED``, or none) came (with evidence: from the horizon when it was
  fed, not from its time), it is earlier than that read (a second tag of the
  same activation may still be reported with the activation's time; the device's reader ends
  that hold early with ``quiet(pile)`` once it found no other tag, and logs it as a ``quiet``
  line), so that a later-arriving read of an earlier landing is still judged in order.
  With touch sensors the pending touches do the waiting, so ``reorder_us`` only has to cover
  the servicing skew of the inputs (a few ms) and a verdict follows the read at once;
* turns a touch that no read claimed within ``touch_match_us`` into a ``no_read`` event.

Everything is preallocated: feeding an event allocates nothing.  The game itself lives in the
subclass (``Referee``): it implements ``_on_card(ms, us, pile, card, player, tied)`` (a card read,
on one of the table's piles, in landing order), ``_process(kind, ms, us, a, b, c, flags)`` (every
event but a card read in time with no flag, which ``advance`` passes to ``_on_card`` itself: a card
read on a pile the table does not have as ``_EV_OFF_TABLE``, a card that arrived late (``_F_LATE``)
or is tied (``_F_TIED``: ``_process`` passes it on to ``_on_card``)) and ``_clock_to(ms, us)``
(time-driven transitions up to that
time), and clears ``_timed`` while no time-driven transition can happen (then ``_clock_to`` is not
called).  While a hook runs, ``_done`` is the judged event's time in this module's units; a
subclass that keeps such times extends ``_rebase`` to move them with the base.

The per-landing path (a touch, its read, the loop's ``advance`` that releases it) is written for
the RP2040, where a bytecode costs about a microsecond, an attribute or list item 1.5-2 us and a
call 9-25 us (bench/README.md): few method layers, state in flat lists read through locals, the
usual case (one touch waiting, events arriving in time order) handled inline before the general
code (a read that nothing else waits on goes to ring slot 0 and ends ``feed`` without calling
``advance``), and times kept as one small int each: microseconds since a base ``_base_ms`` that
moves forward every few minutes (``_rebase``), so that comparing two times is one comparison, not
two.  A method call looks the name up in the instance's attribute table first (a miss costs
8 us there, the table being large and full) and then in each class in turn: the judging hook is
therefore called as a plain function kept in the instance (``_on_card_fn``), and the loop's
entry points are in ``Referee``'s own table (``advance`` and ``quiet`` bound in the instance).
The game sees session time as ``(ms, us)`` pairs
(and the judged time ``_done``, in this module's units, for its race windows).
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


EV_TOUCH = const(1)    # a: pile
EV_CARD = const(2)     # a: pile, b: card, c: player (-1 unknown); e: the read's evidence (below)
EV_STUCK = const(3)    # a: player
EV_SLAP = const(4)     # a: player, b: pile
EV_READY = const(5)    # a: player
EV_UNDO = const(6)     # a: pile                 (correction: take back the last card)
EV_TOP = const(7)      # a: pile, b: card        (correction: the top card really is ...)
EV_ANSWER = const(8)   # a: player, b: value     (answer to the referee's question)
EV_TICK = const(9)     # time passes, nothing happened (log end marker)
EV_QUIET = const(10)   # a: pile  (its reader found no other tag of its last activation: ``quiet``)
# Internal kinds (spit.referee keeps private copies, tests/guards/test_engine_shared_constants.py
# checks them):
_EV_NO_READ = const(11)  # a touch no card read claimed; a: pile
_EV_OFF_TABLE = const(12)  # a card read on a pile the table does not have (as EV_CARD)
EVENT_NAMES = ("", "touch", "card", "stuck", "slap", "ready", "undo", "top", "answer", "tick", "quiet", "no_read")

_CAP = const(32)         # buffered events (a few hundred ms of the fastest play)
_MASK = const(31)        # slot index modulo _CAP
_SLOT = const(5)         # ints per buffered event: kind << 3 | flags, time, a, b, c
_TOUCH_CAP = const(8)    # unmatched touches per pile
_LIMIT = const(0x20000000)   # move the base once the horizon is this far past it (537 s of us)
_FLOOR = const(-0x20000000)  # times further back are clamped here: "long ago" (and "never")

# A card read's evidence (``feed``'s ``e``; docs/log-format.md, "act"): 0 = none (a log without
# it: the older rule), else the tags that answered the read's activation (EVID_ALONE: it alone,
# EVID_SHARED: it and another) | the us from the activation's start to the read, in units of
# EVID_UNIT us (at most EVID_UNITS_MAX) << EVID_SHIFT.
EVID_ALONE = const(1)
EVID_SHARED = const(2)
EVID_SHIFT = const(2)
EVID_UNIT = const(100)
EVID_UNITS_MAX = const(2047)

# The flags _process gets (private: spit.referee keeps copies, checked as the kinds above).
_F_LATE = const(1)        # _process flag: arrived after later events were judged
_F_TIED = const(2)        # _process flag: cannot be ordered against the previous landing on its pile
_F_ORDERED = const(4)     # a card read the evidence orders after the previous landing on its pile
_CARD_IN_TIME = const(20)   # a buffered card read with no flag but _F_ORDERED: EV_CARD << 3 | _F_ORDERED

_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from typing import Any


class EventQueue:
    # The hooks the game implements (Referee; see the module docstring): annotations only, no
    # do-nothing methods (nothing makes a plain EventQueue).
    _clock_to: "Any"
    _on_card: "Any"
    _process: "Any"

    def __init__(self, npiles, reorder_us, touch_match_us, relist_us):
        self.npiles = npiles
        self._piles = tuple(range(npiles))   # ("a in _piles": one test for 0 <= a < npiles)
        self.reorder_us = reorder_us
        self.touch_match_us = touch_match_us
        self.relist_us = relist_us
        self._base_ms = 0   # internal times are (ms - _base_ms) * 1000 + us
        # Lists, not arrays, for what the per-landing path reads and writes: on the RP2040 a list
        # item loads in 1.7 us and stores in 2.0 us, an array('i') item in 2.4 and 3.2 us; their
        # small ints allocate nothing, and a list slot is as wide as an 'i' item on a 32-bit port.
        # The buffer sorted by time: a ring of _CAP slots of _SLOT ints, _qn of them from slot _qh.
        self._q = [0] * (_CAP * _SLOT)
        self._qh = 0
        self._qn = 0
        # Unmatched touches: pile p owns slots p*_TOUCH_CAP .. + _tcount[p], sorted by time.
        n = npiles * _TOUCH_CAP
        self._tt = [0] * n
        self._tflag = [0] * n   # _F_TIED: this touch's card may have landed under the previous one
        self._tcount = [0] * npiles
        self._untouched = [0] * npiles   # _tcount when no touch waits (compared as a whole)
        self._read_t = [_FLOOR] * npiles   # the last read's own time, per pile
        self._hold_t = [_FLOOR] * npiles   # ... while it holds later events back (quiet: no)
        self._hold_end = [_FLOOR] * npiles   # ... until then (relist_us after it was fed)
        self._land_t = [0] * npiles       # ... and the landing time it was given
        self._relist_end = _FLOOR   # no read holds anything back once the horizon is here
        self._relist_from = _FLOOR  # ... nor before it is here (see feed)
        self._horizon = 0   # the newest time seen
        self._done = 0      # the time the game has been brought to (events judged, clock)
        self.overflows = 0
        self._timed = True   # the subclass clears it while time alone can change nothing
        # The game's _on_card as a plain function in the instance, called with self by advance:
        # on the RP2040 a method is looked for in the instance, then in each class in turn
        # (a method call 20-25 us there), an instance's own attribute is found at once (11 us).
        self._on_card_fn = type(self)._on_card

    # --- input side ---
    def feed(self, kind, ms, us, a, b, c, e=0):
        """One input event with its hardware time (session ms + us within the ms); ``e``: a
        card read's evidence (``EVID_*``, 0: none)."""
        t = (ms - self._base_ms) * 1000 + us
        h = self._horizon
        if t > h:
            if t >= _LIMIT:
                self._leap(ms, us)   # (judges what is due up to t, then moves the base to ms)
                t = us
            self._horizon = h = t
        elif t < _FLOOR:
            t = _FLOOR   # from long before anything still waiting: judged late anyway
        tcount = self._tcount
        if kind == EV_TOUCH and a in self._piles:
            # A touch only waits for its read: nothing becomes due until the next event.
            if tcount[a] == 0:   # the usual case: the pile's only waiting touch
                self._tt[a * _TOUCH_CAP] = t   # (a free slot's _tflag is 0 already)
                tcount[a] = 1
            else:
                self._push_touch(a, t)
            return
        reorder = self.reorder_us
        flags = 0
        if kind == EV_CARD:
            if a in self._piles:
                # The usual case first: one touch waits on the pile, taken at most
                # touch_match_us before this read and not after it: the card landed at that touch.
                i = a * _TOUCH_CAP
                tt = self._tt[i]
                if tcount[a] == 1 and tt <= t and t - tt <= self.touch_match_us:
                    tcount[a] = 0
                    tflag = self._tflag
                    flags = tflag[i]
                    if flags:
                        tflag[i] = 0   # (free slots keep flag 0)
                    if e:
                        # The evidence orders it: tied only to a read of its own activation.
                        flags = _F_TIED if t == self._read_t[a] else _F_ORDERED
                    self._land_t[a] = tt
                else:
                    flags = self._pair(a, t, e)
                    tt = self._land_t[a]
                self._read_t[a] = t
                if e & EVID_ALONE:
                    # Its tag answered the activation alone: no other tag of it can be reported
                    # later with its time, so this read holds nothing back (and the pile's
                    # earlier activation is over: a later one found this tag).
                    self._hold_t[a] = _FLOOR
                else:
                    # The relist hold (advance) of this read applies from t + reorder_us until
                    # relist_us after it was fed (h; a read without evidence: after t): a
                    # reader resolving a collision bit by bit may feed it long after its time
                    # (a chip that wakes halted tags: 86 ms on the emulated Pico), and the
                    # other tag of its activation comes after it.
                    # _relist_from/_end: the earliest start and latest end of the holds running.
                    self._hold_t[a] = t
                    w = (h if e else t) + self.relist_us
                    self._hold_end[a] = w
                    if self._relist_end <= h or t + reorder < self._relist_from:
                        self._relist_from = t + reorder
                    if w > self._relist_end:
                        self._relist_end = w
                t = tt
            else:
                kind = _EV_OFF_TABLE   # judged apart: only a card on a real pile goes to _on_card
        if self._qn > 0:
            self._insert(kind, t, a, b, c, flags)   # sorted in among what waits
            self.advance(ms, us)
            return
        # The usual case: nothing else buffered, and nothing but reorder_us holds the judging
        # back (no touch waiting, no read's relist hold): advance() written out (no call).
        due = h - reorder
        free = tcount == self._untouched and (h < self._relist_from or h >= self._relist_end)
        if free and t <= due and kind == EV_CARD and not flags & _F_TIED and t >= self._done:
            # A card read in time and due already (its touch came a read's time before it):
            # judged now, as advance's loop judges it, without going through the ring.
            self._done = t
            base = self._base_ms
            if self._timed:
                self._clock_to(base + t // 1000, t % 1000)
            self._on_card_fn(self, base + t // 1000, t % 1000, a, b, c, flags)   # (0 or _F_ORDERED)
            if due > t:
                self._done = due
                if self._timed:
                    self._clock_to(base + due // 1000, due % 1000)
            return
        # Into the ring (which then starts at slot 0, see advance).
        q = self._q
        q[0] = kind << 3 | flags   # (any kind comes back whole: >> 3)
        q[1] = t
        q[2] = a
        q[3] = b
        q[4] = c
        self._qn = 1
        if free and t > due and not self._timed:
            # Not due yet and nothing timed: only _done moves.
            if due > self._done:
                self._done = due
            return
        self.advance(ms, us)

    def _pair(self, pile, t, e=0):
        """Pair a read at time ``t`` on ``pile`` with a touch and set the pile's ``_land_t`` to
        its landing time: that touch's time, the previous read's landing (one activation read
        both), or the read's own time.  Returns the read's flags (``_F_TIED`` or 0).

        With the reader's evidence (``e``) the read is tied only to a read of its own
        activation (the same time on the pile): a tag answers every activation while it lies
        in the field, so a card first read by a later activation landed after every card of an
        earlier one, whichever touch edges came when.  Without it (older logs), as the module
        docstring says."""
        rt = self._read_t[pile]   # the previous read (feed records this one after)
        tcount = self._tcount
        if tcount[pile] > 0:
            base = pile * _TOUCH_CAP
            tt = self._tt
            if t - tt[base] > self.touch_match_us:
                self._expire_touches(pile, t)   # (only when the first one is stale)
            n = tcount[pile]
            if n > 0 and tt[base] <= t:
                # The card landed at the pile's first touch.  Every other touch up to this read:
                # its card was on the pile too when this tag answered, so which of the two this
                # read is cannot be told.
                tflag = self._tflag
                flags = tflag[base]
                if e:
                    flags = _F_TIED if t == rt else _F_ORDERED
                self._land_t[pile] = tt[base]
                if n == 1:   # the usual case: nothing to shift
                    tflag[base] = 0
                    tcount[pile] = 0
                    return flags
                if not e:
                    for i in range(base + 1, base + n):
                        if tt[i] <= t:
                            tflag[i] = _F_TIED
                self._pop_touch(pile)
                return flags
        # No touch of its own: it landed at the read's time, unless the previous read on the pile
        # came from the same activation.
        land_t = self._land_t
        if e:
            # One activation with the previous read: tied to it (keeping its landing time
            # while that is not judged); a later one: it landed at its own time, after it.
            if t == rt and rt > _FLOOR:
                if land_t[pile] < self._done:
                    land_t[pile] = t
                return _F_TIED
            land_t[pile] = t
            return _F_ORDERED
        if rt > _FLOOR:
            if t == rt and land_t[pile] >= self._done:
                # Reported with the previous read's time: both answered one activation, so
                # they landed together as far as anyone can tell (unless that is judged).
                return _F_TIED   # (keeps that read's landing time)
            # Right after the previous read on the pile (in the same or a later ms), the card may
            # have been in the field already when that read was made (read in UID order): a tie.
            if t // 1000 >= rt // 1000 and t - rt <= self.relist_us:
                land_t[pile] = t
                return _F_TIED
        land_t[pile] = t
        return 0

    def quiet(self, pile):
        """The pile's reader reports that every tag of its last activation has been fed (it
        listed again and found nothing new): no read with an earlier time can follow on that
        pile, so its last read stops holding later events back (the relist hold in
        ``advance``).  Returns 0 if the pile held nothing back (nothing changed), else 1, or 2
        when events wait to be judged (call ``advance``).  (The device logs it when not 0: a
        ``quiet`` line, docs/log-format.md.)"""
        if 0 <= pile < self.npiles and self._hold_t[pile] != _FLOOR:
            self._hold_t[pile] = _FLOOR
            return 2 if self._qn > 0 else 1
        return 0

    def advance(self, ms, us):
        """Time has reached (ms, us): judge what is due (the device loop calls it every step)."""
        base = self._base_ms
        h = (ms - base) * 1000 + us
        if h > self._horizon:
            if h >= _LIMIT:
                self._leap(ms, us)
                return
            self._horizon = h
        else:
            h = self._horizon
        # Due: events at or before horizon - reorder_us ...
        due = h - self.reorder_us
        # ... and, for relist_us after a pile's last read, before that read: another tag of
        # the same activation may still come (a reader resolving a collision reports it with
        # the activation's time, several loop steps later) ...
        if h < self._relist_end and h >= self._relist_from:
            hold_t = self._hold_t
            for p in range(self.npiles):
                w = hold_t[p]
                if _FLOOR < w <= due and h < self._hold_end[p]:
                    due = w - 1   # strictly before the read
        # ... and before every touch still waiting for its read (each pile's first touch is
        # its earliest, once the stale ones are given up): that read lands earlier than anything
        # after the touch, so with touch sensors the hold can be short.
        tcount = self._tcount
        if tcount != self._untouched:
            for p in range(self.npiles):
                if tcount[p] > 0:
                    self._expire_touches(p, h)
                if tcount[p] > 0:
                    w = self._tt[p * _TOUCH_CAP]
                    if w <= due:
                        due = w - 1   # strictly before the touch
        # Judge what is due, earliest first (the usual case, a card read in time, written out:
        # no call per event but _on_card's).  Judging never feeds the queue, nor moves _done.
        # An empty ring starts again at slot 0 (feed's usual case writes there).
        n = self._qn
        done = self._done
        q = self._q
        while n > 0:
            i = self._qh
            k = i * _SLOT
            t = q[k + 1]
            if t > due:
                break
            w = q[k]
            if t < done or w | _F_ORDERED != _CARD_IN_TIME:
                self._release_first()   # anything else, a tied read, or one that arrived late
                n = self._qn
                done = self._done
                continue
            n -= 1
            self._qn = n
            if n:
                self._qh = (i + 1) & _MASK
            elif i:
                self._qh = 0   # (an empty ring starts at slot 0: feed's usual case)
            done = t
            self._done = t
            ms = base + t // 1000
            us = t % 1000
            if self._timed:
                self._clock_to(ms, us)
            self._on_card_fn(self, ms, us, q[k + 2], q[k + 3], q[k + 4], w & _F_ORDERED)
        # Time-driven transitions (countdown end, slap window, game timer) up to there.
        if due > done:
            self._done = due
            if self._timed:
                self._clock_to(self._base_ms + due // 1000, due % 1000)

    def flush(self):
        """End of input: judge everything still buffered."""
        for p in range(self.npiles):
            while self._tcount[p] > 0:
                self._unread_first(p)
        while self._qn > 0:
            self._release_first()
        h = self._horizon
        self._clock_to(self._base_ms + h // 1000, h % 1000)

    def _leap(self, ms, us):
        """Time reached (ms, us), at least _LIMIT past the base: judge what is due by then on the
        old base first (as tick lines in between would have: an event still held keeps its own
        time, however long the gap), then move the base to ``ms``.  Only this call may hold a
        time of 2**30 us or more (a gap longer than 537 s: in a log, never on the device, whose
        loop advances every few ms)."""
        self._horizon = (ms - self._base_ms) * 1000 + us   # (advance then judges up to it)
        self.advance(ms, us)
        self._rebase(ms, us)

    def _rebase(self, ms, us):
        """Move the base to ``ms`` (every stored time shifts, the oldest clamped at _FLOOR, far
        older than any window): times stay small ints.  Returns (ms, us) as a time."""
        shift = (ms - self._base_ms) * 1000
        self._base_ms = ms
        q = self._q
        for i in range(1, _CAP * _SLOT, _SLOT):   # (each slot's time)
            q[i] = _shifted(q[i], shift)
        tt = self._tt
        for i in range(len(tt)):
            tt[i] = _shifted(tt[i], shift)
        for p in range(self.npiles):
            self._read_t[p] = _shifted(self._read_t[p], shift)
            self._hold_t[p] = _shifted(self._hold_t[p], shift)
            self._hold_end[p] = _shifted(self._hold_end[p], shift)
            self._land_t[p] = _shifted(self._land_t[p], shift)
        self._relist_end = _shifted(self._relist_end, shift)
        self._relist_from = _shifted(self._relist_from, shift)
        self._horizon = _shifted(self._horizon, shift)
        self._done = _shifted(self._done, shift)
        return us

    # --- touches (per pile, sorted by time) ---
    def _push_touch(self, pile, t):
        if self._tcount[pile] == _TOUCH_CAP:
            self._unread_first(pile)   # full: the oldest touch can only be a stale one
        base = pile * _TOUCH_CAP
        i = base + self._tcount[pile]
        tt = self._tt
        tflag = self._tflag
        while i > base and tt[i - 1] > t:
            tt[i] = tt[i - 1]
            tflag[i] = tflag[i - 1]
            i -= 1
        tt[i] = t
        tflag[i] = 0
        self._tcount[pile] += 1

    def _unread_first(self, pile):
        """The pile's earliest touch will get no read: a ``no_read`` event at its time."""
        self._insert(_EV_NO_READ, self._tt[pile * _TOUCH_CAP], pile, -1, -1, 0)
        self._pop_touch(pile)

    def _pop_touch(self, pile):
        base = pile * _TOUCH_CAP
        n = self._tcount[pile] - 1
        tt = self._tt
        tflag = self._tflag
        for i in range(base, base + n):
            tt[i] = tt[i + 1]
            tflag[i] = tflag[i + 1]
        tflag[base + n] = 0   # a free slot's flag is 0 (feed's usual case relies on it)
        self._tcount[pile] = n

    def _expire_touches(self, pile, t):
        # Touches more than touch_match_us before t can no longer be claimed.
        oldest = t - self.touch_match_us
        i = pile * _TOUCH_CAP
        while self._tcount[pile] > 0 and self._tt[i] < oldest:
            self._unread_first(pile)

    # --- the sorted buffer ---
    def _insert(self, kind, t, a, b, c, flags):
        if self._qn == _CAP:
            self.overflows += 1
            self._release_first()   # judge the oldest now
        # Insert after every event at the same or an earlier time (stable by arrival).
        q = self._q
        h = self._qh
        i = self._qn
        while i > 0:
            j = ((h + i - 1) & _MASK) * _SLOT
            if q[j + 1] <= t:
                break
            k = ((h + i) & _MASK) * _SLOT
            for f in range(_SLOT):
                q[k + f] = q[j + f]
            i -= 1
        k = ((h + i) & _MASK) * _SLOT
        q[k] = kind << 3 | flags
        q[k + 1] = t
        q[k + 2] = a
        q[k + 3] = b
        q[k + 4] = c
        self._qn += 1

    def _release_first(self):
        """Judge the earliest buffered event (flush, overflow, and ``advance`` for all but a
        card read in time)."""
        q = self._q
        i = self._qh
        k = i * _SLOT
        n = self._qn - 1
        self._qn = n
        self._qh = (i + 1) & _MASK if n else 0   # (an empty ring starts at slot 0: feed)
        t = q[k + 1]
        kind = q[k] >> 3
        flags = q[k] & 7
        if t < self._done:
            t = self._done   # arrived after later events were judged: judged now, at the latest time
            flags |= _F_LATE
        else:
            self._done = t
        ms = self._base_ms + t // 1000
        us = t % 1000
        if self._timed:
            self._clock_to(ms, us)
        # (Judging never feeds the queue, so the slot still holds this event.)  A card read in
        # time (flags 0, _F_TIED or _F_ORDERED) goes on from _process to _on_card with those flags.
        self._process(kind, ms, us, q[k + 2], q[k + 3], q[k + 4], flags)



def _shifted(t, shift):
    t -= shift
    return t if t > _FLOOR else _FLOOR
