"""``spit watch``: the live stream read as docs/live-protocol.md says, and the page end to end in
headless Chromium against the virtual board (the real firmware, ``spit sim --mode firmware``):
every verdict of a game appears on the page, in order, and a page opened mid-game shows the right
tops at once.  Chromium tests are skipped when /usr/bin/chromium is missing.
"""

import json
import os
import shutil
import subprocess
import time
import urllib.request

import pytest

from host_tools.watch import Watch
from host_tools.cli.watch import paced, pump
from support.watch import CHROMIUM, Served, assert_pages, log_objects, open_page, wait_for, watch_pages  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


HEADER = {"spitlog": 1, "ruleset": "classic", "options": {"tie_window_us": 3000, "countdown_ms": 2000},
          "counts": [26, 26]}


def proto(seq, obj, dev=1000):
    return json.dumps(dict({"seq": seq, "dev": dev}, **obj))


def test_protocol_lines_give_the_tops_and_flashes():
    w = Watch()
    events = []
    for i, obj in enumerate([HEADER, {"t": 0, "verdict": "round_start", "round": 1, "cards0": 26, "cards1": 26},
                             {"t": 2100000, "verdict": "spit", "pile": 0, "card": "7H", "player": 0},
                             {"t": 2200000, "verdict": "spit", "pile": 1, "card": "KS", "player": 1},
                             {"t": 3000000, "verdict": "accept", "pile": 0, "card": "8H"},
                             {"t": 3016500, "verdict": "tie", "pile": 0, "card": "8C", "winner": "8H", "dt_us": 16500},
                             {"t": 3016500, "verdict": "late", "pile": 0, "card": "8C", "dt_us": 16500, "top": "8H"},
                             {"t": 3500000, "verdict": "illegal", "pile": 1, "card": "5D", "top": "KS"}]):
        events += w.feed(proto(i + 1, obj))
    s = w.state()
    assert s["tops"] == ["8H", "KS"] and s["sizes"] == [2, 1] and s["round"] == 1
    flashes = [e["flash"] for e in events if e["type"] == "verdict" and e["flash"].get("big")]
    assert [f["big"] for f in flashes] == ["TIE", "ILLEGAL"], "no LATE flash for the card the TIE showed"
    assert flashes[0]["dt"] == "16.5 ms" and flashes[0]["why"].startswith("the race rule")
    assert flashes[1]["why"] == "5D does not fit KS" and flashes[1]["pile"] == 1


def test_a_gap_in_seq_counts_dropped_lines_and_the_banner_restarts():
    w = Watch()
    w.feed(proto(0, {"live": 1, "firmware": "0.1.0", "board": "pico", "session": 3}))
    w.feed(proto(1, {"status": "waiting", "session": 3, "round": 0, "tops": [None, None], "cards": [26, 26]}))
    w.feed(proto(5, {"status": "play", "session": 3, "round": 2, "tops": ["5S", "KH"], "cards": [14, 17]}))
    assert w.state()["dropped"] == 3
    assert w.state()["tops"] == ["5S", "KH"] and w.state()["round"] == 2 and w.state()["phase"] == "play"
    w.feed(proto(9, {"status": "play", "tops": ["6S", "KH"]}, dev=5) .replace('"dev": 5', '"dev": 5, "dropped": 2'))
    assert w.state()["dropped"] == 6   # seq 6, 7, 8 not seen (2 of them the device dropped)
    w.feed("spit-referee 0.1.0 board=pico")
    w.feed(proto(0, {"live": 1}))
    assert w.state()["dropped"] == 6 and w.state()["texts"][-1] == "spit-referee 0.1.0 board=pico"


def test_questions_and_answers_reach_the_state():
    w = Watch()
    w.feed(json.dumps(HEADER))
    w.feed(json.dumps({"t": 9000000, "verdict": "question", "ask": "went_out", "player": 1, "max": 1}))
    assert w.state()["question"]["text"].startswith("player 1: did you go out?")
    w.feed(json.dumps({"t": 9400000, "ev": "answer", "player": 1, "value": 2}))
    w.feed(json.dumps({"t": 9400000, "verdict": "error", "reason": "bad_answer", "player": 1, "value": 2}))
    assert w.state()["question"]["answer"] is None, "a refused answer is not shown as the answer"
    w.feed(json.dumps({"t": 9500000, "ev": "answer", "player": 1, "value": 0}))
    assert w.state()["question"]["answer"] == "0: player 0 went out"


def test_game_over_has_the_summary_and_the_replay_is_there():
    from host_tools.sim.run import run_game
    w = Watch()
    for line in run_game("own_deck", None, seed=3).lines:
        w.feed(line)
    over = w.state()["game_over"]
    assert over["text"].startswith("GAME OVER  player")
    assert any(line.startswith("winner: player") for line in over["summary"])
    assert w.state()["phase"] == "over"


def test_paced_gives_each_line_when_its_time_comes():
    now = [0.0]
    lines = [json.dumps(HEADER), json.dumps({"t": 1000000, "ev": "touch", "pile": 0}),
             json.dumps({"t": 500000, "verdict": "spit", "pile": 0, "card": "7H"}),
             json.dumps({"t": 3000000, "ev": "tick"})]
    seen = []
    for _line in paced(lines, speed=2.0, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s)):
        seen.append(round(now[0], 3))
    assert seen == [0.0, 0.5, 0.5, 1.5]


# --- end to end in headless Chromium ---

def firmware_game_lines(seconds=20, seed=1):
    """A game of the real firmware on the virtual board (spit sim --mode firmware)."""
    from host_tools.sim.run import run_game
    from host_tools.sim.firmware import firmware_port
    return run_game("classic", None, seed=seed, port_factory=firmware_port, max_minutes=seconds / 60.0).lines


needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed")


def virtual_board_stream(seconds=20, seed=1):
    """The live stream the firmware prints on the virtual board's console (spit watch --sim --mode firmware)."""
    import argparse
    from host_tools.cli.watch import sim_lines
    return sim_lines(argparse.Namespace(ruleset="classic", option=[], seed=seed, mode="firmware", seconds=seconds))


def test_the_virtual_boards_stream_is_the_protocol():
    lines = virtual_board_stream(seconds=8)
    assert lines[0].startswith('{"seq": 0, "dev": ') and '"live": 1' in lines[0]
    w = Watch()
    for line in lines:
        w.feed(line)
    assert w.state()["dropped"] == 0 and w.state()["ruleset"] == "classic" and any(w.state()["tops"])


@needs_chromium
def test_every_verdict_of_the_virtual_board_reaches_the_page_in_order(tmp_path):
    lines = virtual_board_stream()
    verdicts = [v for v in log_objects(lines) if "verdict" in v]
    assert len(verdicts) > 30
    half = len(lines) // 2
    pages, tops_at = watch_pages(tmp_path, lambda s: pump(paced(lines[:half], speed=8.0), s.watch, s.hub),
                                 lambda s: pump(paced(lines[half:], speed=8.0), s.watch, s.hub))
    assert_pages(pages, tops_at, verdicts)


@needs_chromium
def test_the_emulated_picos_recorded_stream_reaches_the_page_in_order(tmp_path):
    """The live stream the real firmware printed on the emulated Pico's USB console (a classic game,
    tests/data/rp2_live_stream.txt: boot banner, hello, status lines, seq/dev on every line)."""
    with open(os.path.join(ROOT, "tests", "data", "rp2_live_stream.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    verdicts = [v for v in log_objects(lines) if "verdict" in v]
    assert len(verdicts) > 20
    half = next(i for i, line in enumerate(lines) if '"verdict": "spit"' in line) + 6
    pages, tops_at = watch_pages(tmp_path, lambda s: pump(paced(lines[:half], speed=8.0), s.watch, s.hub),
                                 lambda s: pump(paced(lines[half:], speed=8.0), s.watch, s.hub))
    assert_pages(pages, tops_at, verdicts)


def test_watch_command_serves_the_page_and_the_state(tmp_path):
    log = tmp_path / "g.spitlog"
    log.write_text("\n".join(firmware_game_lines(seconds=8)) + "\n", encoding="utf-8")
    spit = shutil.which("spit", path=os.path.join(ROOT, ".venv", "bin")) or "spit"
    proc = subprocess.Popen([spit, "watch", "--log", str(log), "--speed", "50", "--http", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[2]
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "EventSource('/events')" in page and 'name="viewport"' in page
        time.sleep(1.5)
        state = json.loads(urllib.request.urlopen(url + "state", timeout=10).read())
        assert state["ruleset"] == "classic" and any(state["tops"])
        replay_page = urllib.request.urlopen(url + "replay", timeout=30).read().decode()
        assert "<h2>Rounds</h2>" in replay_page
    finally:
        proc.terminate()
        proc.wait(10)


def test_watch_refuses_a_missing_port_and_a_missing_source(tmp_path):
    from support.cli import run
    code, _out, err = run(["watch", "--port", str(tmp_path / "nothing"), "--http", "0"])
    assert code == 1 and "no such port" in err
    code, _out, err = run(["watch", "--http", "0"])
    assert code == 2 and "give one source" in err
