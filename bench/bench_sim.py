"""Benchmark: simulated games per second (fast mode) per preset, and replay throughput.

    .venv/bin/python bench/bench_sim.py [GAMES_PER_PRESET]     (default 100)

Prints tables, asserts nothing.  Replay throughput: ``spit.log.rejudge`` over the session logs
of many simulated games (JSON parsing included), in input events per second; the verdict lines
the simulation wrote into the logs are parsed too but not counted as events.
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware", "lib"), ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)

from spit.log import rejudge  # noqa: E402
from host_tools.sim.run import run_game  # noqa: E402

PRESETS = ("classic", "tableau", "family", "own_deck", "speed")


def bench_games(n):
    print("%-10s %7s %10s %12s %14s" % ("preset", "games", "games/s", "sim-min/s", "verdicts/game"))
    for preset in PRESETS:
        t0 = time.perf_counter()
        sim_us = 0
        events = 0
        for seed in range(1, n + 1):
            r = run_game(preset, seed=seed, keep_log=False)
            sim_us += r.length_us
            events += r.sim.port.ref.n_verdicts
        dt = time.perf_counter() - t0
        print("%-10s %7d %10.1f %12.1f %14.0f" % (preset, n, n / dt, sim_us / 60e6 / dt, events / n))
    t0 = time.perf_counter()
    for seed in range(1, n + 1):
        run_game("classic", seed=seed, keep_log=True)
    dt = time.perf_counter() - t0
    print("%-10s %7d %10.1f   (with the session log written)" % ("classic+log", n, n / dt))


def bench_replay(games):
    logs = [run_game("classic", seed=s).lines for s in range(1, games + 1)]
    lines = sum(len(l) for l in logs)
    events = sum(1 for l in logs for line in l if '"ev"' in line)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        for log in logs:
            rejudge(log)
        dt = time.perf_counter() - t0
        best = dt if best is None or dt < best else best
    print("replay: %d logs, %d lines, %d input events: %.3f s -> %.0f events/s (%.0f lines/s)"
          % (games, lines, events, best, events / best, lines / best))
    # Without the device verdict lines: what a log of input events only costs.
    inputs = [[line for line in log if '"verdict"' not in line] for log in logs]
    t0 = time.perf_counter()
    for log in inputs:
        rejudge(log)
    dt = time.perf_counter() - t0
    print("replay, input events only: %.3f s -> %.0f events/s" % (dt, events / dt))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 100
    print("Python %s" % sys.version.split()[0])
    bench_games(n)
    bench_replay(max(n, 50))
    return 0


if __name__ == "__main__":
    sys.exit(main())
