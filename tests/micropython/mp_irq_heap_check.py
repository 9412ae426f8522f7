"""Proof that every hard IRQ handler of the inputs allocates nothing (MicroPython unix port).

Run from the repo root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/micropython/mp_irq_heap_check.py
    ... tests/micropython/mp_irq_heap_check.py --bad     (negative control only: must exit non-zero)

The virtual board's fake Pin runs hard handlers under ``micropython.heap_lock()``, so an
allocation inside one raises MemoryError, which the fake records in ``Pin.irq_errors``.
For every board file, ``build_inputs`` registers the real ``EdgeInput`` handlers; each pin is
then driven through many edges (also past a full ring, to exercise the overflow path) with
the injected clock starting just below the 2**30 wrap.  Exit 0 only if no handler raised,
every edge reached the ring (or was counted as an overflow) and the negative control (a
handler that allocates) was caught.
"""

import sys

import micropython

from host_tools.vboard.clock import VirtualClock
from host_tools.vboard.install import install

vb = install(VirtualClock((1 << 30) - 3000))

from machine import Pin  # noqa: E402  (the fake, after install)
from drivers.input_ring import InputRing  # noqa: E402
from referee.board import load_board  # noqa: E402
from referee.board_hw import build_inputs  # noqa: E402

_EDGES = 6  # per pin: 3 presses + 3 releases


class _AllocatingInput:
    """Negative control: a hard handler that builds a list per IRQ (as a careless one would)."""

    def __init__(self, pin, ring):
        self.ring = ring
        self.seen = []
        self._h = self._irq
        pin.irq(self._h, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

    def _irq(self, pin):
        self.seen.append([pin.value(), vb.clock.ticks_us()])


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def negative_control():
    """Returns True if an allocating hard handler was caught."""
    Pin.reset_registry()
    ring = InputRing(8)
    pin = Pin(0, Pin.IN, Pin.PULL_UP)
    bad = _AllocatingInput(pin, ring)
    pin.drive(0)
    caught = len(Pin.irq_errors) == 1 and "MemoryError" in Pin.irq_errors[0][1]
    print("negative control: allocating handler ->", Pin.irq_errors, "caught" if caught else "NOT CAUGHT")
    return caught and not bad.seen


def check_board(path, capacity):
    Pin.reset_registry()
    board = load_board(path)
    ring = InputRing(capacity)
    inputs = build_inputs(board, ring)
    expected = 0
    for inp in inputs:
        pin = inp.pin
        for _ in range(_EDGES // 2):
            vb.clock.advance_us(700)
            pin.drive(1 - pin.value())
            vb.clock.advance_us(700)
            pin.drive(1 - pin.value())
        # STUCK (both edges) stores every edge; the others only their active edge.
        expected += _EDGES if (pin._trigger & Pin.IRQ_RISING and pin._trigger & Pin.IRQ_FALLING) else _EDGES // 2
    if Pin.irq_errors:
        fail("%s: hard IRQ handler raised (allocation under heap_lock?): %r" % (path, Pin.irq_errors))
    got = len(ring) + ring.overflows
    if got != expected:
        fail("%s: %d edges expected in the ring, got %d (+%d overflows)" % (path, expected, len(ring), ring.overflows))
    wrapped = False
    prev = -1
    tail = ring.tail
    while tail != ring.head:   # (read as App.poll reads it)
        ticks = ring.stamps[tail]
        tail = tail + 1 if tail + 1 < ring.size else 0
        if ticks < prev:
            wrapped = True
        prev = ticks
    ring.tail = tail
    print("%s: %d handlers, %d edges under heap_lock, %d overflows, ticks wrapped: %s"
          % (path, len(inputs), expected, ring.overflows, wrapped))
    return ring.overflows


def main():
    if not hasattr(micropython, "heap_lock"):
        fail("this check needs the MicroPython unix port")
    if not Pin.lock_heap_in_hard_irq:
        fail("fake Pin does not lock the heap in hard IRQs")
    if "--bad" in sys.argv:
        # Only the negative control's handler: must be reported as a failure.
        Pin.reset_registry()
        ring = InputRing(8)
        pin = Pin(0, Pin.IN, Pin.PULL_UP)
        _AllocatingInput(pin, ring)
        pin.drive(0)
        if Pin.irq_errors:
            fail("allocating handler caught: %r" % (Pin.irq_errors,))
        print("allocating handler NOT caught")
        return
    if not negative_control():
        fail("negative control: an allocating hard handler was not caught, the check proves nothing")
    for path in ("boards/pico.json", "boards/pico_3pile.json", "boards/pico_i2c.json"):
        check_board(path, 256)
    # Small ring: the overflow path (counter increment) must not allocate either.
    if check_board("boards/pico.json", 8) == 0:
        fail("expected overflows with an 8-slot ring")
    print("OK: no hard IRQ handler allocated")


main()
vb.uninstall()
