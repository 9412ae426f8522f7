"""The card map (firmware/lib/spit/cardmap.py): UID bytes -> card, as the firmware looks a read up."""

import pytest

from spit.cardmap import CardMapError, _KEY_MASK, _key, load_cardmap, uid_hex
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


def test_same_key_different_uid_is_told_apart():
    cm = load_cardmap({"cardmap": 1, "cards": {"04000001": "2C"}})
    other = bytes.fromhex("04000002")
    cm._by_key[_key(other, 4)] = cm._by_key[_key(bytes.fromhex("04000001"), 4)]   # force a collision
    assert not cm.lookup(other, 4)


def test_key_arithmetic_stays_a_small_int_on_the_rp2040():
    # The RP2040's small ints are 31-bit (below 2**30): h * 31 + byte must stay below that for
    # every key, or each read allocates a big int (256 B per card measured on the chip).
    assert _KEY_MASK * 31 + 255 < 2 ** 30
    assert 0 <= _key(b"\xff" * 10, 10) <= _KEY_MASK


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
