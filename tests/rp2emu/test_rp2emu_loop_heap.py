"""The whole firmware loop on the real MicroPython rp2 port (emulated Pico, host_tools/rp2emu)
allocates nothing while cards land: every ``App.step()`` under ``heap_lock`` on the chip
(tests/rp2emu/rp2_loop_heap.py), with accepted, illegal and late cards, so the verdict LEDs blink and
expire.  The unix port's heap-lock test (tests/micropython/mp_firmware_check.py) cannot see what only the
chip's 31-bit small ints allocate (a sum past 2**30 becomes a big int); this one can.

Skipped, with the reason, when the emulated Pico is not available (see tests/rp2emu/test_rp2emu.py).
"""

import json
import os

import pytest

from host_tools.rp2emu.emulator import why_unavailable

REASON = why_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MS = 1000

# Landings after the countdown: (ms after the first, pile, card).  Pile 0 climbs from its
# spit card, pile 1 falls; a 5 on pile 1 is illegal (R-PLAY-3); two cards 4 ms apart on
# pile 0 are a race the second one loses (late, R-PLAY-5).
LANDINGS = [(0, 0, "7H"), (20, 1, "KS"), (400, 0, "8H"), (420, 1, "QS"), (800, 0, "9H"),
            (820, 1, "5D"), (1200, 0, "10H"), (1204, 0, "8C"), (1600, 1, "JS"), (2000, 0, "JH"),
            (2020, 1, "10S"), (2400, 0, "QH"), (2420, 1, "9S"), (2800, 1, "2C"), (3200, 0, "KH")]


def run_on_chip():
    from host_tools.rp2emu.board import run_script
    from host_tools.rp2emu.install import default_cards
    from spit.rules import make_ruleset

    uid = {card: bytes.fromhex(u) for u, card in default_cards(make_ruleset("classic", {})).items()}

    def schedule(table):
        ready = table.now_us + 2000 * MS   # after the script's boot: both players press READY
        table.press(0, "stuck", ready, hold_us=60 * MS)
        table.press(1, "stuck", ready, hold_us=60 * MS)
        t = ready + 3000 * MS   # after the round's countdown
        for dt, pile, card in LANDINGS:
            table.land_card(pile, uid[card], t + dt * MS)
    return run_script(os.path.join(ROOT, "tests", "rp2emu", "rp2_loop_heap.py"), schedule=schedule)


def test_the_loop_allocates_nothing_on_the_chip_while_cards_land():
    out = run_on_chip()
    assert "control ok" in out, out
    line = next((x for x in out.splitlines() if x.startswith("loop steps")), None)
    assert line is not None and "done" in out, out
    w = line.split()
    steps, errors, cards, writes = int(w[2]), int(w[4]), int(w[6]) + int(w[7]), int(w[9])
    verdicts = [json.loads(x).get("verdict") for x in out.splitlines() if x.startswith("{")]
    assert errors == 0, out
    assert steps > 1000 and cards == len(LANDINGS) and writes > 10, out
    assert {"accept", "illegal", "late"} <= set(verdicts), verdicts
