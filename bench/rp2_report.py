"""The report of bench/bench_rp2.py: the figures of the games, the races, the engine alone and the
.mpy sizes gathered into one dict (``gather_figures``: what ``--json`` prints), the tables of
measurements (``print_measurements``) and the targets of bench/targets.json, met or MISSED (``print_targets``).
"""

from bench import report
from bench.rp2_bench_setup import triple
from bench.rp2_races import RACE_DTS_MS, print_slowest_races


fmt = report.fmt


def gather_figures(games, race, engine, sizes, read_ms):
    """The figures of ``games`` ({spec: rp2_games.play's dict}), ``race`` (rp2_races.races),
    ``engine`` (rp2_engine_on_chip.engine_on_chip) and ``sizes`` (.mpy bytes per board), measured
    with PN532 reads of ``read_ms`` = (lo, hi) ms."""
    engine_ms, engine_alloc, engine_unlocked_ms = engine
    all_landing = [x for g in games.values() for x in g["landing_to_led_ms"]]
    all_read = [x for g in games.values() for x in g["read_to_led_ms"]]
    all_reads = [x for g in games.values() for x in g["read_ms"]]
    all_loop = [x for g in games.values() for x in g["loop_ms"]]
    all_step = [x for g in games.values() for x in g["step_ms"]]
    all_break = [x for g in games.values() for x in g["break_step_ms"]]
    all_flash = [x for g in games.values() for x in g["flash_step_ms"]]
    flash_in_play = sum(g["flash_steps_in_play"] for g in games.values())
    leds = [x for g in games.values() for x in g["masked_ms"]["leds"]]
    fl = [x for g in games.values() for x in g["masked_ms"]["flash"]]
    return {
        "pn532_read_ms": list(read_ms),
        "landing_to_led_ms": triple(all_landing),
        "read_to_led_ms": triple(all_read),
        "read_ms": triple(all_reads),
        "loop_ms": triple(all_loop),
        "step_ms": triple(all_step),
        "break_step_ms": triple(all_break),
        "flash_step_ms": dict(triple(all_flash), count=len(all_flash), in_play=flash_in_play),
        "peak_heap_bytes": {k: g["heap_peak"] for k, g in games.items()},
        "heap_after_boot_bytes": {k: g["heap_boot"] for k, g in games.items()},
        "heap_at_end_bytes": {k: g["heap_end"] for k, g in games.items()},
        "heap_floor_trend": {k: g["heap_growth"] for k, g in games.items()},
        "alloc_per_landing_bytes": {k: round(g["alloc_per_landing"], 1) for k, g in games.items()},
        "alloc_with_call_frames_per_landing_bytes": {k: round(g["frames_per_landing"], 1) for k, g in games.items()},
        "race": {str(k): v for k, v in race.items()},
        "irq_masked_ms": {"leds": max(leds) if leds else 0.0, "flash": max(fl) if fl else 0.0,
                          "leds_total": sum(leds), "flash_total": sum(fl)},
        "mpy_bytes": sizes,
        "engine_ms_per_landing": engine_ms,
        "engine_ms_per_landing_heap_unlocked": engine_unlocked_ms,
        "engine_alloc_per_landing_bytes": engine_alloc,
        "landings": {k: {"all": g["landings"], "measured": g["measured"], "ambiguous": g["ambiguous"],
                         "unseen": g["unseen"]} for k, g in games.items()},
        "slowest": {k: g["slowest"] for k, g in games.items()},
        "slow_steps": {k: g["slow_steps"] for k, g in games.items()},
        "games": {k: {"finished": g["finished"], "play_s": round(g["length_s"], 1), "wall_s": round(g["wall_s"], 1),
                      "disagreements": len(g["notes"]), "stalled": g["stalled"]} for k, g in games.items()},
    }


def print_measurements(figures, games, race):
    """The figures as tables: the pooled timings, the heap per game, the races by dt, .mpy and
    the engine alone."""
    read_ms = tuple(figures["pn532_read_ms"])
    flash_in_play = figures["flash_step_ms"]["in_play"]
    sizes = figures["mpy_bytes"]
    engine_ms, engine_alloc, engine_unlocked_ms = (figures["engine_ms_per_landing"],
                                                   figures["engine_alloc_per_landing_bytes"],
                                                   figures["engine_ms_per_landing_heap_unlocked"])
    from bench.rp2_bench_setup import PROBED
    print("MicroPython v1.26.1 rp2 on an emulated RP2040 (rp2040js, 125 MHz, no flash wait states), from the pins; "
          "PN532 reads of %d-%d ms; readers %s" % (read_ms + (
              "with the probe's answers in board.json" if PROBED else "without the probe's answers (--unprobed)",)))
    print("%-42s %10s %10s %10s" % ("figure", "p50", "p99", "max"))
    for key, label in (("landing_to_led_ms", "landing (touch edge) -> LED frame, ms"),
                       ("read_to_led_ms", "read (card event) -> LED frame, ms"),
                       ("read_ms", "the reads: landing -> card event, ms"),
                       ("loop_ms", "loop period, ms"), ("step_ms", "loop step (busy) in play, ms"),
                       ("break_step_ms", "loop step between rounds, ms"),
                       ("flash_step_ms", "loop step writing the log to flash, ms")):
        f = figures[key]
        print("%-42s %10s %10s %10s" % (label, fmt(f["p50"]), fmt(f["p99"]), fmt(f["max"])))
    print_slowest(games)
    rm = figures["read_ms"]["p50"]
    if rm is not None:
        # A landing at a random time is read at the median of the model's range; landings that
        # keep falling at one point of the chip's activation cycle move it (docs/bench-history.md, session 10).
        print("the reads' median: %.2f ms (a landing at a random time: %.2f ms); landing -> LED p50 moves "
              "with it" % (rm, (read_ms[0] + read_ms[1]) / 2.0))
    print("loop steps writing the log to flash: %d, %d of them in play (flash erase/program masks interrupts)"
          % (figures["flash_step_ms"]["count"], flash_in_play))
    print("interrupts masked per write: leds %.3f ms (total %.1f ms), flash %.1f ms (total %.1f ms)" % (
        figures["irq_masked_ms"]["leds"], figures["irq_masked_ms"]["leds_total"],
        figures["irq_masked_ms"]["flash"], figures["irq_masked_ms"]["flash_total"]))
    print("%-18s %9s %9s %10s %9s %9s %9s %8s %8s %6s" % ("game", "landings", "measured", "heap start", "heap end",
                                                           "heap peak", "B/landing", "play s", "wall s", "disagr"))
    for k, g in games.items():
        print("%-18s %9d %9d %10d %9d %9d %9.1f %8.1f %8.1f %6d" % (k, g["landings"], g["measured"], g["heap_boot"],
                                                               g["heap_end"], g["heap_peak"], g["alloc_per_landing"],
                                                               g["length_s"], g["wall_s"], len(g["notes"])))
    for k, g in games.items():
        for note in g["stalled"]:
            print("%-18s DID NOT END: %s" % (k, note))
    for k, g in games.items():
        if g["heap_growth"]:
            first, last, per_h = g["heap_growth"]
            print("%-18s heap in use, lowest per second (garbage counts until a collect): first quarter %d B,"
                  " last quarter %d B: %+.0f B per hour" % (k, first, last, per_h))
        if g["heap_peak_at"]:
            print("%-18s heap peak %d B at %.2f s of the game (%s); lowest in use in any second %s B" % (
                k, g["heap_peak"], g["heap_peak_at"][0], g["heap_peak_at"][1],
                min(f for _, f in g["heap_floors"]) if g["heap_floors"] else "-"))
        print("%-18s heap the loop keeps per landing (step end to step end) in play %.1f B, between rounds "
              "%.1f B; with call frames (freed on return, sampled every 100 us) %.1f B" % (
                  k, g["alloc_per_landing"], g["alloc_between_per_landing"], g["frames_per_landing"]))
    if race:
        print("race on one pile      " + "".join("%9s" % ("%d ms" % d) for d in RACE_DTS_MS))
        for k in ("right", "tie", "wrong"):
            print("%-21s" % k + "".join("%9d" % race[d][k] for d in RACE_DTS_MS))
        for k, label in (("first_ms", "first: -> green, max"), ("loser_ms", "second: late/tie, max")):
            print("%-21s" % label + "".join("%9s" % fmt(max(race[d][k]) if race[d][k] else None)
                                            for d in RACE_DTS_MS))
    if race:
        print_slowest_races(race)
    print(".mpy per board (as spit flash compiles): " + ", ".join("%s %d B" % kv for kv in sizes.items()))
    print("engine alone on the chip (engine_workload.py by mpremote run), heap locked as the firmware runs it: "
          "%s ms per landing, %s B allocated (heap unlocked: %s ms)" % (fmt(engine_ms), fmt(engine_alloc),
                                                                       fmt(engine_unlocked_ms)))


def print_slowest(games, count=8):
    """The slowest landings of all games (landing -> LED) and the longest loop steps in play, so
    that a max can be explained: the read, read -> LED, the verdict, the read's evidence (act:
    us before the read its activation began, tags), a landing on another pile up to 30 ms
    before (race), one on the same pile up to 60 ms before (2nd), and the pile's quiet lines
    between the read and the LED (ms after the read: the verdict waited for them)."""
    rows = sorted(((k, r) for k, g in games.items() for r in g.get("slowest", ())),
                  key=lambda kr: -kr[1]["landing_led_ms"])[:count]
    if rows:
        print("slowest landings: %-12s %8s %4s %4s %7s %7s %7s %-8s %-11s %6s %6s %s" % (
            "game", "t s", "pile", "card", "read", "rd>LED", "->LED", "verdict", "act", "race", "2nd", "quiet"))
        for k, r in rows:
            print("                  %-12s %8.3f %4d %4s %7.2f %7.2f %7.2f %-8s %-11s %6s %6s %s" % (
                k[:12], r["t_s"], r["pile"], r["card"], r["read_ms"], r["read_led_ms"], r["landing_led_ms"],
                r["verdict"], "%s/%s" % tuple(r["act"]) if r["act"] else "-", fmt(r["race_ms"]),
                fmt(r["second_ms"]), ",".join("%.2f" % q for q in r["quiet_ms"]) or "-"))
    steps = sorted(((k, s) for k, g in games.items() for s in g.get("slow_steps", ())),
                   key=lambda ks: -ks[1]["ms"])[:5]
    for k, s in steps:
        print("longest step in play: %-12s at %8.3f s: %.2f ms, %s ms after a landing on pile %s" % (
            k[:12], s["t_s"], s["ms"], fmt(s["after_landing_ms"]), s["pile"]))


def print_targets(figures, games, race):
    """Each figure beside its target (bench/targets.json), met or MISSED."""
    flash_in_play, flash_steps = figures["flash_step_ms"]["in_play"], figures["flash_step_ms"]["count"]
    sizes = figures["mpy_bytes"]
    report.header("bench_rp2")
    lm = figures["landing_to_led_ms"]
    report.check("landing_to_led_p50_ms", lm["p50"])
    report.check("landing_to_led_p99_ms", lm["p99"])
    report.check("landing_to_led_max_ms", lm["max"])
    report.check("loop_period_p99_ms", figures["loop_ms"]["p99"])
    report.check("loop_step_in_play_max_ms", figures["step_ms"]["max"])
    # A flash erase blocks ~45 ms whatever the firmware does, and the pause's gc.collect()
    # 6-17 ms (marking a ~105 KB heap): both only where no card can land.
    report.check("flash_steps_in_play", flash_in_play, "%d (of %d)" % (flash_in_play, flash_steps))
    report.check("engine_per_landing_on_chip_ms", figures["engine_ms_per_landing"])
    report.check("engine_alloc_per_landing_bytes", figures["engine_alloc_per_landing_bytes"])
    report.check_all("heap_kept_per_landing_bytes", figures["alloc_per_landing_bytes"].values())
    report.check_all("heap_peak_bytes", figures["peak_heap_bytes"].values())
    report.check("irq_masked_per_led_write_ms", figures["irq_masked_ms"]["leds"],
                 "%.3f" % figures["irq_masked_ms"]["leds"])
    report.check_all("mpy_bytes_per_board", sizes.values())
    report.check_all("table_disagreements", [g["disagreements"] for g in figures["games"].values()])
    # (a game cut by --seconds is not unfinished: one that stopped before, "DID NOT END", is)
    report.check("unfinished_games", sum(1 for g in figures["games"].values() if g["stalled"]))
    if race:
        # A race's second card is a landing too: its late verdict needs its own read, after the
        # first card's (the reader lists the pile again once the first tag is halted).
        losers = [x for d in race for x in race[d]["loser_ms"]]
        report.check("race_loser_landing_to_led_max_ms", max(losers) if losers else None)
        report.check("race_wrong", sum(race[d]["wrong"] for d in race))
    bs = figures["break_step_ms"]
    print("(between rounds, where no card can land, the loop writes the log to flash and runs gc.collect(): "
          "steps up to %s ms, flash writes apart; writing flash: up to %s ms)" % (fmt(bs["max"]), fmt(figures["flash_step_ms"]["max"])))
