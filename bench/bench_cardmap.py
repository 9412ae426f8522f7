"""The card map's lookup (``spit.cardmap``: one per card read) on the emulated RP2040, and its size.

    .venv/bin/python -m bench.bench_cardmap            # about 1 min: boots the flashed referee

The script below runs on the chip by `mpremote run` (host_tools/rp2emu/board.py ``run_script``,
the firmware's modules from the flashed board): a map of two 52-card decks with 7-byte UIDs (packed
on the PC as ``spit flash --cards`` packs it, loaded as the boot loads ``cards.bin``), then
100 lookups each of the first and last card entered, one in the middle and an unknown tag, as the
firmware calls it (a memoryview of the read UID), and the heap allocated by 104 lookups.
Under CPython it runs the same way: ``python -m bench.bench_cardmap --here``.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import os
import sys

CHIP_SCRIPT = r'''
import gc
try:
    from time import ticks_us, ticks_diff
except ImportError:
    from time import perf_counter
    def ticks_us():
        return int(perf_counter() * 1e6)
    def ticks_diff(a, b):
        return a - b
import os
from referee.boardfile import load_cards
f = open("bench_cards.bin", "wb")   # (the map as spit flash --cards writes it: PACKED, made on the PC)
f.write(PACKED)
f.close()
cm = load_cards("bench_cards.bin")
os.remove("bench_cards.bin")
uids = [memoryview(bytearray(bytes.fromhex(u))) for u in UIDS]
gc.collect()
for label, uid in (("first", uids[0]), ("middle", uids[52]), ("last", uids[-1]),
                   ("unknown", memoryview(bytearray(bytes.fromhex("04FFFFFF112280"))))):
    t0 = ticks_us()
    for _ in range(100):
        cm.lookup(uid, 7)
    print("lookup %s %.1f" % (label, ticks_diff(ticks_us(), t0) / 100))
a0 = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
for uid in uids:
    cm.lookup(uid, 7)
print("allocated %d" % ((gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0) - a0))
print("map_bytes %d" % (len(cm._uids) + len(cm._values) + len(cm._index)))
'''


def chip_script():
    """CHIP_SCRIPT after the map it looks up: two decks, packed here as spit flash packs cards.json."""
    from spit.cardfile import load_cardmap, pack
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    cards = {}
    for owner in (0, 1):
        for s in range(4):
            for r in range(13):
                cards["04%02X%02X%02X112280" % (owner, s, r)] = "%s%s@%d" % (ranks[r], "CDHS"[s], owner)
    packed = pack(load_cardmap({"cardmap": 1, "cards": cards}))
    return "PACKED = %r\nUIDS = %r\n%s" % (packed, list(cards), CHIP_SCRIPT)


def main(argv):
    if "--here" in argv:
        exec(chip_script(), {})
        return 0
    import tempfile
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.rp2emu.board import run_script
    why = why_unavailable()
    if why:
        print("bench_cardmap: %s" % why)
        return 0
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(chip_script())
    try:
        out = run_script(f.name, seconds=300)
    finally:
        os.unlink(f.name)
    print("card map on the emulated RP2040 (104 cards, 7-byte UIDs), us per lookup:")
    for line in out.splitlines():
        if line.startswith(("lookup ", "allocated ", "map_bytes ")):
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
