"""Fake ``machine`` module for the virtual board (installed as ``sys.modules['machine']``).

Re-exports the fake Pin and buses; PWM comes from pins.py when it exists there.
"""

from .pins import Pin
from .buses import SPI, I2C, SoftI2C

try:
    from .pins import PWM
except ImportError:
    pass

_irq_state = [1]


def disable_irq():
    state = _irq_state[0]
    _irq_state[0] = 0
    return state


def enable_irq(state=1):
    _irq_state[0] = state


def freq(hz=None):
    return 125000000


def unique_id():
    return b"\xe6\x60\x58\x38\x83\x2f\x6a\x2b"


def idle():
    pass


def reset():
    raise SystemExit("machine.reset() on the virtual board")


def soft_reset():
    raise SystemExit("machine.soft_reset() on the virtual board")
