"""FAST (drivers/led_effects/fast.py): 8 Hz, on first."""


def test_fast_is_8_blinks_a_second(vb):
    from drivers.led_effects import fast

    seen = [fast.level(t) for t in range(1000)]
    assert seen[:63] == [255] * 63 and seen[63:125] == [0] * 62 and seen[125:250] == seen[:125]
    assert sum(1 for t in range(1, 1000) if seen[t] and not seen[t - 1]) == 7   # 8 ons, the first at 0
