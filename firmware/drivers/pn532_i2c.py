"""PN532 over I2C (fixed address 0x24; one reader per bus, or behind a mux).

Every read from the chip starts with a status byte (bit 0 = ready) followed by the frame.
The chip clock-stretches while busy; an address NACK (OSError) while it is asleep or busy
is treated as "not ready" for status polls and as a bus error for writes.  That OSError is
allocated by the port, so status polls of a busy chip allocate: wire the IRQ pin (the reader
then polls nothing, and nothing is allocated per card or idle step).  A bus timeout
(ETIMEDOUT: SDA or SCL held low) is a bus error everywhere, so a hung bus fails fast.

Frames are read length first: status + the 6-byte header; a longer frame is then asked for
again with a NACK frame (the chip re-sends its last frame) and read with exactly the
announced length.  A 7-byte-UID listing reply costs 7 + 6 + 21 bytes instead of 65 (about
3 ms instead of 6 ms at 100 kHz).

``bus_clear()`` frees a bus a slave holds low (SDA stuck after a reset mid-transfer): up to
9 SCL pulses with the pins as open-drain GPIO, then a STOP, then the I2C peripheral is built
again (``bus_pins=(id, scl_pin, sda_pin, freq)``: on rp2 building ``I2C(id, ...)`` again
re-initialises the same bus object and gives the pins back to the peripheral).

    i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4), freq=400_000)
    reader = PN532_I2C(i2c, irq=machine.Pin(20, machine.Pin.IN))
"""

from micropython import const
import time

from drivers.pn532 import PN532, PN532Error, PN532Timeout, RX, TX, copy_into, prefix_views

# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_HEADER_SIZE = const(6)  # 00 00 FF LEN LCS + one byte: a whole ACK/NACK, or TFI of a frame
_RX_SIZE = const(64)
# end generated
_DEFAULT_ADDR = const(0x24)
_WAKE_MS = const(2)
_RESEND_TIMEOUT_US = const(2000)   # the chip re-sends a frame from its buffer at once
_RESEND_POLL_US = const(100)
_CLEAR_PULSES = const(9)
_CLEAR_HALF_US = const(5)
_NACK = const(b"\x00\x00\xff\xff\x00\x00")
_ETIMEDOUT = const(110)


# One transfer buffer shared by every reader (the loop runs one transfer at a time), and
# _VIEWS[k] = its first k bytes.
_BUF = bytearray(_RX_SIZE + 1)
_VIEWS = prefix_views(_BUF)
_STATUS = bytearray(1)   # a status read's byte


class PN532BusError(PN532Error):
    kind = "bus"


class PN532_I2C(PN532):

    def __init__(self, i2c, irq=None, addr=_DEFAULT_ADDR, bus_pins=None, **options):
        super().__init__(irq, **options)
        self._i2c = i2c
        self._addr = addr
        self._bus_pins = bus_pins
        self.bus_clears = 0

    def wake(self, settle=True):
        """The address match wakes the chip; the first transfer may be NACKed."""
        try:
            self._i2c.writeto(self._addr, b"\x00")
        except OSError:
            pass
        if settle:
            time.sleep_ms(_WAKE_MS)

    def _write_frame(self, n):
        copy_into(_BUF, 0, TX, 0, n)
        self._write(_VIEWS[n])

    def _write(self, frame):
        try:
            self._i2c.writeto(self._addr, frame)
        except OSError:
            raise PN532BusError("I2C write not acknowledged")

    def _read_ready(self):
        try:
            self._i2c.readfrom_into(self._addr, _STATUS)
        except OSError as e:
            if e.args and e.args[0] == _ETIMEDOUT:
                # A hung bus, not a busy chip: each poll would cost the bus timeout.
                raise PN532BusError("I2C bus timed out")
            return False
        return _STATUS[0] & 0x01 == 1

    def _read_into(self, n):
        try:
            self._i2c.readfrom_into(self._addr, _VIEWS[n + 1])
        except OSError:
            raise PN532BusError("I2C read not acknowledged")
        if not _BUF[0] & 0x01:
            raise PN532Error("PN532 not ready")
        return copy_into(RX, 0, _BUF, 1, n)   # n + the sum of the frame's bytes

    def _read_frame(self):
        self._read_into(_HEADER_SIZE)
        rx = RX
        # The frame's size: 6 bytes for an ACK (00 FF), a NACK (FF 00), a bad length checksum
        # (which _finish reports) or no frame at all; else LEN + 7.
        if rx[0] or rx[1] or rx[2] != 0xFF or (rx[3] + rx[4]) & 0xFF:
            return rx[5]
        total = rx[3] + 7
        if total > _RX_SIZE:
            total = _RX_SIZE    # _finish reports "frame too long"
        # Ask for the frame again and read exactly its length.
        self._write(_NACK)
        waited = 0
        while not self._read_ready():
            if waited >= _RESEND_TIMEOUT_US:
                raise PN532Timeout("no frame after NACK")
            time.sleep_us(_RESEND_POLL_US)
            waited += _RESEND_POLL_US
        # The sum of TFI, data and DCS: every byte's but the 5-byte header's and the postamble's.
        return self._read_into(total) - total - rx[0] - rx[1] - rx[2] - rx[3] - rx[4] - rx[total - 1]

    def bus_clear(self):
        """Clock a stuck slave free (9 SCL pulses, then STOP) and rebuild the I2C bus."""
        if self._bus_pins is None:
            return False
        from machine import I2C, Pin

        bus_id, scl, sda, freq = self._bus_pins
        scl.init(Pin.OPEN_DRAIN, value=1)
        sda.init(Pin.OPEN_DRAIN, value=1)
        for _ in range(_CLEAR_PULSES):
            if sda.value():
                break
            scl.value(0)
            time.sleep_us(_CLEAR_HALF_US)
            scl.value(1)
            time.sleep_us(_CLEAR_HALF_US)
        # STOP: SDA rises while SCL is high.
        sda.value(0)
        time.sleep_us(_CLEAR_HALF_US)
        scl.value(1)
        time.sleep_us(_CLEAR_HALF_US)
        sda.value(1)
        time.sleep_us(_CLEAR_HALF_US)
        I2C(bus_id, scl=scl, sda=sda, freq=freq)
        self.bus_clears += 1
        return True
