"""Tall piles on one emulated PN532: read rate, order and latency of NfcReader (prints a table).

    .venv/bin/python -m bench.bench_nfc_pile [--cards 40] [--gap-ms 300] [--seeds 5] [--config] [--touch]
    .venv/bin/python -m bench.bench_nfc_pile --pairs [--seeds 5]    # per PN532 option combination

``--pairs`` (issue 26): for each option combination of the strict model's covering set
(host_tools/vboard/pn532_options.py), two cards landing on one pile 1, 3, 10 and 20 ms apart
(on three cards already read and halted), and a 40-card pile (one every 300 ms): the time from
the second landing until both are identified (mean / max), lost cards, wrong winners (the
second card stamped before the first), ties (one stamp for both); each pair without a touch
sensor and with one (``NfcReader.touched`` at each landing, as the loop calls it).  The reader
has the probe's answers for its chip in board.json (``nfc.readers[k].chip``, applied by
referee/board_hw.py); ``--no-config``: without them (the defaults, which learn).  The target
``pair_identified_ms`` is checked on the touch-sensor pairs (the reference board has one per
pile).

Each run lands ``cards`` tags (random NXP 7-byte UIDs) one every ``gap_ms`` on one pile,
with the real driver + NfcReader over the fake SPI bus and IRQ line, for each combination
of: the chip's listing sending REQA or WUPA (``list_uses_wupa``), the reader strategy, and
the stacked-tag fault model off or on (a landing card misses 3 activation attempts with
probability 0.3; each of the 3 cards below it browns out and forgets HALT with probability
0.1).  Columns: cards reported / landed, runs with every card reported in landing order,
stamp - landing (mean / max ms), chip commands per second, re-reads.  No assertions.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import sys

STACKED = {"stacked_miss_rate": 0.3, "stacked_miss_attempts": 3, "stacked_dropout_rate": 0.1}


def pile_run(cards=40, gap_us=300000, wupa=False, strategy="STRATEGY_HALT", stacked=True, seed=1,
             chip=None, pair_us=None, touch=False, config=None):
    """Land ``cards`` tags on one pile; returns a dict of what the reader reported.  ``chip``:
    the model's options (else ``wupa``); ``pair_us``: the last card lands that long after the one
    before it (not ``gap_us``); ``touch``: the pile has a touch sensor (``NfcReader.touched`` at
    each landing, as the firmware loop calls it); ``config``: the probe's answers in the board
    file (``nfc.readers[0].chip``, applied as referee/board_hw.py does; None: none, the
    defaults)."""
    import random
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin
    from host_tools.vboard.pn532_emulator import PN532Emulator

    rng = random.Random(seed)
    Pin.reset_registry()
    clock = VirtualClock((1 << 30) - 5000000)
    board = install(clock)
    try:
        import machine
        from drivers import nfc_reader
        options = dict(STACKED) if stacked else {}
        options.update(chip if chip is not None else {"list_uses_wupa": wupa})
        em = board.add_device(PN532Emulator(clock, irq=20, seed=seed, **options))
        spi = machine.SPI(0)
        cs = machine.Pin(17, machine.Pin.OUT, value=1)
        irq = machine.Pin(20, machine.Pin.IN, machine.Pin.PULL_UP)
        em.attach_spi(spi, cs)
        from referee import board_hw
        reader_entry = {"cs": 17, "irq": 20, "reset": None}
        if config is not None:
            reader_entry["chip"] = config
        driver = board_hw.build_pn532({"nfc": {"bus": "spi", "spi": {"cs_setup_us": 0}, "readers": [reader_entry]}},
                                      0, spi, cs, irq)
        driver.setup(passive_retries=0xFF)
        reads = []
        seen_at = {}

        def on_card(pile, uid, ticks):
            reads.append((bytes(uid), ticks))
            seen_at[bytes(uid)] = clock.ticks_us()
        reader = nfc_reader.NfcReader(driver, 0, strategy=getattr(nfc_reader, strategy), on_card=on_card,
                                      passive_retries=0xFF, reply_timeout_us=500000, memory=64)
        irq.irq(lambda pin: reader.note_irq(clock.ticks_us()), machine.Pin.IRQ_FALLING, hard=True)
        uids = []
        while len(uids) < cards:
            uid = bytes([0x04] + [rng.randrange(256) for _ in range(6)])
            if uid not in uids:
                uids.append(uid)
        landed = {}
        start = clock.now_us
        commands_before = len(em.commands)
        end = start + cards * gap_us + 500000
        due = [start + k * gap_us for k in range(cards)]
        if pair_us is not None:
            due[-2] += rng.randrange(5000)   # the pair at any phase of the chip's attempts
            due[-1] = due[-2] + pair_us
        k = 0
        while clock.now_us < end:
            if k < cards and clock.now_us >= due[k]:
                landed[uids[k]] = clock.ticks_us()
                em.place_tag(uids[k])
                k += 1
                if touch:
                    reader.touched(clock.ticks_us())
            clock.advance_us(250)
            em.update()
            reader.service(clock.ticks_us())
        delays = [clock.ticks_diff(t, landed[u]) / 1000.0 for u, t in reads if u in landed]
        return {"read": len({u for u, _ in reads}), "cards": cards,
                "in_order": [u for u, _ in reads] == uids[:len(reads)] and len(reads) == cards,
                "delays_ms": delays, "early": sum(1 for d in delays if d < 0),
                "commands_per_s": (len(em.commands) - commands_before) * 1e6 / (end - start),
                "rereads": reader.rereads, "failures": reader.failures, "dropouts": em.dropouts,
                "uids": uids, "stamps": dict(reads), "seen_at": seen_at, "landed": landed,
                "wakes_halted": getattr(reader, "wakes_halted", None)}
    finally:
        board.uninstall()


def _pairs(chip, gap_ms, seeds, touch, config):
    """Pairs ``gap_ms`` apart, ``seeds`` runs: (times, lost, wrong winners, ties)."""
    times, lost, wrong, ties = [], 0, 0, 0
    for seed in range(1, seeds + 1):
        r = pile_run(5, 150000, stacked=False, seed=seed, chip=chip, pair_us=gap_ms * 1000, touch=touch,
                     config=config)
        a, b = r["uids"][-2:]
        got = [u for u in (a, b) if u in r["seen_at"]]
        lost += 2 - len(got) + (5 - r["read"] - (2 - len(got)))
        if len(got) == 2:
            second = r["landed"][b]
            times.append(max(r["seen_at"][u] - second for u in (a, b)) / 1000.0)
            sa, sb = r["stamps"][a], r["stamps"][b]
            wrong += sb - sa < 0
            ties += sa == sb
    return times, lost, wrong, ties


def pairs_table(seeds, config=True):
    """Issue 26 item 5: per option combination, pairs 1/3/10/20 ms apart and a 40-card pile.
    ``config``: the reader has the probe's answers for its chip in board.json (else the
    defaults); each pair without and with the pile's touch sensor."""
    from host_tools.vboard.pn532_options import DEFAULTS, combinations, label
    print("Two cards on one pile (on 3 read cards), %d runs each; 40-card pile one every 300 ms, "
          "%d runs (virtual board, strict PN532 model); the reader %s" % (
              seeds, seeds, "configured with the probe's answers (board.json)" if config else
              "without the probe's answers (defaults)"))
    print("| PN532 options | gap | no touch sensor: both identified after 2nd landing mean / max ms | lost "
          "| wrong winners | ties | touch sensor: mean / max ms | lost | wrong winners | ties |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    pair_max, lost_all, wrong_all = [], 0, 0   # the targets: pair_max on chips whose CIU_Coll reads
    for chip in combinations():
        answers = dict(DEFAULTS, **chip) if config else None
        for gap_ms in (1, 3, 10, 20):
            cells = []
            for touch in (False, True):
                times, lost, wrong, ties = _pairs(chip, gap_ms, seeds, touch, answers)
                lost_all += lost
                wrong_all += wrong
                if touch and times and chip.get("coll_readable", True):
                    pair_max.append(max(times))
                cells.append("%s | %d | %d | %d" % (
                    "%.1f / %.1f" % (sum(times) / len(times), max(times)) if times else "-", lost, wrong, ties))
            print("| %s | %d ms | %s |" % (label(chip), gap_ms, " | ".join(cells)))
        runs = [pile_run(40, 300000, stacked=False, seed=seed, chip=chip, config=answers)
                for seed in range(1, seeds + 1)]
        delays = [d for r in runs for d in r["delays_ms"]]
        print("| %s | 40-card pile | read %d/%d, in order %d/%d, stamp-landing %.1f / %.1f | %d | - | - "
              "| - | - | - | - |" % (
            label(chip), sum(r["read"] for r in runs), 40 * seeds, sum(r["in_order"] for r in runs), seeds,
            sum(delays) / max(1, len(delays)), max(delays or [0]), 40 * seeds - sum(r["read"] for r in runs)))
        lost_all += 40 * seeds - sum(r["read"] for r in runs)
        sys.stdout.flush()
    from bench import report
    report.check_all("pair_identified_ms", pair_max)
    report.check("lost_cards", lost_all)
    report.check("race_wrong", wrong_all)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=40)
    ap.add_argument("--gap-ms", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--pairs", action="store_true", help="issue 26's table per option combination")
    ap.add_argument("--no-config", action="store_true",
                    help="with --pairs: readers without the probe's answers (the defaults)")
    ap.add_argument("--config", action="store_true",
                    help="without --pairs: readers with the probe's answers for their chip (board.json)")
    ap.add_argument("--touch", action="store_true", help="without --pairs: the pile has a touch sensor")
    args = ap.parse_args(argv)
    if args.pairs:
        pairs_table(args.seeds, not args.no_config)
        return
    from host_tools.vboard.pn532_options import DEFAULTS
    print("%d-card pile, one card every %d ms, %d runs each (virtual board, PN532 emulator)%s%s"
          % (args.cards, args.gap_ms, args.seeds, "; readers with the probe's answers" if args.config else "",
             "; a touch sensor" if args.touch else ""))
    print("| listing | strategy | stacked faults | read | in order | stamp-landing mean/max ms "
          "| cmds/s | re-reads | failures |")
    print("|---|---|---|---|---|---|---|---|---|")
    for wupa in (False, True):
        for strategy in ("STRATEGY_HALT", "STRATEGY_FIELD_RESET"):
            for stacked in (False, True):
                config = dict(DEFAULTS, list_uses_wupa=wupa) if args.config else None
                runs = [pile_run(args.cards, args.gap_ms * 1000, wupa, strategy, stacked, seed, touch=args.touch,
                                 config=config) for seed in range(1, args.seeds + 1)]
                delays = [d for r in runs for d in r["delays_ms"]]
                read = sum(r["read"] for r in runs)
                print("| %s | %s | %s | %d/%d (%.1f %%) | %d/%d | %.1f / %.1f | %.0f | %d | %d |" % (
                    "WUPA" if wupa else "REQA", strategy[9:].lower(), "on" if stacked else "off",
                    read, args.cards * len(runs), 100.0 * read / (args.cards * len(runs)),
                    sum(r["in_order"] for r in runs), len(runs),
                    sum(delays) / max(1, len(delays)), max(delays or [0]),
                    sum(r["commands_per_s"] for r in runs) / len(runs),
                    sum(r["rereads"] for r in runs), sum(r["failures"] for r in runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
