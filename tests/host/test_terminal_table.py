"""`spit play`: two scripted players play a whole game at the emulated table's keyboard, through a
pty, and the board's session log re-judges with 0 mismatches (issue 29)."""

import os
import pty
import subprocess
import sys

import pytest

from host_tools import replay
from host_tools.play.hardware import canned_sounds, sound_word

from support.play_players import Players, play_game, parse_screen, finish

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _spawn(argv):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "host_tools"] + argv, cwd=ROOT, stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True)
    os.close(slave)
    return proc, master


def _play_whole_game(tmp_path, ruleset, options):
    log = str(tmp_path / "game.spitlog")
    argv = ["play", "--ruleset", ruleset, "--speed", "4", "--no-colour", "--log", log]
    for k, v in options.items():
        argv += ["--option", "%s=%s" % (k, v)]
    proc, fd = _spawn(argv)
    phases = []

    def seen(s):
        if not phases or phases[-1] != s["phase"]:
            phases.append(s["phase"])
    try:
        last, screen = play_game(fd, Players(ruleset, options), limit_s=240, on_frame=seen)
        if not parse_screen(last)["over"]:
            os.write(fd, b"Q")   # (quit: the log is kept, and the test shows where it stopped)
        rc = finish(proc, screen, 120)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(fd)
    return rc, parse_screen(last), phases, screen.text(), log


@pytest.mark.parametrize("ruleset,options", [("classic", {"rounds_in_a_row": 1}), ("speed", {})])
def test_two_scripted_players_play_a_whole_game(tmp_path, ruleset, options):
    rc, last, phases, text, log = _play_whole_game(tmp_path, ruleset, options)
    assert last["over"], "the game did not end:\n" + text[-3000:]
    assert "play" in phases
    assert rc == 0, text[-2000:]
    assert "re-judged: 0 mismatches" in text
    with open(log) as f:
        lines = f.read().splitlines()
    rep = replay.rejudge_lines(lines)
    assert rep.mismatches == []
    verdicts = [__import__("json").loads(x) for x in lines]
    names = [v.get("verdict") for v in verdicts]
    assert "game_over" in names and names.count("accept") >= 5
    # Every card the screen said was landed went through the firmware: the log has the landings.
    assert any(v.get("verdict") == "spit" for v in verdicts)


def test_a_game_of_several_rounds_with_ready(tmp_path):
    """Classic to the end: after each round both players press READY (their STUCK key)."""
    rc, last, phases, text, log = _play_whole_game(tmp_path, "classic", {})
    assert last["over"], text[-3000:]
    assert any(p.startswith("next round") for p in phases), phases
    assert rc == 0 and "re-judged: 0 mismatches" in text


def test_screen_shows_leds_sounds_tops_and_cards(tmp_path):
    """One frame has each part a player needs: LED zones by colour, sounds as words, tops, cards."""
    proc, fd = _spawn(["play", "--no-colour", "--log", str(tmp_path / "x.spitlog")])
    from support.play_players import PtyScreen
    screen = PtyScreen(fd)
    frame = ""
    try:
        import time
        t_end = time.monotonic() + 60
        while time.monotonic() < t_end:
            screen.read(0.1)
            frame = screen.frame()
            s = parse_screen(frame) if frame else None
            if s and "Sound  0:" in frame and s["phase"] == "play" and s["tops"] and min(t[0] for t in s["tops"]) >= 0:
                break
        os.write(fd, b"Q")
        finish(proc, screen, 60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(fd)
    s = parse_screen(frame)
    assert "PILE0 [" in frame and "SPIT [" in frame and "PLAYER1 [" in frame
    assert all(t[0] >= 0 for t in s["tops"]), frame        # the spit cards are up
    assert len(s["cards"][0]) == 5 and len(s["cards"][1]) == 5
    assert "SPIT" in frame and "Referee:" in frame
    # Quitting keeps the log (re-judged, nothing lost).
    assert "re-judged: 0 mismatches" in screen.text()


def test_keys_land_by_name_and_refuse_what_a_player_does_not_hold():
    from host_tools.play.table import PlayTable
    from host_tools.play.keys import Keyboard
    from spit.cards import format_card
    t = PlayTable("classic", None, 3, "vboard")
    try:
        t.advance(2600 * 1000)               # past the countdown: the spit cards are up
        kb = Keyboard(t)
        card = t.sources(0)[0]
        for ch in "/0 %s 1\r" % format_card(card):
            kb.key(ch)
        assert t.sources(0)[0] != card       # it left the stock
        t.advance(t.now + 200 * 1000)
        assert any(f.get("card") == format_card(card) for _t, _n, f in t.said if f.get("pile") == 1)
        other = t.sources(1)[1]
        for ch in "/0 %s 0\r" % format_card(other):
            kb.key(ch)
        assert "player 0 has no %s face up" % format_card(other) in t.notes[-1][1]
        for ch in "/9 7H x\r":
            kb.key(ch)
        assert "type /PLAYER CARD PILE" in t.notes[-1][1]
    finally:
        t.finish()


def test_sounds_are_named_from_the_firmware_source():
    sounds = canned_sounds()
    assert sound_word(2600, sounds).startswith("blip") and sounds[2600] == "ACCEPT"
    assert "illegal" in sound_word(330, sounds) and "spit" in sound_word(1760, sounds)
    assert sound_word(123, sounds) == "tone 123 Hz"


def test_a_blocked_rounds_answer_opens_the_slaps_on_the_screen():
    """R-ROUND-2: after a blocked round the referee asks player 0's stock count; the answer (pads,
    then STUCK) opens the slaps without a verdict of its own.  The table must then say "slap",
    not keep asking (the scripted players waited for ever on a question already answered), and
    a card judged while the question is open (early) must not hide it."""
    from spit import verdicts as V
    from host_tools.play.table import PlayTable, ANSWER_JUDGED_US
    t = PlayTable("classic", None, 3, "vboard")
    try:
        t.advance(2600 * 1000)
        sim = t.sim
        q = {"verdict": "question", "ask": "stock_left", "player": 0, "max": 3}
        sim.phase = "question"
        sim.end_reason = V.R_BLOCKED
        t.said.append((t.now, "question", q))
        t.said.append((t.now, "early", {"verdict": "early", "pile": 0, "card": "6S"}))
        assert t.question() == q
        t.pad(0, 0)
        t.stuck(0)
        t.advance(t.now + 2 * ANSWER_JUDGED_US)
        assert t.phase() == "slap" and t.question() is None
    finally:
        t.finish()
