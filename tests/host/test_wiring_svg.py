"""The wiring pictures docs/getting-started.md shows are drawn from boards/*.json and current."""

import json
import os

from host_tools import wiring_svg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_committed_pictures_are_current():
    assert wiring_svg.check() == [], "run: python -m host_tools.wiring_svg --write"


def _board(name):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def test_every_pin_of_the_board_is_drawn_once_with_its_pico_pin():
    board = _board("pico")
    text = wiring_svg.svg(board)
    pins = [board["nfc"]["spi"][k] for k in ("sck", "mosi", "miso")]
    for r in board["nfc"]["readers"]:
        pins += [r["cs"], r["irq"]]
    pins += [t["pin"] for t in board["touch"]]
    for pl in board["players"]:
        pins += [pl["stuck"]] + pl["slap"]
    pins += [board["leds"]["pin"], board["buzzer"]["pin"]]
    for gpio in pins:
        assert text.count(">GP%d (pin %d)<" % (gpio, wiring_svg.PICO_PIN[gpio])) == 1, gpio
    assert "PN532 pile 1" in text and "WS2812 strip (16 LEDs)" in text


def test_a_changed_board_changes_the_picture(tmp_path):
    board = _board("pico")
    before = wiring_svg.svg(board)
    board["players"][0]["stuck"] = 10
    after = wiring_svg.svg(board)
    assert before != after and ">GP10 (pin 14)<" in after
    stale = tmp_path / "x.svg"
    stale.write_text(before)
    assert wiring_svg.check({"pico": str(stale)}) == []          # (an absolute path is taken as is)
    stale.write_text(before.replace("GP18", "GP11"))
    assert wiring_svg.check({"pico": str(stale)}) == [str(stale)]


def test_readme_links_getting_started_first():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    first_link = text.index("](")
    assert text[first_link:first_link + 40].startswith("](docs/getting-started.md)")
