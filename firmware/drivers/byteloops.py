"""The reader drivers' per-byte loops, in viper: a Python loop costs ~10 us per byte on the
RP2040, these ~0.2 us.  No bounds checks: callers keep ``n`` within both buffers.

Native code loads only on the CPU it was compiled for (``mpy-cross -march=armv6m``), so the
importers fall back to ``drivers/byteloops_py.py`` (the same loops in plain Python) when this
module raises ValueError (a unix-port development board).  Host tests run these functions as
plain Python (host_tools/vboard: ``micropython.viper`` and the ``ptr8`` cast are no-ops).
"""

import micropython


@micropython.viper
def reverse_into(dst, start: int, src, n: int) -> int:
    """``dst[start + i]`` = ``src[i]`` with its bit order reversed (LSB-first <-> MSB-first,
    the SPI transport's), for ``i < n``; returns the sum of the bytes stored."""
    d = ptr8(dst)
    s = ptr8(src)
    total = 0
    i = 0
    while i < n:   # (a while loop compiles to less native code than range() here)
        b = s[i]
        b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)   # swap the nibbles, then the bit pairs,
        b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)   # then the bits of each pair
        b = ((b & 0xAA) >> 1) | ((b & 0x55) << 1)
        d[start + i] = b
        total += b
        i += 1
    return total


@micropython.viper
def copy_into(dst, start: int, src, src_start: int, n: int) -> int:
    """``dst[start:start + n] = src[src_start:src_start + n]``; returns ``n`` + the sum of
    the bytes (the UID slots' checksum)."""
    d = ptr8(dst)
    s = ptr8(src)
    total = n
    i = 0
    while i < n:
        b = s[src_start + i]
        d[start + i] = b
        total += b
        i += 1
    return total
