"""Read a session log back (host tools, tests): ``read_log(path)`` / ``iter_lines(path)``.

A torn last record is dropped (a last line without its newline, or a last line that is not
JSON as ``spit.log`` reads it: ``spit.logjson``, the same on both Pythons) and reported; everything before it is returned.  MicroPython-compatible, but the
firmware itself never reads logs (``referee/logbook.py`` writes them), so it is not imported
on the board.  File system access goes through ``fs`` (``open``), the builtin ``open`` by
default.
"""

from micropython import const

from spit.logjson import loads   # (strict JSON, alike on CPython and MicroPython: spit.log's reading)

_READ_CHUNK = const(512)


class LogLines:
    """Iterate the lines (str, no newline, blank lines skipped) of a session log.

    A torn last record is not yielded: a last line without its newline, or a last line that
    is not valid JSON.  After iteration ``dropped_bytes`` and ``dropped_lines`` say what was
    dropped, and ``bad_lines`` counts earlier lines that are not UTF-8 (skipped; they can only
    come from a failed write that the writer then closed with a newline)."""

    def __init__(self, path, fs=None, chunk=_READ_CHUNK):
        self.path = path
        self._open = fs.open if fs is not None else open
        self._chunk = chunk
        self.dropped_bytes = 0
        self.dropped_lines = 0
        self.bad_lines = 0
        self.lines = 0

    def __iter__(self):
        self.dropped_bytes = 0
        self.dropped_lines = 0
        self.bad_lines = 0
        self.lines = 0
        f = self._open(self.path, "rb")
        try:
            pending = bytearray()
            held = None  # the newest complete line: yielded once another one follows it
            while True:
                block = f.read(self._chunk)
                if not block:
                    break
                pending.extend(block)
                start = 0
                while True:
                    i = pending.find(b"\n", start)
                    if i < 0:
                        break
                    raw = bytes(pending[start:i])
                    start = i + 1
                    if not raw.strip():
                        continue
                    if held is not None:
                        line = self._decode(held)
                        if line is not None:
                            self.lines += 1
                            yield line
                    held = raw
                if start:
                    pending = pending[start:]
        finally:
            f.close()
        if pending:                       # no newline after it: torn
            self.dropped_bytes += len(pending)
            self.dropped_lines += 1
        if held is not None:
            line = None
            try:
                line = held.decode()
                loads(line.strip(" \t\r\n"))
            except ValueError:            # (UnicodeError and spit.logjson's JSONError are ValueErrors)
                line = None
            if line is None:
                self.dropped_bytes += len(held) + 1
                self.dropped_lines += 1
            else:
                self.lines += 1
                yield line

    def _decode(self, raw):
        try:
            return raw.decode()
        except ValueError:
            self.bad_lines += 1
            return None


def iter_lines(path, fs=None):
    """A ``LogLines`` for ``path``: iterate it, then read its ``dropped_*`` counters."""
    return LogLines(path, fs)


def read_log(path, fs=None):
    """``(lines, dropped_bytes, dropped_lines)`` for the session log at ``path``."""
    it = LogLines(path, fs)
    lines = list(it)
    return lines, it.dropped_bytes, it.dropped_lines
