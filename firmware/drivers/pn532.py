"""PN532 NFC controller: the protocol core shared by the SPI and I2C transports.

Frames (PN532 user manual, section 6.2)::

    host -> chip   00 00 FF LEN LCS D4 CMD PARAMS... DCS 00
    chip -> host   00 00 FF LEN LCS D5 CMD+1 DATA... DCS 00
    ACK            00 00 FF 00 FF 00        NACK   00 00 FF FF 00 00
    error frame    00 00 FF 01 FF 7F 81 00  (application-level / syntax error)

LEN + LCS == 0 and TFI + DATA + DCS == 0 (mod 256).  Every command is acknowledged first; the
reply follows when the chip has done the work (the IRQ pin falls, or the status byte says
ready).

Nothing here waits for the chip except the blocking calls meant for boot and tools
(``setup``, ``read_uid``; bring-up and tests have more in ``drivers/pn532_blocking.py``, which
is not installed).  ``start_*()`` only writes the command
frame; ``reply_ready()`` reads the ACK once it is there (a NACK or no ACK within
``ack_timeout_ms``, 30 ms by default, raises) and then says whether the reply is waiting;
``finish_*()`` reads it.  Frames are read length first: the 6-byte header, then exactly the
rest.

Raw ISO14443A exchanges: InCommunicateThru (0x42) sends bytes to the tag exactly as given;
WriteRegister (0x08) sets the CIU registers that frame them (user manual 8.6, the PN512 core):
CIU_TxMode/CIU_RxMode bit 7 (CRC on send/receive: off, the host appends CRC_A itself) and
CIU_BitFraming (RxAlign << 4 | TxLastBits) for the 7-bit REQA and partial anticollision bytes
(``drivers/tag_scan.py`` builds REQA, anticollision, SELECT and HLTA on these).  The chip's own
commands run with CIU_BitFraming as the host left it, so ``start_chip_mode()`` puts TxLastBits
0, RxAlign 0 and both CRCs back before any of them follows raw exchanges (as libnfc's
pn53x_reset_settings does).  Set-up puts the chip in a known state for raw exchanges: the field
off and on (every tag IDLE), CIU_TxAuto Force100ASK and CIU_Control Initiator (as libnfc's
nfc_initiator_init), the rest by ``start_raw_mode``.  Halting a read tag: an HLTA of our own through
InCommunicateThru, which halts the listed tag whatever the chip's InRelease / InDeselect do
(whether they send HLTA is undocumented: the probe tells).
After a collision ``start_coll()`` reads CIU_Coll and the FIFO in one ReadRegister.
Errors are ``PN532Error`` subclasses whose ``kind`` names them for the reader's ``last_error``.

Allocation: every buffer is made once; a command, an ACK, a reply and a listed UID allocate
nothing (only a raised error does).  Every PN532 on the board shares one frame buffer pair
(``TX``, ``RX``): the firmware loop talks to one chip at a time, and a frame is built and
sent, or read, checked and its data copied out, within one call.  Timeouts use
``time.ticks_ms``/``ticks_diff`` (wrap-safe).  Transports implement ``_write_frame(n)``
(send ``TX[:n]``), ``_read_ready()`` (status byte bit 0), ``_read_frame()`` (the waiting
frame into ``RX``; returns the sum of its TFI, data and DCS bytes, computed while the bytes
are copied) and ``wake()``.
"""

from micropython import const
import time

_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from typing import Callable

try:   # the per-byte loops (viper), re-exported for the transports and the reader
    from drivers.byteloops import copy_into, reverse_into  # noqa: F401  (reverse_into: for pn532_spi)
except ValueError:   # their native code is for another CPU (a unix-port board): plain Python
    from drivers.byteloops_py import copy_into, reverse_into  # noqa: F401

_HEADER_SIZE = const(6)   # 00 00 FF LEN LCS + one byte: a whole ACK/NACK, or TFI of a frame


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


def prefix_views(buf):
    """``views[k]`` is ``memoryview(buf)[:k]`` for every k, made once: a slice made per
    transfer would allocate (``machine.SPI``/``I2C`` always send or fill a whole buffer)."""
    view = memoryview(buf)
    views = []
    for k in range(len(buf) + 1):
        views.append(view[:k])
    return tuple(views)


_TFI_HOST = const(0xD4)
_TFI_CHIP = const(0xD5)
_TFI_ERROR = const(0x7F)

_CMD_READ_REGISTER = const(0x06)
_CMD_WRITE_REGISTER = const(0x08)
_CMD_RF_CONFIGURATION = const(0x32)
_CMD_IN_COMMUNICATE_THRU = const(0x42)
_CMD_IN_LIST_PASSIVE_TARGET = const(0x4A)
_RF_ITEM_FIELD = const(0x01)
# WriteRegister parameters: CIU_TxMode (0x6302, bit 7 TxCRCEn; 0x00 = 106 kbps type A, no
# CRC) and CIU_RxMode (0x6303, bit 7 RxCRCEn) cleared, then CIU_BitFraming (0x633D: RxAlign
# bits 6-4, TxLastBits bits 2-0), whose value the caller appends.
_RAW_MODE = const(b"\x63\x02\x00\x63\x03\x00\x63\x3d")
# The CIU as the chip's own commands expect it: both CRCs on, CIU_BitFraming 0; and as raw
# exchanges need it: CIU_TxAuto (0x6305) = Force100ASK (type A modulation; the other bits serve
# active mode and card emulation only) and CIU_Control (0x633C) = Initiator (libnfc pn53x.c:
# pn53x_initiator_init, NP_FORCE_ISO14443_A).  After a reset nothing else sets these two.
_CHIP_MODE = const(b"\x63\x02\x80\x63\x03\x80\x63\x3d\x00\x63\x05\x40\x63\x3c\x10")
# ReadRegister CIU_Coll (0x633E: CollPosNotValid bit 5, CollPos bits 4-0), then CIU_FIFOData
# (0x6339) five times: the bits received before the collision.
_READ_COLLISION = const(b"\x63\x3e\x63\x39\x63\x39\x63\x39\x63\x39\x63\x39")
_HLTA_CRC_ON = const(b"\x50\x00")   # the chip appends CRC_A (TxCRCEn on after chip mode)

# The setup commands, step 0..6, six bytes each: command code, parameter count, parameters
# (PN532 user manual 7.2.10 SAMConfiguration, 7.3.1 RFConfiguration, 7.2.5 WriteRegister,
# 7.2.2 GetFirmwareVersion).
_SETUP = const(
    # SAMConfiguration: normal mode, virtual-card timeout 20 x 50 ms, P70_IRQ used
    b"\x14\x03\x01\x14\x01\x00"
    # RFConfiguration item 5: MxRtyATR 0xFF and MxRtyPSL 1 (the defaults), then
    # MxRtyPassiveActivation: the caller's passive_retries goes into the last byte
    b"\x32\x04\x05\xff\x01\x00"
    # RFConfiguration item 2: RFU, ATR_RES timeout 0x0B (102.4 ms, the default, unused by
    # the referee), fRetryTimeout 0x05 = 100 us * 2**4 = 1.6 ms for InCommunicateThru (a type
    # A tag answers ~90 us after the frame, so a silent pile costs little).  Every silent REQA
    # and every HLTA waits this long; 0x04 (0.8 ms) would still cover the longest raw answer
    # here (a 5-byte CLn ends ~0.53 ms after the frame) and reads a WUPA chip's pair ~1.5 ms
    # sooner, but moves the readers' timing under races (docs/hardware.md, "Where the time of a
    # pair goes")
    b"\x32\x04\x02\x00\x0b\x05"
    # RFConfiguration item 1: the field off, then on (every tag IDLE; libnfc nfc.c
    # nfc_initiator_init does the same before raw exchanges)
    b"\x32\x02\x01\x00\x00\x00"
    b"\x32\x02\x01\x01\x00\x00"
    # WriteRegister _CHIP_MODE (start_setup_step sends it): the modulation for raw exchanges,
    # and whatever raw exchanges before a re-setup left in CIU_BitFraming and the CRC bits
    b"\x08\x0f\x00\x00\x00\x00"
    # GetFirmwareVersion
    b"\x02\x00\x00\x00\x00\x00"
)
_ACK = const(b"\x00\x00\xff\x00\xff\x00")   # sent by the host, it cancels the command in progress

_TX_SIZE = const(24)    # largest command frame: WriteRegister with 5 registers (24 bytes)
# Largest reply we accept: two listed targets with 10-byte UIDs fit, or one with an ATS.
_RX_SIZE = const(64)
_POLL_US = const(200)
_BOOT_TIMEOUT_MS = const(100)
_ACK_TIMEOUT_MS = const(30)

# UID buffers handed to finish_list() need this many bytes (triple-size ISO14443A UID).
MAX_UID_LEN = const(10)
_SETUP_STEPS = const(7)   # start_setup_step / finish_setup_step 0..6
_STEP_CHIP_MODE = const(5)

# The frame buffers shared by every PN532 (see "Allocation" above), and the parameters of
# the command being built.
TX = bytearray(_TX_SIZE)
RX = bytearray(_RX_SIZE)
PARAMS = bytearray(12)


class PN532:
    """Protocol core and raw exchanges.  Use a transport: ``PN532_SPI`` or ``PN532_I2C``."""

    # The probe's answers for this chip (board.json ``chip``, set by referee/board_hw.py; None:
    # unknown, the reader's safe default): its listing sends WUPA (True) or REQA (False),
    # CIU_Coll is readable after a collision.
    wupa = None
    coll = None

    def __init__(self, irq=None, ack_timeout_ms=_ACK_TIMEOUT_MS, reset=None):
        # irq: optional machine.Pin wired to the PN532's P70_IRQ (low = reply ready).
        # reset: optional output Pin on RSTPD_N (low = reset / power down).
        self.irq = irq
        self.reset_pin = reset
        if reset is not None:
            reset.value(1)
        self.ack_timeout_ms = ack_timeout_ms
        self.pending = 0           # command whose reply is still to be read, 0 = none
        self.awaiting_ack = False  # its ACK is not read yet (an IRQ edge meanwhile is the ACK's)
        self._sent_ms = 0
        self.thru_status = 0       # status byte of the last InCommunicateThru reply
        # The second target of a MaxTg=2 listing (finish_list fills them in; length 0 = none).
        self.uid2 = bytearray(MAX_UID_LEN)
        self.uid2_len = 0

    # ---- transport hooks: every transport defines these (see "Allocation" above); declared
    # here for pyright only (an annotation compiles to nothing).
    _write_frame: "Callable[[int], None]"
    _read_ready: "Callable[[], bool]"
    _read_frame: "Callable[[], int]"
    # wake(settle=True): wake the chip from power-down; settle=False skips the final ~2 ms wait.
    wake: "Callable[..., None]"

    def bus_clear(self):
        """Free a hung bus (I2C only); True if something was done."""
        return False

    # ---- frames ------------------------------------------------------------------------
    def _build_frame(self, command, data, n):
        """The frame of ``command`` with parameters ``data[:n]`` into ``TX``; returns its size."""
        tx = TX
        tx[0] = 0x00
        tx[1] = 0x00
        tx[2] = 0xFF
        tx[3] = n + 2
        tx[4] = (-2 - n) & 0xFF
        tx[5] = _TFI_HOST
        tx[6] = command
        total = _TFI_HOST + command + copy_into(tx, 7, data, 0, n) - n
        tx[7 + n] = -total & 0xFF
        tx[8 + n] = 0x00
        return n + 9

    def _send(self, command, data, n):
        """Write a command frame.  Its ACK is read later by ``reply_ready()``."""
        if self.pending:
            self.abort()
        self._write_frame(self._build_frame(command, data, n))
        self.pending = command
        self.awaiting_ack = True
        self._sent_ms = time.ticks_ms()

    def _wait_ready(self, timeout_ms):
        start = time.ticks_ms()
        while not self.reply_ready():
            if time.ticks_diff(time.ticks_ms(), start) >= timeout_ms:
                raise PN532Timeout("PN532 not ready")
            time.sleep_us(_POLL_US)

    def _finish(self, command):
        """Read and check the reply to ``command``; returns its data length (the data
        starts at ``RX[7]``)."""
        if self.pending != command or self.awaiting_ack:
            raise PN532Error("no such reply pending")
        self.pending = 0
        total = self._read_frame()
        rx = RX
        if rx[0] or rx[1] or rx[2] != 0xFF:
            raise PN532Error("bad preamble")
        length = rx[3]
        lcs = rx[4]
        if length == 0xFF and lcs == 0x00:
            raise PN532Nack("PN532 sent NACK")
        if (length + lcs) & 0xFF:
            raise PN532ChecksumError("bad length checksum")
        if length < 2 and not (length == 1 and rx[5] == _TFI_ERROR):
            raise PN532Error("frame too short")
        if length + 7 > _RX_SIZE:
            raise PN532Error("frame too long")
        if total & 0xFF:
            raise PN532ChecksumError("bad data checksum")
        if rx[5] != _TFI_CHIP or rx[6] != command + 1:
            if rx[5] == _TFI_ERROR:
                raise PN532ErrorFrame("PN532 error frame")
            raise PN532Error("unexpected reply")
        return length - 2

    # ---- public, non-blocking ---------------------------------------------------------
    def reply_ready(self):
        """True when the pending reply can be read.

        While the command's ACK is outstanding this reads it as soon as the chip has it, and
        raises ``PN532Timeout`` once ``ack_timeout_ms`` passed without one (``PN532Nack`` for
        a NACK).  Each call costs one status poll, or two around the ACK read.
        """
        irq = self.irq
        ready = irq.value() == 0 if irq is not None else self._read_ready()
        if not self.awaiting_ack:
            return ready
        if not ready:
            if time.ticks_diff(time.ticks_ms(), self._sent_ms) >= self.ack_timeout_ms:
                self.awaiting_ack = False
                self.pending = 0
                raise PN532Timeout("no ACK")
            return False
        self.awaiting_ack = False
        self._read_frame()
        rx = RX
        if rx[0] or rx[1] or rx[2] != 0xFF or rx[3] or rx[4] != 0xFF:
            self.pending = 0
            if rx[3] == 0xFF and rx[4] == 0x00:
                raise PN532Nack("PN532 sent NACK")
            raise PN532Error("PN532 sent no ACK")
        return self.reply_ready()   # the ACK is read: now whether the reply is there

    def abort(self):
        """Cancel the command in progress (the host sends an ACK frame)."""
        self.pending = 0
        self.awaiting_ack = False
        copy_into(TX, 0, _ACK, 0, 6)
        self._write_frame(6)

    def start_list(self, max_targets=1):
        """Send InListPassiveTarget (106 kbps type A)."""
        params = PARAMS
        params[0] = max_targets
        params[1] = 0x00
        self._send(_CMD_IN_LIST_PASSIVE_TARGET, params, 2)

    def finish_list(self, uid_buf):
        """Read the InListPassiveTarget reply; copy the first UID into ``uid_buf`` (a second
        target, MaxTg=2, goes to ``uid2``/``uid2_len``).

        Returns the UID length, 0 when no tag answered within MxRtyPassiveActivation.
        """
        n = self._finish(_CMD_IN_LIST_PASSIVE_TARGET)
        rx = RX
        self.uid2_len = 0
        if n < 1 or rx[7] == 0:
            return 0
        end = 7 + n
        # TargetData (type A): Tg SENS_RES(2) SEL_RES NFCIDLength NFCID [ATS if SEL_RES bit 5]
        # _copy_uid(8, end, uid_buf) written out (one call less per card read)
        uid_len = rx[12] if end >= 13 else -1
        if uid_len < 0 or uid_len > len(uid_buf) or 13 + uid_len > end:
            raise PN532Error("bad UID length" if uid_len >= 0 else "short target data")
        copy_into(uid_buf, 0, rx, 13, uid_len)
        if rx[7] > 1:
            pos = 13 + uid_len
            if rx[11] & 0x20 and pos < end:   # ISO 14443-4 tag: its ATS comes first
                pos += rx[pos]
            self.uid2_len = self._copy_uid(pos, end, self.uid2)
        return uid_len

    def _copy_uid(self, pos, end, out):
        rx = RX
        if pos + 5 > end:
            raise PN532Error("short target data")
        uid_len = rx[pos + 4]
        if uid_len > len(out) or pos + 5 + uid_len > end:
            raise PN532Error("bad UID length")
        copy_into(out, 0, rx, pos + 5, uid_len)
        return uid_len

    def start_halt(self):
        """HLTA through InCommunicateThru (the CIU in chip mode: the chip appends CRC_A).  It
        halts the ACTIVE tag (the one listed); READY tags take it as an unexpected frame and
        go back to IDLE."""
        self._send(_CMD_IN_COMMUNICATE_THRU, _HLTA_CRC_ON, 2)

    def finish_halt(self):
        self._finish(_CMD_IN_COMMUNICATE_THRU)   # never answered: any status will do

    def start_field(self, on):
        """RFConfiguration item 1: RF field on/off.  Off then on resets every tag in the field."""
        params = PARAMS
        params[0] = _RF_ITEM_FIELD
        params[1] = 0x01 if on else 0x00
        self._send(_CMD_RF_CONFIGURATION, params, 2)

    def finish_field(self):
        self._finish(_CMD_RF_CONFIGURATION)

    # ---- raw ISO14443A exchanges (drivers/tag_scan.py) ------------------------------------
    def start_raw_mode(self, bit_framing):
        """WriteRegister: CRC off for transmit and receive, CIU_BitFraming = ``bit_framing``.

        The chip's own commands (InListPassiveTarget...) set these registers again, so call
        this before each run of raw exchanges."""
        copy_into(PARAMS, 0, _RAW_MODE, 0, 8)
        PARAMS[8] = bit_framing
        self._send(_CMD_WRITE_REGISTER, PARAMS, 9)

    def start_bit_framing(self, bit_framing):
        """WriteRegister CIU_BitFraming: RxAlign << 4 | TxLastBits (0 = whole last byte)."""
        copy_into(PARAMS, 0, _RAW_MODE, 6, 2)
        PARAMS[2] = bit_framing
        self._send(_CMD_WRITE_REGISTER, PARAMS, 3)

    def start_chip_mode(self):
        """WriteRegister ``_CHIP_MODE``: both CRCs on, CIU_BitFraming 0 (the CIU as the chip's
        own commands expect it after raw exchanges), Force100ASK and Initiator."""
        self._send(_CMD_WRITE_REGISTER, _CHIP_MODE, 15)

    def start_coll(self):
        """ReadRegister CIU_Coll and five CIU_FIFOData reads (after a collision)."""
        self._send(_CMD_READ_REGISTER, _READ_COLLISION, 12)

    def finish_coll(self, out):
        """CIU_Coll into ``out[0]``, the FIFO bytes after it; returns how many were read."""
        n = self._finish(_CMD_READ_REGISTER)
        if n > len(out):
            n = len(out)
        copy_into(out, 0, RX, 7, n)
        return n

    def finish_write_register(self):
        self._finish(_CMD_WRITE_REGISTER)

    def start_thru(self, data, n):
        """InCommunicateThru: send ``data[:n]`` to the tag as it is (no CRC added)."""
        self._send(_CMD_IN_COMMUNICATE_THRU, data, n)

    def finish_thru(self, out):
        """Read the InCommunicateThru reply: the tag's bytes into ``out``; returns their
        count.  ``thru_status`` holds the status (low 6 bits: 0x00 ok, 0x01 timeout = the tag
        did not answer within fRetryTimeout, else an RF error such as a collision)."""
        n = self._finish(_CMD_IN_COMMUNICATE_THRU)
        if n < 1:
            raise PN532Error("short InCommunicateThru reply")
        rx = RX
        self.thru_status = rx[7] & 0x3F
        n -= 1
        if n > len(out):
            n = len(out)
        copy_into(out, 0, rx, 8, n)
        return n

    # ---- setup in non-blocking steps (drivers/pn532_setup.py) ------------------------------
    def start_setup_step(self, step, passive_retries):
        """Send setup command ``step`` (0..6, ``_SETUP``); the caller wakes the
        chip first."""
        if step == _STEP_CHIP_MODE:
            self.start_chip_mode()
            return
        base = 6 * step
        copy_into(PARAMS, 0, _SETUP, base + 2, 4)
        if step == 1:
            PARAMS[3] = passive_retries & 0xFF   # MxRtyPassiveActivation
        self._send(_SETUP[base], PARAMS, _SETUP[base + 1])

    def finish_setup_step(self, step):
        """Read the reply of setup ``step``; the last one returns the firmware version
        ``(ic, version, revision, support)``, e.g. (0x32, 1, 6, 7)."""
        n = self._finish(_SETUP[6 * step])
        if step < _SETUP_STEPS - 1:
            return None
        if n < 4:
            raise PN532Error("short firmware version")
        return (RX[7], RX[8], RX[9], RX[10])

    # ---- public, blocking (boot, enrollment and bring-up tools) --------------------------
    def _blocking_step(self, step, passive_retries, timeout_ms):
        self.start_setup_step(step, passive_retries)
        self._wait_ready(timeout_ms)
        return self.finish_setup_step(step)

    def read_uid(self, uid_buf, timeout_ms=_BOOT_TIMEOUT_MS):
        """Blocking list: UID length (0 = none)."""
        self.start_list()
        self._wait_ready(timeout_ms)
        return self.finish_list(uid_buf)

    def setup(self, passive_retries=1, timeout_ms=_BOOT_TIMEOUT_MS):
        """Wake the chip and configure it for the referee (SAMConfiguration, retries, thru
        timeout, the field and type A modulation).  Returns the firmware version."""
        self.pending = 0
        self.awaiting_ack = False
        self.wake()
        version = None
        for step in range(_SETUP_STEPS):
            version = self._blocking_step(step, passive_retries, timeout_ms)
        return version
