"""Reading the referee's live stream (docs/live-protocol.md, ``spitlive`` 1).

    from host_tools.device.live import split_line, LiveReader
    split_line('{"seq": 4, "dev": 20312, "t": 0, "verdict": "round_start", ...}')
    # -> (4, 20312, 0, '{"t": 0, "verdict": "round_start", ...}')
    r = LiveReader()
    for raw in lines:
        for kind, obj, body, seq in r.feed(raw):   # kind: "log", "header", "hello", "status", "text"
            ...                                     # (obj: the dict, body: its text; a text line: None, the line)

Also runs under the MicroPython unix port (tests/micropython/mp_firmware_check.py): plain string work.
"""

import json

PREFIX = '{"seq": '
REQUEST_STATUS = b"?"
# A game is in progress in these states (the PC tools that stop the referee refuse then).
IN_GAME = ("countdown", "play", "slap", "question", "between", "menu")


def _int_at(line, i):
    j = i
    while j < len(line) and (line[j].isdigit() or line[j] == "-"):
        j += 1
    return int(line[i:j]), j


def split_line(line):
    """``(seq, dev, dropped, body)`` of a protocol line (``body``: the JSON object without the
    stream's keys: a session log line as the log file has it), or None for a text line."""
    if not line.startswith(PREFIX):
        return None
    try:
        seq, i = _int_at(line, len(PREFIX))
        if not line.startswith(', "dev": ', i):
            return None
        dev, i = _int_at(line, i + 9)
        dropped = 0
        if line.startswith(', "dropped": ', i):
            dropped, i = _int_at(line, i + 13)
        if not line.startswith(", ", i):
            return None
    except ValueError:
        return None
    return seq, dev, dropped, "{" + line[i + 2:].rstrip("\r\n")


def kind_of(body):
    """What a protocol line's body is: "log" (an event or verdict), "header", "hello", "status"."""
    if body.startswith('{"t": '):
        return "log"
    if body.startswith('{"spitlog"'):
        return "header"
    if body.startswith('{"live"'):
        return "hello"
    if body.startswith('{"status"'):
        return "status"
    return "other"


class LiveReader:
    """Follows the stream: the missed lines (``seq`` gaps), the last status, the boot banner."""

    def __init__(self):
        self.next_seq = None
        self.missed = 0          # lines the reader did not get (gaps in seq)
        self.dropped = 0         # lines the device said it dropped
        self.status = None       # the last status line (a dict)
        self.hello = None
        self.boots = 0

    def feed(self, line):
        """One line (str, without or with its newline): ``[(kind, obj, body, seq)]`` (``obj``
        the dict and ``body`` its text; for a text line ``obj`` and ``seq`` are None)."""
        line = line.rstrip("\r\n")
        parts = split_line(line)
        if parts is None:
            if line.startswith("spit-referee ") and " board=" in line:
                self.boots += 1
                self.next_seq = None   # (seq restarts at 0)
            return [("text", None, line, None)] if line else []
        seq, dev, dropped, body = parts
        if self.next_seq is not None and seq != self.next_seq:
            self.missed += (seq - self.next_seq) % (1 << 30)
        self.next_seq = (seq + 1) % 0x3FFFFFFF
        self.dropped += dropped
        try:
            obj = json.loads(body)
        except ValueError:
            return [("text", None, line, None)]
        kind = kind_of(body)
        if kind == "status":
            self.status = obj
        elif kind == "hello":
            self.hello = obj
            self.status = None
        return [(kind, obj, body, seq)]


def live_lines(data):
    """Every line of a captured stream (bytes or str): ``[(kind, obj, body, seq)]``."""
    if not isinstance(data, str):
        data = bytes(data).decode()
    r = LiveReader()
    out = []
    for line in data.split("\n"):
        out.extend(r.feed(line))
    return out
