"""Races on one pile through the real firmware on the virtual board (R-PLAY-5, docs/log-format.md
"Read evidence (act)"): reads of 5-10 ms, two cards a few ms apart.  The firmware logs each read's
evidence and orders the landings by it; `spit replay`'s reader re-judges the log to the same
verdicts.  The touch sensor is the model's (host_tools/vboard/touch_sensor.py): at once, late by
up to 8 ms, or missing.
"""

import os

from host_tools.vboard.pn532_listing import read_time_options
from host_tools.vboard.runner import VirtualTable
from host_tools.vboard.touch_sensor import TouchSensor

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
