"""Run on the (emulated) Pico by `mpremote run`: the referee's whole loop under heap_lock.

The firmware boots as on the board (``referee.boot.start``, live log echo on the console) and
waits for both players' READY (the host presses them; the session starts, unlocked), then
every ``App.step()`` runs under ``micropython.heap_lock()`` for ``LOCKED_MS`` while the
host lands cards with their touches (tests/rp2emu/test_rp2emu_loop_heap.py): readers, card map,
engine, verdict LEDs with their blink/expiry timing, buzzer, session log and echo.  An
allocation raises ``MemoryError`` inside the locked step (counted, first tracebacks printed).
On the chip small ints are 31-bit, so a sum past 2**30 allocates here and nowhere on a PC.
Prints ``control ok`` (an allocation under the lock does raise), then ``loop steps S errors E
cards C0 C1 led_writes W``, then ``done``.
"""

import sys
import time

import micropython

from referee.boot import start

LOCKED_MS = 9000

micropython.heap_lock()
try:
    bytearray(16)
    print("control FAILED: an allocation under heap_lock did not raise")
except MemoryError:
    print("control ok")
finally:
    micropython.heap_unlock()

app = start(echo=sys.stdout.write)
t0 = time.ticks_ms()
while app.waiting and time.ticks_diff(time.ticks_ms(), t0) < 10000:
    app.step()   # (until both players press READY: the session starts, its file opens, unlocked)
steps = errors = 0
first = None
t0 = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), t0) < LOCKED_MS:
    micropython.heap_lock()
    try:
        app.step()
    except MemoryError as e:
        errors += 1
        if first is None:
            first = e   # (printed after the loop, with the heap unlocked)
    finally:
        micropython.heap_unlock()
    steps += 1
if first is not None:
    sys.print_exception(first)
print("loop steps %d errors %d cards %d %d led_writes %d"
      % (steps, errors, app.readers[0].cards, app.readers[1].cards, app.leds.writes))
print("done")
