"""LED colours, patterns and zones shared by the renderers (``led_strip``, ``gpio_leds``).

The ids are ``spit/intents.py``'s (drivers never import the engine: scripts/gen_consts.py copies them).
``pattern_level`` and ``countdown_lit`` compute a pattern from elapsed milliseconds,
``pattern_next`` when it can change next, and
``IntentTracker`` notices which zones' intents changed, so a pattern's phase starts then.
"""


from micropython import const
from array import array

# Zone, colour and pattern ids: spit.intents' ones, under the drivers' names.
# generated from spit.intents by scripts/gen_consts.py: do not edit
Z_PILE0 = const(0)       # spit.intents ZONE_PILE0
Z_PILE1 = const(1)       # spit.intents ZONE_PILE1
Z_PILE2 = const(2)       # spit.intents ZONE_PILE2
Z_SPIT = const(3)        # spit.intents ZONE_SPIT
Z_PLAYER0 = const(4)     # spit.intents ZONE_PLAYER0
Z_PLAYER1 = const(5)     # spit.intents ZONE_PLAYER1
Z_RESULT = const(6)      # spit.intents ZONE_RESULT
N_ZONES = const(7)
ALL_ZONES = const(0x7F)  # a bit per zone
C_OFF = const(0)         # spit.intents OFF
C_GREEN = const(1)       # spit.intents GREEN: accept
C_RED = const(2)         # spit.intents RED: illegal
C_ORANGE = const(3)      # spit.intents ORANGE: late
C_PURPLE = const(4)      # spit.intents PURPLE: tie
C_BLUE = const(5)        # spit.intents BLUE: early
C_WHITE = const(6)       # spit.intents WHITE: spit / spit call
C_YELLOW = const(7)      # spit.intents YELLOW: stuck, or a question to the players
C_CYAN = const(8)        # spit.intents CYAN: countdown
C_MAGENTA = const(9)     # spit.intents MAGENTA: error / flag
P_SOLID = const(0)       # spit.intents SOLID
P_BLINK = const(1)       # spit.intents BLINK: 2 Hz
P_FAST = const(2)        # spit.intents FAST: 8 Hz
P_PULSE = const(3)       # spit.intents PULSE: breathing
P_COUNTDOWN = const(4)   # spit.intents COUNTDOWN: a bar shrinking until until_ms
# end generated
N_COLORS = const(C_MAGENTA + 1)   # colour ids 0 .. N_COLORS - 1 (DEFAULT_PALETTE, by id)


FRAME_MS = const(10)        # animation frame period of PULSE and COUNTDOWN
NEVER_MS = const(0x3FFFFFFF)   # "no change due": the largest small int on the chip (never add to it)

_BLINK_PERIOD = const(500)
_FAST_PERIOD = const(125)
_FAST_ON = const((_FAST_PERIOD + 1) // 2)   # ms lit of a FAST period
_PULSE_PERIOD = const(1600)
_PULSE_HALF = const(800)
_PULSE_STEPS = const(15)  # quantised so a pulse costs ~30 writes/s, not one per loop
_PULSE_MIN = const(32)

DEFAULT_PALETTE = (
    (0, 0, 0),
    (0, 255, 0),
    (255, 0, 0),
    (255, 96, 0),
    (160, 0, 255),
    (0, 0, 255),
    (255, 255, 255),
    (255, 200, 0),
    (0, 255, 255),
    (255, 0, 160),
)


def pattern_level(pattern, elapsed_ms):
    """Brightness 0..255 of a pattern ``elapsed_ms`` after it started (COUNTDOWN: 255)."""
    if pattern == P_BLINK:
        return 255 if elapsed_ms % _BLINK_PERIOD < _BLINK_PERIOD // 2 else 0
    if pattern == P_FAST:
        return 255 if elapsed_ms % _FAST_PERIOD < _FAST_ON else 0
    if pattern == P_PULSE:
        ph = (elapsed_ms + _PULSE_HALF) % _PULSE_PERIOD  # start bright
        tri = ph if ph < _PULSE_HALF else _PULSE_PERIOD - ph
        step = tri * _PULSE_STEPS // _PULSE_HALF
        return _PULSE_MIN + step * (255 - _PULSE_MIN) // _PULSE_STEPS
    return 255


def pattern_next(pattern, elapsed_ms):
    """Milliseconds from ``elapsed_ms`` until ``pattern_level`` can change (a renderer
    draws the zone again then, not every frame): a blink's next edge; PULSE and COUNTDOWN
    (its bar) every ``FRAME_MS``; ``NEVER_MS`` for SOLID (compare it, never add to it)."""
    if pattern == P_BLINK:
        return _BLINK_PERIOD // 2 - elapsed_ms % (_BLINK_PERIOD // 2)
    if pattern == P_FAST:
        r = elapsed_ms % _FAST_PERIOD
        return _FAST_ON - r if r < _FAST_ON else _FAST_PERIOD - r
    if pattern == P_SOLID:
        return NEVER_MS
    return FRAME_MS


def countdown_lit(n, start_ms, until_ms, now_ms):
    """Pixels lit of an n-pixel COUNTDOWN bar (ceil, so the last pixel goes out at until_ms)."""
    total = until_ms - start_ms
    left = until_ms - now_ms
    if total <= 0 or left <= 0:
        return 0
    if left >= total:
        return n
    return (n * left + total - 1) // total


class IntentTracker:
    """Per-zone copy of the intents plus the ms each zone's intent last changed."""

    def __init__(self):
        self.color = bytearray(N_ZONES)
        self.pattern = bytearray(N_ZONES)
        self.until = array("i", [-1] * N_ZONES)
        self.start = array("i", bytes(4 * N_ZONES))
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
            zones = ALL_ZONES
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
