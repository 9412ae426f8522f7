"""The PN532 emulator's InListPassiveTarget / InAutoPoll model (a mixin of ``PN532Emulator``).

A pending listing (started at ``_list_started``) tries to activate tags every
``attempt_us``; a tag answers from the first attempt after it landed, plus its ``misses``.
A halted tag answers only if the chip's listing sends WUPA (option ``list_uses_wupa``).  A tag
that is READY or ACTIVE when the listing begins takes its first REQA / WUPA as an unexpected
frame (NTAG213F 8.4.4): it goes back to IDLE (HALT if woken from it) without an answer, so it
misses the first attempt.  Among the tags answering the same attempt, the chip's
anticollision picks the highest UID (option ``list_order`` "high") or the lowest ("low");
with MaxTg=2 the next of that attempt is the second target.  The reply comes
``anticollision_us`` after the successful attempt; with a finite MxRtyPassiveActivation the
listing answers "no target" after ``passive_retries + 1`` attempts.

The chip sets up the field and type A modulation itself, but runs its frames with the CIU's
BitFraming, CRC and parity as it finds them (``Ciu.chip_frames_ok``): a host that left them in
raw mode gets a listing that hears nothing.  Other modulations (BrTy 1-4) find no tag here and
leave TxMode / RxMode set for theirs.  MicroPython-compatible.
"""

from . import iso14443a


def read_time_options(lo_us, hi_us):
    """``PN532Emulator`` options for reads of ``lo_us``-``hi_us`` (a tag in the field to the
    listing's reply): attempts ``hi - lo`` apart, the reply ``lo`` after the attempt that heard
    it, so a tag landing at a random time is read ``lo`` to ``hi`` later."""
    return {"attempt_us": max(1, hi_us - lo_us), "anticollision_us": lo_us}


class ListingModel:
    def _begin_listing(self, now, brty, framing, budget=None):
        ciu = self.ciu
        self.held = []
        if brty == 0:
            ciu.prepare_type_a()
            self._list_blind = not ciu.chip_frames_ok()
            for tag in self.tags:
                if tag.state == iso14443a.READY or tag.state == iso14443a.ACTIVE:
                    tag.unexpected += 1
                    tag.leave()
                    if not self._list_blind:
                        tag.misses += 1
        else:
            ciu.set_speed_framing(framing)
            self._list_blind = True   # no tag of that kind here
            self._poll_types = None
        self._list_budget = budget
        self._list_started = now

    def _first_attempt(self, tag, t0):
        """Index of the listing attempt (from t0) this tag first answers, None if never."""
        if self._list_blind or tag.unreadable:
            return None
        if tag.state == iso14443a.HALT and not self.list_uses_wupa:
            return None
        first = tag.placed_us if tag.placed_us > t0 else t0
        return (first - t0 + self.attempt_us - 1) // self.attempt_us + tag.misses

    def _before(self, a, b):
        return a.uid < b.uid if self.list_order == "low" else a.uid > b.uid

    def _list_outcome(self):
        """(time_us, tag or None) when the pending listing ends, or None if never (yet)."""
        t0 = self._list_started
        if t0 is None:
            return None
        budget = self._list_budget
        if budget is None and self._poll_types is None:
            budget = None if self.passive_retries == 0xFF else self.passive_retries + 1
        best = None
        best_k = 0
        for tag in self.tags:
            k = self._first_attempt(tag, t0)
            if k is None or (budget is not None and k >= budget):
                continue
            if best is None or k < best_k or (k == best_k and self._before(tag, best)):
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
        poll = self._poll_types
        self._poll_types = None
        code = 0x61 if poll is not None else 0x4B
        if tag is None:
            self._queue_reply(bytes([code, 0x00]), at_us)
            return
        found = [tag]
        if self._max_targets > 1:
            # The chip goes on with the tags that answered the same activation attempt.
            k = (at_us - self.anticollision_us - t0) // self.attempt_us
            others = [o for o in self.tags if o is not tag and self._first_attempt(o, t0) is not None
                      and self._first_attempt(o, t0) <= k]
            if others:
                second = others[0]
                for o in others[1:]:
                    if self._before(o, second):
                        second = o
                found.append(second)
        for other in self.tags:
            if other.state != iso14443a.HALT:
                other.state = iso14443a.IDLE
        payload = bytes([code, len(found)])
        for number, target in enumerate(found):
            target.misses = 0
            target.halted = target.state == iso14443a.HALT
            target.state = iso14443a.ACTIVE
            target.level = 0
            self.listed.append(target.uid)
            data = bytes([number + 1, target.sens_res >> 8, target.sens_res & 0xFF,
                          target.sel_res, len(target.uid)]) + target.uid
            if poll is not None:
                kind = poll[0] if poll else 0x10
                data = bytes([kind, len(data)]) + data
            payload += data
        self._selected = found
        self._queue_reply(payload, at_us)
