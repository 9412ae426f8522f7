"""R-PLAY-5 with the readers' evidence (docs/log-format.md, "Read evidence (act)" and the race
rule): logs re-judged by spit.log, the reader `spit replay` uses, on CPython and MicroPython.

Each card line carries ``"act": [us, tags]``: how long before its ``t`` the activation that
found the tag began, and whether it answered that activation alone (1) or with another tag (2).
A card first read by a later activation landed after the cards of an earlier one, whatever the
touch edges say; reads of one activation (one ``t``) cannot be ordered: a tie.
"""

import json

from spit.log import rejudge

HEADER = {"spitlog": 1, "ruleset": "classic", "options": {"reorder_us": 5000}}
# Spit cards: 7H on pile 0, KS on pile 1 (the countdown ends at 2 s).
SPITS = [
    {"t": 2100000, "ev": "touch", "pile": 0},
    {"t": 2106000, "ev": "card", "pile": 0, "card": "7H", "act": [1000, 1]},
    {"t": 2150000, "ev": "touch", "pile": 1},
    {"t": 2156000, "ev": "card", "pile": 1, "card": "KS", "act": [1000, 1]},
]


def judged(events):
    lines = [json.dumps(HEADER)] + [json.dumps(o) for o in SPITS + events]
    r = rejudge(lines)
    out = []
    for _, items in r.verdicts:
        d = dict(items)
        if d.get("verdict") in ("accept", "late", "tie", "illegal", "error"):
            out.append((d["verdict"], d.get("card", d.get("reason"))))
    return out


def touch(ms_us, pile=0):
    return {"t": ms_us, "ev": "touch", "pile": pile}


def card(ms_us, code, act, pile=0):
    o = {"t": ms_us, "ev": "card", "pile": pile, "card": code}
    if act is not None:
        o["act"] = act
    return o


def test_r_play_5_act_reads_of_two_activations_are_ordered_with_both_touches_before_the_first_read():
    # 8H lands at 3.000 s, 6C 5 ms later; the reader's listing answered 8H alone (its reply at
    # 3.006 s), then its own REQA found 6C (3.008 s): both touches came before the first read,
    # which the older rule calls a tie.  The activations order them: 8H first, 6C late.
    events = [touch(3000000), touch(3005000),
              card(3006000, "8H", [5000, 1]), card(3008000, "6C", [0, 1])]
    assert judged(events) == [("accept", "8H"), ("late", "6C")]


def test_r_play_5_without_act_the_same_reads_are_a_tie():
    events = [touch(3000000), touch(3005000), card(3006000, "8H", None), card(3008000, "6C", None)]
    assert ("tie", "6C") in judged(events)


def test_r_play_5_act_a_late_sensor_edge_does_not_name_the_wrong_card():
    # 8H lands at 3.000 s but its sensor lags 8 ms; 6C lands at 3.003 s with its edge at once.
    # The reader found 8H alone first (reply 3.006 s), 6C by a later REQA (3.0085 s).  8H takes
    # the earliest touch (6C's edge), 6C the later one: 8H is still the winner.
    events = [touch(3003000), card(3006000, "8H", [5500, 1]), touch(3008000), card(3008500, "6C", [0, 1])]
    assert judged(events) == [("accept", "8H"), ("late", "6C")]


def test_r_play_5_act_a_missed_touch_within_relist_us_is_no_tie():
    # 6C lands 50 ms after 8H and its touch edge is missed: its read comes from a later
    # activation, so it landed after 8H (the older rule ties a touch-less read within relist_us).
    events = [touch(3000000), card(3006000, "8H", [5000, 1]), card(3056000, "6C", [4000, 1])]
    assert judged(events) == [("accept", "8H"), ("late", "6C")]
    events = [touch(3000000), card(3006000, "8H", None), card(3056000, "6C", None)]
    assert ("tie", "6C") in judged(events)


def test_r_play_5_act_two_tags_of_one_activation_are_a_tie():
    # Both answered one activation (one t, tags 2): the reader cannot order them.
    events = [touch(3000000), touch(3001500),
              card(3007000, "8H", [6000, 2]), card(3007000, "6C", [6000, 2])]
    got = judged(events)
    assert ("tie", "6C") in got
    # ... with one touch edge only (the second merged into the first), too.
    events = [touch(3000000), card(3007000, "8H", [6000, 2]), card(3007000, "6C", [6000, 2])]
    assert ("tie", "6C") in judged(events)


def test_r_play_5_act_is_bounded_else_the_line_is_malformed():
    for bad in ([5000], [5000, 0], [5000, 3], [-1, 1], [5000, True], "5000", [5000, 1.0], [2 ** 30, 1]):
        got = judged([touch(3000000), card(3006000, "8H", bad)])
        assert ("error", "malformed") in got and ("accept", "8H") not in got, bad
    # A long activation is kept to its bound, not refused.
    assert judged([touch(3000000), card(3006000, "8H", [900000, 1])]) == [("accept", "8H")]


def _judged_times(events):
    lines = [json.dumps(HEADER)] + [json.dumps(o) for o in SPITS + events]
    r = rejudge(lines)
    return [dict(items) for _, items in r.verdicts if dict(items).get("verdict") in ("accept", "tie", "late")]


def test_r_play_5_a_read_that_answered_alone_holds_no_other_pile_back():
    # 8H on pile 0 answered its activation alone: no other tag of it can follow, so QS on pile 1
    # (touch + read 10 ms later) is judged as soon as its own read is in, not relist_us later.
    events = [touch(3000000), card(3002000, "8H", [2000, 1]),
              touch(3010000, 1), card(3012000, "QS", [2000, 1], pile=1),
              {"t": 3020000, "ev": "tick"}]
    assert [(v["verdict"], v["card"]) for v in _judged_times(events)] == [("accept", "8H"), ("accept", "QS")]


def test_r_play_5_quiet_line_ends_a_shared_reads_hold_as_on_the_device():
    # Pile 0's 8H answered an activation with another tag (tags 2): later events wait until its
    # reader says it found no other tag (the device's ``quiet`` line) or relist_us passes.  QD
    # and AC then answer one activation on pile 1.  Whether QD is judged before AC (the second
    # tag of its activation) arrives decides AC's landing time (its own read's, or QD's while QD
    # waits): the tie's dt_us.  With the quiet line the re-judge does what the device did.
    first = [touch(3000000), card(3003000, "8H", [2600, 2]),
             touch(3010000, 1), card(3013000, "QD", [2600, 2], pile=1)]
    later = [card(3013000, "AC", [2600, 2], pile=1), {"t": 3100000, "ev": "tick"}]
    with_quiet = first + [{"t": 3014000, "ev": "quiet", "pile": 0}, {"t": 3019000, "ev": "tick"}] + later
    without = first + [{"t": 3019000, "ev": "tick"}] + later
    tie_q = [v for v in _judged_times(with_quiet) if v["verdict"] == "tie"]
    tie_n = [v for v in _judged_times(without) if v["verdict"] == "tie"]
    assert [v["card"] for v in tie_q] == [v["card"] for v in tie_n] == ["AC"]
    assert tie_n[0]["dt_us"] == 0                 # QD held: AC shares its landing
    assert tie_q[0]["dt_us"] == 3000              # QD judged: AC lands at its read, 3 ms after QD's touch


def test_r_play_5_act_the_second_tag_of_an_activation_resolved_late_is_a_tie_not_a_late_event():
    # A chip that wakes halted tags: 8H and 6S land together on pile 0 and answer one REQA; the
    # reader resolves them bit by bit and reports both in one step, 86 ms after the activation
    # (past relist_us, 60 ms), as on the emulated Pico (bench.rp2_nfc_games, own_deck under a
    # WUPA chip).  The loop's clock moved on meanwhile (the ticks, as the device logs them
    # before each card).  The first read holds later events back for relist_us from when it
    # was fed, not from its time, so the second is still in time: a tie, with no late_event.
    tick = {"t": 3090000, "ev": "tick"}
    events = [touch(3000000), tick, card(3009000, "8H", [0, 2]), tick, card(3009000, "6S", [0, 2]),
              {"t": 3095000, "ev": "tick"}]
    got = judged(events)
    assert ("accept", "8H") in got and ("tie", "6S") in got
    assert ("error", "late_event") not in got, got
