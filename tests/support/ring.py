"""``InputRing`` for tests: the firmware's ring (drivers/input_ring.py) plus ``put`` and ``pop``,
so a test can fill a ring without a pin and read what a producer stored.

On the chip nothing calls these: the producer is ``EdgeInput``'s hard IRQ handler
(drivers/edge_input.py) and the consumer ``App.poll`` (referee/loop.py), each with the ring's
stores written out.  Tests of those two drive them for real; this double only watches.
"""

from drivers.input_ring import InputRing as _FirmwareRing


class InputRing(_FirmwareRing):
    def __init__(self, capacity=64):
        super().__init__(capacity)
        self.ticks = 0   # ticks of the event the last pop() returned

    def put(self, source, ticks):
        """Store one event as EdgeInput's handler does; False (an overflow counted) when full."""
        head = self.head
        nxt = head + 1 if head + 1 < self.size else 0
        if nxt == self.tail:
            self.overflows += 1
            return False
        self.sources[head] = source
        self.stamps[head] = ticks
        self.head = nxt
        return True

    def pop(self):
        """The oldest event's source (its ticks in ``self.ticks``), as App.poll reads it; -1 when empty."""
        tail = self.tail
        if tail == self.head:
            return -1
        src = self.sources[tail]
        self.ticks = self.stamps[tail]
        self.tail = tail + 1 if tail + 1 < self.size else 0
        return src
