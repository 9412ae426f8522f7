"""The card map: NFC tag UID -> card (and, for own-deck games, the deck's owner).

File format (docs/architecture.md)::

    {"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", "04A1B2C3D4E5F7": "QH@1"}}

UIDs are upper-case hex (4, 7 or 10 bytes).  ``CardMap.lookup(uid_bytes, n)`` is what the
firmware calls per read: it finds the raw UID bytes without building a hex string.  Reading
and checking the file, and building the map, is ``spit.cardfile``, on the PC: the board gets
the checked map packed (``cards.bin``: ``PACKED_MAGIC``, the number of cards, every card's UID
slot of ``SLOT_BYTES``, every card's value byte, then the hash index), written by
``spit.cardfile.pack`` and read at boot by ``referee.boardfile.load_cards`` straight into the
map's arrays.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


def uid_hex(uid, n=-1):
    """``b"\\x04\\xa1"`` -> ``"04A1"`` (first n bytes)."""
    if n < 0:
        n = len(uid)
    return ("%02X" * n) % tuple(uid[:n])


_SLOT = const(11)   # one card's UID: its length byte, then up to 10 bytes (zero padded)
SLOT_BYTES = _SLOT
# (At most 255 cards: the index holds slot numbers + 1 in bytes; spit.cardfile.MAX_CARDS.)
PACKED_MAGIC = b"spit cards 1\n"   # the first bytes of the board's cards.bin


class CardMap:
    """The map in preallocated arrays (no object per card: about 15 bytes a card, 1.5 KB for
    two decks): ``_uids`` holds one ``_SLOT``-byte slot per card, ``_values`` its card and
    owner (``card | (owner + 1) << 6``: cards are below 64), and ``_index`` an open-addressing
    hash table of slot numbers + 1 (0: empty), at most half full.  A lookup copies the UID
    behind its length byte into a needle (a slice store: C code, no heap), hashes five of its
    bytes, and compares the needle with the slots the table names by ``bytearray.find`` over
    exactly that slot (C code): no per-byte loop in Python, nothing allocated.

    The map is built on the PC (``spit.cardfile``: ``put`` adds a card, checked, and keeps the
    index); the board takes the three arrays as they are (``cards.bin``:
    ``referee.boardfile.load_cards``), so only the lookup is on the board."""

    def __init__(self, capacity=0):
        self._uids = bytearray(capacity * _SLOT)
        self._values = bytearray(capacity)
        # Needles by UID length (4, 7 or 10 bytes; None: no such UID), the length byte first.
        self._needles = (None, None, None, None, bytearray(b"\x04    "), None, None,
                         bytearray(b"\x07       "), None, None, bytearray(b"\x0a          "))
        self.count = 0
        self.card = -1       # results of the last lookup
        self.owner = -1
        self._index = bytearray(16)   # (spit.cardfile sizes it as cards are put)
        self._mask = 15

    def lookup(self, uid, n):
        """Find the first n bytes of ``uid``; sets ``card``/``owner`` and returns True if known.
        (One call, the search inline: a call costs ~20 us on the RP2040.)"""
        needle = self._needles[n] if n <= 10 else None
        if needle is not None:
            if len(uid) == n:
                needle[1:] = uid   # (same length: a copy in C, the needle keeps its size)
            else:
                for i in range(n):
                    needle[i + 1] = uid[i]
            index = self._index
            mask = self._mask
            h = (uid[1] ^ uid[2] * 7 ^ uid[3] * 41 ^ uid[n - 3] * 13 ^ uid[n - 2] * 29) & mask   # spit.cardfile._hash, inline
            k = index[h]
            while k:
                base = (k - 1) * _SLOT
                if self._uids.find(needle, base, base + n + 1) == base:
                    v = self._values[k - 1]
                    self.card = v & 63
                    self.owner = (v >> 6) - 1
                    return True
                h = (h + 1) & mask
                k = index[h]
        self.card = -1
        self.owner = -1
        return False
