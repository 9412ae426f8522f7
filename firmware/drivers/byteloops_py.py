"""``drivers/byteloops.py`` in plain Python, for boards that cannot load its native code
(the unix-port development board).  Same functions, same results."""


def reverse_into(dst, start, src, n, table):
    total = 0
    for i in range(n):
        b = table[src[i]]
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
