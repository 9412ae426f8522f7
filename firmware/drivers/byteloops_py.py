"""``drivers/byteloops.py`` in plain Python, for boards that cannot load its native code
(the unix-port development board).  Same functions, same results."""


def reverse_into(dst, start, src, n):
    total = n
    for i in range(n):
        b = src[i]
        b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)
        b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)
        b = ((b & 0xAA) >> 1) | ((b & 0x55) << 1)
        dst[start + i] = b
        total += b
    return total


def copy_into(dst, start, src, src_start, n):
    total = n
    for i in range(n):
        b = src[src_start + i]
        dst[start + i] = b
        total += b
    return total
