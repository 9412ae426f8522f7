"""Preallocated event ring filled by hard IRQ handlers, drained by the main loop.

Each event is ``(source, ticks)``: a 16-bit source id (see ``referee/sources.py``; bit 15 is
free for a flag such as "release edge") and a ``time.ticks_us()`` value.  On the RP2040
ticks are < 2**30, so they fit a signed 32-bit ``array('i')`` slot and read back as small
ints (no heap allocation on either side).

Concurrency: single producer, single consumer, no locks.
  * Producer = ``put()``, or ``EdgeInput``'s hard IRQ handler, which makes the same stores
    itself (a call less in the handler, whose time delays the loop's step), called only
    from hard IRQ handlers.  On the rp2 port all GPIO IRQs
    are dispatched from one interrupt on core 0 and never nest, so producers are serialised
    and the main loop can never run in the middle of a ``put()``.
  * Consumer = ``pop()`` / ``drain()``, called only from the main loop.
  * ``head`` is written only by the producer, ``tail`` only by the consumer.  The producer
    fills the slot *before* publishing the new ``head``; the consumer reads the slot
    *before* publishing the new ``tail``.  Each of these is a single word store, atomic
    on the Cortex-M0+, which has no cache and no store reordering.  So an IRQ that arrives
    anywhere inside ``pop()`` sees either the old or the new tail, and in both cases only
    writes into a slot the consumer is not reading.  No ``disable_irq()`` is needed, and
    IRQ latency is never extended by the reader.
  * One slot is kept empty to tell "full" from "empty": a ring of ``capacity`` holds
    ``capacity`` events (the arrays get ``capacity + 1`` slots).

Overflow policy: when full, ``put()`` drops the *new* event and increments ``overflows``
(the consumer owns the oldest slots, so the producer cannot overwrite them).  The main
loop should compare ``overflows`` with the last value it saw and log the difference.
"""

from array import array


class InputRing:
    def __init__(self, capacity=64):
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        size = capacity + 1
        self.capacity = capacity
        self.size = size
        self.sources = array("H", bytes(2 * size))
        self.stamps = array("i", bytes(4 * size))
        self.head = 0  # next slot to write (producer only)
        self.tail = 0  # next slot to read (consumer only)
        self.overflows = 0  # events dropped because the ring was full (producer only)
        self.ticks = 0  # ticks of the event returned by the last successful pop()

    # --- producer side: hard IRQ context, must not allocate ---
    def put(self, source, ticks):
        """Store one event. Returns True, or False (and counts an overflow) when full."""
        head = self.head
        nxt = head + 1
        if nxt == self.size:
            nxt = 0
        if nxt == self.tail:
            self.overflows += 1
            return False
        self.sources[head] = source
        self.stamps[head] = ticks
        self.head = nxt  # publish last
        return True

    # --- consumer side: main loop ---
    def pop(self):
        """Oldest event's source id, or -1 when empty; its ticks are left in ``self.ticks``.

        Allocates nothing (ints stay small), so it may be used in tight loops::

            while True:
                src = ring.pop()
                if src < 0:
                    break
                handle(src, ring.ticks)
        """
        tail = self.tail
        if tail == self.head:
            return -1
        src = self.sources[tail]
        self.ticks = self.stamps[tail]
        tail += 1
        if tail == self.size:
            tail = 0
        self.tail = tail  # publish last: frees the slot for the producer
        return src

    def drain(self, src_out, ticks_out):
        """Move up to ``len(src_out)`` events into caller-owned arrays; returns the count."""
        n = 0
        limit = len(src_out)
        while n < limit:
            s = self.pop()
            if s < 0:
                break
            src_out[n] = s
            ticks_out[n] = self.ticks
            n += 1
        return n

    def __len__(self):
        n = self.head - self.tail
        if n < 0:
            n += self.size
        return n

    def clear(self):
        """Discard pending events (consumer side; e.g. between rounds)."""
        self.tail = self.head
