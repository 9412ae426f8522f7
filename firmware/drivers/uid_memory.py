"""UidMemory: the UIDs already read on one pile, in a preallocated ring (no allocation);
``same_uid``/``keep_uid`` for a single UID slot (length byte + up to 10 bytes)."""

from micropython import const

_SLOT = const(11)  # one remembered UID: length byte + up to 10 bytes


def same_uid(slot, buf, n):
    """Does ``slot`` (length byte + UID, as ``keep_uid`` writes it) hold ``buf[:n]``?"""
    if slot[0] != n:
        return False
    for i in range(n):
        if slot[1 + i] != buf[i]:
            return False
    return True


def keep_uid(slot, buf, n):
    slot[0] = n
    for i in range(n):
        slot[1 + i] = buf[i]


class UidMemory:
    """Up to ``slots`` UIDs; the oldest is dropped when full.  A one-byte sum per slot is
    compared first, so a lookup costs one comparison per remembered card."""

    def __init__(self, slots):
        self.slots = slots
        self._seen = bytearray(slots * _SLOT)
        self._sums = bytearray(slots)
        self._count = 0
        self._next = 0

    def clear(self):
        self._count = 0
        self._next = 0

    def __len__(self):
        return self._count

    def _find(self, buf, n):
        total = n
        for i in range(n):
            total += buf[i]
        total &= 0xFF
        sums = self._sums
        seen = self._seen
        for slot in range(self._count):
            if sums[slot] != total:
                continue
            base = slot * _SLOT
            if seen[base] != n:
                continue
            i = 0
            while i < n and seen[base + 1 + i] == buf[i]:
                i += 1
            if i == n:
                return slot
        return -1

    def known(self, buf, n):
        return self._find(buf, n) >= 0

    def forget(self, uid):
        slot = self._find(uid, len(uid))
        if slot < 0:
            return False
        self._seen[slot * _SLOT] = 0   # length 0: matches no UID
        return True

    def remember(self, buf, n):
        if not self.slots:
            return
        slot = self._next
        base = slot * _SLOT
        seen = self._seen
        seen[base] = n
        total = n
        for i in range(n):
            seen[base + 1 + i] = buf[i]
            total += buf[i]
        self._sums[slot] = total & 0xFF
        self._next = (slot + 1) % self.slots
        if self._count < self.slots:
            self._count += 1
