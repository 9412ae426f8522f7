"""`spit replay` reads logs with the one reader (spit.log, issue 25 item 1): lax JSON, odd
whitespace, duplicate keys, BOMs and out-of-bound fields give the verdicts spit.log gives (and
MicroPython gives, tests/micropython/test_engine_micropython.py), through the command itself."""

import io
import os
import sys

from host_tools import cli
from host_tools import replay
from spit.log import rejudge
from spit.words import items_json
from fuzz import lax_log_lines

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


HEADER = '{"spitlog": 1, "ruleset": "classic", "options": {"countdown_ms": 1000}}'


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(argv)
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path, lines, name="l.spitlog"):
    path = str(tmp_path / name)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_spit_replay_gives_spit_logs_verdicts_on_lax_logs(tmp_path):
    divergent = []
    for seed in range(1, 301):
        path = _write(tmp_path, lax_log_lines(seed))
        code, out, _err = run(["replay", "--json", path])   # (an exception fails the test)
        with open(path, encoding="utf-8", newline="\n") as f:
            r = rejudge(list(f))
        if code == replay.EXIT_ERROR:
            same = r.referee is None   # no session log: nothing to print
        else:
            same = out.splitlines() == [items_json(items) for _n, items in r.verdicts]
        if not same:
            divergent.append(seed)
    assert divergent == []


def test_spit_replay_t_field_out_of_bound_is_one_bad_line(tmp_path):
    # t of 2**40 us was taken by replay's own fast path: it moved the clock, every later line was
    # late_event, and the exit code was 0.
    lines = [HEADER, '{"t": 1100000, "ev": "card", "pile": 0, "card": "7H"}',
             '{"t": 1100500, "ev": "card", "pile": 1, "card": "KS"}',
             '{"t": %d, "ev": "touch", "pile": 0}' % (1 << 40),
             '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H"}']
    code, out, err = run(["replay", "--json", _write(tmp_path, lines)])
    assert code == replay.EXIT_BAD_LINES
    assert "line 4: 't' out of range" in err
    assert '"verdict": "accept", "pile": 0, "card": "8H"' in out and "late_event" not in out


def test_spit_replay_duplicate_t_key_is_one_bad_line(tmp_path):
    lines = [HEADER, '{"t": 1100000, "ev": "card", "pile": 0, "card": "7H"}',
             '{"t": 1100500, "ev": "card", "pile": 1, "card": "KS"}',
             '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H", "t": 900000}']
    code, out, err = run(["replay", "--json", _write(tmp_path, lines)])
    assert code == replay.EXIT_BAD_LINES and "line 4: not valid JSON" in err and "given twice" in err
    assert '"card": "8H"' not in out


def test_spit_replay_bom_before_the_header_only(tmp_path):
    lines = ["\ufeff" + HEADER, '{"t": 1100000, "ev": "card", "pile": 0, "card": "7H"}']
    code, out, err = run(["replay", "--json", _write(tmp_path, lines)])
    assert code == replay.EXIT_OK and err == ""
    lines = [HEADER, "\ufeff" + '{"t": 1100000, "ev": "card", "pile": 0, "card": "7H"}']
    code, out, err = run(["replay", "--json", _write(tmp_path, lines)])
    assert code == replay.EXIT_BAD_LINES and "line 2: not valid JSON" in err


def test_spit_replay_process_gives_spit_logs_verdicts_on_lax_logs(tmp_path):
    # The command as users run it (a new process), on a few of the same logs.
    import subprocess
    for seed in (3, 7, 11, 19, 23, 42):
        path = _write(tmp_path, lax_log_lines(seed), "p%d.spitlog" % seed)
        proc = subprocess.run([sys.executable, "-m", "host_tools", "replay", "--json", path], cwd=ROOT,
                              capture_output=True, text=True, encoding="utf-8", timeout=120)
        assert "Traceback" not in proc.stderr, proc.stderr
        with open(path, encoding="utf-8", newline="\n") as f:
            r = rejudge(list(f))
        if proc.returncode == replay.EXIT_ERROR:
            assert r.referee is None, seed
        else:
            assert proc.stdout.splitlines() == [items_json(items) for _n, items in r.verdicts], seed
