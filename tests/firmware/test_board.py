"""Board file validation and the hardware builders (CPython, virtual board)."""

import copy
import glob
import json

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _board_module():
    import types

    if "micropython" not in sys.modules:
        m = types.ModuleType("micropython")
        m.const = lambda x: x
        sys.modules["micropython"] = m
    from referee import board

    return board


def base():
    with open(os.path.join(ROOT, "boards", "pico.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "boards", "*.json"))))
def test_every_shipped_board_is_valid(path):
    b = _board_module().load_board(path)
    assert b["piles"] in (2, 3)
    assert len(b["nfc"]["readers"]) == b["piles"]
    assert len(b["touch"]) == b["piles"]
    assert all(len(p["slap"]) == b["piles"] for p in b["players"])
    assert len(b["leds"]["zones"]) == 7


def test_normalised_defaults():
    b = _board_module().load_board(base())
    assert b["players"][0]["stuck"] == {"pin": 2, "active": "low", "pull": "up", "debounce_ms": None,
                                        "stable_ms": 3}
    assert b["stable_ms"] == 3 and "stable_ms" not in b["touch"][0]
    assert b["nfc"]["spi"]["cs_setup_us"] == 50
    assert [r["reset"] for r in b["nfc"]["readers"]] == [None, None]
    assert b["touch"][0]["debounce_ms"] == 1
    assert b["leds"]["zones"][0] == [2, 3, 4, 5] and b["leds"]["zones"][2] == []
    assert b["buzzer"] == {"pin": 15, "volume": 8000}
    assert b["nfc"]["spi"]["baudrate"] == 4000000   # (boards/pico.json; 1 MHz when a board file gives none)


def _mutate(fn):
    d = base()
    fn(d)
    return d


def _set(path, value):
    def fn(d):
        cur = d
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value
    return fn


def _del(path):
    def fn(d):
        cur = d
        for k in path[:-1]:
            cur = cur[k]
        del cur[path[-1]]
    return fn


ERRORS = [
    (_set(["players", 1, "slap", 0], 40), "board.json: players[1].slap[0]: pin 40 is not a Pico GPIO (0-29)"),
    (_set(["players", 1, "slap", 0], 3), "board.json: players[1].slap[0]: pin 3 is already used by players[0].slap[0]"),
    (_set(["buzzer", "pin"], 17), "board.json: buzzer.pin: pin 17 is already used by nfc.readers[0].cs"),
    (_set(["players", 0, "stuck"], True), "board.json: players[0].stuck: expected an object"),
    (_set(["players", 0, "stuck"], {"pin": 2.0}), "board.json: players[0].stuck.pin: pin 2.0 is not a Pico GPIO"),
    (_set(["touch", 1, "pin"], 24), "board.json: touch[1].pin: GPIO 24 is used inside the Pico"),
    (_set(["players", 0, "stuck"], 25), "board.json: players[0].stuck: GPIO 25 is the on-board LED"),
    (_del(["nfc", "readers"]), "board.json: nfc: missing key 'readers'"),
    (_del(["players"]), "board.json: missing key 'players'"),
    (_set(["players", 0, "slaps"], [1]), "board.json: players[0]: unknown key 'slaps' (expected stuck, slap)"),
    (_set(["players", 0, "slap"], [3]), "board.json: players[0].slap: expected 2 entries (one per pile), got 1"),
    (_set(["players"], [{"stuck": 2}]), "board.json: players: expected 2 entries (one per player), got 1"),
    (_set(["piles"], 3), "board.json: nfc.readers: expected 3 entries (one per pile), got 2"),
    (_set(["piles"], 5), "board.json: piles: expected an integer 2..3, got 5"),
    (_set(["board"], 2), "board.json: board: unsupported board file version 2"),
    (_set(["nfc", "spi", "mosi"], 18), "board.json: nfc.spi.mosi: pin 18 is already used by nfc.spi.sck"),
    (_set(["nfc", "spi", "sck"], 10), "board.json: nfc.spi.sck: GPIO 10 cannot be SPI0 SCK"),
    (_set(["nfc", "spi", "miso"], 12), "board.json: nfc.spi.miso: GPIO 12 cannot be SPI0 MISO"),
    (_set(["nfc", "bus"], "uart"), "board.json: nfc.bus: expected one of spi/i2c, got \"uart\""),
    (_set(["touch", 0, "active"], "hi"), "board.json: touch[0].active: expected one of low/high"),
    (_set(["leds", "zones", "PILE0"], [2, 3, 16]), "board.json: leds.zones.PILE0[2]: expected an integer 0..15, got 16"),
    (_set(["leds", "zones", "SPIT"], [6, 2]), "pixel 2 is already in zone PILE0"),
    (_set(["leds", "zones", "PILE9"], [20]), "board.json: leds.zones: unknown key 'PILE9'"),
    (_set(["leds", "type"], "dotstar"), "board.json: leds.type: expected one of neopixel/gpio"),
    (_set(["buzzer", "volume"], 70000), "board.json: buzzer.volume: expected an integer 0..32768"),
    (_set(["touch", 0, "stable_ms"], 3), "board.json: touch[0]: unknown key 'stable_ms'"),
    (_set(["players", 0, "stuck"], {"pin": 2, "stable_ms": 50}),
     "board.json: players[0].stuck.stable_ms: expected an integer 0..20, got 50"),
    (_set(["reorder_us"], 2000), "board.json: players[0].stuck.stable_ms: 3 ms is not below reorder_us"),
    (_set(["nfc", "spi", "cs_setup_us"], 20000), "board.json: nfc.spi.cs_setup_us: expected an integer 0..10000"),
    (_set(["nfc", "readers", 1, "reset"], 17), "board.json: nfc.readers[1].reset: pin 17 is already used by nfc.readers[0].cs"),
    (_set(["nfc", "readers", 0, "chip"], {"list_uses_wupa": "yes"}),
     'board.json: nfc.readers[0].chip.list_uses_wupa: expected one of true/false or null (the probe\'s answer), got "yes"'),
    (_set(["nfc", "readers", 0, "chip"], {"coll_readable": 1}),
     "board.json: nfc.readers[0].chip.coll_readable: expected one of true/false or null (the probe's answer), got 1"),
    (_set(["nfc", "readers", 1, "chip"], {"wupa": True}), "board.json: nfc.readers[1].chip: unknown key 'wupa'"),
    (_set(["nfc", "readers", 1, "chip"], {"collision_status": 0x100}),
     "board.json: nfc.readers[1].chip.collision_status: expected an integer 0..63, got 256"),
    (_set(["nfc", "readers", 1, "chip"], {"list_order": "first"}), "board.json: nfc.readers[1].chip.list_order"),
    (_set(["nfc", "readers", 1, "chip"], {"listing_us": -1}), "board.json: nfc.readers[1].chip.listing_us"),
    (_set(["nfc", "readers", 1, "chip"], "WUPA"), "board.json: nfc.readers[1].chip: expected an object"),
]


@pytest.mark.parametrize("mutate,message", ERRORS)
def test_validation_errors_name_the_key(mutate, message):
    bm = _board_module()
    with pytest.raises(bm.BoardError) as ei:
        bm.load_board(_mutate(mutate))
    assert message in str(ei.value)
    assert ei.value.code == bm.ERR_INVALID
    assert isinstance(ei.value, ValueError)


def test_i2c_board_one_reader_per_bus():
    bm = _board_module()
    with open(os.path.join(ROOT, "boards", "pico_i2c.json")) as f:
        d = json.load(f)
    bad = copy.deepcopy(d)
    bad["nfc"]["readers"][1]["i2c"] = 0
    with pytest.raises(bm.BoardError, match=r"nfc.readers\[1\]: address 0x24 on nfc.i2c\[0\] is already used by "
                                            r"nfc.readers\[0\]"):
        bm.load_board(bad)
    bad = copy.deepcopy(d)
    bad["nfc"]["i2c"][0]["sda"] = 5
    bad["nfc"]["i2c"][0]["scl"] = 4
    with pytest.raises(bm.BoardError, match=r"nfc.i2c\[0\].sda: GPIO 5 cannot be I2C0 SDA"):
        bm.load_board(bad)
    bad = copy.deepcopy(d)
    bad["leds"]["zones"]["PILE0"]["TEAL"] = 9
    with pytest.raises(bm.BoardError, match="unknown key 'TEAL'"):
        bm.load_board(bad)


def test_file_errors_have_their_own_codes(tmp_path):
    bm = _board_module()
    with pytest.raises(bm.BoardError) as ei:
        bm.load_board(str(tmp_path / "board.json"))
    assert ei.value.code == bm.ERR_MISSING and str(ei.value).startswith("board.json: cannot open")
    p = tmp_path / "board.json"
    p.write_text('{"board": 1,')
    with pytest.raises(bm.BoardError) as ei:
        bm.load_board(str(p))
    assert ei.value.code == bm.ERR_JSON and "not valid JSON" in str(ei.value)
    p.write_text("[]")
    with pytest.raises(bm.BoardError) as ei:
        bm.load_board(str(p))
    assert ei.value.code == bm.ERR_INVALID and str(ei.value) == "board.json: expected an object"


def test_comment_keys_are_allowed():
    d = base()
    d["_note"] = "anything"
    d["players"][0]["_why"] = "left side"
    _board_module().load_board(d)


def test_boot_error_prints_one_line_and_blinks(vb, capsys):
    from machine import Pin
    from referee import board as bm

    led = Pin(25, Pin.OUT)
    levels = []
    slept = []
    orig = led.value

    def value(v=None):
        if v is not None:
            levels.append(v)
        return orig(v)

    led.value = value
    try:
        bm.load_board({"board": 1})
    except bm.BoardError as e:
        code = bm.boot_error(e, led, repeats=2, sleep_ms=slept.append)
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["spit-referee: board error (blink code 4): board.json: missing key 'name'"]
    assert code == 4 and levels == [1, 0] * 8
    assert sum(slept) == 2 * (4 * 500 + 1000)


# ---------------------------------------------------------------- builders
def test_build_inputs_wires_every_source(vb):
    from machine import Pin
    from support.ring import InputRing
    from drivers.edge_input import RELEASE
    from referee import sources as S
    from referee.board import load_board
    from referee.board_hw import build_inputs

    b = load_board(os.path.join(ROOT, "boards", "pico_3pile.json"))
    ring = InputRing(64)
    inputs = build_inputs(b, ring)
    assert len(inputs) == 3 + 2 + 6 + 3
    expect = {26: S.touch(0), 27: S.touch(1), 12: S.touch(2), 2: S.stuck(0), 6: S.stuck(1), 3: S.slap(0, 0),
              4: S.slap(0, 1), 5: S.slap(0, 2), 7: S.slap(1, 0), 8: S.slap(1, 1), 9: S.slap(1, 2),
              20: S.reader(0), 22: S.reader(1), 14: S.reader(2)}
    for gpio, src in expect.items():
        pin = Pin.registry[gpio]
        assert pin.pull == Pin.PULL_UP
        pin.drive(0)
        assert ring.pop() == src and ring.ticks == vb.clock.ticks_us()
        pin.drive(1)
        if src in (S.stuck(0), S.stuck(1)):
            assert ring.pop() == src | RELEASE
        assert ring.pop() == -1
    assert Pin.irq_errors == []
    # Without reader IRQs (if the PN532 driver wants its own handler).
    Pin.reset_registry()
    assert len(build_inputs(b, InputRing(4), reader_irqs=False)) == 11
    # The firmware's way: the IRQ pins build_nfc made for the PN532 drivers, one Pin object per GPIO.
    Pin.reset_registry()
    from referee.board_hw import build_nfc
    irqs = [irq for _, _, irq in build_nfc(b)]
    inputs = build_inputs(b, InputRing(4), irqs)
    assert [e.pin for e in inputs[11:]] == irqs and [e.source for e in inputs[11:]] == [S.reader(p) for p in range(3)]


def test_build_debouncer_windows(vb):
    from referee import sources as S
    from referee.board import load_board
    from referee.board_hw import build_debouncer

    deb = build_debouncer(load_board(os.path.join(ROOT, "boards", "pico.json")))
    assert deb.accept(S.reader(0), 0) and deb.accept(S.reader(0), 1)  # window 0
    assert deb.accept(S.touch(0), 0) and not deb.accept(S.touch(0), 999) and deb.accept(S.touch(0), 1000)
    assert deb.accept(S.stuck(0), 0) and not deb.accept(S.stuck(0), 19999)


def test_build_debouncer_holds_buttons_and_pads_until_stable(vb):
    from machine import Pin
    from support.ring import InputRing
    from referee import sources as S
    from referee.board import load_board
    from referee.board_hw import build_debouncer, build_inputs

    d = base()
    d["players"][1]["slap"][0] = {"pin": 7, "stable_ms": 6}
    d["reorder_us"] = 8000
    b = load_board(d)
    inputs = build_inputs(b, InputRing(8))
    deb = build_debouncer(b, inputs)
    assert not deb.accept(S.stuck(0), 0) and deb.holding(S.stuck(0))   # held, not dropped
    Pin.registry[2].drive(0)                                           # STUCK0 pressed
    assert deb.pop_due(2999) == -1 and deb.pop_due(3000) == S.stuck(0) and deb.ticks == 0
    assert not deb.accept(S.slap(1, 0), 100)
    Pin.registry[7].drive(0)
    assert deb.pop_due(5000) == -1 and deb.pop_due(6100) == S.slap(1, 0)
    assert deb.accept(S.touch(0), 50)                                  # touch: first edge at once


def test_build_pn532_applies_the_board_options(vb):
    from referee.board import load_board
    from referee.board_hw import build_nfc, build_pn532

    d = base()
    d["nfc"]["spi"]["cs_setup_us"] = 120
    d["nfc"]["readers"][1]["reset"] = 9
    b = load_board(d)
    drivers = [build_pn532(b, p, *parts) for p, parts in enumerate(build_nfc(b))]
    assert drivers[0].cs_setup_us == 120 and drivers[0].reset_pin is None
    assert drivers[1].reset_pin.id == 9 and drivers[1].reset_pin.value() == 1
    assert drivers[0].ack_timeout_ms == 30


def test_the_probes_answers_are_checked_kept_and_given_to_the_driver(vb):
    # A reader's "chip" (the first-contact probe's answers, referee/nfc_probe.py) is kept as given
    # and read by build_pn532; every name the probe answers is one the board file takes.
    from host_tools.vboard.pn532_options import OPTIONS
    from referee.board import CHIP_ANSWERS, load_board
    from referee.board_hw import build_nfc, build_pn532

    assert set(CHIP_ANSWERS) == {name for name, _ in OPTIONS} | {"listing_us", "exchange_us", "write_register_us"}
    d = base()
    answers = {"list_uses_wupa": True, "coll_readable": False, "rx_align": None, "collision_status": 3,
               "list_order": "low", "listing_us": 4800, "_note": "probed 2026-12-07"}
    d["nfc"]["readers"][0]["chip"] = answers
    b = load_board(d)
    assert b["nfc"]["readers"][0]["chip"] == {k: v for k, v in answers.items() if k != "_note"}
    assert "chip" not in b["nfc"]["readers"][1]
    drivers = [build_pn532(b, p, *parts) for p, parts in enumerate(build_nfc(b))]
    assert (drivers[0].wupa, drivers[0].coll) == (True, False)
    assert (drivers[1].wupa, drivers[1].coll) == (None, None)    # none: the reader's safe defaults
    b["nfc"]["readers"][1]["chip"] = ["not", "an", "object"]      # (a damaged file: the defaults, no crash)
    assert build_pn532(b, 1, *build_nfc(b)[1]).wupa is None


def test_build_nfc_spi_and_i2c(vb):
    from machine import Pin, SPI, I2C
    from referee.board import load_board
    from referee.board_hw import build_nfc

    readers = build_nfc(load_board(os.path.join(ROOT, "boards", "pico.json")))
    assert len(readers) == 2
    (bus0, cs0, irq0), (bus1, cs1, irq1) = readers
    assert isinstance(bus0, SPI) and bus0 is bus1
    assert cs0.id == 17 and cs0.value() == 1 and cs1.id == 21 and cs1.mode == Pin.OUT
    assert irq0.id == 20 and irq1.id == 22 and irq0.pull == Pin.PULL_UP
    Pin.reset_registry()
    readers = build_nfc(load_board(os.path.join(ROOT, "boards", "pico_i2c.json")))
    (b0, c0, i0), (b1, c1, i1) = readers
    assert isinstance(b0, I2C) and isinstance(b1, I2C) and b0 is not b1
    assert c0 is None and c1 is None and (i0.id, i1.id) == (6, 7)


def test_build_leds_and_buzzer(vb):
    from machine import Pin
    from drivers.led_strip import LedStrip
    from drivers.gpio_leds import GpioLeds
    from drivers.buzzer import Buzzer
    from referee.board import load_board
    from referee.board_hw import build_leds, build_buzzer, status_led

    b = load_board(os.path.join(ROOT, "boards", "pico.json"))
    strip = build_leds(b)
    assert isinstance(strip, LedStrip) and strip.n == 16 and strip.strip.sm.kw["sideset_base"].id == 28
    bz = build_buzzer(b)
    assert isinstance(bz, Buzzer) and bz.pwm.pin.id == 15 and not bz.pwm.sounding()
    assert status_led(b).id == 25
    Pin.reset_registry()
    g = build_leds(load_board(os.path.join(ROOT, "boards", "pico_i2c.json")))
    assert isinstance(g, GpioLeds)
    g.fill(1)  # GREEN
    assert Pin.registry[16].value() == 1 and Pin.registry[17].value() == 0
    d = base()
    d["leds"] = None
    d["buzzer"] = None
    nb = load_board(d)
    assert build_leds(nb) is None and build_buzzer(nb) is None
