"""Render the engine's LED intents on a WS2812 strip (``neopixel.NeoPixel`` passed in).

Intent contract (owned by the engine, ``spit/intents.py``; ids mirrored in ``led_patterns``):
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


from drivers.led_patterns import (
    C_OFF,
    DEFAULT_PALETTE,
    IntentTracker,
    N_COLORS,
    N_ZONES,
    P_COUNTDOWN,
    P_SOLID,
    countdown_lit,
    pattern_level,
)


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
