"""The card map: NFC tag UID -> card (and, for own-deck games, the deck's owner).

File format (docs/architecture.md)::

    {"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", "04A1B2C3D4E5F7": "QH@1"}}

UIDs are upper-case hex (4, 7 or 10 bytes).  ``CardMap.lookup(uid_bytes, n)`` is what the
firmware calls per read: it hashes the raw UID bytes without building a hex string.
"""

import json

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

from spit.cards import parse_card, CardError


class CardMapError(ValueError):
    """A card map file or entry that cannot be used; the message names the UID."""


def uid_hex(uid, n=-1):
    """``b"\\x04\\xa1"`` -> ``"04A1"`` (first n bytes)."""
    if n < 0:
        n = len(uid)
    return "".join("%02X" % uid[i] for i in range(n))


# Keys stay below 2**22, so ``h * 31 + byte`` stays below 2**27: a small int on the RP2040
# (31-bit), nothing allocated per read.  (A 30-bit mask made ``h * 31`` a big int there, 256 B
# of heap per card, which the 64-bit unix port cannot show.)
_KEY_MASK = const(0x3FFFFF)


def _key(uid, n):
    # A small-int key of the UID bytes (collisions are resolved by comparing bytes).
    h = n
    for i in range(n):
        h = (h * 31 + uid[i]) & _KEY_MASK
    return h


class CardMap:
    def __init__(self):
        self._by_key = {}    # key -> list of (uid bytes, card, owner)
        self.count = 0
        self.card = -1       # results of the last lookup
        self.owner = -1

    def add(self, uid_text, value):
        """Add one entry; raises CardMapError for bad or duplicate UIDs and bad card codes."""
        if not isinstance(uid_text, str):
            raise CardMapError("UID %r is not a string" % (uid_text,))
        u = uid_text.strip().upper()
        if len(u) not in (8, 14, 20):
            raise CardMapError("UID %s: must be 4, 7 or 10 bytes of hex" % uid_text)
        try:
            raw = bytes(int(u[i:i + 2], 16) for i in range(0, len(u), 2))
        except ValueError:
            raise CardMapError("UID %s: not hexadecimal" % uid_text)
        if not isinstance(value, str):
            raise CardMapError("UID %s: card must be a string like \"QH\"" % u)
        owner = -1
        code = value
        at = value.find("@")
        if at >= 0:
            code = value[:at]
            try:
                owner = int(value[at + 1:])
            except ValueError:
                owner = -2
            if owner not in (0, 1):
                raise CardMapError("UID %s: deck owner in %r must be @0 or @1" % (u, value))
        try:
            card = parse_card(code)
        except CardError as e:
            raise CardMapError("UID %s: %s" % (u, e))
        k = _key(raw, len(raw))
        bucket = self._by_key.get(k)
        if bucket is None:
            bucket = []
            self._by_key[k] = bucket
        for entry in bucket:
            if entry[0] == raw:
                raise CardMapError("UID %s is in the card map twice" % u)
        bucket.append((raw, card, owner))
        self.count += 1

    def lookup(self, uid, n):
        """Find the first n bytes of ``uid``; sets ``card``/``owner`` and returns True if known."""
        bucket = self._by_key.get(_key(uid, n))
        if bucket is not None:
            for entry in bucket:
                raw = entry[0]
                if len(raw) == n:
                    same = True
                    for i in range(n):
                        if raw[i] != uid[i]:
                            same = False
                            break
                    if same:
                        self.card = entry[1]
                        self.owner = entry[2]
                        return True
        self.card = -1
        self.owner = -1
        return False


def load_cardmap(obj):
    """Build a CardMap from the parsed JSON object (or a JSON string)."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except ValueError as e:
            raise CardMapError("card map is not valid JSON: %s" % e)
    if not isinstance(obj, dict) or obj.get("cardmap") != 1 or not isinstance(obj.get("cards"), dict):
        raise CardMapError('card map must look like {"cardmap": 1, "cards": {"UID": "QH", ...}}')
    cm = CardMap()
    cards = obj["cards"]
    for uid in cards:
        cm.add(uid, cards[uid])
    return cm


def read_cardmap(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise CardMapError("%s: no such card map file" % path)
    try:
        return load_cardmap(text)
    except CardMapError as e:
        raise CardMapError("%s: %s" % (path, e))
