"""Section 2 of bench/bench_firmware.py: race-order accuracy, as the referee's verdicts.

Two cards land dt apart (same pile or two piles) on emulated PN532s read by the real driver +
NfcReader; the reads (and touch edges) are fed to the engine, and each race is classified right
winner / declared tie / wrong winner (``judge_race``) for touch-sensor timestamps, PN532-IRQ-only
timestamps and naive poll order (``race_trials``).  Prints the table per landing gap (section 2)
and the sweep over the reader's read time and the touch sensor's delay (section 2b).
"""

import sys

from firmware_bench_setup import ANTICOLLISION_US, ATTEMPT_US, board_settings, classic_rules

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
    for at, kind, stamp, pile, card in sorted(events):
        ref.advance(base_ms + at // 1000, at % 1000)
        ref.feed(kind, base_ms + stamp // 1000, stamp % 1000, pile, parse_card(card) if kind == _EV_CARD else 0,
                 -1 if kind == _EV_CARD else 0)
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
            reader = NfcReader(drv, p, on_card=lambda pile, uid, t: reads.append((pile, bytes(uid), t, clock.now_us)))
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
                for at, pile, uid in plan:
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
            got = [(r[1], r[2], r[3]) for r in reads if r[1] in land]
            for em in ems:
                for uid in (uid_a, uid_b):
                    em.remove_tag(uid)
            if len(got) < 2:
                continue       # a read missed (not a race-order question)
            done[0] += 1
            pile_of = {uid_a: pa, uid_b: pb}
            card_of = {uid_a: RACE_CARDS[pa][0], uid_b: RACE_CARDS[pb][1 if same_pile else 0]}

            def rel(t):
                return (t - start) % (1 << 30)
            # Each method gives the engine events (arrival time, kind, stamp, pile, card).
            # IRQ-only: a read is stamped with its reader's reply-ready IRQ edge.
            irq_events = [(rel(seen), EV_CARD, rel(t), pile_of[uid], card_of[uid]) for uid, t, seen in got]
            # Naive poll: stamped when a round-robin blocking poll sees the reply.
            phase = [rng.randrange(poll_period) for _ in range(2)]
            poll_events = []
            for uid, _, seen in got:
                at = rel(seen) + (phase[pile_of[uid]] - rel(seen)) % poll_period
                poll_events.append((at, EV_CARD, at, pile_of[uid], card_of[uid]))
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
                touch_events.append((edge, EV_TOUCH, edge, pile, 0))
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
    for dt in (250, 500, 1000, 2000, 3000, 4000, 5000, 10000):
        same, n_same = race_trials(dt, trials, True)
        cross, n_cross = race_trials(dt, trials, False)
        judged += [n_same, n_cross]
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
          "  Target: >= 99.9%% not wrong for dt >= 1 ms with touch sensors.)" % (
              min(judged), max(judged), trials, board_settings("pico")["touch"][0]["debounce_ms"]))


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
