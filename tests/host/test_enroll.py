"""`spit enroll` and the PN532 HSU emulator, end to end over a pty.

Everything talks real PN532 frames: adafruit_pn532.uart.PN532_UART on pyserial on one side of a pty, the
emulator on the other. The emulator answers at once, so a tap costs about one serial timeout (0.1 s).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import pytest
import serial

from adafruit_pn532.uart import PN532_UART
from host_tools import enroll
from host_tools.cli import enroll as cli_enroll
from host_tools.vboard.ntag21x_tag import NtagTag
from fakes.pn532_hsu_emulator import PN532HsuEmulator
from host_tools.vboard.pn532_frames import ACK_FRAME, ERROR_FRAME, NACK_FRAME, build_frame

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


ORDER = enroll.card_order()


def make_tags(count, first=0x10):
    """``count`` distinct NTAG213 tags with UIDs 04 5A 00 00 00 xx yy."""
    return [NtagTag(bytes([0x04, 0x5A, 0, 0, 0, (first + i) >> 8 & 0xFF, (first + i) & 0xFF]))
            for i in range(count)]


def prefill(path, count, deck=None):
    """A card map holding the first ``count`` cards of the order (UIDs unrelated to make_tags)."""
    suffix = "@%s" % deck if deck else ""
    cards = {"04EE0000%06X" % i: ORDER[i] + suffix for i in range(count)}
    enroll.save_card_map(str(path), cards)
    return cards


def read_map(path):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    assert document["cardmap"] == 1
    return document["cards"]


def run_cli(argv, commands=None):
    """Run `spit enroll ARGV` in-process; returns (exit code, printed lines)."""
    lines = []
    parser = argparse.ArgumentParser(prog="spit")
    cli_enroll.add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["enroll"] + argv)
    code = args.func(args, commands=commands or (lambda: None), echo=lines.append)
    return code, lines


@pytest.fixture
def emulator():
    with PN532HsuEmulator() as emu:
        yield emu


# ----- the emulator, seen by the adafruit library and by raw frames -----------------------------------------
def test_adafruit_library_reads_and_writes_emulated_ntag(emulator):
    pn532 = PN532_UART(serial.Serial(emulator.port, 115200, timeout=0.1))
    assert pn532.firmware_version == (0x32, 1, 6, 7)
    assert pn532.read_passive_target(timeout=0.1) is None            # empty field: host times out
    tag = emulator.place_tag(NtagTag("04A1B2C3D4E5F6"))
    assert bytes(pn532.read_passive_target(timeout=0.5)) == bytes.fromhex("04A1B2C3D4E5F6")
    assert bytes(pn532.ntag2xx_read_block(0)) == bytes([0x04, 0xA1, 0xB2, 0x88 ^ 0x04 ^ 0xA1 ^ 0xB2])
    assert bytes(pn532.ntag2xx_read_block(3)) == b"\xe1\x10\x12\x00"  # NTAG213 capability container
    assert pn532.ntag2xx_write_block(6, b"ABCD")
    assert bytes(pn532.ntag2xx_read_block(6)) == b"ABCD"
    assert bytes(pn532.mifare_classic_read_block(5))[4:8] == b"ABCD"  # READ returns 4 pages
    assert tag.memory[24:28] == b"ABCD"
    assert pn532.ntag2xx_read_block(45) is None                       # past the end: NAK
    assert not pn532.ntag2xx_write_block(1, b"\x00\x00\x00\x00")       # UID page is read-only
    emulator.remove_tag(tag)
    assert pn532.ntag2xx_read_block(4) is None                        # card gone: timeout status
    assert pn532.read_passive_target(timeout=0.1) is None
    emulator.script_taps(make_tags(2))
    first, second = (bytes(pn532.read_passive_target(timeout=0.5)).hex() for _ in range(2))
    assert (first, second) == ("045a0000000010", "045a0000000011")   # each read takes the next tap


def test_raw_frames_wakeup_ack_nack_errors_and_retry_budget(emulator):
    port = serial.Serial(emulator.port, 115200, timeout=0.2)
    firmware_request = build_frame(b"\xd4\x02")
    port.write(firmware_request)                                      # asleep: ignored
    assert port.read(6) == b""
    port.write(b"\x55\x55" + bytes(14) + build_frame(b"\xd4\x14\x01"))
    assert port.read(6) == ACK_FRAME
    assert port.read(9) == build_frame(b"\xd5\x15")
    port.write(firmware_request)
    assert port.read(6) == ACK_FRAME
    reply = port.read(13)
    assert reply == bytes.fromhex("0000FF06FAD50332010607") + bytes([(-(0xD5 + 0x03 + 0x32 + 1 + 6 + 7)) & 0xFF, 0])
    port.write(NACK_FRAME)                                            # ask for the reply again
    assert port.read(13) == reply
    bad = bytearray(firmware_request)
    bad[-2] ^= 0xFF
    port.write(bytes(bad))                                            # bad data checksum
    assert port.read(8) == ERROR_FRAME
    port.write(build_frame(b"\xd4\x99"))                              # unknown command
    assert port.read(14) == ACK_FRAME + ERROR_FRAME
    port.write(build_frame(b"\xd4\x4a\x01\x00"))                      # no card, infinite retries: silence
    assert port.read(6) == ACK_FRAME
    assert port.read(1) == b""
    port.write(ACK_FRAME)                                             # host ACK aborts the wait
    time.sleep(0.1)                                                   # let the emulator read it
    emulator.place_tag(NtagTag("04010203040506"))
    assert port.read(1) == b""
    emulator.remove_tag()
    port.write(build_frame(b"\xd4\x32\x05\xff\x01\x02"))              # MxRtyPassiveActivation = 2
    assert port.read(6 + 9) == ACK_FRAME + build_frame(b"\xd5\x33")
    port.write(build_frame(b"\xd4\x4a\x01\x00"))
    assert port.read(6 + 10) == ACK_FRAME + build_frame(b"\xd5\x4b\x00")  # NbTg = 0
    port.close()


# ----- enrollment --------------------------------------------------------------------------------------
def test_full_deck_enrollment_with_scripted_taps(emulator, tmp_path):
    out = tmp_path / "cards.json"
    tags = make_tags(52)
    emulator.script_taps(tags)
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--timeout", "5"])
    assert code == 0, lines   # (how long it takes: bench/bench_enroll.py, never a timed assertion)
    cards = read_map(out)
    assert list(cards) == [tag.uid_hex for tag in tags]
    assert list(cards.values()) == ORDER
    assert cards[tags[ORDER.index("QH")].uid_hex] == "QH"
    assert "Tap the Queen of Hearts (38/52)  [u = undo, q = quit]" in lines
    assert "Tap the Ten of Diamonds (23/52)  [u = undo, q = quit]" in lines
    assert lines[-1].startswith("All 52 cards enrolled")


def test_duplicate_tag_is_rejected_and_the_prompt_repeats(emulator, tmp_path):
    out = tmp_path / "cards.json"
    existing = prefill(out, 50)
    first_uid = next(iter(existing))
    tags = make_tags(2)
    emulator.script_taps([tags[0], tags[0], NtagTag(first_uid), tags[0], tags[1]])
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--timeout", "5"])
    assert code == 0, lines
    cards = read_map(out)
    assert cards[tags[0].uid_hex] == "QS" and cards[tags[1].uid_hex] == "KS"
    rejections = [line for line in lines if line.startswith("  Tag ")]
    assert rejections == ["  Tag %s is already enrolled as AC; tap the King of Spades." % first_uid,
                          "  Tag %s is already enrolled as QS; tap the King of Spades." % tags[0].uid_hex]


def test_undo_by_typing_u_while_waiting(emulator, tmp_path):
    out = tmp_path / "cards.json"
    prefill(out, 50)
    wrong, queen, king = make_tags(3)
    emulator.script_taps([wrong, queen, king])
    pressed = []

    def commands():
        if len(session.cards) == 51 and not pressed:
            pressed.append("u")
            return "u"
        return None

    reader = enroll.Pn532Reader(emulator.port)
    lines = []
    session = enroll.Enroller(reader, str(out), commands=commands, timeout_s=5, echo=lines.append)
    try:
        assert session.run() == 3
    finally:
        reader.close()
    cards = read_map(out)
    assert wrong.uid_hex not in cards
    assert cards[queen.uid_hex] == "QS" and cards[king.uid_hex] == "KS" and len(cards) == 52
    assert "Undone: QS (tag %s)" % wrong.uid_hex in lines
    assert lines.count("Tap the Queen of Spades (51/52)  [u = undo, q = quit]") == 2


def test_undo_last_flag_and_quit_command(emulator, tmp_path):
    out = tmp_path / "cards.json"
    cards = prefill(out, 52)
    replacement = make_tags(1)[0]
    emulator.script_taps([replacement])
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--undo-last", "--timeout", "5"])
    assert code == 0, lines
    after = read_map(out)
    assert after[replacement.uid_hex] == "KS" and list(after)[-2] == list(cards)[-2]
    assert list(cards)[-1] not in after
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--undo-last"], commands=lambda: "q")
    assert code == 0 and lines[-1].startswith("Stopped; progress is saved")
    assert len(read_map(out)) == 51


def test_resume_after_an_interrupted_session(emulator, tmp_path, capsys):
    out = tmp_path / "cards.json"
    tags = make_tags(52)
    emulator.script_taps(tags[:20])
    # (A timeout a scripted tap meets on a loaded machine too: 0.3 s was missed once, in a
    # local CI run beside two emulated Picos, and the session stopped a card early.)
    code, _ = run_cli(["--port", emulator.port, "--out", str(out), "--timeout", "1.5"])
    assert code == 1
    assert "no tag tapped for the Eight of Diamonds within 1.5 s" in capsys.readouterr().err
    assert len(read_map(out)) == 20
    emulator.script_taps(tags[20:])
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--timeout", "5"])
    assert code == 0, lines
    assert lines[1] == "Resuming %s: 20/52 cards already enrolled." % out
    assert lines[2].startswith("Tap the Eight of Diamonds (21/52)")
    cards = read_map(out)
    assert list(cards) == [tag.uid_hex for tag in tags] and list(cards.values()) == ORDER


def test_write_tags_stores_and_verifies_the_code(emulator, tmp_path):
    out = tmp_path / "cards.json"
    prefill(out, 52, deck="1")

    class ReadOnlyTag(NtagTag):
        def write(self, page, data):
            return False

    stubborn = ReadOnlyTag("04BAD0000000BA")
    joker_one, joker_two = make_tags(2)
    emulator.script_taps([stubborn, joker_one, joker_two])
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--deck", "1", "--jokers",
                           "--write-tags", "--timeout", "5"])
    assert code == 0, lines
    cards = read_map(out)
    assert cards[joker_one.uid_hex] == "JK@1" and cards[joker_two.uid_hex] == "JK@1"
    assert stubborn.uid_hex not in cards
    assert any("failed: the tag refused page 4" in line for line in lines)
    assert "Tap the second Joker (54/54)  [u = undo, q = quit]" in lines
    assert enroll.decode_tag_payload(joker_one.memory[16:32]) == "JK@1"
    assert bytes(joker_one.memory[16:28]) == b"SPIT\x01\x04JK@1\x00\x00"


def test_another_deck_shares_the_file_and_sees_duplicates(emulator, tmp_path):
    out = tmp_path / "cards.json"
    first_deck = prefill(out, 52, deck="0")
    reused = NtagTag(list(first_deck)[5])
    new = make_tags(1)[0]
    emulator.script_taps([reused, new])
    code, lines = run_cli(["--port", emulator.port, "--out", str(out), "--deck", "1", "--timeout", "1.5"])
    assert code == 1                                     # times out on the 2nd card, after one success
    cards = read_map(out)
    assert cards[new.uid_hex] == "AC@1" and len(cards) == 53
    assert "already enrolled as 6C@0" in lines[2]
    # what spit enroll writes, spit flash takes (its card map check allows owners 0 and 1 only)
    from spit import cardfile
    assert len(cardfile.pack(cardfile.load_cardmap({"cardmap": 1, "cards": cards}))) > 0


# ----- errors -------------------------------------------------------------------------------------------
def test_silent_port_gives_one_line_error(tmp_path, capsys):
    with PN532HsuEmulator(silent=True) as mute:
        code, _ = run_cli(["--port", mute.port, "--out", str(tmp_path / "c.json")])
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("spit enroll: error: no PN532 answering on %s" % mute.port)
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "c.json").exists()


def test_missing_port_and_bad_file_errors(tmp_path, capsys):
    code, _ = run_cli(["--port", str(tmp_path / "no-such-tty"), "--out", str(tmp_path / "c.json")])
    assert code == 1
    assert "serial port %s not found" % (tmp_path / "no-such-tty") in capsys.readouterr().err
    code, _ = run_cli(["--port", str(tmp_path), "--out", str(tmp_path / "c.json")])   # a directory
    assert code == 1 and "cannot open serial port" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    for content, message in [("{not json", "not a readable card map"), ('{"cards": {}}', "not a card map"),
                             ('{"cardmap": 1, "cards": {"04zz": "QH"}}', "bad UID '04zz'"),
                             ('{"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QX"}}', "bad card code 'QX'")]:
        bad.write_text(content)
        code, _ = run_cli(["--port", "/dev/null", "--out", str(bad)])
        err = capsys.readouterr().err
        assert code == 1 and message in err and len(err.strip().splitlines()) == 1, err
    code, _ = run_cli(["--port", "/dev/null", "--deck", "a b"])
    assert code == 1 and "--deck" in capsys.readouterr().err


def test_deck_other_than_player_0_or_1_is_refused_before_enrolling(tmp_path, capsys):
    # spit flash accepts owners @0 and @1 only (R-OWN-1): a deck enrolled as @2 would be refused there
    for deck in ("2", "a", "01"):
        code, _ = run_cli(["--port", "/dev/null", "--out", str(tmp_path / "c.json"), "--deck", deck])
        err = capsys.readouterr().err
        assert code == 1 and "--deck must be 0 or 1" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "c.json").exists()
    bad = tmp_path / "two.json"
    bad.write_text('{"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH@2"}}')
    code, _ = run_cli(["--port", "/dev/null", "--out", str(bad)])
    err = capsys.readouterr().err
    assert code == 1 and "deck owner in 'QH@2' must be @0 or @1" in err and len(err.strip().splitlines()) == 1


def test_typed_commands_from_stdin_in_a_real_process(emulator, tmp_path):
    out = tmp_path / "cards.json"
    prefill(out, 51)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "firmware", "lib")]))
    result = subprocess.run([sys.executable, "-m", "host_tools.cli.enroll", "--port", emulator.port,
                             "--out", str(out)], input="u\nq\n", capture_output=True, text=True,
                            timeout=20, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "Undone: QS" in result.stdout and "Stopped; progress is saved" in result.stdout
    assert len(read_map(out)) == 50


def test_board_port_runs_the_firmware_enrollment_and_copies_the_file(tmp_path, monkeypatch):
    out = tmp_path / "cards.json"
    calls = []
    scripts = []
    packed = []
    limits = []

    def fake_run(command, idle_s):
        calls.append(command)
        limits.append(idle_s)
        if command[-2] == "run":   # the script exists while mpremote runs it
            with open(command[-1]) as f:
                scripts.append(f.read())
        if command[-3:-1] == ["cp", ":cards.json"]:
            enroll.save_card_map(command[-1], {"04A1B2C3D4E5F6": "QH@1"})
        if command[-1] == ":cards.bin":
            with open(command[-2], "rb") as f:
                packed.append(f.read())
        return 0

    assert enroll.run_board_enrollment("/dev/ttyACM0", str(out), deck="1", runner=fake_run) == {
        "04A1B2C3D4E5F6": "QH@1"}
    # referee/enroll.py is not installed by spit flash: mpremote run sends it with its call.
    assert calls[0][1:-1] == ["-m", "mpremote", "connect", "/dev/ttyACM0", "run"]
    assert scripts[0].endswith("\nrun(deck='1')\n") and "def card_order(" in scripts[0]
    assert not os.path.exists(calls[0][-1])
    assert calls[1][-4:] == ["fs", "cp", ":cards.json", str(out)]
    # The referee reads the map packed: the enrolled one, checked and packed on the PC, goes to cards.bin.
    assert calls[2][-4:-2] == ["fs", "cp"] and calls[2][-1] == ":cards.bin"
    from spit.cardfile import load_cardmap, pack
    assert packed[0] == pack(load_cardmap({"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH@1"}}))
    assert not os.path.exists(calls[2][-2])

    # No --timeout: the enrollment waits for the person; the copies have a limit.
    assert limits[0] is None and limits[1] > 0 and limits[2] > 0

    with pytest.raises(enroll.EnrollError, match="mpremote failed on /dev/ttyACM0"):
        enroll.run_board_enrollment("/dev/ttyACM0", str(out), runner=lambda command, idle_s: 1)


def test_a_board_that_stops_answering_is_an_error_not_an_endless_wait(tmp_path):
    """With --timeout the board's enrollment says something at least every timeout; a step
    that stays silent longer is given up with one line (it hung `spit enroll --board-port` on
    the emulated Pico when its output was lost)."""
    limits = []

    def silent(command, idle_s):
        limits.append(idle_s)
        return None
    with pytest.raises(enroll.EnrollError) as e:
        enroll.run_board_enrollment("/dev/ttyACM0", str(tmp_path / "c.json"), runner=silent, timeout_s=8)
    assert limits[0] >= 8
    assert str(e.value).startswith("the board said nothing for ") and "`mpremote run " in str(e.value)


def test_run_relayed_passes_the_output_on_and_stops_a_silent_command():
    import io
    from host_tools.device.mpremote import run_relayed
    out = io.StringIO()
    assert run_relayed([sys.executable, "-c", "print('Tap the Ace of Clubs'); raise SystemExit(3)"], 5, out) == 3
    assert out.getvalue().strip() == "Tap the Ace of Clubs"
    t = time.monotonic()
    out = io.StringIO()
    code = run_relayed([sys.executable, "-c", "import time; print('x', flush=True); time.sleep(60)"], 1.0, out)
    assert code is None and out.getvalue().strip() == "x" and time.monotonic() - t < 30


def test_tag_payload_round_trip():
    for code in ["AC", "10D@1", "JK", "QH@ABCDEFGH"]:
        payload = enroll.encode_tag_payload(code)
        assert len(payload) % 4 == 0 and payload.startswith(b"SPIT\x01")
        assert enroll.decode_tag_payload(payload + bytes(8)) == code
    assert enroll.decode_tag_payload(b"\x03\x00\xfe\x00" + bytes(12)) is None
    assert len(ORDER) == 52 and len(set(ORDER)) == 52 and ORDER[37] == "QH"


def test_prompt_order_matches_the_engine_deck_order():
    cards = pytest.importorskip("spit.cards")
    assert [cards.format_card(card) for card in cards.full_deck(2)] == enroll.card_order(jokers=True)
    assert all(cards.parse_card(code) is not None for code in ORDER)


# ----- HALT on the USB reader, as the strict PN532 model does it ---------------------------------------------
def _halt_story_on_the_pty(list_uses_wupa):
    with PN532HsuEmulator(list_uses_wupa=list_uses_wupa) as emu:
        pn532 = PN532_UART(serial.Serial(emu.port, 115200, timeout=0.1))
        pn532.SAM_configuration()
        old = emu.place_tag(NtagTag("04A1B2C3D4E5F7"))
        seen = [bytes(pn532.read_passive_target(timeout=0.5)).hex()]
        pn532.call_function(0x52, params=[0x00], response_length=1)      # InRelease: HLTA
        emu.place_tag(NtagTag("04A1B2C3D4E5F6"))                        # lands on top
        for _ in range(2):
            uid = pn532.read_passive_target(timeout=0.2)
            seen.append(uid and bytes(uid).hex())
            pn532.call_function(0x52, params=[0x00], response_length=1)
        pn532.call_function(0x32, params=[0x01, 0x00], response_length=0)   # RF field off
        uid = pn532.read_passive_target(timeout=0.5)
        seen.append(uid and bytes(uid).hex())
        emu.remove_tag(old)
        return seen


def _halt_story_on_the_board_emulator(list_uses_wupa):
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin
    from host_tools.vboard.pn532_emulator import PN532Emulator

    Pin.reset_registry()
    clock = VirtualClock(0)
    board = install(clock)
    try:
        import machine
        from drivers.pn532_spi import PN532_SPI
        from drivers import pn532 as _pn532, pn532_blocking
        pn532_blocking.add_to(_pn532.PN532)   # (set_field, halt ...: not installed on the board)
        em = board.add_device(PN532Emulator(clock, list_uses_wupa=list_uses_wupa))
        spi = machine.SPI(0)
        cs = machine.Pin(17, machine.Pin.OUT, value=1)
        em.attach_spi(spi, cs)
        driver = PN532_SPI(spi, cs)
        driver.setup(passive_retries=3)
        buf = bytearray(10)

        def listed():
            n = driver.read_uid(buf)
            return bytes(buf[:n]).hex() if n else None

        em.place_tag(bytes.fromhex("04A1B2C3D4E5F7"))
        seen = [listed()]
        driver.halt()
        em.place_tag(bytes.fromhex("04A1B2C3D4E5F6"))
        for _ in range(2):
            seen.append(listed())
            driver.halt()
        driver.set_field(False)
        seen.append(listed())
        return seen
    finally:
        board.uninstall()


@pytest.mark.parametrize("list_uses_wupa", [False, True])
def test_pty_emulator_models_halt_like_the_board_emulator(list_uses_wupa):
    pty = _halt_story_on_the_pty(list_uses_wupa)
    assert pty == _halt_story_on_the_board_emulator(list_uses_wupa)
    if list_uses_wupa:   # halted tags answer again: the higher UID keeps winning
        assert pty == ["04a1b2c3d4e5f7"] * 4
    else:                # halted: silent until the field is reset
        assert pty == ["04a1b2c3d4e5f7", "04a1b2c3d4e5f6", None, "04a1b2c3d4e5f7"]
