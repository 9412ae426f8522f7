"""PN532 over SPI (mode 0, LSB-first, up to 5 MHz).

rp2's ``machine.SPI`` only shifts MSB-first, so every byte is bit-reversed through a
256-byte table (built once at import) on its way out and on its way in.  Each transaction
starts with an operation byte: 0x01 data write, 0x02 status read (bit 0 = ready), 0x03 data
read.  A whole frame is read inside one chip-select.

The bus and the pins are passed in, already built by the board loader::

    spi = machine.SPI(0, baudrate=1_000_000, polarity=0, phase=0, sck=..., mosi=..., miso=...)
    reader = PN532_SPI(spi, machine.Pin(17, machine.Pin.OUT, value=1), irq=machine.Pin(20, machine.Pin.IN))
"""

from micropython import const
import time

from drivers.pn532 import PN532, RX_SIZE

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


class PN532_SPI(PN532):
    def __init__(self, spi, cs, irq=None, **options):
        super().__init__(irq, **options)
        self._spi = spi
        self._cs = cs
        cs.value(1)
        # One wire buffer for every transaction: operation byte + the largest frame.
        self._wire = bytearray(RX_SIZE + 1)
        self._wire_mv = memoryview(self._wire)
        self._status = bytearray(2)

    def wake(self):
        """Holding CS low for ~2 ms wakes the PN532 from power-down."""
        self._cs.value(0)
        time.sleep_ms(_WAKE_MS)
        self._cs.value(1)
        time.sleep_ms(_WAKE_MS)

    def _write_frame_bytes(self, frame):
        n = len(frame)
        wire = self._wire
        table = _REVERSE
        wire[0] = table[_OP_DATA_WRITE]
        for i in range(n):
            wire[i + 1] = table[frame[i]]
        self._cs.value(0)
        try:
            self._spi.write(self._wire_mv[:n + 1])
        finally:
            self._cs.value(1)

    def _read_ready(self):
        status = self._status
        status[0] = _REVERSE[_OP_STATUS_READ]
        status[1] = 0x00
        self._cs.value(0)
        try:
            self._spi.write_readinto(status, status)
        finally:
            self._cs.value(1)
        return bool(_REVERSE[status[1]] & 0x01)

    def _read_into(self, buf):
        n = len(buf)
        wire = self._wire
        table = _REVERSE
        wire[0] = table[_OP_DATA_READ]
        for i in range(1, n + 1):
            wire[i] = 0x00
        view = self._wire_mv[:n + 1]
        self._cs.value(0)
        try:
            self._spi.write_readinto(view, view)
        finally:
            self._cs.value(1)
        for i in range(n):
            buf[i] = table[wire[i + 1]]
