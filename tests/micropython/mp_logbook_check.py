"""Logbook on the MicroPython unix port (run from an empty temp dir; tests/firmware/test_logbook.py does):

    MICROPYPATH=.frozen:firmware:firmware/lib micropython tests/micropython/mp_logbook_check.py

1. write/flush/rotate/read with the real ``os`` and ``open`` of this port;
2. a torn tail left by a cut write is dropped on read;
3. allocation of ``append`` (gc disabled, ``gc.mem_alloc()`` deltas): appending a short line
   into the buffer must allocate no more than ``line.encode()`` alone does, i.e. the copy into
   the preallocated buffer (memoryview slice store + newline byte) allocates nothing.
Prints what it measured and ``mp_logbook_check: OK``; exits 1 on a failure.
"""

import gc
import json
import os
import sys

from referee.logbook import Logbook
from referee.logfiles import list_sessions
from referee.logread import read_log, iter_lines

HEADER = '{"spitlog": 1, "ruleset": "classic", "counts": [26, 26]}'
_fails = []


def check(cond, what):
    if not cond:
        _fails.append(what)
        print("FAIL", what)


def line(i):
    return '{"t": %d, "ev": "card", "pile": %d, "card": "7H"}' % (1000 * i, i % 2)


def file_lines(path):
    with open(path) as f:
        return [x.rstrip("\n") for x in f.read().split("\n") if x]


def test_write_flush_rotate_read():
    book = Logbook("logs", buffer_bytes=256, max_total_bytes=2000, max_files=3)
    p1 = book.start(HEADER)
    check(p1 == "logs/session-0001.spitlog", "first path " + p1)
    size0 = os.stat(p1)[6]
    want = [HEADER]
    for i in range(4):
        book.append(line(i))
        want.append(line(i))
    check(os.stat(p1)[6] == size0, "nothing written before flush")
    book.flush()
    check(file_lines(p1) == want, "flush writes the lines")
    for i in range(4, 40):                      # forced flushes: 256-byte buffer
        book.append(line(i))
        want.append(line(i))
    check(book.forced_flushes > 0, "forced flushes counted")
    book.close()
    lines, db, dl = read_log(p1)
    check(lines == want and db == 0 and dl == 0, "read back all lines")
    # more sessions: count and size rotation, numbering goes on across "reboots"
    for n in range(2, 6):
        book = Logbook("logs", buffer_bytes=256, max_total_bytes=2000, max_files=3)
        p = book.start(HEADER)
        check(p == "logs/session-%04d.spitlog" % n, "path " + p)
        for i in range(10):
            book.append(line(i))
        book.close()
        check(book.dropped_lines == 0 and book.last_error is None, "no errors")
    nums = [n for n, _ in list_sessions("logs")]
    check(nums == [3, 4, 5], "rotation kept %r" % nums)
    total = 0
    for _, p in list_sessions("logs"):
        total += os.stat(p)[6]
    check(total < 2000, "total under max_total_bytes")


def test_torn_tail():
    with open("logs/torn.spitlog", "wb") as f:
        f.write((HEADER + "\n" + line(1) + "\n").encode())
        f.write(line(2).encode()[:17])          # the cut
    it = iter_lines("logs/torn.spitlog")
    got = list(it)
    check(got == [HEADER, line(1)], "torn tail dropped")
    check(it.dropped_bytes == 17 and it.dropped_lines == 1, "torn tail reported")
    for s in got:
        json.loads(s)


def measure(fn, arg):
    gc.collect()
    gc.disable()
    try:
        a0 = gc.mem_alloc()
        fn(arg)
        return gc.mem_alloc() - a0
    finally:
        gc.enable()


def test_append_allocation():
    book = Logbook("logs", buffer_bytes=4096)
    book.start(HEADER)
    short = line(123)                                   # 49 chars, a typical event line
    longer = '{"t": 123456789, "verdict": "accept", "pile": 1, "card": "10D", "player": 1}'
    book.append(short)                                  # warm up (first-call interning)
    results = []
    for s in (short, longer, "x"):
        enc = []
        app = []
        for _ in range(5):
            enc.append(measure(str.encode, s))
            app.append(measure(book.append, s))
        enc.sort()
        app.sort()
        results.append((len(s), enc[2], app[2], app[-1]))
        check(app[-1] <= enc[2], "append(%d chars) allocates %d > encode %d" % (len(s), app[-1], enc[2]))
    book.flush()
    fl = []
    for _ in range(3):
        book.append(short)
        fl.append(measure(lambda _: book.flush(), None))
    book.close()
    print("append allocation (bytes, gc.mem_alloc delta with gc disabled, median of 5):")
    for n, enc, app, worst in results:
        print("  line %3d chars: str.encode() %3d, append %3d (worst %d)" % (n, enc, app, worst))
    print("  flush of one buffered line: %r bytes (memoryview slice + write + sync)" % fl)


def main():
    for t in (test_write_flush_rotate_read, test_torn_tail, test_append_allocation):
        try:
            t()
        except Exception as e:  # noqa: BLE001 - report and go on
            _fails.append(t.__name__)
            print("FAIL", t.__name__, type(e).__name__, e)
            sys.print_exception(e)
    if _fails:
        print("mp_logbook_check: %d FAILED" % len(_fails))
        sys.exit(1)
    print("mp_logbook_check: OK")


main()
