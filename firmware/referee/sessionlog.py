"""Session log lines of the firmware loop (docs/log-format.md), written to a ``Logbook``.

Every input event the loop feeds the engine is written as an ``ev`` line, every verdict the
engine reports as a ``verdict`` line, so ``spit.log.rejudge`` of the file gives the device's
verdicts again.  Two details keep that true:

* ``t`` is formatted from the session time pair ``(ms, us)`` as ``"%d%03d"`` (``"%d"`` when
  ms is 0), never as ``ms * 1000 + us``: that product is a heap-allocated big int on the
  RP2040 after 17.9 minutes.  (``spit.words.micros`` does build it, so verdict fields are
  taken from ``verdict_items`` with a zero time and the time is put in here.)
* The device also advances the engine with the loop's clock (its horizon ``H``), while a
  re-judge only knows the times written to the log.  Two things depend on the horizon: an
  event more than ``reorder_us`` behind it is judged ``late_event``, and a touch more than
  ``touch_match_us`` behind it can no longer be claimed by a card.  So before a late event,
  and before a card whenever ``H`` is ahead of the log, a ``tick`` line at ``H`` is written:
  the re-judge then has the same horizon and makes the same decisions.

Errors the firmware reports itself (``unknown_uid``, ``reader_down``, ``overflow``) have no
input event behind them; they appear only as verdict lines (a re-judge cannot see them).

Events and verdicts are stored as records in two preallocated arrays (``capacity`` records of
18 bytes: three ints and three 16-bit fields; nothing is allocated per record).  A record's
four values ``a b c d`` fit when at most one of them needs more than 16 bits (a time, a
``dt_us``, a score): that one goes into the record's wide int and its position into the
record's first int; a record with two wide values (none the engine makes today) keeps them in
a small dict until it is written (``_side``).  Lines are made from them by
``referee.logline.LineFormat`` straight into a bytearray, which allocates nothing either: into
the ``Logbook``'s RAM buffer (``drain``), or into a line buffer of this log for the live echo
on the console (``echo_some``: ``echo(buf, off, n)``, which is ``sys.stdout.write`` on the
Pico).  Writing flash masks interrupts for up to ~45 ms (a 4 KB erase), so the loop drains
and writes only where no card can land (``referee/app.py``: between rounds, after the game,
in the correction menu), a few records or one buffer write per step.

A landing costs three records (touch, card with the tick before it, verdict); a round needs
one record more or less per landing for the rest (simulated games, seed 3: classic 162,
tableau 300, own_deck 479 in its one long round; seed 1: own_deck 485).  512 records hold such
a round.  Past that, the loop formats the oldest into the ``Logbook``'s RAM buffer in the
middle of play, one per step without a card, once all but 16 are in use
(``App.pause_work``), and writes that buffer to flash when it is full (one write, at such a
step); a record that still finds the arrays full formats the oldest few itself (``spills``,
with a forced write of a full buffer: ``Logbook.forced_flushes``).  Nothing is lost, but a
write in play masks interrupts while cards can land, so the loop marks the input edges stamped
inside it as uncertain (referee/stalls.py).

The kind byte of a record: 0x80 | verdict code or the event kind (both below 0x20), with the
flags _TICK_FIRST and _SIDE.
"""

from array import array

from micropython import const

from referee.logline import LineFormat

# Copies of spit.intake's event kinds (const() is inlined per module only).
# generated from spit.intake, spit.timebase by scripts/gen_consts.py: do not edit
_EV_CARD = const(2)  # a: pile, b: card, c: player (-1 unknown); e: the read's evidence (below)
_EV_TICK = const(9)  # time passes, nothing happened (log end marker)
_SAT_MS = const(500000)
# end generated
_RECORDS = const(512)
_SPILL_MAX = const(4)   # records formatted by a spill (about 1 ms each on the chip)
_VERDICT = const(0x80)   # kind byte of a verdict record: 0x80 | code
_TICK_FIRST = const(0x40)   # an event record whose tick line at the horizon comes first
_SIDE = const(0x20)      # a record whose values are in ``_side`` (two of them need > 16 bits)
_INTS = const(3)         # per record: kind | us << 8 | tick us << 18 | wide field << 28, ms, wide value
_SHORTS = const(3)       # per record: the other three values, 16-bit signed
_WIDE_SHIFT = const(28)
RECORD_BYTES = const(400)   # room for the lines of one record: a tick line and its event (2 x MAX_LINE)
LOG_BUFFER_BYTES = const(1024)   # the Logbook's RAM buffer (referee/boot.py makes it first thing)


def make_records(capacity=_RECORDS):
    """The record arrays of a ``SessionLog`` (18 bytes a record, in two blocks): the firmware
    makes them first thing at boot, before the heap fragments (referee/boot.py)."""
    return array("i", bytes(4 * _INTS * capacity)), array("h", bytes(2 * _SHORTS * capacity))


_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from typing import Callable


class SessionLog:
    """Keeps the events and verdicts of one session."""
    echo_ready: "Callable[[], bool] | None"

    def __init__(self, book=None, reorder_us=0, echo=None, capacity=_RECORDS, records=None):
        self.echo = echo              # echo(buf, off, n): the lines also go there (the console)
        # echo_ready(): False while the console cannot take a line without waiting (a USB host
        # that does not read: referee/live.py); the records then wait (echo_some), and those
        # still waiting when the records go to flash are dropped from the echo (``echo``
        # counts them) but never from the log.
        self.echo_ready = None
        if records is None:
            records = make_records(capacity)
        self.capacity = len(records[0]) // _INTS
        # One record: ints kind | us << 8 (us < 1000) | wide << 28, ms, the wide value; shorts:
        # the other three of a, b, c, d in order (``wide``: which one is in the int).  An
        # event that needs a tick first (see the module doc) keeps the tick's time in its
        # record: flag _TICK_FIRST, its us at bit 18 and its ms in d (events have no d).
        # Allocated once (9 KB: ``make_records`` at boot) and reused by every session.
        self._rec = records[0]
        self._short = records[1]
        self._side = {}               # {record index: (a, b, c, d)} (flag _SIDE)
        self.line_format = LineFormat()
        self._line = bytearray(RECORD_BYTES)   # the lines of one record, for the echo
        self.start(book, reorder_us)

    def start(self, book, reorder_us):
        """A new session: nothing recorded yet (the record array is reused)."""
        self.book = book              # a referee.logbook.Logbook (or None: no log)
        self.reorder_us = reorder_us
        self.h_ms = 0                 # newest session time the engine has seen (H)
        self.h_us = 0
        self.l_ms = 0                 # newest t written to the log
        self.l_us = 0
        self.uid_note = b""           # UID hex (bytes) added to the next verdict line (unknown_uid)
        self.lines = 0
        self.ticks_written = 0
        self.spills = 0               # records formatted mid-play because the arrays were full
        self._head = 0                # oldest record
        self.pending = 0              # records not yet formatted
        self._notes = None            # {record index: uid hex} (unknown tags only)
        self._side.clear()
        self._echoed = 0              # records from the oldest on already echoed

    def _format(self, i, buf, p):
        """Write the line(s) of record ``i`` at ``buf[p:]`` (a tick line first, if it has one);
        returns the end.  Allocates nothing."""
        r = self._rec
        f = i * _INTS
        w = r[f]
        k = w & 0xFF
        sh = self._short
        x = sh[f]
        y = sh[f + 1]
        z = sh[f + 2]
        v = r[f + 2]
        wide = w >> _WIDE_SHIFT
        if k & _SIDE:
            vals = self._side[i]
            a = vals[0]
            b = vals[1]
            c = vals[2]
            d = vals[3]
        elif wide == 3:
            a = x
            b = y
            c = z
            d = v
        elif wide == 0:
            a = v
            b = x
            c = y
            d = z
        elif wide == 1:
            a = x
            b = v
            c = y
            d = z
        else:
            a = x
            b = y
            c = v
            d = z
        fmt = self.line_format
        if k & _TICK_FIRST:
            p = fmt.event(buf, p, _EV_TICK, d, (w >> 18) & 0x3FF, 0, 0, 0)
        if k & _VERDICT:
            notes = self._notes
            uid = notes.get(i) if notes else None
            return fmt.verdict(buf, p, k & 0x1F, r[f + 1], (w >> 8) & 0x3FF, a, b, c, d, uid)
        return fmt.event(buf, p, k & 0x1F, r[f + 1], (w >> 8) & 0x3FF, a, b, c)

    def advanced(self, ms, us):
        """The loop called ``referee.advance(ms, us)``: the horizon H is at least (ms, us)."""
        if ms > self.h_ms or (ms == self.h_ms and us > self.h_us):
            self.h_ms = ms
            self.h_us = us

    def _push(self, kind, ms, us, a, b, c, d):
        n = self.pending
        cap = self.capacity
        if n == cap:
            # Full in play: a few of the oldest records go to the Logbook's buffer now (a
            # quarter at most; with its buffer full, one flash write first), so no step formats
            # dozens of them (the loop spreads this out before it comes to it: App.pause_work).
            self.spills += 1
            self.drain(min(cap >> 2, _SPILL_MAX), True)
            n = self.pending
        i = self._head + n
        if i >= cap:
            i -= cap
        self.pending = n + 1
        r = self._rec
        sh = self._short
        f = i * _INTS
        if -32768 <= a <= 32767 and -32768 <= b <= 32767 and -32768 <= c <= 32767:
            r[f] = kind | us << 8 | 3 << _WIDE_SHIFT    # d is the wide one (a time, a dt_us)
            r[f + 2] = d
            sh[f] = a
            sh[f + 1] = b
            sh[f + 2] = c
        else:
            self._store_wide(i, kind | us << 8, a, b, c, d)
        r[f + 1] = ms
        return i

    def _store_wide(self, i, w, a, b, c, d):
        """Record ``i`` with a wide a, b or c (a countdown's ms, a late dt_us, a score): that
        one in the int, the other three in order in the shorts.  Allocates nothing, unless
        two values are wide (then they wait in ``_side``)."""
        r = self._rec
        sh = self._short
        f = i * _INTS
        wa = not -32768 <= a <= 32767
        wb = not -32768 <= b <= 32767
        wc = not -32768 <= c <= 32767
        if wa + wb + wc + (not -32768 <= d <= 32767) > 1:
            self._side[i] = (a, b, c, d)
            r[f] = w | _SIDE
            return
        if wa:
            r[f] = w
            r[f + 2] = a
            a = b
            b = c
        elif wb:
            r[f] = w | 1 << _WIDE_SHIFT
            r[f + 2] = b
            b = c
        else:
            r[f] = w | 2 << _WIDE_SHIFT
            r[f + 2] = c
        sh[f] = a
        sh[f + 1] = b
        sh[f + 2] = d

    def event(self, kind, ms, us, a, b, c):
        """Log one input event just before it is fed to the engine."""
        h_ms = self.h_ms
        h_us = self.h_us
        dm = h_ms - ms
        # Late (more than reorder_us behind the horizon: the engine says late_event), or a
        # card while the horizon is ahead of the log: a tick at H first, so a re-judge has
        # the same horizon (computed without big ints).
        # The tick shares the event's record (flag _TICK_FIRST, H in the spare fields).
        if (dm >= _SAT_MS or (dm >= 0 and dm * 1000 + (h_us - us) > self.reorder_us)
                or (kind == _EV_CARD and (h_ms > self.l_ms or (h_ms == self.l_ms and h_us > self.l_us)))):
            self.l_ms = h_ms
            self.l_us = h_us
            self.ticks_written += 1
            kind |= _TICK_FIRST | h_us << 18
        # (H is the loop's advance only: an event's own time moves the engine's horizon too, but
        # the re-judge feeds that same line.  Moving H with it wrote ticks the device never
        # advanced to: a touch fed just before a STUCK release the debouncer had held made
        # the re-judge judge the STUCK late_event, the device not.)
        if ms > self.l_ms or (ms == self.l_ms and us > self.l_us):
            self.l_ms = ms
            self.l_us = us
        self._push(kind, ms, us, a, b, c, h_ms)

    def tick(self, ms, us):
        """A ``tick`` line: time has reached ms/us (also written when a session is closed)."""
        self.advanced(ms, us)
        if ms > self.l_ms or (ms == self.l_ms and us > self.l_us):
            self.l_ms = ms
            self.l_us = us
        self._push(_EV_TICK, ms, us, 0, 0, 0, 0)

    def sink(self, code, ms, us, a, b, c, d):
        """One verdict's record (``App._verdict``, the engine's sink, calls it after the
        verdict's reactions)."""
        i = self._push(_VERDICT | code, ms, us, a, b, c, d)
        if self.uid_note:
            if self._notes is None:
                self._notes = {}
            self._notes[i] = self.uid_note
            self.uid_note = b""

    def drain(self, limit=-1, force=False):
        """Format up to ``limit`` of the oldest records (all if negative) into the Logbook's
        RAM buffer, echoing those not echoed yet; returns how many are left.  Stops when the
        buffer is full, unless ``force`` (then the Logbook writes it to flash first: a
        ``forced_flush``).  Allocates nothing."""
        book = self.book
        echo = self.echo
        while self.pending and limit != 0:
            if book is not None:
                if book.free() < RECORD_BYTES and not force:
                    break
                buf = book.buf
                p = book.room(RECORD_BYTES)
            else:
                buf = self._line
                p = 0
            limit -= 1
            i = self._head
            end = self._format(i, buf, p)
            if self._echoed:
                self._echoed -= 1
            elif echo is not None:
                echo(buf, p, end - p)
            w = self._rec[i * _INTS]
            n = 2 if w & _TICK_FIRST else 1
            if w & _SIDE:
                self._side.pop(i)
            self.lines += n
            if book is not None:
                book.commit(end, n)
            if self._notes:
                self._notes.pop(i, None)
            self._head = i + 1 if i + 1 < self.capacity else 0
            self.pending -= 1
        return self.pending

    def echo_some(self, limit):
        """Echo up to ``limit`` records not yet echoed (the live log on the console; they stay
        in the records for the flash write at the next pause).  Allocates nothing: the loop
        calls it after the LEDs are drawn.  Returns how many wait to be echoed."""
        echo = self.echo
        if echo is None:
            return 0
        ready = self.echo_ready
        buf = self._line
        while self._echoed < self.pending and limit:
            if ready is not None and not ready():
                break   # (the host has not taken the last line yet: this one waits)
            limit -= 1
            i = self._head + self._echoed
            if i >= self.capacity:
                i -= self.capacity
            echo(buf, 0, self._format(i, buf, 0))
            self._echoed += 1
        return self.pending - self._echoed

    def flush(self):
        """Format every record and write the lines to flash (the session's end, tests)."""
        while self.drain(-1, True):
            pass
        if self.book is not None:
            self.book.flush()

    def close(self):
        self.flush()
        if self.book is not None:
            self.book.close()
