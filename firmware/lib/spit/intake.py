"""Event intake: order by hardware timestamp, match card reads to touches (R-PLAY-5).

Input events reach the referee out of order: an NFC identity read lands milliseconds after
the touch edge that marks the true landing, and readers are serviced one after the other.
``EventQueue`` therefore

* matches each card read to the earliest unmatched touch on its pile (taken at most
  ``touch_match_us`` before the read); the card then counts as landed at the touch time.
  With no touch sensor (no touch before the read) the read's own time is used.  On a pile
  whose sensor has been seen, a read with no touch left shares the last claimed touch's time
  (two landings inside the sensor's debounce made one edge): the referee calls a tie;
* keeps events in a small buffer sorted by time and releases one only when the newest time
  seen (the *horizon*) is ``reorder_us`` past it AND no touch earlier than it still waits for
  its read, so that a later-arriving read of an earlier landing is still judged in order.
  With touch sensors the pending touches do the waiting, so ``reorder_us`` only has to cover
  the servicing skew of the inputs (a few ms) and a verdict follows the read at once;
* turns a touch that no read claimed within ``touch_match_us`` into a ``no_read`` event.

Everything is preallocated: feeding an event allocates nothing.  The game itself lives in the
subclass (``Referee``): it implements ``_process(kind, ms, us, a, b, c)`` and
``_clock_to(ms, us)`` (time-driven transitions up to that time).
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


class EventQueue:
    def __init__(self, npiles, reorder_us, touch_match_us):
        self.npiles = npiles
        self.reorder_us = reorder_us
        self.touch_match_us = touch_match_us
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
        self._qn = 0
        n = npiles * _TOUCH_CAP
        self._tms = array("i", [0] * n)
        self._tus = array("i", [0] * n)
        self._thead = array("i", [0] * npiles)
        self._tcount = array("i", [0] * npiles)
        self._touches = 0   # unmatched touches on all piles
        self._claimed_ms = array("i", [-1] * npiles)   # the last touch a read claimed, per pile
        self._claimed_us = array("i", [0] * npiles)
        self.horizon_ms = 0
        self.horizon_us = 0
        self._done_ms = 0   # time of the last event handed to _process
        self._done_us = 0
        self.overflows = 0

    # --- input side ---
    def feed(self, kind, ms, us, a, b, c):
        """One input event with its hardware time (session ms + us within the ms)."""
        if ms > self.horizon_ms or (ms == self.horizon_ms and us > self.horizon_us):
            self.horizon_ms = ms
            self.horizon_us = us
        if kind == EV_TOUCH and 0 <= a < self.npiles:
            # A touch only waits for its read: nothing becomes due until the next event.
            self._push_touch(a, ms, us)
            return
        if kind == EV_CARD and 0 <= a < self.npiles:
            matched = False
            if self._tcount[a] > 0:
                self._expire_touches(a, ms, us)
                if self._tcount[a] > 0:
                    i = a * _TOUCH_CAP + self._thead[a]
                    tms = self._tms[i]
                    tus = self._tus[i]
                    if tms < ms or (tms == ms and tus <= us):
                        ms = tms
                        us = tus
                        matched = True
                        self._pop_touch(a)
                        self._claimed_ms[a] = ms
                        self._claimed_us[a] = us
            if not matched and self._claimed_ms[a] >= 0:
                # This pile has a touch sensor, yet no touch is left for this read: the
                # sensor merged two landings into one edge (they came within its debounce).
                # The card landed with the last claimed touch, as far as anyone can tell,
                # so the referee sees the same landing time (a tie), never a made-up order.
                cms = self._claimed_ms[a]
                cus = self._claimed_us[a]
                dm = ms - cms
                if 0 <= dm <= self._match_ms + 1 and dm * 1000 + (us - cus) >= 0 and \
                        dm * 1000 + (us - cus) <= self.touch_match_us:
                    ms = cms
                    us = cus
        self._insert(kind, ms, us, a, b, c)
        self._release(False)

    def advance(self, ms, us):
        """Time has reached (ms, us) with nothing new: release what is due (device loop)."""
        if ms > self.horizon_ms or (ms == self.horizon_ms and us > self.horizon_us):
            self.horizon_ms = ms
            self.horizon_us = us
        self._release(False)

    def flush(self):
        """End of input: judge everything still buffered."""
        self._release(True)

    # --- touches ---
    def _push_touch(self, pile, ms, us):
        if self._tcount[pile] == _TOUCH_CAP:
            # Full: the oldest touch can only be a stale one; report it unread.
            i = pile * _TOUCH_CAP + self._thead[pile]
            self._insert(EV_NO_READ, self._tms[i], self._tus[i], pile, -1, -1)
            self._pop_touch(pile)
        i = pile * _TOUCH_CAP + (self._thead[pile] + self._tcount[pile]) % _TOUCH_CAP
        self._tms[i] = ms
        self._tus[i] = us
        self._tcount[pile] += 1
        self._touches += 1

    def _pop_touch(self, pile):
        self._thead[pile] = (self._thead[pile] + 1) % _TOUCH_CAP
        self._tcount[pile] -= 1
        self._touches -= 1

    def _expire_touches(self, pile, ms, us):
        # Touches more than touch_match_us before (ms, us) can no longer be claimed.
        lms = ms - self._match_ms
        lus = us - self._match_us
        if lus < 0:
            lus += 1000
            lms -= 1
        while self._tcount[pile] > 0:
            i = pile * _TOUCH_CAP + self._thead[pile]
            tms = self._tms[i]
            if tms > lms or (tms == lms and self._tus[i] >= lus):
                return
            self._insert(EV_NO_READ, tms, self._tus[i], pile, -1, -1)
            self._pop_touch(pile)

    # --- the sorted buffer ---
    def _insert(self, kind, ms, us, a, b, c):
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
            i -= 1
        qms[i] = ms
        qus[i] = us
        self._qk[i] = kind
        self._qa[i] = a
        self._qb[i] = b
        self._qc[i] = c
        self._qn += 1

    def _release_first(self):
        qk = self._qk
        qms = self._qms
        qus = self._qus
        qa = self._qa
        qb = self._qb
        qc = self._qc
        kind = qk[0]
        ms = qms[0]
        us = qus[0]
        a = qa[0]
        b = qb[0]
        c = qc[0]
        n = self._qn - 1
        for i in range(n):
            qk[i] = qk[i + 1]
            qms[i] = qms[i + 1]
            qus[i] = qus[i + 1]
            qa[i] = qa[i + 1]
            qb[i] = qb[i + 1]
            qc[i] = qc[i + 1]
        self._qn = n
        late = ms < self._done_ms or (ms == self._done_ms and us < self._done_us)
        if late:
            # Arrived after later events were judged: judge it now, at the latest time.
            ms = self._done_ms
            us = self._done_us
        else:
            self._done_ms = ms
            self._done_us = us
        self._clock_to(ms, us)
        self._process(kind, ms, us, a, b, c, late)

    def _release(self, everything):
        hms = self.horizon_ms
        hus = self.horizon_us
        if self._touches > 0:
            for p in range(self.npiles):
                if everything:
                    while self._tcount[p] > 0:
                        i = p * _TOUCH_CAP + self._thead[p]
                        self._insert(EV_NO_READ, self._tms[i], self._tus[i], p, -1, -1)
                        self._pop_touch(p)
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
        # ... and before every touch still waiting for its read: that read lands earlier
        # than anything after the touch, so with touch sensors the hold can be short.
        if self._touches > 0:
            for p in range(self.npiles):
                if self._tcount[p] > 0:
                    i = p * _TOUCH_CAP + self._thead[p]
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
            self._clock_to(tms, tus)

    # --- hooks for the game ---
    def _clock_to(self, ms, us):
        pass

    def _process(self, kind, ms, us, a, b, c, late):
        pass
