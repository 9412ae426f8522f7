"""BLINK (drivers/led_effects/blink.py): 2 Hz, on first."""


def test_blink_is_250_ms_on_then_250_ms_off(vb):
    from drivers.led_effects import blink

    seen = [blink.level(t) for t in range(1000)]
    assert seen[:250] == [255] * 250 and seen[250:500] == [0] * 250 and seen[500:] == seen[:500]
    assert [t for t in range(1000) if blink.next(t) == 250] == [0, 250, 500, 750]
