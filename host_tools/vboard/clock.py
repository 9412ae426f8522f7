"""A virtual, wrapping device clock.

The RP2040's ``time.ticks_us`` wraps every 2**30 us and ``ticks_ms`` every 2**30 ms.  The
unix port's ticks never wrap, so tests inject this clock instead.  ``now_us`` is the true
elapsed time (an unbounded Python int, host side only); the ticks functions return it
masked like the device does.
"""

_PERIOD = 1 << 30
_MASK = _PERIOD - 1
_HALF = _PERIOD >> 1


class VirtualClock:
    def __init__(self, start_us=0):
        # start_us lets a test begin just below a wrap, e.g. (1 << 30) - 5000.
        self.now_us = start_us
        # during_wait(until_us): what the outside world does while the firmware sleeps (a
        # sleep does not hold interrupts off on the chip); it may move now_us up to until_us.
        self.during_wait = None

    def advance_us(self, us):
        """The firmware waits ``us`` (its sleeps): the world's events in between happen at
        their own time (``during_wait``), so an IRQ they raise stamps that time."""
        if us < 0:
            raise ValueError("time cannot go backwards")
        until = self.now_us + us
        if self.during_wait is not None:
            self.during_wait(until)
        if until > self.now_us:
            self.now_us = until

    def advance_to_us(self, us):
        if us > self.now_us:
            self.now_us = us

    # --- the time-module API the firmware uses ---
    def ticks_us(self):
        return self.now_us & _MASK

    def ticks_ms(self):
        return (self.now_us // 1000) & _MASK

    def ticks_cpu(self):
        return self.now_us & _MASK

    @staticmethod
    def ticks_add(ticks, delta):
        return (ticks + delta) & _MASK

    @staticmethod
    def ticks_diff(a, b):
        return ((a - b + _HALF) & _MASK) - _HALF

    def sleep_ms(self, ms):
        self.advance_us(ms * 1000)

    def sleep_us(self, us):
        self.advance_us(us)

    def sleep(self, s):
        self.advance_us(int(s * 1000000))

    def time(self):
        return self.now_us // 1000000
