"""WS2812 strip output on an RP2040 PIO state machine: interrupts stay on while it sends.

``machine.bitstream`` (what ``neopixel`` uses) masks interrupts for ~30 us per pixel, which
delays the touch and pad IRQ timestamps.  Here the state machine shifts the bits out by
itself; the CPU only puts one 32-bit word per pixel into the TX FIFO.

    strip = Ws2812Pio(Pin(28), 16)
    if strip.ready():       # the previous frame has gone out and latched
        strip.write(words)  # words: array("I") of 0x00GGRRBB, one per pixel (len == n)

Bit timing at the 8 MHz state machine clock, 10 cycles (1.25 us, 800 kHz) per bit:
a 0 is 3 cycles high (0.375 us) then 7 low, a 1 is 7 high (0.875 us) then 3 low (WS2812B:
T0H 0.4 +- 0.15 us, T1H 0.8 +- 0.15 us).  With the FIFO empty the program waits in its first
instruction with the line low, which is the latch (reset) gap.

``write`` returns once the last word is in the (joined, 8-word) FIFO: for a 16-pixel strip it
waits ~0.25 ms for the first 8 pixels to go out, with interrupts on.  A frame needs
``n * 30 us`` plus the latch gap on the wire: a frame put before that would run on into the
previous one and be lost, so callers ask ``ready()`` first (``LedStrip`` keeps the frame and
sends it at its next render); ``write`` itself waits if called too early (boot, self-test).
"""

from micropython import const
import time

import rp2

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rp2.asm_pio import *  # noqa: F401,F403  (PIO instruction names for pyright)

_SM_FREQ = const(8000000)
_PIXEL_US = const(30)     # 24 bits x 1.25 us
_LATCH_US = const(300)    # WS2812B needs >= 280 us low between frames
_SHIFT = const(8)         # 0x00GGRRBB -> the top 24 bits of the output shift register


@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True,
             pull_thresh=24, fifo_join=rp2.PIO.JOIN_TX)
def ws2812_program():
    label("bit")
    out(x, 1).side(0)[2]            # 3 cycles low (the previous bit's tail); waits here, low
    jmp(not_x, "zero").side(1)[2]   # 3 cycles high: every bit starts high
    jmp("bit").side(1)[3]           # a 1: 4 more cycles high
    label("zero")
    jmp("bit").side(0)[3]           # a 0: 4 cycles low


class Ws2812Pio:
    def __init__(self, pin, n, sm_id=0):
        if n < 1:
            raise ValueError("strip needs at least one pixel")
        self.n = n
        self.sm = rp2.StateMachine(sm_id, ws2812_program, freq=_SM_FREQ, sideset_base=pin)
        self.sm.active(1)
        self._frame_us = n * _PIXEL_US + _LATCH_US
        self._free_at = time.ticks_us()   # when the previous frame has latched
        self.writes = 0

    def ready(self):
        """True once the previous frame has gone out and latched."""
        return time.ticks_diff(self._free_at, time.ticks_us()) <= 0

    def write(self, words):
        """Send one frame (``len(words) == n``); waits for the previous frame's latch first."""
        wait = time.ticks_diff(self._free_at, time.ticks_us())
        if wait > 0:
            time.sleep_us(wait)
        self.sm.put(words, _SHIFT)
        self._free_at = time.ticks_add(time.ticks_us(), self._frame_us)
        self.writes += 1

    def deinit(self):
        self.sm.active(0)
