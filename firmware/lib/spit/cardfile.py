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
from spit.cardmap import CardMap, CardMapError, PACKED_MAGIC, SLOT_BYTES


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
    cm.put(raw, card, owner)   # (a UID already there: CardMapError naming it)


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


def pack(cm):
    """The board's ``cards.bin`` for the CardMap ``cm``: ``PACKED_MAGIC``, every card's UID slot
    (``SLOT_BYTES``: its length byte, the UID, zero padding), then every card's value byte
    (``card | (owner + 1) << 6``): the map's own arrays (spit/cardmap.py), which
    ``referee.boardfile.load_cards`` takes back as they are."""
    n = cm.count
    return PACKED_MAGIC + bytes(cm._uids[:n * SLOT_BYTES]) + bytes(cm._values[:n])
