"""Tests of `spit replay`: timeline text, --json, device-verdict mismatches, bad logs, the HTML page
(well-formed, self-contained, marks present) and, when Chromium is installed, a headless render.

The bundled sample (examples/sample.spitlog) must re-judge to exactly tests/data/sample.verdicts.jsonl
(like a perft file).  After an intentional engine change, regenerate it (see examples/make_sample.py):
    .venv/bin/python examples/make_sample.py
    .venv/bin/python -m host_tools replay examples/sample.spitlog --json > tests/data/sample.verdicts.jsonl
"""

import io
import json
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser

import pytest

from host_tools import replay
from spit.log import rejudge
from support.cli import run  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


try:
    from spit.words import items_json  # noqa: E402
except ImportError:
    from spit.verdicts import items_json  # noqa: E402

SAMPLE = os.path.join(ROOT, "examples", "sample.spitlog")
EXPECTED = os.path.join(ROOT, "tests", "data", "sample.verdicts.jsonl")
CHROMIUM = "/usr/bin/chromium"

HEADER = '{"spitlog": 1, "ruleset": "classic", "options": {"tie_window_us": 1000, "countdown_ms": 1500}, ' \
         '"counts": [26, 26]}'
SMALL = [
    HEADER,
    '{"t": 1600000, "ev": "card", "pile": 0, "card": "7H"}',
    '{"t": 1600500, "ev": "card", "pile": 1, "card": "KS"}',
    '{"t": 2000000, "ev": "touch", "pile": 0}',
    '{"t": 2000300, "ev": "touch", "pile": 0}',
    '{"t": 2010000, "ev": "card", "pile": 0, "card": "8H"}',
    '{"t": 2030000, "ev": "card", "pile": 0, "card": "8C"}',
    '{"t": 2400000, "ev": "card", "pile": 1, "card": "5D"}',
    '{"t": 2500000, "ev": "card", "pile": 1, "card": "QD"}',
    '{"t": 2600000, "ev": "card", "pile": 1, "card": "KC"}',
    '{"t": 3000000, "ev": "tick"}',
]


def write_log(tmp_path, lines, name="game.spitlog", newline_at_end=True):
    path = tmp_path / name
    path.write_text("\n".join(lines) + ("\n" if newline_at_end else ""), encoding="utf-8")
    return str(path)


# --- the text timeline ---

def test_timeline_of_a_small_log(tmp_path):
    code, out, err = run(["replay", write_log(tmp_path, SMALL)])
    assert code == 0, err
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["0:00.000", "ROUND", "1", "starts", "cards", "26", "|", "26"]
    assert re.search(r"^ *0:01\.600  pile 0  SPIT 7H .* tops: 7H \| --$", out, re.M)
    assert re.search(r"^ *0:02\.000  pile 0  ACCEPT 8H +tops: 8H \| KS$", out, re.M)
    assert ("0:02.000  pile 0  TIE 8C vs 8H  (closer than the tie window: 0.300 ms apart, the window is 1.0 ms; "
            "8H's read came 9.7 ms after 8C's touch: both cards were on the pile when the tag answered; "
            "8H stays on top, 8C is judged against it)") in out
    # the tied card's own verdict says what happened to it, with no second LATE for it
    assert re.search(r"0:02\.000  pile 0    -> 8C fit only the card before 8H: 8C takes it back +tops: 8H \| KS", out)
    assert "LATE 8C" not in out
    assert re.search(r"0:02\.400  pile 1  ILLEGAL 5D  \(does not fit KS\) +tops: 8H \| KS", out)
    assert re.search(r"0:02\.500  pile 1  ACCEPT QD +tops: 8H \| QD", out)
    assert re.search(r"0:02\.600  pile 1  ACCEPT KC  \(race: \+100\.0 ms, fits too\) +tops: 8H \| KC", out)
    assert "summary: 1 round, 3 plays, 2 races (1 late), 1 tie, 1 illegal, 0 early, 0 spit calls, 0 errors" in out
    assert "no winner yet: the log ends in round 1" in out


def test_sample_timeline_tells_the_story():
    code, out, err = run(["replay", SAMPLE])
    assert code == 0, err
    for needle in ("SPIT CALL", "EARLY", "ILLEGAL", "LATE", "TIE", "player 1 STUCK", "ROUND 1 ENDS  a player went out",
                   "player 1 takes pile 0", "ROUND 2 starts", "GAME OVER  player 0 wins (no cards left)",
                   "winner: player 0 (no cards left)", "device verdicts: 173 logged, 0 mismatches"):
        assert needle in out


def test_python_dash_m_host_tools_runs_replay():
    proc = subprocess.run([sys.executable, "-m", "host_tools", "replay", "--quiet", SAMPLE], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("summary: 2 rounds")


def test_help_reads_well():
    code, out, _ = run(["--help"])
    assert code == 0
    assert "replay" in out and "examples:" in out
    code, out, _ = run(["replay", "--help"])
    assert code == 0
    assert "exit codes:" in out and "--html OUT" in out and "MISMATCH" in out


# --- JSON and the bundled sample (perft-style) ---

def test_json_is_the_engines_verdicts(tmp_path):
    path = write_log(tmp_path, SMALL)
    code, out, _ = run(["replay", "--json", path])
    assert code == 0
    expected = [items_json(items) for _line, items in rejudge(SMALL).verdicts]
    assert out.splitlines() == expected
    assert [json.loads(line)["verdict"] for line in out.splitlines()][:4] == [
        "round_start", "countdown", "spit", "spit"]


def test_sample_rejudges_to_the_expected_verdicts():
    with open(EXPECTED, encoding="utf-8") as f:
        expected = f.read().splitlines()
    code, out, err = run(["replay", "--json", SAMPLE])
    assert code == 0, err
    assert out.splitlines() == expected, "engine verdicts changed; see this file's docstring to regenerate"


def test_sample_is_plain_and_covers_the_incidents():
    with open(SAMPLE, encoding="utf-8") as f:
        objs = [json.loads(line) for line in f]
    assert objs[0]["spitlog"] == 1 and objs[0]["ruleset"] == "classic"
    events = [o for o in objs if "ev" in o]
    assert 150 <= len(events) <= 400
    kinds = {o["ev"] for o in events}
    assert {"touch", "card", "stuck", "slap", "ready", "tick"} <= kinds
    with open(EXPECTED, encoding="utf-8") as f:
        verdicts = {json.loads(line)["verdict"] for line in f}
    assert {"accept", "spit", "late", "tie", "illegal", "early", "spit_call", "round_end", "pile_won",
            "round_start", "game_over"} <= verdicts


# --- device verdicts vs the re-judge ---

def test_wrong_device_verdict_is_flagged(tmp_path):
    device = [items_json(items) for _line, items in rejudge(SMALL).verdicts]
    tie = next(i for i, line in enumerate(device) if '"tie"' in line)
    device[tie] = '{"t": 2000300, "verdict": "accept", "pile": 0, "card": "8c"}'   # wrong: it was a tie
    del device[tie + 1]                                                            # and the late is missing
    path = write_log(tmp_path, SMALL + device)
    line_no = len(SMALL) + tie + 1
    code, out, err = run(["replay", path])
    assert code == replay.EXIT_MISMATCH
    flagged = [m for m in out.splitlines() if m.startswith("MISMATCH")]
    late_line = next(line for line, items in rejudge(SMALL).verdicts if items[1][1] == "late")
    assert flagged == [
        "MISMATCH line %d: device said accept card=8C pile=0, re-judge says tie card=8C dt_us=300 pile=0 winner=8H"
        % line_no,
        "MISMATCH line %d: device said nothing, re-judge says late card=8C dt_us=300 pile=0 top=8H" % late_line,
    ]
    assert "device verdicts: %d logged, 2 mismatches" % len(device) in out
    code, out, err = run(["replay", "--json", path])
    assert code == replay.EXIT_MISMATCH
    assert "MISMATCH line" in err and "MISMATCH" not in out


def test_matching_device_verdicts_pass(tmp_path):
    device = [items_json(items) for _line, items in rejudge(SMALL).verdicts]
    code, out, _ = run(["replay", "--quiet", write_log(tmp_path, SMALL + device)])
    assert code == 0
    assert "MISMATCH" not in out and "device verdicts: %d logged, 0 mismatches" % len(device) in out


def test_sample_with_one_changed_device_verdict(tmp_path):
    with open(SAMPLE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = next(i for i, line in enumerate(lines) if '"verdict": "late"' in line)
    lines[i] = lines[i].replace('"verdict": "late"', '"verdict": "accept"')
    code, out, _ = run(["replay", "--quiet", write_log(tmp_path, lines)])
    assert code == replay.EXIT_MISMATCH
    flagged = [m for m in out.splitlines() if m.startswith("MISMATCH")]
    assert len(flagged) == 1
    assert flagged[0].startswith("MISMATCH line %d: device said accept " % (i + 1))
    assert "re-judge says late " in flagged[0]


# --- bad logs ---

def test_malformed_and_unknown_cards_are_reported_and_replay_continues(tmp_path):
    lines = list(SMALL)
    lines[3] = '{"t": 2000000, "ev": "touch", "pile": 0'              # line 4: broken JSON
    lines.insert(6, '{"t": 2020000, "ev": "card", "pile": 0, "card": "ZZ"}')  # line 7: no such card
    lines.insert(7, '{"t": 2020000, "ev": "wiggle"}')                   # line 8: unknown event
    code, out, err = run(["replay", write_log(tmp_path, lines)])
    assert code == replay.EXIT_BAD_LINES
    errs = err.splitlines()
    assert len(errs) == 3
    assert re.match(r".*game\.spitlog: line 4: not valid JSON", errs[0])
    assert errs[1].endswith("game.spitlog: line 7: unknown card code 'ZZ'")
    assert re.match(r".*game\.spitlog: line 8: unknown event 'wiggle'", errs[2])
    assert "ERROR unknown_card: a card code that names no card  pile 0  (log line 7)" in out
    assert "ACCEPT KC" in out   # the replay went on to the end


def test_truncated_last_line(tmp_path):
    lines = SMALL[:-1] + ['{"t": 3000000, "ev": "ca']
    code, out, err = run(["replay", write_log(tmp_path, lines, newline_at_end=False)])
    assert code == replay.EXIT_BAD_LINES
    assert err.splitlines() == ["%s: line 11: truncated last line (the log ends mid-line): %s"
                                % (tmp_path / "game.spitlog", lines[-1])]
    assert "ACCEPT KC" in out


def test_missing_file_is_one_line_and_exit_1(tmp_path):
    missing = str(tmp_path / "logs" / "x.spitlog")
    code, out, err = run(["replay", missing])
    assert code == replay.EXIT_ERROR
    assert out == ""
    assert err == "spit replay: %s: no such file\n" % missing


def test_empty_file_and_directory(tmp_path):
    empty = write_log(tmp_path, [], newline_at_end=False)
    code, _, err = run(["replay", empty])
    assert code == 1 and err == "spit replay: %s: empty log (no header line)\n" % empty
    code, _, err = run(["replay", str(tmp_path)])
    assert code == 1 and len(err.splitlines()) == 1 and "is a directory" in err
    garbage = write_log(tmp_path, ["PK\x03\x04 not a log"], name="x.zip")
    code, out, err = run(["replay", garbage])
    assert (code, out) == (1, "")
    assert err == ("spit replay: %s: not a session log: it is binary data, not JSON Lines text (starts with bytes "
                   "50 4b 03 04 20 6e 6f 74; looks like a zip archive)\n" % garbage)


def test_progress_only_on_a_tty(tmp_path):
    seen = []
    lines = [HEADER] + ['{"t": %d, "ev": "tick"}' % (i * 1000) for i in range(1, 3 * replay.PROGRESS_EVERY)]
    replay.rejudge_lines(lines, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(replay.PROGRESS_EVERY, len(lines)), (2 * replay.PROGRESS_EVERY, len(lines))]
    assert replay._progress_printer(io.StringIO(), "x") is None


# --- the HTML page ---

class _Checker(HTMLParser):
    """Checks that every non-void element is closed in order."""
    VOID = {"meta", "br", "img", "hr", "input", "link"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> (open: %s)" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()


def html_of(tmp_path, log):
    out = str(tmp_path / "page.html")
    code, stdout, err = run(["replay", "--quiet", "--html", out, log])
    assert "wrote %s" % out in stdout
    with open(out, encoding="utf-8") as f:
        return code, f.read(), out


def test_html_is_well_formed_self_contained_and_has_the_marks(tmp_path):
    code, page, _ = html_of(tmp_path, SAMPLE)
    assert code == 0
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", page.replace("http://www.w3.org/2000/svg", ""))
    # self-contained: inline scripts only (the stepper), nothing fetched
    assert "<script src" not in page and "<link" not in page and "@import" not in page and "url(" not in page
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) >= 3
    titles = []
    for svg in svgs:
        root = ET.fromstring(svg)   # each SVG is well-formed XML
        titles += [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    for colour in ("#2e9d4a", "#d7263d", "#f08c00", "#7b2cbf", "#2f6fde"):
        assert colour in page
    joined = "\n".join(titles)
    for needle in ("ACCEPT", "SPIT 8S", "LATE", "TIE", "ILLEGAL", "EARLY", "SPIT CALL", "ROUND 1 ENDS", "GAME OVER"):
        assert needle in joined
    assert page.count('class="rcard"') == 2   # 2 rounds
    assert "P1 &#8592; pile 0 (24)" in page and "22 | 30" in page


def test_html_escapes_text(tmp_path):
    lines = list(SMALL)
    lines.insert(3, '{"t": 1700000, "ev": "card", "pile": 0, "card": "<b>&"}')
    code, page, _ = html_of(tmp_path, write_log(tmp_path, lines, name="a<b>&c.spitlog"))
    assert code == replay.EXIT_BAD_LINES
    assert "<b>&" not in page and "&lt;b&gt;&amp;" in page
    for svg in re.findall(r"<svg .*?</svg>", page, re.S):
        ET.fromstring(svg)


def _png_pixels(path):
    """Decode an 8-bit RGB/RGBA non-interlaced PNG with zlib: (width, height, rows of bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = bpp = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed (CI installs Debian chromium)")
def test_html_renders_in_headless_chromium(tmp_path):
    _, _, page = html_of(tmp_path, SAMPLE)
    png = str(tmp_path / "page.png")
    profile = str(tmp_path / "profile")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--user-data-dir=" + profile, "--screenshot=" + png, "--window-size=1400,3000",
                           "file://" + page], capture_output=True, text=True, timeout=120)
    assert os.path.exists(png), proc.stderr[-2000:]
    assert os.path.getsize(png) > 20000
    width, height, bpp, rows = _png_pixels(png)
    assert (width, height) == (1400, 3000)
    colours = set()
    for row in rows[::7]:
        for x in range(0, width * bpp, bpp * 5):
            colours.add(row[x:x + 3])
    assert len(colours) > 50, "the screenshot looks blank"
    # The verdict colours made it to the screen: accept green and late orange pixels exist.
    def near(target):
        return any(all(abs(c[i] - target[i]) < 30 for i in range(3)) for c in colours)
    assert near((0x2e, 0x9d, 0x4a)) and near((0xf0, 0x8c, 0x00))


def test_a_race_delta_t_one_microsecond_off_is_a_mismatch(tmp_path):
    """Device verdict texts are compared with the re-judge's; a race's dt_us is part of the text."""
    device = [items_json(items) for _line, items in rejudge(SMALL).verdicts]
    late = next(i for i, line in enumerate(device) if '"late"' in line)
    device[late] = device[late].replace('"dt_us": 300', '"dt_us": 301')
    code, out, _ = run(["replay", "--quiet", write_log(tmp_path, SMALL + device)])
    assert code == replay.EXIT_MISMATCH
    assert [m for m in out.splitlines() if m.startswith("MISMATCH")] == [
        "MISMATCH line %d: device said late card=8C dt_us=301 pile=0 top=8H, re-judge says late card=8C dt_us=300 "
        "pile=0 top=8H" % (len(SMALL) + late + 1)]


def test_long_logs_replay_in_constant_memory(tmp_path):
    """The replay keeps no per-line state: memory is bounded caches (parsed event texts, verdict texts)
    plus a few hundred bytes per round, far from the log's size (30k events: 2.7 MB of log)."""
    from bench.long_session import write_long_session
    import tracemalloc
    peaks = []
    for events in (3000, 30000):
        path = tmp_path / ("long-%d.spitlog" % events)
        with open(path, "w", encoding="utf-8") as f:
            write_long_session(f, events)
        tracemalloc.start()
        with open(path, encoding="utf-8") as f:
            rep = replay.replay_lines(f)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert rep.n_mismatches == 0 and rep.device_verdicts > events // 3
    assert peaks[1] < 2000000 and peaks[1] < 6 * peaks[0], peaks
