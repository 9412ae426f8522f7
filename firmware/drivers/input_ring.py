"""Preallocated event ring filled by hard IRQ handlers, drained by the main loop.

Each event is ``(source, ticks)``: a 16-bit source id (see ``referee/sources.py``; bit 15 is
free for a flag such as "release edge") and a ``time.ticks_us()`` value.  On the RP2040
ticks are < 2**30, so they fit a signed 32-bit ``array('i')`` slot and read back as small
ints (no heap allocation on either side).

Concurrency: single producer, single consumer, no locks.  The ring is data; the protocol is
written out where it runs (a call less per edge on either side), once each:
  * Producer = ``EdgeInput``'s hard IRQ handler (drivers/edge_input.py).  On the rp2 port all
    GPIO IRQs are dispatched from one interrupt on core 0 and never nest, so producers are
    serialised and the main loop can never run in the middle of a store.
  * Consumer = ``App.poll`` (referee/loop.py), called only from the main loop.
  * ``head`` is written only by the producer, ``tail`` only by the consumer.  The producer
    fills the slot *before* publishing the new ``head``; the consumer reads the slot
    *before* publishing the new ``tail``.  Each of these is a single word store, atomic
    on the Cortex-M0+, which has no cache and no store reordering.  So an IRQ that arrives
    anywhere inside the consumer's read sees either the old or the new tail, and in both cases only
    writes into a slot the consumer is not reading.  No ``disable_irq()`` is needed, and
    IRQ latency is never extended by the reader.
  * One slot is kept empty to tell "full" from "empty": a ring of ``capacity`` holds
    ``capacity`` events (the arrays get ``capacity + 1`` slots).

Overflow policy: when full, the producer drops the *new* event and increments ``overflows``
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

    def __len__(self):
        n = self.head - self.tail
        if n < 0:
            n += self.size
        return n

    def clear(self):
        """Discard pending events (consumer side; e.g. between rounds)."""
        self.tail = self.head
