"""Exclusive-time profiler for bench/bench_firmware.py's unix-port part: times each wrapped
firmware callable on its own (inner wrapped calls subtracted), and counts the calls into the
virtual board's fakes instead of timing them.  Runs under CPython and the MicroPython unix port.
"""


class Profiler:
    """Exclusive (self) time per named wrapped callable, with a call stack, on the real clock.

    ``wrap(obj, attr, name)`` replaces ``obj.attr`` by a timed wrapper.  A call's exclusive time
    is its wall time minus the wall time of the wrapped calls made inside it, minus the
    wrapper's own cost that leaks into the caller (``leak_us`` per inner call, calibrated).
    Names starting with ``fake:`` are the virtual board (fake bus, pins, time proxy, strip
    write): their time is dropped; only their call count is kept (real C calls on the device).
    Runs under CPython and the MicroPython unix port (``time.ticks_us``)."""

    def __init__(self, ticks, diff):
        self.ticks = ticks
        self.diff = diff
        self.acc = {}        # name -> exclusive us since reset()
        self.ncalls = {}     # name -> calls since reset()
        self._child = [0]    # per open frame: wall time of wrapped inner calls
        self._inner = [0]    # per open frame: number of wrapped inner calls
        self.leak_us = 0.0

    def reset(self):
        for k in self.acc:
            self.acc[k] = 0
            self.ncalls[k] = 0

    def wrap(self, obj, attr, name):
        f = getattr(obj, attr)
        prof = self
        ticks = self.ticks
        diff = self.diff
        self.acc.setdefault(name, 0)
        self.ncalls.setdefault(name, 0)

        def wrapper(*args, **kw):
            child = prof._child
            inner = prof._inner
            child.append(0)
            inner.append(0)
            t0 = ticks()
            try:
                return f(*args, **kw)
            finally:
                el = diff(ticks(), t0)
                own = el - child.pop() - prof.leak_us * inner.pop()
                prof.acc[name] += own
                prof.ncalls[name] += 1
                child[-1] += el
                inner[-1] += 1
        setattr(obj, attr, wrapper)
        return f

    def calibrate(self, n=2000):
        """``leak_us``: what one wrapped inner call adds to its caller's exclusive time."""
        class Probe:
            pass
        o = Probe()

        def noop():
            return None

        def loop():
            f = o.f
            for _ in range(n):
                f()
        best = None
        for _ in range(5):
            o.f = noop
            o.g = loop
            self.wrap(o, "g", "cal:bare")
            self.leak_us = 0.0
            self.reset()
            o.g()
            bare = self.acc["cal:bare"]
            o.f = noop
            o.g = loop
            self.wrap(o, "f", "cal:f")
            self.wrap(o, "g", "cal:wrapped")
            self.reset()
            o.g()
            leak = (self.acc["cal:wrapped"] - bare) / float(n)
            best = leak if best is None or leak < best else best
        for k in ("cal:bare", "cal:f", "cal:wrapped"):
            del self.acc[k]
            del self.ncalls[k]
        self.leak_us = max(0.0, best)
        return self.leak_us
