"""The emulated Pico's USB serial as a pseudo-terminal, for mpremote and `spit console`.

    link = SerialPty(emu, link="/tmp/pico")     # /tmp/pico -> /dev/pts/N
    link.serve(stop=lambda: proc.poll() is not None)   # until mpremote has finished

While it serves, emulated time follows the wall clock: an idle chip (WFI) waits for real
time to pass instead of racing ahead, so a user typing at the REPL or mpremote's timeouts see
a board that behaves like a real one; a busy chip runs as fast as the emulator can (here 3-6x
slower than a real RP2040).  Bytes typed into the pty reach the board's USB CDC, the board's
output comes back.  The pty is raw (``tty.setraw``): otherwise line endings double and
mpremote hangs.  A slave descriptor is kept open so the link survives mpremote closing and
re-opening the port.
"""

import os
import select
import time
import tty

SLICE_MS = 20          # emulator run slices between pty checks (wall time)


class SerialPty:
    def __init__(self, emu, link=None, runner=None):
        self.emu = emu
        # runner(t_ns, wall_ms): what moves emulated time (a table's, so its devices act on time)
        self.runner = runner or emu.run_until
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.port = os.ttyname(self._slave)
        self.link = None
        if link:
            if os.path.islink(link):
                os.unlink(link)
            elif os.path.exists(link):
                raise FileExistsError("%s exists and is not a symlink: choose another --pty path" % link)
            os.symlink(self.port, link)
            self.link = link
        self.output = bytearray()      # everything the board printed (also written to the pty)
        self.dropped = 0               # bytes not written: nobody was reading the pty
        self._prev = emu.on_serial
        emu.on_serial = self._from_board

    @property
    def path(self):
        return self.link or self.port

    def _from_board(self, data):
        self.output += data
        if self._prev is not None:
            self._prev(data)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                # Nobody reads the port (no host program attached) and its buffer is full:
                # drop the rest, as a USB CDC does when the host does not read.
                self.dropped += len(view)
                return
            view = view[n:]

    def _to_board(self):
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return False
        if data:
            self.emu.serial_write(data)
            return True
        return False

    def serve(self, stop=None, seconds=None):
        """Relay until ``stop()`` is true (or ``seconds`` of wall time passed), with emulated
        time following the wall clock."""
        emu = self.emu
        wall0 = time.monotonic()
        emu0 = emu.now_ns
        while True:
            if stop is not None and stop():
                return
            now = time.monotonic()
            if seconds is not None and now - wall0 >= seconds:
                return
            self._to_board()
            target = emu0 + int((now - wall0 + SLICE_MS / 1000.0) * 1e9)
            if target > emu.now_ns:
                before = time.monotonic()
                self.runner(target, wall_ms=SLICE_MS)
                if time.monotonic() - before >= SLICE_MS / 1000.0 * 0.9:
                    # The chip is busy and the emulator slower than real time: let emulated
                    # time lag instead of catching up in a burst.
                    emu0 = emu.now_ns - int((time.monotonic() - wall0) * 1e9)
            else:
                select.select([self.master], [], [], SLICE_MS / 1000.0)

    def close(self):
        self.emu.on_serial = self._prev
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.link and os.path.islink(self.link):
            os.unlink(self.link)
