"""The reader drivers' per-byte loops, in viper: a Python loop costs ~10 us per byte on the
RP2040, these ~0.2 us.  No bounds checks: callers keep ``n`` within both buffers.

Native code loads only on the CPU it was compiled for (``mpy-cross -march=armv6m``), so the
importers fall back to ``drivers/byteloops_py.py`` (the same loops in plain Python) when this
module raises ValueError (a unix-port development board).  Host tests run these functions as
plain Python (host_tools/vboard: ``micropython.viper`` and the ``ptr8`` cast are no-ops).
"""

import micropython


@micropython.viper
def reverse_into(dst, start: int, src, n: int, table) -> int:
    """``dst[start + i] = table[src[i]]`` for ``i < n`` (the SPI bit reversal); returns the
    sum of the bytes stored."""
    d = ptr8(dst)
    s = ptr8(src)
    t = ptr8(table)
    total = 0
    for i in range(n):
        b = t[s[i]]
        d[start + i] = b
        total += b
    return total


@micropython.viper
def copy_into(dst, start: int, src, src_start: int, n: int) -> int:
    """``dst[start:start + n] = src[src_start:src_start + n]``; returns ``n`` + the sum of
    the bytes (the UID slots' checksum)."""
    d = ptr8(dst)
    s = ptr8(src)
    total = n
    for i in range(n):
        b = s[src_start + i]
        d[start + i] = b
        total += b
    return total
