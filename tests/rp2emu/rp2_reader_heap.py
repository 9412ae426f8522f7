"""Run on the (emulated) Pico by `mpremote run`: the PN532 reader drivers under heap_lock.

Two readers as boards/pico.json wires them (SPI0, CS GP17/GP21, IRQ GP20/GP22), set up as the
firmware does (retries 0xFF, 500 ms relists); then, with the host landing a card every
``GAP_MS`` alternately on both piles (tests/rp2emu/test_rp2emu_readers.py):
1. ``LOCKED_MS`` of loop steps with every ``service()`` under ``micropython.heap_lock()``:
   an allocation would be counted as a reader failure ("memory");
2. ``DEAD_MS`` with reader 1's chip-select moved to an unconnected GPIO (nothing answers:
   ACK timeouts, backoff, re-setup in steps), unlocked, reader 0 still locked.
Prints one line per phase: ``phase NAME steps S cards C failures F0 F1 errors E0/E1 max_us M
in_state R card_step_us_p50 P card_step_us_max Q`` (per reader; M: the longest single
``service()`` call, begun in reader state R; P, Q: the calls that delivered a card), then
``done``.
"""

import micropython
import time
from machine import SPI, Pin

from drivers.nfc_reader import NfcReader
from drivers.pn532_spi import PN532_SPI

LOCKED_MS = 3000
DEAD_MS = 2500
_UNUSED_GPIO = 9

spi = SPI(0, baudrate=1000000, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
cards = [0, 0]


def on_card(pile, uid, ticks_us):
    cards[pile] += 1


readers = []
for cs_gpio, irq_gpio in ((17, 20), (21, 22)):
    pn = PN532_SPI(spi, Pin(cs_gpio, Pin.OUT, value=1), irq=Pin(irq_gpio, Pin.IN),
                   cs_setup_us=50)
    pn.setup(0xFF)
    readers.append(NfcReader(pn, len(readers), on_card=on_card, passive_retries=0xFF,
                             reply_timeout_us=500000))


def run(name, ms, locked):
    start = time.ticks_ms()
    steps = 0
    worst = 0
    worst_state = 0
    card_us = [0] * 64    # time of each service() that delivered a card
    n_card = 0
    c0 = cards[0] + cards[1]
    f0 = [r.failures for r in readers]
    while time.ticks_diff(time.ticks_ms(), start) < ms:
        for k in range(2):
            t0 = time.ticks_us()
            state = readers[k]._state
            if locked[k]:
                micropython.heap_lock()
                try:
                    got = readers[k].service(t0)
                finally:
                    micropython.heap_unlock()
            else:
                got = readers[k].service(t0)
            took = time.ticks_diff(time.ticks_us(), t0)
            if took > worst:
                worst = took
                worst_state = state
            if got and n_card < 64:
                card_us[n_card] = took
                n_card += 1
        steps += 1
    took = sorted(card_us[:n_card])
    print("phase %s steps %d cards %d failures %d %d errors %s/%s max_us %d in_state %d "
          "card_step_us_p50 %d card_step_us_max %d" % (
              name, steps, cards[0] + cards[1] - c0, readers[0].failures - f0[0],
              readers[1].failures - f0[1], readers[0].last_error, readers[1].last_error, worst,
              worst_state, took[len(took) // 2] if took else 0, took[-1] if took else 0))


print("ready")
run("locked", LOCKED_MS, (True, True))
readers[1].pn532._cs = Pin(_UNUSED_GPIO, Pin.OUT, value=1)   # reader 1 is gone
run("dead", DEAD_MS, (True, False))
print("done")
