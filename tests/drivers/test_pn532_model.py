"""The strict PN532 + ISO 14443-3 model (host_tools/vboard: iso14443a, pn532_ciu, pn532_commands,
pn532_listing), frame by frame: what the datasheets settle, and each named option."""

import os

import pytest

from host_tools.vboard.pn532_frames import ERROR_FRAME, build_frame
from host_tools.vboard import iso14443a, pn532_ciu
from host_tools.vboard.clock import VirtualClock
from host_tools.vboard.pn532_emulator import PN532Emulator
from host_tools.vboard.pn532_options import OPTIONS, all_combinations, combinations

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


UID_A = bytes.fromhex("04A1B2C3D4E5F6")
UID_B = bytes.fromhex("04A1B2C3D4E5F7")
REQA = (b"\x26",)
RAW = b"\x63\x02\x00\x63\x03\x00\x63\x3d"
KNOWN_STATE = b"\x63\x05\x40\x63\x3c\x10"


class Chip:
    def __init__(self, **options):
        self.clock = VirtualClock(0)
        self.em = PN532Emulator(self.clock, asleep=False, **options)

    def send(self, command, params=b"", wait_us=200000):
        """The reply's payload after TFI (command + 1, data), or ERROR_FRAME / None."""
        self.em.host_frame(build_frame(bytes([0xD4, command]) + bytes(params)))
        end = self.clock.now_us + wait_us
        ack = None
        while self.clock.now_us < end:
            self.clock.advance_us(50)
            frame = self.em.read_output()
            if frame is None:
                continue
            if ack is None:
                ack = frame
                continue
            if frame == ERROR_FRAME:
                return ERROR_FRAME
            return frame[6:-2]
        return None

    def raw_ready(self):
        assert self.send(0x32, b"\x01\x01") == b"\x33"
        assert self.send(0x08, KNOWN_STATE) == b"\x09"

    def thru(self, data, framing=0x00):
        assert self.send(0x08, RAW + bytes([framing])) == b"\x09"
        reply = self.send(0x42, data)
        return reply[1], bytes(reply[2:])


def test_reqa_to_ready_and_active_tags_is_unexpected_and_unanswered():
    # NTAG213F 8.4.4 / NTAG203 8.2: REQA, REQA again, ... answered, silent, answered, ...
    chip = Chip()
    chip.em.place_tag(UID_A)
    chip.raw_ready()
    statuses = [chip.thru(b"\x26", 0x07)[0] for _ in range(5)]
    assert statuses == [0, 1, 0, 1, 0]
    tag = chip.em.tag(UID_A)
    assert tag.state == iso14443a.READY and tag.unexpected == 2


def test_halted_tag_answers_wupa_and_goes_back_to_halt_on_an_unexpected_frame():
    chip = Chip()
    tag = chip.em.place_tag(UID_A)
    tag.halt()
    chip.raw_ready()
    assert chip.thru(b"\x26", 0x07)[0] == 1        # REQA: HALT stays silent
    assert chip.thru(b"\x52", 0x07)[0] == 0        # WUPA wakes it
    assert chip.thru(b"\x26", 0x07)[0] == 1        # unexpected while READY: back to HALT
    assert tag.state == iso14443a.HALT


def test_raw_exchange_on_a_chip_never_set_up_times_out():
    chip = Chip()
    chip.em.place_tag(UID_A)
    assert chip.thru(b"\x26", 0x07)[0] == 1        # field off after power-up
    assert chip.send(0x32, b"\x01\x01") == b"\x33"
    assert chip.thru(b"\x26", 0x07)[0] == 1        # field on, but no 100 % ASK / initiator
    assert chip.send(0x08, KNOWN_STATE) == b"\x09"
    assert chip.thru(b"\x26", 0x07) == (0, b"\x44\x00")


def test_rstpd_n_resets_the_ciu_registers_and_the_field():
    from host_tools.vboard.pins import Pin
    Pin.reset_registry()
    reset = Pin(5, Pin.OUT, value=1)
    chip = Chip()
    chip.em.reset_gpio = 5
    chip.em.place_tag(UID_A)
    chip.raw_ready()
    assert chip.thru(b"\x26", 0x07)[0] == 0
    reset.value(0)
    chip.em.update()
    reset.value(1)
    chip.em.update()
    assert chip.em.resets == 1
    assert chip.send(0x06, b"\x63\x05\x63\x3c\x63\x3d\x63\x04") == b"\x07\x00\x00\x00\x80"
    assert chip.em.tag(UID_A).state == iso14443a.IDLE
    assert chip.thru(b"\x26", 0x07)[0] == 1


@pytest.mark.parametrize("honoured", [True, False])
def test_rx_align_shifts_the_data_and_never_silences_the_tag(honoured):
    chip = Chip(rx_align=honoured)
    chip.em.place_tag(UID_A)
    chip.raw_ready()
    assert chip.thru(b"\x26", 0x07)[0] == 0
    cl1 = iso14443a.cascade_levels(UID_A)[0]     # 88 04 A1 B2 BCC
    # Anticollision with 3 known bits: TxLastBits 3, RxAlign 3.
    status, data = chip.thru(bytes([0x93, 0x23, cl1[0] & 0x07]), 0x33)
    assert status == 0 and data
    if honoured:
        assert data[0] & 0xF8 == cl1[0] & 0xF8 and data[1:] == cl1[1:]
    else:
        assert data != bytes([cl1[0] & 0xF8]) + cl1[1:]   # shifted by three bits
    # RxAlign 0: the first bit received is bit 0, whatever the option.
    chip.thru(b"\x26", 0x07)
    chip.thru(b"\x26", 0x07)
    status, data = chip.thru(bytes([0x93, 0x23, cl1[0] & 0x07]), 0x03)
    assert status == 0 and data[0] == (cl1[0] >> 3) | ((cl1[1] << 5) & 0xFF)


@pytest.mark.parametrize("status", [0x06, 0x03, 0x02])
@pytest.mark.parametrize("readable", [True, False])
def test_collision_status_and_ciu_coll(status, readable):
    chip = Chip(collision_status=status, coll_readable=readable)
    chip.em.place_tag(b"\x11\x22\x33\x44")
    chip.em.place_tag(b"\x11\x22\x33\x45")
    chip.raw_ready()
    assert chip.thru(b"\x26", 0x07) == (0, b"\x04\x00")   # same ATQA: no collision
    assert chip.thru(b"\x93\x20") == (status, b"")        # 44 / 45: bit 24 differs
    regs = chip.send(0x06, b"\x63\x3e\x63\x39\x63\x39\x63\x39\x63\x39\x63\x39")
    if readable:
        assert regs[1] == 25 and regs[2:6] == b"\x11\x22\x33\x00"
    else:
        assert regs[1] == pn532_ciu.COLL_RESET and regs[2:] == bytes(5)


def test_collision_position_in_cascade_level_two():
    chip = Chip()
    chip.em.place_tag(UID_A)
    chip.em.place_tag(UID_B)
    chip.raw_ready()
    chip.thru(b"\x26", 0x07)
    cl1 = iso14443a.cascade_levels(UID_A)[0]
    status, data = chip.thru(b"\x93\x20")
    assert (status, data) == (0, cl1)                       # CL1 shared: no collision
    sel = b"\x93\x70" + cl1
    status, data = chip.thru(sel + iso14443a.crc_a(sel))
    assert status == 0 and data[0] == 0x04                  # cascade: level 2 follows
    status, data = chip.thru(b"\x95\x20")
    assert status == 0x06
    regs = chip.send(0x06, b"\x63\x3e\x63\x39\x63\x39\x63\x39\x63\x39\x63\x39")
    # CL2 C3 D4 E5 F6 BCC vs C3 D4 E5 F7 BCC: the first differing bit is bit 24 (F6/F7 bit 0).
    assert regs[1] == 25 and regs[2:6] == b"\xc3\xd4\xe5\x00"
    # A SELECT without its CRC_A is an unexpected frame: both go back to IDLE, unanswered.
    assert chip.thru(b"\x95\x70" + iso14443a.cascade_levels(UID_A)[1])[0] == 1
    assert {tag.state for tag in chip.em.tags} == {iso14443a.IDLE}


def test_chip_commands_a_client_sends_are_accepted():
    chip = Chip()
    assert chip.send(0x00, b"\x00libnfc") == b"\x01\x00libnfc"     # Diagnose: line test echo
    assert chip.send(0x00, b"\x01") == b"\x01\x00"                  # ROM test
    assert chip.send(0x12, b"\x14") == b"\x13"                      # SetParameters
    for brty, data in ((1, b"\x00\xff\xff\x00\x00"), (2, b"\x00\xff\xff\x00\x00"), (3, b"\x00"), (4, b"")):
        assert chip.send(0x32, b"\x05\xff\x01\x01") == b"\x33"
        assert chip.send(0x4A, bytes([1, brty]) + data) == b"\x4b\x00"   # nothing of that kind
    chip.raw_ready()
    assert chip.send(0x42, b"") == b"\x43\x01"                      # empty InCommunicateThru
    chip.em.place_tag(UID_A)
    reply = chip.send(0x60, b"\x14\x02\x00\x10")                    # InAutoPoll
    assert reply[:3] == b"\x61\x01\x00" and UID_A in reply
    assert chip.send(0x16, b"\x20") == b"\x17\x00"                  # PowerDown
    assert chip.send(0x99) == ERROR_FRAME


@pytest.mark.parametrize("model,pages,size", [("NTAG213", 45, 0x0F), ("NTAG215", 135, 0x11),
                                              ("NTAG216", 231, 0x13)])
def test_ntag_get_version_and_whole_memory(model, pages, size):
    chip = Chip()
    tag = iso14443a.Tag(UID_A, 0, model=model)
    chip.em.tags.append(tag)
    assert chip.send(0x4A, b"\x01\x00")[:2] == b"\x4b\x01"
    assert chip.send(0x40, b"\x01\x60") == b"\x41\x00\x00\x04\x04\x02\x01\x00" + bytes([size, 0x03])
    memory = b""
    for page in range(0, pages, 4):
        reply = chip.send(0x40, bytes([1, 0x30, page]))
        assert reply[:2] == b"\x41\x00"
        memory += reply[2:18]
    assert memory[:pages * 4] == bytes(tag.memory)
    assert memory[:8] == UID_A[:3] + bytes([0x88 ^ UID_A[0] ^ UID_A[1] ^ UID_A[2]]) + UID_A[3:]
    assert chip.send(0x40, bytes([1, 0x30, pages]))[1] != 0          # past the end: NAK


@pytest.mark.parametrize("release,deselect", [(True, True), (True, False), (False, True), (False, False)])
def test_which_command_halts(release, deselect):
    for command, halts in ((0x52, release), (0x44, deselect)):
        chip = Chip(release_halts=release, deselect_halts=deselect)
        chip.em.place_tag(UID_A)
        assert chip.send(0x4A, b"\x01\x00")[:2] == b"\x4b\x01"
        assert chip.send(command, b"\x00") == bytes([command + 1, 0])
        state = chip.em.tag(UID_A).state
        assert state == (iso14443a.HALT if halts else iso14443a.ACTIVE)


def test_listing_uses_the_ciu_bit_framing_as_the_host_left_it():
    chip = Chip()
    chip.em.place_tag(UID_A)
    chip.raw_ready()
    chip.thru(b"\x26", 0x07)                          # BitFraming 7 left behind
    assert chip.send(0x32, b"\x05\xff\x01\x01") == b"\x33"
    assert chip.send(0x4A, b"\x01\x00") == b"\x4b\x00"
    assert chip.send(0x08, b"\x63\x02\x80\x63\x03\x80\x63\x3d\x00") == b"\x09"
    assert chip.send(0x4A, b"\x01\x00")[:2] == b"\x4b\x01"


@pytest.mark.parametrize("order", ["high", "low"])
@pytest.mark.parametrize("wupa", [False, True])
def test_listing_order_and_reqa_or_wupa(order, wupa):
    chip = Chip(list_order=order, list_uses_wupa=wupa)
    chip.em.place_tag(UID_A)
    chip.em.place_tag(UID_B)
    assert chip.send(0x32, b"\x05\xff\x01\x01") == b"\x33"
    reply = chip.send(0x4A, b"\x01\x00")
    assert reply[-7:] == (UID_B if order == "high" else UID_A)
    for tag in chip.em.tags:
        tag.halt()
    reply = chip.send(0x4A, b"\x01\x00")
    assert (reply[1] == 1) == wupa


def test_option_sets():
    full = all_combinations()
    assert len(full) == 192
    covering = combinations()
    names = [name for name, _ in OPTIONS]
    values = dict(OPTIONS)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for va in values[a]:
                for vb in values[b]:
                    assert any(c[a] == va and c[b] == vb for c in covering), (a, va, b, vb)
    with pytest.raises(TypeError):
        PN532Emulator(VirtualClock(0), no_such_option=True)
