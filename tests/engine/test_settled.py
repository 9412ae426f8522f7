"""Who went out, settled rounds, undo limits, jokers, and one rule for inputs out of phase."""

from table import Table


def _won(t):
    return [(v["player"], v["pile"], v["size"]) for v in t.of("pile_won")]


def _errors(t, reason):
    return [v for v in t.of("error") if v["reason"] == reason]


# --- who went out (R-ROUND-1/3, R-ROUND-5): asked, never guessed ---

def test_r_round_3_opponent_slaps_first_the_referee_asks_instead_of_guessing():
    # Seed 000's case: player 0 plays out 15 stock cards, player 1's hand is down first.
    t = Table().begin()
    t.run(0, 15)
    t.slap(1, 1, t.now + 100).slap(0, 0, t.now + 200).advance(t.now + 3500)
    assert t.of("pile_won") == []          # nothing settled on a guess
    q = t.last("question")
    assert (q["ask"], q["player"], q["max"]) == ("went_out", 1, 1)
    t.answer(1, 0).flush()                 # player 1: "not me"
    assert t.ref.out_player == 0
    assert t.ref.stock_left == [0, 15]
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]
    assert t.ref.cards == [16 + 10, 1 + 15 + 10]


def test_r_round_3_stuck_during_the_slaps_says_who_went_out():
    t = Table().begin()
    t.run(0, 15)
    t.slap(1, 1, t.now + 100).stuck(0, t.now + 50).slap(0, 0, t.now + 100).flush()
    assert t.of("question") == []
    assert t.ref.out_player == 0 and t.ref.cards == [26, 26]


def test_r_round_3_when_only_one_player_can_be_out_there_is_no_question():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))   # stocks 10 and 15
    t.run(1, 12)
    t.slap(0, 1).flush()
    assert t.of("question") == []
    assert t.ref.out_player == 0 and t.last("round_end")["player"] == 0


def test_r_round_3_an_answer_the_cards_allow_settles_who_went_out():
    t = Table(counts=[30, 22]).begin()    # stocks 15 / 15, spit piles 14 / 6
    t.run(0, 15)
    t.slap(0, 0).slap(1, 1).flush()
    t.answer(0, 1).flush()
    assert t.ref.out_player == 0


def test_r_round_3_an_answer_the_cards_rule_out_is_refused_and_the_question_stands():
    # (One referee per test: the MicroPython run caps the heap at one engine's budget.)
    t = Table().begin()
    t.run(0, 15)
    t.slap(0, 0).slap(1, 1).flush()
    t.answer(0, 2).flush()
    assert t.last()["reason"] == "bad_answer" and t.ref.phase == 3


def _lamp(t, zone):
    return (t.ref.intents.color[zone], t.ref.intents.pattern[zone])


def test_r_round_3_once_the_went_out_answer_names_the_winner_the_lamps_show_it():
    # docs/hardware.md: a question blinks the player zone and RESULT yellow; the round winner's
    # zone pulses green.  Once answered, the question lamps give way to the round's result.
    from spit.intents import LedIntents, ZONE_PLAYER0, ZONE_PLAYER1, ZONE_RESULT
    from spit.intents import GREEN, YELLOW, WHITE, OFF, PULSE, BLINK, SOLID
    t = Table(leds=LedIntents()).begin()
    t.run(0, 15)
    t.slap(0, 0).slap(1, 1).flush()
    assert _lamp(t, ZONE_PLAYER0) == (YELLOW, BLINK) and _lamp(t, ZONE_RESULT) == (YELLOW, BLINK)
    t.answer(0, 1).flush()
    assert _lamp(t, ZONE_PLAYER0) == (GREEN, PULSE)
    assert _lamp(t, ZONE_PLAYER1) == (OFF, SOLID)
    assert _lamp(t, ZONE_RESULT) == (WHITE, PULSE)


def test_r_round_3_a_stuck_press_saying_who_went_out_lights_the_round_winner():
    from spit.intents import LedIntents, ZONE_PLAYER0, ZONE_PLAYER1, GREEN, OFF, PULSE, SOLID
    t = Table(leds=LedIntents()).begin()
    t.run(1, 15)
    t.slap(0, 0).stuck(1).slap(1, 1).flush()
    assert t.ref.out_player == 1
    assert _lamp(t, ZONE_PLAYER1) == (GREEN, PULSE) and _lamp(t, ZONE_PLAYER0) == (OFF, SOLID)


def test_r_round_2_a_blocked_round_answered_lights_its_winner():
    from spit.intents import LedIntents, ZONE_PLAYER0, ZONE_PLAYER1, GREEN, OFF, PULSE, SOLID
    t = Table("tableau", counts=[16, 16], leds=LedIntents()).begin()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    assert t.last("question")["ask"] == "stock_left"
    t.answer(0, 20).flush()                # 20 stock cards against 10: player 1 wins the round
    assert _lamp(t, ZONE_PLAYER1) == (GREEN, PULSE) and _lamp(t, ZONE_PLAYER0) == (OFF, SOLID)


def test_r_own_1_a_drawn_game_lights_no_loser():
    # docs/hardware.md: red is the game's loser; a draw (equal cards, both blocked) has none:
    # RESULT and both player zones pulse white.  A won game: green and red.
    from spit.intents import LedIntents, ZONE_PLAYER0, ZONE_PLAYER1, ZONE_RESULT
    from spit.intents import GREEN, RED, WHITE, PULSE, SOLID
    for last_card, winner, lamps in ((None, -1, ((WHITE, PULSE), (WHITE, PULSE), (WHITE, PULSE))),
                                     ("QS", 1, ((RED, SOLID), (GREEN, PULSE), (GREEN, PULSE)))):
        t = Table("own_deck", counts=[5, 5], leds=LedIntents())   # both: a row of 4, empty decks
        t.card(0, "7H", 2010, player=0).card(1, "KS", 2011, player=1).flush()
        if last_card:
            t.card(1, last_card, 3000, player=1).flush()        # player 1: one card fewer
        t.stuck(0, 3400).stuck(1, 3500).flush()
        assert t.last("game_over")["winner"] == winner
        assert (_lamp(t, ZONE_PLAYER0), _lamp(t, ZONE_PLAYER1), _lamp(t, ZONE_RESULT)) == lamps


# --- a new round plans its own spit cards (R-PLAY-1, R-STALL-1/4) ---

def test_r_stall_4_a_spit_call_cut_short_by_the_round_end_does_not_leak_into_the_next_round():
    t = Table(piles=3, counts=[20, 32]).begin(spits=("7H", "KS", "5D"))
    t.run(0, 15)
    t.stuck(0).stuck(1).flush()
    t.advance(t.now + t.rules.countdown_ms + 100)   # spit cards now awaited on all three piles
    assert list(t.ref.need_spit) == [1, 1, 1]
    t.slap(0, 0).stuck(0).slap(1, 1).flush()       # ... but player 0 goes out first
    t.ready(0).ready(1).flush()
    assert t.ref.round == 2 and list(t.ref.need_spit) == [0, 0, 0]
    t.advance(t.now + t.rules.countdown_ms + 100)
    planned = list(t.ref.spitter)
    assert planned[2] == 0                          # R-STALL-4: player 0 fills pile 2 first
    t.card(0, "2C", t.now + 10).card(1, "9D", t.now + 10).card(2, "JH", t.now + 10).flush()
    spits = [(v["pile"], v["player"]) for v in t.of("spit")][-3:]
    assert spits == [(0, 0), (1, 1), (2, 0)]
    assert min(t.ref.spit_left) >= 0


# --- corrections only while a round is played; undo within what is remembered ---

def test_r_play_4_undo_during_the_slaps_is_unexpected():
    t = Table().begin()
    t.run(0, 15)
    t.slap(0, 0).stuck(0).flush()
    t.undo(0).flush()
    assert t.last()["reason"] == "unexpected"
    t.slap(1, 1).flush()
    assert _won(t) == [(0, 0, 16), (1, 1, 1)]


def test_r_play_4_undo_between_rounds_is_unexpected():
    t = Table().begin()
    t.run(0, 15)
    t.slap(0, 0).stuck(0).slap(1, 1).flush()
    assert t.ref.phase == 4
    t.undo(1).flush()
    assert t.last()["reason"] == "unexpected"
    t.ready(0).ready(1).flush()
    t.advance(t.now + t.rules.countdown_ms + 100)
    t.card(0, "2C", t.now + 10).card(1, "9D", t.now + 10).flush()
    assert [v["verdict"] for v in t.tail(2)] == ["spit", "spit"]


def test_r_play_4_undo_past_the_remembered_cards_is_refused_not_wrapped():
    # docs/log-format.md: an undo takes back at most the last 16 cards of a pile.  On a pile of
    # 21 the 16th undo is allowed (the 17th card from the top becomes the top, and it is the
    # card that lay there), the 17th is undo_limit.
    t = Table().begin()
    t.run(0, 20)                           # pile 0: 21 cards
    tops = [t.ref.top[0]]
    for _ in range(16):
        t.undo(0).flush()
        tops.append(t.ref.top[0])
    assert _errors(t, "undo_limit") == []
    assert t.ref.size[0] == 5
    undos = t.of("undo")
    assert len(undos) == 16 and [v["card"] for v in undos] == [_code(c) for c in tops[:16]]
    top = t.ref.top[0]
    t.undo(0).flush()
    assert t.last()["reason"] == "undo_limit" and t.last()["pile"] == 0
    assert t.ref.top[0] == top and t.ref.size[0] == 5


def test_r_play_4_undo_takes_back_the_16th_card_of_a_pile_of_17_not_the_17th():
    t = Table().begin()
    t.run(0, 16)                           # pile 0: 17 cards (the spit card and 16 plays)
    for _ in range(16):
        t.undo(0)
    t.flush()
    assert _errors(t, "undo_limit") == [] and t.ref.size[0] == 1
    t.undo(0).flush()
    assert t.last()["reason"] == "undo_limit" and t.ref.size[0] == 1
    # New plays raise the limit: the last 16 cards of the pile as it stands.
    t.run(0, 2)
    for _ in range(2):
        t.undo(0)
    t.flush()
    assert len(_errors(t, "undo_limit")) == 1   # (only the refused one above)
    assert t.ref.size[0] == 1


def _code(card):
    from spit.cards import format_card
    return format_card(card)


# --- R-CARD-1/4: jokers are counted like any card ---

def test_r_card_4_a_third_joker_is_a_duplicate():
    t = Table(jokers=2).begin()
    t.card(0, "JK", 3000).card(1, "JK", 3400).card(0, "JK", 3800).flush()
    assert [v["verdict"] for v in t.tail(3)] == ["accept", "accept", "error"]
    assert t.last()["reason"] == "duplicate_card"


def test_r_card_4_an_undone_joker_may_be_played_again():
    t = Table(jokers=2).begin()
    t.card(0, "JK", 3000).card(1, "JK", 3400).undo(1, 3600).card(1, "JK", 3800).flush()
    assert t.last()["verdict"] == "accept"


# --- one rule for inputs with no meaning now ---

def test_r_round_5_ready_during_play_is_unexpected():
    t = Table().begin()
    t.ready(0).flush()
    e = t.last()
    assert e["verdict"] == "error" and e["reason"] == "unexpected" and e["player"] == 0


def test_r_stall_1_stuck_during_the_slaps_with_the_player_known_is_unexpected():
    t = Table().begin()
    t.run(0, 15)
    t.slap(0, 0).stuck(0).flush()          # player 0 went out (said so)
    t.stuck(1).flush()
    assert t.last()["reason"] == "unexpected" and t.last()["player"] == 1


def test_r_stall_1_a_repeated_stuck_press_is_no_error():
    t = Table().begin()
    t.stuck(0).stuck(0).flush()
    assert _errors(t, "unexpected") == [] and len(t.of("stuck")) == 1
