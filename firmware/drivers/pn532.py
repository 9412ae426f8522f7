"""PN532 NFC controller: the protocol core shared by the SPI and I2C transports.

Frames (PN532 user manual, section 6.2)::

    host -> chip   00 00 FF LEN LCS D4 CMD PARAMS... DCS 00
    chip -> host   00 00 FF LEN LCS D5 CMD+1 DATA... DCS 00
    ACK            00 00 FF 00 FF 00        NACK   00 00 FF FF 00 00
    error frame    00 00 FF 01 FF 7F 81 00  (application-level / syntax error)

LEN + LCS == 0 and TFI + DATA + DCS == 0 (mod 256).  Every command is acknowledged first; the
reply follows when the chip has done the work (the IRQ pin falls, or the status byte says
ready).

The core never blocks for longer than a command's ACK (well under a millisecond on a real
chip, bounded by ``ack_timeout_ms``) except in the convenience calls meant for boot
(``setup``, ``firmware_version``, ``sam_configuration``...).  The firmware loop uses the
split calls: ``start_list()`` ... ``reply_ready()`` ... ``finish_list(uid_buf)``.

Halting a read tag: the PN532 offers InDeselect (0x44, keeps the target's data in the chip)
and InRelease (0x52, forgets it).  For a plain ISO14443A tag (NTAG, MIFARE) both send HLTA,
so the tag stays silent to the REQA of the next InListPassiveTarget while it stays powered
in the field.  InRelease is the default (``HALT_RELEASE``): the chip starts every listing
with a clean target table.  ``halt_command=HALT_DESELECT`` selects the other one.

All buffers are allocated once in ``__init__``.  Timeouts use ``time.ticks_ms`` and
``time.ticks_diff``, so they survive the tick counter wrapping.  Subclasses implement the
transport hooks ``_write_frame_bytes``, ``_read_ready``, ``_read_into`` (and ``wake``).
"""

from micropython import const
import time

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
_RF_ITEM_MAX_RETRIES = const(0x05)
_RETRIES_ATR_DEFAULT = const(0xFF)
_RETRIES_PSL_DEFAULT = const(0x01)

_TX_SIZE = const(24)
# Largest reply we accept: a 10-byte UID plus a typical ATS fits with room to spare.
RX_SIZE = const(64)
_ACK_SIZE = const(6)
_POLL_US = const(200)
_BOOT_TIMEOUT_MS = const(100)

HALT_DESELECT = const(0x44)
HALT_RELEASE = const(0x52)
# UID buffers handed to finish_list() need this many bytes (triple-size ISO14443A UID).
MAX_UID_LEN = const(10)


class PN532Error(Exception):
    """Anything the PN532 said (or did not say) that the caller should handle and carry on."""
    kind = "error"


class PN532Timeout(PN532Error):
    kind = "timeout"


class PN532Nack(PN532Error):
    kind = "nack"


class PN532ChecksumError(PN532Error):
    kind = "checksum"


class PN532ErrorFrame(PN532Error):
    kind = "error-frame"


class PN532StatusError(PN532Error):
    kind = "status"


class PN532BusError(PN532Error):
    kind = "bus"


class PN532:
    """Protocol core.  Use a transport subclass: ``PN532_SPI`` or ``PN532_I2C``."""

    def __init__(self, irq=None, ack_timeout_ms=10, halt_command=HALT_RELEASE):
        # irq: optional machine.Pin wired to the PN532's P70_IRQ (low = reply ready).
        self._irq = irq
        self.ack_timeout_ms = ack_timeout_ms
        self.halt_command = halt_command
        self._tx = bytearray(_TX_SIZE)
        self._tx_mv = memoryview(self._tx)
        self._rx = bytearray(RX_SIZE)
        self._rx_mv = memoryview(self._rx)
        self._ack_mv = self._rx_mv[:_ACK_SIZE]
        self._params = bytearray(4)
        self._pending = 0          # command whose reply is still to be read, 0 = none
        self._data_start = 0       # index in _rx of the reply's first data byte
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

    def _read_into(self, buf):
        """Read the waiting frame from its first byte into ``buf`` (a memoryview)."""
        raise NotImplementedError

    def wake(self):
        """Wake the chip from power-down (transport specific)."""

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

    def _wait_ready(self, timeout_ms):
        start = time.ticks_ms()
        while not self.reply_ready():
            if time.ticks_diff(time.ticks_ms(), start) >= timeout_ms:
                raise PN532Timeout("PN532 not ready")
            time.sleep_us(_POLL_US)

    def _send(self, command, params, nparams):
        """Write a command frame and consume its ACK.  The reply is then pending."""
        if self._pending:
            self.abort()
        size = self._build_frame(command, params, nparams)
        self._write_frame_bytes(self._tx_mv[:size])
        self._wait_ready(self.ack_timeout_ms)
        self._read_into(self._ack_mv)
        rx = self._rx
        if rx[0] == 0 and rx[1] == 0 and rx[2] == 0xFF:
            if rx[3] == 0x00 and rx[4] == 0xFF:
                self._pending = command
                return
            if rx[3] == 0xFF and rx[4] == 0x00:
                raise PN532Nack("PN532 sent NACK")
        raise PN532Error("PN532 sent no ACK")

    def _finish(self, command):
        """Read and check the reply to ``command``; returns its data length."""
        if self._pending != command:
            raise PN532Error("no such command pending")
        self._pending = 0
        self._read_into(self._rx_mv)
        rx = self._rx
        i = 0
        while i < 3 and rx[i] == 0x00:
            i += 1
        if i == 0 or rx[i] != 0xFF:
            raise PN532Error("bad preamble")
        length = rx[i + 1]
        lcs = rx[i + 2]
        if length == 0xFF and lcs == 0x00:
            raise PN532Nack("PN532 sent NACK")
        if (length + lcs) & 0xFF:
            raise PN532ChecksumError("bad length checksum")
        if length < 2 and not (length == 1 and rx[i + 3] == _TFI_ERROR):
            raise PN532Error("frame too short")
        start = i + 3
        end = start + length  # index of DCS
        if end >= RX_SIZE:
            raise PN532Error("frame too long")
        total = 0
        for j in range(start, end + 1):
            total += rx[j]
        if total & 0xFF:
            raise PN532ChecksumError("bad data checksum")
        if rx[start] == _TFI_ERROR:
            raise PN532ErrorFrame("PN532 error frame")
        if rx[start] != _TFI_CHIP or rx[start + 1] != command + 1:
            raise PN532Error("unexpected reply")
        self._data_start = start + 2
        return length - 2

    def _call(self, command, params, nparams, timeout_ms):
        """Blocking command: send, wait for the reply, return its data length."""
        self._send(command, params, nparams)
        self._wait_ready(timeout_ms)
        return self._finish(command)

    # ---- public, non-blocking ---------------------------------------------------------
    def reply_ready(self):
        """True when the pending reply can be read (IRQ pin low, or status byte ready)."""
        if self._irq is not None:
            return self._irq.value() == 0
        return self._read_ready()

    @property
    def pending(self):
        """Command code whose reply is awaited, 0 when idle."""
        return self._pending

    def abort(self):
        """Cancel the command in progress (the host sends an ACK frame)."""
        self._pending = 0
        tx = self._tx
        tx[0] = 0x00
        tx[1] = 0x00
        tx[2] = 0xFF
        tx[3] = 0x00
        tx[4] = 0xFF
        tx[5] = 0x00
        self._write_frame_bytes(self._tx_mv[:6])

    def start_list(self):
        """Send InListPassiveTarget (one 106 kbps type A target) and return after its ACK."""
        self._send(_CMD_IN_LIST_PASSIVE_TARGET, b"\x01\x00", 2)

    def finish_list(self, uid_buf):
        """Read the InListPassiveTarget reply; copy the UID into ``uid_buf``.

        Returns the UID length, 0 when no tag answered within MxRtyPassiveActivation.
        """
        n = self._finish(_CMD_IN_LIST_PASSIVE_TARGET)
        rx = self._rx
        d = self._data_start
        if n < 1 or rx[d] == 0:
            return 0
        if n < 6:
            raise PN532Error("short target data")
        uid_len = rx[d + 5]
        if uid_len > len(uid_buf) or 6 + uid_len > n:
            raise PN532Error("bad UID length")
        self.target = rx[d + 1]
        self.sens_res = (rx[d + 2] << 8) | rx[d + 3]
        self.sel_res = rx[d + 4]
        for i in range(uid_len):
            uid_buf[i] = rx[d + 6 + i]
        return uid_len

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

    # ---- public, blocking (boot and recovery) ------------------------------------------
    def firmware_version(self, timeout_ms=_BOOT_TIMEOUT_MS):
        """GetFirmwareVersion -> (ic, version, revision, support), e.g. (0x32, 1, 6, 7)."""
        n = self._call(_CMD_GET_FIRMWARE_VERSION, b"", 0, timeout_ms)
        if n < 4:
            raise PN532Error("short firmware version")
        d = self._data_start
        rx = self._rx
        return (rx[d], rx[d + 1], rx[d + 2], rx[d + 3])

    def sam_configuration(self, timeout_ms=_BOOT_TIMEOUT_MS):
        """SAMConfiguration: normal mode, 1 s virtual-card timeout, P70_IRQ driven."""
        self._call(_CMD_SAM_CONFIGURATION, b"\x01\x14\x01", 3, timeout_ms)

    def set_passive_retries(self, retries, timeout_ms=_BOOT_TIMEOUT_MS):
        """RFConfiguration item 5 (MxRtyPassiveActivation): InListPassiveTarget tries
        ``retries + 1`` times and then answers "no target".  0xFF would retry forever."""
        params = self._params
        params[0] = _RF_ITEM_MAX_RETRIES
        params[1] = _RETRIES_ATR_DEFAULT
        params[2] = _RETRIES_PSL_DEFAULT
        params[3] = retries & 0xFF
        self._call(_CMD_RF_CONFIGURATION, params, 4, timeout_ms)

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
        self.wake()
        self.sam_configuration(timeout_ms)
        self.set_passive_retries(passive_retries, timeout_ms)
        return self.firmware_version(timeout_ms)
