"""Shared by several test modules (moved from test_nfc_reader.py)."""

from host_tools.vboard.clock import VirtualClock  # noqa: E402
from host_tools.vboard.install import install  # noqa: E402
from host_tools.vboard.pins import Pin  # noqa: E402
from host_tools.vboard.pn532_emulator import PN532Emulator  # noqa: E402


JUST_BELOW_US_WRAP = (1 << 30) - 60000  # ticks_us wraps 60 ms into the test


CS_PINS = (17, 18, 19)


IRQ_PINS = (20, 21, 22)


def uid(n):
    return bytes([0x04, 0x10, 0x20, 0x30, 0x40, 0x50, n])


class Table:
    """Piles with a PN532 each on one SPI bus (or one I2C bus each), serviced like the loop does."""

    def __init__(self, piles=2, transport="spi", irq=True, strategy=None, emulator_options=None,
                 reader_options=None, start_us=JUST_BELOW_US_WRAP):
        Pin.reset_registry()
        self.clock = VirtualClock(start_us)
        self.board = install(self.clock)
        import machine
        import time
        from drivers import nfc_reader
        from drivers.pn532_i2c import PN532_I2C
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        self.mod = nfc_reader
        self.time = time
        self.cards = []          # (pile, uid, ticks_us)
        self.status_changes = []
        self.emulators = []
        self.readers = []
        spi = machine.SPI(0, baudrate=1000000)
        for pile in range(piles):
            emulator = PN532Emulator(self.clock, irq=IRQ_PINS[pile] if irq else None,
                                     seed=pile + 1, **(emulator_options or {}))
            self.board.add_device(emulator)
            irq_pin = None
            if irq:
                irq_pin = machine.Pin(IRQ_PINS[pile], machine.Pin.IN, machine.Pin.PULL_UP)
            if transport == "spi":
                cs = machine.Pin(CS_PINS[pile], machine.Pin.OUT, value=1)
                emulator.attach_spi(spi, cs)
                driver = PN532_SPI(spi, cs, irq=irq_pin)
            else:
                i2c = machine.I2C(pile)
                emulator.attach_i2c(i2c)
                driver = PN532_I2C(i2c, irq=irq_pin)
            driver.setup()
            options = dict(reader_options or {})
            if strategy is not None:
                options["strategy"] = getattr(nfc_reader, strategy)
            reader = nfc_reader.NfcReader(driver, pile, on_card=self._on_card,
                                          on_status=self._on_status, **options)
            if irq:
                # The firmware's hard IRQ handler stores (source, ticks_us) in the input ring;
                # here the reader is told directly.
                irq_pin.irq(self._irq_handler(reader), machine.Pin.IRQ_FALLING, hard=True)
            self.emulators.append(emulator)
            self.readers.append(reader)

    def _irq_handler(self, reader):
        def handler(pin):
            reader.note_irq(self.time.ticks_us())
        return handler

    def _on_card(self, pile, card_uid, ticks_us):
        self.cards.append((pile, bytes(card_uid), ticks_us))   # a view, valid during the call

    def _on_status(self, reader):
        self.status_changes.append((reader.pile, reader.status, reader.last_error))

    def run(self, duration_us, step_us=250):
        end = self.clock.now_us + duration_us
        while self.clock.now_us < end:
            self.clock.advance_us(step_us)
            for emulator in self.emulators:
                emulator.update()
            now = self.time.ticks_us()
            for reader in self.readers:
                reader.service(now)

    def ticks_now(self):
        return self.clock.ticks_us()

    def close(self):
        self.board.uninstall()


def _run_until_cards(t, n, limit_us=200000, step_us=250):
    """Run the table until ``n`` cards were reported (at most ``limit_us``)."""
    end = t.clock.now_us + limit_us
    while len(t.cards) < n and t.clock.now_us < end:
        t.run(step_us, step_us)


# Three tags of one maker and batch: the same first six UID bytes, so they collide deep in
# cascade level 2.
SHARED_PREFIX_TAGS = [bytes.fromhex(h) for h in ("04A1B2C3D4E5F0", "04A1B2C3D4E5F1", "04A1B2C3D4E5F3")]


def three_new_tags(chip):
    """A one-pile ``Table`` under the PN532 model's options ``chip``: two cards read one after
    the other (a chip whose listing wakes halted tags is learned from them), then the three
    ``SHARED_PREFIX_TAGS`` land together and the table runs 400 ms.  The caller closes it."""
    t = Table(piles=1, emulator_options=chip,
              reader_options={"passive_retries": 0xFF, "reply_timeout_us": 500000})
    try:
        t.readers[0].pn532.set_passive_retries(0xFF)
        for n in (1, 2):
            t.emulators[0].place_tag(uid(n))
            t.run(100000)
        for tag in SHARED_PREFIX_TAGS:
            t.emulators[0].place_tag(tag)
        t.run(400000)
    except BaseException:
        t.close()
        raise
    return t
