"""Render the engine's LED intents on a WS2812 strip (``neopixel.NeoPixel`` passed in).

Intent contract (owned by the engine, ``spit/intents.py``; ids mirrored here as consts):
    intents.color[z]     colour id of zone z          (C_* below)
    intents.pattern[z]   pattern id of zone z         (P_* below)
    intents.until_ms[z]  -1 = forever, else the session ms after which zone z shows off
    intents.changes      int, incremented whenever anything above changed
Zones: Z_PILE0..Z_PILE2, Z_SPIT, Z_PLAYER0, Z_PLAYER1, Z_RESULT (N_ZONES = 7).

``render(intents, now_ms)`` never blocks: patterns are computed from ``now_ms`` (a
monotonic session millisecond count, the same clock as ``until_ms``).  A pattern's phase
starts when its zone's intent changed, so a BLINK always starts "on".  Pixel data is set
only for pixels whose colour changed, and ``np.write()`` is called only when something
changed.  That matters for timing: the rp2 ``neopixel`` module sends through
``machine.bitstream``, which masks interrupts for ~30 us per pixel, so every write delays
(not loses) IRQ timestamps by up to ``30 us * n``.  Keep strips short (16 pixels = 0.5 ms).
"""

from micropython import const
from array import array

# Colour ids (mirror of spit/intents.py)
C_OFF = const(0)
C_GREEN = const(1)  # accept
C_RED = const(2)  # illegal
C_ORANGE = const(3)  # late
C_PURPLE = const(4)  # tie
C_BLUE = const(5)  # early
C_WHITE = const(6)  # spit / spit call
C_YELLOW = const(7)  # stuck / question to players
C_CYAN = const(8)  # countdown
C_MAGENTA = const(9)  # error / flag
N_COLORS = const(10)

# Pattern ids
P_SOLID = const(0)
P_BLINK = const(1)  # 2 Hz
P_FAST = const(2)  # 8 Hz
P_PULSE = const(3)  # breathing
P_COUNTDOWN = const(4)  # bar shrinking until until_ms

# Zone ids
Z_PILE0 = const(0)
Z_PILE1 = const(1)
Z_PILE2 = const(2)
Z_SPIT = const(3)
Z_PLAYER0 = const(4)
Z_PLAYER1 = const(5)
Z_RESULT = const(6)
N_ZONES = const(7)

ZONE_NAMES = ("PILE0", "PILE1", "PILE2", "SPIT", "PLAYER0", "PLAYER1", "RESULT")
COLOR_NAMES = ("OFF", "GREEN", "RED", "ORANGE", "PURPLE", "BLUE", "WHITE", "YELLOW", "CYAN", "MAGENTA")

_BLINK_PERIOD = const(500)
_FAST_PERIOD = const(125)
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
        return 255 if elapsed_ms % _FAST_PERIOD < (_FAST_PERIOD + 1) // 2 else 0
    if pattern == P_PULSE:
        ph = (elapsed_ms + _PULSE_HALF) % _PULSE_PERIOD  # start bright
        tri = ph if ph < _PULSE_HALF else _PULSE_PERIOD - ph
        step = tri * _PULSE_STEPS // _PULSE_HALF
        return _PULSE_MIN + step * (255 - _PULSE_MIN) // _PULSE_STEPS
    return 255


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
        """Copy intents if ``changes`` moved; returns True if anything was copied."""
        ch = intents.changes
        if ch == self.changes:
            return False
        self.changes = ch
        col = intents.color
        pat = intents.pattern
        unt = intents.until_ms
        for z in range(N_ZONES):
            c = col[z]
            p = pat[z]
            u = unt[z]
            if c != self.color[z] or p != self.pattern[z] or u != self.until[z]:
                self.color[z] = c
                self.pattern[z] = p
                self.until[z] = u
                self.start[z] = now_ms
        return True


class LedStrip:
    def __init__(self, np, zones, palette=None, brightness=64):
        self.np = np
        self.n = np.n if hasattr(np, "n") else len(np)
        self._zones = []
        for z in range(N_ZONES):
            idx = zones[z] if z < len(zones) and zones[z] else ()
            for p in idx:
                if p < 0 or p >= self.n:
                    raise ValueError("zone %d: pixel %d outside strip of %d" % (z, p, self.n))
            self._zones.append(tuple(idx))
        self._base = palette if palette is not None else DEFAULT_PALETTE
        self._pal = bytearray(3 * N_COLORS)
        self._frame = bytearray(3 * self.n)  # what was last sent to np[...]
        self._intents = IntentTracker()
        self._animated = False
        self._force = True
        self.writes = 0
        self.set_brightness(brightness)

    def set_brightness(self, brightness):
        """Global brightness 0..255 (WS2812 at full white draws ~60 mA per pixel)."""
        b = max(0, min(255, brightness))
        for c in range(N_COLORS):
            rgb = self._base[c] if c < len(self._base) else (0, 0, 0)
            for k in range(3):
                self._pal[3 * c + k] = rgb[k] * b // 255
        self._force = True

    def _set(self, p, c, level):
        """Put colour c at level on pixel p in the frame; True if it changed."""
        pal = self._pal
        r = pal[3 * c] * level // 255
        g = pal[3 * c + 1] * level // 255
        b = pal[3 * c + 2] * level // 255
        f = self._frame
        i = 3 * p
        if f[i] == r and f[i + 1] == g and f[i + 2] == b:
            return False
        f[i] = r
        f[i + 1] = g
        f[i + 2] = b
        self.np[p] = (r, g, b)
        return True

    def render(self, intents, now_ms):
        """Show the intents at ``now_ms``; returns True if the strip was written."""
        tr = self._intents
        changed = tr.sync(intents, now_ms)
        if not (changed or self._animated or self._force):
            return False
        animated = False
        dirty = self._force
        for z in range(N_ZONES):
            idx = self._zones[z]
            if not idx:
                continue
            c = tr.color[z]
            pat = tr.pattern[z]
            until = tr.until[z]
            level = 0
            lit = len(idx)
            if c != C_OFF and c < N_COLORS:
                if until < 0 or now_ms < until:
                    elapsed = now_ms - tr.start[z]
                    level = pattern_level(pat, elapsed)
                    if until >= 0 or pat != P_SOLID:
                        animated = True
                    if pat == P_COUNTDOWN and until >= 0:
                        lit = countdown_lit(len(idx), tr.start[z], until, now_ms)
            for k in range(len(idx)):
                if k < lit and level:
                    if self._set(idx[k], c, level):
                        dirty = True
                elif self._set(idx[k], C_OFF, 0):
                    dirty = True
        self._animated = animated
        self._force = False
        if dirty:
            self.np.write()
            self.writes += 1
        return dirty

    def fill(self, color, level=255):
        """Show one colour on every pixel now (self-test, boot error); next render redraws."""
        for p in range(self.n):
            self._set(p, color, level)
        self.np.write()
        self.writes += 1
        self._force = True

    def off(self):
        self.fill(C_OFF, 0)
