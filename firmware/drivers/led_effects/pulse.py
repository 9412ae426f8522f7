"""PULSE: breathing, bright first (a game's result, a player's turn to answer).

A 1.6 s triangle between 32 and 255, in 15 steps, so a pulse costs ~30 strip writes a second,
not one per loop step.

>>> level(0), level(800), level(1600)
(255, 32, 255)
>>> 32 < level(400) < 255 and next(400)
10
"""

from micropython import const

# generated from drivers.led_patterns by scripts/gen_consts.py: do not edit
_FRAME_MS = const(10)  # animation frame period of PULSE and COUNTDOWN
# end generated

_PERIOD = const(1600)
_HALF = const(800)
_STEPS = const(15)
_MIN = const(32)


def level(t):
    """Brightness 0..255 ``t`` ms into the effect."""
    ph = (t + _HALF) % _PERIOD   # (starts bright)
    tri = ph if ph < _HALF else _PERIOD - ph
    return _MIN + tri * _STEPS // _HALF * (255 - _MIN) // _STEPS


def next(t):
    """Ms from ``t`` until ``level`` can change: the next frame."""
    return _FRAME_MS
