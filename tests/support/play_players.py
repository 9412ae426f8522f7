"""Two scripted players at the emulated table's keyboard (`spit play`, `spit emu --table`), through a pty.

They read the screen as a person does (the text after the last clear-screen: pile tops, their
face-up cards, the phase, the referee's question) and type keys: pick a card that fits and land
it, fill a gap, press STUCK when nothing fits, slap when out, answer questions with pad presses
and STUCK, press READY for the next round.  Used by tests/host/test_terminal_table.py and tests/rp2emu/test_getting_started.py.
"""

import os
import re
import select
import time

from spit.cards import parse_card
from spit.rules import fits, make_ruleset

CLEAR = "\x1b[H\x1b[2J"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
KEYS = ({"pick": "12345", "land": "qwe", "stuck": "a", "pads": "zxc", "gap": "f"},
        {"pick": "67890", "land": "uio", "stuck": "j", "pads": "m,.", "gap": "k"})


def parse_screen(text):
    """The screen's facts: ``{"phase", "tops": [(card|-1, count)], "cards": [[card|-1]]*2,
    "left": [n, n], "question": (player, kind, max) or None, "said": [lines], "over": bool}``."""
    text = ANSI.sub("", text)
    lines = text.split("\n")
    out = {"phase": "", "tops": [], "cards": [[], []], "left": [0, 0], "question": None, "said": [],
           "over": False, "raw": text}
    for line in lines:
        if line.startswith("Spit referee"):
            m = re.search(r"t \d+:\d+\.\d+\s+(.*)$", line)
            out["phase"] = m.group(1).strip() if m else ""
        elif line.startswith("Center"):
            for card, n in re.findall(r"pile \d+: (\S+)\s+\((\d+)\)", line):
                out["tops"].append((-1 if card == "--" else parse_card(card), int(n)))
        elif line.startswith("Player "):
            p = int(line[7])
            part = line.split("cards ", 1)[1].split("spit pile")[0]
            out["cards"][p] = [-1 if c == "--" else parse_card(c) for c in re.findall(r"\S:\*?\s*(\S+)", part)]
            out["left"][p] = int(re.search(r"cards left (\d+)", line).group(1))
        elif line.startswith(">> QUESTION"):
            m = re.search(r"player (\d)", line)
            mx = re.search(r"\(0\.\.(\d+)\)", line)
            out["question"] = (int(m.group(1)), "went_out" if "go out" in line else "stock_left",
                               int(mx.group(1)) if mx else 1)
        elif line.startswith("  ") and re.match(r"\s+\d+:\d\d\.\d{3}", line):
            out["said"].append(line.strip())
    out["over"] = "game over" in out["phase"] or any("GAME OVER" in s for s in out["said"])
    return out


class Players:
    """Both players' decisions from one screen; ``keys(screen)`` returns what to type now."""

    def __init__(self, ruleset="classic", options=None):
        self.rules = make_ruleset(ruleset, options)
        self.last_said = None
        self.done_for = {}        # (what, key of the screen state) -> True: do not repeat
        self.went_out = [False, False]
        self.phase = None
        self.entered = 0

    def _once(self, what, state):
        k = (what, state)
        if k in self.done_for:
            return False
        self.done_for[k] = True
        return True

    def keys(self, s):
        phase = s["phase"]
        if phase != self.phase:          # a new phase: what was done in the last one may be done again
            self.phase = phase
            self.entered += 1
        said = (self.entered, tuple(s["said"][-3:]))
        state = (self.entered, tuple(tuple(c) for c in s["cards"]), tuple(s["tops"]))
        out = ""
        if s["over"]:
            return ""
        if s["question"] is not None:
            p, kind, most = s["question"]
            if self._once(("answer", p), said):
                n = (1 if self.went_out[p] else 0) if kind == "went_out" else min(s["left"][p], most)
                out += KEYS[p]["pads"][0] * n + KEYS[p]["stuck"]
            return out
        if phase.startswith("next round") or phase.startswith("waiting") or "READY" in phase:
            self.went_out = [False, False]
            for p in range(2):
                if self._once(("ready", p), self.entered):
                    out += KEYS[p]["stuck"]
            return out
        if phase.startswith("the round is over"):
            for p in range(2):
                if not self.went_out[p] and self._once(("slap", p), self.entered):
                    out += KEYS[p]["pads"][self._smaller(s)]
            return out
        if phase != "play":
            return ""
        tops = s["tops"]
        if all(t[0] < 0 for t in tops):
            return ""                    # the spit cards are on their way
        stuck = []
        for p in range(2):
            cards = s["cards"][p]
            move = None
            for i, c in enumerate(cards):
                if c < 0:
                    continue
                for pile, (top, _n) in enumerate(tops):
                    if top >= 0 and fits(self.rules, top, top & 15 if top & 15 else 0, c):
                        move = (i, pile)
                        break
                if move:
                    break
            if move is not None:
                if self._once(("land", p), state):
                    out += KEYS[p]["pick"][move[0]] + KEYS[p]["land"][move[1]]
                continue
            visible = len([c for c in cards if c >= 0])
            if -1 in cards and s["left"][p] > visible:
                if self._once(("gap", p), state):
                    out += KEYS[p]["gap"]
                continue
            if s["left"][p] == 0:
                if self._once(("out", p), said):
                    self.went_out[p] = True
                    out += KEYS[p]["pads"][self._smaller(s)]
                continue
            stuck.append(p)
        if len(stuck) == 2:
            for p in stuck:
                if self._once(("stuck", p), state):
                    out += KEYS[p]["stuck"]
        return out

    @staticmethod
    def _smaller(s):
        tops = s["tops"]
        best = 0
        for i, (_c, n) in enumerate(tops):
            if n < tops[best][1]:
                best = i
        return best


class PtyScreen:
    """The terminal output of a program on a pty master ``fd``: the latest complete frame."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = ""
        self.all = []

    def read(self, timeout=0.05):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return None
        if not data:
            return None
        text = data.decode("utf-8", "replace")
        self.all.append(text)
        self.buf += text
        if len(self.buf) > 200000:
            self.buf = self.buf[-100000:]
        return True

    def frame(self):
        """The text of the last complete frame (between the last two clears), or ''."""
        parts = self.buf.split(CLEAR)
        if len(parts) >= 3:
            return parts[-2]
        return ""

    def text(self):
        return "".join(self.all)


def play_game(fd, players, limit_s=600, on_frame=None):
    """Drive the table on pty ``fd`` until its game is over or the program ends; returns the last frame."""
    screen = PtyScreen(fd)
    t_end = time.monotonic() + limit_s
    last = ""
    while time.monotonic() < t_end:
        got = screen.read()
        if got is None:
            break
        frame = screen.frame()
        if frame and frame != last:
            last = frame
            s = parse_screen(frame)
            if on_frame is not None:
                on_frame(s)
            if s["over"]:
                break
            keys = players.keys(s)
            if keys:
                os.write(fd, keys.encode())
    return last, screen


def finish(proc, screen, timeout_s=300):
    """Wait for the program to end, keeping its output; returns its exit code."""
    t_end = time.monotonic() + timeout_s
    while proc.poll() is None and time.monotonic() < t_end:
        if screen.read(0.2) is None:
            break
    try:
        return proc.wait(timeout=max(1, t_end - time.monotonic()))
    finally:
        while screen.read(0.1):
            pass
