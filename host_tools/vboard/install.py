"""Put the virtual board's fakes into ``sys.modules`` so firmware modules run unchanged.

    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    board = install(VirtualClock(start_us=(1 << 30) - 5000))
    ...   # import and run firmware code
    board.uninstall()

Installs ``time`` (a proxy: the VirtualClock's ticks_*/sleep_* plus the real module's other
attributes), ``machine`` (host_tools/vboard/machine.py), ``rp2`` (host_tools/vboard/rp2.py: PIO)
and, on CPython only, ``micropython`` (``const`` and friends; ``native`` and ``viper`` run the
function as plain Python, with the builtin ``ptr8`` cast returning the buffer itself).  Under
the MicroPython unix port the real ``micropython`` module stays.

``Installed.add_device(emulator)`` makes firmware sleeps update that emulator.

Firmware modules bind ``time`` at import.  There is one time proxy for the whole process and
``install`` points it at the new clock, so modules imported under an earlier install follow
the new clock; modules named by ``purge`` prefixes that were imported without the fakes
are dropped from ``sys.modules`` so that they are imported again.
"""

import sys

from . import heapgate

_IS_MICROPYTHON = sys.implementation.name == "micropython"
_CLOCK_NAMES = ("ticks_us", "ticks_ms", "ticks_cpu", "ticks_add", "ticks_diff",
                "sleep", "sleep_ms", "sleep_us")
_FAKE_NAMES = ("time", "machine", "neopixel", "rp2", "micropython")


class TimeProxy:
    """Stands in for the ``time`` module; follows whichever clock is installed."""

    def __init__(self, real):
        self._real = real
        self.clock = None
        # Emulated devices whose update() runs after every sleep, so a firmware busy-wait
        # (sleep, then look at a pin) sees the simulated world move on.
        self.devices = []
        for name in dir(real):
            if not name.startswith("_") and name not in _CLOCK_NAMES:
                try:
                    setattr(self, name, getattr(real, name))
                except (AttributeError, TypeError):
                    pass

    def _source(self):
        return self.clock if self.clock is not None else self._real

    def ticks_us(self):
        return self._source().ticks_us()

    def ticks_ms(self):
        return self._source().ticks_ms()

    def ticks_cpu(self):
        return self._source().ticks_cpu()

    def ticks_add(self, ticks, delta):
        return self._source().ticks_add(ticks, delta)

    def ticks_diff(self, a, b):
        return self._source().ticks_diff(a, b)

    def _after_sleep(self):
        for device in self.devices:
            device.update()

    # Sleeps are C code on the chip: the devices they update may allocate (heapgate).
    def sleep(self, s):
        heapgate.enter_c()
        try:
            self._source().sleep(s)
            self._after_sleep()
        finally:
            heapgate.exit_c()

    def sleep_ms(self, ms):
        heapgate.enter_c()
        try:
            self._source().sleep_ms(ms)
            self._after_sleep()
        finally:
            heapgate.exit_c()

    def sleep_us(self, us):
        heapgate.enter_c()
        try:
            self._source().sleep_us(us)
            self._after_sleep()
        finally:
            heapgate.exit_c()


class _FakeMicropython:
    """CPython stand-in for the ``micropython`` module."""

    @staticmethod
    def const(value):
        return value

    @staticmethod
    def native(f):
        return f

    viper = native

    @staticmethod
    def schedule(func, arg):
        func(arg)
        return True

    @staticmethod
    def alloc_emergency_exception_buf(size):
        return None

    @staticmethod
    def heap_lock():
        return 0

    @staticmethod
    def heap_unlock():
        return 0

    @staticmethod
    def mem_info(*args):
        return None

    @staticmethod
    def opt_level(*args):
        return 0


def _ptr8(buf):
    """Viper's ``ptr8(buf)`` cast, for viper functions run as plain Python: indexing the
    buffer itself reads and writes its bytes."""
    return buf


_real_time = None
_proxy = None


def _time_proxy():
    global _real_time, _proxy
    if _proxy is None:
        current = sys.modules.get("time")
        if current is None or isinstance(current, TimeProxy):
            import time as current
        _real_time = current
        _proxy = TimeProxy(current)
    return _proxy


class Installed:
    """What ``install`` returns; ``uninstall()`` puts the previous modules back."""

    def __init__(self, clock, saved):
        self.clock = clock
        self._saved = saved
        self.time = _proxy

    def add_device(self, device):
        """Call ``device.update()`` whenever firmware code sleeps; returns the device."""
        self.time.devices.append(device)
        return device

    def uninstall(self):
        for name in self._saved:
            old = self._saved[name]
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
        if _proxy is not None:
            _proxy.clock = None
            _proxy.devices = []
        self._saved = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.uninstall()
        return False


def install(clock, purge=("drivers", "referee", "main")):
    proxy = _time_proxy()
    proxy.clock = clock
    proxy.devices = []
    saved = {}
    for name in _FAKE_NAMES:
        saved[name] = sys.modules.get(name)
    sys.modules["time"] = proxy

    from . import machine as fake_machine
    sys.modules["machine"] = fake_machine

    sys.modules.pop("neopixel", None)   # not on the board's path: the strip is driven by PIO
    from . import rp2 as fake_rp2
    sys.modules["rp2"] = fake_rp2

    if not _IS_MICROPYTHON:
        # Not a CPython package of the same name: it refuses viper functions.
        sys.modules["micropython"] = _FakeMicropython()
        import builtins
        if not hasattr(builtins, "ptr8"):
            builtins.ptr8 = _ptr8

    for name in list(sys.modules):
        for prefix in purge:
            if name == prefix or name.startswith(prefix + "."):
                module = sys.modules[name]
                if getattr(module, "time", proxy) is not proxy:
                    del sys.modules[name]
                    # ... and from its package, or ``from referee import loop`` would still
                    # find the old module there (an attribute of the package wins).
                    parent, _, child = name.rpartition(".")
                    package = sys.modules.get(parent)
                    if package is not None and getattr(package, child, None) is module:
                        delattr(package, child)
                break
    return Installed(clock, saved)
