"""STUCK buttons on the emulated Pico after some play (host_tools/rp2emu, the real rp2 port).

Skipped like tests/rp2emu/test_rp2emu.py when the MicroPython image, bootrom or node are missing.
"""

import pytest

from host_tools.rp2emu.emulator import why_unavailable

REASON = why_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

MS = 1000
UNKNOWN_UID = bytes.fromhex("04DEADBEEF0001")


def test_r_stall_every_stuck_press_counts_after_play_and_an_unknown_tag():
    """Each bouncing STUCK press (60 ms) is one ``stuck`` event, wherever its release edge
    falls in the loop step (the presses step through a step's phases by 0.73 ms)."""
    from host_tools.rp2emu.board import FlashedPico
    b = FlashedPico()
    try:
        t = 2600 * MS
        b.land(0, "5S", t)
        b.land(1, "9H", t + 40 * MS)
        b.land(0, "6D", t + 1000 * MS)
        t += 2000 * MS
        b.land(0, UNKNOWN_UID, t)
        b.table.lift_card(0, UNKNOWN_UID, b.t0 + t + 500 * MS)
        b.run_to(t + 1000 * MS)
        assert any(v["verdict"] == "error" and v["reason"] == "unknown_uid" for v in b.since(0))
        n = len(b.events)
        t += 1000 * MS
        players = [k % 2 for k in range(8)]
        for k, player in enumerate(players):
            b.table.press(player, "stuck", b.t0 + t + k * (250 * MS + 731), hold_us=60 * MS)
        b.run_to(t + len(players) * 250 * MS + 200 * MS)
        stucks = [o["player"] for _, o in b.events[n:] if o.get("ev") == "stuck"]
        assert stucks == players
    finally:
        b.close()
