"""A PN532 NFC controller emulated on a pseudo-terminal, speaking the HSU (UART) protocol.

The emulator owns the master side of a pty; host code opens the slave side (``emulator.port``) exactly as it
would open a USB-serial PN532 board, e.g. ``serial.Serial(emulator.port, 115200, timeout=0.1)``, and talks to
it with real frames (PN532 user manual UM0701, section 6.2; building and splitting them is
:mod:`host_tools.pn532_frames`):

* normal information frame ``00 00 FF LEN LCS TFI PD0..PDn DCS 00`` with ``LEN + LCS == 0`` and
  ``TFI + PD0 + .. + PDn + DCS == 0`` (mod 256); TFI is ``D4`` host->PN532 and ``D5`` PN532->host, the
  reply's command code is the request's + 1. Extended frames (``00 00 FF FF FF LENM LENL LCS ...``) are
  accepted too;
* ``ACK`` ``00 00 FF 00 FF 00`` is sent after every well-formed command, before the reply;
* a host ``NACK`` ``00 00 FF FF 00 00`` makes the emulator send its last reply again; a host ``ACK`` aborts
  the command in progress (an InListPassiveTarget that is still waiting for a card);
* a frame with a bad length or data checksum, an unknown command or bad parameters is answered with the
  application-level error frame ``00 00 FF 01 FF 7F 81 00`` (after the ACK for the last two);
* the chip starts asleep (PN532 v1.6 boots in "low VBat" mode): bytes are ignored until a ``0x55`` wake-up
  byte arrives; the usual wake-up is ``55 55 00 00 .. 00`` followed by SAMConfiguration.

Commands: GetFirmwareVersion (IC 0x32, Ver 1, Rev 6, Support 7), SAMConfiguration, RFConfiguration
(item 5 sets MxRtyPassiveActivation), InListPassiveTarget for ISO14443A (one target), InDataExchange with
the NTAG2xx READ (0x30, 16 bytes = 4 pages, roll-over at the end of memory) and WRITE (0xA2, one page)
commands, InRelease and InDeselect.

InListPassiveTarget with no card in the field: with the default MxRtyPassiveActivation 0xFF the real chip
keeps trying until a card arrives, so the emulator stays silent (the adafruit library times out and returns
None) and answers as soon as a card is placed. With a finite retry count it answers ``NbTg = 0`` after the
retries (``retry_interval_s`` each, 0 by default so tests stay fast).

HALT is modelled like the virtual board's emulator, with the same ISO 14443-3 tag states
(``host_tools/vboard/iso14443a.py``): InRelease/InDeselect send HLTA to the listed tag, a
halted tag stays silent to the next InListPassiveTarget (REQA) until it leaves the field or
the field is reset (RFConfiguration item 1 off), and ``list_uses_wupa=True`` models a chip
whose listing wakes halted tags.

Cards (:class:`host_tools.ntag21x_tag.NtagTag`) come from two sources: tags placed in the field
(:meth:`place_tag` / :meth:`remove_tag`, they stay until removed) and a scripted tap queue (:meth:`tap` /
:meth:`script_taps`): each InListPassiveTarget arriving while a tap is queued consumes it (a command
already waiting does not, see :meth:`_service_pending`); the tapped tag then counts as lifted but stays
selected for the InDataExchange commands that follow, like a card held briefly over the reader.
"""

import os
import select
import threading
import time
import tty

from host_tools.ntag21x_tag import NTAG_READ, NTAG_WRITE
from host_tools.pn532_frames import (ACK_FRAME, ERROR_FRAME, HOST_TO_PN532, PN532_TO_HOST, WAKEUP_BYTE,
                                         FrameParser, build_frame)

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_DATA_EXCHANGE = 0x40
CMD_IN_DESELECT = 0x44
CMD_IN_LIST_PASSIVE_TARGET = 0x4A
CMD_IN_RELEASE = 0x52

STATUS_OK = 0x00
STATUS_TIMEOUT = 0x01          # no answer from the target (card gone)
STATUS_TAG_NAK = 0x14          # the tag answered NAK (used here for invalid page addresses)
STATUS_BAD_CONTEXT = 0x27      # command not acceptable in the current context (no target selected)
STATUS_INVALID_PARAM = 0x10

FIRMWARE_VERSION = bytes([0x32, 0x01, 0x06, 0x07])


class PN532HsuEmulator:
    """A PN532 on a pty. Use as a context manager; ``port`` is the path host code opens.

    ``silent=True`` makes a port where nothing answers (a reader that is unplugged or not a PN532).
    ``reply_delay_s`` models the chip's processing time before each reply (0: answer at once).
    """

    def __init__(self, silent=False, reply_delay_s=0.0, retry_interval_s=0.0, list_uses_wupa=False):
        self.silent = silent
        self.list_uses_wupa = list_uses_wupa
        self.reply_delay_s = reply_delay_s
        self.retry_interval_s = retry_interval_s
        self.awake = False
        self.sam_configured = False
        self.max_retries_passive = 0xFF
        self.field_tags = []          # tags lying on the reader until removed
        self.tap_queue = []           # scripted taps, consumed one per InListPassiveTarget
        self.selected_tag = None      # target 1 after a successful InListPassiveTarget
        self._target_active = False   # a target was listed and not released since
        self.log = []                 # (command code, params) of each command received, for tests
        self._lock = threading.RLock()
        self._parser = FrameParser()
        self._last_reply = None
        self._pending_list = False    # an InListPassiveTarget waiting for a card
        self._pending_deadline = None
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
    def place_tag(self, tag):
        """Put a tag on the reader; it stays until :meth:`remove_tag`. A waiting InListPassiveTarget answers."""
        with self._lock:
            self.field_tags.append(tag)
            self._service_pending()
        return tag

    def remove_tag(self, tag=None):
        """Lift ``tag`` (default: every tag, including one just tapped) off the reader."""
        with self._lock:
            if tag is None:
                for lifted in self.field_tags:
                    lifted.iso.power_up()      # out of the field: HALT forgotten
                self.field_tags.clear()
                self.selected_tag = None
                return
            if tag in self.field_tags:
                self.field_tags.remove(tag)
                tag.iso.power_up()
            if self.selected_tag is tag:
                self.selected_tag = None

    def tap(self, tag):
        """Queue one tap: the next InListPassiveTarget returns ``tag``."""
        self.script_taps([tag])
        return tag

    def script_taps(self, tags):
        """Queue a sequence of taps; each InListPassiveTarget returns the next one."""
        with self._lock:
            self.tap_queue.extend(tags)
            self._service_pending()

    # ----- serving -------------------------------------------------------------------------------------
    def _serve(self):
        master = self._master_fd
        if master is None:
            return
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([master], [], [], 0.02)
            except (OSError, ValueError):
                return
            if ready:
                try:
                    data = os.read(master, 1024)
                except OSError:
                    data = b""
                if data and not self.silent:
                    with self._lock:
                        self._on_bytes(data)
            with self._lock:
                self._service_pending()

    def _send(self, data):
        if self._master_fd is None:
            return
        try:
            os.write(self._master_fd, data)
        except OSError:
            pass

    def _reply(self, payload):
        if self.reply_delay_s:
            time.sleep(self.reply_delay_s)
        frame = build_frame(bytes([PN532_TO_HOST]) + bytes(payload))
        self._last_reply = frame
        self._send(frame)

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
                self._pending_list = False        # host abort
            elif kind == "nack":
                if self._last_reply is not None:
                    self._send(self._last_reply)
            elif kind == "bad":
                self._send(ERROR_FRAME)
            else:
                self._on_frame(payload)

    def _on_frame(self, payload):
        if len(payload) < 2 or payload[0] != HOST_TO_PN532:
            self._send(ERROR_FRAME)
            return
        command, params = payload[1], payload[2:]
        self.log.append((command, bytes(params)))
        self._pending_list = False                # a new command aborts a waiting one
        self._send(ACK_FRAME)
        handler = {
            CMD_GET_FIRMWARE_VERSION: self._cmd_firmware_version,
            CMD_SAM_CONFIGURATION: self._cmd_sam_configuration,
            CMD_RF_CONFIGURATION: self._cmd_rf_configuration,
            CMD_IN_LIST_PASSIVE_TARGET: self._cmd_in_list_passive_target,
            CMD_IN_DATA_EXCHANGE: self._cmd_in_data_exchange,
            CMD_IN_RELEASE: self._cmd_in_release,
            CMD_IN_DESELECT: self._cmd_in_release,
        }.get(command)
        if handler is None or handler(command, params) is False:
            self._last_reply = ERROR_FRAME
            self._send(ERROR_FRAME)

    # ----- commands ------------------------------------------------------------------------------------
    def _cmd_firmware_version(self, command, params):
        self._reply(bytes([command + 1]) + FIRMWARE_VERSION)

    def _cmd_sam_configuration(self, command, params):
        if len(params) < 1 or params[0] not in (1, 2, 3, 4):
            return False
        self.sam_configured = True
        self._reply(bytes([command + 1]))

    def _cmd_rf_configuration(self, command, params):
        if len(params) < 2:
            return False
        if params[0] == 0x05:                      # MaxRetries: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation
            if len(params) < 4:
                return False
            self.max_retries_passive = params[3]
        elif params[0] == 0x01 and not params[1] & 0x01:
            self.selected_tag = None               # RF field off: every tag loses power
            for tag in self.field_tags:
                tag.iso.power_up()
        self._reply(bytes([command + 1]))

    def _cmd_in_list_passive_target(self, command, params):
        if len(params) < 2 or params[0] not in (1, 2) or params[1] != 0x00:
            return False                           # only 106 kbps type A is emulated
        self.selected_tag = None
        self._target_active = False
        self._pending_list = True
        if self.max_retries_passive == 0xFF:
            self._pending_deadline = None
        else:
            attempts = self.max_retries_passive + 1
            self._pending_deadline = time.monotonic() + attempts * self.retry_interval_s
        self._service_pending(take_tap=True)

    def _next_tag(self, take_tap):
        if take_tap and self.tap_queue:
            return self.tap_queue.pop(0)
        answering = [tag for tag in self.field_tags if not tag.iso.halted or self.list_uses_wupa]
        # Anticollision picks the highest UID, as in the virtual board's emulator.
        return max(answering, key=lambda tag: tag.uid) if answering else None

    def _service_pending(self, take_tap=False):
        """Answer a waiting InListPassiveTarget if a card is there or its retry budget is spent.

        Scripted taps go only to a command that arrives while the tap is queued (``take_tap``), never to
        one already waiting: a host that gave up on its command (and will flush the late reply) cannot
        swallow a tap. A placed tag is reported to a waiting command at once, as by a real chip.
        """
        if not self._pending_list or self.silent or self._master_fd is None:
            return
        tag = self._next_tag(take_tap)
        if tag is not None:
            self._pending_list = False
            self.selected_tag = tag
            self._target_active = True
            uid = tag.uid
            self._reply(bytes([CMD_IN_LIST_PASSIVE_TARGET + 1, 1, 1]) + tag.sens_res
                        + bytes([tag.sel_res, len(uid)]) + uid)
        elif self._pending_deadline is not None and time.monotonic() >= self._pending_deadline:
            self._pending_list = False
            self._reply(bytes([CMD_IN_LIST_PASSIVE_TARGET + 1, 0]))

    def _cmd_in_data_exchange(self, command, params):
        if len(params) < 2:
            return False
        status_reply = bytes([command + 1])
        tag = self.selected_tag
        if params[0] != 1 or not self._target_active:
            self._reply(status_reply + bytes([STATUS_BAD_CONTEXT]))
            return None
        if tag is None:                            # the selected card was lifted off the reader
            self._reply(status_reply + bytes([STATUS_TIMEOUT]))
            return None
        tag_command, args = params[1], params[2:]
        if tag_command == NTAG_READ and len(args) == 1:
            data = tag.read(args[0])
            if data is None:
                self._reply(status_reply + bytes([STATUS_TAG_NAK]))
            else:
                self._reply(status_reply + bytes([STATUS_OK]) + data)
        elif tag_command == NTAG_WRITE and len(args) == 5:
            ok = tag.write(args[0], args[1:5])
            self._reply(status_reply + bytes([STATUS_OK if ok else STATUS_TAG_NAK]))
        else:
            self._reply(status_reply + bytes([STATUS_INVALID_PARAM]))
        return None

    def _cmd_in_release(self, command, params):
        """InRelease / InDeselect: HLTA to the listed tag (it stays silent to REQA)."""
        if len(params) < 1:
            return False
        if self.selected_tag is not None and self.selected_tag in self.field_tags:
            self.selected_tag.iso.halt()
        self.selected_tag = None
        self._target_active = False
        self._reply(bytes([command + 1, STATUS_OK]))
