"""Section 1 of bench/bench_firmware.py: the landing -> LED verdict latency budget on the device.

The virtual board's pipeline (PN532 timing model, loop period, the engine's hold) measured in
virtual time (``virtual_latency``), plus the firmware's critical-path compute from the unix-port
part (firmware_unix_port.py), scaled to the RP2040 by a model (DEVICE_FACTOR, C_CALL_US, SPI
wire time, the WS2812 write).
"""

from bench import report
from bench.firmware_bench_setup import ANTICOLLISION_US, ATTEMPT_US, board_settings
from bench.firmware_unix_port import COMPONENT_TITLES, COMPONENTS, scripted_game

DEVICE_FACTOR = 80           # the RP2040 runs plain Python ~80x slower than the unix port here
C_CALL_US = 3                # one call into a C builtin (SPI transfer setup, Pin.value, ticks_us) on the RP2040


def virtual_latency(reorder_us=None, loop_us=1000):
    """Virtual time from a card's touch edge until its pile zone shows the verdict (steps take
    no virtual time).  ``reorder_us`` None: the board's (pico.json), as the firmware applies it."""
    from host_tools.vboard.runner import VirtualTable
    table = VirtualTable(options={"reorder_us": reorder_us} if reorder_us is not None else None,
                         loop_us=loop_us)
    try:
        landings, end = scripted_game(table)
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


def print_latency_budget(mp):
    """Section 1's tables, from the unix-port figures ``mp`` (firmware_unix_port's JSON)."""
    board = board_settings("pico")
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
          " total p50 / max (ms) | target (p50) |")
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
        print("| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %s: %s |" % (
            label, p50, mx, c50, cmx, p50 + c50, mx + cmx, report.limit("landing_to_led_p50_ms"),
            report.word(report.met("landing_to_led_p50_ms", p50 + c50))))
    print("(measured: the virtual pipeline -- PN532 timing model: next activation attempt <= %d us + %d us"
          " anticollision; the loop period; the engine's hold, released at once by the pending touch --,"
          " and each firmware component's unix-port time.  modelled: x%d unix->RP2040, C calls, SPI wire time,"
          " strip write.  Totals add p50s and maxes (max = a bound).  GC pauses are excluded"
          " (gc.collect between steps); section 4 shows the garbage per step.  A model: bench_rp2 measures"
          " the target's figure on the emulated chip.)" % (
              ATTEMPT_US, ANTICOLLISION_US, DEVICE_FACTOR))
