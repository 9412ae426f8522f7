"""LandingGroup: new cards that landed together on one pile, held to be reported at once.

Tags that answered one activation together (two targets of one listing, or a bit collision
in a scan) landed too close together for the reader to order them.  They get one time
stamp.  When resolving them takes long (the reader's own bit-wise anticollision, tens of
ms) they are also held and handed to the loop in one step, after the last of them is read,
so the referee sees the landings together rather than a second read arriving long after
the first was judged.  Preallocated: up to ``slots`` held cards.
"""

from micropython import const

_SLOT = const(11)  # length byte + up to 10 UID bytes


class LandingGroup:
    def __init__(self, slots=4):
        self.slots = slots
        self._uids = bytearray(slots * _SLOT)
        self.count = 0      # cards held
        self.stamp_us = 0
        self.open = False

    def start(self, stamp_us):
        self.open = True
        self.stamp_us = stamp_us

    def hold(self, buf, n):
        base = self.count * _SLOT
        uids = self._uids
        uids[base] = n
        for i in range(n):
            uids[base + 1 + i] = buf[i]
        self.count += 1

    def uid_into(self, k, out):
        """Copy held card ``k`` into ``out``; returns its length."""
        base = k * _SLOT
        n = self._uids[base]
        for i in range(n):
            out[i] = self._uids[base + 1 + i]
        return n

    def clear(self):
        self.count = 0
        self.open = False
