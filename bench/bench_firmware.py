"""Firmware loop benchmark: prints tables (never asserts timings).

    .venv/bin/python bench/bench_firmware.py [--trials N]

1. Landing -> LED verdict latency on the device (board pico: its reorder_us, touch sensors).
   Measured: the virtual board's pipeline (PN532 timing model, loop period, the engine's hold)
   and, on the MicroPython unix port, each firmware component's own time on a landing's critical
   path (reader + driver, engine, session log, LED render, loop), with the virtual board's fakes
   (bus + PN532 emulator, pins, time proxy, strip write) timed and subtracted.  Modelled: x80 for
   the RP2040, the C calls the fakes stand in for, SPI wire time (bytes x 8 / baud), the WS2812
   write.  Target <= 10 ms.
2. Race-order accuracy against the landing gap dt, as the referee's verdicts (right winner /
   declared tie / wrong winner) for touch-sensor timestamps, PN532-IRQ-only timestamps and naive
   poll order, same pile and two piles: landings on emulated PN532s (real driver + NfcReader),
   fed to the engine.  Target >= 99.9 % not wrong for dt >= 1 ms with touch sensors.
3. .mpy size of what `spit flash` puts on each board (host_tools/flash.py manifest).  Target <= 60 KB (issue 8).
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
    for _p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "firmware", "lib")):
        if _p not in sys.path:
            sys.path.insert(1, _p)

DEVICE_FACTOR = 80           # the RP2040 runs plain Python ~80x slower than the unix port here
C_CALL_US = 3                # one call into a C builtin (SPI transfer setup, Pin.value, ticks_us) on the RP2040
ATTEMPT_US = 2000            # PN532Emulator defaults (host_tools/vboard/pn532_emulator.py)
ANTICOLLISION_US = 2500
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


class Profiler:
    """Exclusive (self) time per named wrapped callable, with a call stack, on the real clock.

    ``wrap(obj, attr, name)`` replaces ``obj.attr`` by a timed wrapper.  A call's exclusive time
    is its wall time minus the wall time of the wrapped calls made inside it, minus the
    wrapper's own cost that leaks into the caller (``leak_us`` per inner call, calibrated).
    Names starting with ``fake:`` are the virtual board (fake bus, pins, time proxy, strip
    write): their time is dropped; only their call count is kept (real C calls on the device).
    Runs under CPython and the MicroPython unix port (``time.ticks_us``)."""

    def __init__(self, ticks, diff):
        self.ticks = ticks
        self.diff = diff
        self.acc = {}        # name -> exclusive us since reset()
        self.ncalls = {}     # name -> calls since reset()
        self._child = [0]    # per open frame: wall time of wrapped inner calls
        self._inner = [0]    # per open frame: number of wrapped inner calls
        self.leak_us = 0.0

    def reset(self):
        for k in self.acc:
            self.acc[k] = 0
            self.ncalls[k] = 0

    def wrap(self, obj, attr, name):
        f = getattr(obj, attr)
        prof = self
        ticks = self.ticks
        diff = self.diff
        self.acc.setdefault(name, 0)
        self.ncalls.setdefault(name, 0)

        def wrapper(*args, **kw):
            child = prof._child
            inner = prof._inner
            child.append(0)
            inner.append(0)
            t0 = ticks()
            try:
                return f(*args, **kw)
            finally:
                el = diff(ticks(), t0)
                own = el - child.pop() - prof.leak_us * inner.pop()
                prof.acc[name] += own
                prof.ncalls[name] += 1
                child[-1] += el
                inner[-1] += 1
        setattr(obj, attr, wrapper)
        return f

    def calibrate(self, n=2000):
        """``leak_us``: what one wrapped inner call adds to its caller's exclusive time."""
        class O:
            pass
        o = O()

        def noop():
            return None

        def loop():
            f = o.f
            for _ in range(n):
                f()
        best = None
        for _ in range(5):
            o.f = noop
            o.g = loop
            self.wrap(o, "g", "cal:bare")
            self.leak_us = 0.0
            self.reset()
            o.g()
            bare = self.acc["cal:bare"]
            o.f = noop
            o.g = loop
            self.wrap(o, "f", "cal:f")
            self.wrap(o, "g", "cal:wrapped")
            self.reset()
            o.g()
            leak = (self.acc["cal:wrapped"] - bare) / float(n)
            best = leak if best is None or leak < best else best
        for k in ("cal:bare", "cal:f", "cal:wrapped"):
            del self.acc[k]
            del self.ncalls[k]
        self.leak_us = max(0.0, best)
        return self.leak_us


# Firmware components timed separately (exclusive time; what the name says, nothing nested).
COMPONENTS = ("inputs", "reader", "engine", "log", "leds", "loop")
COMPONENT_TITLES = {
    "inputs": "ring drain + debounce + ticks->session time (App._input)",
    "reader": "NfcReader + PN532 driver (frames, checksums, bit reversal) + card map",
    "engine": "engine: Referee.feed/advance/report (incl. verdict sink + buzzer cue)",
    "log": "session log: SessionLog.event/advanced/flush/tick",
    "leds": "LED render (App._render: intents -> pixels, buzzer update)",
    "loop": "loop glue (App.step itself: clock update, bookkeeping)",
}


def _instrument(table, prof):
    """Wrap the firmware pieces (components) and the virtual board's fakes of one table."""
    import sys as _sys
    app = table.app
    prof.wrap(app, "step", "loop")
    prof.wrap(app, "_input", "inputs")
    prof.wrap(app, "_render", "leds")
    for name in ("feed", "advance", "report"):
        prof.wrap(app.referee, name, "engine")
    for name in ("event", "advanced", "flush", "tick"):
        prof.wrap(app.slog, name, "log")
    for r in app.readers:
        prof.wrap(r, "service", "reader")
    # Fakes: bus transfers (fake bus + PN532 emulator inside), pins, the time proxy, strip write.
    for spi in table.spis.values():
        for name in ("write", "read", "readinto", "write_readinto"):
            prof.wrap(spi, name, "fake:bus")
    from host_tools.vboard.pins import Pin
    for gpio in Pin.registry:
        pin = Pin.registry[gpio]
        for name in ("value", "on", "off", "high", "low"):
            if hasattr(pin, name):
                prof.wrap(pin, name, "fake:pin")
    tm = _sys.modules["time"]
    for name in ("ticks_us", "ticks_ms", "ticks_diff", "ticks_add"):
        prof.wrap(tm, name, "fake:time")
    if app.leds is not None and hasattr(app.leds, "strip"):
        prof.wrap(app.leds.strip.sm, "put", "fake:strip")
        if getattr(app.leds.strip, "dma", None) is not None:
            prof.wrap(app.leds.strip.dma, "config", "fake:strip")


def mp_part():
    import gc
    import time as real_time
    from host_tools.vboard.runner import VirtualTable
    # Heap: the firmware's modules, its objects after boot, and the peak during a game.
    table = VirtualTable(boot=False)
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
    # Timing: a second run of the same game (board settings: pico.json, reorder_us from the
    # board) with every firmware component and every fake timed separately.
    table = VirtualTable()
    landings, end = _game(table)
    app = table.app
    prof = Profiler(real_time.ticks_us, real_time.ticks_diff)
    leak = prof.calibrate()
    _instrument(table, prof)
    # Verdicts counted by a sink in front of the session log's (the engine keeps no count).
    emitted = [0]
    log_sink = app.referee.sink

    def counting_sink(code, ms, us, a, b, c, d):
        emitted[0] += 1
        log_sink(code, ms, us, a, b, c, d)
    app.referee.sink = counting_sink
    spi = table.spis[0]
    from array import array
    idle_total = array("i")       # firmware us of steps that read no card and gave no verdict
    crit = []                     # per interesting step: (kind, {component: us}, fake calls, spi bytes)
    garbage = array("i")
    step = app.step
    fake_names = [k for k in prof.acc if k.startswith("fake:")]

    def timed_step():
        cards = 0
        for r in app.readers:
            cards += r.cards
        nv = emitted[0]
        nbytes = spi.bytes_transferred
        gc.collect()               # GC pauses are not the loop's compute (section 4 has garbage)
        prof.reset()
        a0 = gc.mem_alloc()
        step()
        a1 = gc.mem_alloc()
        if a1 >= a0:
            garbage.append(a1 - a0)
        for r in app.readers:
            cards -= r.cards
        comp = {}
        for k in COMPONENTS:
            comp[k] = prof.acc[k]
        calls = 0
        for k in fake_names:
            calls += prof.ncalls[k]
        kind = "card" if cards else ("verdict" if emitted[0] != nv else "")
        if kind:
            crit.append((kind, comp, calls, spi.bytes_transferred - nbytes, emitted[0] - nv))
        else:
            tot = 0
            for k in COMPONENTS:
                tot += comp[k]
            idle_total.append(int(tot))
    app.step = timed_step
    table.run_until(end)
    table.close()
    # Per judged landing the critical path is the step that reads the card plus, if the
    # verdict comes out later, the step that issues it.
    paths = []
    i = 0
    while i < len(crit):
        kind, comp, calls, nbytes, nv = crit[i]
        if kind == "card":
            total = dict(comp)
            c = calls
            j = i
            while nv == 0 and j + 1 < len(crit) and crit[j + 1][0] == "verdict":
                j += 1
                for k in COMPONENTS:
                    total[k] += crit[j][1][k]
                c += crit[j][2]
                nv = crit[j][4]
            paths.append({"comp": total, "calls": c, "bytes": nbytes})
            i = j
        i += 1
    idle = sorted(idle_total)
    garbage = sorted(garbage)
    def ref_loop():
        t0 = real_time.ticks_us()
        x = 0
        for i in range(200000):
            x += i
        return real_time.ticks_diff(real_time.ticks_us(), t0)
    loop_ns = min(ref_loop() for _ in range(3)) * 1000.0 / 200000
    print(json.dumps({"paths": paths, "loop_ns": loop_ns, "idle": [idle[len(idle) // 2], idle[len(idle) * 99 // 100], idle[-1]],
                      "leak_us": leak, "steps": len(idle) + len(crit),
                      "modules": modules, "after_boot": after_boot, "peak_live": peak_live,
                      "garbage": [garbage[len(garbage) // 2], garbage[-1]]}))


# --------------------------------------------------------------------------- CPython part
def _rules():
    from spit.rules import make_ruleset
    return make_ruleset("classic", None)


def _board(name):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def virtual_latency(reorder_us=None, loop_us=1000):
    """Virtual time from a card's touch edge until its pile zone shows the verdict (steps take
    no virtual time).  ``reorder_us`` None: the board's (pico.json), as the firmware applies it."""
    from host_tools.vboard.runner import VirtualTable
    table = VirtualTable(options={"reorder_us": reorder_us} if reorder_us is not None else None,
                         loop_us=loop_us)
    try:
        landings, end = _game(table)
        from host_tools.vboard.rp2 import Ws2812View
        strip = Ws2812View(table.app.leds.strip.sm, table.app.leds.n)
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


# A race: pile 0 shows 7H, pile 1 KS.  Same pile: 8H (first) and 6C (second) both fit 7H.
# Two piles: 8H on pile 0, QS on pile 1.
RACE_CARDS = (("8H", "6C"), ("QS", "QS"))
RIGHT, TIE, WRONG = 0, 1, 2


def judge_race(events, reorder_us, card_first, card_second, pile_first, same_pile):
    """Feed one race to the engine as the firmware would (events in arrival order, advance as
    time passes) and classify the referee's verdicts: RIGHT, TIE (a ``tie`` verdict) or WRONG."""
    from spit import verdicts as V
    from spit.cards import parse_card
    from spit.intake import EV_CARD as _EV_CARD
    from spit.referee import Referee
    from spit.rules import make_ruleset
    rules = make_ruleset("classic", {"reorder_us": reorder_us} if reorder_us is not None else None)
    out = []
    ref = Referee(rules, None, lambda code, ms, us, a, b, c, d: out.append((code, a, b)))
    t = rules.countdown_ms + 10
    ref.feed(_EV_CARD, t, 0, 0, parse_card("7H"), -1)
    ref.feed(_EV_CARD, t + 1, 0, 1, parse_card("KS"), -1)
    ref.flush()
    del out[:]
    base_ms = t + 1000
    for at, kind, stamp, pile, card in sorted(events):
        ref.advance(base_ms + at // 1000, at % 1000)
        ref.feed(kind, base_ms + stamp // 1000, stamp % 1000, pile, parse_card(card) if kind == _EV_CARD else 0,
                 -1 if kind == _EV_CARD else 0)
    last = max(e[0] for e in events)
    ref.advance(base_ms + last // 1000 + 1000, 0)
    if same_pile and any(v[0] == V.V_TIE for v in out):
        return TIE
    accepts = [(v[1], v[2]) for v in out if v[0] == V.V_ACCEPT]
    first = (pile_first, parse_card(card_first))
    return RIGHT if accepts and accepts[0] == first else WRONG


def race_trials(dt_us, trials, same_pile, seed=7, read_us=(ANTICOLLISION_US, ANTICOLLISION_US + ATTEMPT_US),
                touch_delay_us=(0, 0)):
    """Per method (touch, irq, poll): fractions [right, tie, wrong] of the referee's verdicts,
    and the number of races judged (both cards read).  ``read_us``: a tag's read time after it
    lands, uniform in (lo, hi) (the emulator's anticollision time lo plus up to hi - lo to its
    next activation attempt); ``touch_delay_us``: the touch sensor's delay after the landing,
    uniform in (lo, hi) per landing."""
    import random
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin
    from host_tools.vboard.pn532_emulator import PN532Emulator
    from host_tools.vboard.pn532_listing import read_time_options
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
            em = board.add_device(PN532Emulator(clock, irq=20 + p, seed=p + 3,
                                                **read_time_options(read_us[0], read_us[1])))
            irq = machine.Pin(20 + p, machine.Pin.IN, machine.Pin.PULL_UP)
            cs = machine.Pin(17 + p, machine.Pin.OUT, value=1)
            em.attach_spi(spi, cs)
            drv = PN532_SPI(spi, cs, irq=irq)
            drv.setup()
            reader = NfcReader(drv, p, on_card=lambda pile, uid, t: reads.append((pile, bytes(uid), t, clock.now_us)))
            irq.irq(lambda pin, r=reader: r.note_irq(clock.ticks_us()), machine.Pin.IRQ_FALLING, hard=True)
            ems.append(em)
            readers.append(reader)
        ok = {"touch": [0, 0, 0], "irq": [0, 0, 0], "poll": [0, 0, 0]}   # right, tie, wrong
        done = [0]
        pico = _board("pico")
        touch_reorder_us = pico["reorder_us"]
        touch_debounce_us = pico["touch"][0]["debounce_ms"] * 1000
        from spit.intake import EV_CARD, EV_TOUCH
        poll_period = 2 * 2 * ems[0].attempt_us     # blocking list per reader, two readers
        for k in range(trials):
            for r in readers:
                r.clear_pile()
            start = clock.now_us + rng.randrange(0, 5000)
            uid_a = bytes([4, 9, 9, 9, k & 0xFF, k >> 8, rng.randrange(256)])
            uid_b = uid_a
            while uid_b == uid_a:      # two different tags (anticollision order stays random)
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
            pile_of = {uid_a: pa, uid_b: pb}
            card_of = {uid_a: RACE_CARDS[pa][0], uid_b: RACE_CARDS[pb][1 if same_pile else 0]}

            def rel(t):
                return (t - start) % (1 << 30)
            # Each method gives the engine events (arrival time, kind, stamp, pile, card).
            # IRQ-only: a read is stamped with its reader's reply-ready IRQ edge.
            irq_events = [(rel(seen), EV_CARD, rel(t), pile_of[uid], card_of[uid]) for uid, t, seen in got]
            # Naive poll: stamped when a round-robin blocking poll sees the reply.
            phase = [rng.randrange(poll_period) for _ in range(2)]
            poll_events = []
            for uid, _, seen in got:
                at = rel(seen) + (phase[pile_of[uid]] - rel(seen)) % poll_period
                poll_events.append((at, EV_CARD, at, pile_of[uid], card_of[uid]))
            # Touch sensors: each landing's edge (hard-IRQ latency jitter), the board's touch
            # debounce (a second edge on a pile inside it is lost), and the reads as above; the
            # engine matches each read to the earliest unmatched touch on its pile.
            touch_events = list(irq_events)
            last_edge = {}
            for uid in sorted((uid_a, uid_b), key=lambda u: land[u]):
                edge = rel(land[uid]) + rng.randrange(*IRQ_LATENCY_US)
                if touch_delay_us[1] > touch_delay_us[0]:
                    edge += rng.randrange(*touch_delay_us)
                pile = pile_of[uid]
                if pile in last_edge and edge - last_edge[pile] < touch_debounce_us:
                    continue
                last_edge[pile] = edge
                touch_events.append((edge, EV_TOUCH, edge, pile, 0))
            for method, events, reorder in (("touch", touch_events, touch_reorder_us),
                                            ("irq", irq_events, None), ("poll", poll_events, None)):
                ok[method][judge_race(events, reorder, card_of[uid_a], card_of[uid_b], pa, same_pile)] += 1
        return {m: [x / float(done[0] or 1) for x in ok[m]] for m in ok}, done[0]
    finally:
        board.uninstall()


def mpy_sizes(board_name):
    """Bytes per firmware directory of what `spit flash` puts on this board (its manifest,
    host_tools/flash.py): .mpy (mpy-cross -march=armv6m -s <path on the board>, as `spit flash`
    compiles: no checkout path inside) except top-level files such as main.py,
    which stay source.  Also returns the manifest's skipped files."""
    import subprocess
    import tempfile
    from host_tools.manifest import board_manifest
    firmware = os.path.join(ROOT, "firmware")
    files, skipped = board_manifest(firmware, _board(board_name))
    mpy = os.path.join(ROOT, ".venv", "bin", "mpy-cross")
    sizes = {}
    with tempfile.TemporaryDirectory() as out:
        for rel in files:
            src = os.path.join(firmware, rel)
            if "/" not in rel or not rel.endswith(".py"):
                key = rel + " (source)"
                size = os.path.getsize(src)
            else:
                key = rel.rsplit("/", 1)[0]
                dst = os.path.join(out, "x.mpy")
                subprocess.run([mpy, "-march=armv6m", "-o", dst, "-s", rel, src], check=True)
                size = os.path.getsize(dst)
            sizes[key] = sizes.get(key, 0) + size
    return sizes, skipped


RUNTIME_NOTE = ("bench_firmware: about 2.5 minutes with the default 1000 race trials on a 2-core PC "
                "(--trials 100: well under a minute), plus the read-time/touch-delay sweep of section 2b "
                "(27 cells of trials/4 races: about as long again); each part prints its table when it is done")


def main():
    import subprocess
    trials = 1000
    if "--trials" in sys.argv:
        trials = int(sys.argv[sys.argv.index("--trials") + 1])
    print(RUNTIME_NOTE if trials == 1000 else "bench_firmware: %d race trials per cell (the unix-port timing"
          " first, then the race tables, printing as it goes)" % trials, flush=True)
    env = dict(os.environ, MICROPYPATH=".frozen:firmware:firmware/lib:.")
    r = subprocess.run([os.path.join(ROOT, ".venv", "bin", "micropython"), "-X", "heapsize=8m",
                        "bench/bench_firmware.py", "--mp"], cwd=ROOT, env=env, capture_output=True, text=True)
    mp = json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][-1])

    board = _board("pico")
    baud = board["nfc"]["spi"]["baudrate"]
    paths = mp["paths"]

    def dev(unix_us):
        return unix_us * DEVICE_FACTOR

    rows = []   # (name, per-landing device us list, measured?)
    for k in COMPONENTS:
        rows.append((COMPONENT_TITLES[k], [dev(max(0.0, p["comp"][k])) for p in paths], "measured x%d" % DEVICE_FACTOR))
    rows.append(("C calls the fakes stand in for (SPI/Pin/ticks: %d us each)" % C_CALL_US,
                 [p["calls"] * C_CALL_US for p in paths], "modelled"))
    rows.append(("SPI wire time (bytes x 8 / %d baud)" % baud,
                 [p["bytes"] * 8e6 / baud for p in paths], "modelled"))
    rows.append(("WS2812 frame: a DMA transfer into the PIO FIFO started (%d pixels go out by themselves,"
                 " IRQs on)" % board["leds"]["count"], [float(C_CALL_US) for _ in paths], "modelled"))
    compute = [sum(r[1][i] for r in rows) for i in range(len(paths))]
    idle_dev = [dev(x) for x in mp["idle"]]
    loop_us = max(1000, int(idle_dev[0]))
    print("== 1. Landing -> LED verdict latency on the device (board pico: reorder_us %d, touch sensors)"
          % board["reorder_us"])
    print("Per judged landing (%d in a scripted game), the firmware steps on its critical path: the step that"
          " reads the card and, if later, the one that issues the verdict.  Each component's own time on the"
          " MicroPython unix port (fake bus, PN532 emulator, fake pins, time proxy and strip write timed and"
          " subtracted; wrapper leak %.2f us/call calibrated), x%d for the RP2040." % (
              len(paths), mp["leak_us"], DEVICE_FACTOR))
    print("x%d is a model, not a measurement: one `for i in range(n): x += i` iteration takes %.0f ns on this"
          " unix port; time the same loop on a Pico and set DEVICE_FACTOR to the ratio." % (DEVICE_FACTOR, mp["loop_ns"]))
    print("| component (device) | p50 (ms) | max (ms) | how |")
    print("|---|---|---|---|")
    for name, xs, how in rows:
        xs = sorted(xs)
        print("| %s | %.2f | %.2f | %s |" % (name, xs[len(xs) // 2] / 1000.0, xs[-1] / 1000.0, how))
    cs = sorted(compute)
    print("| **critical-path compute** | **%.2f** | **%.2f** | sum per landing |" % (
        cs[len(cs) // 2] / 1000.0, cs[-1] / 1000.0))
    print("idle loop step (no card, no verdict) on the device: p50 %.2f / p99 %.2f / max %.2f ms"
          " -> loop period modelled as max(1 ms, idle p50) = %.2f ms" % (
              idle_dev[0] / 1000.0, idle_dev[1] / 1000.0, idle_dev[2] / 1000.0, loop_us / 1000.0))
    print("(idle p99/max are not device figures: on a shared host one preemption is a 4 ms scheduler"
          " quantum, x%d = 320 ms, and the steps at pauses include the log write and gc.collect() of"
          " the unix port's 8 MB heap.  Measure them on the emulated chip.)" % DEVICE_FACTOR)
    print()
    print("| setting | virtual pipeline p50 / max (ms) | + critical-path compute p50 / max (ms) |"
          " total p50 / max (ms) | target |")
    print("|---|---|---|---|---|")
    settings = [("pico.json (reorder %d us), loop %.2f ms" % (board["reorder_us"], loop_us / 1000.0),
                 None, loop_us),
                ("pico.json, if the loop ran every 1 ms", None, 1000),
                ("before: reorder 150000 us, loop 1 ms (reference)", 150000, 1000)]
    for label, reorder, lu in settings:
        lat = virtual_latency(reorder, lu)
        p50 = lat[len(lat) // 2] / 1000.0
        mx = lat[-1] / 1000.0
        c50 = cs[len(cs) // 2] / 1000.0
        cmx = cs[-1] / 1000.0
        print("| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | <= 10 ms |" % (
            label, p50, mx, c50, cmx, p50 + c50, mx + cmx))
    print("(measured: the virtual pipeline -- PN532 timing model: next activation attempt <= %d us + %d us"
          " anticollision; the loop period; the engine's hold, released at once by the pending touch --,"
          " and each firmware component's unix-port time.  modelled: x%d unix->RP2040, C calls, SPI wire time,"
          " strip write.  Totals add p50s and maxes (max = a bound).  GC pauses are excluded"
          " (gc.collect between steps); section 4 shows the garbage per step.)" % (
              ATTEMPT_US, ANTICOLLISION_US, DEVICE_FACTOR))

    print()
    print("== 2. Race-order accuracy vs landing gap: the referee's verdicts")
    print("Each cell: right winner / declared tie / WRONG winner (%%).  Landings on emulated PN532s read by the real"
          " driver + NfcReader; the reads (and touch edges) are fed to the engine (tie_window_us %d, reorder_us %d"
          " with touch sensors as in pico.json, the engine default %d without)." % (
              _rules().tie_window_us, _board("pico")["reorder_us"], _rules().reorder_us))
    print("| dt (ms) | same pile: touch | IRQ only | naive poll | two piles: touch | IRQ only | naive poll |")
    print("|---|---|---|---|---|---|---|")
    judged = []
    for dt in (250, 500, 1000, 2000, 3000, 4000, 5000, 10000):
        same, n_same = race_trials(dt, trials, True)
        cross, n_cross = race_trials(dt, trials, False)
        judged += [n_same, n_cross]
        cells = []
        for res in (same, cross):
            for m in ("touch", "irq", "poll"):
                r = res[m]
                cells.append("%.1f / %.1f / **%.1f**" % (100 * r[0], 100 * r[1], 100 * r[2]))
        print("| %.2f | %s |" % (dt / 1000.0, " | ".join(cells)))
    print("(%d..%d of %d races per cell had both cards read.  Same pile: the tags are read in anticollision"
          " order (highest UID first when both are in the field at one attempt) and each read takes the"
          " earliest unmatched touch; a second touch edge inside the %d ms touch debounce is lost.  Two piles:"
          " right = the first-landed card's verdict comes first; the engine declares ties only on one pile."
          "  Target: >= 99.9%% not wrong for dt >= 1 ms with touch sensors.)" % (
              min(judged), max(judged), trials, _board("pico")["touch"][0]["debounce_ms"]))

    print()
    print("== 2b. Race accuracy, same pile, swept over the reader's read time and the touch sensor's delay")
    print("Each cell: right / tie / WRONG (%%) with touch sensors, then IRQ only; %d races per cell.  A tie is"
          " not a right answer." % max(1, trials // 4))
    print("| read time (ms) | touch delay (ms) | dt 1 ms: touch | IRQ only | dt 3 ms: touch | IRQ only"
          " | dt 10 ms: touch | IRQ only |")
    print("|---|---|---|---|---|---|---|---|")
    for read in ((2000, 5000), (5000, 10000), (10000, 20000)):
        for delay in ((0, 0), (0, 2000), (0, 8000)):
            cells = []
            for dt in (1000, 3000, 10000):
                res, _ = race_trials(dt, max(1, trials // 4), True, read_us=read, touch_delay_us=delay)
                for m in ("touch", "irq"):
                    r = res[m]
                    cells.append("%.1f / %.1f / **%.1f**" % (100 * r[0], 100 * r[1], 100 * r[2]))
            print("| %g-%g | %g-%g | %s |" % (read[0] / 1000.0, read[1] / 1000.0, delay[0] / 1000.0,
                                             delay[1] / 1000.0, " | ".join(cells)))
            sys.stdout.flush()
    print("(read time: the emulated PN532's anticollision time plus the wait for its next activation attempt;"
          " touch delay: uniform per landing, on top of the hard-IRQ latency.  A touch delay longer than dt"
          " can swap the edges: those races come out wrong or tied, as a real slow sensor would make them.)")

    print()
    print("== 3. Firmware size on the board: the `spit flash` manifest per board (mpy-cross -march=armv6m;"
          " main.py stays source)")
    names = ("pico", "pico_i2c", "pico_3pile")
    per = [mpy_sizes(n) for n in names]
    keys = sorted(set(k for sizes, _ in per for k in sizes))
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in keys:
        print("| %s | %s |" % (key, " | ".join("%d B" % sizes.get(key, 0) for sizes, _ in per)))
    print("| **total** | %s |" % " | ".join(
        "**%d B = %.1f KB**" % (sum(sizes.values()), sum(sizes.values()) / 1024.0) for sizes, _ in per))
    print("| left off the board | %s |" % " | ".join(
        ", ".join(sorted(r.rsplit("/", 1)[-1] for r in skipped)) for _, skipped in per))
    print("(target <= 60 KB = 61440 B, compiled with -s: no checkout path inside)")

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
