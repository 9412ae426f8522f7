"""PN532 driver + emulator under the real MicroPython unix port.

Run from the repository root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/micropython/mp_pn532_check.py
Prints "mp_pn532_check: OK" and exits 0, or exits 1 on the first failure.
"""

import sys

from host_tools.vboard.clock import VirtualClock
from host_tools.vboard.install import install
from host_tools.vboard.pins import Pin
from host_tools.vboard.pn532_emulator import PN532Emulator

UID_A = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
UID_B = b"\x04\xa1\xb2\xc3\xd4\xe5\xf7"

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def wait(driver, clock, emulator, limit_us=1000000):
    waited = 0
    while not driver.reply_ready():
        if waited > limit_us:
            raise AssertionError("reply never ready")
        clock.advance_us(100)
        emulator.update()
        waited += 100


def list_uid(driver, clock, emulator, uid):
    driver.start_list()
    wait(driver, clock, emulator)
    n = driver.finish_list(uid)
    return bytes(uid[:n])


def run(transport):
    Pin.reset_registry()
    clock = VirtualClock(((1 << 30) - 3) * 1000 - 20000)
    board = install(clock)
    try:
        import machine
        from drivers import pn532
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        from drivers.pn532_i2c import PN532_I2C
        irq = machine.Pin(20, machine.Pin.IN, machine.Pin.PULL_UP)
        emulator = board.add_device(PN532Emulator(clock, irq=20))
        if transport == "spi":
            bus = machine.SPI(0, baudrate=1000000)
            cs = machine.Pin(17, machine.Pin.OUT, value=1)
            emulator.attach_spi(bus, cs)
            driver = PN532_SPI(bus, cs, irq=irq)
        else:
            bus = machine.I2C(0)
            emulator.attach_i2c(bus)
            driver = PN532_I2C(bus, irq=irq)
        uid = bytearray(pn532.MAX_UID_LEN)
        check(driver.setup(passive_retries=1) == (0x32, 1, 6, 7), transport + " firmware version")
        check(list_uid(driver, clock, emulator, uid) == b"", transport + " empty field")
        emulator.place_tag(UID_A)
        check(list_uid(driver, clock, emulator, uid) == UID_A, transport + " first card")
        driver.halt()
        emulator.place_tag(UID_B)
        check(list_uid(driver, clock, emulator, uid) == UID_B, transport + " newest card")
        driver.halt()
        check(list_uid(driver, clock, emulator, uid) == b"", transport + " halted cards silent")
        emulator.nack_next = True
        try:
            driver.firmware_version()
            check(False, transport + " NACK raised")
        except pn532.PN532Nack:
            pass
        emulator.bad_checksum_next = True
        try:
            driver.firmware_version()
            check(False, transport + " checksum raised")
        except pn532.PN532ChecksumError:
            pass
        emulator.silent = True
        try:
            driver.firmware_version()
            check(False, transport + " silence raised")
        except pn532.PN532Error:
            pass
        emulator.silent = False
        if transport == "spi":
            check(clock.ticks_ms() < 1000, "ticks_ms wrapped during the SPI run")
        check(driver.firmware_version()[0] == 0x32, transport + " recovers")
        check(emulator.host_frame_errors == 0, transport + " frames well formed")
    finally:
        board.uninstall()


def run_reader():
    """NfcReader on two piles; the IRQ handlers are hard (heap locked) and the clock wraps."""
    Pin.reset_registry()
    clock = VirtualClock((1 << 30) - 60000)
    board = install(clock)
    try:
        import machine
        import time
        from drivers.nfc_reader import NfcReader, STATUS_OK
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        spi = machine.SPI(0, baudrate=1000000)
        cards = []
        emulators = []
        readers = []

        def on_card(pile, card_uid, ticks_us):
            cards.append((pile, bytes(card_uid), ticks_us))

        for pile in range(2):
            emulator = board.add_device(PN532Emulator(clock, irq=20 + pile, seed=pile + 1))
            cs = machine.Pin(17 + pile, machine.Pin.OUT, value=1)
            irq = machine.Pin(20 + pile, machine.Pin.IN, machine.Pin.PULL_UP)
            emulator.attach_spi(spi, cs)
            driver = PN532_SPI(spi, cs, irq=irq)
            driver.setup()
            reader = NfcReader(driver, pile, on_card=on_card)
            irq.irq(_make_handler(reader, time), machine.Pin.IRQ_FALLING, hard=True)
            emulators.append(emulator)
            readers.append(reader)

        def run(duration_us):
            end = clock.now_us + duration_us
            while clock.now_us < end:
                clock.advance_us(250)
                for emulator in emulators:
                    emulator.update()
                now = time.ticks_us()
                for reader in readers:
                    reader.service(now)

        run(10000)
        for n in range(4):
            emulators[n % 2].place_tag(UID_A[:6] + bytes([n]))
            run(30000)
        emulators[0].silent = True
        emulators[1].place_tag(UID_B)
        run(300000)
        check(readers[0].status != STATUS_OK, "silent reader reported")
        check(cards[-1][1] == UID_B, "other pile kept working")
        emulators[0].silent = False
        run(3000000)
        check(readers[0].status == STATUS_OK, "silent reader recovered")
        check([c[1][-1] for c in cards[:4]] == [0, 1, 2, 3], "cards in order")
        stamps = [c[2] for c in cards]
        check(all(time.ticks_diff(b, a) > 0 for a, b in zip(stamps, stamps[1:])), "wrap-safe order")
        check(clock.ticks_us() < (1 << 29), "ticks_us wrapped during the run")
        check(not Pin.irq_errors, "hard IRQ handlers ran without allocating: %r" % (Pin.irq_errors,))
    finally:
        board.uninstall()


def run_wupa_chip():
    """A chip whose listing wakes halted tags: cards in falling UID order, then two together."""
    Pin.reset_registry()
    clock = VirtualClock((1 << 30) - 400000)
    board = install(clock)
    try:
        import machine
        import time
        from drivers.nfc_reader import NfcReader
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        spi = machine.SPI(0, baudrate=1000000)
        emulator = board.add_device(PN532Emulator(clock, irq=20, list_uses_wupa=True))
        cs = machine.Pin(17, machine.Pin.OUT, value=1)
        irq = machine.Pin(20, machine.Pin.IN, machine.Pin.PULL_UP)
        emulator.attach_spi(spi, cs)
        driver = PN532_SPI(spi, cs, irq=irq)
        driver.setup(passive_retries=0xFF)
        cards = []
        reader = NfcReader(driver, 0, on_card=lambda pile, u, t: cards.append((bytes(u), t)),
                           passive_retries=0xFF, reply_timeout_us=500000)
        irq.irq(_make_handler(reader, time), machine.Pin.IRQ_FALLING, hard=True)

        def run(duration_us):
            end = clock.now_us + duration_us
            while clock.now_us < end:
                clock.advance_us(250)
                emulator.update()
                reader.service(time.ticks_us())

        for n in (4, 3, 2, 1):
            emulator.place_tag(UID_A[:6] + bytes([n]))
            run(150000)
        check([c[0][-1] for c in cards] == [4, 3, 2, 1], "WUPA chip: falling UID order all read")
        check(reader.wakes_halted, "WUPA chip learned")
        emulator.place_tag(UID_A[:6] + bytes([9]))
        emulator.place_tag(UID_A[:6] + bytes([8]))
        run(300000)
        check(len(cards) == 6 and cards[4][1] == cards[5][1], "two cards together: one time")
        check(reader.scan.collisions > 0, "bit-wise anticollision used")
    finally:
        board.uninstall()


def _make_handler(reader, time):
    def handler(pin):
        reader.note_irq(time.ticks_us())
    return handler


def main():
    try:
        run_reader()
        run_wupa_chip()
    except Exception as e:  # noqa: BLE001
        failures.append("reader: " + repr(e))
        sys.print_exception(e) if hasattr(sys, "print_exception") else print(repr(e))
    for transport in ("spi", "i2c"):
        try:
            run(transport)
        except Exception as e:  # noqa: BLE001
            failures.append(transport + ": " + repr(e))
            sys.print_exception(e) if hasattr(sys, "print_exception") else print(repr(e))
    if failures:
        print("mp_pn532_check: FAILED", len(failures))
        sys.exit(1)
    print("mp_pn532_check: OK")


main()
