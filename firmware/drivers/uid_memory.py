"""UIDs kept in preallocated 11-byte slots (length byte + up to 10 bytes; nothing allocated
after ``__init__``):

- ``UidMemory``: the UIDs already read on one pile, in a ring (the oldest goes when full);
- ``LandingGroup``: new cards that landed together on one pile, held to be reported at once.
  Tags that answered one activation together (two targets of one listing, or a bit collision
  in a scan) landed too close together for the reader to order them: they get one time
  stamp.  When resolving them takes long (the reader's own bit-wise anticollision, tens of
  ms) they are also held and handed to the loop in one step, after the last of them is
  read, so the referee sees the landings together rather than a second read arriving long
  after the first was judged;
- ``same_uid``/``keep_uid`` for a single slot.
"""

from micropython import const

from drivers.pn532 import copy_into

# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_MAX_UID = const(10)  # drivers.pn532 MAX_UID_LEN
# end generated
_SLOT = const(1 + _MAX_UID)  # one UID: length byte + up to 10 bytes

# Lookup scratch shared by every memory (a lookup is done within one call): the sum looked
# for, and copy_into's destination (only the sum it returns counts).
_KEY = bytearray(1)
_SCRATCH = bytearray(_MAX_UID)


def same_uid(slot, buf, n, base=0):
    """Does the slot at ``slot[base]`` (length byte + UID, as ``keep_uid`` writes it) hold
    ``buf[:n]``?"""
    if slot[base] != n:
        return False
    base += 1
    for i in range(n):
        if slot[base + i] != buf[i]:
            return False
    return True


def keep_uid(slot, buf, n):
    slot[0] = n
    copy_into(slot, 1, buf, 0, n)


class UidMemory:
    """Up to ``slots`` UIDs.  A one-byte sum per slot is searched first (``bytearray.find``,
    C code), so a lookup compares bytes only where the sums match."""

    def __init__(self, slots):
        self.slots = slots
        self._seen = bytearray(slots * _SLOT)
        self._sums = bytearray(slots)
        self.count = 0
        self._next = 0

    def clear(self):
        self.count = 0
        self._next = 0

    def known(self, buf, n):
        """1 + the slot holding ``buf[:n]``, 0 if it is not there (so a truth value: one call
        where the reader asks per card)."""
        if n > _MAX_UID:
            return 0
        _KEY[0] = copy_into(_SCRATCH, 0, buf, 0, n) & 0xFF
        sums = self._sums
        slot = sums.find(_KEY)
        while 0 <= slot < self.count:
            if same_uid(self._seen, buf, n, slot * _SLOT):
                return slot + 1
            slot = sums.find(_KEY, slot + 1)
        return 0

    def forget(self, uid):
        slot = self.known(uid, len(uid)) - 1
        if slot < 0:
            return False
        self._seen[slot * _SLOT] = 0   # length 0: matches no UID
        return True

    def remember(self, buf, n):
        if not self.slots:
            return
        slot = self._next
        base = slot * _SLOT
        self._seen[base] = n
        self._sums[slot] = copy_into(self._seen, base + 1, buf, 0, n) & 0xFF
        self._next = (slot + 1) % self.slots
        if self.count < self.slots:
            self.count += 1

    def uid_into(self, slot, out):
        """Copy the UID in ``slot`` (0 = the first remembered, before the ring wraps) into
        ``out``; returns its length."""
        base = slot * _SLOT
        n = self._seen[base]
        copy_into(out, 0, self._seen, base + 1, n)
        return n


class LandingGroup(UidMemory):
    """Held cards (``remember``, while ``count < slots``), the group's time and whether it
    is open (new cards that answer the same activation join it)."""

    def __init__(self, slots=4):
        super().__init__(slots)
        self.stamp_us = 0
        self.open = False

    def start(self, stamp_us):
        self.open = True
        self.stamp_us = stamp_us

    def clear(self):
        self.count = 0
        self._next = 0
        self.open = False
