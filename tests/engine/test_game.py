"""R-GAME-*: how the game ends (no cards, points, rounds in a row, the timer)."""

from fuzz import outcome
from table import Table


def _over(t):
    g = t.last("game_over")
    return None if g is None else (g["winner"], g["reason"])


def _play_round(t, out, plays):
    """Start the next round (both READY) unless it is the first, spit, let ``out`` play
    ``plays`` cards onto their own pile and go out on it; the other slaps the other pile."""
    if t.ref.phase == 4:
        t.ready(0).ready(1).flush()
        t.used = {}
        t.begin(after_ms=t.now + t.rules.countdown_ms + 10)
    elif t.ref.phase == 0:
        t.begin()
    t.run(out, plays)
    # Both slap; when either could be out, the referee asks the first slapper (R-ROUND-3).
    t.slap(out, out).slap(1 - out, 1 - out).flush()
    if t.ref.phase == 3:
        t.answer(out, 1).flush()
    return t


# --- R-GAME-1 (classic, 000) ---

def test_r_game_1_no_spit_cards_and_first_to_empty_the_stocks_wins():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 10)
    t.slap(0, 1).flush()
    assert t.last("round_end")["player"] == 0
    assert _over(t) == (0, "no_cards")
    assert outcome(t.ref) == (0, "no_cards")
    assert t.ref.cards[0] == 0


def test_r_game_1_last_spit_card_already_spat_then_first_out_wins():
    # Player 0's only spit card started pile 0; no stalemate since, so no single-pile
    # flip yet: emptying the stocks first still wins the game.
    t = Table(counts=[16, 36]).begin()
    assert t.ref.spit_left == [0, 20]
    t.run(0, 15)
    t.slap(0, 1).flush()
    t.stuck(0).flush()                     # either could be out: player 0 says it was them
    assert _over(t) == (0, "no_cards")


def test_r_game_1_opponent_empties_first_the_game_goes_on():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 15)
    t.slap(1, 1).stuck(1).flush()          # either could be out: player 1 says it was them
    assert _over(t) is None
    assert t.ref.phase == 4


def test_r_game_1_out_with_spit_cards_left_is_not_the_game():
    t = _play_round(Table(), 0, 15)
    assert _over(t) is None
    assert t.ref.cards == [26, 26]


def test_r_game_1_cards_after_the_game_are_unexpected():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 10)
    t.slap(0, 1).flush()
    t.card(1, "2C").stuck(0).flush()
    assert t.last()["reason"] == "unexpected"
    assert len(t.of("game_over")) == 1


# --- R-GAME-2 (preset "tableau", 001) ---

def test_r_game_2_tableau_player_with_no_cards_left_wins():
    t = Table("tableau", counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 10)
    t.slap(0, 1).flush()
    assert _over(t) == (0, "no_cards")


def test_r_game_2_tableau_out_player_takes_a_pile_and_plays_on():
    t = Table("tableau", counts=[16, 36]).begin()   # player 0's only spit card is spat
    t.run(0, 15)
    t.slap(0, 1).flush()                   # stocks and spit pile empty: out, slaps pile 1
    won = [(v["player"], v["pile"], v["size"]) for v in t.of("pile_won")]
    assert won == [(1, 0, 16), (0, 1, 1)]
    assert t.ref.cards == [1, 16 + 15 + 20]
    assert _over(t) is None


# --- R-GAME-3 (preset "family", 002) ---

def test_r_game_3_family_first_to_play_all_spit_and_layout_cards_wins():
    t = Table("family", counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 10)
    t.slap(0, 1).flush()
    assert _over(t) == (0, "no_cards")


def test_r_game_3_family_spit_pile_empty_and_layout_played_wins():
    t = Table("family", counts=[16, 36]).begin()
    t.run(0, 15)
    t.slap(0, 0).stuck(0).flush()
    assert _over(t) == (0, "no_cards")


# --- R-GAME-4: points ---

def test_r_game_4_a_point_per_card_left_each_round():
    t = _play_round(Table(points_target=100), 0, 15)
    sc = [(v["player"], v["score"]) for v in t.of("score")]
    assert sc == [(0, 10), (1, 25)]       # player 0: 10 spit cards, player 1: 15 + 10
    assert _over(t) is None


def test_r_game_4_points_target_reached_lowest_score_wins():
    t = Table(points_target=100)
    t.ref.score[0] = 60                    # as after earlier rounds
    t.ref.score[1] = 80
    _play_round(t, 0, 15)
    assert t.ref.score == [70, 105]
    assert _over(t) == (0, "points")


def test_r_game_4_no_scores_without_the_variant():
    t = _play_round(Table(), 0, 15)
    assert t.of("score") == []


# --- R-GAME-5: rounds in a row ---

def test_r_game_5_three_rounds_in_a_row_win_the_evening():
    t = Table(stocks=4, rounds_in_a_row=3)
    _play_round(t, 0, 10)
    _play_round(t, 0, 10)
    assert _over(t) is None and t.ref.streak == 2
    _play_round(t, 0, 10)
    assert _over(t) == (0, "streak")
    assert len(t.of("round_start")) == 3


def test_r_game_5_a_round_lost_breaks_the_streak():
    t = Table(stocks=4, rounds_in_a_row=2)
    _play_round(t, 0, 10)
    _play_round(t, 1, 10)
    assert _over(t) is None and t.ref.streak == 1
    _play_round(t, 1, 10)
    assert _over(t) == (1, "streak")


def test_r_game_5_a_drawn_round_breaks_the_streak():
    # Rounds won "in a row" are consecutive rounds: a blocked round with equal stocks (nobody
    # wins it, R-ROUND-2) between two wins of player 0 leaves a streak of 1, not 2.
    t = Table(stocks=4, rounds_in_a_row=2, counts=[12, 12])   # 10 stock + 2 spit cards each
    _play_round(t, 0, 10)                  # player 0 takes pile 0 (11), player 1 pile 1 (1)
    assert t.ref.cards == [12, 12] and t.ref.streak == 1
    t.ready(0).ready(1).flush()
    t.used = {}
    t.begin(after_ms=t.now + t.rules.countdown_ms + 10)
    t.stuck(0).stuck(1).flush()            # the last spit card each
    t.card(0, "2C", t.now + t.rules.countdown_ms + 10).card(1, "9D", t.now + 1).flush()
    t.stuck(0).stuck(1).flush()            # blocked: no spit cards left
    assert t.last("round_end")["reason"] == "blocked"
    t.answer(0, 10).flush()                # 10 stock cards each: a drawn round
    t.slap(0, 0).slap(1, 1).flush()
    assert _over(t) is None and t.ref.cards == [12, 12]
    assert t.ref.streak == 0
    _play_round(t, 0, 10)                  # player 0 wins again: one round in a row
    assert _over(t) is None and t.ref.streak == 1
    _play_round(t, 0, 10)
    assert _over(t) == (0, "streak")


# --- R-GAME-6: the timer ---

def test_r_game_6_timer_mid_round_asks_then_fewer_cards_wins():
    t = Table(timer_ms=600000).begin()
    t.run(0, 5)
    t.advance(599000)
    assert t.of("round_end") == []
    t.advance(600200)
    re = t.last("round_end")
    assert (re["reason"], re["t"]) == ("timer", 600000000)
    q = t.last("question")
    assert (q["player"], q["max"]) == (0, 25)
    t.answer(0, 12).flush()               # 12 + 10 spit against 13 + 10
    assert _over(t) == (0, "timer")


def test_r_game_6_speed_timer_asks_the_split_then_fewer_cards_wins():
    # R-SPEED-1 with the timer: hands are secret, so the referee asks the split of the cards
    # the players still hold (hand and stock) as in any game (docs/rules.md, timer_ms); the
    # side piles are nobody's cards.
    t = Table("speed", timer_ms=600000).begin()           # the middle cards: 7H | KS
    t.run(0, 4)
    t.advance(600200)
    assert t.last("round_end")["reason"] == "timer"
    q = t.last("question")
    assert (q["ask"], q["player"], q["max"]) == ("stock_left", 0, 26)
    t.answer(0, 14).flush()                # 14 against 12 (side piles 10 and 10 left aside)
    assert _over(t) == (1, "timer")


def test_r_game_6_timer_between_rounds_compares_the_cards():
    t = _play_round(Table(timer_ms=600000), 0, 15)
    t.slap(1, 1).flush()
    t.ref.cards[1] = 30                    # (as if player 1 had won more)
    t.advance(600200)
    assert _over(t) == (0, "timer")
    assert [q for q in t.of("question") if q["ask"] == "stock_left"] == []


def test_r_game_6_timer_during_the_slaps_settles_after_the_piles():
    t = Table(timer_ms=600000).begin()
    t.run(0, 15)
    t.slap(0, 1, 599900).stuck(0, 599950).flush()   # player 0 went out, takes pile 1 (1 card)
    t.advance(600200)
    assert _over(t) is None
    t.slap(1, 0, 600300).flush()
    assert _over(t) == (0, "timer")        # 1 + 10 against 16 + 15 + 10


def test_r_game_6_timer_draw_on_equal_cards():
    t = Table(timer_ms=600000).begin()
    t.advance(600200)
    t.answer(0, 15).flush()
    assert _over(t) == (-1, "timer")
