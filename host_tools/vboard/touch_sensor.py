"""A touch sensor's model for the virtual table: when a landing's edge comes, if at all.

The documented sensor (docs/hardware.md: a piezo or capacitive pad with a digital output, its
first edge stamped by a hard IRQ) fires at the landing.  Real sensors lag and miss; nothing
settles by how much, so both are named options of the model, for the benches to sweep:

    sensor = TouchSensor(delay_us=(0, 8000), miss_rate=0.05, seed=1)
    edge = sensor.edge(at_us)      # the edge's time (at_us + a delay), or None: missed

``delay_us``: the edge comes a uniform (lo, hi) us after the landing (default (0, 0): at once);
``miss_rate``: the share of landings that give no edge at all.  Deterministic for a seed (its
own generator: plain Python that also runs under the MicroPython unix port).
"""


class TouchSensor:
    def __init__(self, delay_us=(0, 0), miss_rate=0.0, seed=1):
        lo, hi = delay_us
        if not 0 <= lo <= hi:
            raise ValueError("delay_us must be (lo, hi) with 0 <= lo <= hi, not %r" % (delay_us,))
        if not 0.0 <= miss_rate <= 1.0:
            raise ValueError("miss_rate must be within 0..1, not %r" % (miss_rate,))
        self.delay_us = (lo, hi)
        self.miss_rate = miss_rate
        self._state = (seed * 2654435761 + 12345) & 0x7FFFFFFF or 1
        self.edges = 0
        self.missed = 0

    def _next(self):
        # A 31-bit LCG (small ints on any port): uniform enough for delays and misses.
        self._state = (self._state * 1103515245 + 12345) & 0x7FFFFFFF
        return self._state

    def _uniform(self):
        return (self._next() >> 7) / float(1 << 24)

    def edge(self, at_us):
        """The time of the edge of a landing at ``at_us``, or None if the sensor misses it."""
        if self.miss_rate > 0.0 and self._uniform() < self.miss_rate:
            self.missed += 1
            return None
        lo, hi = self.delay_us
        self.edges += 1
        if hi > lo:
            return at_us + lo + int(self._uniform() * (hi - lo + 1))
        return at_us + lo

    def describe(self):
        lo, hi = self.delay_us
        return "delay %g-%g ms, %g %% missed" % (lo / 1000.0, hi / 1000.0, 100.0 * self.miss_rate)
