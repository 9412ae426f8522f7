"""PN532Raw: the protocol core plus raw ISO14443A exchanges; the transports' base class.

InCommunicateThru (0x42) sends bytes to the tag exactly as given; WriteRegister (0x08) sets
the CIU registers that frame them (PN532 user manual, 8.6 "PN532 registers", the PN512 core):
CIU_TxMode/CIU_RxMode bit 7 (CRC on send/receive: off, the host appends CRC_A itself) and
CIU_BitFraming (RxAlign << 4 | TxLastBits) for the 7-bit REQA and partial anticollision
bytes.  ``drivers/tag_scan.py`` builds REQA, anticollision, SELECT and HLTA on these.
"""

from micropython import const

from drivers.pn532 import PARAMS, PN532, PN532Error, RX, copy_into

_CMD_WRITE_REGISTER = const(0x08)
_CMD_IN_COMMUNICATE_THRU = const(0x42)
_REG_TX_MODE = const(0x6302)      # bit 7 TxCRCEn; 0x00 = 106 kbps type A, no CRC
_REG_RX_MODE = const(0x6303)      # bit 7 RxCRCEn
_REG_BIT_FRAMING = const(0x633D)  # RxAlign bits 6-4, TxLastBits bits 2-0
# InCommunicateThru status (low 6 bits of the first reply byte).
THRU_OK = const(0x00)
THRU_TIMEOUT = const(0x01)   # the tag did not answer within fRetryTimeout


class PN532Raw(PN532):
    """``PN532`` with WriteRegister and InCommunicateThru."""

    def start_raw_mode(self, bit_framing):
        """WriteRegister: CRC off for transmit and receive, CIU_BitFraming = ``bit_framing``.

        The chip's own commands (InListPassiveTarget...) set these registers again, so call
        this before each run of raw exchanges."""
        params = PARAMS
        params[0] = _REG_TX_MODE >> 8
        params[1] = _REG_TX_MODE & 0xFF
        params[2] = 0x00
        params[3] = _REG_RX_MODE >> 8
        params[4] = _REG_RX_MODE & 0xFF
        params[5] = 0x00
        params[6] = _REG_BIT_FRAMING >> 8
        params[7] = _REG_BIT_FRAMING & 0xFF
        params[8] = bit_framing
        self._send(_CMD_WRITE_REGISTER, params, 9)

    def start_bit_framing(self, bit_framing):
        """WriteRegister CIU_BitFraming: RxAlign << 4 | TxLastBits (0 = whole last byte)."""
        params = PARAMS
        params[0] = _REG_BIT_FRAMING >> 8
        params[1] = _REG_BIT_FRAMING & 0xFF
        params[2] = bit_framing
        self._send(_CMD_WRITE_REGISTER, params, 3)

    def finish_write_register(self):
        self._finish(_CMD_WRITE_REGISTER)

    def start_thru(self, data, n):
        """InCommunicateThru: send ``data[:n]`` to the tag as it is (no CRC added)."""
        self._send(_CMD_IN_COMMUNICATE_THRU, data, n)

    def finish_thru(self, out):
        """Read the InCommunicateThru reply: the tag's bytes into ``out``; returns their
        count.  ``thru_status`` holds the status (THRU_OK, THRU_TIMEOUT = silence, else an
        RF error such as a collision)."""
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
