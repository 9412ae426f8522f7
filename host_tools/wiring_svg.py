"""The wiring picture of a board file (``boards/NAME.json``) as SVG, so docs/getting-started.md's
picture always matches the pins the firmware uses.

    python -m host_tools.wiring_svg boards/pico.json docs/wiring-pico.svg
    python -m host_tools.wiring_svg --check      # the committed pictures are current (exit 1 if not)

The Pico on the left with the physical pin of each GPIO used, one line per connection to the part
on the right (readers, touch sensors, buttons and pads, LED strip, buzzer), grouped by part.
"""

import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PICTURES = {"pico": "docs/wiring-pico.svg", "pico_3pile": "docs/wiring-pico_3pile.svg"}

# Raspberry Pi Pico: GPIO -> physical pin (the board's pinout; GND and power pins between them).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
            14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
COLOURS = {"reader": "#1f6fb2", "touch": "#2a9d4b", "button": "#b35c00", "leds": "#8e3fb0", "buzzer": "#555555",
           "spi": "#1f6fb2"}


def _pin(spec):
    return spec if isinstance(spec, int) else spec["pin"]


def connections(board):
    """``[(gpio, part group, part, what)]`` of a board file, in the order parts are drawn."""
    out = []
    nfc = board["nfc"]
    if nfc["bus"] == "spi":
        spi = nfc["spi"]
        for key, what in (("sck", "SCK"), ("mosi", "MOSI"), ("miso", "MISO")):
            out.append((spi[key], "spi", "SPI%d (every PN532)" % spi["id"], what))
        for p, r in enumerate(nfc["readers"]):
            out.append((r["cs"], "reader", "PN532 pile %d" % p, "CS (10 kOhm pull-up to 3.3 V)"))
            out.append((r["irq"], "reader", "PN532 pile %d" % p, "IRQ"))
    else:
        for c in nfc["i2c"]:
            out.append((c["sda"], "spi", "I2C%d (PN532s)" % c["id"], "SDA"))
            out.append((c["scl"], "spi", "I2C%d (PN532s)" % c["id"], "SCL"))
        for p, r in enumerate(nfc["readers"]):
            out.append((r["irq"], "reader", "PN532 pile %d" % p, "IRQ"))
    for p, t in enumerate(board.get("touch", [])):
        if t is not None:
            out.append((_pin(t), "touch", "touch sensor pile %d" % p, "OUT"))
    for q, pl in enumerate(board["players"]):
        out.append((_pin(pl["stuck"]), "button", "player %d" % q, "STUCK button to GND"))
        for p, s in enumerate(pl["slap"]):
            if s is not None:
                out.append((_pin(s), "button", "player %d" % q, "slap pad pile %d to GND" % p))
    leds = board.get("leds")
    if leds and leds.get("type") == "neopixel":
        out.append((leds["pin"], "leds", "WS2812 strip (%d LEDs)" % leds["count"], "DIN via 330 Ohm"))
    elif leds:
        for z in leds.get("zones", {}).values() if isinstance(leds.get("zones"), dict) else ():
            for _cid, gpio in z:
                out.append((gpio, "leds", "LEDs", "LED"))
    bz = board.get("buzzer")
    if bz:
        out.append((bz["pin"], "buzzer", "piezo buzzer", "+ (other lead to GND)"))
    return out


def _esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(board):
    """The picture's SVG text."""
    rows = connections(board)
    row_h = 22
    top = 70
    height = top + row_h * len(rows) + 60
    width = 780
    pico_x, pico_w = 30, 170
    part_x = 470
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="Helvetica, Arial, sans-serif" font-size="13">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="28" font-size="16" font-weight="bold">Wiring of boards/%s.json</text>'
           % (pico_x, _esc(board.get("name", "?"))),
           '<text x="%d" y="48" fill="#444">%s</text>' % (pico_x, _esc("generated from the board file by "
                                                                      "host_tools/wiring_svg.py; GND and 3.3 V "
                                                                      "to every part")),
           '<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#e8f3e8" stroke="#2a7a2a" stroke-width="2"/>'
           % (pico_x, top - 14, pico_w, row_h * len(rows) + 10),
           '<text x="%d" y="%d" font-weight="bold" fill="#2a7a2a">Raspberry Pi Pico</text>'
           % (pico_x + 10, top + row_h * len(rows) + 16)]
    last_part = None
    for i, (gpio, group, part, what) in enumerate(rows):
        y = top + i * row_h
        colour = COLOURS.get(group, "#333")
        pin = PICO_PIN.get(gpio)
        out.append('<text x="%d" y="%d">GP%d%s</text>' % (pico_x + 10, y + 4, gpio,
                                                          " (pin %d)" % pin if pin else ""))
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/>' % (pico_x + pico_w, y, colour))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (pico_x + pico_w, y, part_x - 10, y, colour))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (pico_x + pico_w + 12, y - 4, colour, _esc(what)))
        if part != last_part:
            out.append('<text x="%d" y="%d" font-weight="bold" fill="%s">%s</text>' % (part_x, y + 4, colour,
                                                                                       _esc(part)))
            last_part = part
        else:
            out.append('<text x="%d" y="%d" fill="%s">|</text>' % (part_x, y + 4, colour))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def check(pictures=PICTURES):
    """Names of the committed pictures that differ from what their board file gives now."""
    stale = []
    for name, path in sorted(pictures.items()):
        with open(os.path.join(REPO, "boards", name + ".json"), encoding="utf-8") as f:
            want = svg(json.load(f))
        try:
            with open(os.path.join(REPO, path), encoding="utf-8") as f:
                have = f.read()
        except OSError:
            have = None
        if have != want:
            stale.append(path)
    return stale


def main(argv):
    if argv == ["--check"]:
        stale = check()
        for path in stale:
            sys.stderr.write("%s is not current: python -m host_tools.wiring_svg --write\n" % path)
        return 1 if stale else 0
    if argv == ["--write"]:
        for name, path in sorted(PICTURES.items()):
            main([os.path.join(REPO, "boards", name + ".json"), os.path.join(REPO, path)])
        return 0
    if len(argv) != 2:
        sys.stderr.write("usage: python -m host_tools.wiring_svg BOARD.json OUT.svg | --write | --check\n")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        text = svg(json.load(f))
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
