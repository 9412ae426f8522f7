"""PN532 over SPI (mode 0, LSB-first, up to 5 MHz).

rp2's ``machine.SPI`` only shifts MSB-first, so every byte is bit-reversed on its way out
and on its way in (``reverse_into``, viper: no table).  Each transaction
starts with an operation byte: 0x01 data write, 0x02 status read (bit 0 = ready), 0x03 data
read.  A frame is read inside one chip-select: its 6-byte header first, then exactly the
bytes its LEN announces (no fixed 65-byte reads).

``cs_setup_us`` waits between CS falling and the first clock (board file
``nfc.spi.cs_setup_us``): other drivers wait 1-10 ms (Seeed) or 2 ms (dotnet/iot), and NXP's
AN10609 notes a PN532 SPI set-up issue; a few tens of microseconds cost little per
transaction.

No transfer allocates: ``machine.SPI`` sends and fills whole buffers, and a memoryview slice
allocates, so the wire buffer has a view of every length up to ``_WIRE_SIZE`` (made once and
shared by every reader: the firmware loop runs one transfer at a time).  That covers every
command frame and most replies the referee reads (one listed 10-byte UID: 19 bytes after the
header; two listed targets come in two pieces): a longer reply is read in pieces of that size
inside the same chip-select.

The bus and the pins are passed in, already built by the board loader::

    spi = machine.SPI(0, baudrate=1_000_000, polarity=0, phase=0, sck=..., mosi=..., miso=...)
    reader = PN532_SPI(spi, machine.Pin(17, machine.Pin.OUT, value=1), irq=machine.Pin(20, machine.Pin.IN))
"""

from micropython import const
import time

from drivers.pn532 import PN532, RX, TX, prefix_views, reverse_into

# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_HEADER_SIZE = const(6)  # 00 00 FF LEN LCS + one byte: a whole ACK/NACK, or TFI of a frame
_TX_SIZE = const(24)     # largest command frame: WriteRegister with 5 registers (24 bytes)
_RX_SIZE = const(64)
# end generated
_WAKE_MS = const(2)
_REV_OP_DATA_WRITE = const(0x80)   # 0x01 bit-reversed
_REV_READY = const(0x80)   # the status byte's bit 0 (ready), as it arrives MSB-first
_WIRE_SIZE = const(1 + _TX_SIZE)   # an op byte and the largest command frame (a view per length)
_RX_REST = const(_RX_SIZE - _HEADER_SIZE)   # the rest of the largest frame we accept
# Status read (0x02) and its answer's clock, and the data read's op byte (0x03), reversed.
_STATUS_READ = const(b"\x40\x00")
_DATA_READ = const(b"\xc0")


# The wire buffer, shared by every reader (the loop runs one transfer at a time), and
# _VIEWS[k] = its first k bytes.
_WIRE = bytearray(_WIRE_SIZE)
_VIEWS = prefix_views(_WIRE)
_STATUS = bytearray(2)   # the status read's answer


class PN532_SPI(PN532):
    def __init__(self, spi, cs, irq=None, cs_setup_us=0, **options):
        super().__init__(irq, **options)
        self._spi = spi
        self._cs = cs
        self.cs_setup_us = cs_setup_us
        cs.value(1)

    def wake(self, settle=True):
        """Holding CS low for ~2 ms wakes the PN532 from power-down (the bus is ours
        meanwhile: another reader's transaction must not run with two chips selected)."""
        self._cs.value(0)
        time.sleep_ms(_WAKE_MS)
        self._cs.value(1)
        if settle:
            time.sleep_ms(_WAKE_MS)

    def _write_frame(self, n):
        _WIRE[0] = _REV_OP_DATA_WRITE
        reverse_into(_WIRE, 1, TX, n)
        cs = self._cs
        cs.value(0)
        if self.cs_setup_us:
            time.sleep_us(self.cs_setup_us)
        try:
            self._spi.write(_VIEWS[n + 1])
        finally:
            cs.value(1)

    def _read_ready(self):
        status = _STATUS
        cs = self._cs
        cs.value(0)
        if self.cs_setup_us:
            time.sleep_us(self.cs_setup_us)
        try:
            self._spi.write_readinto(_STATUS_READ, status)
        finally:
            cs.value(1)
        return status[1] & _REV_READY != 0

    def _read_frame(self):
        views = _VIEWS
        rx = RX
        spi = self._spi
        cs = self._cs
        cs.value(0)
        if self.cs_setup_us:
            time.sleep_us(self.cs_setup_us)
        try:
            spi.write(_DATA_READ)
            spi.readinto(views[_HEADER_SIZE], 0)
            reverse_into(rx, 0, _WIRE, _HEADER_SIZE)
            total = rx[5]
            # frame_size(rx) - _HEADER_SIZE, without its call: LEN + 1 more bytes (TFI is in
            # the header), none after an ACK, a NACK or a bad header (_finish reports it).
            rest = 0 if rx[0] or rx[1] or rx[2] != 0xFF or (rx[3] + rx[4]) & 0xFF else rx[3] + 1
            if rest > _RX_REST:
                rest = _RX_REST    # _finish reports "frame too long"
            pos = _HEADER_SIZE
            total -= rest   # (each reverse_into below returns its k + the sum of its bytes)
            while rest > 0:
                k = rest if rest <= _WIRE_SIZE else _WIRE_SIZE
                spi.readinto(views[k], 0)
                total += reverse_into(rx, pos, _WIRE, k)
                pos += k
                rest -= k
            if pos > _HEADER_SIZE:
                total -= rx[pos - 1]   # TFI + data + DCS: the sum without the postamble
        finally:
            cs.value(1)
        return total
