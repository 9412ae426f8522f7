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
subclass (``Referee``): it implements ``_process(kind, ms, us, a, b, c, flags)`` (``F_LATE``,
``F_TIED``) and ``_clock_to(ms, us)`` (time-driven transitions up to that time), and clears
``_timed`` while no time-driven transition can happen (then ``_clock_to`` is not called).
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
_TOUCH_CAP = const(8)    # unmatched touches per pile

F_LATE = const(1)        # _process flag: arrived after later events were judged
F_TIED = const(2)        # _process flag: cannot be ordered against the previous landing on its pile
_PAIRED = const(4)       # _pair: the pile's first touch is this read's landing
_SHARED = const(8)       # _pair: read in one activation with the previous read: same landing


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
        self._qk = array("i", [0] * _CAP)
        self._qms = array("i", [0] * _CAP)
        self._qus = array("i", [0] * _CAP)
        self._qa = array("i", [0] * _CAP)
        self._qb = array("i", [0] * _CAP)
        self._qc = array("i", [0] * _CAP)
        self._qf = bytearray(_CAP)
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
        self._relist_ms = relist_us // 1000 + 1
        self.horizon_ms = 0
        self.horizon_us = 0
        self._done_ms = 0   # time of the last event handed to _process
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
            self._push_touch(a, ms, us)
            return
        if kind == EV_CARD and 0 <= a < self.npiles:
            flags = self._pair(a, ms, us)
            if flags & _PAIRED:   # the card landed at that touch
                i = a * _TOUCH_CAP
                ms = self._tms[i]
                us = self._tus[i]
                if self._tcount[a] == 1:   # the usual case: nothing to shift
                    self._tcount[a] = 0
                    self._touches -= 1
                else:
                    self._pop_touch(a)
            elif flags & _SHARED:
                ms = self._land_ms[a]
                us = self._land_us[a]
            flags &= F_TIED
            self._land_ms[a] = ms
            self._land_us[a] = us
        self._insert(kind, ms, us, a, b, c, flags)
        self._release(False)

    def _pair(self, pile, ms, us):
        """Pair a read at (ms, us) on ``pile`` with a touch: its flags, with ``_PAIRED`` when the
        pile's first touch is its landing (else it landed at the read's own time)."""
        rms = self._read_ms[pile]
        rus = self._read_us[pile]
        self._read_ms[pile] = ms
        self._read_us[pile] = us
        if self._tcount[pile] > 0:
            base = pile * _TOUCH_CAP
            tms = self._tms
            tus = self._tus
            dm = ms - tms[base]
            if dm > self._match_ms or (dm == self._match_ms and us - tus[base] > self._match_us):
                self._expire_touches(pile, ms, us)   # (only when the first one is stale)
            n = self._tcount[pile]
            if n > 0 and (tms[base] < ms or (tms[base] == ms and tus[base] <= us)):
                # Every other touch up to this read: its card was on the pile too when this
                # tag answered, so which of the two this read is cannot be told.
                for i in range(base + 1, base + n):
                    if tms[i] < ms or (tms[i] == ms and tus[i] <= us):
                        self._tflag[i] = F_TIED
                return self._tflag[base] | _PAIRED
        # No touch of its own.  Right after the previous read on the pile, the card may have
        # been in the field already when that read was made (read in UID order): a tie.
        if rms >= 0:
            dm = ms - rms
            if dm == 0 and us == rus:
                # Reported with the previous read's time: both answered one activation, so
                # they landed together as far as anyone can tell (unless that is judged).
                lms = self._land_ms[pile]
                if lms > self._done_ms or (lms == self._done_ms and self._land_us[pile] >= self._done_us):
                    return F_TIED | _SHARED
            if 0 <= dm <= self._relist_ms and dm * 1000 + us - rus <= self.relist_us:
                return F_TIED
        return 0

    def advance(self, ms, us):
        """Time has reached (ms, us) with nothing new: release what is due (device loop)."""
        if ms > self.horizon_ms or (ms == self.horizon_ms and us > self.horizon_us):
            self.horizon_ms = ms
            self.horizon_us = us
        self._release(False)

    def flush(self):
        """End of input: judge everything still buffered."""
        self._release(True)

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
            self._release_first()
        # Insert after every event at the same or an earlier time (stable by arrival).
        i = self._qn
        qms = self._qms
        qus = self._qus
        while i > 0 and (qms[i - 1] > ms or (qms[i - 1] == ms and qus[i - 1] > us)):
            qms[i] = qms[i - 1]
            qus[i] = qus[i - 1]
            self._qk[i] = self._qk[i - 1]
            self._qa[i] = self._qa[i - 1]
            self._qb[i] = self._qb[i - 1]
            self._qc[i] = self._qc[i - 1]
            self._qf[i] = self._qf[i - 1]
            i -= 1
        qms[i] = ms
        qus[i] = us
        self._qk[i] = kind
        self._qa[i] = a
        self._qb[i] = b
        self._qc[i] = c
        self._qf[i] = flags
        self._qn += 1

    def _release_first(self):
        qk = self._qk
        qms = self._qms
        qus = self._qus
        qa = self._qa
        qb = self._qb
        qc = self._qc
        qf = self._qf
        kind = qk[0]
        ms = qms[0]
        us = qus[0]
        a = qa[0]
        b = qb[0]
        c = qc[0]
        flags = qf[0]
        n = self._qn - 1
        if n:
            for i in range(n):
                qk[i] = qk[i + 1]
                qms[i] = qms[i + 1]
                qus[i] = qus[i + 1]
                qa[i] = qa[i + 1]
                qb[i] = qb[i + 1]
                qc[i] = qc[i + 1]
                qf[i] = qf[i + 1]
        self._qn = n
        if ms < self._done_ms or (ms == self._done_ms and us < self._done_us):
            # Arrived after later events were judged: judge it now, at the latest time.
            ms = self._done_ms
            us = self._done_us
            flags |= F_LATE
        else:
            self._done_ms = ms
            self._done_us = us
        if self._timed:
            self._clock_to(ms, us)
        self._process(kind, ms, us, a, b, c, flags)

    def _release(self, everything):
        hms = self.horizon_ms
        hus = self.horizon_us
        if self._touches > 0:
            for p in range(self.npiles):
                if everything:
                    while self._tcount[p] > 0:
                        self._unread_first(p)
                elif self._tcount[p] > 0:
                    self._expire_touches(p, hms, hus)
        if everything:
            while self._qn > 0:
                self._release_first()
            self._clock_to(hms, hus)
            return
        # Due: events at or before horizon - reorder_us ...
        tms = hms - self._hold_ms
        tus = hus - self._hold_us
        if tus < 0:
            tus += 1000
            tms -= 1
        # ... and, for relist_us after a pile's last read, before that read: another tag of
        # the same activation may still come (a reader resolving a collision reports it with
        # the activation's time, several loop steps later) ...
        relist = self.relist_us
        if relist > 0:
            for p in range(self.npiles):
                wms = self._read_ms[p]
                if wms >= 0 and hms - wms <= self._relist_ms:
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
        # its earliest): that read lands earlier than anything after the touch, so with touch
        # sensors the hold can be short.
        if self._touches > 0:
            for p in range(self.npiles):
                if self._tcount[p] > 0:
                    i = p * _TOUCH_CAP
                    wms = self._tms[i]
                    wus = self._tus[i] - 1   # strictly before the touch
                    if wus < 0:
                        wus += 1000
                        wms -= 1
                    if wms < tms or (wms == tms and wus < tus):
                        tms = wms
                        tus = wus
        qms = self._qms
        qus = self._qus
        while self._qn > 0 and (qms[0] < tms or (qms[0] == tms and qus[0] <= tus)):
            self._release_first()
        # Time-driven transitions (countdown end, slap window, game timer) up to there.
        if tms > self._done_ms or (tms == self._done_ms and tus > self._done_us):
            self._done_ms = tms
            self._done_us = tus
            if self._timed:
                self._clock_to(tms, tus)

    # --- hooks for the game ---
    def _clock_to(self, ms, us):
        pass

    def _process(self, kind, ms, us, a, b, c, flags):
        pass
