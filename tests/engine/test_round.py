"""R-ROUND-*: going out, blocked rounds, slaps, choosing, carrying the counts over."""

from table import Table


def _out(t, player=0, pile=0, plays=15, on=0):
    """Play ``plays`` legal cards on pile ``on``, then ``player`` slaps ``pile`` (going out).
    With the defaults pile 0 ends with 16 cards, pile 1 with its spit card only."""
    t.run(on, plays)
    t.slap(player, pile).flush()
    if t.ref.out_unknown:
        t.stuck(player).flush()   # either could be out: the player says it was them
    return t


def _blocked(ruleset="classic", **options):
    """Both players have one spit card each (spat at the start), then both press STUCK."""
    t = Table(ruleset, counts=[16, 16], **options).begin()
    return t.stuck(0, 3000).stuck(1, 3100).flush()


def _won(t):
    return [(v["player"], v["pile"], v["size"]) for v in t.of("pile_won")]


# --- R-ROUND-1 ---

def test_r_round_1_slap_too_early_is_rejected_and_play_goes_on():
    t = Table().begin()
    t.run(0, 14)
    t.slap(0, 0).flush()
    e = t.last()
    assert e["verdict"] == "error" and e["reason"] == "slap_too_early" and e["player"] == 0
    assert t.of("round_end") == []
    t.run(0, 1)                            # play goes on
    assert t.last()["verdict"] == "accept"


def test_r_round_1_slap_after_all_stock_cards_ends_the_round():
    t = _out(Table().begin())
    re = t.last("round_end")
    assert (re["reason"], re["round"]) == ("out", 1)
    assert t.ref.out_player == 0
    assert t.ref.stock_left == [0, 15]


def test_r_round_1_plays_of_both_players_count_towards_going_out():
    t = Table().begin()
    t.run(0, 10).run(1, 10)
    t.slap(1, 1).flush()                   # 20 cards reached the center: either may be out
    assert t.last("round_end")["reason"] == "out" and t.ref.out_player == -1
    t.stuck(1).flush()                     # player 1 says they went out
    assert t.ref.out_player == 1
    assert t.ref.stock_left == [10, 0]


def test_r_round_1_blocked_round_ends_and_asks_the_stock_split():
    t = _blocked()
    assert t.names()[-4:] == ["stuck", "stuck", "round_end", "question"]
    re = t.last("round_end")
    assert re["reason"] == "blocked" and "player" not in re and re["round"] == 1
    q = t.last("question")
    assert (q["ask"], q["player"], q["max"]) == ("stock_left", 0, 30)


def test_r_round_1_blocked_question_counts_the_plays():
    t = Table(counts=[16, 16]).begin()
    t.run(0, 4)
    t.stuck(0).stuck(1).flush()
    assert t.last("question")["max"] == 26


def test_r_round_1_blocked_answer_then_slaps_give_out_the_piles():
    t = _blocked()
    t.answer(0, 12, 4000).flush()
    assert t.ref.stock_left == [12, 18]
    t.slap(0, 1, 4500).slap(1, 0, 4600).flush()
    assert _won(t) == [(1, 0, 1), (0, 1, 1)]
    assert t.ref.cards == [13, 19]
    assert t.ref.phase == 4                 # between rounds


def test_r_round_1_blocked_no_slap_before_the_answer():
    t = _blocked()
    t.slap(0, 1, 4000).flush()
    assert t.last()["reason"] == "unexpected"
    assert t.of("pile_won") == []


# --- R-ROUND-2 (preset "tableau", 001) ---

def test_r_round_2_out_needs_spit_pile_empty_too():
    t = Table("tableau", counts=[20, 32]).begin()   # player 0: 15 stock + 5 spit (4 left)
    t.run(0, 15)
    t.slap(0, 0).flush()
    assert t.last()["reason"] == "slap_too_early"
    assert t.of("round_end") == []


def test_r_round_2_out_with_stocks_and_spit_empty_then_slap_at_once():
    t = Table("tableau", counts=[10, 42]).begin(spits=(None, "KS"))
    _out(t, 0, 1, 10, on=1)
    assert t.last("round_end")["player"] == 0


def test_r_round_2_blocked_fewer_tableau_cards_wins_the_round():
    t = _blocked("tableau")
    t.answer(0, 20).flush()                # player 0 holds 20, player 1 holds 10
    assert t.ref.round_winner == 1
    t = _blocked("tableau")
    t.answer(0, 15).flush()
    assert t.ref.round_winner == -1


# --- R-ROUND-3 ---

def test_r_round_3_both_slap_different_piles_each_takes_theirs():
    t = _out(Table().begin())              # pile 0: 16 cards, pile 1: 1 card
    t.slap(1, 1).flush()
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]
    assert t.ref.cards == [16 + 10, 1 + 15 + 10]


def test_r_round_3_same_pile_first_hand_takes_it():
    t = Table().begin()
    t.run(0, 15)
    t.slap(0, 1, t.now + 300).slap(1, 1, t.now + 50).flush()   # both go for the small pile
    q = t.last("question")
    assert (q["ask"], q["player"], q["max"]) == ("went_out", 0, 1)
    t.answer(0, 1).flush()                 # "did you go out?" "yes"
    assert _won(t) == [(1, 0, 16), (0, 1, 1)]


def test_r_round_3_only_one_slaps_within_the_window_other_takes_the_rest():
    t = _out(Table(slap_window_ms=3000).begin(), 0, 1)
    assert _won(t) == []
    t.advance(t.now + 2500)
    assert _won(t) == []
    t.advance(t.now + 1000)
    assert _won(t) == [(1, 0, 16), (0, 1, 1)]
    assert t.last("pile_won")["t"] == (t.last("round_end")["t"] // 1000 + 3000) * 1000


def test_r_round_3_slap_after_the_window_is_unexpected():
    t = _out(Table(slap_window_ms=1000).begin())
    t.advance(t.now + 1500)
    t.slap(1, 1).flush()
    assert t.last()["reason"] == "unexpected"


def test_r_round_3_out_only_the_opponent_keeps_the_other_pile():
    t = Table("tableau", counts=[16, 36]).begin()   # player 0: 15 stock + 1 spit, now spat
    _out(t, 0, 1)
    assert _won(t) == [(1, 0, 16), (0, 1, 1)]
    t.slap(1, 0).flush()
    assert t.last()["reason"] == "unexpected"



def test_r_round_3_both_slap_the_opponents_hand_may_come_down_first():
    # round_end=stocks_and_spit (R-ROUND-2) with slap=both (R-ROUND-3, 000/002): player 1
    # still holds spit cards, so their slap says player 0 went out; it is a claim, not early.
    t = Table("tableau", counts=[16, 36], slap="both").begin()   # player 0: 15 stock + 1 spit, spat
    t.run(0, 15)
    t.slap(1, 1).flush()
    assert t.last()["verdict"] == "round_end" and t.ref.out_player == 0
    t.slap(0, 1, t.now + 100).flush()      # same pile: the first hand (player 1) takes it
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]
    assert t.ref.cards == [16, 36]


def test_r_round_3_both_slap_neither_can_be_out_is_too_early():
    t = Table("tableau", counts=[20, 32], slap="both").begin()   # both still hold spit cards
    t.run(0, 15)
    t.slap(1, 1).flush()
    assert t.last()["reason"] == "slap_too_early"
    assert t.of("round_end") == []

# --- R-ROUND-4 ---

def test_r_round_4_choose_no_slap_the_out_player_picks_a_pile():
    t = _out(Table(slap="choose").begin(), 0, 1)
    assert _won(t) == [(1, 0, 16), (0, 1, 1)]
    assert t.ref.phase == 4


def test_r_round_4_choose_only_the_out_player_chooses():
    t = _out(Table(slap="choose").begin(), 0, 1)
    t.slap(1, 0).flush()
    assert t.last()["reason"] == "unexpected"


# --- R-ROUND-5 ---

def test_r_round_5_counts_carry_over_to_the_next_round_after_both_ready():
    t = _out(Table().begin(), 0, 1)        # player 0 takes pile 1 (1 card)
    t.slap(1, 0).flush()                   # player 1 takes pile 0 (16 cards)
    assert t.ref.cards == [1 + 10, 16 + 15 + 10]
    t.ready(0).flush()
    assert len(t.of("round_start")) == 1
    t.ready(1).flush()
    rs = t.last("round_start")
    assert (rs["round"], rs["cards0"], rs["cards1"]) == (2, 11, 41)
    assert t.last("countdown")["round"] == 2
    assert t.ref.stock_start == [11, 15] and t.ref.spit_left == [0, 26]


def test_r_round_5_stuck_doubles_as_ready_between_rounds():
    t = _out(Table().begin())
    t.slap(1, 1).flush()
    t.stuck(0).ready(1).flush()
    assert t.last("round_start")["round"] == 2
    assert t.of("stuck") == []


def test_r_round_5_next_round_plays_from_a_fresh_center():
    t = _out(Table().begin())
    t.slap(1, 1).flush()
    t.ready(0).ready(1).flush()
    t.card(0, "7H", t.now + 500).flush()   # during the new countdown
    assert t.last()["verdict"] == "early"
    t.begin(spits=("7H", "KS"), after_ms=t.now + t.rules.countdown_ms + 10)
    assert t.tops() == ["7H", "KS"]
    assert t.ref.cards == [26, 26]
    assert t.ref.spit_left == [10, 10]     # 26 cards each again: 15 stock + 11 spit


def test_r_round_5_an_unread_card_is_in_the_pile_its_taker_gets():
    # A touch with no read (no_read) is a card on that pile: it counts towards going out and,
    # at the slaps, goes to whoever takes that pile (52 cards before and after the round).
    t = Table().begin()
    t.touch(0, 3000).advance(4000)         # pile 0: a card landed, its read was lost
    assert t.last()["reason"] == "no_read"
    t.run(0, 14)
    _out(t, 0, 0, 0)                       # 15 cards reached pile 0: player 0 went out
    t.slap(1, 1).flush()
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]
    assert t.ref.cards == [16 + 10, 1 + 15 + 10]


def test_r_round_5_a_missed_read_set_by_top_counts_once():
    t = Table().begin()
    t.touch(0, 3000).advance(4000)         # no_read on pile 0 ...
    t.top(0, "8H", 4100).flush()           # ... the players set the card: counted once
    t.run(0, 14)
    _out(t, 0, 0, 0)
    t.slap(1, 1).flush()
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]
    assert t.ref.cards == [16 + 10, 1 + 15 + 10]


# --- R-ROUND-6 ---

def test_r_round_6_single_pile_out_player_takes_nothing():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    _out(t, 1, 1, 15, on=1)                # player 1 (the spitter) empties the stocks first
    assert _won(t) == [(0, 0, 0), (0, 1, 16)]
    assert t.ref.cards == [16 + 10, 26]
    assert t.ref.phase == 4                # player 1 still has 26 spit cards: go on


def test_r_round_6_single_pile_no_slap_needed():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    _out(t, 1, 0, 15, on=1)                # the slap only declares going out
    assert _won(t) == [(0, 0, 0), (0, 1, 16)]
