"""Input stamps taken while a flash write masked interrupts (docs/hardware.md, flash writes).

The rp2 port masks interrupts for each flash erase or program: an input edge during one is
latched and stamped when the write ends, in GPIO order, so its stamp says nothing about its
order against other edges in the same write.  ``FlashStalls`` keeps the window of the last
``Logbook`` write (its ``stall_from_us``/``stall_to_us`` ticks, plus the IRQ latency) and moves
every stamp inside it to the window's end: two landings in one write share a time, so the
engine calls their race a tie (its tie window), and the log carries that time.

    stalls = FlashStalls()
    if stalls.watch_ms >= 0 or (book is not None and book.flushes != stalls.seen):
        ticks = stalls.stamp(ticks, book, now_ms, paused)      # (the cheap test first)
"""

import time

from micropython import const

_SLACK_US = const(300)     # IRQ handlers run just after a flash write re-enables interrupts
_WATCH_MS = const(1000)    # how long after a write stamps are compared with its window


class FlashStalls:
    def __init__(self):
        self.uncertain = 0         # input stamps moved to the end of a flash write
        self.midplay_writes = 0    # flash writes while cards could land (log buffer overflow)
        self.seen = 0              # the Logbook's write count last looked at
        self.watch_ms = -1         # session ms until which stamps are compared (-1: none)
        self._from = 0
        self._to = 0

    def note(self, book, now_ms, paused):
        """``book`` wrote (``paused``: where no card can land): watch its window a while."""
        self.seen = book.flushes
        self._from = book.stall_from_us
        self._to = time.ticks_add(book.stall_to_us, _SLACK_US)
        self.watch_ms = now_ms + _WATCH_MS
        if not paused:
            self.midplay_writes += 1

    def stamp(self, ticks, book, now_ms, paused):
        """``ticks``, or the end of the last write if ``ticks`` fell inside it."""
        if book is not None and book.flushes != self.seen:
            # A write in this very step (the log outgrew its records): edges latched during
            # it may be next in the ring.
            self.note(book, now_ms, paused)
        if self.watch_ms >= 0:
            if now_ms > self.watch_ms:
                self.watch_ms = -1
            elif time.ticks_diff(ticks, self._from) >= 0 and time.ticks_diff(self._to, ticks) >= 0:
                self.uncertain += 1
                return self._to
        return ticks
