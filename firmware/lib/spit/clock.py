"""Session time from the RP2040's wrapping tick counters.

``SessionClock`` turns ``ticks_us``/``ticks_ms`` into session time ``(ms, us)`` (see
``spit.timebase``).  ``ticks_diff`` is only valid below 2**29 us (8.9 min), so the clock is
re-anchored every time the firmware loop calls ``update()``; after a pause longer than
``_FINE_LIMIT_MS`` (the loop was blocked, or nobody called it), the 2**30 ms period of
``ticks_ms`` (12.4 days) still gives the elapsed time to the millisecond.  Ticks are small
ints, and so is every intermediate value: no big-int arithmetic, no allocation.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

_FINE_LIMIT_MS = const(400000)    # below 2**29 us = 536 s, with margin
_AHEAD_US = const(1000000)        # an IRQ stamp is never this far after the last update
_HALF_PERIOD_US = const(0x20000000)   # 2**29: ticks_us's period is twice this on the RP2040


class SessionClock:
    """Unwraps device ticks into session time ``(ms, us)`` since ``start()``.

    The tick functions are injected (``time.ticks_us`` etc. on the device, a
    ``VirtualClock`` in tests), so this module stays hardware-free.  After ``update()`` the
    current session time is in ``ms``/``us``; ``convert(ticks)`` puts the session time of an
    IRQ timestamp (taken at most ~8 minutes before or after the last update) into
    ``ev_ms``/``ev_us`` (one taken up to 2**30 us - 1 s before it, after a long pause, too).
    Nothing here allocates.
    """

    def __init__(self, ticks_us, ticks_ms, ticks_diff):
        self._ticks_us = ticks_us
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self.ms = 0
        self.us = 0
        self.ev_ms = 0
        self.ev_us = 0
        self.coarse_jumps = 0   # pauses that had to be bridged with ticks_ms
        self.start()   # (sets _anchor_us, _anchor_ms: the ticks of the last update)

    def start(self):
        """Session time 0 is now."""
        self._anchor_us = self._ticks_us()
        self._anchor_ms = self._ticks_ms()
        self.ms = 0
        self.us = 0

    def update(self):
        """Advance the session time to now and re-anchor. Call it every loop iteration."""
        now_us = self._ticks_us()
        now_ms = self._ticks_ms()
        elapsed_ms = self._ticks_diff(now_ms, self._anchor_ms)
        if elapsed_ms < _FINE_LIMIT_MS:
            d = self._ticks_diff(now_us, self._anchor_us)
            if d < 0:
                d = 0  # never go backwards
            q = d // 1000
            self.ms += q
            self.us += d - q * 1000
            if self.us >= 1000:
                self.us -= 1000
                self.ms += 1
        else:
            # A long pause: ticks_us may have wrapped any number of times; ticks_ms has not.
            self.coarse_jumps += 1
            self.ms += elapsed_ms
        self._anchor_us = now_us
        self._anchor_ms = now_ms

    def convert(self, ticks):
        """Session time of a ``ticks_us`` stamp near the last update, into ev_ms/ev_us.  A stamp
        is taken before it is converted (at most a loop step after the last update): one that
        ``ticks_diff`` puts over ``_AHEAD_US`` after the update was taken more than 2**29 us
        before it (the loop was held up that long; up to 2**30 us - 1 s back, ticks_us's
        period), and is read as such instead of as a time 8 minutes ahead."""
        d = self._ticks_diff(ticks, self._anchor_us)
        if d > _AHEAD_US:
            d = d - _HALF_PERIOD_US - _HALF_PERIOD_US   # (small ints all the way)
        q = d // 1000  # floor division: negative d (stamp before the anchor) works too
        ms = self.ms + q
        us = self.us + (d - q * 1000)
        if us >= 1000:
            us -= 1000
            ms += 1
        if ms < 0:
            ms = 0
            us = 0
        self.ev_ms = ms
        self.ev_us = us
