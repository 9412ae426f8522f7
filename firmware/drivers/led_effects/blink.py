"""BLINK: on and off at 2 Hz, 250 ms each, on first (a late card, a tie, a question to the players).

An effect's interface (``level``, ``next``, optional ``lit`` and ``on``) is in drivers/led_patterns.py.

>>> [level(t) for t in (0, 249, 250, 499, 500)]
[255, 255, 0, 0, 255]
>>> next(0), next(249), next(250)
(250, 1, 250)
"""


def level(t):
    """Brightness 0..255 ``t`` ms into the effect."""
    return 255 if t % 500 < 250 else 0


def next(t):
    """Ms from ``t`` until ``level`` can change (its next edge)."""
    return 250 - t % 250
