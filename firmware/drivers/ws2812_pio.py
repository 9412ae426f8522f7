"""WS2812 strip output on an RP2040 PIO state machine fed by DMA: interrupts stay on.

``machine.bitstream`` (what ``neopixel`` uses) masks interrupts for ~30 us per pixel, which
delays the touch and pad IRQ timestamps.  Here a state machine shifts the bits out and a DMA
channel feeds its TX FIFO from the frame buffer: the CPU only starts the transfer.

    strip = Ws2812Pio(Pin(28), 16)
    words = array("I", bytes(4 * 16))
    words[0] = strip.word(255, 0, 0)   # pixel 0 red (the wire format: see below)
    if strip.ready():                  # the previous frame has gone out and latched
        strip.write(words)

Bit timing at the 8 MHz state machine clock, 10 cycles (1.25 us, 800 kHz) per bit:
a 0 is 3 cycles high (0.375 us) then 7 low, a 1 is 7 high (0.875 us) then 3 low (WS2812B:
T0H 0.4 +- 0.15 us, T1H 0.8 +- 0.15 us).  With the FIFO empty the program waits in its first
instruction with the line low, which is the latch (reset) gap.

A pixel word holds the 24 bits G7..G0 R7..R0 B7..B0 in the order they go out, least
significant bit first (the state machine shifts right), so every word is a small int below
2**24: no big ints when the firmware computes one (``word(r, g, b)``).  The DMA channel reads
the frame buffer as it is, so the buffer must stay unchanged until ``ready()``.  Where
``rp2.DMA`` is missing, ``write`` puts the words into the (joined, 8-word) FIFO itself, which
waits ~(n - 8) x 30 us with interrupts on.

A frame needs ``n * 30 us`` plus the latch gap on the wire: a frame started before that would
run on into the previous one and be lost, so callers ask ``ready()`` first (``LedStrip``
keeps the frame and sends it at its next render); ``write`` itself waits if called early.
"""

from micropython import const
import time

import rp2

TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if TYPE_CHECKING:
    from rp2.asm_pio import *  # noqa: F401,F403  (PIO instruction names for pyright)

_SM_FREQ = const(8000000)
_PIXEL_US = const(30)     # 24 bits x 1.25 us
_LATCH_US = const(300)    # WS2812B needs >= 280 us low between frames
_PIO0_TXF0 = const(0x50200010)   # PIO0 TX FIFO of state machine 0 (+4 per machine)
_PIO_STRIDE = const(0x100000)    # PIO1's registers follow PIO0's (its TXF0: 0x50300010)
_DREQ_PIO1_TX0 = const(8)        # DREQ_PIO0_TX0 is 0
_DMA_SIZE_32 = const(2)
# rp2.PIO's option values, compiled in (no rp2.PIO lookups at import):
_OUT_LOW = const(2)        # rp2.PIO.OUT_LOW: the side-set pin starts low
_SHIFT_RIGHT = const(1)    # rp2.PIO.SHIFT_RIGHT
_JOIN_TX = const(1)        # rp2.PIO.JOIN_TX: both FIFOs as one 8-word TX FIFO


@rp2.asm_pio(sideset_init=_OUT_LOW, out_shiftdir=_SHIFT_RIGHT, autopull=True, pull_thresh=24,
             fifo_join=_JOIN_TX)
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
        self.dma = None
        try:
            dma = rp2.DMA()
        except (AttributeError, OSError):   # no DMA (or none free): put() from the CPU
            return
        pio = sm_id >> 2   # state machines 0-3 are PIO0's, 4-7 PIO1's
        # The target, the count and the control word are set once (a trigger reloads the count
        # and the write address does not move): a frame then only sets the read address and
        # triggers, one keyword to parse instead of four.
        dma.config(write=_PIO0_TXF0 + pio * _PIO_STRIDE + 4 * (sm_id & 3), count=n,
                   ctrl=dma.pack_ctrl(size=_DMA_SIZE_32, inc_read=True, inc_write=False,
                                      treq_sel=pio * _DREQ_PIO1_TX0 + (sm_id & 3)))
        self.dma = dma

    def word(self, r, g, b):
        """One pixel in the wire format (bits in sending order, LSB first): G, R, B, each
        byte bit-reversed, all three at once (no table; every value stays below 2**24)."""
        w = b << 16 | r << 8 | g
        w = (w & 0xF0F0F0) >> 4 | (w & 0x0F0F0F) << 4
        w = (w & 0xCCCCCC) >> 2 | (w & 0x333333) << 2
        return (w & 0xAAAAAA) >> 1 | (w & 0x555555) << 1

    def ready(self):
        """True once the previous frame has gone out and latched."""
        return time.ticks_diff(self._free_at, time.ticks_us()) <= 0

    def wait(self):
        """Sleep until ``ready()`` (boot and self-test only: the loop asks ``ready()``)."""
        wait = time.ticks_diff(self._free_at, time.ticks_us())
        if wait > 0:
            time.sleep_us(wait)

    def write(self, words):
        """Send one frame (``len(words) == n``); waits for the previous frame's latch first."""
        wait = time.ticks_diff(self._free_at, time.ticks_us())   # (wait(), without its call)
        if wait > 0:
            time.sleep_us(wait)
        dma = self.dma
        if dma is not None:
            dma.config(read=words, trigger=True)   # (the rest was set in __init__)
        else:
            self.sm.put(words)
        self._free_at = time.ticks_add(time.ticks_us(), self._frame_us)
