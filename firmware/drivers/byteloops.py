"""The reader drivers' per-byte loops, in viper: a Python loop costs ~10 us per byte on the
RP2040, these ~0.2 us.  No bounds checks: callers keep ``n`` within both buffers.

Native code loads only on the CPU it was compiled for (``mpy-cross -march=armv6m``), so the
importers fall back to ``drivers/byteloops_py.py`` (the same loops in plain Python) when this
module raises ValueError (a unix-port development board).  Host tests run these functions as
plain Python (host_tools/vboard: ``micropython.viper`` and the ``ptr8`` cast are no-ops).
"""

import micropython


# Both loops count down with ``while n`` (no compare), so that no word of their machine code
# reads as an address in the RP2040's SRAM.  The collector scans this code, which lives on the
# heap, as it scans every block: a word such as 0x2001e000 (``b.n`` then ``movs r0, #1``, as
# ``while i < n`` compiled) kept whatever object sat at that address alive for good, and once
# that was a function of a module dropped after boot, with the whole module behind it (4.4 KB
# on the emulated Pico: bench/heap_holders.py found it).  tests/guards/test_native_code.py checks
# the compiled code.  The copies run from the last byte down: the ranges must not overlap.


@micropython.viper
def reverse_into(dst, start: int, src, n: int) -> int:
    """``dst[start + i]`` = ``src[i]`` with its bit order reversed (LSB-first <-> MSB-first,
    the SPI transport's), for ``i < n``; returns ``n`` + the sum of the bytes stored (as
    ``copy_into``)."""
    d = ptr8(dst)
    s = ptr8(src)
    total = n
    while n:
        n -= 1
        b = s[n]
        b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)   # swap the nibbles, then the bit pairs,
        b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)   # then the bits of each pair
        b = ((b & 0xAA) >> 1) | ((b & 0x55) << 1)
        d[start + n] = b
        total += b
    return total


@micropython.viper
def copy_into(dst, start: int, src, src_start: int, n: int) -> int:
    """``dst[start:start + n] = src[src_start:src_start + n]``; returns ``n`` + the sum of
    the bytes (the UID slots' checksum)."""
    d = ptr8(dst)
    s = ptr8(src)
    total = n
    while n:
        n -= 1
        b = s[src_start + n]
        d[start + n] = b
        total += b
    return total
