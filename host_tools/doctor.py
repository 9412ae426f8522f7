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
PILE_SCRIPT = os.path.join(REPO, "firmware", "referee", "doctor_pile.py")
PROBE_SCRIPT = os.path.join(REPO, "firmware", "referee", "nfc_probe.py")
STEPS = ("readers", "buttons", "card", "touch", "probe", "range", "leds", "buzzer")
RANGE_CARDS = 8
TIMEOUT_S = 900


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def doctor_script(steps=STEPS, source=DOCTOR_SCRIPT, cards=RANGE_CARDS):
    """The text ``mpremote run`` sends: the board's clock set to this PC's (as every command that
    reaches the prompt does), the device scripts (doctor.py, then doctor_pile.py), the PN532
    probe's source as a string when the probe runs, and the ``run(...)`` call."""
    from host_tools.device.referee import clock_script
    text = clock_script() + _read(source) + "\n" + _read(PILE_SCRIPT)
    probe = "_NFC_PROBE = %r\n" % _read(PROBE_SCRIPT) if "probe" in steps else "_NFC_PROBE = None\n"
    return "%s\n%srun(%r, %d, _NFC_PROBE)\n" % (text, probe, ",".join(steps), cards)


class Report:
    """The checks' results as they come: ``results`` (dicts), the text lines, the counts."""

    def __init__(self, port, out):
        self.port = port
        self.out = out
        self.results = []
        self.lines = []
        self.done = False
        self.other = []          # device output that is neither a prompt nor a result
        self.kept = None         # where the curve and the probe's answers are kept (save_curve)
        self.board = None        # the board file's name, as the device says it

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
                text = "\n".join([result_line(obj)] + detail_lines(obj))
                self.lines.append(text)
                self.out.write(text + "\n")
                self.out.flush()
                return
        self.other.append(line)
        if line.startswith("spit doctor: board "):     # the device's first line: its board file's name
            self.board = line[len("spit doctor: board "):].split(",")[0].strip() or self.board
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
        if self.kept:
            tail.append("the range curve, the touch and probe findings (points, answers) are kept in %s"
                        % self.kept)
            if any((r.get("data") or {}).get("saved") for r in self.results if r.get("doctor") == "probe"):
                tail.append("the probe's answers are in the board's board.json now; `spit flash` writes a new "
                            "one: keep them with `spit flash --probe %s`" % self.kept)
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


def detail_lines(obj):
    """The lines under a result: the range step's table and curve, a probe's answers."""
    data = obj.get("data") or {}
    if obj.get("doctor") == "range" and data.get("points"):
        return curve_lines(data)
    if obj.get("doctor") == "probe" and data.get("answers"):
        a = data["answers"]
        return ["      %s = %s" % (k, ("0x%02x" % a[k]) if k == "collision_status" and type(a[k]) is int else a[k])
                for k in sorted(a)]
    return []


def curve_lines(data, width=40):
    """The range step's points as a table and an ASCII curve (read time against pile height)."""
    pts = data["points"]
    limit = data.get("limit_us") or 0
    times = [p["read_us"] for p in pts if p.get("read_us") is not None]
    top = max(times + [limit, 1])          # the bars' full width: the limit (|), or a longer read
    out = ["      cards  read after touch  (each # is %.1f ms; | is the limit)" % (top / 1000.0 / width),
           "      -----  ----------------"]
    for p in pts:
        t = p.get("read_us")
        if t is None:
            out.append("      %5d  %s" % (p["n"], "(no touch edge)" if data.get("touch") else "(not timed)"))
            continue
        n = max(1, int(round(width * max(t, 0) / top)))
        bar = ("#" * n).ljust(int(round(width * limit / top))) + "|" if limit and t <= limit else "#" * n
        out.append("      %5d  %7.1f ms  %s" % (p["n"], t / 1000.0, bar))
    if times:
        out.append("      limit %.0f ms (%s); the longest read is %.0f%% of it"
                   % (limit / 1000.0, data.get("limit_source", "touch_match_us"), 100.0 * max(times) / (limit or 1)))
    return out


def board_name(results, board=None):
    board = board or "board"
    for r in results:
        if (r.get("data") or {}).get("board"):
            board = r["data"]["board"]
    return board


def curve_path(report_path, results, when=None, board=None):
    """``doctor-<board>-<date>.json`` beside the report."""
    board = board_name(results, board)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return os.path.join(os.path.dirname(os.path.abspath(report_path)), "doctor-%s-%s.json" % (board, stamp))


def save_curve(report_path, report, when=None):
    """Keep the range step's points (the calibration curve), the touch and probe findings on the
    PC, next to the report; returns the path, or None when no such step ran."""
    keep = [r for r in report.results if r.get("doctor") in ("range", "touch", "probe") and r.get("data")]
    if not keep:
        return None
    path = curve_path(report_path, report.results, when, report.board)
    curve = [r["data"] for r in keep if r["doctor"] == "range"]
    doc = {"port": report.port, "saved": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when)),
           "board": board_name(report.results, report.board),
           "range": curve[0] if curve else None,
           "touch": [r["data"] for r in keep if r["doctor"] == "touch"],
           "probe": [r["data"] for r in keep if r["doctor"] == "probe"],
           "results": report.results}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return path


def run_doctor(port, report_path, out=None, force=False, steps=STEPS, restart=True, timeout=TIMEOUT_S,
               cards=RANGE_CARDS):
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
            f.write(doctor_script(steps, cards=cards))
        out.write("spit doctor: checking the board at %s (the referee pauses; it restarts at the end)\n" % port)
        out.flush()
        try:
            run_mpremote(port, ["run", script], report.feed, timeout=timeout)
        except FlashError as e:
            report.other.append(str(e))
    finally:
        os.remove(script)
        kept = save_curve(report_path or "doctor-report.txt", report) if report.results else None
        if kept:
            report.kept = kept
            out.write("spit doctor: the range curve, touch and probe findings are kept in %s\n" % kept)
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
