"""The first-contact probe (firmware/referee/nfc_probe.py) against the strict PN532 model: under
each option combination of the covering set, the probe's answers are the model's options."""

import pytest

from host_tools.vboard.pn532_options import combinations, label
from support.readers import uid


@pytest.mark.parametrize("chip", combinations(), ids=label)
def test_probe_answers_each_open_question_as_the_chip_behaves(chip):
    from host_tools.vboard.runner import VirtualTable

    t = VirtualTable(boot=False, emulator=chip)
    try:
        import referee.nfc_probe as nfc_probe
        t.emulators[0].place_tag(uid(4))
        said = []
        one = {}
        assert nfc_probe.run(pile=0, root=t.root, out=said.append, answers=one) == "GO"
        assert one["list_uses_wupa"] == chip["list_uses_wupa"]
        assert one["release_halts"] == chip["release_halts"]
        assert one["deselect_halts"] == chip["deselect_halts"]
        assert one["rx_align"] == chip["rx_align"]
        assert one["listing_us"] > 0 and one["exchange_us"] > 0 and one["write_register_us"] > 0
        assert "nfc probe: rx_align = %s" % chip["rx_align"] in said
        # Two cards whose UIDs first differ in cascade level 1, then two that differ in level 2.
        for other in (bytes.fromhex("04A1B2C3D4E5F6"), uid(9)):
            t.emulators[0].remove_tag(other) if t.emulators[0].tag(other) else None
            t.emulators[0].place_tag(other)
            two = {}
            assert nfc_probe.run(pile=0, cards=2, root=t.root, out=said.append, answers=two) == "GO"
            assert two["collision_status"] == chip["collision_status"]
            assert two["coll_readable"] == chip["coll_readable"]
            assert two["list_order"] == chip["list_order"]
            assert two["list_uses_wupa"] == chip["list_uses_wupa"]
            t.emulators[0].remove_tag(other)
    finally:
        t.close()
