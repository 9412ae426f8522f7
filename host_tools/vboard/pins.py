"""Fake ``machine.Pin`` for the virtual board.

Simulated hardware (buttons, touch sensors, a PN532 emulator's IRQ line) calls
``pin.drive(level)``; firmware code reads ``pin.value()`` and gets its ``irq`` handler
called on the matching edge, exactly like on the RP2040.  Hard handlers are called
directly (under ``micropython.heap_lock()`` when ``Pin.lock_heap_in_hard_irq`` is set and
the interpreter is MicroPython), soft handlers too (the virtual board has no scheduler
queue to model).
"""

from . import heapgate

try:
    import micropython as _mp
    _heap_lock = _mp.heap_lock
    _heap_unlock = _mp.heap_unlock
except (ImportError, AttributeError):  # CPython
    _heap_lock = None
    _heap_unlock = None


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    # Every Pin built so far, by id: lets the simulator find "GPIO 7" after firmware made it.
    registry = {}
    # When True (and running under MicroPython), hard IRQ handlers run with the heap locked,
    # so an allocating handler raises MemoryError in tests like it would misbehave on a Pico.
    lock_heap_in_hard_irq = True
    # Handler exceptions are recorded here instead of propagating into the simulator.
    irq_errors = []

    def __init__(self, id, mode=-1, pull=-1, value=None, **kw):
        self.id = id
        self.mode = mode
        self.pull = pull
        self._handler = None
        self._trigger = 0
        self._hard = False
        existing = Pin.registry.get(id)
        if existing is not None:
            # Same GPIO built twice: keep the level the outside world drives.
            self._level = existing._level
        elif pull == Pin.PULL_UP:
            self._level = 1
        else:
            self._level = 0
        if value is not None:
            self._level = 1 if value else 0
        Pin.registry[id] = self

    def init(self, mode=-1, pull=-1, value=None, **kw):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self._level = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return self._level
        self._level = 1 if v else 0
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self._level = 1

    def off(self):
        self._level = 0

    def low(self):
        self._level = 0

    def high(self):
        self._level = 1

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False, **kw):
        self._handler = handler
        self._trigger = trigger
        self._hard = hard
        return None

    # --- simulator side ---
    def drive(self, level):
        """The outside world sets the pin level; fires the IRQ handler on a matching edge."""
        level = 1 if level else 0
        old = self._level
        self._level = level
        if old == level or self._handler is None:
            return
        edge = Pin.IRQ_RISING if level else Pin.IRQ_FALLING
        if not (self._trigger & edge):
            return
        handler = self._handler
        if self._hard and Pin.lock_heap_in_hard_irq and _heap_lock is not None:
            _heap_lock()
            try:
                handler(self)
            except Exception as e:  # noqa: BLE001 - mirror the RP2040: a failing handler is disabled
                _heap_unlock()
                self._handler = None
                Pin.irq_errors.append((self.id, repr(e)))
                return
            _heap_unlock()
        else:
            try:
                handler(self)
            except Exception as e:  # noqa: BLE001
                self._handler = None
                Pin.irq_errors.append((self.id, repr(e)))

    def pulse(self, active_level=0):
        """A button press and release (active low by default)."""
        self.drive(active_level)
        self.drive(1 - active_level)

    @classmethod
    def reset_registry(cls):
        cls.registry = {}
        cls.irq_errors = []


class PWM:
    """Fake ``machine.PWM``: records every (freq, duty_u16) the firmware sets.

    ``history`` is a list of ``(freq, duty_u16)`` snapshots, one per change; ``sounding()`` is
    True while the duty is non-zero.  ``PWM.registry`` maps GPIO id -> PWM.
    """

    registry = {}

    def __init__(self, pin, freq=0, duty_u16=0, **kw):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self.history = []
        pid = getattr(pin, "id", pin)
        PWM.registry[pid] = self

    def freq(self, f=None):
        if f is None:
            return self._freq
        if f < 8 or f > 62500000:
            raise ValueError("freq out of range")
        self._freq = f
        heapgate.enter_c()   # the record is the fake's, not the firmware's allocation
        try:
            self.history.append((self._freq, self._duty))
        finally:
            heapgate.exit_c()
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if d < 0 or d > 65535:
            raise ValueError("duty out of range")
        self._duty = d
        heapgate.enter_c()
        try:
            self.history.append((self._freq, self._duty))
        finally:
            heapgate.exit_c()
        return None

    def duty_ns(self, ns=None):
        return 0 if ns is None else None

    def deinit(self):
        self._duty = 0

    def sounding(self):
        return self._duty != 0
