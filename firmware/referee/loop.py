"""The firmware loop's driver and its work at pauses: methods of ``referee.app.App``.

They live here to keep app.py short; app.py binds them in its class body (``run_forever =
loop.run_forever``), so a call costs what a method defined there costs.

``run_forever()``: step, then idle (WFE) until an interrupt stamps an input or 1 ms passes.
``pause_work()`` (the second half of every step): in play the live console echo, one record
(no allocation); at a pause (``at_pause()``) one piece of the session log's flash work.
Flash erase/program masks interrupts for up to ~45 ms (a 4 KB erase), so the log goes to
flash only where no card, slap or press can be timed: between rounds once the slaps are
settled, after the game, in the correction menu (docs/hardware.md, flash writes).
"""

import gc
import time

from micropython import const

from spit.referee import PH_BETWEEN, PH_OVER
from referee.sessionlog import RECORD_BYTES

_IDLE_US = const(1000)    # longest idle wait after a step with no input waiting
_ECHO_BEFORE_US = const(2000)   # no console echo in a step that has already taken this long
_FORMAT_PER_STEP = const(4)   # log records formatted into the Logbook's buffer per step at a pause


def run_forever(self):
    import machine
    idle = machine.idle
    ring = self.ring
    probe = self.loop_pin
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    while True:
        if probe is not None:
            probe.value(1)
            self.step()
            probe.value(0)
        else:
            self.step()
        leds = self.leds
        if self._judge or len(ring) or (leds is not None and leds.pending):
            continue   # (a card fed in this step is judged in the next, at once)
        # Nothing waiting: idle (WFE) until an interrupt or the next millisecond.  A hard
        # IRQ stamps an edge into the ring and wakes the core, so a reader's reply (its
        # IRQ line is an input too) or a touch is taken at once, not after a fixed sleep;
        # timed work (animation frames, reader timeouts) waits at most _IDLE_US.
        t0 = ticks_us()
        while not len(ring) and ticks_diff(ticks_us(), t0) < _IDLE_US:
            idle()


def pause_work(self):
    """In play: echo one new log record to the console (no allocation, after the LEDs).
    At a pause (no card can land: between rounds, after the game, the correction menu),
    one piece of log work per step: format a few records into the Logbook's buffer, or
    write that buffer (one flash write: at most one erase), or sync the file, or start
    the next session, or ``gc.collect()`` once."""
    slog = self.slog
    book = self.book
    paused = self.paused = self.at_pause()
    if book is not None and book.flushes != self.stalls.seen:
        self.stalls.note(book, self.clock.ms, paused)   # (a forced write in this step)
    if not paused:
        self._swept = False
        if (slog.echo is not None and not self._read
                and time.ticks_diff(time.ticks_us(), self.step_us) < _ECHO_BEFORE_US):
            # One record per step (~1 ms on the chip; hundreds of steps a second keep the
            # console up with the LEDs), none in a step whose reader fed or judged a card
            # or that was long already: the records wait in RAM (the flash write has them).
            slog.echo_some(1)
        return
    if slog.pending and (book is None or book.free() >= RECORD_BYTES):
        slog.drain(_FORMAT_PER_STEP)
        return
    if book is not None and (book.bytes_buffered or not self._synced):
        if book.bytes_buffered:
            book.write_buffered()
            self._synced = False
        else:
            book.sync()
            self._synced = True
        self.stalls.note(book, self.clock.ms, True)
        return
    if self._restart:
        self._restart = False
        self.new_session()
        gc.collect()   # (the last game's engine)
        return
    if not self._swept:
        self._swept = True
        gc.collect()


def at_pause(self):
    """True where no card, slap or press can be timed: between rounds (after the slaps:
    waiting for READY and the next deal), after the game, in the correction menu."""
    ph = self.referee.phase
    return self.corr.menu or ph == PH_BETWEEN or ph == PH_OVER
