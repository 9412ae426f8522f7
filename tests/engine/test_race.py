"""R-PLAY-5 as the sensors report it: touches in time order, reads paired only when the
evidence is certain, a `tie` otherwise (the race rule, docs/rules.md)."""

from table import Table


def test_r_play_5_touches_are_matched_in_time_order_not_arrival_order():
    # docs/log-format.md: the card matches the earliest unmatched touch. The 4000 ms touch
    # arrives after the 4010 ms one; 5S landed at 4000 and 3D (on the new top 5S) is late.
    t = Table().begin(spits=("4C", "KS"))
    t.touch(0, 4010).touch(0, 4000)
    t.card(0, "5S", 4016).card(0, "3D", 4019).flush()
    acc = t.last("accept")
    assert acc["card"] == "5S" and acc["t"] == 4000000
    late = t.last("late")
    assert late is not None and late["card"] == "3D" and late["top"] == "5S"


def test_r_play_5_an_out_of_order_touch_still_holds_the_events_after_it():
    # The hold in _release uses the pile's earliest waiting touch, whatever the arrival order:
    # the card on pile 1 at 4005 ms waits for pile 0's read of the 4000 ms touch.
    t = Table(reorder_us=1000).begin(spits=("4C", "KS"))
    t.touch(0, 4010).touch(0, 4000)
    t.touch(1, 4005).card(1, "QS", 4006)
    t.advance(4008)
    assert t.last("accept") is None   # still held: pile 0's 4000 ms touch waits for its read
    t.card(0, "5S", 4009).flush()
    cards = [v["card"] for v in t.of("accept")]
    assert cards[:2] == ["5S", "QS"]


def test_r_play_5_out_of_order_touches_expire_oldest_first():
    t = Table(touch_match_us=50000).begin(spits=("4C", "KS"))
    t.touch(0, 4100).touch(0, 4000)
    t.card(0, "5S", 4120).flush()   # the 4000 touch is too old for it: no_read at 4000
    errs = [v for v in t.of("error") if v["reason"] == "no_read"]
    assert len(errs) == 1 and errs[0]["t"] == 4000000
    assert t.last("accept")["t"] == 4100000


def test_r_play_5_two_touches_before_the_first_read_make_a_tie():
    # Both cards were on the pile when the reader answered: it read them in UID order, so the
    # first read may be the second landing. The referee does not guess: tie.
    t = Table().begin(spits=("7H", "KS"))
    t.touch(0, 4000).touch(0, 4020)
    t.card(0, "6C", 4022).card(0, "8H", 4027).flush()
    tie = t.last("tie")
    assert tie is not None and tie["card"] == "8H" and tie["winner"] == "6C"


def test_r_play_5_a_touch_after_the_first_read_leaves_the_pairing_certain():
    t = Table().begin(spits=("7H", "KS"))
    t.touch(0, 4000).card(0, "8H", 4008).touch(0, 4020).card(0, "6C", 4030).flush()
    assert t.last("tie") is None
    late = t.last("late")
    assert late["card"] == "6C" and late["dt_us"] == 20000


def test_r_play_5_a_read_with_no_touch_long_after_the_last_lands_at_its_own_time():
    # The sensor missed a landing 100 ms after the last one: the read's own time stands (no
    # late_event, no made-up 5 ms gap), as docs/log-format.md says.
    t = Table().begin(spits=("7H", "KS"))
    t.touch(0, 4000).card(0, "8H", 4005)
    t.card(0, "9H", 4105).flush()
    assert t.of("error") == []
    acc = t.last("accept")
    assert acc["card"] == "9H" and acc["t"] == 4105000 and acc["dt_us"] == 105000


def test_r_play_5_without_touch_sensors_reads_close_together_are_a_tie():
    t = Table().begin(spits=("7H", "KS"))
    t.card(0, "6C", 4010).card(0, "8H", 4015).flush()
    tie = t.last("tie")
    assert tie is not None and tie["card"] == "8H" and tie["winner"] == "6C"


def test_r_play_5_relist_us_zero_turns_the_read_gap_tie_off():
    t = Table(relist_us=0).begin(spits=("7H", "KS"))
    t.card(0, "6C", 4010).card(0, "8H", 4015).flush()
    assert t.last("tie") is None


def test_r_play_5_two_tags_of_one_activation_land_together():
    # The reader reports two new tags with one time (they answered one activation) and the
    # sensor made one edge: the same landing time, a tie with dt 0.
    t = Table().begin(spits=("7H", "KS"))
    t.touch(0, 4000).card(0, "8H", 4003).card(0, "6C", 4003).flush()
    tie = t.last("tie")
    assert tie["card"] == "6C" and tie["winner"] == "8H" and tie["dt_us"] == 0


def test_r_play_5_a_second_tag_reported_steps_after_its_activation_is_not_late():
    # A reader resolving a collision reports the second tag with the activation's time some
    # loop steps later (here 7 ms, more than reorder_us): the referee still holds for it.
    t = Table(reorder_us=5000).begin(spits=("QS", "7H"))
    t.touch(0, 4000).card(0, "KH", 4002)
    t.advance(4012)                                   # the loop runs on; KH is judged
    assert t.last("accept")["card"] == "KH"
    t.card(0, "KD", 4005).advance(4013).flush()       # stamped 4005, delivered at 4012
    assert t.of("error") == []
    assert t.last("tie")["card"] == "KD"
