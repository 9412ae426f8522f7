"""R-PLAY-5 in the event buffer: judged in time order, whatever the arrival order, as the
ring buffer wraps and when it is full (spit.intake)."""

from table import Table


def test_r_play_5_out_of_order_reads_are_judged_in_time_order_as_the_buffer_wraps():
    # 40 pairs (80 events: the 32-slot ring wraps twice), each pair arriving later-first.
    t = Table(relist_us=0).begin(spits=("7H", "KS"))
    ms = 4000
    for _ in range(40):
        t.ready(1, ms + 10)   # (no meaning in play: an error verdict at its own time)
        t.ready(0, ms)        # arrives second, happened first
        ms += 100
    t.flush()
    # Raw verdicts (code, t_ms, t_us, a, ...): 11 is an error, its a the reason (9: late_event).
    errors = [v for v in t.raw if v[0] == 11]
    assert len(errors) == 80 and t.names().count("error") == 80
    assert [v[1] for v in errors] == sorted(v[1] for v in errors)
    assert [v for v in errors if v[3] == 9] == []
    assert t.ref.overflows == 0


def test_r_play_5_a_full_buffer_judges_its_oldest_event_first():
    # A 2 s hold keeps every event buffered: the 33rd and 34th push out the two oldest.
    t = Table(reorder_us=2000000, relist_us=0).begin(spits=("7H", "KS"))
    before = len(t.raw)
    for i in range(34):
        t.ready(i % 2, 5000 + i)
    assert t.ref.overflows == 2
    assert [v[1] for v in t.raw[before:]] == [5000, 5001]
    t.flush()
    assert [v[1] for v in t.raw[before:]] == list(range(5000, 5034))
