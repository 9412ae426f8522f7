"""PN532 NFC controller: the protocol core shared by the SPI and I2C transports.

Frames (PN532 user manual, section 6.2)::

    host -> chip   00 00 FF LEN LCS D4 CMD PARAMS... DCS 00
    chip -> host   00 00 FF LEN LCS D5 CMD+1 DATA... DCS 00
    ACK            00 00 FF 00 FF 00        NACK   00 00 FF FF 00 00
    error frame    00 00 FF 01 FF 7F 81 00  (application-level / syntax error)

LEN + LCS == 0 and TFI + DATA + DCS == 0 (mod 256).  Every command is acknowledged first; the
reply follows when the chip has done the work (the IRQ pin falls, or the status byte says
ready).

Nothing here waits for the chip except the blocking convenience calls meant for boot and
tools (``setup``, ``firmware_version``, ``read_uid``...).  ``start_*()`` only writes the
command frame; ``reply_ready()`` reads the ACK once it is there (a NACK or no ACK within
``ack_timeout_ms``, 30 ms by default, raises) and then says whether the reply is waiting;
``finish_*()`` reads it.  Frames are read length first: the 6-byte header, then exactly the
rest (``_read_frame`` in the transports).

Raw ISO14443A exchanges (InCommunicateThru, WriteRegister): ``PN532Raw`` in
``drivers/pn532_raw.py``, the base of the transports.

Halting a read tag: InDeselect (0x44) or InRelease (0x52, the default) both send HLTA.

All buffers are allocated once in ``__init__``.  Timeouts use ``time.ticks_ms`` and
``time.ticks_diff``, so they survive the tick counter wrapping.  Subclasses implement the
transport hooks ``_write_frame_bytes``, ``_read_ready``, ``_read_frame`` (and ``wake``).
"""

from micropython import const
import time

from drivers.pn532_errors import (HEADER_SIZE, PN532BusError, PN532ChecksumError,  # noqa: F401
                                  PN532Error, PN532ErrorFrame, PN532Nack, PN532StatusError,
                                  PN532Timeout, frame_size)

_TFI_HOST = const(0xD4)
_TFI_CHIP = const(0xD5)
_TFI_ERROR = const(0x7F)

_CMD_GET_FIRMWARE_VERSION = const(0x02)
_CMD_SAM_CONFIGURATION = const(0x14)
_CMD_RF_CONFIGURATION = const(0x32)
_CMD_IN_DESELECT = const(0x44)
_CMD_IN_LIST_PASSIVE_TARGET = const(0x4A)
_CMD_IN_RELEASE = const(0x52)

_RF_ITEM_FIELD = const(0x01)
_RF_ITEM_TIMINGS = const(0x02)
_RF_ITEM_MAX_RETRIES = const(0x05)
_RETRIES_ATR_DEFAULT = const(0xFF)
_RETRIES_PSL_DEFAULT = const(0x01)
_ATR_TIMEOUT_DEFAULT = const(0x0B)   # 102.4 ms (unused by the referee)
# fRetryTimeout: how long InCommunicateThru waits for the tag.  0x05 = 100 us * 2**4 = 1.6 ms:
# a type A tag answers ~90 us after the frame, so a silent pile costs little.
THRU_TIMEOUT_1600US = const(0x05)

_TX_SIZE = const(24)
# Largest reply we accept: a 10-byte UID plus a typical ATS fits with room to spare.
RX_SIZE = const(64)
_POLL_US = const(200)
_BOOT_TIMEOUT_MS = const(100)
ACK_TIMEOUT_MS = const(30)

HALT_DESELECT = const(0x44)
HALT_RELEASE = const(0x52)
# UID buffers handed to finish_list() need this many bytes (triple-size ISO14443A UID).
MAX_UID_LEN = const(10)


class PN532:
    """Protocol core.  Use a transport: ``PN532_SPI`` or ``PN532_I2C`` (via ``PN532Raw``)."""

    def __init__(self, irq=None, ack_timeout_ms=ACK_TIMEOUT_MS, halt_command=HALT_RELEASE,
                 reset=None):
        # irq: optional machine.Pin wired to the PN532's P70_IRQ (low = reply ready).
        # reset: optional output Pin on RSTPD_N (low = reset / power down).
        self._irq = irq
        self.reset_pin = reset
        if reset is not None:
            reset.value(1)
        self.ack_timeout_ms = ack_timeout_ms
        self.halt_command = halt_command
        self._tx = bytearray(_TX_SIZE)
        self._tx_mv = memoryview(self._tx)
        self._rx = bytearray(RX_SIZE)
        self._rx_mv = memoryview(self._rx)
        self._params = bytearray(9)
        self._pending = 0          # command whose reply is still to be read, 0 = none
        self._awaiting_ack = False
        self._sent_ms = 0
        self._data_start = 0       # index in _rx of the reply's first data byte
        self.thru_status = 0       # status byte of the last InCommunicateThru reply
        # The second target of a MaxTg=2 listing (finish_list fills them in; length 0 = none).
        self.uid2 = bytearray(MAX_UID_LEN)
        self.uid2_len = 0
        # Details of the last listed target (finish_list fills them in).
        self.target = 0
        self.sens_res = 0
        self.sel_res = 0

    # ---- transport hooks -------------------------------------------------------------
    def _write_frame_bytes(self, frame):
        """Send one complete frame (a memoryview) to the chip."""
        raise NotImplementedError

    def _read_ready(self):
        """True when the chip has an ACK or reply waiting (status byte bit 0)."""
        raise NotImplementedError

    def _read_frame(self, rx):
        """Read the waiting frame into ``rx``: its header first, then the rest.

        Returns the number of bytes read (at least ``HEADER_SIZE``)."""
        raise NotImplementedError

    def wake(self, settle=True):
        """Wake the chip from power-down (transport specific).  ``settle=False`` skips the
        final ~2 ms wait, for callers that wait without blocking."""

    def bus_clear(self):
        """Free a hung bus (I2C only); True if something was done."""
        return False

    # ---- frames ------------------------------------------------------------------------
    def _build_frame(self, command, params, nparams):
        tx = self._tx
        length = nparams + 2
        tx[0] = 0x00
        tx[1] = 0x00
        tx[2] = 0xFF
        tx[3] = length
        tx[4] = (-length) & 0xFF
        tx[5] = _TFI_HOST
        tx[6] = command
        total = _TFI_HOST + command
        for i in range(nparams):
            b = params[i]
            tx[7 + i] = b
            total += b
        tx[7 + nparams] = (-total) & 0xFF
        tx[8 + nparams] = 0x00
        return nparams + 9

    def _chip_ready(self):
        if self._irq is not None:
            return self._irq.value() == 0
        return self._read_ready()

    def _wait_ready(self, timeout_ms):
        start = time.ticks_ms()
        while not self.reply_ready():
            if time.ticks_diff(time.ticks_ms(), start) >= timeout_ms:
                raise PN532Timeout("PN532 not ready")
            time.sleep_us(_POLL_US)

    def _send(self, command, params, nparams):
        """Write a command frame.  Its ACK is read later by ``reply_ready()``."""
        if self._pending:
            self.abort()
        size = self._build_frame(command, params, nparams)
        self._write_frame_bytes(self._tx_mv[:size])
        self._pending = command
        self._awaiting_ack = True
        self._sent_ms = time.ticks_ms()

    def _take_ack(self):
        self._awaiting_ack = False
        self._read_frame(self._rx_mv)
        rx = self._rx
        if rx[0] == 0 and rx[1] == 0 and rx[2] == 0xFF:
            if rx[3] == 0x00 and rx[4] == 0xFF:
                return
            if rx[3] == 0xFF and rx[4] == 0x00:
                self._pending = 0
                raise PN532Nack("PN532 sent NACK")
        self._pending = 0
        raise PN532Error("PN532 sent no ACK")

    def _finish(self, command):
        """Read and check the reply to ``command``; returns its data length."""
        if self._pending != command or self._awaiting_ack:
            raise PN532Error("no such reply pending")
        self._pending = 0
        self._read_frame(self._rx_mv)
        rx = self._rx
        if rx[0] != 0x00 or rx[1] != 0x00 or rx[2] != 0xFF:
            raise PN532Error("bad preamble")
        length = rx[3]
        lcs = rx[4]
        if length == 0xFF and lcs == 0x00:
            raise PN532Nack("PN532 sent NACK")
        if (length + lcs) & 0xFF:
            raise PN532ChecksumError("bad length checksum")
        if length < 2 and not (length == 1 and rx[5] == _TFI_ERROR):
            raise PN532Error("frame too short")
        end = 5 + length  # index of DCS
        if end >= RX_SIZE:
            raise PN532Error("frame too long")
        total = 0
        for j in range(5, end + 1):
            total += rx[j]
        if total & 0xFF:
            raise PN532ChecksumError("bad data checksum")
        if rx[5] == _TFI_ERROR:
            raise PN532ErrorFrame("PN532 error frame")
        if rx[5] != _TFI_CHIP or rx[6] != command + 1:
            raise PN532Error("unexpected reply")
        self._data_start = 7
        return length - 2

    # ---- public, non-blocking ---------------------------------------------------------
    def reply_ready(self):
        """True when the pending reply can be read.

        While the command's ACK is outstanding this reads it as soon as the chip has it, and
        raises ``PN532Timeout`` once ``ack_timeout_ms`` passed without one (``PN532Nack`` for
        a NACK).  Each call costs at most one status poll and one ACK read.
        """
        if self._awaiting_ack:
            if not self._chip_ready():
                if time.ticks_diff(time.ticks_ms(), self._sent_ms) >= self.ack_timeout_ms:
                    self._awaiting_ack = False
                    self._pending = 0
                    raise PN532Timeout("no ACK")
                return False
            self._take_ack()
        return self._chip_ready()

    @property
    def awaiting_ack(self):
        """True while the pending command's ACK has not been read (its IRQ edge is no reply)."""
        return self._awaiting_ack

    @property
    def pending(self):
        """Command code whose reply is awaited, 0 when idle."""
        return self._pending

    def abort(self):
        """Cancel the command in progress (the host sends an ACK frame)."""
        self._pending = 0
        self._awaiting_ack = False
        tx = self._tx
        tx[0] = 0x00
        tx[1] = 0x00
        tx[2] = 0xFF
        tx[3] = 0x00
        tx[4] = 0xFF
        tx[5] = 0x00
        self._write_frame_bytes(self._tx_mv[:6])

    def start_list(self, max_targets=1):
        """Send InListPassiveTarget (106 kbps type A)."""
        params = self._params
        params[0] = max_targets
        params[1] = 0x00
        self._send(_CMD_IN_LIST_PASSIVE_TARGET, params, 2)

    def finish_list(self, uid_buf):
        """Read the InListPassiveTarget reply; copy the first UID into ``uid_buf`` (a second
        target, MaxTg=2, goes to ``uid2``/``uid2_len``).

        Returns the UID length, 0 when no tag answered within MxRtyPassiveActivation.
        """
        n = self._finish(_CMD_IN_LIST_PASSIVE_TARGET)
        rx = self._rx
        d = self._data_start
        self.uid2_len = 0
        if n < 1 or rx[d] == 0:
            return 0
        end = d + n
        # TargetData (type A): Tg SENS_RES(2) SEL_RES NFCIDLength NFCID [ATS if SEL_RES bit 5]
        pos = d + 1
        if pos + 5 > end:
            raise PN532Error("short target data")
        self.target = rx[pos]
        self.sens_res = (rx[pos + 1] << 8) | rx[pos + 2]
        self.sel_res = rx[pos + 3]
        uid_len = self._copy_uid(pos, end, uid_buf)
        if rx[d] > 1:
            pos = self._next_target(pos, uid_len, end)
            self.uid2_len = self._copy_uid(pos, end, self.uid2)
        return uid_len

    def _copy_uid(self, pos, end, out):
        rx = self._rx
        if pos + 5 > end:
            raise PN532Error("short target data")
        uid_len = rx[pos + 4]
        if uid_len > len(out) or pos + 5 + uid_len > end:
            raise PN532Error("bad UID length")
        for i in range(uid_len):
            out[i] = rx[pos + 5 + i]
        return uid_len

    def _next_target(self, pos, uid_len, end):
        after = pos + 5 + uid_len
        if self._rx[pos + 3] & 0x20 and after < end:   # ISO 14443-4 tag: ATS follows
            after += self._rx[after]
        return after

    def start_halt(self):
        """Halt the listed tag (HLTA via InRelease or InDeselect, target 0 = all)."""
        self._send(self.halt_command, b"\x00", 1)

    def finish_halt(self):
        n = self._finish(self.halt_command)
        status = self._rx[self._data_start] & 0x3F if n > 0 else 0
        if status:
            raise PN532StatusError("halt status 0x%02x" % status)

    def start_field(self, on):
        """RFConfiguration item 1: RF field on/off.  Off then on resets every tag in the field."""
        params = self._params
        params[0] = _RF_ITEM_FIELD
        params[1] = 0x01 if on else 0x00
        self._send(_CMD_RF_CONFIGURATION, params, 2)

    def finish_field(self):
        self._finish(_CMD_RF_CONFIGURATION)

    # ---- setup in non-blocking steps ------------------------------------------------------
    SETUP_STEPS = 4

    def start_setup_step(self, step, passive_retries):
        """Send setup command ``step`` (0..SETUP_STEPS-1); the caller wakes the chip first."""
        params = self._params
        if step == 0:      # SAMConfiguration: normal mode, 1 s virtual-card timeout, P70_IRQ used
            params[0] = 0x01
            params[1] = 0x14
            params[2] = 0x01
            self._send(_CMD_SAM_CONFIGURATION, params, 3)
        elif step == 1:    # RFConfiguration item 5: MxRtyPassiveActivation
            params[0] = _RF_ITEM_MAX_RETRIES
            params[1] = _RETRIES_ATR_DEFAULT
            params[2] = _RETRIES_PSL_DEFAULT
            params[3] = passive_retries & 0xFF
            self._send(_CMD_RF_CONFIGURATION, params, 4)
        elif step == 2:    # RFConfiguration item 2: short InCommunicateThru timeout
            params[0] = _RF_ITEM_TIMINGS
            params[1] = 0x00
            params[2] = _ATR_TIMEOUT_DEFAULT
            params[3] = THRU_TIMEOUT_1600US
            self._send(_CMD_RF_CONFIGURATION, params, 4)
        else:
            self._send(_CMD_GET_FIRMWARE_VERSION, params, 0)

    def finish_setup_step(self, step):
        """Read the reply of setup ``step``; the last one returns the firmware version."""
        command = (_CMD_SAM_CONFIGURATION, _CMD_RF_CONFIGURATION, _CMD_RF_CONFIGURATION,
                   _CMD_GET_FIRMWARE_VERSION)[step]
        n = self._finish(command)
        if command != _CMD_GET_FIRMWARE_VERSION:
            return None
        if n < 4:
            raise PN532Error("short firmware version")
        d = self._data_start
        rx = self._rx
        return (rx[d], rx[d + 1], rx[d + 2], rx[d + 3])

    # ---- public, blocking (boot and tools) ------------------------------------------
    def firmware_version(self, timeout_ms=_BOOT_TIMEOUT_MS):
        """GetFirmwareVersion -> (ic, version, revision, support), e.g. (0x32, 1, 6, 7)."""
        self.start_setup_step(3, 0)
        self._wait_ready(timeout_ms)
        return self.finish_setup_step(3)

    def sam_configuration(self, timeout_ms=_BOOT_TIMEOUT_MS):
        """SAMConfiguration: normal mode, 1 s virtual-card timeout, P70_IRQ driven."""
        self.start_setup_step(0, 0)
        self._wait_ready(timeout_ms)
        self.finish_setup_step(0)

    def set_passive_retries(self, retries, timeout_ms=_BOOT_TIMEOUT_MS):
        """RFConfiguration item 5 (MxRtyPassiveActivation): InListPassiveTarget tries
        ``retries + 1`` times and then answers "no target".  0xFF would retry forever."""
        self.start_setup_step(1, retries)
        self._wait_ready(timeout_ms)
        self.finish_setup_step(1)

    def set_field(self, on, timeout_ms=_BOOT_TIMEOUT_MS):
        self.start_field(on)
        self._wait_ready(timeout_ms)
        self.finish_field()

    def halt(self, timeout_ms=_BOOT_TIMEOUT_MS):
        self.start_halt()
        self._wait_ready(timeout_ms)
        self.finish_halt()

    def read_uid(self, uid_buf, timeout_ms=_BOOT_TIMEOUT_MS):
        """Blocking list: UID length (0 = none).  For bring-up tools and enrollment."""
        self.start_list()
        self._wait_ready(timeout_ms)
        return self.finish_list(uid_buf)

    def setup(self, passive_retries=1, timeout_ms=_BOOT_TIMEOUT_MS):
        """Wake the chip and configure it for the referee.  Returns the firmware version."""
        self._pending = 0
        self._awaiting_ack = False
        self.wake()
        version = None
        for step in range(self.SETUP_STEPS):
            self.start_setup_step(step, passive_retries)
            self._wait_ready(timeout_ms)
            version = self.finish_setup_step(step)
        return version
