"""Races on one pile through the real firmware on the virtual board (R-PLAY-5, docs/log-format.md
"Read evidence (act)"): reads of 5-10 ms, two cards a few ms apart.  The firmware logs each read's
evidence and orders the landings by it; `spit replay`'s reader re-judges the log to the same
verdicts.  The touch sensor is the model's (host_tools/vboard/touch_sensor.py): at once, late by
up to 8 ms, or missing.
"""

import os

import pytest

from host_tools.vboard.pn532_listing import read_time_options
from host_tools.vboard.runner import VirtualTable
from host_tools.vboard.touch_sensor import TouchSensor
from spit.cards import RANK_CODES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


READS = read_time_options(5000, 10000)


def race_table(sensor=None):
    t = VirtualTable(emulator=READS, touch_sensor=sensor)
    t.land_card(0, "7H", 2_100_000)
    t.land_card(1, "KS", 2_150_000)
    t.run_until(2_500_000)
    return t


def verdicts(t, pile=0):
    return [(o["verdict"], o.get("card")) for o in t.log_objects() if "verdict" in o and o.get("pile") == pile]


def replay_matches(t):
    from host_tools import replay
    rep = replay.rejudge_lines(t.log_lines())
    return rep.device_verdicts > 0 and rep.n_mismatches == 0


def test_r_play_5_act_cards_5_ms_apart_on_one_pile_are_ordered_not_tied():
    # Eight races 5 ms apart (both touch edges come before the first read): each is decided by
    # the evidence, the first card wins, and every card line carries it.
    t = race_table()
    try:
        ranks = ("8H", "6C", "9H", "7C", "10H", "8C", "JH", "9C", "QH", "10C", "KH", "JC", "AH", "QC",
                 "2H", "KC")
        at = 3_000_000
        for i in range(0, len(ranks), 2):
            t.land_card(0, ranks[i], at)
            t.land_card(0, ranks[i + 1], at + 5000)
            t.lift_card(0, ranks[i + 1], at + 300_000)
            at += 500_000
        t.run_until(at)
        got = verdicts(t)
        assert not [v for v in got if v[0] == "tie"], got
        for i in range(0, len(ranks), 2):
            assert ("accept", ranks[i]) in got and ("late", ranks[i + 1]) in got, (ranks[i], got)
        cards = [o for o in t.log_objects() if o.get("ev") == "card"]
        assert cards and all(len(o["act"]) == 2 and o["act"][1] in (1, 2) for o in cards)
        assert replay_matches(t)
    finally:
        t.close()


def test_r_play_5_act_a_lagging_sensor_never_names_the_wrong_card():
    # Touch edges up to 8 ms late: races 1-5 ms apart may tie, never go to the second card.
    t = race_table(TouchSensor(delay_us=(0, 8000), seed=3))
    try:
        at = 3_000_000
        pairs = []
        ups = ("8H", "9H", "10H", "JH", "QH", "KH")
        downs = ("6C", "7C", "8C", "9C", "10C", "JC")
        for i in range(6):
            first, second = ups[i], downs[i]
            t.land_card(0, first, at)
            t.land_card(0, second, at + 1000 * (1 + i % 5))
            t.lift_card(0, second, at + 300_000)
            pairs.append((first, second))
            at += 500_000
        t.run_until(at)
        got = verdicts(t)
        for _first, second in pairs:
            assert ("accept", second) not in got, (second, got)
        assert replay_matches(t)
    finally:
        t.close()


def test_r_play_5_act_a_missed_touch_edge_50_ms_later_is_no_tie():
    t = race_table()
    try:
        t.land_card(0, "8H", 3_000_000)
        t.land_card(0, "6C", 3_050_000, touch=False)   # the sensor missed this landing
        t.run_until(3_400_000)
        got = verdicts(t)
        assert ("accept", "8H") in got and ("late", "6C") in got and not [v for v in got if v[0] == "tie"]
        assert replay_matches(t)
    finally:
        t.close()


def test_r_play_5_shared_activations_on_both_piles_rejudge_as_the_device_judged():
    """Two tags answer one activation on pile 0, then two on pile 1 26 ms later, on a loop of
    4 ms steps.  Pile 0's read holds later events back until its reader lists again and finds
    nothing (the engine's ``quiet``); when that comes decides whether pile 1's first card is
    judged before its activation's second tag arrives, and with that the tie's ``dt_us``.  The
    device writes it as a ``quiet`` line, and the re-judge of its log gives its verdicts; the
    same log without those lines would not (so the line is what carries it)."""
    from host_tools.vboard.runner import VirtualTable
    from host_tools import replay

    t = VirtualTable(ruleset="speed", loop_us=4000)
    try:
        t.land_card(0, "5S", 2_100_000)
        t.land_card(1, "9H", 2_150_000)
        t.land_card(0, "6D", 2_600_000)
        t.land_card(0, "4C", 2_600_200, touch=False)
        t.land_card(1, "10S", 2_626_000)
        t.land_card(1, "10C", 2_626_300, touch=False)
        t.run_until(3_000_000)
        lines = t.log_lines()
    finally:
        t.close()
    assert any('"ev": "quiet"' in line for line in lines)
    assert replay.rejudge_lines(lines).n_mismatches == 0
    assert replay.rejudge_lines([ln for ln in lines if '"quiet"' not in ln]).n_mismatches > 0


@pytest.mark.parametrize("touch", [True, False], ids=["touch-sensor", "no-touch-edge"])
def test_r_play_5_a_collision_walked_longer_than_touch_match_us_loses_no_touch(touch):
    """A chip whose listing sends WUPA and which gives no CIU_Coll (board.json says so): two
    cards 1-3 ms apart answer one REQA, and the reader walks their shared UID bits one exchange
    a bit.  With commands 5 ms apart, as on the emulated Pico where each costs a loop step, the
    walk takes longer than the rules' touch_match_us (120 ms).  The touches wait for it (and,
    with no touch edge, the verdicts wait for the reads): no ``no_read``, no ``late_event``, and
    the race is a tie (both answered one activation) or right, never the wrong card (issue 26:
    errors and wrong winners before the loop held the engine at the reader's activation)."""
    from bench.bench_nfc_games import board_with_answers
    chip = {"list_uses_wupa": True, "coll_readable": False}
    emulator = dict(chip, command_us=5000, **READS)
    t = VirtualTable(emulator=emulator, board=board_with_answers(2, chip), loop_us=5000)
    try:
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)
        t.run_until(2_500_000)
        at = 3_000_000
        top = 7
        on_table = {"7H", "KS"}

        def card(rank):   # a card of that rank not on the table yet
            c = [RANK_CODES[rank] + s for s in "HCDS" if RANK_CODES[rank] + s not in on_table][0]
            on_table.add(c)
            return c
        for dt_ms in (1, 2, 3, 1, 2, 3):
            # One card a rank above the top, one below: both fit, the first to touch wins.
            first = card(top % 13 + 1)
            second = card((top - 2) % 13 + 1)
            t.land_card(0, first, at, touch=touch)
            t.land_card(0, second, at + dt_ms * 1000, touch=touch)
            t.run_until(at + 600_000)
            got = [(o["verdict"], o.get("card")) for o in t.log_objects() if o.get("t", 0) >= at and "verdict" in o]
            tie = [c for k, c in got if k == "tie"]
            assert tie or (("accept", first) in got and ("late", second) in got), (first, second, got)
            won = first if ("accept", first) in got else second
            lost = second if won == first else first
            t.lift_card(0, lost, at + 650_000)
            on_table.discard(lost)
            top = RANK_CODES.index(won[:-1])
            at += 700_000
        objs = t.log_objects()
        assert [o["reason"] for o in objs if o.get("verdict") == "error"] == []
        # The walk did take longer than touch_match_us: the reader's quiet comes after it.
        quiet = [o["t"] for o in objs if o.get("ev") == "quiet" and o["t"] > 3_000_000]
        assert quiet and quiet[0] - 3_000_000 > 120_000, quiet
        assert sum(e.ciu.collisions for e in t.emulators) >= 3
        assert replay_matches(t)
    finally:
        t.close()
