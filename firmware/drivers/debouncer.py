"""Debounce drained input events outside the IRQ, with wrap-safe tick arithmetic.

Two mechanisms, per source:

* **Stable level** (``set_stable(source, stable_us, is_active)``, buttons and slap pads): an
  edge only starts a candidate.  ``accept`` holds it (returns False); every further edge of
  that source restarts the quiet time.  Once the input has had no edge for ``stable_us``,
  ``pop_due(now)`` reads the level (``is_active()``): at the candidate's level the event is
  released with the time of its *first* edge (``ticks``); at the other level it is released
  the other way round if that level is new (the level last released differs), otherwise it
  was a glitch and is dropped.  So a spike shorter than ``stable_us`` is never a press, and a
  bouncing press is one press, stamped when the contact first closed.  The candidate's
  direction comes from the level the IRQ handler sampled, which is wrong when the handler
  ran late, mid-bounce (interrupts masked by a WS2812 write or a flash erase): the settled
  level decides then, so neither the press nor the release is lost.  Keep ``stable_us``
  below the referee's ``reorder_us``: a held event reaches the referee that much later than
  its time stamp.
* **Lockout window** (``window_us``, every source): after an accepted event, events of the
  same source inside the window are dropped (contact bounce on either edge).  Touch sensors
  use only this, with a short window: their first edge *is* the landing time.

Bit 15 of the source id (the ``RELEASE`` flag of ``EdgeInput``) is ignored for the lookup,
so a release bouncing right after a press is dropped too; for a stable-level source it is
the candidate's direction (release: the level must be inactive).

Ticks wrap (``ticks_us`` has period 2**30 on the RP2040) and ``time.ticks_diff`` is only
meaningful for gaps below 2**29 us (~9 min).  So:
  * a *negative* difference (a gap of 2**29..2**30 us aliased) is treated as "long ago";
  * ``expire(now)`` should be called now and then (say once a second) from the main loop:
    it forgets sources idle for more than ``_EXPIRE_US``, so a gap that aliases to a tiny
    positive value after a full wrap can never drop a real press.

All state lives in preallocated arrays; ``accept``, ``pop_due`` and ``expire`` allocate
nothing (the ``is_active`` callables are bound once, at set-up).
"""

from array import array
from time import ticks_diff

from micropython import const

# generated from drivers.edge_input by scripts/gen_consts.py: do not edit
_RELEASE = const(0x8000)  # flag OR-ed into the source id for release edges (the id: source & 0x7FFF)
# end generated
_SOURCE_MASK = const(_RELEASE - 1)   # a source id without its release flag
_EXPIRE_US = const(1 << 27)  # ~134 s; well inside the valid ticks_diff range


class Debouncer:
    def __init__(self, n_sources, window_us=20000):
        self.n_sources = n_sources
        zeros = bytes(4 * n_sources)   # (each array copies it)
        self._window = array("i", [window_us] * n_sources)
        self._last = array("i", zeros)
        self._seen = bytearray(n_sources)
        # Stable-level candidates: first edge time, last edge time, source id with flag.
        self._stable = array("i", zeros)
        self._level_fns = [None] * n_sources
        self._first = array("i", zeros)
        self._quiet_from = array("i", zeros)
        self._candidate = array("i", [-1] * n_sources)
        self._level = bytearray(n_sources)   # stable-level sources: last level released
        self._pending = 0
        self.ticks = 0      # time of the event pop_due() returned last
        self.dropped = 0    # bounces dropped so far
        self.glitches = 0   # stable-level candidates that did not hold
        self.unknown = 0    # events whose source id is outside 0..n_sources-1

    def set_window(self, source, window_us):
        """Per-source lockout window (touch sensors may need less than buttons)."""
        self._window[source & _SOURCE_MASK] = window_us

    def set_stable(self, source, stable_us, is_active):
        """Require ``stable_us`` without edges and the level ``is_active()`` says (0 = off)."""
        i = source & _SOURCE_MASK
        self._stable[i] = stable_us
        self._level_fns[i] = is_active if stable_us > 0 else None
        self._level[i] = 1 if stable_us > 0 and is_active() else 0

    def accept(self, source, ticks):
        """True if the event is a real edge now; False if it is a bounce, an unknown source,
        or held until its level has been stable (``pop_due`` then releases it)."""
        i = source & _SOURCE_MASK
        if i >= self.n_sources:
            self.unknown += 1
            return False
        if self._seen[i] and 0 <= ticks_diff(ticks, self._last[i]) < self._window[i]:
            self.dropped += 1   # inside the lockout window of its last accepted event
            return False
        if self._stable[i] > 0:
            if self._candidate[i] < 0:
                self._candidate[i] = source
                self._first[i] = ticks
                self._pending += 1
            else:
                self.dropped += 1
            self._quiet_from[i] = ticks
            return False
        self._seen[i] = 1
        self._last[i] = ticks
        return True

    def holding(self, source):
        """True while an edge of ``source`` waits for its level to prove stable."""
        return self._candidate[source & _SOURCE_MASK] >= 0

    def held_first(self):
        """The first-edge stamp of the oldest edge still held for its level, or -1 (none):
        the loop does not advance the engine past it (referee/loop.py ``advance_now``)."""
        t = -1
        if self._pending:
            i = 0
            while i < self.n_sources:
                if self._candidate[i] >= 0 and (t < 0 or ticks_diff(self._first[i], t) < 0):
                    t = self._first[i]
                i += 1
        return t

    def pop_due(self, now_ticks):
        """The next held event whose level stayed stable long enough (its first edge time in
        ``self.ticks``), or -1.  Glitches are dropped on the way."""
        if not self._pending:
            return -1
        # (a while loop and no more locals: the frame stays within 11 words, so a call
        # at every loop step takes it from the C stack, not from the heap)
        i = -1
        while i < self.n_sources - 1:
            i += 1
            source = self._candidate[i]
            if source < 0 or 0 <= ticks_diff(now_ticks, self._quiet_from[i]) < self._stable[i]:
                continue   # no candidate, or not quiet for long enough yet
            self._candidate[i] = -1
            self._pending -= 1
            is_active = self._level_fns[i]
            if is_active is None:
                self.glitches += 1
                continue
            level = 1 if is_active() else 0
            if level != (0 if source & _RELEASE else 1):
                if level == self._level[i]:
                    self.glitches += 1     # back at the level it had: a glitch
                    continue
                source = i if level else i | _RELEASE   # the IRQ sampled mid-bounce
            self._level[i] = level
            self._seen[i] = 1
            self.ticks = self._last[i] = self._first[i]
            return source
        return -1

    def expire(self, now_ticks):
        """Forget sources idle for a long time (keeps ``accept`` correct across wraps)."""
        for i in range(self.n_sources):
            if self._seen[i]:
                d = ticks_diff(now_ticks, self._last[i])
                if d < 0 or d > _EXPIRE_US:
                    self._seen[i] = 0
