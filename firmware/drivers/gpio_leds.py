"""Render LED intents on plain GPIO LEDs (boards without NeoPixels).

``GpioLeds(pins_by_zone)``: ``pins_by_zone[z]`` is a list of ``(colour_id, pin)`` pairs for
zone z (``colour_id`` -1 = "any colour"), e.g. a pile with a green and a red LED:
``[(C_GREEN, Pin(10)), (C_RED, Pin(11))]``, or a single LED: ``[(-1, Pin(12))]``.
Pins are passed in, already set to output.  For the zone's colour, the LED of exactly that
colour lights if the zone has one, else its "any" LED.

Plain LEDs are on/off: SOLID is on, an effect (drivers/led_effects) is on while its level is
128 or more (BLINK/FAST blink, PULSE blinks slowly), unless it says otherwise with ``on``
(COUNTDOWN: on, blinking fast during its last quarter).  ``until_ms`` expiry turns the zone
off.  Pins are written only on change.
"""

from array import array

from micropython import const

from drivers.led_patterns import IntentTracker, load_effects

# spit.intents' and led_patterns' ids and limits, as private consts (compiled in, no module lookups per render)
# generated from spit.intents, drivers.led_patterns by scripts/gen_consts.py: do not edit
_N_ZONES = const(7)
_C_OFF = const(0)              # spit.intents OFF
_FRAME_MS = const(10)          # animation frame period of PULSE and COUNTDOWN
_NEVER_MS = const(0x3FFFFFFF)  # "no change due": the largest small int on the chip (never add to it)
# end generated

_ANY = const(-1)   # the colour id of an LED that shows any colour


class GpioLeds:
    def __init__(self, pins_by_zone, active_high=True):
        self._pins = []
        zone = []
        color = []
        self._exact = [0] * _N_ZONES   # per zone, a bit per colour it has an LED of
        for z in range(_N_ZONES):
            entries = pins_by_zone[z] if z < len(pins_by_zone) and pins_by_zone[z] else ()
            for cid, pin in entries:
                self._pins.append(pin)
                zone.append(z)
                color.append(cid)
                if cid >= 0:
                    self._exact[z] |= 1 << cid
        n = len(self._pins)
        self._zone = bytearray(zone)
        self._color = array("b", color)
        self._state = bytearray(n)
        self._on = 1 if active_high else 0
        self._intents = IntentTracker()
        self._fx = load_effects()   # the effects by pattern id
        self._animated = False
        self._force = True
        self.writes = 0
        self.pending = False   # (LedStrip interface: GPIO writes never wait)
        self.due_ms = 0        # (LedStrip interface: render again at this session ms)
        for i in range(n):
            self._pins[i].value(1 - self._on)

    def _zone_on(self, z, now_ms):
        tr = self._intents
        c = tr.color[z]
        until = tr.until[z]
        if c == _C_OFF or (until >= 0 and now_ms >= until):
            return False
        pat = tr.pattern[z]
        fx = self._fx[pat] if pat < len(self._fx) else None   # (None: SOLID, the plain colour)
        if until >= 0 or fx is not None:
            self._animated = True
            # (a GPIO pin changes at a blink edge or an expiry: FRAME_MS is always soon enough)
            due = now_ms + _FRAME_MS
            if due < self.due_ms:
                self.due_ms = due
        if fx is None:
            return True
        t = now_ms - tr.start[z]   # ms into the effect
        on = getattr(fx, "on", None)   # (how one plain LED shows it, where the effect says)
        if on is not None:
            return on(t, until - tr.start[z] if until >= 0 else -1)
        return fx.level(t) >= 128

    def render(self, intents, now_ms):
        """Show the intents at ``now_ms``; returns True if any pin changed."""
        tr = self._intents
        changed = tr.sync(intents, now_ms)
        if not (changed or self._animated or self._force):
            return False
        self._animated = False
        self._force = False
        self.due_ms = _NEVER_MS
        dirty = False
        last_z = -1
        on = False
        exact = False
        for i in range(len(self._pins)):
            z = self._zone[i]
            if z != last_z:
                last_z = z
                on = self._zone_on(z, now_ms)
                exact = self._exact[z] >> tr.color[z] & 1
            cid = self._color[i]
            want = on and (cid == tr.color[z] or (cid == _ANY and not exact))
            if self._set(i, want):
                dirty = True
        return dirty

    def _set(self, i, want):
        s = 1 if want else 0
        if self._state[i] == s:
            return False
        self._state[i] = s
        self._pins[i].value(self._on if s else 1 - self._on)
        self.writes += 1
        return True

    def fill(self, color):
        """Light every LED of that colour (and "any" LEDs); C_OFF turns all off. Next render redraws."""
        for i in range(len(self._pins)):
            cid = self._color[i]
            self._set(i, color != _C_OFF and (cid == color or cid == _ANY))
        self._force = True

    def off(self):
        self.fill(_C_OFF)
