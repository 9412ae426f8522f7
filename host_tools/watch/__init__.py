"""``spit watch``: the game as it happens, on a page for the room (a TV across the room, phones).

The referee's live stream (docs/live-protocol.md, ``spitlive`` 1: protocol lines with ``seq`` and
``dev`` in front of the session log's lines, status lines, text lines) is read line by line by a
:class:`Watch`, which keeps the table's current state (each pile's top and size, the round, the
phase, the countdown, the last verdicts, the open question, the result) and turns every line
into page events.  A :class:`Hub` hands the events to every viewer (server-sent events from the
standard library's HTTP server); a viewer that joins late or reconnects first gets the whole
current state, then the events.  Nothing is ever sent to the referee but the protocol's ``?``
status request.

Sources (:mod:`host_tools.cli.watch`): a serial port (the board, or the emulated Pico's pty), a
simulated game played out in real time (``--sim``), or a session log played back (``--log``).
"""

import json
import queue
import threading
import time

from host_tools.replay.text import describe, fmt_dt, tie_outcome
from host_tools.replay.facts import Question, tie_reason
from host_tools.device.live import LiveReader, split_line

RECENT = 12               # verdicts kept for a late joiner's page
PILE_VERDICTS = ("spit", "accept", "illegal", "late", "tie", "early", "undo", "resync")


class _Rules:
    """The header's options a page needs (tie reasons)."""

    def __init__(self, options):
        self.tie_window_us = options.get("tie_window_us", 3000)
        self.relist_us = options.get("relist_us", 60000)


class Watch:
    """The table's current state from the live stream, and the events for the page.

    ``feed(line)`` takes one text line of the stream and returns the events it makes
    (``[dict]``: ``{"type": "verdict"|"status"|"text"|"session", ...}``); ``state()`` is the whole
    current state (what a viewer that joins now is sent first)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()
        self.log_lines = []       # the session's log lines (for the replay link)
        self.seq = 0              # events made so far (the page's own sequence)
        self.dropped = 0          # protocol lines this reader did not get (seq gaps)
        self.reader = LiveReader()

    def reset(self):
        self.header = None
        self.rules = _Rules({})
        self.npiles = 2
        self.tops = [None, None]
        self.sizes = [0, 0]
        self.round = 0
        self.cards = [None, None]
        self.phase = "waiting"
        self.countdown = None     # (t_us it started, ms)
        self.question = None
        self.recent = []
        self.game_over = None
        self.round_end = None
        self.texts = []
        self.tie = None

    # --- reading ---

    def feed(self, line):
        line = line.rstrip("\r\n")
        if not line.strip():
            return []
        with self.lock:
            return self._feed(line)

    def _feed(self, line):
        if split_line(line) is None and line.startswith("{"):
            # a session log line without the stream's keys (a log played back, the virtual board)
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            return self._log_obj(obj, line) if isinstance(obj, dict) else [self._event({"type": "text",
                                                                                        "text": line})]
        out = []
        for kind, obj, body, _seq in self.reader.feed(line):
            self.dropped = self.reader.missed   # seq gaps: every line not seen (those the device dropped too)
            if kind == "text":
                self.texts = (self.texts + [body])[-5:]
                out.append(self._event({"type": "text", "text": body}))
            elif kind == "status":
                out += self._status(obj)
            elif kind == "hello":
                out.append(self._event({"type": "text", "text": "referee %s on %s" % (
                    obj.get("firmware", "?"), obj.get("board", "?"))}))
            else:
                out += self._log_obj(obj, body)
        return out

    def _log_obj(self, obj, line):
        if "status" in obj:   # (a status line written without the stream's keys)
            return self._status(obj)
        if "spitlog" in obj:
            return self._header(obj, line)
        self.log_lines.append(json.dumps(obj))
        if "verdict" in obj:
            return self._verdict(obj)
        if obj.get("ev") == "answer":
            return self._answer(obj)
        return []

    def _header(self, obj, line):
        self.reset()
        self.log_lines = [json.dumps(obj)]
        self.header = obj
        options = obj.get("options") if isinstance(obj.get("options"), dict) else {}
        self.rules = _Rules(options)
        self.npiles = options.get("piles", 2) if options.get("piles") in (2, 3) else 2
        self.tops = [None] * self.npiles
        self.sizes = [0] * self.npiles
        self.phase = "countdown"
        names = obj.get("players") if isinstance(obj.get("players"), list) else None
        return [self._event({"type": "session", "state": self._state()})] if names is None else \
            [self._event({"type": "session", "state": self._state(), "players": names})]

    def _status(self, obj):
        self.phase = obj.get("status", self.phase)
        if isinstance(obj.get("tops"), list):
            self.tops = list(obj["tops"])
            self.npiles = len(self.tops)
            if len(self.sizes) != self.npiles:
                self.sizes = [0] * self.npiles
        if isinstance(obj.get("round"), int):
            self.round = obj["round"]
        if isinstance(obj.get("cards"), list):
            self.cards = list(obj["cards"])
        return [self._event({"type": "status", "state": self._state()})]

    def _verdict(self, v):
        kind = v["verdict"]
        t = v.get("t", 0)
        pile = v.get("pile", -1)
        on_table = isinstance(pile, int) and 0 <= pile < self.npiles
        f = {k: val for k, val in v.items() if k not in ("t", "verdict")}
        try:
            text = describe(kind, f, self.rules)
        except (KeyError, TypeError, ValueError):
            text = "%s %s" % (kind, json.dumps(f))
        tied = self.tie is not None and self.tie == (pile, v.get("card")) and kind in ("accept", "late", "illegal")
        if tied:   # the card the TIE showed: what became of it, no second LATE
            text = tie_outcome(kind, f, self.tops[pile] if on_table else None)
        flash = {"kind": kind, "pile": pile if on_table else None, "text": text}
        if kind == "round_start":
            self.round = v.get("round", self.round)
            self.cards = [v.get("cards0"), v.get("cards1")]
            self.tops = [None] * self.npiles
            self.sizes = [0] * self.npiles
            self.phase = "countdown"
            self.round_end = None
        elif kind == "countdown":
            self.countdown = (t, v.get("ms", 0))
            self.phase = "countdown"
        elif kind in ("spit", "accept") and on_table:
            self.tops[pile] = v.get("card")
            self.sizes[pile] += 1
            self.phase = "play"
        elif kind == "resync" and on_table:
            self.tops[pile] = v.get("card")
        elif kind == "undo" and on_table:
            self.tops[pile] = v.get("top")
            self.sizes[pile] = max(0, self.sizes[pile] - 1)
        if kind in ("tie", "late") or (kind == "accept" and "dt_us" in v):
            flash["dt"] = fmt_dt(v["dt_us"])
        if kind == "tie":
            flash["big"] = "TIE"
            flash["why"] = tie_reason(f, self.rules)
            self.tie = (pile, v.get("card"))
        elif kind == "late":
            flash["big"] = "LATE"
            flash["why"] = "%s fit only the card before %s" % (v.get("card"), v.get("top"))
        elif kind == "illegal":
            flash["big"] = "ILLEGAL"
            flash["why"] = "%s does not fit %s" % (v.get("card"), v["top"]) if "top" in v else "empty pile"
        elif kind == "early":
            flash["big"] = "EARLY"
            flash["why"] = "before the spit cards"
        elif kind == "spit_call":
            flash["big"] = "SPIT!"
        elif kind == "round_end":
            self.phase = "slap"
            self.round_end = {"round": v.get("round"), "text": text, "piles": []}
            flash["big"] = "ROUND %s ENDS" % v.get("round", "")
        elif kind == "pile_won":
            if self.round_end is not None:
                self.round_end["piles"].append("player %s takes pile %s (%s cards)" % (
                    v.get("player"), v.get("pile"), v.get("size")))
            self.phase = "between"
        elif kind == "question":
            q = Question(t, v.get("ask"), v.get("player", 0), v.get("max", 1), self.round)
            self.question = {"text": q.words(), "answer": None, "ask": q.ask, "player": q.player, "max": q.max}
            self.phase = "question"
            flash["big"] = "QUESTION"
        elif kind == "error" and v.get("reason") == "bad_answer" and self.question is not None:
            self.question["answer"] = None   # refused: the question stands
            flash["big"] = "ANSWER REFUSED"
            flash["why"] = "%s is not a possible answer: the question stands" % v.get("value")
        elif kind == "game_over":
            self.phase = "over"
            w = v.get("winner", -1)
            self.game_over = {"winner": w, "reason": v.get("reason"), "text": text, "summary": self._summary()}
            flash["big"] = "GAME OVER"
        if tied:
            self.tie = None
            flash.pop("big", None)   # the TIE flash already showed this card
        item = {"t": t, "kind": kind, "text": text}
        self.recent = (self.recent + [item])[-RECENT:]
        return [self._event({"type": "verdict", "verdict": v, "flash": flash, "state": self._state()})]

    def _summary(self):
        """The game's summary lines (``spit replay``'s), from the log lines seen so far."""
        from host_tools import replay
        return replay.summary(replay.rejudge_lines(list(self.log_lines)))

    def _answer(self, a):
        q = self.question
        if q is None or a.get("player") != q["player"]:
            return []
        value = a.get("value")
        q = Question(0, q["ask"], q["player"], q["max"], self.round)
        q.answer = value
        self.question["answer"] = q.answer_words()
        return [self._event({"type": "answer", "text": self.question["answer"], "state": self._state()})]

    # --- state and events ---

    def _event(self, ev):
        self.seq += 1
        ev["seq"] = self.seq
        return ev

    def _state(self):
        return {"npiles": self.npiles, "tops": list(self.tops), "sizes": list(self.sizes), "round": self.round,
                "cards": list(self.cards), "phase": self.phase, "ruleset": (self.header or {}).get("ruleset"),
                "players": (self.header or {}).get("players"),
                "countdown": {"t": self.countdown[0], "ms": self.countdown[1]} if self.countdown else None,
                "question": self.question, "recent": list(self.recent), "round_end": self.round_end,
                "game_over": self.game_over, "dropped": self.dropped, "texts": list(self.texts),
                "seq": self.seq}

    def state(self):
        with self.lock:
            return self._state()


class Hub:
    """Every viewer's queue of events; ``publish`` never blocks the reader (a viewer that falls far
    behind is dropped and reconnects: it then gets the whole state again)."""

    MAX_QUEUE = 1000

    def __init__(self):
        self.viewers = []
        self.lock = threading.Lock()
        self.published = {}       # seq -> monotonic time it was published (the latency bench)

    def join(self):
        q = queue.Queue(self.MAX_QUEUE)
        with self.lock:
            self.viewers.append(q)
        return q

    def leave(self, q):
        with self.lock:
            if q in self.viewers:
                self.viewers.remove(q)

    def publish(self, events):
        if not events:
            return
        now = time.monotonic()
        with self.lock:
            for ev in events:
                self.published[ev["seq"]] = now
            if len(self.published) > 5000:
                for k in sorted(self.published)[:1000]:
                    del self.published[k]
            for q in list(self.viewers):
                for ev in events:
                    try:
                        q.put_nowait(ev)
                    except queue.Full:
                        self.viewers.remove(q)
                        break
