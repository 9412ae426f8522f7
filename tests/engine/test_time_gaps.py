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
