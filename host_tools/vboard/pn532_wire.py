"""The PN532 emulator's bus side: SPI and I2C device methods (see buses.py).

SPI: the chip is LSB-first while the fake bus, like rp2, is MSB-first, so every byte is
reversed here.  Op byte 0x01 write / 0x02 status / 0x03 read; a written frame is taken at
the end of its chip-select; the chip starts asleep until CS is held low ``wake_us``.  With
``cs_setup_us`` the chip needs that long between CS falling and the first clock: a
transaction clocked earlier is lost (its op byte is not seen: a status read says "not
ready", a write is dropped, a read returns zeros and leaves the frame in place).

I2C (0x24): every read starts with the status byte; a read shorter than the frame leaves it
in place (the next read starts again at its first byte).

MicroPython-compatible.
"""


def reverse_bits(byte):
    """Bit order reversal, done differently from the firmware's table on purpose."""
    out = 0
    for bit in range(8):
        if byte & (1 << bit):
            out |= 0x80 >> bit
    return out


class WireSide:
    """Mixed into ``PN532Emulator``; needs clock, asleep, wake_us, silent, cs_setup_us,
    host_frame(), _ready(), _out, _consume_output(), update()."""

    def spi_select(self):
        self._select_us = self.clock.now_us
        self._op = None
        self._lost = False
        self._rx = bytearray()
        self._read_pos = 0

    def spi_deselect(self):
        if self.asleep:
            if self.clock.now_us - self._select_us >= self.wake_us:
                self.asleep = False
            return
        if self.silent or self._lost:
            return
        if self._op == 0x01:
            self.host_frame(bytes(self._rx))
        elif self._op == 0x03 and self._ready() and self._read_pos >= len(self._out[0][1]):
            self._consume_output()
        self._op = None

    def spi_exchange(self, wire_byte):
        if self.asleep or self.silent:
            return 0x00
        self.update()
        byte = reverse_bits(wire_byte)
        if self._op is None:
            if self.clock.now_us - self._select_us < self.cs_setup_us:
                self.cs_setup_violations += 1
                self._lost = True
            self._op = byte
            return 0x00
        if self._lost:
            return 0x00
        if self._op == 0x02:
            return reverse_bits(0x01 if self._ready() else 0x00)
        if self._op == 0x01:
            self._rx.append(byte)
            return 0x00
        if self._op == 0x03:
            out = self._output_byte(self._read_pos)
            self._read_pos += 1
            return reverse_bits(out)
        return 0x00

    def _output_byte(self, index):
        if not self._ready():
            return 0x00
        frame = self._out[0][1]
        return frame[index] if index < len(frame) else 0x00

    # ---- I2C device side -----------------------------------------------------------------
    def i2c_write(self, buf):
        if self.silent:
            return False
        self.update()
        if len(buf):
            self.host_frame(bytes(buf))
        return True

    def i2c_read_into(self, buf):
        if self.silent:
            return False
        self.update()
        ready = self._ready()
        if len(buf):
            buf[0] = 0x01 if ready else 0x00
        for i in range(1, len(buf)):
            buf[i] = self._output_byte(i - 1)
        self.i2c_bytes_read += len(buf)
        if ready and len(buf) - 1 >= len(self._out[0][1]):
            self._consume_output()
        return True
