"""Corrections (undo, top), answers, and bad input: refereeing always continues."""

from table import Table
from spit.intake import EV_CARD, EV_TOUCH


def _reason(t):
    v = t.last()
    assert v["verdict"] == "error", v
    return v["reason"]


# --- undo ---

def test_undo_takes_the_last_card_back():
    t = Table().begin()
    t.card(0, "8H", 3000).card(0, "9C", 3400).flush()
    t.undo(0, 4000).flush()
    u = t.last()
    assert (u["verdict"], u["pile"], u["card"], u["top"]) == ("undo", 0, "9C", "8H")
    assert t.tops()[0] == "8H"
    assert t.ref.played == 1 and t.ref.size[0] == 2


def test_undo_the_card_may_be_played_again_without_a_race():
    t = Table().begin()
    t.card(0, "8H", 3000).flush()
    t.undo(0, 3100).card(0, "8H", 3200).flush()
    v = t.last()
    assert v["verdict"] == "accept" and "dt_us" not in v
    assert t.of("error") == []


def test_undo_twice_walks_back_to_the_spit_card():
    t = Table().begin()
    t.card(0, "8H", 3000).card(0, "9C", 3400).flush()
    t.undo(0, 4000).undo(0, 4100).flush()
    assert t.tops()[0] == "7H"
    t.card(0, "6D", 4500).flush()
    assert t.last()["verdict"] == "accept"


def test_undo_a_spit_card_the_next_card_is_the_spit_card_again():
    t = Table().begin()
    t.undo(0, 3000).flush()
    assert t.last()["card"] == "7H" and "top" not in t.last()
    assert t.ref.spit_left == [11, 10]
    t.card(0, "2C", 3500).flush()
    s = t.last()
    assert (s["verdict"], s["card"], s["player"]) == ("spit", "2C", 0)
    assert t.ref.spit_left == [10, 10]


def test_undo_on_an_empty_pile_is_unexpected():
    t = Table()
    t.undo(0, 500).flush()
    assert _reason(t) == "unexpected"


def test_undo_on_a_bad_pile_is_unexpected():
    t = Table().begin()
    t.undo(5, 3000).flush()
    assert _reason(t) == "unexpected"


def test_undo_after_the_game_is_unexpected():
    t = Table(counts=[10, 42]).begin(spits=(None, "KS"))
    t.run(1, 10)
    t.slap(0, 1).flush()
    t.undo(1).flush()
    assert _reason(t) == "unexpected"


def test_undo_own_deck_gives_the_card_back_to_its_player():
    t = Table("own_deck")
    t.card(0, "7H", 2010, player=0).card(1, "KS", 2011, player=1).flush()
    t.card(0, "8H", 3000, player=1).flush()
    assert t.ref.left == [51, 50]
    t.undo(0, 3400).flush()
    assert t.ref.left == [51, 51]


def test_undo_speed_middle_card_does_not_touch_the_side_piles():
    t = Table("speed")
    t.card(0, "7H", 2010).flush()
    t.undo(0, 2100).card(0, "7H", 2200).card(1, "KS", 2300).flush()
    assert t.ref.spit_left == [10, 10]


# --- top (resync) ---

def test_top_sets_the_top_card_after_a_missed_read():
    t = Table().begin()
    t.touch(0, 3000).advance(3500)          # a card landed, its read was lost
    assert sum(t.ref.unread) == 1
    t.top(0, "8H", 3600).flush()
    r = t.last()
    assert (r["verdict"], r["pile"], r["card"]) == ("resync", 0, "8H")
    assert t.tops()[0] == "8H" and sum(t.ref.unread) == 0 and t.ref.played == 1
    t.card(0, "9C", 3700).flush()
    v = t.last()
    assert v["verdict"] == "accept" and "dt_us" not in v


def test_top_then_undo_corrects_a_tie():
    # R-PLAY-5: the players saw the other card underneath: undo, then top.
    t = Table().begin()
    t.touch(0, 3000, 0).touch(0, 3000, 400)
    t.card(0, "8H", 3010).card(0, "6C", 3030).flush()
    t.undo(0, 4000).top(0, "6C", 4100).flush()
    assert t.tops()[0] == "6C"
    assert t.ref.played == 1


def test_top_on_a_pile_waiting_for_its_spit_card_is_the_spit_card():
    t = Table().begin()
    t.stuck(0, 3000).stuck(1, 3100).advance(5300)
    t.top(0, "2C", 5400).flush()
    assert t.ref.need_spit[0] == 0 and t.ref.spit_left == [9, 10]


def test_top_takes_exactly_the_card_codes():
    # A ``top`` event whose value is no card code (spit.cards.is_card) is refused.
    from spit.cards import is_card
    from spit.intake import EV_TOP
    for code in (-17, -1, 14, 15, 16, 29, 30, 31, 63, 64, 65, 77, 200):
        t = Table().begin()
        t.touch(0, 3000).advance(3500)
        t.ref.feed(EV_TOP, t._at(3600), 0, 0, code, 0)
        t.flush()
        assert (t.last()["verdict"] == "resync") == is_card(code), code


def test_top_during_a_countdown_is_unexpected():
    t = Table()
    t.top(0, "8H", 500).flush()
    assert _reason(t) == "unexpected"


def test_top_on_a_bad_pile_is_unexpected():
    t = Table().begin()
    t.top(4, "8H", 3000).flush()
    assert _reason(t) == "unexpected"


# --- answer ---

def test_answer_without_a_question_is_bad_answer():
    t = Table().begin()
    t.answer(0, 3, 3000).flush()
    assert _reason(t) == "bad_answer"


def test_answer_out_of_range_is_bad_answer_and_the_question_stays():
    t = Table(counts=[16, 16]).begin()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.answer(0, 31, 3500).flush()
    assert _reason(t) == "bad_answer"
    t.answer(0, -1, 3600).flush()
    assert _reason(t) == "bad_answer"
    t.answer(0, 30, 3700).flush()
    assert t.ref.stock_left == [30, 0]


def test_answer_from_the_wrong_player_is_bad_answer():
    t = Table(counts=[16, 16]).begin()
    t.stuck(0, 3000).stuck(1, 3100).flush()
    t.answer(1, 3, 3500).flush()
    assert _reason(t) == "bad_answer"


# --- bad input ---

def test_card_on_a_bad_pile():
    t = Table().begin()
    t.card(2, "8H", 3000).flush()
    assert _reason(t) == "bad_pile"
    assert t.tops() == ["7H", "KS"]


def test_touch_on_a_bad_pile():
    t = Table().begin()
    t.ref.feed(EV_TOUCH, 3000, 0, 7, 0, 0)
    t.flush()
    assert _reason(t) == "bad_pile"


def test_unknown_card_code_number():
    t = Table().begin()
    t.ref.feed(EV_CARD, 3000, 0, 0, 14, -1)    # rank 14 names no card
    t.flush()
    assert _reason(t) == "unknown_card"


def _no_card_reasons(ruleset, player):
    # (One Table per call: the engine's heap cap holds one referee at a time.)
    codes = [c for c in range(64) if c & 15 > 13 or (c & 15 == 0 and c != 0)]
    assert len(codes) == 11
    t = Table(ruleset).begin()
    n = len(t.raw)
    for i, code in enumerate(codes):
        t.ref.feed(EV_CARD, 3000 + 300 * i, 0, 0, code, player)
    t.flush()
    assert t.tops()[0] == "7H"
    return [v.get("reason") for v in t.verdicts[n:]]


def test_every_code_that_names_no_card_is_unknown_card_never_a_duplicate():
    # The per-card path finds codes that name no card through the duplicate table (they count
    # as seen: spit.referee._clear_seen), in both halves of it (own deck: one half per owner).
    assert _no_card_reasons("classic", -1) == ["unknown_card"] * 11
    assert _no_card_reasons("own_deck", 0) == ["unknown_card"] * 11
    assert _no_card_reasons("own_deck", 1) == ["unknown_card"] * 11


def test_card_with_a_bad_player():
    t = Table().begin()
    t.card(0, "8H", 3000, player=2).flush()
    assert _reason(t) == "bad_player"
    assert t.tops()[0] == "7H"


def test_stuck_and_slap_and_ready_with_a_bad_player():
    t = Table().begin()
    t.stuck(3, 3000).flush()
    assert _reason(t) == "bad_player"
    t.slap(-2, 0, 3100).flush()
    assert _reason(t) == "bad_player"
    t.ready(2, 3200).flush()
    assert _reason(t) == "bad_player"


def test_slap_on_a_bad_pile():
    t = Table().begin()
    t.slap(0, 3, 3000).flush()
    assert _reason(t) == "bad_pile"


def test_slap_during_the_countdown_is_unexpected():
    t = Table()
    t.slap(0, 0, 500).flush()
    assert _reason(t) == "unexpected"


def test_late_event_is_judged_at_once_and_flagged():
    t = Table(reorder_us=150000).begin()
    t.card(0, "8H", 3000).advance(4000)      # judged: the horizon passed it
    t.card(1, "QS", 3500).flush()            # arrives 500 ms after its landing
    errs = t.of("error")
    assert errs and errs[-1]["reason"] == "late_event"
    assert t.last()["verdict"] == "accept" and t.last()["card"] == "QS"


def test_refereeing_continues_after_errors():
    t = Table().begin()
    t.card(9, "8H", 3000).card(0, "8H", 3100, player=5).card(0, "8H", 3200).flush()
    assert t.last()["verdict"] == "accept"
