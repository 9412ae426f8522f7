"""PN532 over SPI (mode 0, LSB-first, up to 5 MHz).

rp2's ``machine.SPI`` only shifts MSB-first, so every byte is bit-reversed through a
256-byte table (built once at import) on its way out and on its way in.  Each transaction
starts with an operation byte: 0x01 data write, 0x02 status read (bit 0 = ready), 0x03 data
read.  A frame is read inside one chip-select: its 6-byte header first, then exactly the
bytes its LEN announces (no fixed 65-byte reads).

``cs_setup_us`` waits between CS falling and the first clock (board file
``nfc.spi.cs_setup_us``): other drivers wait 1-10 ms (Seeed) or 2 ms (dotnet/iot), and NXP's
AN10609 notes a PN532 SPI set-up issue; a few tens of microseconds cost little per
transaction.

The bus and the pins are passed in, already built by the board loader::

    spi = machine.SPI(0, baudrate=1_000_000, polarity=0, phase=0, sck=..., mosi=..., miso=...)
    reader = PN532_SPI(spi, machine.Pin(17, machine.Pin.OUT, value=1), irq=machine.Pin(20, machine.Pin.IN))
"""

from micropython import const
import time

from drivers.pn532 import HEADER_SIZE, RX_SIZE, frame_size
from drivers.pn532_raw import PN532Raw

_OP_DATA_WRITE = const(0x01)
_OP_STATUS_READ = const(0x02)
_OP_DATA_READ = const(0x03)
_WAKE_MS = const(2)


def _reverse_table():
    table = bytearray(256)
    for value in range(256):
        reversed_value = 0
        bits = value
        for _ in range(8):
            reversed_value = (reversed_value << 1) | (bits & 1)
            bits >>= 1
        table[value] = reversed_value
    return bytes(table)


# _REVERSE[b] is b with its bit order reversed (LSB-first <-> MSB-first).
_REVERSE = _reverse_table()


class PN532_SPI(PN532Raw):
    def __init__(self, spi, cs, irq=None, cs_setup_us=0, **options):
        super().__init__(irq, **options)
        self._spi = spi
        self._cs = cs
        self.cs_setup_us = cs_setup_us
        cs.value(1)
        # One wire buffer for every transaction: operation byte + the largest frame.
        self._wire = bytearray(RX_SIZE + 1)
        self._wire_mv = memoryview(self._wire)
        self._status = bytearray(2)

    def wake(self, settle=True):
        """Holding CS low for ~2 ms wakes the PN532 from power-down (the bus is ours
        meanwhile: another reader's transaction must not run with two chips selected)."""
        self._cs.value(0)
        time.sleep_ms(_WAKE_MS)
        self._cs.value(1)
        if settle:
            time.sleep_ms(_WAKE_MS)

    def _select(self):
        self._cs.value(0)
        if self.cs_setup_us:
            time.sleep_us(self.cs_setup_us)

    def _write_frame_bytes(self, frame):
        n = len(frame)
        wire = self._wire
        table = _REVERSE
        wire[0] = table[_OP_DATA_WRITE]
        for i in range(n):
            wire[i + 1] = table[frame[i]]
        self._select()
        try:
            self._spi.write(self._wire_mv[:n + 1])
        finally:
            self._cs.value(1)

    def _read_ready(self):
        status = self._status
        status[0] = _REVERSE[_OP_STATUS_READ]
        status[1] = 0x00
        self._select()
        try:
            self._spi.write_readinto(status, status)
        finally:
            self._cs.value(1)
        return bool(_REVERSE[status[1]] & 0x01)

    def _read_frame(self, rx):
        wire = self._wire
        table = _REVERSE
        wire[0] = table[_OP_DATA_READ]
        for i in range(1, HEADER_SIZE + 1):
            wire[i] = 0x00
        view = self._wire_mv[:HEADER_SIZE + 1]
        self._select()
        try:
            self._spi.write_readinto(view, view)
            for i in range(HEADER_SIZE):
                rx[i] = table[wire[i + 1]]
            total = frame_size(rx)
            if total > RX_SIZE:
                total = RX_SIZE    # _finish reports "frame too long"
            rest = total - HEADER_SIZE
            if rest > 0:
                view = self._wire_mv[:rest]
                for i in range(rest):
                    wire[i] = 0x00
                self._spi.write_readinto(view, view)
                for i in range(rest):
                    rx[HEADER_SIZE + i] = table[wire[i]]
        finally:
            self._cs.value(1)
        return total if total > HEADER_SIZE else HEADER_SIZE
