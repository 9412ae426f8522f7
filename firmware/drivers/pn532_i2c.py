"""PN532 over I2C (fixed address 0x24; one reader per bus, or behind a mux).

Every read from the chip starts with a status byte (bit 0 = ready) followed by the frame.
The chip clock-stretches while busy; an address NACK (OSError) while it is asleep or busy
is treated as "not ready" for status polls and as a bus error for writes.

    i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4), freq=400_000)
    reader = PN532_I2C(i2c, irq=machine.Pin(20, machine.Pin.IN))
"""

from micropython import const
import time

from drivers.pn532 import PN532, PN532BusError, PN532Error, RX_SIZE

_DEFAULT_ADDR = const(0x24)
_WAKE_MS = const(2)


class PN532_I2C(PN532):
    def __init__(self, i2c, irq=None, addr=_DEFAULT_ADDR, **options):
        super().__init__(irq, **options)
        self._i2c = i2c
        self._addr = addr
        self._status = bytearray(1)
        self._buf = bytearray(RX_SIZE + 1)
        self._buf_mv = memoryview(self._buf)

    def wake(self):
        """The address match wakes the chip; the first transfer may be NACKed."""
        try:
            self._i2c.writeto(self._addr, b"\x00")
        except OSError:
            pass
        time.sleep_ms(_WAKE_MS)

    def _write_frame_bytes(self, frame):
        try:
            self._i2c.writeto(self._addr, frame)
        except OSError:
            raise PN532BusError("I2C write not acknowledged")

    def _read_ready(self):
        try:
            self._i2c.readfrom_into(self._addr, self._status)
        except OSError:
            return False
        return bool(self._status[0] & 0x01)

    def _read_into(self, buf):
        n = len(buf)
        view = self._buf_mv[:n + 1]
        try:
            self._i2c.readfrom_into(self._addr, view)
        except OSError:
            raise PN532BusError("I2C read not acknowledged")
        raw = self._buf
        if not raw[0] & 0x01:
            raise PN532Error("PN532 not ready")
        for i in range(n):
            buf[i] = raw[i + 1]
