"""R-OWN-1 (own deck each, preset "own_deck") and R-SPEED-1 (preset "speed")."""

from spit.cards import parse_card
from table import Table


def _own(counts=None):
    """Own-deck table after the countdown: player 0 spits 7H on pile 0, player 1 KS on pile 1."""
    t = Table("own_deck", counts=counts)
    t.card(0, "7H", 2010, player=0).card(1, "KS", 2011, player=1).flush()
    t.now = 2020
    return t


def _over(t):
    g = t.last("game_over")
    return None if g is None else (g["winner"], g["reason"])


# --- R-OWN-1 ---

def test_r_own_1_each_player_has_a_whole_deck():
    t = Table("own_deck")
    rs = t.last("round_start")
    assert (rs["cards0"], rs["cards1"]) == (52, 52)


def test_r_own_1_top_deck_cards_start_the_piles():
    t = _own()
    s = t.of("spit")
    assert [(v["pile"], v["card"], v["player"]) for v in s] == [(0, "7H", 0), (1, "KS", 1)]
    assert t.ref.left == [51, 51]


def test_r_own_1_cards_carry_their_player():
    t = _own()
    t.card(0, "8H", 3000, player=1).flush()
    v = t.last()
    assert v["verdict"] == "accept" and v["player"] == 1
    assert t.ref.left == [51, 50]


def test_r_own_1_same_card_from_the_two_decks_is_no_duplicate():
    t = _own()
    t.card(0, "8H", 3000, player=0).card(0, "7H", 3400, player=1).flush()
    assert t.last()["verdict"] == "accept"
    t.card(1, "QS", 3800, player=1).card(1, "KS", 4200, player=0).flush()
    assert t.last()["verdict"] == "accept"


def test_r_own_1_same_card_twice_from_one_deck_is_a_duplicate():
    t = _own()
    t.card(0, "8H", 3000, player=0).card(0, "7H", 3400, player=0).flush()
    assert t.last()["reason"] == "duplicate_card"


def test_r_own_1_card_without_player_flagged_no_owner():
    t = _own()
    t.card(0, "8C", 3000).flush()
    e = t.of("error")[-1]
    assert (e["reason"], e["pile"]) == ("no_owner", 0)
    assert t.last()["verdict"] == "accept"   # still judged
    assert t.ref.left == [51, 51]


def test_r_own_1_last_card_played_wins():
    t = _own(counts=[6, 52])                 # player 0: 5 cards left after the spit
    t.run(0, 4, player=0)
    assert _over(t) is None
    t.run(0, 1, player=0)
    assert _over(t) == (0, "no_cards")


def test_r_own_1_blocked_both_spit_a_new_card_each():
    t = _own()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    assert t.last("spit_call") is not None
    t.card(0, "2C", 5200, player=0).card(1, "9D", 5201, player=1).flush()
    assert [v["player"] for v in t.of("spit")[-2:]] == [0, 1]
    assert t.ref.left == [50, 50]


def test_r_own_1_empty_deck_plays_on_with_the_row_no_spit_card():
    t = _own(counts=[5, 20])                 # player 0: a row of 4 and an empty deck
    t.stuck(0, 3000).stuck(1, 3100).flush()
    assert t.ref.need_spit[0] == 0 and t.ref.need_spit[1] == 1
    t.card(0, "8C", 5200, player=0).flush()  # not a spit card: judged against 7H
    assert t.last()["verdict"] == "accept"


def test_r_own_1_both_decks_empty_and_blocked_fewer_cards_wins():
    t = _own(counts=[5, 5])                  # both: 4 row cards, empty decks
    t.card(1, "QS", 3000, player=1).flush()
    t.stuck(0, 3400).stuck(1, 3500).flush()
    assert _over(t) == (1, "blocked")


def test_r_own_1_both_blocked_equal_cards_is_a_draw():
    t = _own(counts=[5, 5])
    t.stuck(0, 3000).stuck(1, 3100).flush()
    assert _over(t) == (-1, "blocked")


def test_r_own_1_a_slap_means_nothing():
    t = _own()
    t.slap(0, 0).flush()
    assert t.last()["reason"] == "unexpected"


# --- R-SPEED-1 ---

def test_r_speed_1_default_counts_15_each_side_piles_of_10():
    t = Table("speed")
    assert t.ref.cards == [15, 15]
    assert t.ref.spit_left == [10, 10]


def test_r_speed_1_twenty_each_with_side_piles_of_5():
    t = Table("speed", speed_side=5)
    assert t.ref.cards == [20, 20]


def test_r_speed_1_middle_cards_start_the_piles():
    t = Table("speed").begin()
    s = t.of("spit")
    assert [(v["pile"], v["player"]) for v in s] == [(0, 0), (1, 1)]
    assert t.ref.spit_left == [10, 10]      # the single middle cards, not the side piles


def test_r_speed_1_both_stuck_flip_a_side_pile_card_each():
    t = Table("speed").begin()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()
    assert [v["card"] for v in t.of("spit")[-2:]] == ["2C", "9D"]
    assert t.ref.spit_left == [9, 9]


def test_r_speed_1_side_piles_empty_center_recycled():
    t = Table("speed", speed_side=1).begin()            # 7H | KS
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()   # side piles now empty
    assert t.ref.spit_left == [0, 0]
    t.card(0, "3C", 5600).card(0, "4C", 6000).flush()   # pile 0: 7H 2C 3C 4C
    t.stuck(0, 6400).stuck(1, 6500).flush()
    assert t.names()[-5:] == ["stuck", "stuck", "recycle", "spit_call", "countdown"]
    assert t.last("recycle")["cards"] == 4               # 3 under 4C, 1 under 9D
    assert t.ref.spit_left == [2, 2]
    assert list(t.ref.size) == [1, 1]


def test_r_speed_1_recycled_cards_come_back_without_duplicate_errors():
    t = Table("speed", speed_side=1).begin()            # 7H | KS
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()
    t.stuck(0, 6400).stuck(1, 6500).flush()             # recycles 7H and KS
    t.card(0, "KS", 8600).card(1, "7H", 8601).flush()
    s = t.of("spit")[-2:]
    assert [v["card"] for v in s] == ["KS", "7H"]
    assert t.of("error") == []


def test_r_speed_1_recycle_verdict_at_the_spit_call_time():
    t = Table("speed", speed_side=1).begin()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()
    t.stuck(0, 6400).stuck(1, 6500).advance(7000)       # the device's loop runs ahead
    assert t.last("recycle")["t"] == t.last("spit_call")["t"] == 6500000


def test_r_speed_1_declaring_out_by_slap_wins():
    t = Table("speed", counts=[3, 24]).begin()
    t.run(0, 2)
    t.slap(0, 0).flush()
    assert t.last()["reason"] == "slap_too_early"
    t.run(0, 1)
    t.slap(0, 1).flush()
    assert _over(t) == (0, "out")
    assert t.of("round_end") == []


def _recycled():
    t = Table("speed", speed_side=1).begin()            # 7H | KS
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()
    t.card(0, "3C", 5600).card(0, "4C", 6000).flush()   # pile 0: 7H 2C 3C 4C
    t.stuck(0, 6400).stuck(1, 6500).flush()             # recycled: pile 0 is 4C alone
    return t


def test_r_speed_1_after_a_recycle_undo_takes_back_the_top_alone():
    t = _recycled()
    t.undo(0, 6600).flush()
    assert t.last()["verdict"] == "undo" and t.last()["card"] == "4C"
    assert t.ref.size[0] == 0 and t.ref.top[0] == -1
    # The recycled cards are no longer on the pile: nothing left to take back.
    t.undo(0, 6700).flush()
    assert (t.last()["verdict"], t.last()["reason"]) == ("error", "unexpected")
    assert t.ref.size[0] == 0


def test_r_speed_1_after_a_recycle_the_next_card_lands_on_the_kept_top():
    t = _recycled()
    t.card(0, "5C", 8600).flush()                       # the spit card after the countdown
    assert t.last()["verdict"] == "spit" and t.ref.size[0] == 2
    t.undo(0, 8700).flush()
    assert t.last()["card"] == "5C" and t.ref.top[0] == parse_card("4C")   # on top again
    assert t.ref.size[0] == 1
