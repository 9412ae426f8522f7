"""Is the referee running on the board, and in a game?  Restart it after a tool stopped it.

Every `spit` command that talks to the board goes through here (docs/live-protocol.md):

    state = probe(port)          # BoardState: "running" (with the status line), "prompt" or "silent"
    guard(port, force, out)      # refuses during a game; notices a board left at the prompt
    restart(port, out)           # soft-resets the board at the prompt, waits for the referee's
                                 # boot line: "the referee is running again (session N)"

``probe`` opens the port (pyserial), sends Ctrl-B, ``?`` and Enter (never Ctrl-C) and reads for a
moment: the referee answers ``?`` with a ``status`` line (its phase, round) and ignores the
other two; MicroPython's prompt answers with ``>>>`` (Ctrl-B leaves the raw REPL and prints the
banner, ``?`` is a syntax error).  Nothing the referee does is disturbed by a probe.
"""

import os
import time

from host_tools.device.live import LiveReader, IN_GAME
from host_tools.device.manifest import FlashError

# The emulated Pico runs several times slower than a real one: SPIT_BOARD_WAIT_S stretches waits.
WAIT_S = float(os.environ.get("SPIT_BOARD_WAIT_S", "1"))
PROBE_S = 2.0
BOOT_S = 20.0


class BoardState:
    def __init__(self, what, status=None, text=""):
        self.what = what          # "running", "prompt" or "silent"
        self.status = status      # the status line (a dict) when running
        self.text = text

    @property
    def in_game(self):
        return self.what == "running" and self.status is not None and self.status.get("status") in IN_GAME

    def __repr__(self):
        return "BoardState(%r, %r)" % (self.what, self.status)


def open_port(port):
    import serial
    return serial.serial_for_url(port, baudrate=115200, timeout=0.05)


def _read_for(ser, seconds, until):
    """Read lines for up to ``seconds`` (stretched by WAIT_S); stop when ``until(line, buf)``."""
    end = time.monotonic() + seconds * WAIT_S
    buf = b""
    while time.monotonic() < end:
        chunk = ser.read(256)
        if not chunk:
            continue
        buf += chunk
        if until(buf):
            break
    return buf


def probe(port, seconds=PROBE_S, ser=None):
    """What the board is doing now (see the module doc)."""
    own = ser is None
    if own:
        try:
            ser = open_port(port)
        except OSError as e:   # (pyserial's SerialException too: the command's own step says it)
            return BoardState("silent", None, str(e))
    try:
        ser.reset_input_buffer()
        ser.write(b"\x02?\r")
        reader = LiveReader()
        found = {}

        def until(buf):
            text = buf.decode(errors="replace")
            if ">>> " in text:
                found["prompt"] = True
                return True
            for line in text.split("\n")[:-1]:
                for kind, obj, _, _ in reader.feed(line):
                    if kind == "status":
                        found["status"] = obj
                        return True
            return False
        buf = _read_for(ser, seconds, until)
        text = buf.decode(errors="replace")
        if "status" in found:
            return BoardState("running", found["status"], text)
        if "prompt" in found:
            return BoardState("prompt", None, text)
        return BoardState("silent", None, text)
    finally:
        if own:
            ser.close()


def refuse_message(status):
    return ("a game is in progress (round %d): run this after the game, or pass --force"
            % status.get("round", 0))


def guard(port, force=False, out=None, restart_prompt=True):
    """Before a command that stops the referee: FlashError during a game (unless ``force``);
    a board found at the prompt is said so (and restarted first if ``restart_prompt``).
    Returns the BoardState."""
    state = probe(port)
    if state.in_game and not force:
        raise FlashError(refuse_message(state.status))
    if state.what == "prompt" and out is not None:
        out.write("the board at %s is at the MicroPython prompt: the referee is not running\n" % port)
        if restart_prompt:
            restart(port, out)
    return state


def restart(port, out=None, seconds=BOOT_S):
    """Soft-reset a board left at the prompt (raw or friendly REPL) and wait for the referee's
    boot line and its ``hello``; returns the session number it will log next."""
    ser = open_port(port)
    try:
        ser.reset_input_buffer()
        ser.write(b"\r\x03\x03")   # (stop anything running at the prompt)
        time.sleep(0.1 * WAIT_S)
        ser.write(b"\x02")         # leave the raw REPL, if it is there
        time.sleep(0.1 * WAIT_S)
        ser.reset_input_buffer()
        ser.write(b"\x04")         # soft reset: main.py runs the referee
        reader = LiveReader()
        got = {}

        def until(buf):
            if b">>> " in buf:
                return True   # (MicroPython's prompt again: no referee started)
            for line in buf.decode(errors="replace").split("\n")[:-1]:
                for kind, obj, _, _ in reader.feed(line):
                    if kind == "hello":
                        got["hello"] = obj
                        return True
            return False
        buf = _read_for(ser, seconds, until)
    finally:
        ser.close()
    if "hello" not in got:
        tail = buf.decode(errors="replace").strip().splitlines()[-3:]
        raise FlashError("the referee did not start again on %s: %s" % (port, " | ".join(tail) or "no output"))
    session = got["hello"].get("session", 0)
    if out is not None:
        out.write("the referee is running again (session %d)\n" % session)
    return session


def clock_script():
    """MicroPython that sets the board's clock to this PC's local time (where it has an RTC)."""
    t = time.localtime()
    return ("try:\n import machine\n machine.RTC().datetime((%d,%d,%d,%d,%d,%d,%d,0))\nexcept Exception:\n pass\n"
            % (t.tm_year, t.tm_mon, t.tm_mday, t.tm_wday, t.tm_hour, t.tm_min, t.tm_sec))


def clock_line():
    """``clock_script`` as one line of MicroPython (for `spit flash`, whose commands --dry-run shows
    one a line): sets the clock on an RP2040 board, does nothing elsewhere (the unix port)."""
    t = time.localtime()
    return ('__import__("machine").RTC().datetime((%d,%d,%d,%d,%d,%d,%d,0)) '
            'if __import__("sys").platform=="rp2" else 0;'
            % (t.tm_year, t.tm_mon, t.tm_mday, t.tm_wday, t.tm_hour, t.tm_min, t.tm_sec))


def wait_running(port, out=None, seconds=BOOT_S):
    """After a reset (the USB port may come and go): probe until the referee answers; says
    ``the referee is running again (session N)``.  Returns the status line."""
    end = time.monotonic() + seconds * WAIT_S
    while time.monotonic() < end:
        try:
            state = probe(port)
        except Exception:  # noqa: BLE001 - the port is not back yet (a real board re-enumerates)
            time.sleep(0.5)
            continue
        if state.what == "running":
            if out is not None:
                out.write("the referee is running again (session %s)\n" % state.status.get("session"))
            return state.status
    raise FlashError("the referee did not answer on %s after the reset" % port)


def notice(port, out, ask=None):
    """For commands that do not stop the referee: a board at the prompt is said so, and the
    referee restarted if ``ask()`` agrees (default: yes)."""
    state = probe(port)
    if state.what == "prompt":
        out.write("the board at %s is at the MicroPython prompt: the referee is not running\n" % port)
        if ask is None or ask():
            restart(port, out)
    return state
