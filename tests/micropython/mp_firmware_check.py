"""The firmware loop under the real MicroPython unix port, on the virtual board.

Run from the repository root:
    MICROPYPATH=.frozen:firmware:firmware/lib:. .venv/bin/micropython tests/micropython/mp_firmware_check.py
Boots firmware/main.py unchanged with the clock just below a 2**30 wrap, plays a scripted
game (hard IRQ handlers run under heap_lock), and checks the LEDs, the race order across the
wrap, a reader fault and that the device's verdict lines equal spit.log.rejudge of the log.

Then the allocation proof: a second game where every ``App.poll()`` (inputs, card map,
engine, LED intents and frames, log records, buzzer, and the reader drivers from the PN532's
IRQ to the UID) and, in play, ``App.pause_work()`` (the live log echoed to the console,
formatted into a bytearray) runs under ``micropython.heap_lock()`` while cards land (accepted,
illegal, a race lost, spit calls and countdowns, slaps), so one allocated byte raises
MemoryError (a reader would count it as a failure: none may happen).  A negative control (an
allocating verdict hook) must be caught.  And the loop's own heap lock (``run_locked``) falls
back to unlocked steps when something allocates under it (``lock_fallback``).  Prints
"mp_firmware_check: OK" and exits 0, or exits 1.
"""

import json
import sys

from host_tools.vboard.runner import VirtualTable
from host_tools.vboard.pins import Pin
from host_tools.device.live import live_lines

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def verdict_lines(lines):
    return [json.loads(line) for line in lines if '"verdict"' in line]


def main():
    from spit.log import rejudge
    from spit.words import items_json
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
    locked_game()
    if failures:
        print("mp_firmware_check: %d failures" % len(failures))
        sys.exit(1)
    print("mp_firmware_check: OK")


def locked_game():
    from host_tools.vboard import heapgate
    t = VirtualTable(start_us=(1 << 30) - 2_500_000, lock_heap=True, console=True)
    try:
        app = t.app
        landings = 0
        at = 2_000_000
        # Pile 0 climbs from 7H, pile 1 from KS down; a few illegal cards and one lost race.
        for p0, p1 in (("8H", "QS"), ("9H", "JS"), ("2C", "TS"), ("TH", "9S"), ("JH", "4D"),
                       ("QH", "8S"), ("KH", "7S"), ("AH", "6S")):
            t.land_card(0, p0, at)
            t.land_card(1, p1, at + 40_000)
            at += 300_000
            landings += 2
        t.land_card(0, "7H", 1_000_000)
        t.land_card(1, "KS", 1_050_000)
        landings += 2
        t.land_card(0, "2H", at)           # a race on pile 0: 2H first, 2D 1 ms later
        t.land_card(0, "2D", at + 1_000)
        landings += 2
        t.press(0, ("slap", 0), at + 200_000)
        t.press(0, "stuck", at + 400_000)  # both stuck: a spit call and a countdown
        t.press(1, "stuck", at + 450_000)
        t.land_card(1, "5S", at + 4_000_000)
        landings += 1
        t.run_until(at + 4_500_000)
        check(Pin.irq_errors == [], "hard IRQ handlers allocate nothing: %r" % (Pin.irq_errors,))
        v = [o["verdict"] for o in t.log_objects() if "verdict" in o]
        check(v.count("accept") >= 12 and "illegal" in v and "late" in v and "spit_call" in v,
              "the locked game was refereed: %r" % (v,))
        check(app.readers[0].cards + app.readers[1].cards == landings,
              "every landing read: %d of %d" % (app.readers[0].cards + app.readers[1].cards, landings))
        check(app.readers[0].failures + app.readers[1].failures == 0,
              "no reader failure under the lock: %r" % ([r.last_error for r in app.readers],))
        # The live echo (the console) ran in the locked steps too: the same lines as the log.
        # (The stream's protocol lines without their seq/dev: docs/live-protocol.md.)
        echoed = [b for k, _, b, _ in live_lines(t.console) if k == "log"]
        logged = t.log_lines()[1:]
        check(len(echoed) > 3 * landings and echoed == logged[:len(echoed)],
              "the console echo (formatted under heap_lock) equals the log: %d lines echoed of %d"
              % (len(echoed), len(logged)))
        print("locked game: %d landings, %d steps with App.poll() (readers included) and the echo "
              "under heap_lock, %d verdicts" % (landings, t.steps, len(v)))
        # Negative control: an allocation in the loop must be caught.
        app.buzzer.update = lambda ms: [ms]
        caught = False
        try:
            t.run_until(t.now_us + 300_000)
        except MemoryError:
            caught = True
        check(caught, "negative control: an allocating verdict hook under the step lock is caught")
    finally:
        heapgate.unlock_step()
        t.close()


def lock_fallback():
    """The loop locks the heap itself around code that allocates nothing (referee/loop.py
    ``run_locked``, the card callback).  If such code allocates after all, the MemoryError
    must not stop the game: the locking stops for the session, the referee goes on, and the
    next pause says so."""
    t = VirtualTable(start_us=(1 << 30) - 2_500_000, console=True)
    try:
        app = t.app
        render = app.leds.render

        def allocating_render(intents, ms):   # a drawing that allocates (a bug)
            _ = [ms]
            return render(intents, ms)
        app.leds.render = allocating_render
        t.land_card(0, "7H", 2_000_000)    # the spit cards, after the countdown
        t.land_card(1, "KS", 2_050_000)
        t.land_card(0, "8H", 2_400_000)
        t.land_card(1, "QS", 2_440_000)
        t.run_until(3_000_000)
        v = [o["verdict"] for o in t.log_objects() if "verdict" in o]
        check(app.lock_failures == 1 and app.heap_lock is None,
              "an allocation under the loop's own lock stops the locking once: %d failures"
              % app.lock_failures)
        check(v.count("accept") == 2, "the game goes on after it: %r" % (v,))
        check(app.leds.writes > 0, "the LEDs are drawn unlocked after it")
    finally:
        t.close()


lock_fallback()
main()
