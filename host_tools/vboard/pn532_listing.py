"""The PN532 emulator's InListPassiveTarget model (a mixin of ``PN532Emulator``).

A pending listing (started at ``_list_started``) tries to activate tags every
``attempt_us``; a tag answers from the first attempt after it landed, plus its ``misses``.
A halted tag answers only if the chip's listing sends WUPA (``list_uses_wupa``).  Among the
tags answering the same attempt, anticollision picks the highest UID; with MaxTg=2 the next
highest of that attempt is the second target.  The reply comes ``anticollision_us`` after
the successful attempt; with a finite MxRtyPassiveActivation the listing answers "no
target" after ``passive_retries + 1`` attempts.  MicroPython-compatible.
"""

from . import iso14443a


def read_time_options(lo_us, hi_us):
    """``PN532Emulator`` options for reads of ``lo_us``-``hi_us`` (a tag in the field to the
    listing's reply): attempts ``hi - lo`` apart, the reply ``lo`` after the attempt that heard
    it, so a tag landing at a random time is read ``lo`` to ``hi`` later."""
    return {"attempt_us": max(1, hi_us - lo_us), "anticollision_us": lo_us}


class ListingModel:
    def _first_attempt(self, tag, t0):
        """Index of the listing attempt (from t0) this tag first answers, None if never."""
        if tag.unreadable or (tag.halted and not self.list_uses_wupa):
            return None
        first = tag.placed_us if tag.placed_us > t0 else t0
        return (first - t0 + self.attempt_us - 1) // self.attempt_us + tag.misses

    def _list_outcome(self):
        """(time_us, tag or None) when the pending listing ends, or None if never (yet)."""
        t0 = self._list_started
        if t0 is None:
            return None
        budget = None if self.passive_retries == 0xFF else self.passive_retries + 1
        best = None
        best_k = 0
        for tag in self.tags:
            k = self._first_attempt(tag, t0)
            if k is None or (budget is not None and k >= budget):
                continue
            if best is None or k < best_k or (k == best_k and tag.uid > best.uid):
                best = tag
                best_k = k
        if best is not None:
            return (t0 + best_k * self.attempt_us + self.anticollision_us, best)
        if budget is None:
            return None
        return (t0 + budget * self.attempt_us, None)

    def _end_listing(self, at_us, tag):
        t0 = self._list_started
        self._list_started = None
        attempts = (at_us - t0) // self.attempt_us
        for other in self.tags:
            if other is not tag and other.misses:
                first = other.placed_us if other.placed_us > t0 else t0
                tried = attempts - (first - t0) // self.attempt_us
                if tried > 0:
                    other.misses = max(0, other.misses - tried)
        if tag is None:
            self._queue_reply(b"\x4b\x00", at_us)
            return
        found = [tag]
        if self._max_targets > 1:
            # The chip goes on with the tags that answered the same activation attempt.
            k = (at_us - self.anticollision_us - t0) // self.attempt_us
            others = [o for o in self.tags if o is not tag and self._first_attempt(o, t0) is not None
                      and self._first_attempt(o, t0) <= k]
            if others:
                found.append(max(others, key=lambda o: o.uid))
        for other in self.tags:
            if other.state != iso14443a.HALT:
                other.state = iso14443a.IDLE
        payload = bytes([0x4B, len(found)])
        for number, target in enumerate(found):
            target.misses = 0
            target.state = iso14443a.ACTIVE
            self.listed.append(target.uid)
            payload += bytes([number + 1, target.sens_res >> 8, target.sens_res & 0xFF,
                              target.sel_res, len(target.uid)]) + target.uid
        self._selected = found
        self._queue_reply(payload, at_us)
