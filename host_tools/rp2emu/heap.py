"""Where MicroPython keeps its heap's allocation table on the emulated chip, found by asking it.

The harness reads the heap in use straight from RAM (``Rp2Emulator.heap_probe``): no code on
the board, no cost to the firmware (``gc.mem_alloc()`` itself costs milliseconds on the chip).
``locate(firmware, bootrom)`` boots a bare chip once, reads ``micropython.mem_info(1)`` (the
pool's address and size) and ``gc.mem_alloc()``, and picks the table address whose count
matches; the result is cached per firmware image (the linker layout does not change).
"""

import hashlib
import json
import os
import re

from host_tools.rp2emu.emulator import REPO, EmulatorError, Rp2Emulator, find_images

_CACHE = os.path.join(REPO, "build", "rp2emu", "heap-layout.json")


def _ask(emu, out, code, mark):
    start = len(out)
    emu.serial_write(code.encode() + b"\r\n")
    for _ in range(100):
        emu.run_for_ms(50)
        text = bytes(out[start:]).decode(errors="replace")
        if mark in text and text.rstrip().endswith(">>>"):
            return text
    raise EmulatorError("no answer from the REPL to %r" % code)


def locate(firmware=None, bootrom=None):
    """``(atb_address, blocks)`` of the MicroPython heap for this firmware image."""
    return layout(firmware, bootrom)[:2]


def layout(firmware=None, bootrom=None):
    """``(atb_address, blocks, pool_address)``: the allocation table, the number of 16-byte
    blocks and where the first block is (cached per image, as ``locate``)."""
    firmware, bootrom = find_images(firmware, bootrom)
    with open(firmware, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    try:
        with open(_CACHE) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    if len(known.get(key, ())) == 3:
        return tuple(known[key])
    with Rp2Emulator(firmware, bootrom) as emu:
        out = bytearray()
        emu.on_serial = out.extend
        emu.run_for_ms(1500)
        text = _ask(emu, out, "import micropython, gc; micropython.mem_info(1)", "GC memory layout")
        total = int(re.search(r"GC: total: (\d+)", text).group(1))
        pool = int(re.search(r"GC memory layout; from ([0-9a-f]+)", text).group(1), 16)
        blocks = total // 16
        atb_len = blocks // 4
        ftb_len = (blocks + 7) // 8
        found = None
        for pad in range(0, 256, 2):
            # The table's count must equal gc.mem_alloc() with a 20 KB block in use.
            atb = pool - atb_len - ftb_len - pad
            emu.heap_probe(atb, blocks)
            text = _ask(emu, out, "x=bytearray(20000); print('ALLOC', gc.mem_alloc())", "ALLOC ")
            alloc = int(re.search(r"ALLOC (\d+)", text).group(1))
            probe = emu.heap()["now"]
            _ask(emu, out, "x=None; gc.collect()", "")
            if probe == alloc:
                found = atb
                break
        if found is None:
            raise EmulatorError("could not find MicroPython's allocation table below %#x" % pool)
    known[key] = [found, blocks, pool]
    os.makedirs(os.path.dirname(_CACHE), exist_ok=True)
    with open(_CACHE, "w") as f:
        json.dump(known, f)
    return found, blocks, pool
