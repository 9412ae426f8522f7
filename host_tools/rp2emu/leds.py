"""WS2812 frames seen on the data pin, read back as the colour each LED zone shows."""

from host_tools.rp2emu import firmware_path  # noqa: F401 (puts firmware/ on sys.path)
from drivers.led_patterns import DEFAULT_PALETTE
from spit.describe import COLOUR_NAMES


def nearest_colour(rgb):
    """The palette colour name closest in hue to one pixel ``(r, g, b)``; "off" when dark."""
    m = max(rgb)
    if not m:
        return "off"
    best, err = "off", None
    for c in range(1, len(DEFAULT_PALETTE) // 3):
        pal = DEFAULT_PALETTE[3 * c:3 * c + 3]
        top = max(pal)
        d = 0
        for i in range(3):
            d += abs(rgb[i] * 255 // m - pal[i] * 255 // top)
        if err is None or d < err:
            err, best = d, COLOUR_NAMES[c]
    return best


def zone_colours(board, rgb):
    """``{zone: colour}`` of one frame (bytes r, g, b per pixel) for a board's ``leds.zones``:
    a zone shows the colour of its first lit pixel."""
    out = {}
    zones = board["leds"]["zones"]
    for name in zones:
        colour = "off"
        for px in zones[name]:
            pixel = tuple(rgb[3 * px:3 * px + 3])
            if len(pixel) == 3 and max(pixel):
                colour = nearest_colour(pixel)
                break
        out[name.lower()] = colour
    return out
