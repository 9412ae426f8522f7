"""COUNTDOWN (drivers/led_effects/countdown.py): a bar that shrinks until its end."""


def test_the_bar_loses_a_pixel_per_share_of_the_time_and_ends_dark(vb):
    from drivers.led_effects import countdown as c

    assert [c.lit(4, t, 1000) for t in (0, 249, 250, 251, 500, 501, 999, 1000, 1200)] == [4, 4, 3, 3, 2, 2, 1, 0, 0]
    assert c.lit(4, 10**6, -1) == 4 and c.level(500) == 255
    assert [c.lit(16, t, 2000) for t in range(0, 2001, 125)] == list(range(16, -1, -1))


def test_one_plain_led_stays_lit_then_blinks_fast_in_the_last_quarter(vb):
    from drivers.led_effects import countdown as c

    assert all(c.on(t, 1000) for t in range(0, 751))
    last = [c.on(t, 1000) for t in range(751, 1000)]
    assert True in last and False in last
    assert [c.on(t, 1000) for t in range(875, 1000)] == [t % 125 < 63 for t in range(875, 1000)]
    assert all(c.on(t, -1) for t in range(0, 5000, 37))
