"""Session log lines of the firmware loop (docs/log-format.md), written to a ``Logbook``.

Every input event the loop feeds the engine is written as an ``ev`` line, every verdict the
engine reports as a ``verdict`` line, so ``spit.log.rejudge`` of the file gives the device's
verdicts again.  Two details keep that true:

* ``t`` is formatted from the session time pair ``(ms, us)`` as ``"%d%03d"`` (``"%d"`` when
  ms is 0), never as ``ms * 1000 + us``: that product is a heap-allocated big int on the
  RP2040 after 17.9 minutes.  (``spit.notation.micros`` does build it, so verdict fields are
  taken from ``verdict_items`` with a zero time and the time is put in here.)
* The device also advances the engine with the loop's clock (its horizon ``H``), while a
  re-judge only knows the times written to the log.  Two things depend on the horizon: an
  event more than ``reorder_us`` behind it is judged ``late_event``, and a touch more than
  ``touch_match_us`` behind it can no longer be claimed by a card.  So before a late event,
  and before a card whenever ``H`` is ahead of the log, a ``tick`` line at ``H`` is written:
  the re-judge then has the same horizon and makes the same decisions.

Errors the firmware reports itself (``unknown_uid``, ``reader_down``, ``overflow``) have no
input event behind them; they appear only as verdict lines (a re-judge cannot see them).

Formatting a line costs milliseconds on the RP2040, so it stays off the landing -> LED path:
events and verdicts are queued as small tuples when they happen and formatted by ``drain()``,
which the loop calls after the LEDs are drawn.  Flash writes mask interrupts, so ``Logbook``
buffers lines in RAM; ``pause`` is set by the verdicts that mark a pause (spit call, round end,
game over) and the loop flushes then.
"""

from micropython import const

from spit import verdicts as V
from spit.intake import EV_TICK, EV_CARD
from spit.notation import event_items
from spit.notation import verdict_items

_PAUSE_CODES = (V.V_SPIT_CALL, V.V_ROUND_END, V.V_GAME_OVER, V.V_QUESTION)
_SAT_MS = const(500000)


def t_text(ms, us):
    """Session time as the decimal microsecond count, without building a big int."""
    if ms:
        return "%d%03d" % (ms, us)
    return "%d" % us


def line_json(t, items, first=1, extra_key=None, extra_value=None):
    """``{"t": <t>, k: v, ...}`` from ordered items (skipping ``items[:first]``); keys in order."""
    parts = ['{"t": ', t]
    for i in range(first, len(items)):
        k, v = items[i]
        if type(v) is str:
            parts.append(', "%s": "%s"' % (k, v))
        else:
            parts.append(', "%s": %d' % (k, v))
    if extra_key is not None:
        parts.append(', "%s": "%s"' % (extra_key, extra_value))
    parts.append("}")
    return "".join(parts)


class SessionLog:
    """Writes the events and verdicts of one session; also the engine's verdict sink."""

    def __init__(self, book, reorder_us, on_verdict=None, echo=None):
        self.book = book              # a referee.logbook.Logbook (or None: no log)
        self.echo = echo              # echo(line): each line also goes here (the USB console)
        self.reorder_us = reorder_us
        self.on_verdict = on_verdict  # on_verdict(code, ms, a, b, c) for sounds etc.
        self.pause = False            # a pause verdict came: flush at the end of this step
        self.h_ms = 0                 # newest session time the engine has seen (H)
        self.h_us = 0
        self.l_ms = 0                 # newest t written to the log
        self.l_us = 0
        self.uid_note = ""            # UID hex added to the next verdict line (unknown_uid)
        self.lines = 0
        self.ticks_written = 0
        self._queue = []              # records waiting to be formatted, in order

    def _write(self, line):
        self.lines += 1
        if self.book is not None:
            self.book.append(line)
        if self.echo is not None:
            self.echo(line)

    def _see(self, ms, us):
        if ms > self.h_ms or (ms == self.h_ms and us > self.h_us):
            self.h_ms = ms
            self.h_us = us

    def advanced(self, ms, us):
        """The loop called ``referee.advance(ms, us)``."""
        self._see(ms, us)

    def _is_late(self, ms, us):
        # Late iff (ms, us) + reorder_us < horizon, computed without big ints.
        dm = self.h_ms - ms
        if dm >= _SAT_MS:
            return True
        if dm < 0:
            return False
        return dm * 1000 + (self.h_us - us) > self.reorder_us

    def _logged(self, ms, us):
        if ms > self.l_ms or (ms == self.l_ms and us > self.l_us):
            self.l_ms = ms
            self.l_us = us

    def event(self, kind, ms, us, a, b, c, uid=None):
        """Log one input event just before it is fed to the engine."""
        if self._is_late(ms, us) or (kind == EV_CARD and (self.h_ms > self.l_ms or (
                self.h_ms == self.l_ms and self.h_us > self.l_us))):
            self.tick(self.h_ms, self.h_us)
            self.ticks_written += 1
        self._see(ms, us)
        self._logged(ms, us)
        self._queue.append((0, kind, ms, us, a, b, c, uid))

    def tick(self, ms, us):
        """A ``tick`` line: time has reached ms/us (also written when a session is closed)."""
        self._see(ms, us)
        self._logged(ms, us)
        self._queue.append((0, EV_TICK, ms, us, 0, 0, 0, None))

    def sink(self, code, ms, us, a, b, c, d):
        """The engine's verdict sink (also used for errors the firmware reports)."""
        uid = self.uid_note
        self.uid_note = ""
        self._queue.append((1, code, ms, us, a, b, c, d, uid))
        if code in _PAUSE_CODES:
            self.pause = True
        if self.on_verdict is not None:
            self.on_verdict(code, ms, a, b, c)

    def drain(self):
        """Format and store every queued line (the loop calls it after drawing the LEDs)."""
        q = self._queue
        for r in q:
            if r[0] == 0:
                uid = r[7]
                self._write(line_json(t_text(r[2], r[3]), event_items(r[1], 0, r[4], r[5], r[6]), 1,
                                      "uid" if uid else None, uid))
            else:
                uid = r[8]
                self._write(line_json(t_text(r[2], r[3]), verdict_items(r[1], 0, 0, r[4], r[5], r[6], r[7]),
                                      1, "uid" if uid else None, uid))
        if q:
            self._queue = []

    def flush(self):
        self.drain()
        self.pause = False
        if self.book is not None:
            self.book.flush()

    def close(self):
        self.drain()
        self.pause = False
        if self.book is not None:
            self.book.close()
