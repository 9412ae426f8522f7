"""The firmware path referees simulated games with no error the table did not cause.

A short part of bench/bench_sim_sweep.py (every preset x 2 and 3 piles x 20 seeds, about two
and a half minutes): every preset and pile count, two seeds each, including the seeds whose
stale reader IRQ stamps used to make `late_event`/`no_read` errors and lose a card (issue 9:
classic 3 piles seed 1, classic 2 piles seed 9; seed 14 after the reader's non-blocking ACKs).
"""

import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sweep = pytest.importorskip("bench.bench_sim_sweep")


def _cases():
    out = []
    for name, piles in sweep.combos():
        for seed in (1, 2):
            out.append((name, piles, seed))
    out.append(("classic", 2, 9))
    out.append(("classic", 2, 14))   # a listing's ACK edge taken as its reply stamp (420 ms early)
    return out


@pytest.mark.parametrize("name,piles,seed", _cases())
def test_firmware_mode_no_faults_no_referee_errors_no_disagreements(name, piles, seed):
    errors, notes, injected, finished = sweep.play(name, piles, seed)
    assert injected == 0
    assert errors == {}
    assert notes == []
    assert finished


def test_firmware_mode_with_misreads_every_error_is_an_injected_one():
    errors, _notes, injected, _finished = sweep.play("classic", 2, 3, misread_pm=40)
    assert injected > 0
    assert set(errors) == {"no_read"} and errors["no_read"] == injected
