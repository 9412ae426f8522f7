"""The firmware's native code (viper) holds no word that reads as an address in the RP2040's SRAM.

MicroPython loads a .mpy's machine code into the heap, and its collector scans every heap block
conservatively: any aligned word equal to an address inside a block in use keeps that block (and
all it points to) alive.  Thumb code makes such words easily: ``movs r0, #0..3`` in the upper
half of a word reads as 0x2000xxxx-0x2003xxxx, the RP2040's SRAM, where the heap is.  On the
emulated Pico ``while i < n`` in drivers/byteloops.py compiled to the word 0x2001e000, which kept
a function of ``referee.boardfile`` (a module dropped after boot) at that address alive, and the
module with it: 4.4 KB of heap held for good (bench/heap_holders.py).

The check compiles each native module as `spit flash` does and looks at every byte offset of the
.mpy (the code's offset in the file says nothing about its alignment once loaded), so it errs on
the side of a false alarm.
"""

import os
import re

import pytest

from host_tools.device import flash
from host_tools.device import manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")
_NATIVE = re.compile(r"^@micropython\.(viper|native|asm_thumb)\b", re.M)
SRAM = (0x20000000, 0x20042000)


def native_modules():
    found = []
    for rel in manifest.collect_firmware(FIRMWARE):
        if rel.endswith(".py"):
            with open(os.path.join(FIRMWARE, rel), encoding="utf-8") as f:
                if _NATIVE.search(f.read()):
                    found.append(rel)
    return found


def sram_words(data):
    """``(offset, value)`` of each 4 bytes (little-endian, any offset) that read as an SRAM address."""
    return [(i, int.from_bytes(data[i:i + 4], "little")) for i in range(len(data) - 3)
            if SRAM[0] <= int.from_bytes(data[i:i + 4], "little") < SRAM[1]]


def test_the_firmware_has_native_code_to_check():
    assert "drivers/byteloops.py" in native_modules()


@pytest.mark.parametrize("rel", native_modules())
def test_native_code_holds_no_sram_address(rel, tmp_path):
    try:
        flash.mpy_cross_command()
    except flash.FlashError as e:
        pytest.skip(str(e))
    out = flash.build(FIRMWARE, str(tmp_path), [(rel, rel[:-3] + ".mpy", True)],
                      flash.Progress(open(os.devnull, "w")))
    with open(out[0][0], "rb") as f:
        words = sram_words(f.read())
    assert words == [], "%s: words the heap's collector would take for pointers: %s" % (
        rel, ", ".join("%#010x at byte %d" % (v, i) for i, v in words))


def test_the_check_finds_the_pattern_that_held_the_heap():
    # ``b.n`` then ``movs r0, #1`` (the old ``while i < n``): 0x2001e000.
    assert sram_words(bytes.fromhex("00e00120")) == [(0, 0x2001E000)]
    assert sram_words(bytes.fromhex("00e00121")) == []   # movs r1, #1: 0x2101e000, not SRAM
