"""A digital input (button, slap pad, touch sensor, PN532 IRQ line) timestamped in a hard IRQ.

The handler does exactly one thing: store ``(source, time.ticks_us())`` into an
``InputRing``.  It allocates nothing, so it is safe as a *hard* IRQ (heap locked):
  * the bound method ``self._handler`` is created once in ``__init__`` and kept, so
    registering it never builds a new bound-method object later;
  * ``time.ticks_us()`` and ``pin.value()`` return small ints;
  * it stores into the ``InputRing``'s preallocated arrays (as ``InputRing.put`` does).

Release flag: when ``mark_release`` is set and the pin is at its *inactive* level when the
handler runs, the stored source is ``source | RELEASE`` (bit 15).  This lets the main loop
tell presses from releases with a both-edges trigger (e.g. STUCK long-press).  The level is
sampled some 20-100 us after the edge, so during contact bounce it can be wrong: debounce
first (``Debouncer`` locks a source out for a window after each accepted edge) and confirm
a long press with ``is_active()``.

The pin is passed in, already configured (direction, pull) by ``referee/board.py``.
"""

import time

from micropython import const

RELEASE = const(0x8000)  # flag OR-ed into the source id for release edges (the id: source & 0x7FFF)


class EdgeInput:
    def __init__(self, pin, source, ring, trigger, active_low=True, mark_release=False):
        self.pin = pin
        self.source = source
        self._release = source | RELEASE
        self._ring = ring
        self._active_level = 0 if active_low else 1
        self._mark = mark_release
        # Create the bound method once: pin.irq keeps this object, nothing is built per IRQ.
        self._handler = self._irq
        self.enable(trigger)

    def _irq(self, pin):
        # Hard IRQ context: no allocation, no exceptions, keep it short.  InputRing.put's
        # stores made here (a call less: the loop's step waits for this handler to return).
        t = time.ticks_us()
        ring = self._ring
        head = ring.head
        nxt = head + 1
        if nxt == ring.size:
            nxt = 0
        if nxt == ring.tail:
            ring.overflows += 1   # full: the new event is dropped
            return
        ring.sources[head] = self._release if self._mark and pin.value() != self._active_level else self.source
        ring.stamps[head] = t
        ring.head = nxt  # publish last

    def is_active(self):
        """True while the input is at its active level (pressed / touched)."""
        return self.pin.value() == self._active_level

    def disable(self):
        """Detach the IRQ handler (e.g. before a flash write or at shutdown)."""
        self.pin.irq(None)

    def enable(self, trigger):
        """Attach the IRQ handler (again) with ``trigger``."""
        self.pin.irq(self._handler, trigger, hard=True)
