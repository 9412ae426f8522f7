"""The LED renderers and every LED effect allocate nothing per drawing, under the real MicroPython.

Run from the repository root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/micropython/mp_led_check.py [--bad]

A WS2812 strip (``LedStrip`` on ``Ws2812Pio``) and plain GPIO LEDs (``GpioLeds``) draw every
effect the firmware has (``load_effects``: each pattern id, SOLID and an id without an effect
too), with and without an end (``until_ms``), every millisecond for 4 s, each ``render`` under
``micropython.heap_lock()`` (the emulated PIO/DMA and pins release it: C code on the chip,
host_tools/vboard/heapgate.py).  The intents change between drawings, unlocked, as the engine's
do.  The negative control (``--bad``: an effect whose ``level`` allocates) must be caught.
Prints "mp_led_check: OK" and exits 0, or exits 1.
"""

import sys

from host_tools.vboard import heapgate
from host_tools.vboard.clock import VirtualClock
from host_tools.vboard.install import install
from host_tools.vboard.pins import Pin

N_ZONES = 7
ZONES = [[2, 3, 4, 5], [8, 9, 10, 11], [], [6, 7], [0, 1], [12, 13], [14, 15]]


class Intents:
    def __init__(self):
        self.color = [0] * N_ZONES
        self.pattern = [0] * N_ZONES
        self.until_ms = [-1] * N_ZONES
        self.changes = 0

    def set(self, zone, color, pattern, until_ms):
        self.color[zone] = color
        self.pattern[zone] = pattern
        self.until_ms[zone] = until_ms
        self.changes += 1


def main(bad):
    Pin.reset_registry()
    board = install(VirtualClock((1 << 30) - 5000))
    try:
        from machine import Pin as P
        from drivers.led_patterns import load_effects
        from drivers.led_strip import LedStrip
        from drivers.ws2812_pio import Ws2812Pio
        from drivers.gpio_leds import GpioLeds

        effects = load_effects()
        n_ids = len(effects) + 1   # (and one id no effect has)
        if bad:
            fx = effects[1]
            keep = fx.level

            def allocating(t):
                return [keep(t)][0]
            fx.level = allocating
        strip = LedStrip(Ws2812Pio(P(28, P.OUT), 16), ZONES, brightness=128)
        pins = [[(1, P(10, P.OUT)), (-1, P(11, P.OUT))], [(-1, P(12, P.OUT))], [], [(8, P(13, P.OUT))],
                [(-1, P(15, P.OUT))], [(7, P(16, P.OUT))], [(-1, P(17, P.OUT))]]
        leds = GpioLeds(pins)
        a = Intents()
        b = Intents()
        t0 = board.clock.now_us
        drawn = 0
        for t in range(4000):
            if t % 250 == 0:   # a new look somewhere: every id in turn, on every zone, some with an end
                k = t // 250
                z = k % N_ZONES
                pid = k % n_ids
                until = t + 50 + 97 * (k % 5) if k % 3 else -1
                a.set(z, 1 + k % 9, pid, until)
                b.set(z, 1 + k % 9, pid, until)
            board.clock.advance_to_us(t0 + 1000 + 1000 * t)
            heapgate.lock_step()
            try:
                if strip.render(a, t):
                    drawn += 1
                leds.render(b, t)
            except MemoryError:
                heapgate.unlock_step()
                print("caught: an allocation while drawing at %d ms" % t)
                return 1
            heapgate.unlock_step()
        if drawn < 50 or leds.writes < 20:
            print("FAIL: too few drawings to prove anything: %d strip frames, %d pin writes" % (drawn, leds.writes))
            return 1
        print("%d effects, %d strip frames and %d pin writes under heap_lock" % (len(effects) - 1, drawn, leds.writes))
        return 0
    finally:
        board.uninstall()


bad = "--bad" in sys.argv
rc = main(bad)
if rc == 0 and not bad:
    print("mp_led_check: OK")
sys.exit(rc)
