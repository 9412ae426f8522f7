"""Firmware loop benchmark: prints tables (never asserts timings).

    .venv/bin/python bench/bench_firmware.py [--trials N]

1. Landing -> LED verdict latency on the device: the virtual board's pipeline (PN532 timing
   model, loop period, the engine's reorder hold) plus the loop's compute cost measured on the
   MicroPython unix port x80 (FACTS.md: the RP2040 runs plain Python ~80x slower) plus the
   WS2812 write.  Target <= 10 ms.
2. Race-order accuracy against the landing gap dt for touch-sensor timestamps, PN532-IRQ-only
   timestamps and naive poll order, from simulated landings on emulated PN532s (real driver +
   NfcReader).  Target >= 99.9 % for dt >= 1 ms with touch sensors.
3. Total .mpy size of firmware/ (mpy-cross -march=armv6m).  Target <= 64 KB.
4. Heap of the firmware loop during a simulated game on the unix port.

The unix-port part runs this file under .venv/bin/micropython with ``--mp`` and reads JSON.
"""

import json
import os
import sys

_MP = sys.implementation.name == "micropython"
if _MP:
    ROOT = "."
else:
    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, ROOT)

DEVICE_FACTOR = 80
STRIP_WRITE_US = 16 * 30      # neopixel write masks IRQs ~30 us per pixel
IRQ_LATENCY_US = (20, 100)    # RP2040 hard IRQ latency, typical .. worst seen


# --------------------------------------------------------------------------- unix-port part
def _game(table):
    """A scripted game segment; returns the landings [(pile, table us)] and its end."""
    landings = []
    seq = [(0, "7H", 2_100_000), (1, "KS", 2_150_000)]
    up = ["8D", "9C", "10D", "JC", "QD", "KC", "AD", "2C", "3D", "4C"]
    down = ["QH", "JS", "10H", "9S", "8H", "7S", "6H", "5S", "4H", "3S"]
    t = 2_700_000
    for i in range(10):
        seq.append((0, up[i], t))
        seq.append((1, down[i], t + 500_000))
        t += 1_000_000
    for pile, card, at in seq:
        table.land_card(pile, card, at)
        landings.append((pile, at))
    table.press(0, "stuck", t + 200_000)
    table.press(1, "stuck", t + 300_000)
    return landings, t + 1_000_000


def _timed(obj, name, acc):
    """Wrap obj.name so its wall time adds to acc[0] (to subtract the fakes' cost)."""
    import time as real_time
    f = getattr(obj, name)

    def wrapper(*args):
        t0 = real_time.ticks_us()
        try:
            return f(*args)
        finally:
            acc[0] += real_time.ticks_diff(real_time.ticks_us(), t0)
    setattr(obj, name, wrapper)


def mp_part():
    import gc
    import time as real_time
    from host_tools.vboard.runner import VirtualTable
    # Heap: the firmware's modules, its objects after boot, and the peak during a game.
    table = VirtualTable(options={"reorder_us": 8000}, boot=False)
    gc.collect()
    m0 = gc.mem_alloc()
    import main  # noqa: F401
    import referee.app  # noqa: F401
    import referee.logbook  # noqa: F401
    import drivers.nfc_reader  # noqa: F401
    import drivers.pn532_spi  # noqa: F401
    import drivers.led_strip  # noqa: F401
    import drivers.buzzer  # noqa: F401
    import drivers.edge_input  # noqa: F401
    import drivers.debouncer  # noqa: F401
    import referee.board_hw  # noqa: F401
    gc.collect()
    m1 = gc.mem_alloc()
    table.boot()
    gc.collect()
    m2 = gc.mem_alloc()
    landings, end = _game(table)
    peak_live = 0
    while table.now_us < end:
        table.run_for(50_000)
        for em in table.emulators:      # emulator bookkeeping is not firmware heap
            del em.commands[:]
            del em.listed[:]
        gc.collect()
        live = gc.mem_alloc() - m1
        if live > peak_live:
            peak_live = live
    table.close()
    modules = m1 - m0
    after_boot = m2 - m1
    # Timing: a second run with every step timed.
    table = VirtualTable(options={"reorder_us": 8000})
    landings, end = _game(table)
    app = table.app
    fake = [0]
    # The emulators run inside the firmware's SPI calls: time them to subtract them.
    for em in table.emulators:
        for name in ("spi_exchange", "spi_select", "spi_deselect", "update", "next_event_us"):
            _timed(em, name, fake)
    spi = table.spis[0]
    _timed(spi, "_exchange", fake)
    from array import array
    costs = {"idle": (array("i"), array("i")), "card": (array("i"), array("i")),
             "verdict": (array("i"), array("i"))}
    garbage = array("i")
    step = app.step
    state = {"n": 0, "bytes": 0}

    def timed_step():
        cards = app.readers[0].cards + app.readers[1].cards
        nv = app.referee.n_verdicts
        nbytes = spi.bytes_transferred
        fake[0] = 0
        m0 = gc.mem_alloc()
        t0 = real_time.ticks_us()
        step()
        dt = real_time.ticks_diff(real_time.ticks_us(), t0)
        m1 = gc.mem_alloc()
        if m1 >= m0:
            garbage.append(m1 - m0)
        # Firmware compute on the unix port, with the real SPI wire time (1 MHz: 8 us/byte)
        # instead of the fake bus + emulator.
        dt = dt - fake[0]
        wire = (spi.bytes_transferred - nbytes) * 8
        kind = "idle"
        if app.readers[0].cards + app.readers[1].cards != cards:
            kind = "card"
        elif app.referee.n_verdicts != nv:
            kind = "verdict"
        costs[kind][0].append(dt)
        costs[kind][1].append(wire)
        state["n"] += 1
    app.step = timed_step
    table.run_until(end)
    table.close()

    def stats(pair):
        xs = sorted(pair[0])
        if not xs:
            return [[0, 0], [0, 0], [0, 0]]
        w = sorted(pair[1])[len(xs) // 2]
        return [[xs[len(xs) // 2], w], [xs[len(xs) * 99 // 100], w], [xs[-1], w]]
    garbage = sorted(garbage)
    print(json.dumps({"idle": stats(costs["idle"]), "card": stats(costs["card"]),
                      "verdict": stats(costs["verdict"]), "steps": state["n"],
                      "modules": modules, "after_boot": after_boot, "peak_live": peak_live,
                      "garbage": [garbage[len(garbage) // 2], garbage[-1]]}))


# --------------------------------------------------------------------------- CPython part
def virtual_latency(reorder_us, loop_us=1000):
    """Virtual time from a card's touch edge until its pile zone shows the verdict."""
    from host_tools.vboard.runner import VirtualTable
    table = VirtualTable(options={"reorder_us": reorder_us}, loop_us=loop_us)
    try:
        landings, end = _game(table)
        strip = table.app.leds.np
        zones = table.board["leds"]["zones"]
        intents = table.app.intents
        lat = []
        for pile, at in landings[2:]:       # the spit cards light white; time the judged plays
            table.run_until(at)
            while table.now_us < at + 400_000:
                table.run_for(100)
                # This landing's accept verdict sets the zone to expire at its ms + 600.
                if intents.until_ms[pile] == at // 1000 + 600 and strip.shown[zones[pile][0]] != (0, 0, 0):
                    lat.append(table.now_us - at)
                    break
        return sorted(lat)
    finally:
        table.close()


def race_trials(dt_us, trials, same_pile, seed=7):
    """Per method, the fraction of races whose first-landed card is judged first."""
    import random
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin
    from host_tools.vboard.pn532_emulator import PN532Emulator
    rng = random.Random(seed + dt_us + (1 if same_pile else 0))
    Pin.reset_registry()
    clock = VirtualClock(1 << 20)
    board = install(clock)
    try:
        import machine
        from drivers.pn532_spi import PN532_SPI
        from drivers.nfc_reader import NfcReader
        spi = machine.SPI(0)
        ems, readers, reads = [], [], []
        for p in range(2):
            em = board.add_device(PN532Emulator(clock, irq=20 + p, seed=p + 3))
            irq = machine.Pin(20 + p, machine.Pin.IN, machine.Pin.PULL_UP)
            cs = machine.Pin(17 + p, machine.Pin.OUT, value=1)
            em.attach_spi(spi, cs)
            drv = PN532_SPI(spi, cs, irq=irq)
            drv.setup()
            reader = NfcReader(drv, p, on_card=lambda pile, uid, t: reads.append((pile, uid, t, clock.now_us)))
            irq.irq(lambda pin, r=reader: r.note_irq(clock.ticks_us()), machine.Pin.IRQ_FALLING, hard=True)
            ems.append(em)
            readers.append(reader)
        ok = {"touch": 0, "irq": 0, "poll": 0}
        done = [0]
        poll_period = 2 * 2 * ems[0].attempt_us     # blocking list per reader, two readers
        for k in range(trials):
            for r in readers:
                r.clear_pile()
            start = clock.now_us + rng.randrange(0, 5000)
            uid_a = bytes([4, 9, 9, 9, k & 0xFF, k >> 8, rng.randrange(256)])
            uid_b = bytes([4, 9, 9, 9, k & 0xFF, k >> 8, rng.randrange(256) | 1])
            pa, pb = (0, 0) if same_pile else (0, 1)
            if not same_pile and rng.random() < 0.5:
                pa, pb = 1, 0
            land = {uid_a: start, uid_b: start + dt_us}
            plan = [(start, pa, uid_a), (start + dt_us, pb, uid_b)]
            del reads[:]
            end = start + dt_us + 40000
            while clock.now_us < end:
                nxt = end
                for em in ems:
                    e = em.next_event_us()
                    if e is not None and e < nxt:
                        nxt = e
                for at, pile, uid in plan:
                    if clock.now_us < at < nxt:
                        nxt = at
                clock.advance_to_us(min(nxt, clock.now_us + 250))
                for at, pile, uid in plan:
                    if at <= clock.now_us and ems[pile].tag(uid) is None and uid not in [r[1] for r in reads]:
                        ems[pile].place_tag(uid)
                for em in ems:
                    em.update()
                for r in readers:
                    r.service(clock.ticks_us())
            got = [(r[1], r[2], r[3]) for r in reads if r[1] in land]
            for em in ems:
                for uid in (uid_a, uid_b):
                    em.remove_tag(uid)
            if len(got) < 2:
                continue       # a read missed (not a race-order question)
            done[0] += 1
            # IRQ-only: each card stamped with its reader's reply-ready IRQ (unwrap near start).
            irq = {uid: t for uid, t, _ in got}
            first_irq = min(got, key=lambda g: (irq[g[0]] - start) % (1 << 30))[0]
            ok["irq"] += first_irq == uid_a
            # Naive poll: stamped when a round-robin blocking poll sees the reply.
            phase = [rng.randrange(poll_period) for _ in range(2)]
            poll = {}
            for uid, _, seen in got:
                pile = pa if uid == uid_a else pb
                poll[uid] = seen + (phase[pile] - seen) % poll_period
            ok["poll"] += (poll[uid_a], 0) < (poll[uid_b], 1) if poll[uid_a] != poll[uid_b] else rng.random() < 0.5
            # Touch sensors: each pile's touch edges (IRQ latency jitter); a pile's reads take
            # its touches in order (the engine's matching).  A second edge inside the 5 ms
            # touch debounce is lost: that read keeps its IRQ stamp.
            stamp = {}
            by_pile = {}
            for uid in (uid_a, uid_b):
                pile = pa if uid == uid_a else pb
                by_pile.setdefault(pile, []).append(land[uid] + rng.randrange(*IRQ_LATENCY_US))
            for pile in by_pile:
                edges = sorted(by_pile[pile])
                if len(edges) == 2 and edges[1] - edges[0] < 5000:
                    edges = edges[:1]
                order = [g for g in got if (pa if g[0] == uid_a else pb) == pile]
                order.sort(key=lambda g: g[2])
                for i, g in enumerate(order):
                    stamp[g[0]] = edges[i] if i < len(edges) else start + (irq[g[0]] - start) % (1 << 30)
            ok["touch"] += stamp[uid_a] < stamp[uid_b]
        return {m: ok[m] / float(done[0] or 1) for m in ok}
    finally:
        board.uninstall()


def mpy_sizes():
    import subprocess
    import tempfile
    mpy = os.path.join(ROOT, ".venv", "bin", "mpy-cross")
    sizes = {}
    with tempfile.TemporaryDirectory() as out:
        for dirpath, _, files in os.walk(os.path.join(ROOT, "firmware")):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                rel = os.path.relpath(dirpath, os.path.join(ROOT, "firmware"))
                dst = os.path.join(out, "x.mpy")
                subprocess.run([mpy, "-march=armv6m", "-o", dst, os.path.join(dirpath, name)], check=True)
                key = "main.py (source)" if rel == "." else rel
                size = os.path.getsize(os.path.join(dirpath, name)) if rel == "." else os.path.getsize(dst)
                sizes[key] = sizes.get(key, 0) + size
    return sizes


def main():
    import subprocess
    trials = 1000
    if "--trials" in sys.argv:
        trials = int(sys.argv[sys.argv.index("--trials") + 1])
    env = dict(os.environ, MICROPYPATH=".frozen:firmware:firmware/lib:.")
    r = subprocess.run([os.path.join(ROOT, ".venv", "bin", "micropython"), "-X", "heapsize=8m",
                        "bench/bench_firmware.py", "--mp"], cwd=ROOT, env=env, capture_output=True, text=True)
    mp = json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][-1])

    print("== 1. Landing -> LED verdict latency (device estimate; unix-port compute x%d)" % DEVICE_FACTOR)
    print("firmware compute per step on the unix port (us, fakes subtracted; median / p99 / max),"
          " + SPI wire time at 1 MHz:")
    for kind in ("idle", "card", "verdict"):
        st = mp[kind]
        print("  %-8s %5d / %5d / %5d   wire %d us" % (kind, st[0][0], st[1][0], st[2][0], st[0][1]))
    idle_dev = mp["idle"][0][0] * DEVICE_FACTOR
    card_dev = mp["card"][0][0] * DEVICE_FACTOR + mp["card"][0][1]
    verdict_dev = mp["verdict"][0][0] * DEVICE_FACTOR + mp["verdict"][0][1]
    print("| reorder_us | virtual pipeline p50 / max (ms) | + loop compute on device (ms) | + strip write (ms) | total p50 / max (ms) |")
    print("|---|---|---|---|---|")
    for reorder in (150000, 20000, 8000, 6000, 5000):
        lat = virtual_latency(reorder)
        compute = (idle_dev + card_dev + verdict_dev) / 1000.0
        extra = compute + STRIP_WRITE_US / 1000.0
        print("| %d | %.2f / %.2f | %.2f | %.2f | %.2f / %.2f |" % (
            reorder, lat[len(lat) // 2] / 1000.0, lat[-1] / 1000.0, compute, STRIP_WRITE_US / 1000.0,
            lat[len(lat) // 2] / 1000.0 + extra, lat[-1] / 1000.0 + extra))
    print("(virtual pipeline: PN532 model -- next activation attempt <= 2 ms + 2.5 ms anticollision --, the 1 ms"
          " loop period and the engine's reorder hold (a verdict waits until reorder_us after the landing);"
          " compute = median idle + card-read + verdict step x%d + SPI wire time.  GC pauses are not in the"
          " medians.)" % DEVICE_FACTOR)

    print()
    print("== 2. Race-order accuracy vs landing gap (%d simulated races each)" % trials)
    print("| dt (ms) | same pile: touch | IRQ only | naive poll | two piles: touch | IRQ only | naive poll |")
    print("|---|---|---|---|---|---|---|")
    for dt in (250, 500, 1000, 2000, 5000, 10000):
        same = race_trials(dt, trials, True)
        cross = race_trials(dt, trials, False)
        print("| %.2f | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |" % (
            dt / 1000.0, 100 * same["touch"], 100 * same["irq"], 100 * same["poll"],
            100 * cross["touch"], 100 * cross["irq"], 100 * cross["poll"]))
    print("(same pile: the card read first takes the first touch, so order follows the reader; two tags in the"
          " field at one activation attempt are read highest-UID first)")

    print()
    print("== 3. Firmware size (mpy-cross -march=armv6m)")
    sizes = mpy_sizes()
    total = 0
    for key in sorted(sizes):
        print("| %s | %d bytes |" % (key, sizes[key]))
        total += sizes[key]
    print("| total | %d bytes (%.1f KB; target <= 64 KB) |" % (total, total / 1024.0))

    print()
    print("== 4. Heap on the unix port (firmware + virtual board fakes)")
    print("| firmware modules (bytecode from .py) | objects after boot | peak live objects during the game |"
          " garbage per step median / max |")
    print("|---|---|---|---|")
    print("| %.1f KB | %.1f KB | %.1f KB | %d B / %d B |" % (
        mp["modules"] / 1024.0, mp["after_boot"] / 1024.0, mp["peak_live"] / 1024.0,
        mp["garbage"][0], mp["garbage"][1]))
    print("(64-bit unix port: objects take up to ~2x the RP2040's 32-bit heap; .mpy bytecode is smaller"
          " than compiling .py on the board)")


if __name__ == "__main__":
    if "--mp" in sys.argv:
        mp_part()
    else:
        main()
