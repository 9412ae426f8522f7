"""Rulesets: presets, option validation (make_ruleset raises RulesetError naming the option)."""

from spit.rules import (make_ruleset, RulesetError, PRESETS, WRAP_BOTH, WRAP_ACE_ONLY,
                        SLAP_BOTH, SLAP_OUT_ONLY, SLAP_CHOOSE, END_STOCKS, END_STOCKS_AND_SPIT,
                        MODE_TABLEAU, MODE_OWN_DECK, MODE_SPEED, JOKER_AS_BELOW)


def _error(name="classic", options=None):
    """The RulesetError message, or fail if the ruleset was accepted."""
    try:
        make_ruleset(name, options)
    except RulesetError as e:
        return str(e)
    raise AssertionError("accepted %r %r" % (name, options))


def test_default_is_classic_with_default_options():
    r = make_ruleset()
    assert r.name == "classic"
    assert r.wrap == WRAP_BOTH and r.slap == SLAP_BOTH and r.round_end == END_STOCKS
    assert r.mode == MODE_TABLEAU and r.piles == 2 and r.stocks == 5 and r.stock_cards == 15
    assert r.jokers == 0 and not r.alternate_colours
    assert r.options["countdown_ms"] == 2000


def test_every_preset_builds():
    for name in PRESETS:
        r = make_ruleset(name)
        assert r.name == name


def test_preset_tableau_001_out_only_and_stocks_and_spit():
    r = make_ruleset("tableau")
    assert r.slap == SLAP_OUT_ONLY and r.round_end == END_STOCKS_AND_SPIT


def test_preset_own_deck_and_speed_modes():
    assert make_ruleset("own_deck").mode == MODE_OWN_DECK
    assert make_ruleset("own_deck").row == 4
    assert make_ruleset("speed").mode == MODE_SPEED
    assert make_ruleset("speed").speed_side == 10


def test_options_override_the_preset():
    r = make_ruleset("tableau", {"slap": "choose", "wrap": "ace_only", "joker_next": "as_below",
                                 "jokers": 2, "stocks": 4})
    assert r.slap == SLAP_CHOOSE and r.wrap == WRAP_ACE_ONLY and r.joker_next == JOKER_AS_BELOW
    assert r.jokers == 2 and r.stock_cards == 10
    assert r.round_end == END_STOCKS_AND_SPIT
    assert r.options["slap"] == "choose"


def test_unknown_preset():
    msg = _error("cracher")
    assert "cracher" in msg and "classic" in msg


def test_unknown_option():
    assert "colour" in _error("classic", {"colour": "alternate"})


def test_bad_choice_value():
    msg = _error("classic", {"wrap": "sometimes"})
    assert "wrap" in msg and "sometimes" in msg
    assert "slap" in _error("classic", {"slap": 1})


def test_int_option_out_of_range():
    assert "piles" in _error("classic", {"piles": 4})
    assert "stocks" in _error("classic", {"stocks": 3})
    assert "jokers" in _error("classic", {"jokers": 3})
    assert "countdown_ms" in _error("classic", {"countdown_ms": -1})


def test_int_option_must_be_an_int():
    assert "piles" in _error("classic", {"piles": "3"})
    assert "slow_spit_ms" in _error("classic", {"slow_spit_ms": 2000.0})
    assert "timer_ms" in _error("classic", {"timer_ms": None})


def test_bool_rejected_for_ints():
    assert "jokers" in _error("classic", {"jokers": True})
    assert "points_target" in _error("classic", {"points_target": False})


def test_options_must_be_a_dict():
    _error("classic", [("piles", 3)])
    _error("classic", "piles=3")


def test_three_piles_need_the_tableau_mode():
    assert "piles" in _error("own_deck", {"piles": 3})
    assert "piles" in _error("classic", {"mode": "speed", "piles": 3})
    assert make_ruleset("classic", {"piles": 3}).piles == 3


def test_boundaries_accepted():
    r = make_ruleset("classic", {"piles": 3, "stocks": 4, "jokers": 2, "countdown_ms": 0,
                                 "slap_window_ms": 60000, "rounds_in_a_row": 100})
    assert r.piles == 3 and r.stocks == 4 and r.countdown_ms == 0


def test_ruleset_error_is_a_value_error():
    try:
        make_ruleset("nope")
    except ValueError:
        pass
    else:
        raise AssertionError("no error")


def test_default_counts_per_mode():
    assert make_ruleset().default_counts() == [26, 26]
    assert make_ruleset("classic", {"jokers": 1}).default_counts() == [26, 27]
    assert make_ruleset("own_deck", {"jokers": 2}).default_counts() == [54, 54]
    assert make_ruleset("speed", {"speed_side": 5}).default_counts() == [20, 20]
