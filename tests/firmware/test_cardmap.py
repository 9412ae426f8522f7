"""The card map (firmware/lib/spit/cardmap.py): UID bytes -> card, as the firmware looks a read up;
its file read and checked by spit/cardfile.py."""

import pytest

from spit.cardfile import CardMapError, add, load_cardmap, put
from spit.cardmap import CardMap, uid_hex
from spit.cards import parse_card


def test_lookup_finds_4_7_and_10_byte_uids_and_the_owner():
    cm = load_cardmap({"cardmap": 1, "cards": {"04A1B2C3": "QH", "04A1B2C3D4E5F6": "7S@1",
                                               "04A1B2C3D4E5F6A7B8C9": "AD"}})
    assert cm.count == 3
    for text, card, owner in (("04A1B2C3", "QH", -1), ("04A1B2C3D4E5F6", "7S", 1),
                              ("04A1B2C3D4E5F6A7B8C9", "AD", -1)):
        raw = bytearray(bytes.fromhex(text) + b"\x00\x00")   # a reader's buffer: longer than the UID
        assert cm.lookup(memoryview(raw), len(text) // 2)
        assert (cm.card, cm.owner) == (parse_card(card), owner)
    assert not cm.lookup(bytes.fromhex("04A1B2C4"), 4) and cm.card == -1


def test_bytes_that_straddle_two_slots_are_no_uid():
    # Slot 0 ends with ...0102 0304 padding, slot 1 starts with its length byte: a 4-byte UID
    # whose bytes appear inside the slots but not at a slot's start is unknown.
    cm = load_cardmap({"cardmap": 1, "cards": {"04040506": "2C", "07010203040506": "3C"}})
    assert not cm.lookup(bytes.fromhex("04050600"), 4)        # inside slot 0 after its length
    assert not cm.lookup(bytes.fromhex("01020304"), 4)        # inside slot 1 (a 7-byte UID)
    assert cm.lookup(bytes.fromhex("07010203040506"), 7) and cm.card == parse_card("3C")
    assert not cm.lookup(bytes.fromhex("0701020304"), 5) and not cm.lookup(b"", 0)


def test_a_map_past_its_capacity_grows():
    cm = CardMap(1)
    for i, code in enumerate(("AC", "2C", "3C")):
        add(cm, "0400000%d" % i, code + "@0")
    assert cm.count == 3
    assert cm.lookup(bytes.fromhex("04000002"), 4) and (cm.card, cm.owner) == (parse_card("3C"), 0)


def test_a_whole_own_deck_map_is_about_a_kilobyte_per_deck():
    # The card map stays in RAM during play: two 52-card decks with 7-byte UIDs.
    cards = {}
    for owner in (0, 1):
        for s in "CDHS":
            for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
                cards["04%02X%02X%02X112233" % (owner, "CDHS".index(s), len(cards))] = "%s%s@%d" % (r, s, owner)
    cm = load_cardmap({"cardmap": 1, "cards": cards})
    assert cm.count == 104
    assert len(cm._uids) + len(cm._values) <= 104 * 12
    for uid, value in cards.items():
        assert cm.lookup(bytes.fromhex(uid), 7)
        assert (cm.card, cm.owner) == (parse_card(value[:-2]), int(value[-1]))


@pytest.mark.parametrize("cards, words", [
    ({"04A1": "QH"}, "4, 7 or 10 bytes"),
    ({"04A1B2ZZ": "QH"}, "not hexadecimal"),
    ({"04A1B2C3": "ZZ"}, "04A1B2C3"),
    ({"04A1B2C3": "QH@2"}, "@0 or @1"),
    ({"04a1b2c3": "QH", "04A1B2C3": "KH"}, "twice"),
])
def test_bad_entries_name_the_uid(cards, words):
    with pytest.raises(CardMapError) as e:
        load_cardmap({"cardmap": 1, "cards": cards})
    assert words in str(e.value)


def test_uid_hex():
    assert uid_hex(b"\x04\xa1\x0b") == "04A10B" and uid_hex(b"\x04\xa1\x0b", 2) == "04A1"


def test_uids_that_hash_alike_are_all_found_and_told_apart():
    # Only bytes 1-3 are hashed: 60 UIDs that differ elsewhere share one chain of the index
    # (probed in turn), across reindexes as the map grows past its capacity.
    cm = CardMap(4)
    cards = []
    for i in range(60):
        raw = bytes([0x04, 0x11, 0x22, 0x33, i, 0x55 ^ i, 0x44])
        add(cm, raw.hex(), "AC" if i % 2 else "KS@1")
        cards.append(raw)
    for i, raw in enumerate(cards):
        assert cm.lookup(raw, 7) and (cm.card, cm.owner) == ((parse_card("AC"), -1) if i % 2 else (parse_card("KS"), 1))
    assert not cm.lookup(bytes([0x04, 0x11, 0x22, 0x33, 99, 0x55, 0x44]), 7)
    assert not cm.lookup(bytes([0x04, 0x11, 0x22, 0x33, 1, 0x54]), 6)
    with pytest.raises(CardMapError, match="twice"):
        add(cm, cards[7].hex(), "2C")


def test_more_cards_than_the_index_holds_is_a_clear_error():
    cm = CardMap(0)
    for i in range(255):
        put(cm, bytes([4, i, 1, 2]), 1)
    with pytest.raises(CardMapError, match="more than 255 cards"):
        put(cm, bytes([4, 0, 9, 9]), 1)


def test_a_deck_of_tags_differing_in_one_byte_spreads_over_the_index():
    """Tags of one batch can share every UID byte but one (the virtual decks do: only byte 4
    names the card): the index must still spread them, or every lookup walks one long chain
    (1.5 ms on the chip instead of ~0.15)."""
    from spit import cardfile, cardmap
    from spit.cards import full_deck
    from host_tools.vboard.board_files import default_uid

    for owner in (-1, 0, 1):
        uids = [default_uid(card, owner) for card in full_deck(0)]
        buckets = {cardfile._hash(u, len(u)) & 127 for u in uids}
        assert len(buckets) >= 40, (owner, len(buckets))
    m = cardmap.CardMap(104)
    for owner in (0, 1):
        for card in full_deck(0):
            put(m, default_uid(card, owner), card, owner)
    u = default_uid(full_deck(0)[7], 1)
    assert m.lookup(u, len(u)) and m.card == full_deck(0)[7] and m.owner == 1


# ---- the board's cards.bin: checked and packed on the PC, read at boot without JSON ------------

def _two_decks():
    from spit.cards import format_card, full_deck
    cards = {}
    for owner in (0, 1):
        for k, card in enumerate(full_deck(2)):   # (two jokers: one code, two tags)
            uid = bytes([4, 0x53, owner, k, 9, 1, 7]) if k % 3 else bytes([8, owner, k, 5])
            cards[uid.hex().upper()] = "%s@%d" % (format_card(card), owner)
    return cards


def test_the_packed_map_the_board_reads_finds_every_card(tmp_path):
    from spit.cardfile import pack
    from referee.boardfile import load_cards
    cards = _two_decks()
    want = load_cardmap({"cardmap": 1, "cards": cards})
    path = tmp_path / "cards.bin"
    path.write_bytes(pack(want))
    got = load_cards(str(path))
    assert got.count == want.count == len(cards) == 108
    # (the magic, the count, an 11-byte UID slot and a value byte a card, the index: 256 bytes)
    assert len(path.read_bytes()) == len(b"spit cards 1\n") + 1 + 12 * 108 + 256
    for text, value in cards.items():
        uid = bytes.fromhex(text)
        assert got.lookup(uid, len(uid)) and (got.card, got.owner) == (parse_card(value[:-2]), int(value[-1]))
    assert not got.lookup(bytes.fromhex("04535000FF0901"), 7)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(pack(CardMap(0)))
    assert load_cards(str(empty)).count == 0


def test_a_missing_or_damaged_packed_map_is_one_clear_error_with_blink_code_7(tmp_path):
    from spit.cardfile import pack
    from referee.boardfile import BoardError, load_cards
    path = tmp_path / "cards.bin"
    with pytest.raises(BoardError) as e:
        load_cards(str(path))
    assert str(e.value).startswith("cards.bin: missing (enroll the cards: `spit enroll`, then `spit flash --cards")
    assert e.value.code == 7
    good = pack(load_cardmap({"cardmap": 1, "cards": {"04A1B2C3": "QH", "04A1B2C3D4E5F6": "7S"}}))
    bad_length = bytearray(good)
    bad_length[len(b"spit cards 1\n") + 1] = 5   # a UID slot's length byte: 4, 7 or 10
    bad_index = bytearray(good)
    bad_index[-1] = 3   # a slot number + 1 past the 2 cards
    for data in (good[:-1], good + b"\x00", b"spit cards 2\n" + good[13:], bytes(bad_length), bytes(bad_index),
                 good[:13] + b"\x03" + good[14:], b"spit cards 1\n", b'{"cardmap": 1, "cards": {}}'):
        path.write_bytes(data)
        with pytest.raises(BoardError) as e:
            load_cards(str(path))
        assert str(e.value) == ("cards.bin: damaged or not a packed card map "
                                "(run `spit flash --cards cards.json` again)") and e.value.code == 7


def test_spit_flash_packs_the_card_map_and_refuses_a_bad_one_naming_the_uid(tmp_path):
    import json
    import os
    from host_tools.device import flash_inputs
    from referee.boardfile import load_cards
    firmware = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "firmware")
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"cardmap": 1, "cards": {"04A1B2C3": "QH@1"}}))
    packed = tmp_path / "cards.bin"
    packed.write_bytes(flash_inputs.packed_card_map(firmware, str(path)))
    cm = load_cards(str(packed))
    assert cm.lookup(bytes.fromhex("04A1B2C3"), 4) and (cm.card, cm.owner) == (parse_card("QH"), 1)
    path.write_text(json.dumps({"cardmap": 1, "cards": {"04A1B2C3": "QH", "04a1b2c3": "KH"}}))
    with pytest.raises(flash_inputs.FlashError, match="card map .*cards.json: UID 04A1B2C3 is in the card map twice"):
        flash_inputs.packed_card_map(firmware, str(path))
    path.write_text(json.dumps({"cardmap": 1, "cards": {"04A1B2C3": "ZZ"}}))
    with pytest.raises(flash_inputs.FlashError, match="UID 04A1B2C3: "):
        flash_inputs.packed_card_map(firmware, str(path))
