"""What the firmware's heap holds on the emulated Pico, and what holds it.

    .venv/bin/python bench/heap_holders.py                       # classic, dumped at game start
    .venv/bin/python bench/heap_holders.py --at 3 --save a.ram   # 3 s into the session, RAM kept
    .venv/bin/python bench/heap_holders.py --load a.ram --against b.ram   # what b holds that a does not

The firmware boots as bench_rp2 boots it (`spit flash`, the bench board, reads of 5-10 ms); at
``--at`` seconds of session time the chip's SRAM is copied out (no code on the board).  The dump
is read the way MicroPython's collector reads it: the allocation table gives each block in use,
every word of RAM outside the heap and its tables is a root (the C stack, the interpreter's state: the real
collector scans the stack only above its pointer, so this over-counts what is live, never
under-counts), and a word equal to an address inside a block in use keeps that block.  Printed:
bytes in use, bytes live (reachable) and garbage; live bytes by kind (the object's type, named by
asking a bare chip for ``id()`` of the built-in types); and with ``--against``, the blocks live in
the second dump and not in the first, grouped by the root word that keeps them (its address, and
whether it lies in the stack or in the static data).
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import collections
import os
import struct
import sys
import tempfile

import host_tools.rp2emu  # noqa: F401  (the emulated Pico)

RAM = 0x20000000
BLOCK = 16
_STACKS = 0x20040000   # scratch X and Y: the cores' stacks (pico-sdk's default layout)
# Built-in types named by their id() on a bare chip (static objects in flash).
_TYPES = ("dict", "list", "tuple", "str", "bytes", "bytearray", "memoryview", "set", "int", "float",
          "type", "type(sys)", "type(len)", "type(lambda: 0)", "type((lambda: (yield))())",
          "type(''.join)", "type([].append)", "type(array.array('b'))", "type(iter([]))",
          "type(object())", "type(range(1))", "type(staticmethod(len))", "type(classmethod(len))",
          "type(Exception())", "type(ValueError())", "type(OSError())", "type(KeyError())",
          "type(io.BytesIO())", "type(open)", "type(machine.Pin(25))")


def type_names(firmware=None, bootrom=None):
    """``{address: name}`` of built-in types, from a bare chip's REPL."""
    from host_tools.rp2emu.emulator import Rp2Emulator, find_images
    from host_tools.rp2emu.heap import _ask
    firmware, bootrom = find_images(firmware, bootrom)
    names = {}
    with Rp2Emulator(firmware, bootrom) as emu:
        out = bytearray()
        emu.on_serial = out.extend
        emu.run_for_ms(1500)
        code = ("import sys, array, io, machine\nfor e in %r:\n try: print('ID', id(eval(e)), e)\n"
                " except Exception: pass\nprint('END')" % (_TYPES,))
        text = _ask(emu, out, "exec(%r)" % code, "END")
        for line in text.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[0] == "ID" and parts[1].isdigit():
                names.setdefault(int(parts[1]), parts[2].strip())
    return names


def dump_at(seconds, path, preset="classic", progress=None):
    """Boot the firmware as bench_rp2 does, run ``seconds`` of session time, write the SRAM."""
    from bench.rp2_bench_setup import READ_MS, bench_board, pn532_model
    from host_tools.rp2emu.board import FlashedPico
    from spit.rules import make_ruleset
    rules = make_ruleset(preset)
    pico = FlashedPico(bench_board(rules.piles), preset, {}, emulator=pn532_model(READ_MS),
                       progress=progress)
    try:
        pico.run_to(int(seconds * 1e6))
        pico.emu.save_ram(path)
    finally:
        pico.close()
    return path


class HeapDump:
    def __init__(self, ram, atb, blocks, pool):
        self.ram = ram
        self.atb = atb
        self.pool = pool
        self.end = pool + blocks * BLOCK
        table = ram[atb - RAM: atb - RAM + (blocks + 3) // 4]
        kinds = [(table[i >> 2] >> ((i & 3) * 2)) & 3 for i in range(blocks)]
        self.start_of = {}    # block index -> first block of its allocation
        self.allocs = {}      # first block -> number of blocks
        head = None
        for i, k in enumerate(kinds):
            if k == 1 or k == 3:   # head (marked or not)
                head = i
                self.allocs[i] = 1
                self.start_of[i] = i
            elif k == 2 and head is not None:
                self.allocs[head] += 1
                self.start_of[i] = head
            else:
                head = None
        self.words = struct.unpack("<%dI" % (len(ram) // 4), ram[: len(ram) // 4 * 4])

    def in_use(self):
        return sum(self.allocs.values()) * BLOCK

    def block_of(self, word):
        if self.pool <= word < self.end:
            return self.start_of.get((word - self.pool) // BLOCK)
        return None

    def first_word(self, b):
        return self.words[(self.pool + b * BLOCK - RAM) // 4]

    def _words_of(self, b):
        i = (self.pool + b * BLOCK - RAM) // 4
        return self.words[i: i + self.allocs[b] * BLOCK // 4]

    def roots(self):
        """``(address, block)`` for each word outside the heap (and its allocation tables, which
        the collector does not scan) that points into a block in use."""
        heap_lo = (self.atb - RAM) // 4
        heap_hi = (self.end - RAM) // 4
        for i, w in enumerate(self.words):
            if heap_lo <= i < heap_hi:
                continue
            b = self.block_of(w)
            if b is not None:
                yield RAM + i * 4, b

    def mark(self):
        """``{block: root address}``: every live block and the root word its chain starts at.
        Static data is marked first, the core stacks (scratch X/Y) after it: a block a stack
        word reaches is put down to the stack only when no static word reaches it."""
        live = {}
        roots = list(self.roots())
        for stacks in (False, True):
            pending = []
            for addr, b in roots:
                if (addr >= _STACKS) == stacks and b not in live:
                    live[b] = addr
                    pending.append(b)
            while pending:
                b = pending.pop()
                for w in self._words_of(b):
                    c = self.block_of(w)
                    if c is not None and c not in live:
                        live[c] = live[b]
                        pending.append(c)
        return live

    def kind(self, b, types):
        w = self.first_word(b)
        if w in types:
            return types[w]
        c = self.block_of(w)
        if c is not None and types.get(self.first_word(c)) == "type":
            return "instance of heap class @%#x" % (self.pool + c * BLOCK)
        if 0x10000000 <= w < 0x11000000:
            return "object, type @%#x" % w
        return "raw (no type word)"


def region(addr, layout_hint):
    """Where a root word lies, as far as a dump can tell."""
    heap_lo, heap_hi = layout_hint
    if addr >= _STACKS:
        return "scratch X/Y (core stacks)"
    if addr < heap_lo:
        return "static data below the heap"
    if addr >= heap_hi:
        return "above the heap (stack or static data)"
    return "heap"


def load(path, atb, blocks, pool):
    with open(path, "rb") as f:
        return HeapDump(f.read(), atb, blocks, pool)


def summary(dump, types, label):
    live = dump.mark()
    live_bytes = sum(dump.allocs[b] for b in live) * BLOCK
    print("%s: heap in use %d B, live %d B, garbage %d B, %d allocations"
          % (label, dump.in_use(), live_bytes, dump.in_use() - live_bytes, len(dump.allocs)))
    by_kind = collections.Counter()
    for b in live:
        by_kind[dump.kind(b, types)] += dump.allocs[b] * BLOCK
    for k, n in by_kind.most_common(12):
        print("   %7d B  %s" % (n, k))
    return live


def compare(a, b, types, live_a, live_b):
    """Live blocks of ``b`` with no block of the same size and first word live in ``a``."""
    have = collections.Counter((a.allocs[x], a.first_word(x)) for x in live_a)
    extra = []
    for x in sorted(live_b):
        key = (b.allocs[x], b.first_word(x))
        if have[key]:
            have[key] -= 1
        else:
            extra.append(x)
    by_root = collections.defaultdict(list)
    for x in extra:
        by_root[live_b[x]].append(x)
    hint = (b.pool, b.end)
    total = sum(b.allocs[x] for x in extra) * BLOCK
    print("live in the second dump, not in the first: %d B in %d allocations" % (total, len(extra)))
    for root, xs in sorted(by_root.items(), key=lambda kv: -sum(b.allocs[x] for x in kv[1])):
        n = sum(b.allocs[x] for x in xs) * BLOCK
        print("  root word @%#x (%s) = %#x keeps %d B:" % (root, region(root, hint),
                                                          b.words[(root - RAM) // 4], n))
        kinds = collections.Counter(b.kind(x, types) for x in xs)
        for k, c in kinds.most_common(6):
            print("      %3d x %s" % (c, k))
        strings = [s for x in xs for s in printable(b, x)][:8]
        if strings:
            print("      text inside: %s" % ", ".join(repr(s) for s in strings))


def printable(dump, b, least=5):
    data = dump.ram[dump.pool - RAM + b * BLOCK: dump.pool - RAM + (b + dump.allocs[b]) * BLOCK]
    run = bytearray()
    for ch in data + b"\0":
        if 32 <= ch < 127:
            run.append(ch)
        else:
            if len(run) >= least:
                yield run.decode()
            run = bytearray()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--at", type=float, default=0.0, help="session seconds before the dump (default 0)")
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--save", help="keep the RAM dump in this file")
    ap.add_argument("--load", help="analyse this dump instead of booting a chip")
    ap.add_argument("--against", help="a second dump: what it holds live that the first does not")
    args = ap.parse_args(argv)
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.rp2emu.heap import layout
    reason = why_unavailable()
    if reason:
        sys.exit("heap_holders: %s" % reason)
    atb, blocks, pool = layout()
    path = args.load
    if path is None:
        path = args.save or os.path.join(tempfile.mkdtemp(prefix="spit-heap-"), "ram.bin")
        print("booting the firmware on the emulated Pico, %s, dump at %.1f s ..." % (args.preset, args.at),
              file=sys.stderr)
        dump_at(args.at, path, args.preset, progress=lambda s: print(s, file=sys.stderr))
    types = type_names()
    first = load(path, atb, blocks, pool)
    live_first = summary(first, types, path)
    if args.against:
        second = load(args.against, atb, blocks, pool)
        live_second = summary(second, types, args.against)
        compare(first, second, types, live_first, live_second)


if __name__ == "__main__":
    main()
