"""Fake ``machine.SPI`` / ``machine.I2C`` buses for the virtual board.

Emulated devices attach to a bus; the firmware talks to them through the same calls it
uses on the RP2040.

SPI devices implement::

    spi_select()            # their chip-select pin went low
    spi_deselect()          # ... and high again
    spi_exchange(byte) -> byte   # one full-duplex byte, as the bits appear on the wire

A device only sees bytes while its CS pin (a fake ``Pin``) is low.  The bus notices CS edges
by wrapping the pin's level setters when the device is attached, so a transaction boundary
is seen even when no byte is clocked between two edges.  Like rp2's ``machine.SPI`` the bus
is MSB-first only: bytes reach the device exactly as an MSB-first master puts them on MOSI.

I2C devices implement::

    i2c_write(buf) -> bool          # False = address NACK (OSError ENODEV for the caller)
    i2c_read_into(buf) -> bool

MicroPython-compatible (no typing, dataclasses, ...).
"""

from . import heapgate

_ENODEV = 19
_ETIMEDOUT = 110


class _CsWatch:
    """Follows one CS pin and tells its device about falling/rising edges."""

    def __init__(self, pin, device):
        self.pin = pin
        self.device = device
        self._original_value = pin.value
        self.level = self._original_value()
        watch = self

        def value(v=None):
            result = watch._original_value(v)
            if v is not None:
                heapgate.enter_c()   # a GPIO write on the chip; the device's Python may allocate
                try:
                    watch.sync()
                finally:
                    heapgate.exit_c()
            return result

        def on():
            value(1)

        def off():
            value(0)

        pin.value = value
        pin.on = on
        pin.high = on
        pin.off = off
        pin.low = off

    def sync(self):
        level = self._original_value()
        if level == self.level:
            return
        self.level = level
        if level:
            self.device.spi_deselect()
        else:
            self.device.spi_select()

    def selected(self):
        self.sync()
        return self.level == 0


class SPI:
    MSB = 0
    LSB = 1
    CONTROLLER = 0

    def __init__(self, id=0, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None, **kw):
        self.id = id
        self._watches = []
        # Level read on MISO when no device drives it (pull-up on a real board).
        self.idle_miso = 0xFF
        self.bytes_transferred = 0
        self.init(baudrate=baudrate, polarity=polarity, phase=phase, bits=bits, firstbit=firstbit)

    def init(self, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=0, **kw):
        if firstbit != SPI.MSB:
            # rp2's machine.SPI refuses LSB-first too: the driver has to reverse bits itself.
            raise ValueError("firstbit must be MSB")
        if bits != 8:
            raise ValueError("only 8-bit transfers are emulated")
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase

    def deinit(self):
        pass

    # --- simulator side ---
    def attach(self, device, cs_pin):
        """Connect ``device`` to this bus behind chip-select ``cs_pin`` (a fake Pin)."""
        self._watches.append(_CsWatch(cs_pin, device))

    # --- firmware side ---
    def _exchange(self, byte):
        chosen = None
        for watch in self._watches:
            if watch.selected():
                if chosen is not None:
                    raise RuntimeError("SPI bus contention: two chip selects low")
                chosen = watch.device
        self.bytes_transferred += 1
        if chosen is None:
            return self.idle_miso
        return chosen.spi_exchange(byte) & 0xFF

    # Transfers are C code on the chip: what the emulated devices allocate is not the
    # firmware's (heapgate releases the step's heap lock meanwhile).
    def write(self, buf):
        heapgate.enter_c()
        try:
            for b in buf:
                self._exchange(b)
        finally:
            heapgate.exit_c()
        return None

    def read(self, nbytes, write=0x00):
        out = bytearray(nbytes)
        for i in range(nbytes):
            out[i] = self._exchange(write)
        return bytes(out)

    def readinto(self, buf, write=0x00):
        heapgate.enter_c()
        try:
            for i in range(len(buf)):
                buf[i] = self._exchange(write)
        finally:
            heapgate.exit_c()
        return None

    def write_readinto(self, write_buf, read_buf):
        if len(write_buf) != len(read_buf):
            raise ValueError("buffers must be the same length")
        heapgate.enter_c()
        try:
            for i in range(len(write_buf)):
                # Read the outgoing byte before storing the incoming one: the buffers may be the same.
                read_buf[i] = self._exchange(write_buf[i])
        finally:
            heapgate.exit_c()
        return None


class _StuckSlave:
    """A slave holding SDA low until it has seen ``release_after`` SCL pulses.

    Follows the firmware's bus clear on the Pin objects it uses: SCL falling edges driven
    as a GPIO are counted, and SDA reads low while the slave holds it."""

    def __init__(self, scl_pin, sda_pin, release_after):
        self.pulses = 0
        self.release_after = release_after
        scl_value = scl_pin.value
        sda_value = sda_pin.value
        slave = self

        def scl(v=None):
            if v is not None and not v and scl_value():
                slave.pulses += 1
            return scl_value(v)

        def sda(v=None):
            if v is None and slave.holding:
                return 0
            return sda_value(v)

        scl_pin.value = scl
        sda_pin.value = sda

    @property
    def holding(self):
        return self.pulses < self.release_after


class I2C:
    def __init__(self, id=0, scl=None, sda=None, freq=400000, timeout=50000, **kw):
        self.id = id
        self.freq = freq
        self._devices = {}
        self.transactions = 0
        self.timeouts = 0
        self._stuck = None        # a _StuckSlave holding the bus

    def init(self, scl=None, sda=None, freq=400000, **kw):
        self.freq = freq

    def deinit(self):
        pass

    # --- simulator side ---
    def attach(self, device, addr):
        self._devices[addr] = device

    def detach(self, addr):
        self._devices.pop(addr, None)

    def hang(self, scl_pin, sda_pin, release_after=3):
        """Fault: a slave holds SDA low (reset mid-byte).  Every transfer times out
        (OSError ETIMEDOUT) until ``release_after`` SCL pulses were driven on ``scl_pin``
        (the Pin objects the firmware uses for its bus clear)."""
        self._stuck = _StuckSlave(scl_pin, sda_pin, release_after)

    @property
    def hung(self):
        if self._stuck is not None and not self._stuck.holding:
            self._stuck = None
        return self._stuck is not None

    # --- firmware side ---
    def _device(self, addr):
        if self.hung:
            self.timeouts += 1
            raise OSError(_ETIMEDOUT)
        device = self._devices.get(addr)
        if device is None:
            raise OSError(_ENODEV)
        return device

    def scan(self):
        if self.hung:
            return []
        found = []
        for addr in sorted(self._devices):
            if self._devices[addr].i2c_write(b""):
                found.append(addr)
        return found

    def writeto(self, addr, buf, stop=True):
        heapgate.enter_c()   # C code on the chip, as SPI.write
        try:
            self.transactions += 1
            if not self._device(addr).i2c_write(bytes(buf)):
                raise OSError(_ENODEV)
        finally:
            heapgate.exit_c()
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        heapgate.enter_c()
        try:
            self.transactions += 1
            if not self._device(addr).i2c_read_into(buf):
                raise OSError(_ENODEV)
        finally:
            heapgate.exit_c()
        return None

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self.readfrom_into(addr, buf, stop)
        return bytes(buf)


class SoftI2C(I2C):
    pass
