"""bench/bench_firmware.py's helpers (bench/firmware_races.py, bench/firmware_profiler.py): the race
classifier reads the referee's verdicts, the profiler subtracts what it is told to (no timing
assertions)."""

import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
races = pytest.importorskip("bench.firmware_races")
profiler = pytest.importorskip("bench.firmware_profiler")

from spit.intake import EV_CARD, EV_TOUCH  # noqa: E402


def test_race_touches_close_together_are_a_declared_tie():
    # Both touches 1 ms apart; the second card is read first: the engine says tie, never a silent pick.
    events = [(0, EV_TOUCH, 0, 0, 0), (1000, EV_TOUCH, 1000, 0, 0),
              (4500, EV_CARD, 4500, 0, "6C"), (7000, EV_CARD, 7000, 0, "8H")]
    assert races.judge_race(events, 5000, "8H", "6C", 0, True) == races.TIE


def test_race_right_and_wrong_winner():
    # Reads further apart than relist_us (closer ones on one pile are a declared tie).
    right = [(0, EV_CARD, 0, 0, "8H"), (100000, EV_CARD, 100000, 0, "6C")]
    assert races.judge_race(right, None, "8H", "6C", 0, True) == races.RIGHT
    wrong = [(0, EV_CARD, 0, 0, "6C"), (100000, EV_CARD, 100000, 0, "8H")]
    assert races.judge_race(wrong, None, "8H", "6C", 0, True) == races.WRONG
    # Two piles: right means the first-landed card's verdict comes first.
    cross = [(0, EV_CARD, 0, 1, "QS"), (300, EV_CARD, 300, 0, "8H")]
    assert races.judge_race(cross, None, "QS", "8H", 1, False) == races.RIGHT
    assert races.judge_race(cross, None, "8H", "QS", 0, False) == races.WRONG


def test_race_trials_report_right_tie_wrong():
    res, judged = races.race_trials(5000, 5, True)
    assert judged > 0
    for method in ("touch", "irq", "poll"):
        assert abs(sum(res[method]) - 1.0) < 1e-9


def test_profiler_subtracts_inner_fakes():
    clock = [0]

    class Obj:
        def fake(self):
            clock[0] += 100

        def work(self):
            clock[0] += 7
            self.fake()
            clock[0] += 3

    o = Obj()
    prof = profiler.Profiler(lambda: clock[0], lambda a, b: a - b)
    prof.wrap(o, "fake", "fake:bus")
    prof.wrap(o, "work", "reader")
    o.work()
    assert prof.acc["reader"] == 10 and prof.acc["fake:bus"] == 100
    assert prof.ncalls["fake:bus"] == 1


def test_race_sweep_a_touch_delay_longer_than_the_gap_never_makes_a_wrong_winner():
    """The sweep's knobs act, and the readers' evidence orders what the touch edges cannot
    (R-PLAY-5, docs/log-format.md): 5.5 ms races are all right with no sensor delay; with 0-8 ms
    of random sensor delay the edges often come in the wrong order, and the races are still
    never wrong (the reads of two activations order the cards).  Without the evidence (the
    older rule, reads without ``act``) the slow sensor's races come out mostly tied."""
    quick, judged = races.race_trials(5500, 12, True, read_us=(2000, 5000), touch_delay_us=(0, 0))
    assert judged > 0 and quick["touch"] == [1.0, 0.0, 0.0]
    slow, judged = races.race_trials(5500, 12, True, read_us=(2000, 5000), touch_delay_us=(0, 8000))
    assert judged > 0 and slow["touch"][2] == 0.0


def test_race_judge_without_evidence_ties_what_it_cannot_pair():
    # The same reads with and without the evidence (alone, each from its own activation):
    # both touches before the first read.
    events = [(0, EV_TOUCH, 0, 0, 0), (5000, EV_TOUCH, 5000, 0, 0),
              (6000, EV_CARD, 6000, 0, "8H"), (8000, EV_CARD, 8000, 0, "6C")]
    assert races.judge_race(events, 5000, "8H", "6C", 0, True) == races.TIE
    with_evidence = [e + (1 if e[1] == EV_CARD else 0,) for e in events]
    assert races.judge_race(with_evidence, 5000, "8H", "6C", 0, True) == races.RIGHT
