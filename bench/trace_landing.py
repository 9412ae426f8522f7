"""Where a landing's read -> LED time goes on the emulated Pico: stage markers, from the pins.

    .venv/bin/python bench/trace_landing.py                      # classic, 25 s of play
    .venv/bin/python bench/trace_landing.py --preset speed --seconds 20 --marks my_marks.json

A copy of the repository's firmware (in build/trace/, never the firmware itself) gets one line
before (or after) each marked source line that sets GPIO 9-13 to the marker's id (1-31) with a
single ``machine.mem32`` store to SIO GPIO_OUT_SET and clears them with the next (about 5 us a
marker on the chip).  That copy is flashed and played as ``bench_rp2`` plays (bots through the
pins, PN532 reads of 5-10 ms); the emulator reports the pins' edges in emulated time.  For every
listing reply (the reader IRQ line's falling edge before a reply frame was read) the table gives
each marker's first time after that edge, up to the next LED frame: the median and the 10th and
90th percentiles over the game's replies.  A table, not a test: the markers add their own time.

``--marks`` is a JSON list of ``[file under firmware/, regex matching one line, id, "before" or
"after", optional index among several matches]``; the default (``DEFAULT_MARKS``) follows the
landing path of referee/loop.py.  Marker ``ANCHOR`` must be the listing reply's frame read: a
reply is an IRQ edge that one follows.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import bisect
import json
import os
import re
import shutil
import statistics
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANCHOR = 20
DEFAULT_MARKS = [
    ["referee/loop.py", r"^    self\.step_us = time\.ticks_us\(\)", 1, "before"],
    ["referee/loop.py", r"^        self\.readers\[first\]\.service\(self\.step_us\)", 2, "before"],
    ["drivers/nfc_reader.py", r"^        buf = _LISTED", 3, "before"],
    ["drivers/nfc_reader.py", r"n = pn\.finish_list\(buf\)", ANCHOR, "after"],
    ["drivers/nfc_reader.py", r"^        if self\.on_card is not None:", 4, "before"],
    ["referee/loop.py", r"^    clock\.convert\(ticks\)", 5, "before"],
    ["referee/loop.py", r"^        self\.referee\.feed\(_EV_CARD", 6, "before"],
    ["referee/loop.py", r"^    if self\._shown is self\.intents and self\.leds is not None:", 7, "before"],
    ["drivers/led_strip.py", r"^        dirty = self\._force", 8, "before"],
]
_SET = "_TM[0xd0000014] = %d; _TM[0xd0000018] = 0x3E00"   # GPIO_OUT_SET, then GPIO_OUT_CLR of 9-13
_IMPORT = "try:\n    from machine import mem32 as _TM\nexcept ImportError:   # (the PC's import of the engine)\n    _TM = {}\n"


def instrument(firmware, marks):
    """Insert the markers into the copy ``firmware``; returns {id: label}."""
    labels = {}
    for mark in marks:
        rel, rx, mid, where = mark[:4]
        if not 1 <= mid <= 31:
            raise SystemExit("trace_landing: marker id %r: 1..31 (five GPIOs)" % mid)
        path = os.path.join(firmware, rel)
        with open(path) as f:
            lines = f.read().split("\n")
        hits = [i for i, line in enumerate(lines) if re.search(rx, line)]
        if len(mark) > 4 and len(hits) > mark[4]:
            hits = [hits[mark[4]]]
        if len(hits) != 1:
            raise SystemExit("trace_landing: %s: %r matches %d lines, not one" % (rel, rx, len(hits)))
        i = hits[0]
        indent = re.match(r"\s*", lines[i]).group(0)
        if where == "after":
            if lines[i].rstrip().endswith(":"):
                indent = re.match(r"\s*", lines[i + 1]).group(0)
            i += 1
        lines.insert(i, indent + _SET % (mid << 9))
        text = "\n".join(lines)
        if "mem32 as _TM" not in text:
            first = re.search(r"^(import |from |try:)", text, re.M)
            text = text[:first.start()] + _IMPORT + text[first.start():]
        with open(path, "w") as f:
            f.write(text)
        labels[mid] = "%s %s %s" % (rel, where, rx)
    main = os.path.join(firmware, "main.py")
    with open(main) as f:
        text = f.read()
    with open(main, "w") as f:
        f.write("from machine import Pin as _P\nfor _n in range(9, 14):\n    _P(_n, _P.OUT, value=0)\n" + text)
    return labels


def copy_repo(dest):
    """The parts bench_rp2 needs, with the firmware copied (to be instrumented)."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for name in ("firmware", "boards", "bench", "host_tools"):
        shutil.copytree(os.path.join(REPO, name), os.path.join(dest, name),
                        ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    modules = os.path.join(REPO, "host_tools", "rp2emu", "node_modules")
    if os.path.isdir(modules):
        os.symlink(modules, os.path.join(dest, "host_tools", "rp2emu", "node_modules"))


def stage_table(marks, replies, frames):
    per, totals = {}, []
    times = [t for t, _ in marks]
    for r in replies:
        k = bisect.bisect_left(frames, r)
        if k == len(frames) or frames[k] - r > 8000:
            continue
        totals.append(frames[k] - r)
        seen = set()
        i = bisect.bisect_left(times, r)
        while i < len(marks) and marks[i][0] <= frames[k]:
            t, mid = marks[i]
            if mid not in seen:
                seen.add(mid)
                per.setdefault(mid, []).append(t - r)
            i += 1
    return per, totals


def marks_between(events, t0, start, end):
    """The stage marks of ``events`` ((us, marker) sorted by time) from ``start`` to ``end``,
    as "marker@ms after t0" words."""
    i = bisect.bisect_left(events, (start, -1))
    shown = []
    while i < len(events) and events[i][0] <= end:
        shown.append("%d@%.2f" % (events[i][1], (events[i][0] - t0) / 1000.0))
        i += 1
    return " ".join(shown)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--seconds", type=float, default=25)
    ap.add_argument("--marks", help="JSON file of markers (default: the landing path)")
    ap.add_argument("--timeline", type=int, default=0, metavar="N",
                    help="also list every marker (id@ms) from each of the N slowest landings to its LED frame")
    args = ap.parse_args(argv)
    marks = DEFAULT_MARKS
    if args.marks:
        with open(args.marks) as f:
            marks = json.load(f)
    if not any(m[2] == ANCHOR for m in marks):
        raise SystemExit("trace_landing: marker %d (the listing reply's frame read) is needed" % ANCHOR)
    shared = os.path.join(os.path.dirname(REPO), "shared", "rp2")
    os.environ.setdefault("SPIT_RP2_FIRMWARE", os.path.join(shared, "RPI_PICO-v1.26.1.uf2"))
    os.environ.setdefault("SPIT_RP2_BOOTROM", os.path.join(shared, "rp2040-bootrom-b1.bin"))
    dest = os.path.join(REPO, "build", "trace")
    copy_repo(dest)
    labels = instrument(os.path.join(dest, "firmware"), marks)
    # The copy's host_tools (its REPO: the instrumented firmware is what spit flash installs)
    # and firmware; bench's own modules play it as bench_rp2 plays.
    from bench._paths import use_checkout
    use_checkout(dest)
    from bench import rp2_bench_setup, rp2_games
    from host_tools.rp2emu.emulator import why_unavailable
    from host_tools.rp2emu import table as emu_table
    from host_tools.sim import rp2 as sim_rp2
    reason = why_unavailable()
    if reason:
        raise SystemExit("trace_landing: %s" % reason)
    ports, falls = [], []
    port_init = sim_rp2.Rp2Port.__init__
    irq_drive = emu_table._IrqLine.drive

    def init(self, *a, **k):
        port_init(self, *a, **k)
        self.emu.watch_pins(list(range(9, 14)))
        ports.append(self)

    def drive(self, level):
        if level != self.level and level == 0:
            falls.append(self.emu.now_ns // 1000)
        irq_drive(self, level)
    sim_rp2.Rp2Port.__init__ = init
    emu_table._IrqLine.drive = drive
    name, *opts = args.preset.split(":")
    options = {k: int(v) if v.isdigit() else v for k, v in (o.split("=") for o in opts)}
    say = lambda text: sys.stderr.write("trace_landing: %s\n" % text)   # noqa: E731
    result = rp2_games.play(name, options, args.seconds, say)
    rising = {}
    for pin, level, t in ports[0].table.pin_edges:
        if 9 <= pin <= 13 and level == 1:
            rising[t] = rising.get(t, 0) | 1 << (pin - 9)
    events = sorted(rising.items())
    replies = sorted({falls[bisect.bisect_right(falls, t) - 1] for t, mid in events
                      if mid == ANCHOR and bisect.bisect_right(falls, t)})
    frames = [f["t_us"] for f in ports[0].table.frames]
    per, totals = stage_table(events, replies, frames)
    print("%s, %g s, PN532 reads of %d-%d ms: landing -> LED p50 %.2f ms (%d landings); "
          "us after a listing reply's IRQ edge, %d replies with a frame within 8 ms:"
          % (args.preset, args.seconds, rp2_bench_setup.READ_MS[0], rp2_bench_setup.READ_MS[1],
             statistics.median(result["landing_to_led_ms"]) if result["landing_to_led_ms"] else float("nan"),
             len(result["landing_to_led_ms"]), len(totals)))
    print("%4s %6s %6s %6s  %s" % ("id", "p10", "p50", "p90", "marker"))
    for mid in sorted(per, key=lambda m: statistics.median(per[m])):
        v = sorted(per[mid])
        print("%4d %6d %6d %6d  %s" % (mid, v[len(v) // 10], statistics.median(v), v[len(v) * 9 // 10],
                                       labels.get(mid, "?")))
    for row in result["slow_steps"][:args.timeline]:
        t_step = ports[0].t0 + int(row["t_s"] * 1e6)
        print("step at %.3f s, %.2f ms, %s ms after a landing on pile %s: %s" % (
            row["t_s"], row["ms"], row["after_landing_ms"], row["pile"],
            marks_between(events, t_step, t_step - 200, t_step + row["ms"] * 1000 + 200)))
    for row in result["slowest"][:args.timeline]:
        t_land = ports[0].t0 + int(row["t_s"] * 1e6)
        print("landing at %.3f s, pile %d, read %.2f ms, -> LED %.2f ms: %s" % (
            row["t_s"], row["pile"], row["read_ms"], row["landing_led_ms"],
            marks_between(events, t_land, t_land, t_land + row["landing_led_ms"] * 1000 + 500)))
    if totals:
        v = sorted(totals)
        print("%4s %6d %6d %6d  the LED frame starts" % ("", v[len(v) // 10], statistics.median(v), v[len(v) * 9 // 10]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
