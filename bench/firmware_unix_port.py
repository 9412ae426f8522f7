"""bench/bench_firmware.py's unix-port part: the firmware loop on the virtual board, run under
.venv/bin/micropython (``bench_firmware.py --mp``), playing a scripted game segment.

It measures the loop's heap (the firmware modules, its objects after boot, the peak during the
game: section 4) and each firmware component's own time on a landing's critical path, with the
virtual board's fakes timed and subtracted (section 1), and prints them as one JSON line
(``print_figures_as_json``).  ``scripted_game`` is the game the latency model replays too.
"""

import json

from bench.firmware_profiler import Profiler


def scripted_game(table):
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


def instrument_table(table, prof):
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


def measure_loop_heap():
    """Heap: the firmware's modules, its objects after boot, and the peak during a game."""
    import gc
    from host_tools.vboard.runner import VirtualTable
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
    landings, end = scripted_game(table)
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
    return {"modules": m1 - m0, "after_boot": m2 - m1, "peak_live": peak_live}


def measure_critical_paths():
    """Timing: a second run of the same game (board settings: pico.json, reorder_us from the
    board) with every firmware component and every fake timed separately.  Returns the
    per-landing critical paths, the idle steps, the garbage per step and the reference loop."""
    import gc
    import time as real_time
    from host_tools.vboard.runner import VirtualTable
    table = VirtualTable()
    landings, end = scripted_game(table)
    app = table.app
    prof = Profiler(real_time.ticks_us, real_time.ticks_diff)
    leak = prof.calibrate()
    instrument_table(table, prof)
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
    return {"paths": paths, "loop_ns": loop_ns, "idle": [idle[len(idle) // 2], idle[len(idle) * 99 // 100], idle[-1]],
            "leak_us": leak, "steps": len(idle) + len(crit),
            "garbage": [garbage[len(garbage) // 2], garbage[-1]]}


def print_figures_as_json():
    """The loop's heap, then its timing, as one JSON line (what bench_firmware.py reads)."""
    figures = measure_loop_heap()
    figures.update(measure_critical_paths())
    print(json.dumps(figures))
