"""A USB host that holds the port open and stops reading cannot stall the referee (issue 28),
on the emulated Pico with the real MicroPython: while the host NAKs the CDC data IN transfers
(SPIT_STALL_S, default 60 s) cards keep landing; every landing gets its LED frame, the
firmware writes nothing to the console meanwhile (a USB CDC write would block up to 500 ms),
the stream resumes when the host reads again and the session log on flash has every verdict.
The timings (step max, landing -> LED) are bench_rp2's (--stall-s), not asserted here."""

import os

import pytest

from host_tools.rp2emu.emulator import why_unavailable

pytestmark = pytest.mark.skipif(why_unavailable() is not None, reason=str(why_unavailable()))

STALL_S = float(os.environ.get("SPIT_STALL_S", "60"))


def test_a_host_that_stops_reading_costs_the_referee_nothing():
    from bench.rp2_bench_setup import LOOP_PIN, READ_MS, bench_board, pn532_model
    from host_tools.rp2emu.stalled_host import stalled_host_game
    f = stalled_host_game(bench_board(2), stall_s=STALL_S, emulator=pn532_model(READ_MS), loop_pin=LOOP_PIN)
    assert f["landings"] >= 10 and f["steps"] > 0
    assert f["missing"] == []                     # every landing's verdict on its pile's LEDs
    assert f["stream_during_stall"] == 0          # nothing written while the host did not read
    assert f["stream_resumed_after_ms"] is not None
    assert f["missed"] == f["dropped"]            # a line not received is a line counted dropped
    assert f["landings_in_log"] == f["landings"] and f["log_has_stream"]
