"""A PN532 NFC controller emulated on a pseudo-terminal, speaking the HSU (UART) protocol.

The emulator owns the master side of a pty; host code opens the slave side (``emulator.port``) exactly as it
would open a USB-serial PN532 board, e.g. ``serial.Serial(emulator.port, 115200, timeout=0.1)``, or libnfc
with ``LIBNFC_DEVICE=pn532_uart:<port>``, and talks to it with real frames (PN532 user manual UM0701, section
6.2; building and splitting them is :mod:`host_tools.vboard.pn532_frames`):

* normal information frame ``00 00 FF LEN LCS TFI PD0..PDn DCS 00``; TFI is ``D4`` host->PN532 and ``D5``
  PN532->host, the reply's command code is the request's + 1;
* ``ACK`` ``00 00 FF 00 FF 00`` after every well-formed command, before the reply; a host ``NACK`` makes the
  chip send its last frame again; a host ``ACK`` aborts the command in progress;
* a frame with a bad length or data checksum gets the application-level error frame
  ``00 00 FF 01 FF 7F 81 00``, and so does (after the ACK) an unknown command or bad parameters;
* the chip starts asleep (PN532 v1.6 boots in "low VBat" mode), and sleeps again after PowerDown: bytes are
  ignored until a ``0x55`` wake-up byte arrives (the usual wake-up is ``55 55 00 00 .. 00``).

What the chip does is the virtual board's strict model, the same code
(:class:`host_tools.vboard.pn532_emulator.PN532Emulator` on a real-time clock): the CIU registers, the
field, the tags' ISO 14443-3 states, every command (Diagnose, SetParameters, PowerDown, InAutoPoll,
InListPassiveTarget with every BrTy, ReadRegister, WriteRegister, InCommunicateThru, InDataExchange,
InDeselect, InRelease ...), and the options no document settles (``list_uses_wupa``, ``release_halts`` ...,
passed as keywords).  InListPassiveTarget with MxRtyPassiveActivation 0xFF waits until a card arrives.

Cards (:class:`host_tools.vboard.ntag21x_tag.NtagTag`) come from two sources: tags placed in the field
(:meth:`place_tag` / :meth:`remove_tag`, they stay until removed) and a scripted tap queue (:meth:`tap` /
:meth:`script_taps`): each InListPassiveTarget arriving while a tap is queued puts the next tap in the field
(a command already waiting does not take one; a tap not listed yet stays for the next listing); once listed, the tapped tag counts as lifted but stays
selected for the InDataExchange commands that follow, like a card held briefly over the reader.
"""

import os
import select
import threading
import time
import tty

from host_tools.vboard.pn532_frames import ACK_FRAME, ERROR_FRAME, HOST_TO_PN532, NACK_FRAME, WAKEUP_BYTE, FrameParser, build_frame
from host_tools.vboard import iso14443a
from host_tools.vboard.pn532_emulator import PN532Emulator

CMD_IN_LIST_PASSIVE_TARGET = 0x4A
FIRMWARE_VERSION = bytes([0x32, 0x01, 0x06, 0x07])


class RealClock:
    """``now_us`` in real time (microseconds since the emulator started)."""

    def __init__(self):
        self._t0 = time.monotonic()

    @property
    def now_us(self):
        return int((time.monotonic() - self._t0) * 1e6)


class PN532HsuEmulator:
    """A PN532 on a pty. Use as a context manager; ``port`` is the path host code opens.

    ``silent=True`` makes a port where nothing answers (a reader that is unplugged or not a PN532).
    ``reply_delay_s`` is the chip's processing time before each reply (0: the ACK and the reply
    go out at once); ``retry_interval_s`` the time between the listing's activation attempts
    (0: 0.1 ms, so that finite retry budgets end fast).
    Other keywords are the model's options (``host_tools/vboard/pn532_options.py``).
    """

    def __init__(self, silent=False, reply_delay_s=0.0, retry_interval_s=0.0, **options):
        self.silent = silent
        self.clock = RealClock()
        # No time in the chip but what is asked for: the host's timeouts (0.1-0.2 s) then
        # never race the emulator thread's scheduling on a loaded machine.
        self.chip = PN532Emulator(self.clock, asleep=False, ack_us=0, anticollision_us=0,
                                  command_us=int(reply_delay_s * 1e6),
                                  attempt_us=max(100, int(retry_interval_s * 1e6)), **options)
        self.awake = False
        self.tap_queue = []           # scripted taps, consumed one per InListPassiveTarget
        self.log = []                 # (command code, params) of each command received, for tests
        self._tapped = []             # tapped tags in the field until listed
        self._lock = threading.RLock()
        self._parser = FrameParser()
        self._stop = threading.Event()
        self._thread = None
        self._master_fd = None
        self._slave_fd = None
        self.port = None

    # ----- lifecycle -------------------------------------------------------------------------------------
    def start(self):
        """Create the pty and start serving it in a background thread."""
        self._master_fd, self._slave_fd = os.openpty()
        tty.setraw(self._slave_fd)
        self.port = os.ttyname(self._slave_fd)
        self._thread = threading.Thread(target=self._serve, name="pn532-hsu-emulator", daemon=True)
        self._thread.start()
        return self

    def close(self):
        """Stop the thread and close the pty."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for fd in (self._master_fd, self._slave_fd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master_fd = self._slave_fd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # ----- the simulated world ------------------------------------------------------------------------------
    @property
    def field_tags(self):
        return [tag for tag in self.chip.tags if tag not in self._tapped]

    @property
    def selected_tag(self):
        selected = self.chip._selected
        return selected[0] if selected else None

    def place_tag(self, tag):
        """Put a tag on the reader; it stays until :meth:`remove_tag`. A waiting InListPassiveTarget answers."""
        with self._lock:
            self.chip.place_tag(tag)
        return tag

    def remove_tag(self, tag=None):
        """Lift ``tag`` (default: every tag, including one just tapped) off the reader."""
        with self._lock:
            chip = self.chip
            lifted = list(chip.tags) + list(chip.held) if tag is None else [tag]
            for one in lifted:
                chip.remove_tag(one.uid)
                if one in chip.held:
                    chip.held.remove(one)
                one.power_up()
                if one in self._tapped:
                    self._tapped.remove(one)

    def tap(self, tag):
        """Queue one tap: the next InListPassiveTarget returns ``tag``."""
        self.script_taps([tag])
        return tag

    def script_taps(self, tags):
        """Queue a sequence of taps; each InListPassiveTarget arriving from now on takes the next one."""
        with self._lock:
            self.tap_queue.extend(tags)

    # ----- serving -------------------------------------------------------------------------------------
    def _serve(self):
        master = self._master_fd
        if master is None:
            return
        while not self._stop.is_set():
            with self._lock:
                nxt = self.chip.next_event_us()
                now = self.clock.now_us
            wait = 0.02 if nxt is None else min(0.02, max(0.0, (nxt - now) / 1e6))
            try:
                ready, _, _ = select.select([master], [], [], wait)
            except (OSError, ValueError):
                return
            data = b""
            if ready:
                try:
                    data = os.read(master, 1024)
                except OSError:
                    data = b""
            with self._lock:
                if data and not self.silent:
                    self._on_bytes(data)
                self._flush()

    def _send(self, data):
        if self._master_fd is None:
            return
        try:
            os.write(self._master_fd, data)
        except OSError:
            pass

    def _flush(self):
        """Send what the chip has ready; lift tapped tags once listed."""
        chip = self.chip
        while True:
            frame = chip.read_output()
            if frame is None:
                break
            if not self.silent:
                self._send(frame)
        for tag in list(self._tapped):
            if tag.state == iso14443a.ACTIVE and tag in chip._selected:
                self._tapped.remove(tag)
                chip.tags.remove(tag)       # lifted, still selected for InDataExchange
                chip.held.append(tag)
        if chip.powered_down:
            chip.powered_down = False
            self.awake = False              # PowerDown: asleep until the next 0x55

    def _on_bytes(self, data):
        if not self.awake:
            index = data.find(bytes([WAKEUP_BYTE]))
            if index < 0:
                return
            self.awake = True
            self._parser.buffer.clear()
            data = data[index:]
        for kind, payload in self._parser.feed(data):
            if kind == "ack":
                self.chip.host_frame(ACK_FRAME)
            elif kind == "nack":
                self.chip.host_frame(NACK_FRAME)
            elif kind == "bad" or len(payload) < 2 or payload[0] != HOST_TO_PN532:
                self._send(ERROR_FRAME)
            else:
                self._on_frame(payload)

    def _on_frame(self, payload):
        command, params = payload[1], bytes(payload[2:])
        self.log.append((command, params))
        if command == CMD_IN_LIST_PASSIVE_TARGET and self.tap_queue and not self._tapped:
            # (A tap whose listing was replaced before it answered stays for this one.)
            tag = self.tap_queue.pop(0)
            self._tapped = [tag]
            self.chip.place_tag(tag)
        if len(payload) > 254:
            self._send(ERROR_FRAME)        # (extended frames: no command here needs one)
            return
        self.chip.host_frame(build_frame(payload))
