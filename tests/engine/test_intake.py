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


def _race_scenario(start):
    """Touches, races, a shared activation and a late event from ``start`` ms on (R-PLAY-5)."""
    t = Table().begin(spits=("7H", "KS"))
    n = len(t.raw)
    t.touch(0, start).touch(0, start + 2).ready(1, start + 8)     # (an error, held in the buffer)
    t.card(0, "8H", start + 20).card(0, "6S", start + 45)      # first touch wins, 6S late
    t.card(1, "QS", start + 100, us=500).card(1, "JS", start + 100, us=500)   # one activation
    t.ready(0, start + 30)                                     # arrives after later ones
    t.touch(0, start + 300).advance(start + 600)               # a touch no read claims
    t.card(0, "9H", start + 700).flush()
    return [(v[0], v[1] - start, v[2], v[3], v[4], v[5], v[6]) for v in t.raw[n:]]


def test_r_play_5_verdicts_do_not_depend_on_the_session_time():
    # The queue keeps times as microseconds from a base that moves every 537 s: a scenario
    # played across that moment judges as one played early in the session.
    early = _race_scenario(100000)
    assert len(early) >= 8
    assert _race_scenario(536860) == early          # the base moves in the middle of it
    assert _race_scenario(5 * 536871 + 7) == early  # after several moves


def _two_pile_activation(advance_between):
    t = Table().begin(spits=("7H", "KS"))
    n = len(t.raw)
    t.card(0, "8H", 4000).card(1, "QS", 4010)   # touch-less reads, 10 ms apart
    if advance_between:
        t.advance(4025)
    t.card(0, "9C", 4000).flush()                 # pile 0's activation found a second tag
    return t.names()[n:], t.raw[n:]


def test_r_play_5_each_piles_relist_hold_runs_while_another_pile_reads():
    # The loop advances 25 ms after pile 0's read: it is still held (relist_us 60 ms: a second
    # tag of that activation may come), although pile 1 read after it.  The second tag, with
    # the first one's time, is then judged as if the loop had not advanced: a tie, not late.
    names, raw = _two_pile_activation(True)
    assert (names, raw) == _two_pile_activation(False)
    assert "tie" in names and "error" not in names


def _other_pile_waits(quiet):
    # Pile 0 reads 8H at 4000 ms; pile 1's QS lands (touch + read) 10 ms later.  Until pile 0's
    # reader says it found no other tag, QS waits out pile 0's relist hold (relist_us 60 ms).
    t = Table().begin(spits=("7H", "KS"))
    n = len(t.raw)
    t.touch(0, 4000).card(0, "8H", 4005)
    t.touch(1, 4010).card(1, "QS", 4015)
    if quiet:
        assert t.ref.quiet(0) == 2          # it ended a hold, and QS waits in the buffer
    t.advance(4030)
    return t.names()[n:]


def test_r_play_5_quiet_reader_ends_the_relist_hold_on_other_piles():
    assert _other_pile_waits(quiet=False) == ["accept"]            # QS still held at 4030
    assert _other_pile_waits(quiet=True) == ["accept", "accept"]   # judged at once


def test_r_play_5_quiet_keeps_the_read_gap_tie():
    # quiet() only ends the hold: a touch-less read soon after the pile's last read is still a
    # tie (the race rule does not depend on when the reader went quiet).
    def gap(quiet):
        t = Table().begin(spits=("7H", "KS"))
        n = len(t.raw)
        t.card(0, "8H", 4000)
        if quiet:
            t.ref.quiet(0)
        t.card(0, "9C", 4020).flush()
        return t.names()[n:], t.raw[n:]
    assert gap(True) == gap(False)
    assert "tie" in gap(True)[0]
    assert Table().ref.quiet(5) == 0   # no such pile: ignored


def test_a_read_on_a_pile_the_table_does_not_have_is_bad_pile_in_time_or_late():
    # Such a read is buffered apart from the card reads on real piles (intake._EV_OFF_TABLE)
    # and judged as one: in time order, flagged late when later events were judged first.
    t = Table(reorder_us=150000).begin()
    n = len(t.raw)
    t.card(5, "8H", 3000).advance(3200)
    t.card(0, "8H", 3300).advance(3500)
    t.card(-1, "9H", 3200).flush()          # arrives after 3300 was judged
    # Raw verdicts (code, t_ms, t_us, a, b, c, d): 11 an error (a: 1 bad_pile, 9 late_event).
    assert t.raw[n:] == [(11, 3000, 0, 1, 5, 40, -1), (1, 3300, 0, 0, 40, -1, -1),
                         (11, 3350, 0, 9, -1, -1, -1), (11, 3350, 0, 1, -1, 41, -1)]


def test_an_event_kind_the_engine_does_not_know_is_judged_as_nothing():
    # (The buffer keeps an event's kind and flags in one int: any kind comes back whole.)
    t = Table().begin()
    n = len(t.raw)
    for kind in (99, -3, 1 << 20):
        t.ref.feed(kind, 3000, 0, 0, 0, 0)
    t.card(0, "8H", 3100).flush()
    assert t.names()[n:] == ["accept"]
