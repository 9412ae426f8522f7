"""The PN532 reader drivers allocate nothing per card or idle step, under the real MicroPython.

Run from the repository root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/micropython/mp_reader_heap_check.py [--bad]

Every ``NfcReader.service()`` call runs under ``micropython.heap_lock()`` (the emulated bus
transfers and GPIO writes release it: C code on the chip, host_tools/vboard/heapgate.py), from
the PN532's IRQ to the UID handed to ``on_card``, over SPI and I2C:
- a quiet pile (the chip waits for a card; relisted every 500 ms, as the firmware does);
- cards landing one by one (InListPassiveTarget, HLTA, the own REQA scan after it);
- a chip whose listing wakes halted tags: the host's REQA / anticollision / SELECT / HLTA
  through InCommunicateThru, two cards together resolved bit by bit;
- the field-reset strategy (RF off/on, the pile read again);
- after a dead reader came back (its failure and re-setup may allocate while they happen).
A reader counts an exception in ``service`` as a failure (it never raises into the loop), so
an allocation shows as ``last_error == "memory"``: every locked phase must end with no
failure.  The negative control (``--bad``: an ``on_card`` that allocates) must be caught.
Prints "mp_reader_heap_check: OK" and exits 0, or exits 1.
"""

import sys

from host_tools.vboard import heapgate
from host_tools.vboard.clock import VirtualClock
from host_tools.vboard.install import install
from host_tools.vboard.pins import Pin
from host_tools.vboard.pn532_emulator import PN532Emulator

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


class Recorder:
    """on_card target that allocates nothing: UIDs and times into preallocated buffers."""

    def __init__(self, size=64):
        self.uids = bytearray(size * 11)
        self.ticks = [0] * size
        self.count = 0
        self.allocate = False

    def on_card(self, pile, uid, ticks_us):
        k = self.count
        base = k * 11
        self.uids[base] = len(uid)
        for i in range(len(uid)):
            self.uids[base + 1 + i] = uid[i]
        self.ticks[k] = ticks_us
        self.count = k + 1
        if self.allocate:
            self.last = [ticks_us]   # the negative control: one list per card

    def uid(self, k):
        base = k * 11
        return bytes(self.uids[base + 1:base + 1 + self.uids[base]])


class Rig:
    def __init__(self, transport, strategy=0, **emulator_options):
        Pin.reset_registry()
        self.clock = VirtualClock((1 << 30) - 700000)   # ticks_us wraps during the run
        self.board = install(self.clock)
        import machine
        import time
        from drivers.nfc_reader import NfcReader
        self.time = time
        self.emulator = self.board.add_device(PN532Emulator(self.clock, irq=20, **emulator_options))
        irq = machine.Pin(20, machine.Pin.IN, machine.Pin.PULL_UP)
        if transport == "spi":
            from drivers.pn532_spi import PN532_SPI
            bus = machine.SPI(0, baudrate=1000000)
            cs = machine.Pin(17, machine.Pin.OUT, value=1)
            self.emulator.attach_spi(bus, cs)
            driver = PN532_SPI(bus, cs, irq=irq, cs_setup_us=50)
        else:
            from drivers.pn532_i2c import PN532_I2C
            bus = machine.I2C(0)
            self.emulator.attach_i2c(bus)
            driver = PN532_I2C(bus, irq=irq)
        driver.setup(passive_retries=0xFF)
        self.cards = Recorder()
        self.reader = NfcReader(driver, 0, strategy=strategy, on_card=self.cards.on_card,
                                passive_retries=0xFF, reply_timeout_us=500000,
                                field_reset_us=200000, setup_after=2, backoff_us=5000)
        reader = self.reader

        def irq_edge(pin):   # a hard IRQ handler (the pin fake runs it under heap_lock)
            reader.note_irq(time.ticks_us())
        irq.irq(irq_edge, machine.Pin.IRQ_FALLING, hard=True)
        self.steps = 0

    def run(self, duration_us, locked=True, step_us=500):
        clock = self.clock
        end = clock.now_us + duration_us
        reader = self.reader
        ticks_us = self.time.ticks_us
        while clock.now_us < end:
            clock.advance_us(step_us)
            self.emulator.update()
            now = ticks_us()
            if locked:
                heapgate.lock_step()
                try:
                    reader.service(now)
                finally:
                    heapgate.unlock_step()
            else:
                reader.service(now)
            self.steps += 1

    def locked_clean(self, what):
        r = self.reader
        check(r.failures == 0, "%s: no failure under the heap lock (last error %r)" % (what, r.last_error))

    def close(self):
        self.board.uninstall()


def uid(n, first=0x04):
    return bytes([first, 0x53, 0x50, 0x10, 0x20, 0x30, n])


def landings(transport):
    r = Rig(transport)
    try:
        r.run(1200000)   # a quiet pile: two relists
        quiet_steps = r.steps
        for n in range(8):
            r.emulator.place_tag(uid(n))
            r.run(60000)
        r.locked_clean(transport + " landings")
        got = [r.cards.uid(k) for k in range(r.cards.count)]
        check(got == [uid(n) for n in range(8)], transport + ": 8 cards read in order: %r" % (got,))
        print("%s: %d idle steps and 8 landings (%d steps) with every service() under heap_lock"
              % (transport, quiet_steps, r.steps - quiet_steps))
        # A dead reader: failures and the re-setup may allocate, then locked again.
        r.emulator.silent = True
        r.run(1500000, locked=False)   # past the 500 ms relist: its ACK never comes
        check(r.reader.failures > 0 and r.reader.status != 0, transport + ": dead reader reported")
        r.emulator.silent = False
        r.run(1500000, locked=False)
        check(r.reader.status == 0, transport + ": reader back")
        failed = r.reader.failures
        r.reader.failures = 0
        for n in range(8, 12):
            r.emulator.place_tag(uid(n))
            r.run(60000)
        r.locked_clean(transport + " after recovery")
        check(r.cards.count == 12, transport + ": cards after recovery read: %d" % r.cards.count)
        print("%s: dead reader (%d failures, set up again in steps) recovered; 4 more landings locked"
              % (transport, failed))
    finally:
        r.close()


def wupa_chip():
    """The chip's listing wakes halted tags: the reader's own anticollision, under the lock."""
    r = Rig("spi", list_uses_wupa=True)
    try:
        for n in (4, 3, 2, 1):
            r.emulator.place_tag(uid(n))
            r.run(150000)
        r.emulator.place_tag(uid(9))
        r.emulator.place_tag(uid(8))
        r.run(300000)
        r.locked_clean("WUPA chip")
        check(r.reader.wakes_halted and r.reader.scan.collisions > 0,
              "WUPA chip: learned, and a collision resolved bit by bit")
        check(r.cards.count == 6, "WUPA chip: 6 cards read: %d" % r.cards.count)
        print("WUPA chip: %d anticollision probes, all under heap_lock"
              % r.reader.scan.probes)
    finally:
        r.close()


def field_resets():
    from drivers.nfc_reader import STRATEGY_FIELD_RESET
    r = Rig("spi", strategy=STRATEGY_FIELD_RESET)
    try:
        for n in range(3):
            r.emulator.place_tag(uid(n))
            r.run(250000)
        r.locked_clean("field resets")
        check(r.reader.field_resets > 0 and r.cards.count == 3,
              "field resets: %d resets, %d cards" % (r.reader.field_resets, r.cards.count))
    finally:
        r.close()


def negative_control():
    """An on_card that allocates, under the same lock: the reader must count it."""
    r = Rig("spi")
    try:
        r.cards.allocate = True
        r.emulator.place_tag(uid(1))
        r.run(60000)
        check(r.reader.failures > 0 and r.reader.last_error == "memory",
              "negative control: the allocation was caught (failures %d, last error %r)"
              % (r.reader.failures, r.reader.last_error))
        return r.reader.failures > 0 and r.reader.last_error == "memory"
    finally:
        r.close()


def byteloops_match():
    """The viper loops (native code on this port) and their plain-Python fallback agree."""
    import random
    from drivers import byteloops, byteloops_py
    from host_tools.vboard.pn532_wire import reverse_bits
    for n in (0, 1, 6, 16, 58, 256):
        src = bytes(range(256)) if n == 256 else bytes(random.getrandbits(8) for _ in range(n))
        out = []
        for module in (byteloops, byteloops_py):
            a = bytearray(264)
            b = bytearray(264)
            out.append((module.reverse_into(a, 3, src, n), bytes(a),
                        module.copy_into(b, 5, src, 0, n), module.copy_into(b, 0, b, 6, 3), bytes(b)))
        check(out[0] == out[1], "viper and plain byte loops agree (%d bytes)" % n)
        check(out[0][1][3:3 + n] == bytes(reverse_bits(x) for x in src), "bits reversed (%d bytes)" % n)


def main():
    if "--bad" in sys.argv:
        caught = negative_control()
        print("mp_reader_heap_check: %s" % ("caught" if caught else "NOT caught"))
        sys.exit(0 if caught else 1)
    for part in (byteloops_match, lambda: landings("spi"), lambda: landings("i2c"), wupa_chip,
                 field_resets):
        try:
            part()
        except Exception as e:  # noqa: BLE001
            failures.append(repr(e))
            sys.print_exception(e)
    check(not Pin.irq_errors, "hard IRQ handlers allocated nothing: %r" % (Pin.irq_errors,))
    if failures:
        print("mp_reader_heap_check: %d failures" % len(failures))
        sys.exit(1)
    print("mp_reader_heap_check: OK")


main()
