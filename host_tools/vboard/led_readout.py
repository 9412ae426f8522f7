"""What a virtual table's LEDs show, read back for tests: the colour name each zone physically
shows (GPIO LED pins, or the WS2812 strip's pixels matched to the nearest palette colour) and the
intents ``{zone: (colour, pattern)}`` the firmware is rendering.
"""

from .pins import Pin


def led_colours(board, app):
    """``{zone: colour name}`` of what the board's LEDs physically show now ("off" = dark)."""
    from referee.board import ZONE_NAMES, COLOR_NAMES
    from drivers.led_patterns import DEFAULT_PALETTE
    leds = board["leds"]
    out = {}
    if leds is None:
        return out
    if leds["type"] == "gpio":
        active = 1 if leds["active_high"] else 0
        for z, entries in enumerate(leds["zones"]):
            if not entries:
                continue
            name = "off"
            for cid, gpio in entries:
                if Pin.registry[gpio].value() == active:
                    name = "on" if cid < 0 else COLOR_NAMES[cid].lower()
            out[ZONE_NAMES[z]] = name
        return out
    from .rp2 import Ws2812View
    np = Ws2812View(app.leds.strip.sm, app.leds.n)
    shown = np.shown
    for z, pixels in enumerate(leds["zones"]):
        if not pixels:
            continue
        best = "off"
        for px in pixels:
            rgb = shown[px]
            m = max(rgb)
            if not m:
                continue
            err = None
            for c in range(1, len(DEFAULT_PALETTE) // 3):
                pal = DEFAULT_PALETTE[3 * c:3 * c + 3]
                d = 0
                for i in range(3):
                    d += abs(rgb[i] * 255 // m - pal[i] * 255 // max(pal))
                if err is None or d < err:
                    err = d
                    best = COLOR_NAMES[c].lower()
            break
        out[ZONE_NAMES[z]] = best
    return out


def led_intents(app):
    """``{zone: (colour, pattern)}`` the firmware is rendering (menu or engine intents)."""
    from spit.describe import ZONE_NAMES, COLOUR_NAMES
    src = app.corr.intents if app.corr.menu else app.intents
    out = {}
    for z in range(len(ZONE_NAMES)):
        out[ZONE_NAMES[z].upper()] = (COLOUR_NAMES[src.color[z]], pattern_name(src.pattern[z]))
    return out


def pattern_name(pattern):
    """A pattern id's name: its LED effect's module (drivers/led_effects/<name>.py, by the
    drivers' generated list), "solid" for the plain colour."""
    from drivers.led_patterns import _EFFECTS   # (CPython keeps a private const's name)
    return (_EFFECTS[pattern] if 0 <= pattern < len(_EFFECTS) else None) or "solid"
