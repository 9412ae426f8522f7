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

from spit.cards import format_card, parse_card
from spit.rules import fits, make_ruleset

CLEAR = "\x1b[H\x1b[2J"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COUNTDOWN_LINE = re.compile(r"\d+:\d\d\.\d{3}\s+countdown ")
SPIT_LINE = re.compile(r"\bSPIT (?!CALL)\S")
SPIT_CALL_PILES = re.compile(r"SPIT CALL.*\((\d+) piles?\)")
KEYS = ({"pick": "12345", "land": "qwe", "stuck": "a", "pads": "zxc", "gap": "f"},
        {"pick": "67890", "land": "uio", "stuck": "j", "pads": "m,.", "gap": "k"})


def parse_screen(text):
    """The screen's facts: ``{"phase", "t" (table seconds), "tops": [(card|-1, count)], "cards": [[card|-1]]*2,
    "left": [n, n], "question": (player, kind, max) or None, "said": [lines], "over": bool}``."""
    text = ANSI.sub("", text)
    lines = text.split("\n")
    out = {"phase": "", "t": 0.0, "tops": [], "cards": [[], []], "left": [0, 0], "question": None, "said": [],
           "over": False, "raw": text}
    for line in lines:
        if line.startswith("Spit referee"):
            m = re.search(r"t (\d+):(\d+\.\d+)\s+(.*)$", line)
            out["phase"] = m.group(3).strip() if m else ""
            out["t"] = int(m.group(1)) * 60 + float(m.group(2)) if m else 0.0
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
        self.done_for = {}        # (what, key of the screen state) -> True: do not repeat
        self.went_out = [False, False]
        self.phase = None
        self.entered = 0
        self.unsure = [{}, {}]          # per player: card landed -> table time, until it counts
        self.countdown_seen = {}        # a countdown's line -> table time it was first on the screen

    # A person who sees nothing happen for a while does it again (a STUCK press the referee had
    # no use for, a card that did not leave the hand): the same move in the same state is
    # repeated once per this many table seconds.
    AGAIN_S = 3.0
    # After a countdown a careful player waits for the spit cards before playing on the piles (the
    # first card on a pile that waits for its spit card is taken as that card), for at most this
    # long from the countdown's start: 2 s of countdown and the hands that flip.
    SPIT_WAIT_S = 4.0

    def _spit_cards_due(self, s):
        """True while the last countdown's spit cards are not all on the screen's referee lines."""
        said = s["said"]
        at = None
        for i, line in enumerate(said):
            if COUNTDOWN_LINE.match(line):
                at = i
        if at is None:
            return False     # (off the screen: so much was said since that the cards came)
        first = self.countdown_seen.setdefault(said[at], s["t"])
        m = SPIT_CALL_PILES.search(said[at - 1]) if at > 0 else None
        expected = int(m.group(1)) if m else len(s["tops"])
        got = len([x for x in said[at + 1:] if SPIT_LINE.search(x)])
        return got < expected and s["t"] - first < self.SPIT_WAIT_S

    def _watch_landed_cards(self, s):
        """Which of each player's landed cards still may come back: until ACCEPT or SPIT for it is
        among the referee's lines, or no word for a while (a rejected card is back in the hand by
        then, and counts as a stock card again)."""
        for p in range(2):
            unsure = self.unsure[p]
            for c, t in list(unsure.items()):
                counted = re.compile(r"\b(?:ACCEPT|SPIT) %s\b" % re.escape(format_card(c)))
                if s["t"] - t >= self.AGAIN_S or any(counted.search(line) for line in s["said"]):
                    del unsure[c]

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
        again = int(s["t"] // self.AGAIN_S)
        state = (self.entered, tuple(tuple(c) for c in s["cards"]), tuple(s["tops"]), again)
        self._watch_landed_cards(s)
        out = ""
        if s["over"]:
            return ""
        if s["question"] is not None:
            p, kind, most = s["question"]
            # One answer per asking: the asking is its QUESTION line (its time), and a refused
            # answer (bad_answer after it) asks again.  Counted in the lines shown, a bad_answer
            # scrolling out of view would look like a new asking and answer it twice.
            said = s["said"]
            asked = [i for i, x in enumerate(said) if "QUESTION" in x]
            after = said[asked[-1] + 1:] if asked else said
            asking = said[asked[-1]] if asked else self.entered
            refused = len([x for x in after if "bad_answer" in x])
            if self._once(("answer", p), (asking, s["question"], refused)):
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
        if all(t[0] < 0 for t in tops) or self._spit_cards_due(s):
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
                    self.unsure[p][cards[move[0]]] = s["t"]
                continue
            visible = len([c for c in cards if c >= 0])
            if -1 in cards and s["left"][p] > visible:
                if self._once(("gap", p), state):
                    out += KEYS[p]["gap"]
                continue
            if s["left"][p] == 0:
                # Out only once every card landed counted: a card still waiting for its verdict,
                # or one judged late that comes back, is no way out (a careful player waits for
                # the lamps).  One slap; again only if the referee took no notice for a while.
                if not self.unsure[p] and self._once(("out", p), (self.entered, again)):
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
