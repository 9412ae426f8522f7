"""`spit console`: the game as it is refereed, read-only, in the terminal.

It reads the board's live stream (docs/live-protocol.md) and prints the verdicts as `spit replay`
prints its timeline (host_tools/replay/text.py's ``Timeline``: the same words), the board's
other lines as they are, and a status line (phase, round, tops) when the referee sends one and
whenever the phase changes.  It asks for the referee's state once when it connects (``?``);
it sends nothing else.  Ctrl-C quits the console: the board never sees it (the terminal is
not connected to the board), the game goes on.

`spit console --repl` is the raw MicroPython REPL (mpremote), with a warning: Ctrl-C there
stops the referee, Ctrl-D restarts it.
"""

import os
import sys

from host_tools.device.live import LiveReader


def status_text(st):
    tops = st.get("tops") or []
    return "[%s] round %s, session %s, tops: %s" % (
        st.get("status", "?"), st.get("round", "?"), st.get("session", "?"),
        " | ".join(c or "--" for c in tops) or "--")


class ConsoleView:
    """Lines of the stream in, readable lines out (``feed`` returns them)."""

    def __init__(self):
        from host_tools.replay.text import Timeline
        self.reader = LiveReader()
        self.timeline = Timeline()
        self.phase = None
        self.round = 0

    def _phase_of(self, o):
        v = o.get("verdict")
        if v == "countdown":
            return "countdown"
        if v in ("spit", "accept"):
            return "play"
        if v == "round_end":
            return "slap"
        if v == "question":
            return "question"
        if v == "game_over":
            return "over"
        return None

    def feed(self, line):
        out = []
        missed = self.reader.missed
        for kind, obj, body, _ in self.reader.feed(line):
            if self.reader.missed != missed:
                out.append("  (%d line%s of the stream missed)" % (
                    self.reader.missed - missed, "" if self.reader.missed - missed == 1 else "s"))
                missed = self.reader.missed
            if kind == "text":
                out.append(body)
            elif kind == "hello":
                out.append("referee %s on board %s: next session %s" % (
                    obj.get("firmware"), obj.get("board"), obj.get("session")))
            elif kind == "status":
                self.phase = obj.get("status")
                self.round = obj.get("round", 0)
                tops = obj.get("tops")
                if isinstance(tops, list):
                    self.timeline.tops = list(tops)
                out.append(status_text(obj))
            elif kind == "header":
                self.timeline = type(self.timeline)(obj.get("options", {}).get("piles", 2)
                                                    if isinstance(obj.get("options"), dict) else 2)
                out.append("-- session: %s, %s --" % (obj.get("ruleset"), ", ".join(obj.get("players", []))
                                                       or "players not named"))
            elif kind == "log" and "verdict" in obj:
                out.append(self.timeline.line(list(obj.items())))
                if obj["verdict"] == "round_start":
                    self.round = obj.get("round", self.round)
                phase = self._phase_of(obj)
                if phase and phase != self.phase:
                    self.phase = phase
                    out.append(status_text({"status": phase, "round": self.round,
                                            "session": "-", "tops": self.timeline.tops}))
        return out


def run(port, out=None, seconds=None):
    """Follow the board's stream until Ctrl-C (or ``seconds``); returns 0."""
    import time
    from host_tools.device import referee as board_referee
    out = out or sys.stdout
    ser = board_referee.open_port(port)
    view = ConsoleView()
    out.write("spit console on %s: the live session log (read-only; Ctrl-C quits, the game goes on)\n" % port)
    out.flush()
    end = None if seconds is None else time.monotonic() + seconds
    buf = b""
    try:
        ser.write(b"?")   # (the referee's state now: docs/live-protocol.md)
        while end is None or time.monotonic() < end:
            chunk = ser.read(512)
            if not chunk:
                continue
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                for text in view.feed(raw.decode(errors="replace")):
                    out.write(text + "\n")
            out.flush()
    except KeyboardInterrupt:
        out.write("\nspit console: closed (the referee goes on)\n")
    finally:
        ser.close()
    return 0


def repl(port, err=None):
    """Replace this process with ``mpremote connect PORT repl``, after a warning."""
    err = err or sys.stderr
    err.write("spit console --repl: the board's MicroPython REPL. Ctrl-C there STOPS the referee (a game in "
              "progress is lost); Ctrl-D restarts it; Ctrl-] quits.\n")
    err.flush()
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "mpremote", "connect", port, "repl"])
