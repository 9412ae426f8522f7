"""Whole games through the firmware on the virtual board under the strict PN532 model's options
(issue 26): each of the 9 option combinations of the covering set plays one whole game, the
presets taken in turn (every preset at least once): no card lost, no disagreement between the
table and the referee (a wrong winner, count or pile), no referee error the readers cause; and
again with the probe's answers for the chip in board.json (the readers configured by them).
bench/bench_nfc_games.py plays every preset under every combination of the covering set (45 games;
``--full``: all 192, 960 games)."""

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


# What a whole game asks of the chip: the firmware halts with its own HLTA (never InRelease 0x52
# or InDeselect 0x44) and never sets RxAlign (CIU_BitFraming bits 6-4), so release_halts,
# deselect_halts and rx_align cannot change a game; the 192 combinations are 24 for whole games
# (bench/bench_nfc_games.py --full plays all 192 x 5 presets).  Under the options that make the
# reader work hardest: a WUPA listing with no CIU_Coll (the bit walk), and a REQA one.
@pytest.mark.parametrize("preset,combo", [
    ("classic", {"list_uses_wupa": True, "coll_readable": False, "collision_status": 0x03, "list_order": "low"}),
    ("speed", {}),
])
def test_a_whole_game_never_asks_what_release_deselect_or_rx_align_decide(preset, combo, monkeypatch):
    pytest.importorskip("host_tools.vboard.runner")
    from bench.bench_nfc_games import play
    from host_tools.vboard import pn532_ciu
    from host_tools.vboard.pn532_emulator import PN532Emulator
    commands = []
    rx_align = []
    execute = PN532Emulator._execute
    write = pn532_ciu.Ciu.write

    def counted(self, command, params, now):
        commands.append(command)
        return execute(self, command, params, now)

    def written(self, addr, value):
        if addr == pn532_ciu.BIT_FRAMING and value & 0x70:
            rx_align.append(value)
        return write(self, addr, value)
    monkeypatch.setattr(PN532Emulator, "_execute", counted)
    monkeypatch.setattr(pn532_ciu.Ciu, "write", written)
    r = play(preset, combo)
    assert r["finished"] and r["lost"] == 0 and r["reader_errors"] == 0, r
    assert commands.count(0x42) > 20 and commands.count(0x08) > 5      # raw exchanges and register writes ran
    assert 0x52 not in commands and 0x44 not in commands
    assert rx_align == []
