"""The referee measured on the real MicroPython, on an emulated RP2040, from its pins.

    .venv/bin/python bench/bench_rp2.py                 # every preset, a 3-pile game, races (long: see below)
    .venv/bin/python bench/bench_rp2.py --presets speed --seconds 40 --races 2
    .venv/bin/python bench/bench_rp2.py --json          # the same figures as one JSON object

Our firmware is flashed with `spit flash` (mpremote on a pty) onto MicroPython v1.26.1 (rp2,
RPI_PICO) running on rp2040js, with the bench's board file (boards/pico.json plus a
``loop_pin`` probe on GP0).  Bots play whole games through the pins (host_tools/sim, rp2 mode);
every figure is emulated time seen at the pins or in the chip's RAM:

* landing -> LED: the touch sensor's edge to the start of the first WS2812 frame (decoded from
  the data pin) whose pile zone shows the verdict's colour; landings whose zone already showed
  that colour are not measurable and are counted apart;
* read -> LED: the card event's time stamp (the reader's report) to that frame;
* the reads: the landing to the card event (the PN532's read as this run got it: landings at
  random times give 7.5 ms at the median for reads of 5-10 ms; landing -> LED moves with it);
* loop period and step time: the loop_pin's rising edges and high time; steps in play apart from
  steps between rounds (after a round's slaps are settled, before the next countdown: no card,
  slap or press can race anything there, so the session log is written to flash then); a step
  holding a flash erase or program (interrupts masked, code stalled: ~45 ms for a 4 KB erase,
  whatever the firmware does) is counted apart, and none may fall in play; the 5 ms step target
  is for play (a pause's ``gc.collect()`` of a ~105 KB heap alone takes 6-17 ms on the chip);
* interrupts masked: PRIMASK spans seen by the emulator, by cause (a WS2812 frame inside: leds;
  a flash erase/program inside: flash);
* heap: MicroPython's allocation table read from RAM every 100 us (no code on the board):
  high-water of the heap in use, the heap in use when the game starts and when it ends (with no
  allocation in play the difference is growth), and the bytes allocated per landing: what the
  loop keeps (the heap read at each loop step's end, when the step's call frames are freed
  again: the sum of the rises; this is what ``gc.mem_alloc()`` around a landing shows, and
  what garbage collections come from), in play; the rises between rounds (where the log is
  formatted and written and ``gc.collect()`` runs) are shown apart; and apart from it the sum of every rise sampled every
  100 us (MicroPython puts a call frame of more than 11 words on the heap and frees it on
  return: churn, not garbage; under ``heap_lock`` such frames go on the C stack);
* races: two cards on one pile dt apart (touch edges + tags), counted right / tie / wrong as the
  players would (a tie is not right);
* .mpy size per board, compiled as `spit flash` compiles it;
* a stalled USB host (issue 28; ``--stall-s``, 0 to skip): the host holds the port open and stops
  reading (it NAKs the CDC data IN transfers) for that long in the middle of a game while cards
  keep landing (host_tools/rp2emu/stalled_host.py): the loop's step max while stalled, landing
  -> LED, the stream's resumption and dropped count, every verdict in the session log on flash.

The emulator does not model flash wait states or XIP cache misses (code runs from flash on a
real Pico), so a real chip is slower than these figures; it runs 2-3x slower than real time on
this machine, so a whole classic game takes minutes of wall time.

This file is the entry point; the parts live beside it: rp2_games.py (whole games played and
analysed), rp2_races.py (races on one pile), rp2_engine_on_chip.py (the engine alone),
rp2_report.py (the figures, their tables and the targets, bench/targets.json); rp2_bench_setup.py
has what they share (the bench board, the PN532 reads); the .mpy sizes are firmware_mpy_size's.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import json
import sys

from bench import report, rp2_bench_setup
from bench.rp2_bench_setup import READ_MS
from bench.rp2_engine_on_chip import engine_on_chip
from bench.rp2_games import play
from bench.rp2_races import races
from bench.rp2_report import gather_figures, print_measurements, print_targets

PRESETS = ("classic", "tableau", "family", "own_deck", "speed")


def mpy_sizes():
    """Bytes per board of what `spit flash` installs, compiled as it compiles (bench_firmware's
    section 3 shows them per directory)."""
    from bench.firmware_mpy_size import mpy_sizes as per_directory
    return {name: sum(per_directory(name)[0].values()) for name in ("pico", "pico_3pile", "pico_i2c")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presets", default=",".join(PRESETS) + ",classic:piles=3")
    ap.add_argument("--seconds", type=float, default=0, help="cut each game after N s of play (0: whole games)")
    ap.add_argument("--races", type=int, default=4, help="races per dt (default 4)")
    ap.add_argument("--read-ms", default="%d-%d" % READ_MS, metavar="LO-HI",
                    help="PN532 read time, card in the field to the listing's reply (default %d-%d ms, "
                         "issue 8's condition)" % READ_MS)
    ap.add_argument("--stall-s", type=float, default=60,
                    help="seconds of a stalled USB host in the middle of a game (0: skip; default 60)")
    ap.add_argument("--unprobed", action="store_true",
                    help="the readers without the first-contact probe's answers in board.json (a board never "
                         "probed: the safe defaults; by default they have the answers the probe gives for "
                         "the bench's PN532 model, as after bring-up)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rp2_bench_setup.PROBED = not args.unprobed
    try:
        lo, hi = (int(x) for x in args.read_ms.split("-"))
        if not 0 < lo <= hi:
            raise ValueError
    except ValueError:
        ap.error("--read-ms wants LO-HI in ms, 0 < LO <= HI (e.g. 5-10), not %r" % args.read_ms)
    read_ms = (lo, hi)
    from host_tools.rp2emu.emulator import why_unavailable
    reason = why_unavailable()
    if reason:
        sys.exit("bench_rp2: %s" % reason)

    def say(text):
        sys.stderr.write("bench_rp2: %s\n" % text)
        sys.stderr.flush()

    say("games on the emulated Pico run 2-3x slower than real time; whole games of every preset take "
        "tens of minutes (--presets / --seconds to cut)")
    games = {}
    for spec in args.presets.split(","):
        preset, _, opt = spec.partition(":")
        options = {}
        if opt:
            k, v = opt.split("=")
            options[k] = int(v) if v.isdigit() else v
        say("playing %s on the emulated Pico" % spec)
        games[spec] = play(preset, options, args.seconds, say, read_ms)
        g = games[spec]
        say("%s: %d landings, %.0f s of play in %.0f s wall" % (spec, g["landings"], g["length_s"], g["wall_s"]))
    race = races(args.races, say, read_ms) if args.races else {}
    engine = engine_on_chip(say)
    sizes = mpy_sizes()
    stall = stalled_host(args.stall_s, say, read_ms) if args.stall_s else None
    figures = gather_figures(games, race, engine, sizes, read_ms)
    if stall is not None:
        figures["stalled_host"] = stall
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print_measurements(figures, games, race)
    if stall is not None:
        print_stalled_host(stall)
    print_targets(figures, games, race)
    return 0


def stalled_host(seconds, say, read_ms):
    """The stalled-host game's figures (host_tools/rp2emu/stalled_host.py)."""
    from bench.rp2_bench_setup import LOOP_PIN, bench_board, pn532_model
    from host_tools.rp2emu.stalled_host import stalled_host_game
    say("a game with the USB host stalled for %.0f s (it NAKs IN transfers)" % seconds)
    return stalled_host_game(bench_board(2), stall_s=seconds, emulator=pn532_model(read_ms),
                             loop_pin=LOOP_PIN, progress=say)


def print_stalled_host(f):
    """The stalled host's table (issue 28: the loop's steps short, LEDs on time, every verdict in
    the log, the stream resuming with the dropped count), its targets after it."""
    led = f["led_ms"]
    print()
    print("USB host stalled %.0f s mid-game (holds the port open, NAKs IN), classic, %d landings meanwhile"
          % (f["stall_s"], f["landings"]))
    print("  %-44s %s" % ("loop steps while stalled", f["steps"]))
    print("  %-44s %.2f ms (p99 %.2f ms)" % ("step max while stalled", f["step_max_ms"] or 0, f["step_p99_ms"] or 0))
    print("  %-44s %s" % ("landing -> LED while stalled (p50 / max)", "%.2f / %.2f ms" % (
        sorted(led)[len(led) // 2], max(led)) if led else "-"))
    print("  %-44s %s" % ("landings without their LED frame", len(f["missing"])))
    print("  %-44s %d" % ("stream lines written while stalled", f["stream_during_stall"]))
    print("  %-44s %s" % ("stream resumed after the host reads again", "%.1f ms" % f["stream_resumed_after_ms"]
                          if f["stream_resumed_after_ms"] is not None else "-"))
    print("  %-44s %d dropped (counted on the stream), %d missed" % ("stream lines", f["dropped"], f["missed"]))
    print("  %-44s %d of %d landings; stream's verdicts all in the log: %s" % (
        "session log on flash", f["landings_in_log"], f["landings"], "yes" if f["log_has_stream"] else "NO"))
    report.header("bench_rp2, the stalled host")
    report.check("stalled_host_step_max_ms", f["step_max_ms"])
    report.check("stalled_host_landings_without_led", len(f["missing"]))
    report.check("stalled_host_landings_missing_from_log", f["landings"] - f["landings_in_log"])


if __name__ == "__main__":
    sys.exit(main())
