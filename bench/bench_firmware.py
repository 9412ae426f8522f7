"""Firmware loop benchmark: prints tables (never asserts timings), each figure that has a target
beside it (bench/targets.json), met or MISSED.

    .venv/bin/python -m bench.bench_firmware [--trials N]

1. Landing -> LED verdict latency on the device (board pico: its reorder_us, touch sensors).
   Measured: the virtual board's pipeline (PN532 timing model, loop period, the engine's hold)
   and, on the MicroPython unix port, each firmware component's own time on a landing's critical
   path (reader + driver, engine, session log, LED render, loop), with the virtual board's fakes
   (bus + PN532 emulator, pins, time proxy, strip write) timed and subtracted.  Modelled: x80 for
   the RP2040, the C calls the fakes stand in for, SPI wire time (bytes x 8 / baud), the WS2812
   write.  Target: ``landing_to_led_p50_ms``.
2. Race-order accuracy against the landing gap dt, as the referee's verdicts (right winner /
   declared tie / wrong winner) for touch-sensor timestamps, PN532-IRQ-only timestamps and naive
   poll order, same pile and two piles: landings on emulated PN532s (real driver + NfcReader),
   fed to the engine.  Target: ``race_not_wrong_touch_pct`` (touch sensors, dt >= 1 ms).
2c. Races on one pile through the whole firmware on the virtual board (its reads, their evidence
    and its log, re-judged as `spit replay` does), per landing gap, reader time, missed touch
    edges and touch sensor delay (host_tools/vboard/touch_sensor.py).  Targets: ``race_wrong``,
    ``race_tie_*`` (issue 25).
3. .mpy size of what `spit flash` puts on each board (firmware/manifest.py).  Target:
   ``mpy_bytes_per_board``.
4. Heap of the firmware loop during a simulated game on the unix port.

The unix-port part runs this file under .venv/bin/micropython with ``--mp`` and reads JSON.

This file is the entry point; the parts live beside it: firmware_unix_port.py (the unix-port
part, with firmware_profiler.py), firmware_latency_budget.py (1), firmware_races.py (2, 2b),
firmware_mpy_size.py (3); firmware_bench_setup.py has what they share (the root, board files).
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import json
import os
import sys

from bench.firmware_bench_setup import ROOT
from bench.firmware_latency_budget import print_latency_budget
from bench.firmware_mpy_size import print_mpy_sizes
from bench.firmware_races import print_firmware_races, print_race_order, print_read_time_sweep
from bench.firmware_unix_port import print_figures_as_json

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

    print_latency_budget(mp)

    print()
    print_race_order(trials)

    print()
    print_read_time_sweep(trials)

    print()
    print_firmware_races(max(10, trials // 5))

    print()
    print_mpy_sizes()

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
        print_figures_as_json()
    else:
        main()
