"""Section 2 of bench/bench_firmware.py: race-order accuracy, as the referee's verdicts.

Two cards land dt apart (same pile or two piles) on emulated PN532s read by the real driver +
NfcReader; the reads (and touch edges) are fed to the engine, and each race is classified right
winner / declared tie / wrong winner (``judge_race``) for touch-sensor timestamps, PN532-IRQ-only
timestamps and naive poll order (``race_trials``); each read with its reader's evidence (the
activation's start, whether its tag answered alone: the log's ``act``), which the engine's race
rule uses.  Prints the table per landing gap (section 2) and the sweep over the reader's read
time and the touch sensor's delay (section 2b).  Section 2c (``print_firmware_races``) runs the
races through the whole firmware on the virtual board instead and re-judges its log.
"""

import sys

from bench import report
from bench.firmware_bench_setup import ANTICOLLISION_US, ATTEMPT_US, board_settings, classic_rules

IRQ_LATENCY_US = (20, 100)    # RP2040 hard IRQ latency, typical .. worst seen


# A race: pile 0 shows 7H, pile 1 KS.  Same pile: 8H (first) and 6C (second) both fit 7H.
# Two piles: 8H on pile 0, QS on pile 1.
RACE_CARDS = (("8H", "6C"), ("QS", "QS"))
RIGHT, TIE, WRONG = 0, 1, 2


def judge_race(events, reorder_us, card_first, card_second, pile_first, same_pile):
    """Feed one race to the engine as the firmware would (events in arrival order, advance as
    time passes) and classify the referee's verdicts: RIGHT, TIE (a ``tie`` verdict) or WRONG."""
    from spit import verdicts as V
    from spit.cards import parse_card
    from spit.intake import EV_CARD as _EV_CARD
    from spit.referee import Referee
    from spit.rules import make_ruleset
    rules = make_ruleset("classic", {"reorder_us": reorder_us} if reorder_us is not None else None)
    out = []
    ref = Referee(rules, None, lambda code, ms, us, a, b, c, d: out.append((code, a, b)))
    t = rules.countdown_ms + 10
    ref.feed(_EV_CARD, t, 0, 0, parse_card("7H"), -1)
    ref.feed(_EV_CARD, t + 1, 0, 1, parse_card("KS"), -1)
    ref.flush()
    del out[:]
    base_ms = t + 1000
    for ev in sorted(events):
        at, kind, stamp, pile, card = ev[:5]
        e = ev[5] if len(ev) > 5 else 0   # (a read's evidence, spit.intake EVID_*; 0: none)
        ref.advance(base_ms + at // 1000, at % 1000)
        ref.feed(kind, base_ms + stamp // 1000, stamp % 1000, pile, parse_card(card) if kind == _EV_CARD else 0,
                 -1 if kind == _EV_CARD else 0, e)
    last = max(e[0] for e in events)
    ref.advance(base_ms + last // 1000 + 1000, 0)
    if same_pile and any(v[0] == V.V_TIE for v in out):
        return TIE
    accepts = [(v[1], v[2]) for v in out if v[0] == V.V_ACCEPT]
    first = (pile_first, parse_card(card_first))
    return RIGHT if accepts and accepts[0] == first else WRONG


def race_trials(dt_us, trials, same_pile, seed=7, read_us=(ANTICOLLISION_US, ANTICOLLISION_US + ATTEMPT_US),
                touch_delay_us=(0, 0)):
    """Per method (touch, irq, poll): fractions [right, tie, wrong] of the referee's verdicts,
    and the number of races judged (both cards read).  ``read_us``: a tag's read time after it
    lands, uniform in (lo, hi) (the emulator's anticollision time lo plus up to hi - lo to its
    next activation attempt); ``touch_delay_us``: the touch sensor's delay after the landing,
    uniform in (lo, hi) per landing."""
    import random
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin
    from host_tools.vboard.pn532_emulator import PN532Emulator
    from host_tools.vboard.pn532_listing import read_time_options
    rng = random.Random(seed + dt_us + (1 if same_pile else 0))
    Pin.reset_registry()
    clock = VirtualClock(1 << 20)
    board = install(clock)
    try:
        import machine
        from drivers.pn532_spi import PN532_SPI
        from drivers.nfc_reader import NfcReader
        spi = machine.SPI(0)
        ems, readers, reads = [], [], []
        for p in range(2):
            em = board.add_device(PN532Emulator(clock, irq=20 + p, seed=p + 3,
                                                **read_time_options(read_us[0], read_us[1])))
            irq = machine.Pin(20 + p, machine.Pin.IN, machine.Pin.PULL_UP)
            cs = machine.Pin(17 + p, machine.Pin.OUT, value=1)
            em.attach_spi(spi, cs)
            drv = PN532_SPI(spi, cs, irq=irq)
            drv.setup()
            reader = NfcReader(drv, p)
            # Each read with its evidence (as referee/loop.py on_card takes it: spit.intake EVID_*).
            reader.on_card = (lambda pile, uid, t, r=reader: reads.append(
                (pile, bytes(uid), t, clock.now_us, (1 if r.alone else 2) | min(2047, max(
                    0, clock.ticks_diff(t, r.act_us) // 100)) << 2)))
            irq.irq(lambda pin, r=reader: r.note_irq(clock.ticks_us()), machine.Pin.IRQ_FALLING, hard=True)
            ems.append(em)
            readers.append(reader)
        ok = {"touch": [0, 0, 0], "irq": [0, 0, 0], "poll": [0, 0, 0]}   # right, tie, wrong
        done = [0]
        pico = board_settings("pico")
        touch_reorder_us = pico["reorder_us"]
        touch_debounce_us = pico["touch"][0]["debounce_ms"] * 1000
        from spit.intake import EV_CARD, EV_TOUCH
        poll_period = 2 * 2 * ems[0].attempt_us     # blocking list per reader, two readers
        for k in range(trials):
            for r in readers:
                r.clear_pile()
            start = clock.now_us + rng.randrange(0, 5000)
            uid_a = bytes([4, 9, 9, 9, k & 0xFF, k >> 8, rng.randrange(256)])
            uid_b = uid_a
            while uid_b == uid_a:      # two different tags (anticollision order stays random)
                uid_b = bytes([4, 9, 9, 9, k & 0xFF, k >> 8, rng.randrange(256) | 1])
            pa, pb = (0, 0) if same_pile else (0, 1)
            if not same_pile and rng.random() < 0.5:
                pa, pb = 1, 0
            land = {uid_a: start, uid_b: start + dt_us}
            plan = [(start, pa, uid_a), (start + dt_us, pb, uid_b)]
            del reads[:]
            end = start + dt_us + 40000
            while clock.now_us < end:
                nxt = end
                for em in ems:
                    e = em.next_event_us()
                    if e is not None and e < nxt:
                        nxt = e
                for at, _pile, _uid in plan:
                    if clock.now_us < at < nxt:
                        nxt = at
                clock.advance_to_us(min(nxt, clock.now_us + 250))
                for at, pile, uid in plan:
                    if at <= clock.now_us and ems[pile].tag(uid) is None and uid not in [r[1] for r in reads]:
                        ems[pile].place_tag(uid)
                for em in ems:
                    em.update()
                for r in readers:
                    r.service(clock.ticks_us())
            got = [(r[1], r[2], r[3], r[4]) for r in reads if r[1] in land]
            for em in ems:
                for uid in (uid_a, uid_b):
                    em.remove_tag(uid)
            if len(got) < 2:
                continue       # a read missed (not a race-order question)
            done[0] += 1
            pile_of = {uid_a: pa, uid_b: pb}
            card_of = {uid_a: RACE_CARDS[pa][0], uid_b: RACE_CARDS[pb][1 if same_pile else 0]}

            def rel(t, start=start):
                return (t - start) % (1 << 30)
            # Each method gives the engine events (arrival time, kind, stamp, pile, card).
            # IRQ-only: a read is stamped with its reader's reply-ready IRQ edge.
            irq_events = [(rel(seen), EV_CARD, rel(t), pile_of[uid], card_of[uid], e) for uid, t, seen, e in got]
            # Naive poll: stamped when a round-robin blocking poll sees the reply.
            phase = [rng.randrange(poll_period) for _ in range(2)]
            poll_events = []
            for uid, _, seen, _e in got:
                at = rel(seen) + (phase[pile_of[uid]] - rel(seen)) % poll_period
                poll_events.append((at, EV_CARD, at, pile_of[uid], card_of[uid], 0))
            # Touch sensors: each landing's edge (hard-IRQ latency jitter), the board's touch
            # debounce (a second edge on a pile inside it is lost), and the reads as above; the
            # engine matches each read to the earliest unmatched touch on its pile.
            touch_events = list(irq_events)
            last_edge = {}
            for uid in sorted((uid_a, uid_b), key=lambda u: land[u]):
                edge = rel(land[uid]) + rng.randrange(*IRQ_LATENCY_US)
                if touch_delay_us[1] > touch_delay_us[0]:
                    edge += rng.randrange(*touch_delay_us)
                pile = pile_of[uid]
                if pile in last_edge and edge - last_edge[pile] < touch_debounce_us:
                    continue
                last_edge[pile] = edge
                touch_events.append((edge, EV_TOUCH, edge, pile, 0, 0))
            for method, events, reorder in (("touch", touch_events, touch_reorder_us),
                                            ("irq", irq_events, None), ("poll", poll_events, None)):
                ok[method][judge_race(events, reorder, card_of[uid_a], card_of[uid_b], pa, same_pile)] += 1
        return {m: [x / float(done[0] or 1) for x in ok[m]] for m in ok}, done[0]
    finally:
        board.uninstall()


def print_race_order(trials):
    """Section 2: right / tie / wrong per landing gap, same pile and two piles, per method."""
    print("== 2. Race-order accuracy vs landing gap: the referee's verdicts")
    print("Each cell: right winner / declared tie / WRONG winner (%%).  Landings on emulated PN532s read by the real"
          " driver + NfcReader; the reads (and touch edges) are fed to the engine (tie_window_us %d, reorder_us %d"
          " with touch sensors as in pico.json, the engine default %d without)." % (
              classic_rules().tie_window_us, board_settings("pico")["reorder_us"], classic_rules().reorder_us))
    print("| dt (ms) | same pile: touch | IRQ only | naive poll | two piles: touch | IRQ only | naive poll |")
    print("|---|---|---|---|---|---|---|")
    judged = []
    not_wrong = []    # touch sensors, dt >= 1 ms: the target's cells
    for dt in (250, 500, 1000, 2000, 3000, 4000, 5000, 10000):
        same, n_same = race_trials(dt, trials, True)
        cross, n_cross = race_trials(dt, trials, False)
        judged += [n_same, n_cross]
        if dt >= 1000:
            not_wrong += [100.0 * (1.0 - same["touch"][2]), 100.0 * (1.0 - cross["touch"][2])]
        cells = []
        for res in (same, cross):
            for m in ("touch", "irq", "poll"):
                r = res[m]
                cells.append("%.1f / %.1f / **%.1f**" % (100 * r[0], 100 * r[1], 100 * r[2]))
        print("| %.2f | %s |" % (dt / 1000.0, " | ".join(cells)))
    print("(%d..%d of %d races per cell had both cards read.  Same pile: the tags are read in anticollision"
          " order (highest UID first when both are in the field at one attempt) and each read takes the"
          " earliest unmatched touch; a second touch edge inside the %d ms touch debounce is lost.  Two piles:"
          " right = the first-landed card's verdict comes first; the engine declares ties only on one pile."
          ")" % (min(judged), max(judged), trials, board_settings("pico")["touch"][0]["debounce_ms"]))
    report.check_all("race_not_wrong_touch_pct", not_wrong)


def print_read_time_sweep(trials):
    """Section 2b: same-pile races swept over the reader's read time and the touch delay."""
    print("== 2b. Race accuracy, same pile, swept over the reader's read time and the touch sensor's delay")
    print("Each cell: right / tie / WRONG (%%) with touch sensors, then IRQ only; %d races per cell.  A tie is"
          " not a right answer." % max(1, trials // 4))
    print("| read time (ms) | touch delay (ms) | dt 1 ms: touch | IRQ only | dt 3 ms: touch | IRQ only"
          " | dt 10 ms: touch | IRQ only |")
    print("|---|---|---|---|---|---|---|---|")
    for read in ((2000, 5000), (5000, 10000), (10000, 20000)):
        for delay in ((0, 0), (0, 2000), (0, 8000)):
            cells = []
            for dt in (1000, 3000, 10000):
                res, _ = race_trials(dt, max(1, trials // 4), True, read_us=read, touch_delay_us=delay)
                for m in ("touch", "irq"):
                    r = res[m]
                    cells.append("%.1f / %.1f / **%.1f**" % (100 * r[0], 100 * r[1], 100 * r[2]))
            print("| %g-%g | %g-%g | %s |" % (read[0] / 1000.0, read[1] / 1000.0, delay[0] / 1000.0,
                                             delay[1] / 1000.0, " | ".join(cells)))
            sys.stdout.flush()
    print("(read time: the emulated PN532's anticollision time plus the wait for its next activation attempt;"
          " touch delay: uniform per landing, on top of the hard-IRQ latency.  A touch delay longer than dt"
          " can swap the edges: those races come out wrong or tied, as a real slow sensor would make them.)")


# ---- races through the whole firmware on the virtual board ------------------------------------
# (Section 2c.)  Two tags land on pile 0 of the virtual table dt apart, each with its touch edge
# as the sensor model gives it (host_tools/vboard/touch_sensor.py: a delay, missed edges), and
# the real firmware reads them (NfcReader, its relist on a touch, the loop) and logs them.  Each
# race's lines of the device's log (its touch and card events, with whatever evidence the
# firmware wrote) are re-judged after the spit cards (7H on pile 0) by spit.log, as `spit replay`
# does: right (8H, the first card, accepted and 6C late), tie, or wrong.

RACE_GAP_US = 400000       # from one race to the next (the last race's tags are lifted before)


def _race_cards(n, seed):
    """A card map of ``n`` race tags (even: 8H, the first card of a race; odd: 6C, the second)
    with random UIDs (anticollision order random), plus 7H and KS for the spit cards."""
    import random
    rng = random.Random(seed)
    cards = {"04535000270001": "7H", "045350003D0001": "KS"}
    uids = []
    while len(uids) < n:
        uid = "04" + "".join("%02X" % rng.randrange(256) for _ in range(6))
        if uid not in cards:
            cards[uid] = "8H" if len(uids) % 2 == 0 else "6C"
            uids.append(uid)
    return cards, uids


def _judge_lines(header, spit_lines, race_lines):
    """right / tie / wrong of one race's log lines, re-judged after the spit cards."""
    import json
    from spit.log import rejudge
    r = rejudge([header] + spit_lines + race_lines)
    got = [(dict(items).get("verdict"), dict(items).get("card")) for _, items in r.verdicts]
    got = [g for g in got if g[0] in ("accept", "late", "tie", "illegal")][2 * 0:]
    race = [g for g in got if g[1] in ("8H", "6C")]
    if any(k == "tie" for k, _ in race):
        return TIE
    if ("accept", "8H") in race and ("late", "6C") in race:
        return RIGHT
    del json
    return WRONG


def firmware_race_cells(dts_ms, trials, read_us=(5000, 10000), delay_us=(0, 0), miss_rate=0.0, seed=11):
    """``{dt_ms: [right, tie, wrong, judged]}``: ``trials`` races per gap on one virtual table."""
    import json
    from host_tools.vboard.pn532_listing import read_time_options
    from host_tools.vboard.runner import VirtualTable
    from host_tools.vboard.touch_sensor import TouchSensor
    n_races = trials * len(dts_ms)
    cards, uids = _race_cards(min(250, 2 * n_races), seed)
    sensor = TouchSensor(delay_us, miss_rate, seed)
    vt = VirtualTable(cards=cards, emulator=read_time_options(*read_us), touch_sensor=sensor)
    out = {}
    try:
        t = 2100000
        vt.land_card(0, "04535000270001", t, touch=True)
        vt.land_card(1, "045350003D0001", t + 50000, touch=True)
        t += 400000
        vt.run_until(t)
        objs = vt.log_objects()
        header = vt.log_lines()[0]
        spit_lines = [json.dumps(o) for o in objs if o.get("ev") in ("touch", "card")]
        import random
        rng = random.Random(seed)
        k = 0
        windows = []
        for _trial in range(trials):
            for dt in dts_ms:
                a = uids[k % len(uids)]
                b = uids[(k + 1) % len(uids)]
                k += 2
                start = t + rng.randrange(0, 5000)
                vt.land_card(0, a, start)
                vt.land_card(0, b, start + dt * 1000)
                end = start + dt * 1000 + 200000
                vt.lift_card(0, a, end)
                vt.lift_card(0, b, end)
                windows.append((dt, start, end))
                t = start + RACE_GAP_US
        vt.run_until(t)
        lines = vt.log_lines()
        events = []
        for line in lines[1:]:
            o = json.loads(line)
            if o.get("ev") in ("touch", "card") and o.get("pile") == 0:
                events.append((o["t"], o["ev"], line))
        j = 0
        for dt, start, end in windows:
            cell = out.setdefault(dt, [0, 0, 0, 0])
            while j < len(events) and events[j][0] < start - 1000:
                j += 1
            race = []
            while j < len(events) and events[j][0] <= end:
                race.append(events[j][2])
                j += 1
            if sum(1 for e in race if '"ev": "card"' in e) < 2:
                continue   # a read missed: no race-order question
            cell[_judge_lines(header, spit_lines, race)] += 1
            cell[3] += 1
    finally:
        vt.close()
    return out


def print_firmware_races(trials, dts_ms=(1, 2, 3, 5, 10, 20, 50)):
    """Section 2c: same-pile races through the whole firmware, per condition."""
    print("== 2c. Races on one pile through the firmware on the virtual board, re-judged from its log")
    print("Each cell: right / tie / WRONG (%%) of %d races (two tags dt apart on pile 0, each with its touch"
          " edge as the sensor model gives it; the firmware's reads and log; spit.log re-judges each race's"
          " lines after the spit cards).  A tie is not a right answer." % trials)
    conds = (((5000, 10000), (0, 0), 0.0), ((5000, 10000), (0, 0), 0.05), ((5000, 10000), (0, 8000), 0.0),
             ((5000, 10000), (0, 8000), 0.05), ((2000, 5000), (0, 0), 0.0), ((10000, 20000), (0, 0), 0.0))
    print("| reads (ms) | touch delay (ms) | missed touches | %s |" % " | ".join("dt %g ms" % d for d in dts_ms))
    print("|---|---|---|%s" % ("---|" * len(dts_ms)))
    wrong, ties = [], {}   # the targets' rows: reads of 5-10 ms and the documented sensor (no delay)
    for read, delay, miss in conds:
        cells = firmware_race_cells(dts_ms, trials, read, delay, miss)
        if read == (5000, 10000) and delay == (0, 0):
            for dt in dts_ms:
                r, ti, w, n = cells.get(dt, [0, 0, 0, 0])
                wrong.append(100.0 * w / (n or 1))
                ties.setdefault((dt, miss), 100.0 * ti / (n or 1))
        row = []
        for dt in dts_ms:
            r, ti, w, n = cells.get(dt, [0, 0, 0, 0])
            n = n or 1
            row.append("%.1f / %.1f / **%.1f**" % (100.0 * r / n, 100.0 * ti / n, 100.0 * w / n))
        print("| %g-%g | %g-%g | %g %% | %s |" % (read[0] / 1000.0, read[1] / 1000.0, delay[0] / 1000.0,
                                                delay[1] / 1000.0, 100 * miss, " | ".join(row)))
        sys.stdout.flush()
    print("(The targets: reads of 5-10 ms and the documented sensor, the touch edge at the landing.)")
    report.check_all("race_wrong", wrong, label="races naming the wrong winner (%)")
    report.check("race_tie_at_5ms_pct", ties.get((5, 0.0)))
    report.check("race_tie_at_10ms_pct", ties.get((10, 0.0)))
    report.check_all("race_tie_from_20ms_pct", [v for (dt, miss), v in ties.items() if dt >= 20 and not miss])
    report.check("race_tie_at_50ms_missed_touches_pct", ties.get((50, 0.05)))
