"""What the LED renderers (``led_strip``, ``gpio_leds``) share: the palette, the zones'
intents as last drawn (``IntentTracker``) and the effects (``load_effects``).

An effect is a pattern other than SOLID: a module ``drivers/led_effects/<name>.py`` named as its
``spit.intents`` id (``BLINK``: ``blink.py``), with, for ``t`` the ms since the zone's intent
changed (so a BLINK always starts "on"):

    level(t)          brightness 0..255
    next(t)           ms from ``t`` until ``level`` (or ``lit``) can change, at most a minute
                      (added to the clock); _NEVER_MS: never (compared, never added to)
    lit(n, t, total)  optional: how many of the zone's first ``n`` pixels show, ``total`` the ms
                      from the change to the zone's ``until_ms`` (-1: none); default all
    on(t, total)      optional: one plain LED lit or not; default ``level(t) >= 128``

They run at every drawing of an animated zone, so they allocate nothing (small ints in, small
ints out).  ``_EFFECTS`` (generated: scripts/gen_consts.py reads the folder and the ids) names
them by id (0..29: a bit each in a small int); the manifest installs the whole folder.  A new effect: its id in spit/intents.py,
its module and its test (tests/drivers/led_effects/), then ``python scripts/gen_consts.py``.
"""

from micropython import const
from array import array

# generated from spit.intents, drivers.led_effects by scripts/gen_consts.py: do not edit
_N_ZONES = const(7)
_ALL_ZONES = const(0x7F)                  # a bit per zone
_MAGENTA = const(9)                       # error / flag
_EFFECTS = const((None, "blink", "fast", "pulse", "countdown"))  # drivers/led_effects/<name>.py by spit.intents pattern id
# end generated

_N_COLORS = const(_MAGENTA + 1)   # colour ids 0 .. N_COLORS - 1 (DEFAULT_PALETTE, by id)
_FRAME_MS = const(10)        # animation frame period of PULSE and COUNTDOWN
_NEVER_MS = const(0x3FFFFFFF)   # "no change due": the largest small int on the chip (never add to it)

DEFAULT_PALETTE = (   # r, g, b by colour id
    b"\x00\x00\x00"   # OFF
    b"\x00\xff\x00"   # GREEN
    b"\xff\x00\x00"   # RED
    b"\xff\x60\x00"   # ORANGE
    b"\xa0\x00\xff"   # PURPLE
    b"\x00\x00\xff"   # BLUE
    b"\xff\xff\xff"   # WHITE
    b"\xff\xc8\x00"   # YELLOW
    b"\x00\xff\xff"   # CYAN
    b"\xff\x00\xa0"   # MAGENTA
)


def load_effects():
    """The effect modules by pattern id (None: no effect, the plain colour), imported now."""
    return [name and __import__("drivers.led_effects." + name, None, None, ("level",)) for name in _EFFECTS]


class IntentTracker:
    """Per-zone copy of the intents plus the ms each zone's intent last changed."""

    def __init__(self):
        self.color = bytearray(_N_ZONES)
        self.pattern = bytearray(_N_ZONES)
        self.until = array("i", [-1] * _N_ZONES)
        self.start = array("i", bytes(4 * _N_ZONES))
        self.changes = -1

    def sync(self, intents, now_ms):
        """Copy intents if ``changes`` moved; returns the bit mask of the zones whose intent
        changed (bit z = zone z; 0: nothing changed).  Only the zones in ``intents.dirty``
        (set since the last sync; this resets it) are compared, every zone where the intents
        object has no such mask."""
        ch = intents.changes
        if ch == self.changes:
            return 0
        self.changes = ch
        try:
            zones = intents.dirty
            intents.dirty = 0
        except AttributeError:
            zones = _ALL_ZONES
        col = intents.color
        pat = intents.pattern
        unt = intents.until_ms
        mc = self.color
        mp = self.pattern
        mu = self.until
        mask = 0
        z = 0
        while zones:
            if zones & 1:
                c = col[z]
                p = pat[z]
                u = unt[z]
                if c != mc[z] or p != mp[z] or u != mu[z]:
                    mc[z] = c
                    mp[z] = p
                    mu[z] = u
                    self.start[z] = now_ms
                    mask |= 1 << z
            zones >>= 1
            z += 1
        return mask
