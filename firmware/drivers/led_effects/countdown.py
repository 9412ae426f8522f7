"""COUNTDOWN: a bar that shrinks until the zone's ``until_ms`` (the spit call's count-in).

Lit at full level; ``lit`` says how many of the zone's first pixels show, rounded up, so the
last one goes out at ``until_ms``.  One plain LED (``on``) stays lit and blinks at 8 Hz
during the last quarter.

>>> lit(4, 0, 1000), lit(4, 1, 1000), lit(4, 750, 1000), lit(4, 751, 1000), lit(4, 1000, 1000)
(4, 4, 1, 1, 0)
>>> lit(4, 5, -1), on(500, 1000), on(760, 1000), on(823, 1000)
(4, True, True, False)
"""

from micropython import const

# generated from drivers.led_patterns by scripts/gen_consts.py: do not edit
_FRAME_MS = const(10)  # animation frame period of PULSE and COUNTDOWN
# end generated

_FAST_PERIOD = const(125)   # the last quarter's blink: FAST's
_FAST_ON = const(63)


def level(t):
    """Brightness 0..255 ``t`` ms into the effect: full (the bar is ``lit``)."""
    return 255


def next(t):
    """Ms from ``t`` until the bar can change: the next frame."""
    return _FRAME_MS


def lit(n, t, total):
    """How many of the zone's ``n`` pixels show ``t`` ms into a countdown of ``total`` ms
    (``total`` < 0: no end, the whole bar)."""
    if total < 0:
        return n
    left = total - t
    if total == 0 or left <= 0:
        return 0
    if left >= total:
        return n
    return (n * left + total - 1) // total


def on(t, total):
    """One plain LED ``t`` ms into a countdown of ``total`` ms: lit, blinking fast in its last quarter."""
    return total < 0 or 4 * (total - t) >= total or t % _FAST_PERIOD < _FAST_ON
