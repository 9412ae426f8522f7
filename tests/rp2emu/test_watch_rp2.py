"""``spit watch`` against the emulated Pico running the real firmware, live: the firmware's USB
console goes line by line into the page as the emulator prints it; a page open from boot draws
every verdict in order, and one opened mid-game shows the right tops at once (headless Chromium).

Skipped when the MicroPython image / bootrom or node + rp2040js are missing (as tests/rp2emu/test_rp2emu.py),
or Chromium is.  CPU-heavy: one short game.
"""

import os

import pytest

from host_tools.rp2emu.emulator import why_unavailable
from support.watch import CHROMIUM, log_objects, watch_pages, assert_pages

REASON = why_unavailable() or (None if os.path.exists(CHROMIUM) else "chromium not installed")
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

MS = 1000


def test_watch_a_game_on_the_emulated_pico(tmp_path, monkeypatch):
    from host_tools.rp2emu import board as rp2board
    lines = []
    state = {"served": None, "partial": b"", "board": None}
    original = rp2board.FlashedPico._serial

    def serial(self, data):   # the console's bytes, as `spit watch --port` reads them, into the page
        buf = state["partial"] + data
        *done, state["partial"] = buf.split(b"\n")
        for raw in done:
            line = raw.decode(errors="replace").rstrip("\r")
            lines.append(line)
            state["served"].hub.publish(state["served"].watch.feed(line))
        original(self, data)
    monkeypatch.setattr(rp2board.FlashedPico, "_serial", serial)

    def first(served):
        state["served"] = served
        b = state["board"] = rp2board.FlashedPico()
        t = 2600 * MS
        b.land(0, "5S", t)
        b.land(1, "9H", t + 40 * MS)
        b.land(0, "6D", t + 900 * MS)
        b.run_to(t + 1400 * MS)

    def rest(served):
        b = state["board"]
        t = 4500 * MS
        try:
            b.land(0, "7C", t)
            b.land(0, "7H", t + 5 * MS)      # a race: late (or a tie)
            b.land(1, "2S", t + 600 * MS)    # illegal on 9H
            b.land(1, "10C", t + 1200 * MS)
            b.run_to(t + 2500 * MS)
        finally:
            b.close()

    pages, tops_at = watch_pages(tmp_path, first, rest)
    verdicts = [v for v in log_objects(lines) if "verdict" in v]
    kinds = [v["verdict"] for v in verdicts]
    assert kinds.count("spit") == 2 and "illegal" in kinds
    assert_pages(pages, tops_at, verdicts)
