"""bench/heap_holders.py reads a RAM dump as MicroPython's collector does: blocks from the allocation
table, roots outside the heap, a word equal to an address inside a block in use keeps it (a synthetic
dump: no emulator needed)."""

import os
import struct

from bench import heap_holders as hh

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ATB = hh.RAM + 0x100
BLOCKS = 16
POOL = hh.RAM + 0x200
FUN_TYPE = 0x10001000   # a built-in type's address (in flash)


def dump_of(allocs, words, size=0x1000):
    """``allocs``: (first block, blocks); ``words``: {address: value}."""
    ram = bytearray(size)
    table = bytearray((BLOCKS + 3) // 4)
    for first, n in allocs:
        for i in range(first, first + n):
            kind = 1 if i == first else 2   # head, tail
            table[i >> 2] |= kind << ((i & 3) * 2)
    ram[ATB - hh.RAM: ATB - hh.RAM + len(table)] = table
    for addr, value in words.items():
        struct.pack_into("<I", ram, addr - hh.RAM, value)
    return hh.HeapDump(bytes(ram), ATB, BLOCKS, POOL)


def block(i):
    return POOL + i * hh.BLOCK


def test_a_root_keeps_a_chain_and_the_rest_is_garbage():
    d = dump_of([(0, 2), (4, 1), (6, 3)], {
        hh.RAM + 0x10: block(0),          # static data -> block 0
        block(1) + 4: block(4) + 8,       # a word in block 0's tail -> inside block 4
    })
    assert d.allocs == {0: 2, 4: 1, 6: 3}
    assert d.in_use() == 6 * hh.BLOCK
    live = d.mark()
    assert set(live) == {0, 4} and live[4] == hh.RAM + 0x10   # block 6: garbage


def test_a_stack_word_is_named_only_when_no_static_word_reaches_the_block():
    stack_word = hh._STACKS + 0x40
    d = dump_of([(0, 1), (2, 1)], {stack_word: block(0), hh.RAM + 0x20: block(2), block(2): block(0)},
                size=0x42000)
    live = d.mark()
    assert live[0] == hh.RAM + 0x20 and live[2] == hh.RAM + 0x20
    assert hh.region(stack_word, (d.pool, d.end)).startswith("scratch")


def test_one_root_word_keeps_all_behind_it_and_without_it_all_is_garbage():
    # (On the chip a word of viper code, 0x2001e000, was such a root.)
    d = dump_of([(0, 1), (4, 1), (5, 1)], {}, size=0x1000)
    d2 = dump_of([(0, 1), (4, 1), (5, 1)], {hh.RAM + 0x30: block(0), block(0) + 4: block(4),
                                            block(4): FUN_TYPE, block(4) + 4: block(5)})
    assert set(d.mark()) == set()
    assert set(d2.mark()) == {0, 4, 5}
    assert d2.kind(4, {FUN_TYPE: "function"}) == "function"
