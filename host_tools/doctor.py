"""`spit doctor`: the bring-up checklist of docs/hardware.md as a program, on a real board or the
emulated Pico.

The device side is ``firmware/referee/doctor.py``, sent with ``mpremote run`` (it is not installed:
no flash spent on it in normal play).  It prompts the people at the table (``>> press player 0's
STUCK now``), who act there: place a card, press a button, answer "lit?" / "heard?" with a STUCK
button (yes) or a slap pad (no).  Each check ends in one JSON line; here each becomes one report
line, ``PASS``, ``FAIL`` with the likely cause (the wiring table's row, the docs section) or
``SKIP``, and the whole report is saved.  The board is refereeing again afterwards: the doctor
stops the referee only between games (it refuses during one, unless ``force``) and restarts it.
"""

import json
import os
import sys
import tempfile
import time

from host_tools.device.manifest import FlashError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCTOR_SCRIPT = os.path.join(REPO, "firmware", "referee", "doctor.py")
STEPS = ("readers", "buttons", "card", "leds", "buzzer")
TIMEOUT_S = 900


def doctor_script(steps=STEPS, source=DOCTOR_SCRIPT):
    """The text ``mpremote run`` sends: the device script and its ``run(...)`` call."""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    return "%s\nrun(%r)\n" % (text, ",".join(steps))


class Report:
    """The checks' results as they come: ``results`` (dicts), the text lines, the counts."""

    def __init__(self, port, out):
        self.port = port
        self.out = out
        self.results = []
        self.lines = []
        self.done = False
        self.other = []          # device output that is neither a prompt nor a result

    def feed(self, raw):
        line = raw.strip()
        if not line:
            return
        if line.startswith(">> "):
            self.out.write(line + "\n")
            self.out.flush()
            return
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and "doctor" in obj:
                if obj["doctor"] == "done":
                    self.done = True
                    return
                self.results.append(obj)
                text = result_line(obj)
                self.lines.append(text)
                self.out.write(text + "\n")
                self.out.flush()
                return
        self.other.append(line)
        if line.startswith("spit doctor:") or "Error" in line or "Traceback" in line:
            self.out.write(line + "\n")

    def counts(self):
        c = {"pass": 0, "fail": 0, "skip": 0}
        for r in self.results:
            c[r.get("result", "fail")] = c.get(r.get("result", "fail"), 0) + 1
        return c

    def text(self):
        c = self.counts()
        head = ["spit doctor report  %s  port %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), self.port), ""]
        tail = ["", "%d passed, %d failed, %d skipped%s" % (c["pass"], c["fail"], c["skip"],
                                                            "" if self.done else "  (the checks did not finish)")]
        if not self.done and self.other:
            tail.append("the board said: " + " | ".join(self.other[-4:]))
        return "\n".join(head + self.lines + tail) + "\n"


def result_line(obj):
    """``FAIL  reader 1: no answer (timeout)  -> likely cause: ...`` for one device result."""
    mark = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}.get(obj.get("result"), "????")
    text = "%s  %s" % (mark, obj.get("what", obj.get("doctor")))
    if obj.get("detail"):
        text += ": " + obj["detail"]
    if obj.get("result") == "fail" and obj.get("cause"):
        text += "  -> likely cause: " + obj["cause"]
    return text


def run_doctor(port, report_path, out=None, force=False, steps=STEPS, restart=True, timeout=TIMEOUT_S):
    """Run the checks on the board at ``port``; save the report; restart the referee.
    Returns the ``Report``.  FlashError when the board cannot be reached or a game is on."""
    from host_tools.device import referee as board_referee
    from host_tools.device.logs import resolve_port
    from host_tools.device.mpremote import run_mpremote
    out = out or sys.stdout
    port = resolve_port(port)
    board_referee.guard(port, force, out, restart_prompt=False)
    report = Report(port, out)
    fd, script = tempfile.mkstemp(prefix="spit-doctor-", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(doctor_script(steps))
        out.write("spit doctor: checking the board at %s (the referee pauses; it restarts at the end)\n" % port)
        out.flush()
        try:
            run_mpremote(port, ["run", script], report.feed, timeout=timeout)
        except FlashError as e:
            report.other.append(str(e))
    finally:
        os.remove(script)
        if report_path:
            with open(report_path, "w", encoding="utf-8") as f:
                f.write(report.text())
                f.write("\n" + "\n".join(json.dumps(r) for r in report.results) + "\n")
    c = report.counts()
    out.write("spit doctor: %d passed, %d failed, %d skipped%s\n" % (
        c["pass"], c["fail"], c["skip"], "; report saved to %s" % report_path if report_path else ""))
    if restart:
        board_referee.restart(port, out)
    return report
