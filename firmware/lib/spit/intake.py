"""Event intake: order by hardware timestamp, match card reads to touches (R-PLAY-5).

Input events reach the referee out of order: an NFC identity read lands milliseconds after
the touch edge that marks the true landing, and readers are serviced one after the other.
``EventQueue`` therefore

* keeps each pile's unmatched touches sorted by their time (not by arrival);
* matches each card read to the earliest unmatched touch on its pile taken at most
  ``touch_match_us`` before it and not after it; the card then counts as landed at the touch
  time.  A read with no such touch (no sensor, or the sensor missed the landing) lands at the
  read's own time;
* never names a winner it cannot know (the race rule, docs/rules.md): a PN532 that finds two
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
  its read AND, for ``relist_us`` after a pile's last read, it is earlier than that read (a
  second tag of the same activation may still be reported with the activation's time), so
  that a later-arriving read of an earlier landing is still judged in order.
  With touch sensors the pending touches do the waiting, so ``reorder_us`` only has to cover
  the servicing skew of the inputs (a few ms) and a verdict follows the read at once;
* turns a touch that no read claimed within ``touch_match_us`` into a ``no_read`` event.

Everything is preallocated: feeding an event allocates nothing.  The game itself lives in the
subclass (``Referee``): it implements ``_on_card(ms, us, pile, card, player, tied)`` (a card read,
in landing order), ``_process(kind, ms, us, a, b, c, flags)`` (every other event, and a card that
arrived late: ``F_LATE``, ``F_TIED``) and ``_clock_to(ms, us)`` (time-driven transitions up to that
time), and clears ``_timed`` while no time-driven transition can happen (then ``_clock_to`` is not
called).

The per-landing path (a touch, its read, the loop's ``advance`` that releases it) is written for
the RP2040, where every Python call, attribute and global lookup costs microseconds: few method
layers, state in flat arrays read through locals, and the usual case (one touch waiting, events
arriving in time order) handled inline before the general code.  A call whose frame is bigger than
11 words also costs a heap allocation and a free on MicroPython (``fun_bc_call``), so the path
makes as few of them as it can.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

from array import array

EV_TOUCH = const(1)    # a: pile
EV_CARD = const(2)     # a: pile, b: card, c: player (-1 unknown)
EV_STUCK = const(3)    # a: player
EV_SLAP = const(4)     # a: player, b: pile
EV_READY = const(5)    # a: player
EV_UNDO = const(6)     # a: pile                 (correction: take back the last card)
EV_TOP = const(7)      # a: pile, b: card        (correction: the top card really is ...)
EV_ANSWER = const(8)   # a: player, b: value     (answer to the referee's question)
EV_TICK = const(9)     # time passes, nothing happened (log end marker)
EV_NO_READ = const(10)  # internal: a touch no card read claimed; a: pile
EVENT_NAMES = ("", "touch", "card", "stuck", "slap", "ready", "undo", "top", "answer", "tick", "no_read")

_CAP = const(32)         # buffered events (a few hundred ms of the fastest play)
_MASK = const(31)        # slot index modulo _CAP
_SLOT = const(8)         # ints per buffered event: kind, ms, us, a, b, c, flags (and one spare)
_TOUCH_CAP = const(8)    # unmatched touches per pile

F_LATE = const(1)        # _process flag: arrived after later events were judged
F_TIED = const(2)        # _process flag: cannot be ordered against the previous landing on its pile


def zeros(n):
    """An array of ``n`` C ints, all 0, made from ``n * 4`` zero bytes (``[0] * n`` would first
    build a list of ``n`` objects: twice that heap on a 32-bit port, four times on a 64-bit one)."""
    return array("i", bytes(4 * n))


class EventQueue:
    def __init__(self, npiles, reorder_us, touch_match_us, relist_us=0):
        self.npiles = npiles
        self.reorder_us = reorder_us
        self.touch_match_us = touch_match_us
        self.relist_us = relist_us
        # Windows split into (ms, us) once, so the hot path compares pairs without calls.
        self._hold_ms = reorder_us // 1000
        self._hold_us = reorder_us % 1000
        self._match_ms = touch_match_us // 1000
        self._match_us = touch_match_us % 1000
        self._relist_ms = relist_us // 1000 + 1
        # The buffer sorted by time: a ring of _CAP slots of _SLOT ints, _qn of them from slot _qh.
        self._q = zeros(_CAP * _SLOT)
        self._qh = 0
        self._qn = 0
        # Unmatched touches: pile p owns slots p*_TOUCH_CAP .. + _tcount[p], sorted by time.
        n = npiles * _TOUCH_CAP
        self._tms = array("i", [0] * n)
        self._tus = array("i", [0] * n)
        self._tflag = bytearray(n)   # F_TIED: this touch's card may have landed under the previous one
        self._tcount = array("i", [0] * npiles)
        self._touches = 0   # unmatched touches on all piles
        self._read_ms = array("i", [-1] * npiles)   # the last read's own time, per pile
        self._read_us = array("i", [0] * npiles)
        self._land_ms = array("i", [0] * npiles)    # ... and the landing time it was given
        self._land_us = array("i", [0] * npiles)
        self._relist_end = -1   # no read waits for a relist once the horizon is past this ms
        self.horizon_ms = 0
        self.horizon_us = 0
        self._done_ms = 0   # time of the last event handed to the game
        self._done_us = 0
        self.overflows = 0
        self._timed = True   # the subclass clears it while time alone can change nothing

    # --- input side ---
    def feed(self, kind, ms, us, a, b, c):
        """One input event with its hardware time (session ms + us within the ms)."""
        if ms > self.horizon_ms or (ms == self.horizon_ms and us > self.horizon_us):
            self.horizon_ms = ms
            self.horizon_us = us
        flags = 0
        if kind == EV_TOUCH and 0 <= a < self.npiles:
            # A touch only waits for its read: nothing becomes due until the next event.
            tcount = self._tcount
            if tcount[a] == 0:   # the usual case: the pile's only waiting touch
                i = a * _TOUCH_CAP
                self._tms[i] = ms
                self._tus[i] = us
                self._tflag[i] = 0
                tcount[a] = 1
                self._touches += 1
            else:
                self._push_touch(a, ms, us)
            return
        if kind == EV_CARD and 0 <= a < self.npiles:
            # The usual case first: one touch waits on the pile, taken at most touch_match_us
            # before this read and not after it: the card landed at that touch.
            i = a * _TOUCH_CAP
            tms = self._tms[i]
            tus = self._tus[i]
            dm = ms - tms
            if self._tcount[a] == 1 and (dm > 0 or (dm == 0 and tus <= us)) and (
                    dm < self._match_ms or (dm == self._match_ms and us - tus <= self._match_us)):
                self._read_ms[a] = ms
                self._read_us[a] = us
                if ms + self._relist_ms > self._relist_end:
                    self._relist_end = ms + self._relist_ms
                self._tcount[a] = 0
                self._touches -= 1
                flags = self._tflag[i]
                ms = tms
                us = tus
                self._land_ms[a] = ms
                self._land_us[a] = us
            else:
                flags = self._pair(a, ms, us)
                ms = self._land_ms[a]
                us = self._land_us[a]
        n = self._qn
        q = self._q
        if n > 0:
            k = ((self._qh + n - 1) & _MASK) * _SLOT   # the newest buffered event
            if n == _CAP or q[k + 1] > ms or (q[k + 1] == ms and q[k + 2] > us):
                self._insert(kind, ms, us, a, b, c, flags)
                self.advance(ms, us)
                return
        k = ((self._qh + n) & _MASK) * _SLOT   # in time order (the usual case): append
        q[k] = kind
        q[k + 1] = ms
        q[k + 2] = us
        q[k + 3] = a
        q[k + 4] = b
        q[k + 5] = c
        q[k + 6] = flags
        self._qn = n + 1
        self.advance(ms, us)

    def _pair(self, pile, ms, us):
        """Pair a read at (ms, us) on ``pile`` with a touch and set the pile's ``_land_ms/_us`` to
        its landing time: that touch's time, the previous read's landing (one activation read
        both), or the read's own time.  Returns the read's flags (``F_TIED`` or 0)."""
        read_ms = self._read_ms
        read_us = self._read_us
        rms = read_ms[pile]
        rus = read_us[pile]
        read_ms[pile] = ms
        read_us[pile] = us
        if ms + self._relist_ms > self._relist_end:
            self._relist_end = ms + self._relist_ms
        tcount = self._tcount
        if tcount[pile] > 0:
            base = pile * _TOUCH_CAP
            tms = self._tms
            tus = self._tus
            dm = ms - tms[base]
            if dm > self._match_ms or (dm == self._match_ms and us - tus[base] > self._match_us):
                self._expire_touches(pile, ms, us)   # (only when the first one is stale)
            n = tcount[pile]
            if n > 0 and (tms[base] < ms or (tms[base] == ms and tus[base] <= us)):
                # The card landed at the pile's first touch.  Every other touch up to this read:
                # its card was on the pile too when this tag answered, so which of the two this
                # read is cannot be told.
                tflag = self._tflag
                flags = tflag[base]
                self._land_ms[pile] = tms[base]
                self._land_us[pile] = tus[base]
                if n == 1:   # the usual case: nothing to shift
                    tcount[pile] = 0
                    self._touches -= 1
                    return flags
                for i in range(base + 1, base + n):
                    if tms[i] < ms or (tms[i] == ms and tus[i] <= us):
                        tflag[i] = F_TIED
                self._pop_touch(pile)
                return flags
        # No touch of its own: it landed at the read's time, unless the previous read on the pile
        # came from the same activation.
        land_ms = self._land_ms
        land_us = self._land_us
        if rms >= 0:
            dm = ms - rms
            if dm == 0 and us == rus:
                # Reported with the previous read's time: both answered one activation, so
                # they landed together as far as anyone can tell (unless that is judged).
                lms = land_ms[pile]
                if lms > self._done_ms or (lms == self._done_ms and land_us[pile] >= self._done_us):
                    return F_TIED   # (keeps that read's landing time)
            # Right after the previous read on the pile, the card may have been in the field
            # already when that read was made (read in UID order): a tie.
            if 0 <= dm <= self._relist_ms and dm * 1000 + us - rus <= self.relist_us:
                land_ms[pile] = ms
                land_us[pile] = us
                return F_TIED
        land_ms[pile] = ms
        land_us[pile] = us
        return 0

    def advance(self, ms, us):
        """Time has reached (ms, us): judge what is due (the device loop calls it every step)."""
        hms = self.horizon_ms
        hus = self.horizon_us
        if ms > hms or (ms == hms and us > hus):
            self.horizon_ms = hms = ms
            self.horizon_us = hus = us
        # Due: events at or before horizon - reorder_us ...
        tms = hms - self._hold_ms
        tus = hus - self._hold_us
        if tus < 0:
            tus += 1000
            tms -= 1
        # ... and, for relist_us after a pile's last read, before that read: another tag of
        # the same activation may still come (a reader resolving a collision reports it with
        # the activation's time, several loop steps later) ...
        if hms <= self._relist_end:
            relist = self.relist_us
            read_ms = self._read_ms
            for p in range(self.npiles):
                wms = read_ms[p]
                # (A read over a ms after tms holds nothing back: the one just made skips here.)
                if 0 <= wms <= tms + 1 and hms - wms <= self._relist_ms:
                    wus = self._read_us[p]
                    if (hms - wms) * 1000 + hus - wus < relist:
                        wus -= 1   # strictly before the read
                        if wus < 0:
                            wus += 1000
                            wms -= 1
                        if wms < tms or (wms == tms and wus < tus):
                            tms = wms
                            tus = wus
        # ... and before every touch still waiting for its read (each pile's first touch is
        # its earliest, once the stale ones are given up): that read lands earlier than anything
        # after the touch, so with touch sensors the hold can be short.
        if self._touches > 0:
            tcount = self._tcount
            for p in range(self.npiles):
                if tcount[p] > 0:
                    self._expire_touches(p, hms, hus)
                if tcount[p] > 0:
                    i = p * _TOUCH_CAP
                    wms = self._tms[i]
                    wus = self._tus[i] - 1   # strictly before the touch
                    if wus < 0:
                        wus += 1000
                        wms -= 1
                    if wms < tms or (wms == tms and wus < tus):
                        tms = wms
                        tus = wus
        # Judge what is due, earliest first (_release_first written out: no call per event).
        q = self._q
        while self._qn > 0:
            h = self._qh
            k = h * _SLOT
            ms = q[k + 1]
            us = q[k + 2]
            if ms > tms or (ms == tms and us > tus):
                break
            self._qh = (h + 1) & _MASK
            self._qn -= 1
            flags = q[k + 6]
            m = self._done_ms
            if ms < m or (ms == m and us < self._done_us):
                ms = m   # arrived after later events were judged: judged now, at the latest time
                us = self._done_us
                flags |= F_LATE
            else:
                self._done_ms = ms
                self._done_us = us
            if self._timed:
                self._clock_to(ms, us)
            if q[k] == EV_CARD and not flags & F_LATE:
                self._on_card(ms, us, q[k + 3], q[k + 4], q[k + 5], flags)
            else:
                self._process(q[k], ms, us, q[k + 3], q[k + 4], q[k + 5], flags)
        # Time-driven transitions (countdown end, slap window, game timer) up to there.
        m = self._done_ms
        if tms > m or (tms == m and tus > self._done_us):
            self._done_ms = tms
            self._done_us = tus
            if self._timed:
                self._clock_to(tms, tus)

    def flush(self):
        """End of input: judge everything still buffered."""
        for p in range(self.npiles):
            while self._tcount[p] > 0:
                self._unread_first(p)
        while self._qn > 0:
            self._release_first()
        self._clock_to(self.horizon_ms, self.horizon_us)

    # --- touches (per pile, sorted by time) ---
    def _push_touch(self, pile, ms, us):
        if self._tcount[pile] == _TOUCH_CAP:
            self._unread_first(pile)   # full: the oldest touch can only be a stale one
        base = pile * _TOUCH_CAP
        i = base + self._tcount[pile]
        tms = self._tms
        tus = self._tus
        tflag = self._tflag
        while i > base and (tms[i - 1] > ms or (tms[i - 1] == ms and tus[i - 1] > us)):
            tms[i] = tms[i - 1]
            tus[i] = tus[i - 1]
            tflag[i] = tflag[i - 1]
            i -= 1
        tms[i] = ms
        tus[i] = us
        tflag[i] = 0
        self._tcount[pile] += 1
        self._touches += 1

    def _unread_first(self, pile):
        """The pile's earliest touch will get no read: a ``no_read`` event at its time."""
        i = pile * _TOUCH_CAP
        self._insert(EV_NO_READ, self._tms[i], self._tus[i], pile, -1, -1, 0)
        self._pop_touch(pile)

    def _pop_touch(self, pile):
        base = pile * _TOUCH_CAP
        n = self._tcount[pile] - 1
        tms = self._tms
        tus = self._tus
        tflag = self._tflag
        for i in range(base, base + n):
            tms[i] = tms[i + 1]
            tus[i] = tus[i + 1]
            tflag[i] = tflag[i + 1]
        self._tcount[pile] = n
        self._touches -= 1

    def _expire_touches(self, pile, ms, us):
        # Touches more than touch_match_us before (ms, us) can no longer be claimed.
        lms = ms - self._match_ms
        lus = us - self._match_us
        if lus < 0:
            lus += 1000
            lms -= 1
        i = pile * _TOUCH_CAP
        while self._tcount[pile] > 0:
            tms = self._tms[i]
            if tms > lms or (tms == lms and self._tus[i] >= lus):
                return
            self._unread_first(pile)

    # --- the sorted buffer ---
    def _insert(self, kind, ms, us, a, b, c, flags):
        if self._qn == _CAP:
            self.overflows += 1
            self._release_first()   # judge the oldest now
        # Insert after every event at the same or an earlier time (stable by arrival).
        q = self._q
        h = self._qh
        i = self._qn
        while i > 0:
            j = ((h + i - 1) & _MASK) * _SLOT
            if q[j + 1] < ms or (q[j + 1] == ms and q[j + 2] <= us):
                break
            k = ((h + i) & _MASK) * _SLOT
            for f in range(7):
                q[k + f] = q[j + f]
            i -= 1
        k = ((h + i) & _MASK) * _SLOT
        q[k] = kind
        q[k + 1] = ms
        q[k + 2] = us
        q[k + 3] = a
        q[k + 4] = b
        q[k + 5] = c
        q[k + 6] = flags
        self._qn += 1

    def _release_first(self):
        """Judge the earliest buffered event (flush, overflow; ``advance`` has its own copy)."""
        q = self._q
        h = self._qh
        k = h * _SLOT
        self._qh = (h + 1) & _MASK
        self._qn -= 1
        ms = q[k + 1]
        us = q[k + 2]
        flags = q[k + 6]
        m = self._done_ms
        if ms < m or (ms == m and us < self._done_us):
            # Arrived after later events were judged: judge it now, at the latest time.
            ms = m
            us = self._done_us
            flags |= F_LATE
        else:
            self._done_ms = ms
            self._done_us = us
        if self._timed:
            self._clock_to(ms, us)
        # (Judging never feeds the queue, so the slot still holds this event.)
        if q[k] == EV_CARD and not flags & F_LATE:   # a card read in time: the usual case
            self._on_card(ms, us, q[k + 3], q[k + 4], q[k + 5], flags)
        else:
            self._process(q[k], ms, us, q[k + 3], q[k + 4], q[k + 5], flags)

    # --- hooks for the game ---
    def _clock_to(self, ms, us):
        pass

    def _on_card(self, ms, us, pile, card, player, tied):
        pass

    def _process(self, kind, ms, us, a, b, c, flags):
        pass
