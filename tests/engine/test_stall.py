"""R-STALL-*: stuck presses, spit calls, single spit pile, slow spit, three piles."""

from table import Table


def _spit_call(t, spits):
    """Both press STUCK; after the countdown each given card lands (pile i gets spits[i])."""
    t.stuck(0).stuck(1).flush()
    start = t.now
    cd = t.rules.countdown_ms
    for p in range(len(spits)):
        if spits[p]:
            t.card(p, spits[p], start + cd + 10 + p)
    t.now = start + cd + 20
    return t.flush()


# --- R-STALL-1 ---

def test_r_stall_1_both_stuck_spit_call_then_new_spit_cards():
    t = Table().begin()                      # 7H | KS
    t.stuck(0, 3000).stuck(1, 3100).flush()
    assert t.names()[-4:] == ["stuck", "stuck", "spit_call", "countdown"]
    assert t.last("spit_call")["piles"] == 2
    assert t.last("countdown")["t"] == 3100000
    t.card(0, "2C", 5200).card(1, "9D", 5201).flush()
    s = t.of("spit")[-2:]
    assert [(v["pile"], v["card"], v["player"]) for v in s] == [(0, "2C", 0), (1, "9D", 1)]
    assert t.ref.spit_left == [9, 9]
    assert t.tops() == ["2C", "9D"]


def test_r_stall_1_cards_during_the_spit_countdown_are_early():
    t = Table().begin()
    t.stuck(0, 3000).stuck(1, 3100).card(0, "8C", 3500).flush()
    assert t.last()["verdict"] == "early"
    assert t.tops()[0] == "7H"


def test_r_stall_1_one_stuck_player_is_not_a_spit_call():
    t = Table().begin()
    t.stuck(0, 3000).stuck(0, 3100).flush()
    assert len(t.of("stuck")) == 1          # a second press counts once
    assert t.of("spit_call") == []


def test_r_stall_1_stuck_resets_after_an_accepted_play():
    t = Table().begin()
    t.stuck(0, 3000).card(0, "8C", 3200).stuck(1, 3400).flush()
    assert t.of("spit_call") == []
    t.stuck(0, 3600).flush()
    assert len(t.of("spit_call")) == 1


def test_r_stall_1_an_illegal_card_does_not_reset_stuck():
    t = Table().begin()
    t.stuck(0, 3000).card(0, "2C", 3200).stuck(1, 3400).flush()
    assert t.of("illegal")
    assert len(t.of("spit_call")) == 1


def test_r_stall_1_stuck_during_the_countdown_is_ignored():
    t = Table()
    t.stuck(0, 500).stuck(1, 600).flush()
    assert t.of("stuck") == [] and t.of("spit_call") == []


# --- R-STALL-2 ---

def test_r_stall_2_one_player_out_of_spit_cards_spits_alone_on_one_pile():
    t = Table(counts=[16, 36]).begin()       # player 0: 15 stock + 1 spit card, now spat
    assert t.ref.spit_left == [0, 20]
    _spit_call(t, (None, "2D"))
    assert t.last("spit_call")["piles"] == 1
    assert t.ref.single_pile == 1
    s = t.last("spit")
    assert (s["pile"], s["card"], s["player"]) == (1, "2D", 1)
    assert t.ref.spit_left == [0, 19]
    assert t.tops() == ["7H", "2D"]


def test_r_stall_2_single_pile_other_pile_plays_normally_after_the_countdown():
    t = Table(counts=[16, 36]).begin()
    _spit_call(t, (None, None))
    t.card(0, "8C", t.now + 300).flush()     # not a spit card: judged against 7H
    v = t.last()
    assert v["verdict"] == "accept" and v["card"] == "8C"
    assert t.ref.need_spit[1] == 1


def test_r_stall_2_lone_spitter_keeps_spitting_on_that_pile_only():
    t = Table(counts=[36, 16]).begin()       # player 1 runs out: player 0 spits on pile 0
    _spit_call(t, ("2D", None))
    _spit_call(t, ("9C", None))
    s = t.of("spit")[-2:]
    assert [(v["pile"], v["player"]) for v in s] == [(0, 0), (0, 0)]
    assert t.ref.spit_left == [18, 0]
    assert t.tops() == ["9C", "KS"]


def test_r_stall_2_with_three_piles_the_lone_spitter_fills_only_their_own_pile():
    # R-STALL-2 over R-STALL-4: once one player has no spit cards, the other spits alone onto
    # one pile (their own), not onto all three; the other piles play on.
    t = Table(piles=3, counts=[17, 35]).begin(spits=("7H", "KS", "5D"))   # p0: 2 spit cards
    assert t.ref.spit_left == [0, 19]
    _spit_call(t, (None, "2D", None))
    assert t.last("spit_call")["piles"] == 1
    s = t.last("spit")
    assert (s["pile"], s["card"], s["player"]) == (1, "2D", 1)
    assert t.ref.spit_left == [0, 18] and t.tops() == ["7H", "2D", "5D"]
    t.card(2, "6S", t.now + 400).flush()
    assert t.last()["verdict"] == "accept"
    t.stuck(0).stuck(1).flush()
    assert t.last("spit_call")["piles"] == 1 and list(t.ref.need_spit) == [0, 1, 0]


def test_r_stall_2_both_stuck_long_after_the_countdown_a_spit_card_that_never_came_is_none():
    # The referee counted a spit card for player 1 that player 1 does not have: pile 1 waits.
    # Both STUCK 5 s after the countdown: player 1 has no spit card, player 0 spits alone.
    t = Table().begin(spits=("7H", None))
    assert list(t.ref.need_spit) == [0, 1]
    t.stuck(0, 2500).stuck(1, 6900).flush()          # the spit card may still come: no call
    assert t.of("stuck") == [] and t.of("spit_call") == []
    t.stuck(0, 7100).flush()
    assert t.of("spit_call") == []                    # one player: not yet
    t.stuck(1, 7200).flush()
    assert t.last("spit_call")["piles"] == 1 and t.ref.single_pile == 0
    assert t.ref.spit_left[1] == 0 and list(t.ref.need_spit) == [1, 0]
    _spit_call(t, ("2D", None))
    s = t.last("spit")
    assert (s["pile"], s["card"], s["player"]) == (0, "2D", 0)


def test_r_stall_2_a_spit_card_that_never_came_in_an_own_deck_game_leaves_the_row():
    t = Table("own_deck").begin(spits=(None, "KS"))
    assert list(t.ref.need_spit) == [1, 0]
    t.stuck(0, 7100).stuck(1, 7200).flush()
    assert t.ref.left[0] == t.rules.row
    assert t.last("spit_call")["piles"] == 1 and list(t.ref.need_spit) == [0, 1]


# --- R-STALL-3 ---

def test_r_stall_3_slow_spit_wait_2_s_after_the_first_flip():
    t = Table(slow_spit_ms=2000).begin()     # spit cards at 2010, 2011 ms
    t.card(0, "8C", 3000).flush()
    assert t.last()["verdict"] == "early"
    t.card(0, "8C", 4100).flush()
    assert t.last()["verdict"] == "accept"


def test_r_stall_3_slow_spit_after_a_spit_call_too():
    t = Table(slow_spit_ms=2000).begin()
    _spit_call(t, ("2C", "9D"))              # the last spit card lands at 5111 ms
    t.card(1, "10S", 6000).flush()
    assert t.last()["verdict"] == "early"
    t.card(1, "10S", 7200).flush()
    assert t.last()["verdict"] == "accept"


def test_r_stall_3_no_wait_without_slow_spit():
    t = Table().begin()
    t.card(0, "8C", 2100).flush()
    assert t.last()["verdict"] == "accept"


# --- R-STALL-4 ---

def test_r_stall_4_three_piles_each_flip_fills_three():
    t = Table(piles=3).begin(spits=("7H", "KS", "4D"))
    s = t.of("spit")
    assert [(v["pile"], v["player"]) for v in s] == [(0, 0), (1, 1), (2, 0)]
    assert t.ref.spit_left == [9, 10]


def test_r_stall_4_three_piles_spit_call_fills_three_and_pile_2_alternates():
    t = Table(piles=3).begin(spits=("7H", "KS", "4D"))
    _spit_call(t, ("2C", "9D", "JH"))
    s = t.of("spit")[-3:]
    assert [(v["pile"], v["player"]) for v in s] == [(0, 0), (1, 1), (2, 1)]
    assert t.last("spit_call")["piles"] == 3
    assert t.ref.spit_left == [8, 8]
    _spit_call(t, ("3C", "10D", "QH"))
    assert t.last("spit")["player"] == 0
    assert t.ref.spit_left == [6, 7]


def test_r_stall_4_three_piles_play_on_the_third_pile():
    t = Table(piles=3).begin(spits=("7H", "KS", "4D"))
    t.card(2, "5C", 3000).flush()
    assert t.last()["verdict"] == "accept" and t.tops() == ["7H", "KS", "5C"]
