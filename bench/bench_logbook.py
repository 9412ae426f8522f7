"""Session log store: flush sizes and counts per simulated game, and the cost of append.

    .venv/bin/python -m bench.bench_logbook
    .venv/bin/micropython bench/bench_logbook.py

A simulated game is 400 log lines (events and verdicts, 40-80 bytes each) with a pause (spit
call / round end, where the firmware calls flush) every 25-35 lines.  The file system is an
in-memory counter, so the times are the RAM path only: what the referee loop pays per line.
Flash time on the device is per flush (write + littlefs sync, interrupts masked), which is why
the number of flushes, and forced flushes in the middle of play, is what matters.
Prints a table; never asserts on timings.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import sys

from referee.logbook import Logbook

try:
    from time import ticks_us, ticks_diff

    def now_us():
        return ticks_us()

    def elapsed_us(t0, t1):
        return ticks_diff(t1, t0)
    CLOCK = "time.ticks_us"
except ImportError:
    from time import perf_counter

    def now_us():
        return perf_counter() * 1e6

    def elapsed_us(t0, t1):
        return t1 - t0
    CLOCK = "time.perf_counter"

N_LINES = 400
RP2040_FACTOR = 80          # docs/FACTS: plain Python ~80x slower on the RP2040 than here
CARDS = ("AH", "7C", "10D", "QS", "KH", "2D", "JC", "9S")


class NullFile:
    def __init__(self, fs):
        self.fs = fs

    def write(self, data):
        self.fs.sizes.append(len(data))
        return len(data)

    def flush(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class NullFs:
    """Counts write sizes; stores nothing."""

    def __init__(self):
        self.sizes = []

    def open(self, path, mode):
        if "r" in mode:
            raise OSError(2)   # (ENOENT: no file to read, pulled.txt included)
        return NullFile(self)

    def listdir(self, path):
        return []

    def remove(self, path):
        pass

    def stat(self, path):
        return (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    def mkdir(self, path):
        pass


def game_lines(seed=12345):
    """(line, pause_after) for a 400-line game; deterministic on both ports."""
    x = seed
    out = []
    t = 2000000
    next_pause = 30
    for i in range(N_LINES):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        t += 50000 + x % 400000
        pile = x & 1
        card = CARDS[(x >> 3) % len(CARDS)]
        kind = (x >> 7) % 4
        if kind == 0:
            line = '{"t": %d, "ev": "touch", "pile": %d}' % (t, pile)
        elif kind == 1:
            line = '{"t": %d, "ev": "card", "pile": %d, "card": "%s"}' % (t, pile, card)
        elif kind == 2:
            line = '{"t": %d, "verdict": "accept", "pile": %d, "card": "%s", "player": %d}' % (
                t, pile, card, pile)
        else:
            line = '{"t": %d, "ev": "card", "pile": %d, "card": "%s", "uid": "04A1B2C3D4E5F6"}' % (
                t, pile, card)
        pause = i + 1 >= next_pause
        if pause:
            next_pause += 25 + (x >> 11) % 11
        out.append((line, pause))
    return out


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def run(buffer_bytes, lines):
    fs = NullFs()
    book = Logbook("logs", buffer_bytes=buffer_bytes, fs=fs)
    book.start('{"spitlog": 1, "ruleset": "classic", "counts": [26, 26]}')
    del fs.sizes[:]
    times = []
    for line, pause in lines:
        t0 = now_us()
        book.append(line)
        t1 = now_us()
        times.append(elapsed_us(t0, t1))
        if pause:
            book.flush()
    book.close()
    sizes = fs.sizes
    return {
        "buffer": buffer_bytes,
        "flushes": len(sizes),
        "forced": book.forced_flushes,
        "mean": sum(sizes) // len(sizes) if sizes else 0,
        "max": max(sizes) if sizes else 0,
        "total": sum(sizes),
        "append_us": median(times),
        "append_max": max(times),
    }


def pure_append_us(lines, reps=5):
    """Mean time of one append with no flush at all (a buffer that holds the whole game),
    timed per batch of 400 so the clock resolution does not matter; median of ``reps``."""
    fs = NullFs()
    means = []
    book = Logbook("logs", buffer_bytes=64 * 1024, fs=fs)
    strs = [s for s, _ in lines]
    for _ in range(reps):
        book.start("{}")
        t0 = now_us()
        for line in strs:
            book.append(line)
        t1 = now_us()
        means.append(elapsed_us(t0, t1) / len(strs))
        book.close()
    return median(means)


def main():
    lines = game_lines()
    pauses = sum(1 for _, p in lines if p)
    avg_line = sum(len(s) + 1 for s, _ in lines) // len(lines)
    print("Logbook: %d lines/game (avg %d B incl. newline), %d pauses; %s on %s" % (
        len(lines), avg_line, pauses, CLOCK, sys.implementation.name))
    print("%7s %8s %7s %9s %8s %8s %11s %10s %12s" % (
        "buffer", "flushes", "forced", "B/flush", "max B", "total", "append us", "max us",
        "RP2040 est"))
    for size in (512, 1024, 2048, 4096, 8192):
        run(size, lines)                       # warm up
        r = run(size, lines)
        print("%7d %8d %7d %9d %8d %8d %11s %10s %12s" % (
            r["buffer"], r["flushes"], r["forced"], r["mean"], r["max"], r["total"],
            _fmt(r["append_us"]), _fmt(r["append_max"]),
            _fmt(r["append_us"] * RP2040_FACTOR)))
    pure = pure_append_us(lines)
    print("pure append (no flush), mean of 400, median of 5 games: %.2f us; RP2040 est %.0f us" % (
        pure, pure * RP2040_FACTOR))
    print("flushes = writes per game (pauses + forced); forced = buffer full in the middle of play")
    print("append us = median per call (clock resolution 1 us on micropython); max us includes"
          " forced flushes and gc")
    print("RP2040 est = append x%d (RAM path only; flash time is per flush)" % RP2040_FACTOR)


def _fmt(us):
    return "%.1f" % us


if __name__ == "__main__":
    main()
