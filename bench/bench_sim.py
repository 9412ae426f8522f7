"""Benchmark: simulated games per second (fast mode) per preset, and replay throughput.

    .venv/bin/python -m bench.bench_sim [GAMES_PER_PRESET] [--long 1000000]   (defaults 100, 100000)

Prints tables, asserts nothing.

- Replay as users run it: ``spit replay --quiet LOG`` as a whole process (start-up, reading,
  re-judging, comparing with the device's verdict lines) on one long session
  (``bench/long_session.py``: a real session of hundreds of rounds, input events plus the device's
  verdicts), in input events per CPU second, with the process's peak memory (``ru_maxrss``) and
  the rounds, errors and early cards its summary counts.
- The core: ``spit.log.rejudge`` over the session logs of many simulated games (JSON parsing
  included), in input events per second; verdict lines are parsed but not counted as events.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import os
import subprocess
import sys
import tempfile
import time

from spit.log import rejudge
from host_tools.sim.run import run_game
from bench import report
from bench._paths import ROOT
from bench.long_session import write_long_session

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
            events += r.sim.port.verdicts
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


def run_replay_process(path):
    """``spit replay --quiet PATH`` in a new process: (wall s, CPU s, peak RSS in MB, exit code,
    its summary line)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-m", "host_tools", "replay", "--quiet", path], cwd=ROOT,
                                stdout=out, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        summary = next((line for line in out if line.startswith("summary:")), "")
    proc.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, proc.returncode, summary


def _count(summary, word):
    """The number before ``word`` in spit replay's summary line (-1 if absent)."""
    parts = summary.replace(",", " ").split()
    for i in range(1, len(parts)):
        if parts[i] == word and parts[i - 1].isdigit():
            return int(parts[i - 1])
    return -1


def bench_replay_command(sizes, runs=3):
    print("spit replay --quiet LOG, whole process (best of %d; long sessions from bench/long_session.py)" % runs)
    print("(CPU s = user + system of the process: what wall time is on an idle machine)")
    print("(a real session: its re-judge has hundreds of rounds, 0 errors, 0 early; exit 0: the device's")
    print(" verdict lines all match)")
    print("%10s %10s %10s %7s %7s %6s %8s %8s %14s %9s %5s" % (
        "events", "lines", "MB on disk", "rounds", "errors", "early", "wall s", "CPU s", "events/CPU s",
        "peak MB", "exit"))
    rates, peaks = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for events in sizes:
            path = os.path.join(tmp, "long-%d.spitlog" % events)
            with open(path, "w", encoding="utf-8") as f:
                n = write_long_session(f, events)
            with open(path, "rb") as f:
                lines = sum(1 for _ in f)
            best = None
            for _ in range(runs if events <= 200000 else 1):
                run = run_replay_process(path)
                if best is None or run[1] < best[1]:
                    best = run
            wall, cpu, rss, code, summary = best
            print("%10d %10d %10.1f %7d %7d %6d %8.2f %8.2f %14.0f %9.1f %5d" % (
                n, lines, os.path.getsize(path) / 1e6, _count(summary, "rounds"), _count(summary, "errors"),
                _count(summary, "early"), wall, cpu, n / cpu, rss, code))
            rates.append(round(n / cpu))
            peaks.append(rss)
    report.check_all("replay_events_per_cpu_s", rates)
    report.check_all("replay_peak_mb", peaks)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    long_events = [100000]
    if "--long" in argv:
        i = argv.index("--long")
        long_events.append(int(argv[i + 1]))
        argv = argv[:i] + argv[i + 2:]
    n = int(argv[0]) if argv else 100
    print("Python %s" % sys.version.split()[0])
    bench_replay_command(long_events)
    bench_games(n)
    bench_replay(max(n, 50))
    return 0


if __name__ == "__main__":
    sys.exit(main())
