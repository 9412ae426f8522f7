"""Verdict latency of ``spit watch``: from a verdict line written on the serial port to the page
having drawn it (issue 30: under 100 ms).

A pseudo-terminal stands in for the board's USB serial port: this script writes a game's live
stream into its master side (what the firmware printed on the virtual board's console, ``spit
sim --mode firmware``: docs/live-protocol.md, paced at the game's own speed), ``spit watch``'s
reader opens the other side as it opens a board (pyserial), and a headless Chromium shows the
page.  The page reports each verdict it has drawn (``/ack``, an extra request, so the figures
are an upper bound); latency = time of the ack - time the line was written.

    .venv/bin/python -m bench.watch_latency [--seconds 30] [--speed 1]
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from host_tools.watch import Watch, Hub
from host_tools.cli.watch import WatchServer, pump, serial_lines, paced
from host_tools.device.live import split_line
from bench import report

CHROMIUM = "/usr/bin/chromium"


def percentile(values, pct):
    v = sorted(values)
    return v[min(len(v) - 1, (len(v) * pct) // 100)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=30, help="game length (simulated seconds)")
    ap.add_argument("--speed", type=float, default=1.0, help="play the stream this many times faster")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print("chromium not installed: no page to measure")
        return 1
    import tty
    from host_tools.cli.watch import sim_lines
    # the live stream the firmware printed on the virtual board's console (seq and dev on every line)
    lines = sim_lines(argparse.Namespace(ruleset="classic", option=[], seed=args.seed, mode="firmware",
                                         seconds=args.seconds))
    master, slave = os.openpty()
    tty.setraw(slave)
    watch, hub = Watch(), Hub()
    server = WatchServer(("127.0.0.1", 0), watch, hub)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    reader = threading.Thread(target=pump, args=(serial_lines(os.ttyname(slave), server.closing), watch, hub,
                                                 server.closing), daemon=True)
    reader.start()
    url = "http://127.0.0.1:%d/?ack=1" % server.server_address[1]
    profile = tempfile.mkdtemp(prefix="spit-watch-bench-")
    browser = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-background-networking", "--user-data-dir=" + profile,
                                "--remote-debugging-port=0", url], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    written = {}   # (verdict, t) -> monotonic time its line was written
    try:
        end = time.monotonic() + 60
        while not any("state" in q for _t, q in server.acks) and time.monotonic() < end:
            time.sleep(0.05)
        os.write(master, b"spit-referee 0.1.0 board=pico\n")
        for line in paced(lines, args.speed):
            parts = split_line(line)
            obj = json.loads(parts[3]) if parts else {}
            if "verdict" in obj:
                written.setdefault((obj["verdict"], obj["t"]), time.monotonic())
            os.write(master, (line + "\n").encode())
        time.sleep(2.0)
    finally:
        browser.terminate()
        browser.wait(10)
        server.closing.set()
        server.shutdown()
        server.server_close()
    lat, served = [], []
    for at, q in server.acks:
        key = (q.get("verdict"), int(q["t"])) if "t" in q else None
        if key in written:
            lat.append((at - written[key]) * 1000.0)
            pub = hub.published.get(int(q["seq"]))
            if pub is not None:
                served.append((pub - written[key]) * 1000.0)
    print("spit watch verdict latency: serial line written -> drawn on the page (headless Chromium, ack)")
    print("game: classic, seed %d, %.0f s of play (firmware on the virtual board), %d verdicts, speed %.1fx"
          % (args.seed, args.seconds, len(written), args.speed))
    if not lat:
        print("no verdict reached the page")
        return 1
    print("load average at the end: %.2f (2 cores shared with other work)" % os.getloadavg()[0])
    print("%-10s %14s %20s" % ("", "on the page", "read and published"))
    for name, pct in (("min", 0), ("median", 50), ("p90", 90), ("p99", 99), ("max", 100)):
        print("%-10s %11.1f ms %17.1f ms" % (name, percentile(lat, pct), percentile(served, pct) if served else -1))
    print("drawn: %d of %d verdicts" % (len(lat), len(written)))
    report.check("watch_latency_p99_ms", percentile(lat, 99))
    return 0


if __name__ == "__main__":
    sys.exit(main())
