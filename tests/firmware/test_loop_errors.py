"""A firmware bug in the loop does not end the game (referee/boot.py ``run``).

The referee never crashes mid-game: an exception out of the loop is printed with its
traceback and the same game goes on (the same engine, the same session log).  Only errors
that keep coming (each within 10 s of the last) escalate: the third starts a new game, the
sixth stops the referee with blink code 8.  These run ``main.run`` on the virtual board with
``App.run_forever`` replaced by a script that plays a little, then raises.
"""

import os

import pytest

from host_tools.vboard.runner import VirtualTable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Bug(Exception):
    pass


def run_with_errors(monkeypatch, script):
    """``main.run`` with ``App.run_forever`` doing ``script``'s steps, one per call: a step is
    ``fn(table, app)``, which plays or raises.  Returns (code, table, sessions seen)."""
    t = VirtualTable(boot=False)   # (installs the fakes: import the firmware after it)
    from referee.app import App
    seen = []
    steps = list(script)

    def run_forever(app):
        if t.app is None:   # (the table steps the app main.run booted)
            t.app = app
            t.t0 = t.clock.now_us
            t._next_step = t.clock.now_us
            assert t.press_ready()   # (every game starts on READY: the first session)
        seen.append((app.sessions, id(app.referee)))
        if not steps:
            raise KeyboardInterrupt
        steps.pop(0)(t, app)

    monkeypatch.setattr(App, "run_forever", run_forever)
    try:
        code = t._import_main().run(t.root, error_cycles=1, echo=None)
    except KeyboardInterrupt:
        code = None
    return code, t, seen


def fail(after_us=0):
    def step(t, app):
        t.run_for(after_us)
        raise Bug("boom")
    return step


def loop_error_lines(out):
    return [line for line in out.splitlines() if line.startswith("spit-referee: loop error")]


def test_a_loop_error_is_printed_and_the_same_game_goes_on(monkeypatch, capsys):
    def play_after_the_error(t, app):
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)
        t.land_card(0, "8H", 2_600_000)
        t.run_until(3_000_000)

    code, t, seen = run_with_errors(monkeypatch, [fail(500_000), play_after_the_error])
    try:
        assert code is None   # (stopped by the script's Ctrl-C, not by the errors)
        out = capsys.readouterr().out
        assert loop_error_lines(out) == ["spit-referee: loop error 1: Bug: boom (the game goes on)"]
        # The same session and engine before and after the error, and it still referees.
        assert seen[0] == seen[1] == seen[2] and seen[0][0] == 1
        verdicts = [v for v in t.log_lines() if '"verdict"' in v]
        assert any('"accept"' in v and '"8H"' in v for v in verdicts), verdicts
    finally:
        t.close()


def test_errors_that_keep_coming_start_a_new_game_then_stop_with_blink_code_8(monkeypatch, capsys):
    code, t, seen = run_with_errors(monkeypatch, [fail(1_000_000)] * 6)
    try:
        assert code == 8
        lines = loop_error_lines(capsys.readouterr().out)
        assert lines == [
            "spit-referee: loop error 1: Bug: boom (the game goes on)",
            "spit-referee: loop error 2: Bug: boom (the game goes on)",
            "spit-referee: loop error 3: Bug: boom (a new game)",
            "spit-referee: loop error 4: Bug: boom (the game goes on)",
            "spit-referee: loop error 5: Bug: boom (the game goes on)",
            "spit-referee: loop error 6: Bug: boom (stopped: blink code 8)"]
        sessions = [s for s, _ in seen]
        assert sessions == [1, 1, 1, 2, 2, 2]
    finally:
        t.close()


@pytest.mark.parametrize("gap_us,expected", [
    (11_000_000, [1, 1, 1, 1]),     # more than 10 s apart: each is an isolated error
    (9_000_000, [1, 2, 3, 4]),      # within 10 s: they add up (the third starts a new game)
])
def test_errors_far_apart_do_not_add_up(monkeypatch, capsys, gap_us, expected):
    code, t, seen = run_with_errors(monkeypatch, [fail(gap_us)] * 4)
    try:
        assert code is None
        lines = loop_error_lines(capsys.readouterr().out)
        assert [int(line.split()[3].rstrip(":")) for line in lines] == expected
    finally:
        t.close()
