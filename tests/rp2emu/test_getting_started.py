"""docs/getting-started.md, run as a newcomer runs it: every command of its ``console`` blocks, in
order, against the emulated Pico (`spit emu ... --table` in a pty is terminal 1; the rest run as in
terminal 2), the people at the table answering `spit doctor` with terminal 1's keys and two scripted
players playing the first game there; it ends with the pulled log re-judged, 0 mismatches.
Skipped, with the reason, without the firmware image (../shared/rp2/) or node."""

import os
import pty
import re
import subprocess
import sys
import threading
import time

import pytest

from host_tools.rp2emu.emulator import why_unavailable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "getting-started.md")
REASON = why_unavailable()
GAME_MARK = "<!-- test: the first game"


def page_steps(path=PAGE):
    """``[("run", command) | ("game", None)]`` in the page's order: each ``$ `` line of a
    ```console block, and the first-game mark."""
    steps = []
    block = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.rstrip("\n")
            if block is None:
                if s.strip().startswith("```"):
                    block = s.strip()[3:].strip()
                elif s.startswith(GAME_MARK):
                    steps.append(("game", None))
                continue
            if s.strip().startswith("```"):
                block = None
                continue
            if block == "console" and s.startswith("$ "):
                steps.append(("run", s[2:].strip()))
    return steps


def test_page_has_commands_in_order():
    """(No emulator needed.) The page's commands: emu, flash, doctor, the game, pull, replay."""
    steps = page_steps()
    text = " | ".join(c or "GAME" for _, c in steps)
    order = ["spit emu", "spit flash", "spit doctor", "GAME", "spit logs pull", "spit replay"]
    at = [text.find(w) for w in order]
    assert -1 not in at and at == sorted(at), text


class Terminal1:
    """A program on a pty, its output read by a thread; ``frame()`` is what its screen shows."""

    def __init__(self, command, cwd, env):
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from support.play_players import PtyScreen
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(["bash", "-c", "exec " + command], cwd=cwd, env=env, stdin=slave,
                                     stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.screen = PtyScreen(self.master)
        self.lock = threading.Lock()
        self.done = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        while not self.done:
            with self.lock:
                got = self.screen.read(0.05)
            if got is None:
                break

    def frame(self):
        with self.lock:
            return self.screen.frame()

    def board_said(self, word="spit-referee:"):
        """The distinct lines of everything shown that hold ``word`` (the board's own words)."""
        with self.lock:
            text = ANSI.sub("", self.screen.text())
        seen = []
        for line in text.replace(CLEAR_MARK, "\n").split("\n"):
            line = line.strip()
            if word in line and line not in seen:
                seen.append(line)
        return seen

    def keys(self, text):
        os.write(self.master, text.encode())

    def stop(self):
        try:
            self.keys("Q")
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self.done = True
        self.thread.join(5)
        with self.lock:
            text = self.screen.text()
        os.close(self.master)
        return text


ANSI = re.compile(r"\x1b\[[0-9;]*m")
CLEAR_MARK = "\x1b[H\x1b[2J"
KEYS = ({"stuck": "a", "pads": "zx"}, {"stuck": "j", "pads": "m,"})


def _doctor_person(term, prompt):
    """What a person at terminal 1 types for one doctor prompt."""
    m = re.match(r"place a card on pile (\d)", prompt)
    if m:
        return "/0 7H %s\r" % m.group(1)
    m = re.match(r"put a second card on pile (\d)", prompt)
    if m:
        return "/0 QD %s\r" % m.group(1)
    m = re.match(r"add card (\d+) of \d+ to pile (\d)", prompt)
    if m:   # a different card each time: 2C, 3C, ... (the range step's pile)
        return "/0 %sC %s\r" % ("23456789TJQK"[int(m.group(1)) - 1], m.group(2))
    m = re.match(r"take the cards? off pile (\d)", prompt)
    if m:
        return "/off %s\r" % m.group(1)
    m = re.match(r"press player (\d)'s (STUCK|pad of pile (\d))", prompt)
    if m:
        k = KEYS[int(m.group(1))]
        return k["stuck"] if m.group(2) == "STUCK" else k["pads"][int(m.group(3))]
    m = re.match(r"is zone (\w+) lit white", prompt)
    if m:
        time.sleep(0.5)
        line = ANSI.sub("", term.frame()).split("LEDs", 1)[-1].split("\n", 1)[0]
        leds = dict(re.findall(r"(\w+) \[(\w+)\s*\]", line))
        lit = leds.get(m.group(1)) == "white" and all(v == "off" for z, v in leds.items() if z != m.group(1))
        return "a" if lit else "z"
    if prompt.startswith("did you hear"):
        time.sleep(0.3)
        sound = [ln for ln in term.frame().split("\n") if ln.startswith("Sound")]
        return "a" if sound and "rising chirp" in sound[0] else "z"
    return ""


def _run_doctor(command, cwd, env, term):
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    out = []
    for line in proc.stdout:
        out.append(line)
        if line.startswith(">> "):
            keys = _doctor_person(term, line[3:].strip())
            if keys:
                time.sleep(0.2)
                term.keys(keys)
    proc.wait(timeout=900)
    return proc.returncode, "".join(out)


def _play(term, ruleset, limit_s=900, sent=None):
    """Two scripted players on terminal 1 until the game is over; ``sent`` collects
    ``(table time, phase, keys)`` of every keystroke batch (for a failure's message)."""
    from support.play_players import Players, parse_screen
    players = Players(ruleset)
    t_end = time.monotonic() + limit_s
    last = ""
    while time.monotonic() < t_end:
        frame = term.frame()
        if frame and frame != last:
            last = frame
            s = parse_screen(frame)
            if s["over"]:
                return s
            keys = players.keys(s)
            if keys:
                if sent is not None:
                    sent.append((s["t"], s["phase"], keys))
                term.keys(keys)
        time.sleep(0.05)
    return parse_screen(last)


@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_every_command_of_the_page_in_order(tmp_path):
    port = str(tmp_path / "pico")
    env = dict(os.environ, PATH=os.path.join(ROOT, ".venv", "bin") + os.pathsep + os.environ.get("PATH", ""),
               SPIT_BOARD_WAIT_S="5", PYTHONPATH=ROOT)
    term = None
    ran = []
    sent = []
    try:
        for kind, command in page_steps():
            if kind == "game":
                assert term is not None
                s = _play(term, "speed", sent=sent)
                assert s["over"], "the first game did not end:\n" + term.frame()
                ran.append("GAME")
                continue
            command = command.replace("/tmp/pico", port)
            ran.append(command)
            if command.startswith("spit emu") and "--table" in command:
                term = Terminal1(command, str(tmp_path), env)
                deadline = time.monotonic() + 120
                while not os.path.exists(port) and time.monotonic() < deadline:
                    time.sleep(0.2)
                assert os.path.exists(port), term.frame()
                continue
            if command.startswith("spit doctor"):
                rc, out = _run_doctor(command, str(tmp_path), env, term)
                assert rc == 0, out
                assert "0 failed" in out and "the referee is running again" in out, out
                continue
            cwd = ROOT if command.startswith("bash scripts/") else str(tmp_path)
            r = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=1200)
            assert r.returncode == 0, "%s\n%s\n%s\nterminal 1 shows:\n%s\nthe players' last keys: %r\nthe board said: %s" % (
                command, r.stdout[-3000:], r.stderr[-3000:], term.frame() if term is not None else "-", sent[-12:],
                "\n".join(term.board_said()[-10:]) if term is not None else "-")
            if command.startswith("spit replay"):
                assert "0 mismatches" in r.stdout and "winner" in r.stdout, r.stdout
                assert os.path.getsize(tmp_path / "first-game.html") > 1000
    finally:
        if term is not None:
            text = term.stop()
            with open(os.environ.get("SPIT_TEST_TERMINAL1", str(tmp_path / "terminal1.txt")), "w") as f:
                f.write(text)
            print("terminal 1's output: %s" % (tmp_path / "terminal1.txt"))
    assert ran[-1].startswith("spit replay") and "GAME" in ran
