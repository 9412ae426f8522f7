"""`spit doctor` on the emulated Pico (real MicroPython, the referee as `spit flash` installs it), a
person at its table (tests/support/doctor_table.py): a healthy table passes every check, and each injected
wiring fault (host_tools/rp2emu/table.py ``faults``) is named on one line with its likely cause.
Skipped, with the reason, without the firmware image (../shared/rp2/)."""

import json

import pytest

from host_tools.doctor import Report, result_line
from host_tools.rp2emu.emulator import why_unavailable

REASON = why_unavailable()
needs_rp2 = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def _fails(report_text):
    return [ln for ln in report_text.splitlines() if ln.startswith("FAIL")]


def _run(tmp_path, faults, argv):
    from support.doctor_table import DoctorTable
    with DoctorTable(faults=faults) as t:
        return t.run_doctor(argv, str(tmp_path / "report.txt"))


@needs_rp2
def test_healthy_table_passes_every_check_and_the_referee_runs_again(tmp_path):
    rc, output, report = _run(tmp_path, None, [])
    assert rc == 0, output
    assert _fails(report) == []
    for what in ("reader 0", "reader 1", "player 0's STUCK", "player 1's pad of pile 1", "card on pile 0",
                 "zone PILE0", "zone RESULT", "buzzer"):
        assert "PASS  %s" % what in report, what
    assert "0 failed, 0 skipped" in report
    assert "the referee is running again" in output


@needs_rp2
def test_missing_reader_stuck_button_and_dark_strip_one_line_each(tmp_path):
    rc, output, report = _run(tmp_path, {"missing_readers": [1], "stuck_pins": [2], "dark_strip": True},
                              ["--steps", "readers,buttons,leds"])
    assert rc == 1
    fails = _fails(report)
    assert len(fails) == 3, fails
    assert fails[0].startswith("FAIL  reader 1: no answer") and "row PN532 pile 1" in fails[0]
    assert fails[1].startswith("FAIL  player 0's STUCK: reads pressed before anyone touched it (GPIO 2)")
    assert fails[2].startswith("FAIL  LED strip: no zone was seen lit") and "GPIO 28" in fails[2]
    assert "PASS  reader 0" in report and "PASS  player 1's STUCK" in report
    assert "the referee is running again" in output


@needs_rp2
def test_swapped_irq_lines(tmp_path):
    rc, output, report = _run(tmp_path, {"swapped_irqs": True}, ["--steps", "readers"])
    fails = _fails(report)
    assert rc == 1 and len(fails) == 1, fails
    assert "IRQ lines of readers 0 and 1" in fails[0] and "swapped" in fails[0]


@needs_rp2
def test_cs_line_without_pull_up_both_readers_answer(tmp_path):
    rc, output, report = _run(tmp_path, {"floating_cs": [1]}, ["--steps", "readers"])
    fails = _fails(report)
    assert rc == 1 and len(fails) == 1, fails
    assert "reader 1 answers when reader 0 is addressed" in fails[0] and "CS line floats" in fails[0]


def test_report_lines_and_counts():
    import io
    out = io.StringIO()
    r = Report("/dev/x", out)
    r.feed(">> press player 0's STUCK now\r\n")
    r.feed(json.dumps({"doctor": "reader", "result": "fail", "what": "reader 1", "detail": "no answer",
                       "cause": "its CS wire"}) + "\r\n")
    r.feed(json.dumps({"doctor": "buzzer", "result": "skip", "what": "buzzer", "detail": "nobody answered"}))
    assert not r.done
    r.feed('{"doctor": "done"}')
    assert r.done and r.counts() == {"pass": 0, "fail": 1, "skip": 1}
    assert r.lines[0] == "FAIL  reader 1: no answer  -> likely cause: its CS wire"
    assert ">> press player 0's STUCK now" in out.getvalue()
    assert "0 passed, 1 failed, 1 skipped" in r.text()
    assert result_line({"doctor": "x", "result": "pass", "what": "w"}) == "PASS  w"
