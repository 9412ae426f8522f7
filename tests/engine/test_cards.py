"""R-CARD-*: the deck, card codes and what may be played on what."""

from table import Table
from spit.cards import parse_card, format_card, full_deck, CardError, JOKER


def _judge(top, card, **options):
    """Spit ``top`` onto pile 0, play ``card`` on it, return the verdict name."""
    t = Table(**options).begin(spits=(top, "5S"))
    t.card(0, card, 3000).flush()
    return t.last()["verdict"]


# --- R-CARD-1: a standard 52-card deck, suits and colours do not matter ---

def test_r_card_1_full_deck_has_52_distinct_cards_and_codes_round_trip():
    deck = full_deck()
    assert len(deck) == 52
    codes = {}
    for c in deck:
        codes[format_card(c)] = True
        assert parse_card(format_card(c)) == c
    assert len(codes) == 52
    assert len(full_deck(2)) == 54 and full_deck(2)[-1] == JOKER


def test_r_card_1_card_codes_any_case_and_t_for_ten():
    assert parse_card("10d") == parse_card("TD") == parse_card(" td ")
    assert format_card(parse_card("qh")) == "QH"
    assert parse_card("JK") == JOKER and format_card(JOKER) == "JK"


def test_r_card_1_bad_card_codes_raise_card_error():
    for code in ("", "1H", "11C", "ZZ", "AX", "10", "KHS"):
        try:
            parse_card(code)
        except CardError:
            pass
        else:
            raise AssertionError("accepted %r" % code)
    try:
        parse_card(7)
    except CardError:
        pass
    else:
        raise AssertionError("accepted a non-string")


def test_r_card_1_suits_do_not_matter():
    assert _judge("7H", "8C") == "accept"
    assert _judge("7H", "6H") == "accept"
    assert _judge("7S", "8D") == "accept"


def test_r_card_1_no_jokers_in_the_standard_deck():
    assert _judge("7H", "JK") == "illegal"


def test_r_card_1_no_jokers_a_joker_spit_card_is_illegal_too():
    # Without jokers=2 a joker is no card of the deck: it cannot start a pile (it would make
    # the pile wild); the pile still waits for its spit card.
    t = Table().begin(spits=("JK", "KS"))
    v = t.of("illegal")[-1]
    assert (v["pile"], v["card"]) == (0, "JK")
    assert t.tops() == ["-", "KS"]
    t.card(0, "7H", t.now + 100).card(0, "2C", t.now + 500).flush()
    assert t.last("spit")["card"] == "7H"
    assert t.last()["verdict"] == "illegal"


def test_r_card_1_second_copy_of_a_card_is_a_duplicate():
    t = Table().begin()
    t.card(0, "8H", 3000).card(0, "9C", 3400).card(0, "8H", 3800).flush()
    e = t.last()
    assert e["verdict"] == "error" and e["reason"] == "duplicate_card" and e["pile"] == 0
    assert t.tops()[0] == "9C"


# --- R-CARD-2: ranks are cyclic, one up or one down, the Ace links King and 2 both ways ---

def test_r_card_2_one_up_or_one_down():
    assert _judge("7H", "8C") == "accept"
    assert _judge("7H", "6C") == "accept"
    assert _judge("10H", "JC") == "accept"
    assert _judge("JH", "10C") == "accept"


def test_r_card_2_same_rank_or_two_away_is_illegal():
    assert _judge("7H", "7C") == "illegal"
    assert _judge("7H", "9C") == "illegal"
    assert _judge("7H", "5C") == "illegal"


def test_r_card_2_ace_links_king_and_two_both_ways():
    assert _judge("KH", "AC") == "accept"
    assert _judge("AH", "KC") == "accept"
    assert _judge("2H", "AC") == "accept"
    assert _judge("AH", "2C") == "accept"


def test_r_card_2_king_and_two_are_not_neighbours():
    assert _judge("KH", "2C") == "illegal"
    assert _judge("2H", "KC") == "illegal"
    assert _judge("AH", "QC") == "illegal"


def test_r_card_2_illegal_verdict_names_the_top():
    t = Table().begin()
    t.card(0, "QD", 3000).flush()
    v = t.last()
    assert v["verdict"] == "illegal" and v["card"] == "QD" and v["top"] == "7H"


# --- R-CARD-3: ace-only link ---

def test_r_card_3_ace_only_an_ace_goes_on_a_king_or_a_two():
    assert _judge("KH", "AC", wrap="ace_only") == "accept"
    assert _judge("2H", "AC", wrap="ace_only") == "accept"


def test_r_card_3_ace_only_no_king_or_two_onto_an_ace():
    assert _judge("AH", "KC", wrap="ace_only") == "illegal"
    assert _judge("AH", "2C", wrap="ace_only") == "illegal"


def test_r_card_3_ace_only_other_ranks_unchanged():
    assert _judge("7H", "8C", wrap="ace_only") == "accept"
    assert _judge("QH", "KC", wrap="ace_only") == "accept"
    assert _judge("3H", "2C", wrap="ace_only") == "accept"


def test_r_card_3_wrap_none_ace_is_low_only():
    assert _judge("KH", "AC", wrap="none") == "illegal"
    assert _judge("AH", "KC", wrap="none") == "illegal"
    assert _judge("AH", "2C", wrap="none") == "accept"
    assert _judge("2H", "AC", wrap="none") == "accept"


# --- R-CARD-4: jokers ---

def test_r_card_4_two_jokers_added_to_the_deal():
    t = Table(jokers=2)
    rs = t.last("round_start")
    assert (rs["cards0"], rs["cards1"]) == (27, 27)


def test_r_card_4_joker_is_wild_on_anything():
    assert _judge("7H", "JK", jokers=2) == "accept"
    assert _judge("AH", "JK", jokers=2) == "accept"


def test_r_card_4_joker_next_any_anything_goes_on_a_joker():
    t = Table(jokers=2, joker_next="any").begin()
    t.card(0, "JK", 3000).card(0, "2C", 3400).flush()
    assert t.last()["verdict"] == "accept"
    t.card(1, "JK", 3800).card(1, "9D", 4200).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_joker_next_as_below_keeps_the_covered_rank():
    t = Table(jokers=2, joker_next="as_below").begin()     # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "2C", 3400).flush()
    v = t.last()
    assert v["verdict"] == "illegal" and v["top"] == "JK"
    t.card(0, "8C", 3800).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_joker_next_as_below_two_jokers_keep_the_rank():
    t = Table(jokers=2, joker_next="as_below").begin()     # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "JK", 3400).card(0, "9C", 3800).flush()
    assert t.last()["verdict"] == "illegal"
    t.card(0, "6C", 4200).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_joker_next_as_below_an_undo_leaves_the_joker_its_rank():
    # The card above the joker is taken back: the joker still covers the 7H, so it still
    # counts as a 7 (docs/rules.md, joker_next as_below), not wild.
    t = Table(jokers=2, joker_next="as_below").begin()     # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "8S", 3400).undo(0, 3800).flush()
    assert t.tops()[0] == "JK"
    t.card(0, "2C", 4200).flush()
    v = t.last()
    assert v["verdict"] == "illegal" and v["top"] == "JK"
    t.card(0, "6C", 4600).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_joker_as_a_spit_card_is_wild_under_as_below():
    t = Table(jokers=2, joker_next="as_below").begin(spits=("JK", "KS"))
    t.card(0, "3C", 3000).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_r_card_5_as_below_with_alternate_colours_the_card_must_fit_the_covered_card():
    # docs/rules.md, joker_next as_below: a card on a joker must fit the card *under* it; with
    # colours=alternate (R-CARD-5) that is its colour too: on [7H, JK] a black 6 or 8 fits, a red
    # one does not (the joker itself has no colour, the 7H has).
    for card, verdict in (("8D", "illegal"), ("6H", "illegal"), ("8S", "accept"), ("6C", "accept")):
        t = Table(jokers=2, joker_next="as_below", colours="alternate").begin()   # pile 0: 7H
        t.card(0, "JK", 3000).card(0, card, 3400).flush()
        assert t.last()["verdict"] == verdict, (card, t.last())


def test_r_card_4_r_card_5_as_below_with_alternate_colours_two_jokers_and_an_undo():
    t = Table(jokers=2, joker_next="as_below", colours="alternate").begin()       # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "JK", 3400).card(0, "8H", 3800).flush()
    assert t.last()["verdict"] == "illegal"     # both jokers count as the 7H: red on red
    t.card(0, "8C", 4200).undo(0, 4600).flush()
    assert t.tops()[0] == "JK"
    t.card(0, "6D", 5000).flush()
    assert t.last()["verdict"] == "illegal"     # after the undo the jokers still count as the 7H
    t.card(0, "6S", 5400).flush()
    assert t.last()["verdict"] == "accept"


def test_r_card_4_r_card_5_a_wild_joker_has_no_colour():
    # joker_next=any: the joker is wild (and colourless): any card goes on it.
    for card in ("8D", "2H", "QS"):
        t = Table(jokers=2, joker_next="any", colours="alternate").begin()
        t.card(0, "JK", 3000).card(0, card, 3400).flush()
        assert t.last()["verdict"] == "accept", card


# --- R-CARD-5: alternating colours ---

def test_r_card_5_alternate_colours_other_colour_accepted():
    assert _judge("7H", "8C", colours="alternate") == "accept"
    assert _judge("7H", "6S", colours="alternate") == "accept"
    assert _judge("7S", "8D", colours="alternate") == "accept"
    assert _judge("7C", "6H", colours="alternate") == "accept"


def test_r_card_5_alternate_colours_same_colour_illegal():
    assert _judge("7H", "8D", colours="alternate") == "illegal"
    assert _judge("7H", "6H", colours="alternate") == "illegal"
    assert _judge("7S", "8C", colours="alternate") == "illegal"


def test_r_card_5_alternate_colours_rank_still_required():
    assert _judge("7H", "9C", colours="alternate") == "illegal"
    assert _judge("KH", "AC", colours="alternate") == "accept"


def test_r_card_5_a_joker_has_no_colour():
    assert _judge("7H", "JK", colours="alternate", jokers=2) == "accept"
    t = Table(colours="alternate", jokers=2).begin()
    t.card(0, "JK", 3000).card(0, "8H", 3400).flush()
    assert t.last()["verdict"] == "accept"


def test_r_play_5_the_race_loser_on_a_joker_is_late_by_the_rank_it_counted_as():
    # The top before the last landing comes from the pile's history (spit.referee._fits_before):
    # a joker there counts as the rank it kept (R-CARD-4 as_below).
    t = Table(jokers=2, joker_next="as_below").begin()     # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "8S", 3400).card(0, "6D", 3500).flush()
    assert [v["verdict"] for v in t.verdicts[-2:]] == ["accept", "late"]


def test_r_play_5_after_an_undo_the_joker_below_keeps_its_rank_for_the_race_loser_too():
    # Undo leaves the joker on top, still counting as the 7H it covers (R-CARD-4 as_below): a
    # card racing the next landing is judged against that joker as a 7, as against the top.
    t = Table(jokers=2, joker_next="as_below").begin()     # pile 0: 7H
    t.card(0, "JK", 3000).card(0, "8S", 3400).undo(0, 3800)
    t.card(0, "6C", 4200).card(0, "8D", 4300).flush()
    assert [v["verdict"] for v in t.verdicts[-3:]] == ["undo", "accept", "late"]


def test_r_card_2_3_5_the_precomputed_rank_steps_never_disagree_with_fits():
    # The per-card path accepts by spit.referee's _steps table before calling fits(): a set
    # bit must be a card fits() accepts, and without the colour rule every card fits() accepts
    # (not a joker, on a top that counts as a rank) must have its bit.
    from spit.legal import fits
    for wrap in ("both", "ace_only", "none"):
        for colours in ("any", "alternate"):
            ref = Table(wrap=wrap, colours=colours).ref
            for top_rank in range(1, 14):
                for top in (top_rank, 0x30 | top_rank):
                    for card in range(1, 64):
                        if card & 15 > 13 or card & 15 == 0:
                            continue
                        step = ref._steps[top_rank] >> (card & 15) & 1
                        ok = fits(ref.rules, top, top_rank, card)
                        expected = ok if colours == "any" else False
                        assert (step == 1) == expected, (wrap, colours, top, card)
