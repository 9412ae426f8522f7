"""Render the engine's LED intents on a WS2812 strip (a ``Ws2812Pio`` passed in).

Intent contract (owned by the engine, ``spit/intents.py``):
    intents.color[z]     colour id of zone z          (spit.intents' colours)
    intents.pattern[z]   pattern id of zone z         (SOLID, or an effect: drivers/led_effects)
    intents.until_ms[z]  -1 = forever, else the session ms after which zone z shows off
    intents.changes      int, incremented whenever anything above changed
Zones: Z_PILE0..Z_PILE2, Z_SPIT, Z_PLAYER0, Z_PLAYER1, Z_RESULT (N_ZONES = 7).

``render(intents, now_ms)`` never blocks: effects are computed from ``now_ms`` (a
monotonic session millisecond count, the same clock as ``until_ms``) by their modules
(``drivers/led_patterns`` says how).  An effect's phase starts when its zone's intent changed.  The frame is one
preallocated ``array("I")`` word per pixel (in the strip's wire format, ``strip.word(r, g,
b)``); each colour's word at the set brightness is computed once, so a verdict costs a few word stores, and the
strip is written only when a word changed.  Nothing here allocates after construction.

The strip object needs ``n``, ``word(r, g, b)``, ``ready()``, ``wait()`` and ``write(words)``: zones that
change while the previous frame is still on the wire are drawn by the next ``render``
(``pending``), so ``render`` never waits.  ``Ws2812Pio`` sends the frame from a PIO
state machine, so interrupts (and the touch/pad IRQ timestamps) are never held off.
"""

from array import array

from micropython import const

from drivers.led_patterns import DEFAULT_PALETTE, IntentTracker, load_effects

# spit.intents' and led_patterns' ids and limits, as private consts (compiled in, no module lookups per render)
# generated from spit.intents, drivers.led_patterns by scripts/gen_consts.py: do not edit
_N_ZONES = const(7)
_ALL_ZONES = const(0x7F)       # a bit per zone
_C_OFF = const(0)              # spit.intents OFF
_N_COLORS = const(10)          # colour ids 0 .. N_COLORS - 1 (DEFAULT_PALETTE, by id)
_NEVER_MS = const(0x3FFFFFFF)  # "no change due": the largest small int on the chip (never add to it)
# end generated


class LedStrip:
    def __init__(self, strip, zones, brightness=64):
        self.strip = strip
        n = self.n = strip.n
        # (each pixel is on the strip: the board file's check, referee/board.py, says so)
        self._zones = [tuple(zones[z]) if z < len(zones) and zones[z] else () for z in range(_N_ZONES)]
        self._pal = bytearray(3 * _N_COLORS)          # r, g, b per colour at the brightness
        self._full = array("I", bytes(4 * _N_COLORS))  # word per colour at full level
        self._frame = array("I", bytes(4 * n))  # the frame last sent
        self._intents = IntentTracker()
        # The effects by pattern id (drivers/led_effects), and a bit per id whose effect draws a
        # bar (``lit``: the zone's first pixels only).
        fx = self._fx = load_effects()
        self._bars = 0
        for i in range(len(fx)):
            if hasattr(fx[i], "lit"):
                self._bars |= 1 << i
        self._animated = 0      # bit mask of the zones that change with time
        # Session ms at which an animated zone changes next (a blink edge, an expiry, the
        # next PULSE/COUNTDOWN frame): the caller renders again then, or when the intents
        # change, or while ``pending``.
        self.due_ms = 0
        self._zone_due = array("i", bytes(4 * _N_ZONES))   # per animated zone: its next change
        self._force = True
        # Bit mask of the zones to draw that wait for the strip (0: none): render again soon.
        self.pending = 0
        self.writes = 0
        # The palette at the global brightness 0..255 (WS2812 at full white draws ~60 mA
        # per pixel).
        b = max(0, min(255, brightness))
        for c in range(3 * _N_COLORS):
            self._pal[c] = DEFAULT_PALETTE[c] * b // 255
        for c in range(_N_COLORS):
            self._full[c] = self._word(c, 255)

    def _word(self, color, level):
        pal = self._pal
        return self.strip.word(pal[3 * color] * level // 255, pal[3 * color + 1] * level // 255,
                               pal[3 * color + 2] * level // 255)

    def render(self, intents, now_ms):
        """Show the intents at ``now_ms``; returns True if the strip was written.  Only the
        zones whose intent changed and the animated ones (an effect, an expiry)
        whose next change is due are recomputed, and only once the strip has sent the
        previous frame (the DMA reads the frame buffer): until then they wait in
        ``pending``."""
        tr = self._intents
        draw = tr.sync(intents, now_ms) | self.pending
        if now_ms >= self.due_ms:
            # The animated zones whose next change is due (not every animated zone).
            a = self._animated
            zd = self._zone_due
            z = 0
            while a:
                if a & 1 and zd[z] <= now_ms:
                    draw |= 1 << z
                a >>= 1
                z += 1
        dirty = self._force   # (a forced frame is written even if no word changed)
        if dirty:
            draw = _ALL_ZONES
        if not draw:
            return False
        if not self.strip.ready():
            self.pending = draw
            return False
        self.pending = 0
        animated = self._animated & ~draw   # recomputed below for the zones drawn
        frame = self._frame
        zones = self._zones
        colors = tr.color
        zone_due = self._zone_due
        effects = self._fx
        z = -1
        while draw:
            z += 1
            bit = 1 << z
            if not draw & bit:
                continue
            draw &= ~bit
            idx = zones[z]
            if not idx:
                continue
            c = colors[z]
            word = 0
            lit = len(idx)
            if c != _C_OFF and c < _N_COLORS:
                until = tr.until[z]
                if until < 0 or now_ms < until:
                    word = self._full[c]
                    pat = tr.pattern[z]
                    due = _NEVER_MS
                    fx = effects[pat] if pat < len(effects) else None
                    if fx is not None:   # (else SOLID, or an id without an effect: the plain colour)
                        t = now_ms - tr.start[z]   # ms into the effect
                        level = fx.level(t)
                        due = fx.next(t)
                        if due < _NEVER_MS:   # (never add to NEVER_MS: a big int on the chip)
                            due += now_ms
                        if self._bars >> pat & 1:
                            lit = fx.lit(lit, t, until - tr.start[z] if until >= 0 else -1)   # (lit: all of idx)
                        if level < 255:
                            word = self._word(c, level) if level else 0
                    if 0 <= until < due:
                        due = until   # (it expires first)
                    if due < _NEVER_MS:
                        animated |= bit
                        zone_due[z] = due
            if lit == len(idx):   # (the usual case: one word for the whole zone)
                for p in idx:
                    if frame[p] != word:
                        frame[p] = word
                        dirty = True
                continue
            k = 0
            for p in idx:   # (a bar: its first ``lit`` pixels)
                w = word if k < lit else 0
                k += 1
                if frame[p] != w:
                    frame[p] = w
                    dirty = True
        self._animated = animated
        self._force = False
        if dirty:   # (the frame first: when the animated zones change next is worked out after)
            self.strip.write(frame)
            self.writes += 1
        due = _NEVER_MS
        z = 0
        while animated:
            if animated & 1 and zone_due[z] < due:
                due = zone_due[z]
            animated >>= 1
            z += 1
        self.due_ms = due
        return dirty

    def fill(self, color):
        """Show one colour on every pixel now (self-test, boot error); next render redraws."""
        w = self._full[color]   # (a colour id of spit.intents)
        self.strip.wait()   # (the previous frame may still be read by the DMA)
        frame = self._frame
        for p in range(self.n):
            frame[p] = w
        self.strip.write(frame)
        self.writes += 1
        self.pending = 0   # (the next render redraws every zone: _force)
        self._force = True

    def off(self):
        self.fill(_C_OFF)   # (C_OFF's word is 0)
