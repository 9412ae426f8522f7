"""Session log store on the Pico's littlefs flash (docs/log-format.md).

Flash erase/program on the RP2040 runs with interrupts masked, so a write in the middle of
play would delay the touch/pad IRQ timestamps.  ``Logbook`` therefore keeps lines in a RAM
buffer allocated once, and writes only when the firmware calls ``flush()`` at a pause
(spit call, round end, game end) or when the buffer is full (``forced_flushes``).

    book = Logbook("logs")
    book.start(header_line)        # -> "logs/session-0007.spitlog"
    book.append(line)              # a line without "\\n"; RAM only (unless the buffer is full)
    book.flush()                   # at a pause: one write of every buffered line, then sync
    book.close()

Files are ``<dir>/session-NNNN.spitlog``; NNNN continues from the highest number in the
directory, so it keeps increasing across reboots.  Before a session starts, the oldest
session files are deleted until the rest total less than ``max_total_bytes`` and at most
``max_files`` remain with the new one.  A file system error never raises out of
``start/append/flush/close``: the lines concerned are counted in ``dropped_lines`` and the
exception is kept in ``last_error``.  Naming, listing and rotating the session files (code
run at a session start, or at a pause when the logs outgrew their room) is
``referee/logfiles.py``: the firmware drops it again after a session start (``App``), so its
code does not hold heap during play.

Reading a log back (dropping a torn last record) is ``referee/logread.py``: the firmware
never reads logs, so that code stays out of the device's heap.

File system access goes through ``fs`` (open/listdir/remove/stat/mkdir), ``os`` and the
builtin ``open`` by default, so tests can inject failures such as a power cut in the middle of
a write.
"""

import time

from micropython import const

_NL = const(10)
_DEFAULT_BUFFER = const(4096)
_DEFAULT_MAX_TOTAL = const(524288)  # 512 KB of the Pico's 1408 KB littlefs
_DEFAULT_MAX_FILES = const(64)
_EBADF = const(9)


_NOT_OPEN = OSError(_EBADF, "no session file open")  # last_error when lines arrive with no session file open


def __getattr__(name):
    # The session files' names and listing (list_sessions, session_name, session_number) are in
    # referee/logfiles.py, loaded at a session start only; importing them from here still works.
    from referee import logfiles
    return getattr(logfiles, name)


class Logbook:
    """Counters: ``forced_flushes`` (writes before ``flush()``: the buffer was full or a line is
    longer than it), ``flushes`` (all writes), ``dropped_lines`` (lines of a failed write, which may
    have partly reached flash, or appended with no file open), ``deleted`` (rotation).
    ``append`` allocates only ``line.encode()``: on MicroPython a fixed-size bytes header that
    shares the str's data (32 bytes on the 64-bit unix port, tests/micropython/mp_logbook_check.py).
    ``stall_from_us``/``stall_to_us``: ticks_us around the last write (interrupts masked)."""

    def __init__(self, directory="logs", buffer_bytes=_DEFAULT_BUFFER,
                 max_total_bytes=_DEFAULT_MAX_TOTAL, max_files=_DEFAULT_MAX_FILES, fs=None, buf=None):
        if buffer_bytes < 2:
            raise ValueError("buffer_bytes")
        if max_files < 1:
            raise ValueError("max_files")
        self.directory = directory
        self.max_total_bytes = max_total_bytes
        self.max_files = max_files
        self._fs = fs             # (None: ``os``; used by referee/logfiles.py)
        # ``buf``: a buffer allocated early at boot, before the heap fragments (on the
        # RP2040 a 4 KB block can be missing after the firmware's modules are loaded).
        self.buf = buf if buf is not None and len(buf) == buffer_bytes else bytearray(buffer_bytes)
        self._mv = memoryview(self.buf)   # lines are written to buf after room() (then commit())
        self._cap = buffer_bytes
        self._n = 0               # bytes in the buffer (always whole lines, each ending in \n)
        self._lines = 0           # lines in the buffer
        self._f = None
        self._torn = False        # a write failed part-way: start the next write on a new line
        self._others_bytes = 0    # size of the other session files after the last rotation
        self.path = None
        self.number = -1
        self.dropped_lines = 0
        self.forced_flushes = 0
        self.flushes = 0          # writes to the file system (requested + forced)
        self.bytes_written = 0    # to the current session file
        self.deleted = 0          # session files removed by rotation
        self.last_error = None
        self.stall_from_us = 0    # ticks_us at the start and end of the last write
        self.stall_to_us = 0

    @property
    def bytes_buffered(self):
        return self._n

    # ------------------------------------------------------------------ session
    def start(self, header_line):
        """Close any open session, rotate, open the next session file and write the header.

        Returns the new file's path (also ``self.path``)."""
        from referee.logfiles import start   # (session start only: App drops it again)
        return start(self, header_line)

    def rotate(self):
        """Delete the oldest session files, never the current one (``self.path``), until the
        others plus the current one total less than ``max_total_bytes`` and at most
        ``max_files`` files remain counting the current one.  Returns how many were deleted."""
        from referee.logfiles import rotate
        return rotate(self)

    def close(self):
        """Flush, sync and close the session file.  Never raises."""
        self.flush()
        f = self._f
        self._f = None
        if f is not None:
            try:
                f.close()
            except OSError as e:
                self.last_error = e

    # ------------------------------------------------------------------ lines
    def free(self):
        """Bytes left in the RAM buffer."""
        return self._cap - self._n

    def room(self, nbytes):
        """Where ``nbytes`` more bytes go in ``buf`` (lines ending in ``\\n`` written there by
        the caller, then ``commit``).  If they do not fit, the buffer is written first (a
        forced flush, counted).  Allocates nothing."""
        if self._n + nbytes > self._cap:
            self.forced_flushes += 1
            self._flush(False)
        return self._n

    def commit(self, end, lines):
        """The caller wrote ``lines`` whole lines into ``buf`` up to ``end`` (after ``room``)."""
        self._n = end
        self._lines += lines

    def write_buffered(self):
        """Write the buffered lines to the file without syncing it (one flash write of at
        most the buffer's size: at most one erase).  Returns True if they reached the file."""
        return self._flush(False, False)

    def sync(self):
        """Commit the file's data to flash (littlefs metadata: may erase a block); counted
        in ``flushes``, with its stall window, like a write."""
        f = self._f
        if f is None:
            return
        self.flushes += 1
        ticks = getattr(time, "ticks_us", None)
        if ticks is not None:
            self.stall_from_us = ticks()
        try:
            f.flush()
        except OSError as e:
            self.last_error = e
        if ticks is not None:
            self.stall_to_us = ticks()

    def append(self, line):
        """Buffer ``line`` (a str without newline).  Allocates only ``line.encode()``; writes to
        flash only if the buffer is full (a forced flush) or the line is longer than it."""
        data = line.encode()
        k = len(data)
        end = self._n + k
        if end >= self._cap:                 # line + "\n" does not fit in what is left
            self.forced_flushes += 1
            self._flush(False)           # no rotation (file deletions) in the middle of play
            if k >= self._cap:               # longer than the whole buffer: write it through
                # (rare; the copy keeps it to one write call)
                if not self._write(data + b"\n", k + 1):
                    self.dropped_lines += 1
                return
            end = k
        start = self._n
        self._mv[start:end] = data
        self.buf[end] = _NL
        self._n = end + 1
        self._lines += 1

    def flush(self):
        """Write every buffered line in one write call and sync the file (call it at pauses).
        Also rotates if the logs outgrew ``max_total_bytes``.  Returns True if the lines
        reached the file; never raises."""
        return self._flush(True)

    def _flush(self, may_rotate, sync=True):
        n = self._n
        if not n:
            return True
        lines = self._lines
        self._n = 0
        self._lines = 0
        ok = self._write(self._mv[:n], n, sync)
        if not ok:
            self.dropped_lines += lines
        if may_rotate and self._others_bytes and self._others_bytes + self.bytes_written >= self.max_total_bytes:
            self.rotate()
        return ok

    def _write(self, data, n, sync=True):
        f = self._f
        if f is None:
            if self.last_error is None:
                self.last_error = _NOT_OPEN
            return False
        self.flushes += 1
        # Flash erase/program masks interrupts: an input edge inside this window is stamped
        # when it ends.  The loop reads the window (ticks_us) to mark such stamps uncertain.
        ticks = getattr(time, "ticks_us", None)   # (absent on CPython: host-side use)
        if ticks is not None:
            self.stall_from_us = ticks()
        try:
            if self._torn:
                # The previous write stopped part-way; end that fragment so it stays one bad
                # line instead of gluing itself onto the next record.
                f.write(b"\n")
                self._torn = False
                self.bytes_written += 1
            done = 0
            while done < n:
                w = f.write(data[done:] if done else data)
                if w is None:
                    w = n - done
                if w <= 0:
                    raise OSError(5, "nothing written")  # EIO
                done += w
                self.bytes_written += w
            if sync:
                f.flush()
            return True
        except OSError as e:
            self.last_error = e
            self._torn = True
            return False
        finally:
            if ticks is not None:
                self.stall_to_us = ticks()
