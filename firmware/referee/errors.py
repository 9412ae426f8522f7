"""Boot errors of the referee: one clear message and a blink code (docs/hardware.md)."""

from micropython import const

from referee.board import ERR_HARDWARE  # noqa: F401  (blink code 5: a device failed)

ERR_RULESET = const(6)     # blink code: /ruleset.json missing or invalid
ERR_CARDS = const(7)       # blink code: /cards.json missing or invalid
ERR_FIRMWARE = const(8)    # blink code: the firmware itself failed (a bug)


class BootError(Exception):
    """A configuration or hardware problem found at boot: ``what``, ``msg``, blink ``code``."""

    def __init__(self, what, msg, code, led=None):
        super().__init__(msg)
        self.what = what
        self.msg = msg
        self.code = code
        self.led = led

    def __str__(self):
        return "spit-referee: %s error (blink code %d): %s" % (self.what, self.code, self.msg)
