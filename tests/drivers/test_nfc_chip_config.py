"""The probe's answers as the readers' configuration (issue 26 item 4): the first-contact probe
(referee/nfc_probe.py) writes its answers into board.json (the reader's ``chip``), the firmware's
reader is built from that file as at boot (referee/board_hw.py ``build_pn532``, then NfcReader),
and reads a pile and a pair under the option combination the answers describe; without answers,
or with answers of another chip, the defaults (learning WUPA, trying CIU_Coll) read them too."""

import json

import pytest

from host_tools.vboard.pn532_options import DEFAULTS, combinations, label
from support.readers import uid

COMBOS = pytest.mark.parametrize("chip", combinations(), ids=label)
PAIR = (bytes.fromhex("04A1B2C3D4E5F0"), bytes.fromhex("0455B2C3D4E5F3"))   # differ in cascade level 1


def _probe_into_board(t, chip):
    """The probe with one card, then with two, each writing its answers into board.json."""
    import referee.nfc_probe as nfc_probe
    em = t.emulators[0]
    em.place_tag(uid(4))
    assert nfc_probe.run(pile=0, root=t.root, out=lambda line: None) == "GO"
    em.place_tag(uid(9))
    assert nfc_probe.run(pile=0, cards=2, root=t.root, out=lambda line: None) == "GO"
    em.remove_tag(uid(4))
    em.remove_tag(uid(9))


def _reader_from_board(t, board):
    """Pile 0's reader as the firmware builds it from ``board`` (startup.build's calls)."""
    from drivers.nfc_reader import NfcReader
    from referee import board_hw
    bus, cs, irq = board_hw.build_nfc(board)[0]
    pn = board_hw.build_pn532(board, 0, bus, cs, irq)
    pn.setup(0xFF)
    cards = []
    reader = NfcReader(pn, 0, on_card=lambda pile, u, ticks: cards.append(bytes(u)), passive_retries=0xFF,
                       reply_timeout_us=500000)
    return reader, cards


def _run(t, reader, us):
    end = t.clock.now_us + us
    while t.clock.now_us < end:
        t.clock.advance_us(250)
        for em in t.emulators:
            em.update()
        reader.service(t.clock.ticks_us())


def _pile_then_pair(t, reader, cards):
    em = t.emulators[0]
    _run(t, reader, 20000)
    singles = [uid(0x20 + n) for n in range(4)]
    for tag in singles:
        em.place_tag(tag)
        _run(t, reader, 60000)
    em.place_tag(PAIR[0])
    _run(t, reader, 1000)
    em.place_tag(PAIR[1])
    _run(t, reader, 300000)
    assert cards[:4] == singles
    assert sorted(cards[4:]) == sorted(PAIR)      # each card once: none lost, none twice


@COMBOS
def test_the_probe_writes_its_answers_and_the_reader_built_from_them_works(chip):
    from host_tools.vboard.runner import VirtualTable
    from referee.boardfile import load
    chip = dict(DEFAULTS, **chip)
    t = VirtualTable(boot=False, emulator=chip)
    try:
        _probe_into_board(t, chip)
        board = load(t.root + "board.json")
        answers = board["nfc"]["readers"][0]["chip"]
        for name in DEFAULTS:   # every open question, answered as the model behaves
            assert answers[name] == chip[name], name
        assert "chip" not in board["nfc"]["readers"][1]
        # spit flash --probe with the same answers (as spit doctor keeps them) writes the same.
        from host_tools.device import flash_inputs
        probe_file = t.root + "doctor.json"
        with open(probe_file, "w") as f:
            json.dump({"probe": [{"pile": 0, "verdict": "GO", "answers": answers}]}, f)
        source = flash_inputs.read_json(flash_inputs.default_boards_dir() + "/pico.json", "board file")
        flashed = flash_inputs.checked_board(flash_inputs.default_firmware_dir(), "board.json",
                                             flash_inputs.with_probe_answers(source, probe_file))
        assert flashed["nfc"]["readers"][0]["chip"] == answers
        reader, cards = _reader_from_board(t, board)
        # Taken from the file, not learned: a WUPA chip is polled from the first step.
        assert reader.wakes_halted == chip["list_uses_wupa"]
        assert reader.scan.use_coll == chip["coll_readable"]
        raw = t.emulators[0].raw_frames
        before = len(raw)
        _pile_then_pair(t, reader, cards)
        if not chip["list_uses_wupa"]:
            # A listing known to send REQA needs no scan after it: its HLTA is the only raw frame.
            assert {first for first, _ in raw[before:]} == {0x50}
        assert reader.rereads == 0 and reader.failures == 0
    finally:
        t.close()


@COMBOS
@pytest.mark.parametrize("given", ["none", "not an object", "another chip"])
def test_without_answers_or_with_wrong_ones_the_defaults_still_read_everything(chip, given):
    # No answers (a board flashed before the probe ran), a damaged entry (not a dict: ignored) or
    # the answers of another chip (a reader swapped): the reader learns what it must, loses nothing.
    from host_tools.vboard.runner import VirtualTable
    chip = dict(DEFAULTS, **chip)
    t = VirtualTable(boot=False, emulator=chip)
    try:
        board = json.loads(json.dumps(t.board))
        wrong = {"list_uses_wupa": not chip["list_uses_wupa"], "coll_readable": not chip["coll_readable"]}
        board["nfc"]["readers"][0]["chip"] = {"none": None, "not an object": "WUPA",
                                              "another chip": wrong}[given]
        reader, cards = _reader_from_board(t, board)
        if given != "another chip":
            assert not reader.wakes_halted and reader.scan.use_coll
        _pile_then_pair(t, reader, cards)
        if chip["list_uses_wupa"]:
            assert reader.wakes_halted     # learned, or given
    finally:
        t.close()


def test_a_touch_starts_a_polling_readers_scan_at_once():
    # A chip whose listing wakes halted tags is polled every poll_us; the pile's touch edge starts
    # the next scan in the reader's next step, so its REQA comes right after the landing.
    from support.readers import Table
    t = Table(piles=1, emulator_options={"list_uses_wupa": True},
              reader_options={"poll_us": 50000})
    try:
        reader = t.readers[0]
        reader.wakes_halted = True     # (as board.json's answers set it)
        t.run(20000)
        em = t.emulators[0]
        em.place_tag(uid(1))
        t.run(100000)
        assert [c[1] for c in t.cards] == [uid(1)]
        while reader._state != t.mod._POLL_WAIT:   # a scan just ended: the next is 50 ms away
            t.run(250)
        em.place_tag(uid(2))
        landed = t.clock.now_us
        reader.touched(t.ticks_now())
        t.run(15000)   # well within poll_us
        assert [c[1] for c in t.cards] == [uid(1), uid(2)]
        assert t.clock.ticks_diff(t.cards[-1][2], landed & ((1 << 30) - 1)) >= 0
    finally:
        t.close()
