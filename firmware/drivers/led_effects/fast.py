"""FAST: on and off at 8 Hz, 63 ms on of each 125 (an illegal or early card, an error, a spit call).

>>> [level(t) for t in (0, 62, 63, 124, 125)]
[255, 255, 0, 0, 255]
>>> next(0), next(62), next(63), next(124)
(63, 1, 62, 1)
"""


def level(t):
    """Brightness 0..255 ``t`` ms into the effect."""
    return 255 if t % 125 < 63 else 0


def next(t):
    """Ms from ``t`` until ``level`` can change (its next edge)."""
    r = t % 125
    return 63 - r if r < 63 else 125 - r
