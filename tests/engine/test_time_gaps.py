"""The time base across long gaps (issue 25, item 2): the intake keeps times as one small int
from a base that moves every 2**29 us; a gap of any length between two inputs, with or without
tick lines, gives the verdicts of the same input with ticks in the gap."""

from fuzz import gap_divergences
from table import Table


def _tail_after_gap(gap_us):
    t = Table(countdown_ms=1500, tie_window_us=1000)   # (the docs/log-format.md example)
    t.card(0, "7H", ms=1600)
    t.card(1, "KS", ms=1600, us=500)
    t.card(0, "8H", ms=3000)               # no touch: held reorder_us after its read
    later = 3000000 + gap_us
    t.ref.feed(2, later // 1000, later % 1000, 0, 0x29, -1)   # 9H after the gap
    t.flush()
    return [(v["verdict"], v.get("card"), v["t"]) for v in t.verdicts if v.get("card") in ("8H", "9H")]


def test_time_base_a_held_card_keeps_its_time_across_any_gap():
    # 8H landed at 3.0 s was stamped at 63.1 s (the next line's time - 2**29 us) and tied.
    for gap in (60100000, 536870911, 536870912, 597000000, 1073741824, 3600000000):
        assert _tail_after_gap(gap) == [("accept", "8H", 3000000), ("accept", "9H", 3000000 + gap)], gap


def test_time_base_gap_streams_judge_as_with_ticks_in_the_gaps():
    bad, total, first = gap_divergences(1, 150)
    assert total > 3000
    assert bad == 0, "seed %d" % first


def test_time_base_irq_stamp_from_before_a_long_pause_is_not_read_as_ahead():
    # The loop held up 10 minutes (> 2**29 us): an edge stamped before the pause was converted
    # 2**30 us later than it was (ticks_diff wraps), 8 minutes in the future.
    from spit.clock import SessionClock
    period = 1 << 30
    now = [period - 5000000]          # true us (the counter wraps at 2**30)

    def ticks_us():
        return now[0] % period

    def ticks_ms():
        return (now[0] // 1000) % period

    def ticks_diff(a, b):
        return ((a - b + (period >> 1)) % period) - (period >> 1)

    clock = SessionClock(ticks_us, ticks_ms, ticks_diff)
    for pause_us, back_us in ((600000000, 590000000), (1000000000, 999000000), (5000, 2000), (0, -900000)):
        now[0] += pause_us
        stamp = (now[0] - back_us) % period
        clock.update()
        clock.convert(stamp)
        got = clock.ev_ms * 1000 + clock.ev_us
        want = clock.ms * 1000 + clock.us - back_us
        assert -1000 < got - want < 1000, (pause_us, got, want)
