"""Reading the card map file (``cards.json``, docs/architecture.md) into a ``CardMap``.

    {"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", "04A1B2C3D4E5F7": "QH@1"}}

Every entry is checked (UID: 4, 7 or 10 bytes of hex; card code; ``@0``/``@1`` owner) and a
bad one raises ``CardMapError`` naming the UID.  This runs on the PC: ``spit flash --cards``
(and ``spit enroll --board-port``) write the checked map to the board packed (``pack``:
``cards.bin``), which the device reads at boot without parsing JSON
(``referee.boardfile.load_cards``); this module is not on the board.
"""

import json

from spit.cards import parse_card, CardError
from spit.cardmap import CardMap, PACKED_MAGIC, SLOT_BYTES, uid_hex

MAX_CARDS = 255   # the map's index (spit.cardmap.CardMap) holds slot numbers + 1 in bytes


class CardMapError(ValueError):
    """A card map file or entry that cannot be used; the message names the UID."""


def _hash(uid, n):
    """The index's hash of a UID (``put`` builds the index with it; ``spit.cardmap.CardMap.lookup``
    computes it inline, on the board)."""
    # Serial-number bytes from both ends (byte 0 is the maker's code of a 7- or 10-byte UID,
    # the last byte of many tags' UIDs is a constant, and tags from one batch may differ only
    # in a few bytes: bytes 1-3 alone put a whole deck of such tags in one chain), mixed.
    return uid[1] ^ uid[2] * 7 ^ uid[3] * 41 ^ uid[n - 3] * 13 ^ uid[n - 2] * 29


def add(cm, uid_text, value):
    """Add one entry to ``cm``; raises CardMapError for bad or duplicate UIDs and bad card codes."""
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
    put(cm, raw, card, owner)   # (a UID already there: CardMapError naming it)


def load_cardmap(obj):
    """Build a CardMap from the parsed JSON object (or a JSON string)."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except ValueError as e:
            raise CardMapError("card map is not valid JSON: %s" % e)
    if not isinstance(obj, dict) or obj.get("cardmap") != 1 or not isinstance(obj.get("cards"), dict):
        raise CardMapError('card map must look like {"cardmap": 1, "cards": {"UID": "QH", ...}}')
    cards = obj["cards"]
    cm = CardMap(len(cards))
    for uid in cards:
        add(cm, uid, cards[uid])
    return cm


# ---- the map's arrays (spit/cardmap.py ``CardMap``), built here: the board only looks up ----

def _free(cm, raw, n):
    h = _hash(raw, n) & cm._mask
    while cm._index[h]:
        h = (h + 1) & cm._mask
    return h


def _reindex(cm, cards):
    """An index with room for ``cards`` at most half full, holding the slots so far."""
    size = 16
    while size < 2 * cards:
        size *= 2
    cm._index = bytearray(size)
    cm._mask = size - 1
    uids = cm._uids
    for i in range(cm.count):
        base = i * SLOT_BYTES
        cm._index[_free(cm, uids[base + 1:base + 1 + uids[base]], uids[base])] = i + 1


def put(cm, raw, card, owner=-1):
    """Add the UID ``raw`` (4, 7 or 10 bytes) of ``card`` (owner 0, 1 or -1: none) to the
    CardMap ``cm``; raises CardMapError for a UID already in the map, or past 255 cards."""
    n = len(raw)
    if cm.lookup(raw, n):
        raise CardMapError("UID %s is in the card map twice" % uid_hex(raw))
    i = cm.count
    if i == MAX_CARDS:
        raise CardMapError("more than %d cards" % MAX_CARDS)
    if i == len(cm._values):   # past the capacity given: grow
        cm._uids.extend(bytes(SLOT_BYTES))
        cm._values.append(0)
    base = i * SLOT_BYTES
    cm._uids[base] = n
    cm._uids[base + 1:base + 1 + n] = raw
    cm._values[i] = card | (owner + 1) << 6
    cm.count = i + 1
    if 2 * cm.count > len(cm._index):
        _reindex(cm, 2 * cm.count)
    else:
        cm._index[_free(cm, raw, n)] = i + 1


def pack(cm):
    """The board's ``cards.bin`` for the CardMap ``cm``: ``PACKED_MAGIC``, the number of cards (a
    byte), every card's UID slot (``SLOT_BYTES``: its length byte, the UID, zero padding), every
    card's value byte (``card | (owner + 1) << 6``), then the hash index (a power of two of at
    least 16 bytes): the map's own arrays, which ``referee.boardfile.load_cards`` takes back as
    they are."""
    n = cm.count
    return (PACKED_MAGIC + bytes((n,)) + bytes(cm._uids[:n * SLOT_BYTES]) + bytes(cm._values[:n])
            + bytes(cm._index))
