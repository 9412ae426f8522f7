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
    def __init__(self, slots):
        self.slots = slots
        self._seen = bytearray(slots * _SLOT)
        self._count = 0
        self._next = 0

    def clear(self):
        self._count = 0
        self._next = 0

    def __len__(self):
        return self._count

    def _find(self, buf, n):
        seen = self._seen
        for slot in range(self._count):
            base = slot * _SLOT
            if seen[base] != n:
                continue
            i = 0
            while i < n and seen[base + 1 + i] == buf[i]:
                i += 1
            if i == n:
                return base
        return -1

    def known(self, buf, n):
        return self._find(buf, n) >= 0

    def forget(self, uid):
        base = self._find(uid, len(uid))
        if base < 0:
            return False
        self._seen[base] = 0
        return True

    def remember(self, buf, n):
        if not self.slots:
            return
        base = self._next * _SLOT
        seen = self._seen
        seen[base] = n
        for i in range(n):
            seen[base + 1 + i] = buf[i]
        self._next = (self._next + 1) % self.slots
        if self._count < self.slots:
            self._count += 1
