"""libnfc as a second, independent PN532 client (issue 26 item 3).

libnfc 1.8.0's tools (Debian libnfc-bin, libnfc-examples, libnfc-pn53x-examples; .ci/run installs
them) drive the pty emulator of ``spit enroll`` (tests/fakes/pn532_hsu_emulator.py, the strict
model) through ``LIBNFC_DEVICE=pn532_uart:<pty>``, with an NTAG213 placed, and must give the
answers a real PN532 and NTAG213 give: UID, ATQA 00 44, SAK 00, 45 pages, the anticollision
frames of ISO 14443-3, and the chip's self-tests.  Under every option combination of the model's
covering set.  Skipped, saying so, where libnfc is not installed.
"""

import os
import select
import shutil
import subprocess
import time

import pytest

from host_tools.vboard.ntag21x_tag import NtagTag
from fakes.pn532_hsu_emulator import PN532HsuEmulator
from host_tools.vboard.pn532_options import combinations, label

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


TOOLS = ("nfc-list", "nfc-poll", "nfc-mfultralight", "nfc-anticol", "pn53x-diagnose")
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason="libnfc tools not installed (%s): apt-get install libnfc-bin libnfc-examples "
    "libnfc-pn53x-examples" % ", ".join(MISSING))

UID = "04A1B2C3D4E5F6"
SPACED = "04  a1  b2  c3  d4  e5  f6"


def _env(emu):
    env = dict(os.environ, LIBNFC_DEVICE="pn532_uart:%s" % emu.port, LIBNFC_AUTO_SCAN="false",
               LIBNFC_INTRUSIVE_SCAN="false", LIBNFC_LOG_LEVEL="1")
    return env


def _run(emu, *argv, timeout=60):
    result = subprocess.run(list(argv), env=_env(emu), capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(params=combinations(), ids=label)
def emu(request):
    with PN532HsuEmulator(**request.param) as emulator:
        emulator.ntag = emulator.place_tag(NtagTag(UID))
        yield emulator


def test_pn53x_diagnose(emu):
    out = _run(emu, "pn53x-diagnose")
    for line in ("Communication line test: OK", "ROM test: OK", "RAM test: OK"):
        assert line in out
    assert any(command == 0x00 and params == b"\x00libnfc" for command, params in emu.log)


def test_nfc_list_verbose(emu):
    out = _run(emu, "nfc-list", "-v")
    assert "1 ISO14443A passive target(s) found" in out
    assert "ATQA (SENS_RES): 00  44" in out
    assert "UID (NFCID1): %s" % SPACED in out
    assert "SAK (SEL_RES): 00" in out
    for kind in ("Felica (212 kbps)", "Felica (424 kbps)", "ISO14443B", "ISO14443A-3 Jewel"):
        assert "0 %s passive target(s) found" % kind in out


def test_nfc_anticol(emu):
    out = _run(emu, "nfc-anticol")
    assert "UID: %s" % UID.lower() in out and "ATQA: 0044" in out and "SAK: 00" in out
    # ISO 14443-3 as libnfc frames it: REQA, CL1 with the cascade tag and BCC, SELECT + CRC_A ...
    assert "Received bits: 44  00" in out
    assert "Received bits: 88  04  a1  b2  9f" in out
    assert "Sent bits:     93  70  88  04  a1  b2  9f  ae  4b" in out
    assert "Sent bits:     50  00  57  cd" in out


def test_nfc_mfultralight_reads_all_45_pages(emu, tmp_path):
    dump = tmp_path / "ntag213.mfd"
    out = _run(emu, "nfc-mfultralight", "r", str(dump))
    assert "NTAG213" in out and "45 of 45 pages read (0 pages failed)" in out
    assert dump.read_bytes() == bytes(emu.ntag.memory)


def test_nfc_poll_finds_the_tag_and_sees_it_leave(emu):
    proc = subprocess.Popen(["nfc-poll"], env=_env(emu), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = b""
    try:
        end = time.monotonic() + 30
        while b"Waiting for card removing" not in out and time.monotonic() < end:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                out += chunk
        assert b"Waiting for card removing" in out, out
        emu.remove_tag()
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = (out + rest).decode()
    assert proc.returncode == 0, text + err.decode()
    assert "ATQA (SENS_RES): 00  44" in text and "UID (NFCID1): %s" % SPACED in text
    assert "SAK (SEL_RES): 00" in text
    assert "done." in text
