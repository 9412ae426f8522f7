"""Whole games through the firmware on the virtual board under the strict PN532 model's options
(issue 26): each of the 9 option combinations of the covering set plays one whole game, the
presets taken in turn (every preset at least once): no card lost, no disagreement between the
table and the referee (a wrong winner, count or pile), no referee error the readers cause; and
again with the probe's answers for the chip in board.json (the readers configured by them).
bench/bench_nfc_games.py plays every preset under every combination (45 games)."""

import os

import pytest

from host_tools.vboard.pn532_options import combinations, label

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


PRESETS = ("classic", "tableau", "family", "own_deck", "speed")
GAMES = [(PRESETS[i % len(PRESETS)], combo) for i, combo in enumerate(combinations())]
# With the probe's answers for the chip in board.json (the readers configured, not learning): the
# presets taken in turn from the next one, so each combination meets another preset.
CONFIGURED = [(PRESETS[(i + 1) % len(PRESETS)], combo) for i, combo in enumerate(combinations())]


@pytest.mark.parametrize("preset,combo", GAMES, ids=["%s-%s" % (p, label(c)) for p, c in GAMES])
def test_whole_game_under_the_chip_options(preset, combo):
    pytest.importorskip("host_tools.vboard.runner")
    from bench.bench_nfc_games import play
    r = play(preset, combo)
    assert r["finished"], r
    assert r["lost"] == 0 and r["disagreements"] == [] and r["reader_errors"] == 0, r


@pytest.mark.parametrize("preset,combo", CONFIGURED, ids=["%s-%s" % (p, label(c)) for p, c in CONFIGURED])
def test_whole_game_with_the_probes_answers_in_the_board_file(preset, combo):
    pytest.importorskip("host_tools.vboard.runner")
    from bench.bench_nfc_games import play
    r = play(preset, combo, config=True)
    assert r["finished"], r
    assert r["lost"] == 0 and r["disagreements"] == [] and r["reader_errors"] == 0, r
