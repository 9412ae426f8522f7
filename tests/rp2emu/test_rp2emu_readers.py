"""The PN532 reader drivers on the real MicroPython rp2 port (emulated Pico, host_tools/rp2emu):
no allocation per card or idle step, and a dead reader's failures and re-setup while the other
pile goes on.  The longest ``service()`` call is printed, not asserted (timings are benchmarks:
bench/bench_rp2.py checks the loop's 5 ms step limit); it was 1.2 ms per card read and 2.3 ms
at most for the SPI wake-up.  tests/rp2emu/rp2_reader_heap.py runs on the chip (mpremote run) while the
table lands a card every 150 ms, alternately on both piles.

Skipped, with the reason, when the emulated Pico is not available (see tests/rp2emu/test_rp2emu.py).
"""

import os

import pytest

from host_tools.rp2emu.emulator import why_unavailable

REASON = why_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MS = 1000


def run_on_chip():
    from host_tools.rp2emu.board import run_script

    def cards(table):
        t = table.now_us
        for k in range(400):   # 60 s of cards: more than the script's run
            table.land_card(k % 2, bytes([4, 0x52, 0x48, k >> 8, k & 0xFF, 0, 1]),
                            t + 300 * MS + k * 150 * MS, touch=False)
    out = run_script(os.path.join(ROOT, "tests", "rp2emu", "rp2_reader_heap.py"), schedule=cards)
    phases = {}
    for line in out.splitlines():
        words = line.split()
        if words[:1] == ["phase"]:
            phases[words[1]] = {"steps": int(words[3]), "cards": int(words[5]),
                                "failures": (int(words[7]), int(words[8])),
                                "errors": words[10], "max_us": int(words[12]),
                                "card_step_us": (int(words[16]), int(words[18]))}
    return phases, out


def test_readers_on_the_chip_allocate_nothing_and_survive_a_dead_reader():
    phases, out = run_on_chip()
    assert "locked" in phases and "dead" in phases, out
    locked = phases["locked"]
    # 3 s of cards every 150 ms: every one read, none counted as a failure ("memory" would
    # be an allocation under the heap lock).
    assert locked["cards"] >= 15 and locked["failures"] == (0, 0), out
    dead = phases["dead"]
    assert dead["failures"][0] == 0 and dead["failures"][1] >= 2, out
    assert dead["cards"] >= 5, out   # pile 0 goes on
    print(out)
