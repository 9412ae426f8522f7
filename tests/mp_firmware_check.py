"""The firmware loop under the real MicroPython unix port, on the virtual board.

Run from the repository root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/mp_firmware_check.py
Boots firmware/main.py unchanged with the clock just below a 2**30 wrap, plays a scripted
game (hard IRQ handlers run under heap_lock), and checks the LEDs, the race order across the
wrap, a reader fault and that the device's verdict lines equal spit.log.rejudge of the log.
Prints "mp_firmware_check: OK" and exits 0, or exits 1.
"""

import json
import sys

from host_tools.vboard.runner import VirtualTable
from host_tools.vboard.pins import Pin

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def verdict_lines(lines):
    return [json.loads(line) for line in lines if '"verdict"' in line]


def main():
    from spit.log import rejudge
    from spit.notation import items_json
    t = VirtualTable(start_us=(1 << 30) - 3_500_000)
    try:
        wrap_at = (1 << 30) - t.t0
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)
        t.land_card(1, "QS", 2_600_000)
        first = wrap_at - 2_000
        t.land_card(0, "8H", first)
        t.land_card(0, "8C", first + 5_000)
        t.at(first + 100_000, lambda: setattr(t.emulators[1], "nack_next", True))
        t.land_card(0, "9C", first + 300_000)
        t.land_card(1, "2C", first + 400_000)
        t.run_until(first + 160_000)
        leds = t.led_state()
        check(leds.get("PILE0") == "orange", "pile 0 shows the late 8C: %r" % (leds,))
        t.press(0, "stuck", first + 600_000)
        t.press(1, "stuck", first + 700_000)
        t.run_until(first + 1_000_000)
        check(t.wrapped(), "ticks wrapped during play")
        check(Pin.irq_errors == [], "hard IRQ handlers allocate nothing: %r" % (Pin.irq_errors,))
        lines = t.log_lines()
        device = [v for v in verdict_lines(lines)
                  if not (v["verdict"] == "error" and v["reason"] in ("reader_down", "overflow", "unknown_uid"))]
        r = rejudge(lines)
        again = [json.loads(items_json(items)) for _, items in r.verdicts]
        check(device == again, "device verdicts == rejudge:\n%r\n%r" % (device, again))
        got = [(v["verdict"], v.get("card")) for v in device if v["verdict"] in ("accept", "late", "illegal")]
        check(got == [("accept", "QS"), ("accept", "8H"), ("late", "8C"), ("accept", "9C"), ("illegal", "2C")],
              "verdicts %r" % (got,))
        check(any(v.get("reason") == "reader_down" for v in verdict_lines(lines)), "NACK flagged")
    finally:
        t.close()
    if failures:
        print("mp_firmware_check: %d failures" % len(failures))
        sys.exit(1)
    print("mp_firmware_check: OK")


main()
