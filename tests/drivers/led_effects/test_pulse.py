"""PULSE (drivers/led_effects/pulse.py): breathing, bright first, in few steps."""


def test_pulse_breathes_from_bright_to_dim_and_back_in_16_levels(vb):
    from drivers.led_effects import pulse
    from drivers.led_patterns import _FRAME_MS

    seen = [pulse.level(t) for t in range(1600)]
    assert seen[0] == 255 and seen[800] == 32 and min(seen) == 32 and max(seen) == 255
    assert seen[:800] == sorted(seen[:800], reverse=True) and seen[800:] == sorted(seen[800:])
    assert len(set(seen)) == 16 and seen == [pulse.level(t + 1600) for t in range(1600)]
    assert pulse.next(123) == _FRAME_MS
