"""Random bad logs through the re-judge (spit.log, a host job): out-of-range ints, wrong JSON
types, deep nesting and bad headers become error verdicts, never an exception, with the same
verdicts every run.  Under tests/micropython/mp_runner.py it runs with the host heap (test_host_*);
tests/micropython/test_engine_micropython.py checks that MicroPython's verdicts equal CPython's."""

from fuzz import run_logs


def test_bad_logs_never_raise_and_repeat_exactly():
    first = run_logs(1, 100)
    assert first == run_logs(1, 100)
    assert first[1] > 1000
