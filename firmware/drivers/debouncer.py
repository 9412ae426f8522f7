"""Debounce drained input events outside the IRQ, with wrap-safe tick arithmetic.

``Debouncer.accept(source, ticks)`` is called by the main loop for every event taken from
the ``InputRing``.  For each source it remembers the ticks of the last *accepted* event and
drops any event that arrives less than the source's window after it (contact bounce on
either edge).  Bit 15 of the source id (the ``RELEASE`` flag of ``EdgeInput``) is ignored
for the lookup, so a release bouncing right after a press is dropped too.

Ticks wrap (``ticks_us`` has period 2**30 on the RP2040) and ``time.ticks_diff`` is only
meaningful for gaps below 2**29 us (~9 min).  So:
  * a *negative* difference (a gap of 2**29..2**30 us aliased) is treated as "long ago";
  * ``expire(now)`` should be called now and then (say once a second) from the main loop:
    it forgets sources idle for more than ``_EXPIRE_US``, so a gap that aliases to a tiny
    positive value after a full wrap can never drop a real press.

All state lives in preallocated arrays; ``accept`` and ``expire`` allocate nothing.
"""

import time
from array import array

from micropython import const

_SOURCE_MASK = const(0x7FFF)
_EXPIRE_US = const(1 << 27)  # ~134 s; well inside the valid ticks_diff range


class Debouncer:
    def __init__(self, n_sources, window_us=20000):
        self.n_sources = n_sources
        self._window = array("i", [window_us] * n_sources)
        self._last = array("i", bytes(4 * n_sources))
        self._seen = bytearray(n_sources)
        self.dropped = 0  # bounces dropped so far
        self.unknown = 0  # events whose source id is outside 0..n_sources-1

    def set_window(self, source, window_us):
        """Per-source window (touch sensors may need less than buttons)."""
        self._window[source & _SOURCE_MASK] = window_us

    def accept(self, source, ticks):
        """True if the event is a real edge, False if it is a bounce (or an unknown source)."""
        i = source & _SOURCE_MASK
        if i >= self.n_sources:
            self.unknown += 1
            return False
        if self._seen[i]:
            d = time.ticks_diff(ticks, self._last[i])
            if 0 <= d < self._window[i]:
                self.dropped += 1
                return False
        self._seen[i] = 1
        self._last[i] = ticks
        return True

    def expire(self, now_ticks):
        """Forget sources idle for a long time (keeps ``accept`` correct across wraps)."""
        for i in range(self.n_sources):
            if self._seen[i]:
                d = time.ticks_diff(now_ticks, self._last[i])
                if d < 0 or d > _EXPIRE_US:
                    self._seen[i] = 0

    def reset(self):
        for i in range(self.n_sources):
            self._seen[i] = 0
