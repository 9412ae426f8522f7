"""The live stream on the console: docs/live-protocol.md (``spitlive`` 1), written without waiting.

    live = Live(sys.stdout.write)            # write(buf, off, n), as MicroPython streams take it
    live.text('{"live": 1, ...}')            # a line made on the spot (the hello at boot)
    live.line(buf, off, n)                   # session log line(s) at buf[off:off + n]: seq/dev in front
    live.status(app)                         # a status line (on request: ``poll`` reads '?')

Every protocol line starts ``{"seq": N, "dev": MS, `` (``"dropped": K, `` after lines were
dropped), then the log line's text after its ``{``: two writes, the prefix from a bytearray of
this object, so a line allocates nothing.

**Never waiting for the host.**  On the rp2 port a USB CDC write blocks up to 500 ms while a
host holds the port open and does not read (MicroPython ``shared/tinyusb/mp_usbd_cdc.c``: it
waits until a 64-byte chunk fits the 256-byte transmit FIFO), and ``select.poll``'s POLLOUT
says only that one byte fits.  So ``ready()`` reads the USB controller's buffer control word of
the CDC data IN endpoint (0x82 in MicroPython's descriptor; RP2040 datasheet 4.1.2.5: its
AVAILABLE bit stays set while the host has not taken the packet): a line is written only when
the controller has sent everything before it, so the FIFO is empty and a line (at most ~250
bytes with its prefix) fits it whole, whether or not the host then reads.  A host that stops
reading leaves the bit set: the session log's records wait (``SessionLog.echo_some`` asks
``ready()`` first) or, at a pause, are dropped from the stream (``line`` counts them: the next
line written says ``dropped``).  Off the chip (no ``machine.mem8``) the port is always ready.
"""

from micropython import const
import time

from referee.logline import _put_int

# USB DPRAM (RP2040 datasheet 4.1.2.5): EP2_IN_BUFFER_CONTROL, byte 1 (bit 10: AVAILABLE of
# buffer 0) and byte 3 (bit 26: AVAILABLE of buffer 1).
# (Each address its own constant: above 2^30 they are big ints, and a sum would allocate.)
_EP2_IN_BUFFER_CONTROL_B1 = const(0x50100091)
_EP2_IN_BUFFER_CONTROL_B3 = const(0x50100093)
_AVAILABLE_BYTE_BIT = const(0x04)
_POLL_MS = const(100)      # how often the console's input is polled for a request
_REQ_STATUS = const(63)    # '?'
_NL = const(10)

# Status names by the engine's phase (spit.referee PH_*), then the firmware's own.
_PHASES = const(("countdown", "play", "slap", "question", "between", "over"))


def _put(buf, p, text):
    i = 0
    n = len(text)
    while i < n:   # (no iterator object: nothing allocated)
        buf[p] = text[i]
        p += 1
        i += 1
    return p


class Live:
    def __init__(self, write, mem=None):
        self._write = write
        self._pre = bytearray(64)
        self.seq = 0
        self.dropped = 0          # lines dropped since the last line written
        if mem is None:
            try:
                import machine
                mem = getattr(machine, "mem8", None)
            except ImportError:
                mem = None
        self._mem = mem
        self.requests = mem is not None   # poll the console's input (on the chip only: a PC
        # process's stdin is its user's terminal)
        self.busy = None          # busy(): a host stand-in (tests); else the USB controller
        self._in = bytearray(1)
        self._polled_ms = 0
        self._poller = None
        self._stdin = None
        if self.requests:   # (made here, at boot: ``poll`` runs in the loop's step, heap locked)
            import sys
            import select
            self._stdin = sys.stdin.buffer
            pl = self._poller = select.poll()
            pl.register(sys.stdin, 1)   # (POLLIN)
            for _ in pl.ipoll(0):   # pyright: ignore[reportAttributeAccessIssue]
                pass   # (ipoll's first call allocates the tuple it yields, kept for good: here, not locked)

    def ready(self):
        """True if a line can be written now without waiting (see the module doc)."""
        b = self.busy
        if b is not None:
            return not b()
        m = self._mem
        if m is None:
            return True
        return not (m[_EP2_IN_BUFFER_CONTROL_B1] & _AVAILABLE_BYTE_BIT
                    or m[_EP2_IN_BUFFER_CONTROL_B3] & _AVAILABLE_BYTE_BIT)

    def _prefix(self):
        pre = self._pre
        p = _put(pre, 0, b'{"seq": ')
        p = _put_int(pre, p, self.seq)
        p = _put(pre, p, b', "dev": ')
        p = _put_int(pre, p, time.ticks_ms())
        if self.dropped:
            p = _put(pre, p, b', "dropped": ')
            p = _put_int(pre, p, self.dropped)
            self.dropped = 0
        pre[p] = 44   # ,
        pre[p + 1] = 32
        return p + 2

    def _next(self):
        s = self.seq + 1
        self.seq = s if s < 0x3FFFFFFF else 0

    def line(self, buf, off, n):
        """Write the JSON line(s) at ``buf[off:off + n]`` (each ``{...}\\n``) with their prefix,
        or drop them if the host cannot take them now.  Allocates nothing."""
        ok = self.ready()
        end = off + n
        while off < end:
            q = off
            while q < end and buf[q] != _NL:
                q += 1
            if ok:
                self._write(self._pre, 0, self._prefix())
                self._write(buf, off + 1, q - off)   # (its text after the '{', and its newline)
            else:
                self.dropped += 1
            self._next()
            off = q + 1
        return ok

    def text(self, body):
        """A protocol line made on the spot (``body``: a str ``{...}``; allocates: boot, pauses
        and requests only).  Dropped, and counted, if the host cannot take it now."""
        if self.ready():
            b = (body + "\n").encode()
            self._write(self._pre, 0, self._prefix())
            self._write(b, 1, len(b) - 1)
        else:
            self.dropped += 1
        self._next()

    def status(self, app):
        """A ``status`` line: the phase, the round, the tops (docs/live-protocol.md)."""
        ref = app.referee
        if app.waiting:
            name = "waiting"
        elif app.corr.menu:
            name = "menu"
        else:
            name = _PHASES[ref.phase]
        fmt = app.slog.line_format   # (its card codes: spit.cards is not on the board)
        b = bytearray(12 * len(ref.top))
        p = 0
        for i in range(len(ref.top)):
            if i:
                p = _put(b, p, b", ")
            t = ref.top[i]
            p = _put(b, p, b"null") if t < 0 else fmt._card(b, p, t)
        self.text('{"status": "%s", "session": %d, "round": %d, "tops": [%s]}' % (
            name, app.session_number(), ref.round, bytes(b[:p]).decode()))

    def poll(self, app, ms):
        """Every ``_POLL_MS``: a reader's request on the console's input (never blocks; on the
        chip only: ``requests``)."""
        if ms - self._polled_ms < _POLL_MS and ms >= self._polled_ms:
            return
        self._polled_ms = ms
        pl = self._poller
        want = False
        n = 8   # (bytes taken per poll, at most)
        while n:
            n -= 1
            got = 0
            for _obj, ev in pl.ipoll(0):   # pyright: ignore[reportAttributeAccessIssue, reportOptionalMemberAccess]
                got = ev & 1
            if not got or not self._stdin.readinto(self._in):   # pyright: ignore[reportOptionalMemberAccess]
                break
            if self._in[0] == _REQ_STATUS:
                want = True
        if want:
            self.status(app)
