"""R-SETUP-*: how the cards are split at the start of a round (what the referee derives)."""

from table import Table


def test_r_setup_1_deck_split_evenly_26_each():
    t = Table()
    rs = t.of("round_start")[0]
    assert (rs["round"], rs["cards0"], rs["cards1"]) == (1, 26, 26)
    assert t.ref.cards == [26, 26]


def test_r_setup_1_first_countdown_starts_at_zero():
    t = Table(countdown_ms=1500)
    cd = t.of("countdown")[0]
    assert (cd["t"], cd["ms"], cd["round"]) == (0, 1500, 1)


def test_r_setup_2_five_stocks_hold_15_and_11_form_the_spit_pile():
    t = Table()
    assert t.ref.stock_start == [15, 15]
    assert t.ref.spit_left == [11, 11]


def test_r_setup_2_the_first_spit_card_comes_off_the_spit_pile():
    t = Table().begin()
    assert t.ref.spit_left == [10, 10]
    assert t.ref.stock_start == [15, 15]


def test_r_setup_3_four_stocks_hold_10():
    t = Table(stocks=4)
    assert t.ref.stock_start == [10, 10]
    assert t.ref.spit_left == [16, 16]


def test_r_setup_3_four_stocks_player_out_after_10_plays():
    t = Table(stocks=4).begin()
    t.run(0, 9)
    t.slap(0, 0).flush()
    assert t.last()["reason"] == "slap_too_early"
    t.run(0, 1)
    t.slap(0, 0).flush()
    assert len(t.of("round_end")) == 1


def test_r_setup_4_under_15_cards_stocks_as_far_as_they_go_no_spit_pile():
    t = Table(counts=[10, 42])
    assert t.ref.stock_start == [10, 15]
    assert t.ref.spit_left == [0, 27]


def test_r_setup_4_under_15_cards_single_pile_from_the_start():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    s = t.of("spit")
    assert len(s) == 1 and (s[0]["pile"], s[0]["player"]) == (1, 1)
    assert t.ref.single_pile == 1
    assert t.ref.spit_left == [0, 26]
    assert t.tops() == ["-", "KS"]


def test_r_setup_4_single_pile_from_the_start_other_pile_takes_no_spit():
    t = Table(counts=[42, 10]).begin(spits=("7H", None))
    assert t.tops() == ["7H", "-"]
    t.card(1, "8C", 3000).flush()          # nothing was spat on pile 1: no spit card there
    v = t.last()
    assert v["verdict"] == "illegal" and "top" not in v
    t.card(0, "8C", 3400).flush()
    assert t.last()["verdict"] == "accept"


def test_r_setup_4_four_stocks_under_10_cards():
    t = Table(counts=[7, 45], stocks=4)
    assert t.ref.stock_start == [7, 10]
    assert t.ref.spit_left == [0, 35]
