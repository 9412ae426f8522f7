"""Shared by several test modules (moved from test_pn532_driver.py)."""

from host_tools.vboard.clock import VirtualClock  # noqa: E402
from host_tools.vboard.install import install  # noqa: E402
from host_tools.vboard.pins import Pin  # noqa: E402
from host_tools.vboard.pn532_emulator import PN532Emulator  # noqa: E402


class Rig:
    """One PN532 emulator and the driver talking to it, on a fresh virtual board."""

    def __init__(self, transport="spi", start_us=0, irq=True, cs_setup_us=0, **emulator_options):
        Pin.reset_registry()
        self.clock = VirtualClock(start_us)
        self.board = install(self.clock)
        import machine
        from drivers import pn532
        from drivers.pn532_i2c import PN532_I2C
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        self.pn532 = pn532
        irq_pin = machine.Pin(20, machine.Pin.IN, machine.Pin.PULL_UP) if irq else None
        self.emulator = PN532Emulator(self.clock, irq=20 if irq else None, cs_setup_us=cs_setup_us,
                                      **emulator_options)
        self.board.add_device(self.emulator)
        if transport == "spi":
            self.bus = machine.SPI(0, baudrate=1000000, polarity=0, phase=0)
            cs = machine.Pin(17, machine.Pin.OUT, value=1)
            self.emulator.attach_spi(self.bus, cs)
            self.driver = PN532_SPI(self.bus, cs, irq=irq_pin)
        else:
            self.bus = machine.I2C(0, freq=400000)
            self.emulator.attach_i2c(self.bus)
            self.driver = PN532_I2C(self.bus, irq=irq_pin)
        self.uid = bytearray(pn532.MAX_UID_LEN)

    def close(self):
        self.board.uninstall()

    def wait_reply(self, limit_us=1000000, step_us=100):
        waited = 0
        while not self.driver.reply_ready():
            assert waited < limit_us, "reply never became ready"
            self.clock.advance_us(step_us)
            self.emulator.update()
            waited += step_us
        return waited

    def list_uid(self):
        self.driver.start_list()
        self.wait_reply()
        n = self.driver.finish_list(self.uid)
        return bytes(self.uid[:n])
