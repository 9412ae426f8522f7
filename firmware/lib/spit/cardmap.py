"""The card map: NFC tag UID -> card (and, for own-deck games, the deck's owner).

File format (docs/architecture.md)::

    {"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", "04A1B2C3D4E5F7": "QH@1"}}

UIDs are upper-case hex (4, 7 or 10 bytes).  ``CardMap.lookup(uid_bytes, n)`` is what the
firmware calls per read: it finds the raw UID bytes without building a hex string.  Reading
and checking the file is ``spit.cardfile`` (boot only on the device: dropped once the map is
built).
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


class CardMapError(ValueError):
    """A card map file or entry that cannot be used; the message names the UID."""


def uid_hex(uid, n=-1):
    """``b"\\x04\\xa1"`` -> ``"04A1"`` (first n bytes)."""
    if n < 0:
        n = len(uid)
    return "".join("%02X" % uid[i] for i in range(n))


_SLOT = const(11)   # one card's UID: its length byte, then up to 10 bytes (zero padded)


class CardMap:
    """The map in two preallocated arrays (no object per card: about 12 bytes a card, 0.7 KB
    for a deck): ``_uids`` holds one ``_SLOT``-byte slot per card, ``_values`` its card and
    owner (``card | (owner + 1) << 6``: cards are below 64).  A lookup copies the read UID
    behind its length byte into a needle kept for that length and lets ``bytearray.find``
    (C code) search the slots: no hashing in Python, nothing allocated."""

    def __init__(self, capacity=0):
        self._uids = bytearray(capacity * _SLOT)
        self._values = bytearray(capacity)
        self._needles = (bytearray(5), bytearray(8), bytearray(11))   # UIDs of 4, 7, 10 bytes
        self.count = 0
        self.card = -1       # results of the last lookup
        self.owner = -1

    def put(self, raw, card, owner=-1):
        """Add the UID ``raw`` (4, 7 or 10 bytes) of ``card`` (owner 0, 1 or -1: none); raises
        CardMapError for a UID already in the map."""
        n = len(raw)
        if self._slot(raw, n) >= 0:
            raise CardMapError("UID %s is in the card map twice" % uid_hex(raw))
        i = self.count
        if i == len(self._values):   # past the capacity given: grow (boot only)
            self._uids.extend(bytes(_SLOT))
            self._values.append(0)
        base = i * _SLOT
        self._uids[base] = n
        self._uids[base + 1:base + 1 + n] = raw
        self._values[i] = card | (owner + 1) << 6
        self.count = i + 1

    def _slot(self, uid, n):
        """The slot holding the first n bytes of ``uid``, or -1."""
        if n == 4:
            needle = self._needles[0]
        elif n == 7:
            needle = self._needles[1]
        elif n == 10:
            needle = self._needles[2]
        else:
            return -1
        needle[0] = n
        for i in range(n):
            needle[i + 1] = uid[i]
        uids = self._uids
        end = self.count * _SLOT
        at = uids.find(needle)
        while at >= 0:
            if at % _SLOT == 0:   # (a match inside a slot is not a UID)
                return at // _SLOT if at < end else -1
            at = uids.find(needle, at + 1)
        return -1

    def lookup(self, uid, n):
        """Find the first n bytes of ``uid``; sets ``card``/``owner`` and returns True if known."""
        i = self._slot(uid, n)
        if i < 0:
            self.card = -1
            self.owner = -1
            return False
        v = self._values[i]
        self.card = v & 63
        self.owner = (v >> 6) - 1
        return True
