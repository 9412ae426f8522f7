"""R-PLAY-*: plays, first touch wins, countdown/spit."""

from table import Table


def test_r_play_1_countdown_then_spit_cards_start_the_piles():
    t = Table(countdown_ms=1500)
    t.card(0, "5C", 1000).flush()            # during the countdown
    assert t.last()["verdict"] == "early"
    t.card(0, "7H", 1600).card(1, "KS", 1601).flush()
    spits = t.of("spit")
    assert [(v["pile"], v["card"], v["player"]) for v in spits] == [(0, "7H", 0), (1, "KS", 1)]
    assert t.tops() == ["7H", "KS"]


def test_r_play_2_no_turns_same_player_and_both_piles_at_once():
    t = Table().begin()
    t.card(0, "8H", 3000, player=0).card(1, "QS", 3000, player=1).card(0, "9H", 3100, player=0).flush()
    assert [v["verdict"] for v in t.tail(3)] == ["accept", "accept", "accept"]
    assert t.tops() == ["9H", "QS"]


def test_r_play_3_legal_play_accepted_illegal_rejected_top_unchanged():
    t = Table().begin()
    t.card(0, "6D", 3000).flush()
    assert t.last()["verdict"] == "accept"
    t.card(0, "9D", 3500).flush()
    v = t.last()
    assert v["verdict"] == "illegal" and v["card"] == "9D" and v["top"] == "6D"
    assert t.tops()[0] == "6D"


def test_r_play_4_a_played_card_stays_even_when_a_late_card_follows():
    t = Table().begin()
    t.card(0, "8H", 3000).card(0, "6C", 3050).flush()
    assert t.tops()[0] == "8H"
    assert t.last()["verdict"] == "late"


def test_r_play_5_first_touch_wins_out_of_order_reads():
    # Two touches on pile 0; the read of the SECOND card arrives first? No: reads come in
    # touch order per pile, but the other pile's events interleave. Cards land at the touch.
    t = Table().begin()
    t.touch(0, 3000, 0)
    t.touch(0, 3002, 0)          # 2 ms later: the other player's card
    t.card(0, "8H", 3020)        # read of the first card (matched to 3000.000)
    t.card(0, "6S", 3045)        # read of the second (matched to 3002.000)
    t.flush()
    acc = t.of("accept")[-1]
    late = t.last("late")
    assert acc["card"] == "8H" and acc["t"] == 3000000
    assert late["card"] == "6S" and late["dt_us"] == 2000 and late["top"] == "8H"


def test_r_play_5_order_by_hardware_time_not_arrival():
    # The second reader is serviced later: its earlier landing arrives after a later one.
    t = Table().begin()
    t.card(1, "QS", 3100)        # landed at 3.100 s
    t.card(1, "AS", 3050)        # landed at 3.050 s, arrives later (no touch sensor)
    t.flush()
    a, b = t.tail(2)
    assert (a["verdict"], a["card"]) == ("accept", "AS")      # A on K (R-CARD-2)
    assert (b["verdict"], b["card"]) == ("late", "QS")        # Q fit K, not the new A


def test_r_play_5_race_loser_that_still_fits_is_accepted():
    t = Table().begin()
    t.card(0, "8H", 3000).card(0, "9C", 3100).flush()      # 9 fits the new top 8
    v = t.last()
    assert v["verdict"] == "accept" and v["card"] == "9C" and v["dt_us"] == 100000


def test_r_play_5_tie_inside_the_tie_window():
    t = Table(tie_window_us=1000).begin()
    t.touch(0, 3000, 0).touch(0, 3000, 400)
    t.card(0, "8H", 3010).card(0, "6C", 3030).flush()
    tie = t.last("tie")
    assert tie["card"] == "6C" and tie["winner"] == "8H" and tie["dt_us"] == 400
    assert t.last()["verdict"] == "late"


def test_r_play_5_touch_without_read_is_flagged_no_read():
    t = Table().begin()
    t.touch(0, 3000).advance(4000)
    e = t.last("error")
    assert e["reason"] == "no_read" and e["pile"] == 0
    assert t.ref.unread == [1, 0]


def test_r_play_5_a_late_card_outside_the_race_window_is_illegal():
    t = Table(race_window_us=250000).begin()
    t.card(0, "8H", 3000).card(0, "6C", 3400).flush()
    assert t.last()["verdict"] == "illegal"


def test_r_play_5_two_landings_in_one_touch_edge_are_a_tie_not_a_guess():
    # The pile's touch sensor merged two landings (inside its debounce) into one edge: the
    # second read finds no touch left and comes right after the first (its tag was in the
    # field already when the reader listed again). Which landed first cannot be told: a tie.
    t = Table().begin()
    t.touch(0, 3000, 0)
    t.card(0, "8H", 3012).card(0, "6C", 3017).flush()
    tie = t.last("tie")
    assert tie["card"] == "6C" and tie["winner"] == "8H" and tie["dt_us"] == 17000
    assert t.last()["verdict"] == "late"


def test_r_play_5_without_touch_sensors_the_read_time_stands():
    t = Table().begin()
    t.card(0, "8H", 3012).card(0, "6C", 3092).flush()   # further apart than relist_us
    assert t.last("tie") is None
    assert t.last()["verdict"] == "late" and t.last()["dt_us"] == 80000
