"""UIDs of the latest cards read per pile, so a rejected card can be forgotten by its reader.

A card the referee rejects (illegal, late, early, a duplicate) goes back to its player.  Its
reader halted and remembered it, so it would not be reported if it landed again: the reader
must forget it, but only once it can have left the pile (it may still lie there, un-halted
after a failed halt, and would be read twice).  The next touch on the pile, or the next card
read there, is that sign.

    rejected = RejectedUids(piles)
    rejected.keep(pile, card, uid)          # every card read (uid: 4, 7 or 10 bytes)
    rejected.reject(pile, card)             # its verdict rejected it
    rejected.forget_now(pile, reader)       # the pile's next event: reader.forget(uid)

Everything is preallocated: ``_SLOTS`` reads per pile (a verdict comes within
``touch_match_us`` of its read, long before 8 more cards land on that pile), and one UID
buffer per ISO 14443A UID length (4, 7, 10 bytes) that a slot's UID is copied into to hand it
to the reader (which only compares it), so forgetting allocates nothing.
"""

from micropython import const

_SLOTS = const(8)
# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_MAX_UID_LEN = const(10)
# end generated
_SLOT = const(2 + _MAX_UID_LEN)   # card, UID length (0 = empty), UID (up to 10 bytes)


class RejectedUids:
    def __init__(self, piles):
        self._mem = [bytearray(_SLOTS * _SLOT) for _ in range(piles)]
        self._uids = (bytearray(4), bytearray(7), bytearray(10))
        self._next = bytearray(piles)
        self.pending = bytearray(piles)   # per pile: bit mask of slots to forget (0: none)

    def keep(self, pile, card, uid):
        """Card ``card`` was read on ``pile`` with ``uid`` (other lengths than 4/7/10 are
        not kept)."""
        n = len(uid)
        s = self._next[pile]
        self._next[pile] = (s + 1) % _SLOTS
        self.pending[pile] &= ~(1 << s)
        mem = self._mem[pile]
        base = s * _SLOT
        mem[base] = card
        if n == 4 or n == 7 or n == 10:
            mem[base + 1] = n
            mem[base + 2:base + 2 + n] = uid   # (a slice store: no allocation)
        else:
            mem[base + 1] = 0

    def reject(self, pile, card):
        """The latest read of ``card`` on ``pile`` was rejected: forget it at the next event."""
        mem = self._mem[pile]
        s = self._next[pile]
        for _ in range(_SLOTS):   # newest first
            s = (s - 1) % _SLOTS
            base = s * _SLOT
            if mem[base + 1] and mem[base] == card:
                self.pending[pile] |= 1 << s
                return True
        return False

    def forget_now(self, pile, reader):
        """The pile's next touch or read: the reader forgets every rejected UID."""
        pending = self.pending[pile]
        if not pending:
            return
        mem = self._mem[pile]
        for s in range(_SLOTS):
            if pending & (1 << s):
                base = s * _SLOT
                n = mem[base + 1]
                if n:
                    uid = self._uids[n // 3 - 1]   # (4, 7, 10 bytes: 0, 1, 2)
                    for i in range(n):
                        uid[i] = mem[base + 2 + i]
                    reader.forget(uid)
                mem[base + 1] = 0
        self.pending[pile] = 0

    def clear(self, pile=-1):
        """The pile was taken (-1: every pile): nothing is kept."""
        for p in range(len(self._mem)):
            if pile < 0 or p == pile:
                mem = self._mem[p]
                for s in range(_SLOTS):
                    mem[s * _SLOT + 1] = 0
                self.pending[p] = 0

    def keep_top(self, pile, card, reader):
        """Speed's recycle (R-SPEED-1): the pile's cards but its top ``card`` left it.  The
        reader forgets every UID of the pile but the top's (the newest read of ``card`` that
        was not rejected), which it keeps remembering; only that slot stays kept here."""
        mem = self._mem[pile]
        pending = self.pending[pile]
        s = self._next[pile]
        top = -1
        for _ in range(_SLOTS):   # newest first
            s = (s - 1) % _SLOTS
            base = s * _SLOT
            if top < 0 and card >= 0 and mem[base + 1] and mem[base] == card and not pending & (1 << s):
                top = s
            else:
                mem[base + 1] = 0
        self.pending[pile] = 0
        reader.clear_pile()
        if top >= 0:
            base = top * _SLOT
            n = mem[base + 1]
            uid = self._uids[n // 3 - 1]
            for i in range(n):
                uid[i] = mem[base + 2 + i]
            reader.memory.remember(uid, n)
