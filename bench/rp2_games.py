"""Whole games on the emulated Pico (part of bench/bench_rp2.py): ``play`` flashes the firmware
with the bench board, lets the bots play a preset through the pins and probes the heap;
``analyse`` turns what the pins and the chip's RAM showed into the game's figures (landing ->
LED, read -> LED, the reads, loop period and steps in play / between rounds / writing flash,
interrupts masked, heap), with ``round_breaks`` (where no input races another) and
``heap_growth`` (the live heap's trend over the game).
"""

import json
import time

from bench.rp2_bench_setup import LOOP_PIN, READ_MS, bench_board, pct, pn532_model

COLOUR = {"accept": "green", "illegal": "red", "late": "orange", "tie": "purple", "early": "blue",
          "spit": "white"}


def play(preset, options, seconds, say, read_ms=READ_MS):
    """One game of ``preset`` with ``options`` (cut after ``seconds`` of play; 0: to its end), with
    PN532 reads of ``read_ms`` = (lo, hi) ms: ``analyse``'s figures."""
    from spit.rules import make_ruleset
    from host_tools.sim.run import run_game
    from host_tools.sim.rp2 import Rp2Port
    from host_tools.rp2emu.heap import locate
    rules = make_ruleset(preset, options)
    board = bench_board(rules.piles)
    atb, blocks = locate()
    holder = {}

    class BenchPort(Rp2Port):
        def __init__(self, sim, rules, counts):
            Rp2Port.__init__(self, sim, rules, counts, board=board, emulator=pn532_model(read_ms),
                             progress=say)
            self.landings = []
            self.emu.watch_pins([LOOP_PIN])
            self.emu.heap_probe(atb, blocks, step_pin=LOOP_PIN)
            self.heap_boot = self.emu.heap(reset=True)
            holder["port"] = self

        def land(self, sim, t, pile, card, player):
            self.landings.append((pile, self.t0 + t))
            return Rp2Port.land(self, sim, t, pile, card, player)

        def close(self, t):
            self.sync(t)
            self.heap_game = self.emu.heap()
            Rp2Port.close(self, t)

    wall = time.monotonic()
    result = run_game(rules, seed=1, port_factory=lambda sim, c, rng, extra: BenchPort(sim, sim.rules, c),
                      max_minutes=seconds / 60.0 if seconds else 90)
    port = holder["port"]
    return analyse(port, result, time.monotonic() - wall, seconds)


def analyse(port, result, wall_s, seconds=0):
    from host_tools.rp2emu.leds import zone_colours
    table = port.table
    board = table.board
    objs = [json.loads(x) for x in result.lines[1:] if x.startswith("{")]
    # Session time -> emulated time: the median offset of touch edges and their logged stamps.
    touch_pins = {spec["pin"]: p for p, spec in enumerate(board.get("touch", [])) if spec}
    falling = {}
    for pin, level, t in table.input_edges:
        if pin in touch_pins and level == 0:
            falling.setdefault(touch_pins[pin], []).append(t)
    offsets = []
    logged = {}
    for o in objs:
        if o.get("ev") == "touch":
            logged.setdefault(o["pile"], []).append(int(o["t"]))
    for p in logged:
        for edge, t in zip(falling.get(p, []), logged[p]):
            offsets.append(edge - t)
    offset = pct(offsets, 50) or port.t0
    frames = table.frames
    shown = [(f["t_us"], zone_colours(board, f["rgb"])) for f in frames]

    def first_frame(pile, colour, after):
        zone = "pile%d" % pile
        before = None
        for t, z in shown:
            if t < after:
                before = z.get(zone)
                continue
            if before == colour:
                return "ambiguous"
            if z.get(zone) == colour:
                return t
        return None

    landing_led, read_led, reads, ambiguous, unseen = [], [], [], 0, 0
    slowest = []   # one row per measured landing (the slowest listed under the table)
    cards = [o for o in objs if o.get("ev") == "card"]
    quiet_piles = [(int(o["t"]) + offset, o["pile"]) for o in objs if o.get("ev") == "quiet"]
    landed = sorted(port.landings, key=lambda x: x[1])
    verdicts = [o for o in objs if o.get("verdict") in COLOUR]
    used = set()
    for pile, t_land in port.landings:
        # The first card event on this pile after the landing, and its verdict.
        card = next((c for c in cards if c["pile"] == pile and int(c["t"]) + offset >= t_land - 1000
                     and id(c) not in used), None)
        if card is None:
            unseen += 1
            continue
        used.add(id(card))
        # (Its verdict's time is the landing's, at or after the touch edge: the read comes
        # later, by the PN532's read time.)
        v = next((v for v in verdicts if v.get("pile") == pile and v.get("card") == card["card"]
                  and int(v["t"]) + offset >= t_land - 1000), None)
        if v is None:
            unseen += 1
            continue
        t_led = first_frame(pile, COLOUR[v["verdict"]], t_land)
        if t_led == "ambiguous":
            ambiguous += 1
        elif t_led is None:
            unseen += 1
        else:
            landing_led.append((t_led - t_land) / 1000.0)
            t_read = int(card["t"]) + offset
            read_led.append((t_led - t_read) / 1000.0)
            reads.append((t_read - t_land) / 1000.0)
            slowest.append(landing_row(port, landed, pile, t_land, t_read, t_led, card, v,
                                       [q for q, p in quiet_piles if p == pile]))
    rises = [t for pin, level, t in table.pin_edges if pin == LOOP_PIN and level == 1]
    falls = [t for pin, level, t in table.pin_edges if pin == LOOP_PIN and level == 0]
    periods = [(b - a) / 1000.0 for a, b in zip(rises, rises[1:])]
    breaks = round_breaks(objs, offset)
    steps, break_steps, flash_steps = [], [], []
    if falls and rises and falls[0] < rises[0]:
        falls = falls[1:]   # the probe was first seen inside a step
    # Flash erase/program masks interrupts (and stops the code running from flash): such a
    # step blocks for its whole length, so the firmware writes its log only between rounds.
    flash_spans = [(m[0], m[0] + m[1]) for m in table.masked if m[2] == "flash"]
    flash_in_play = 0
    for r, f in zip(rises, falls):
        if f < r:
            continue
        between = any(a <= r and f <= b for a, b in breaks)
        if any(r <= a < f for a, _ in flash_spans):
            flash_steps.append((f - r) / 1000.0)
            flash_in_play += not between
        else:
            (break_steps if between else steps).append((f - r) / 1000.0)
    peak_us = port.heap_game.get("peak_ns", -1) / 1000.0
    peak_at = None if peak_us < 0 else ((peak_us - port.t0) / 1e6, "between rounds" if any(
        a <= peak_us <= b for a, b in breaks) else "in play")
    masked = {"leds": [m[1] / 1000.0 for m in table.masked if m[2] == "leds"],
              "flash": [m[1] / 1000.0 for m in table.masked if m[2] == "flash"]}
    n = len(port.landings)
    # What the loop keeps from step end to step end, in play (cards can land) and between
    # rounds (the log's formatting and flash writes, gc.collect(), the next round's deal).
    kept_rises = port.heap_game.get("step_rises") or []
    kept_between = sum(b for t_ns, b in kept_rises if any(a <= t_ns / 1000.0 <= e for a, e in breaks))
    kept_play = port.heap_game["step_allocated"] - kept_between
    slowest.sort(key=lambda r: -r["landing_led_ms"])
    slow_steps = slowest_steps(port, rises, falls, breaks, flash_spans, landed)
    return {"landings": n, "measured": len(landing_led), "slowest": slowest[:8], "slow_steps": slow_steps, "ambiguous": ambiguous, "unseen": unseen,
            "landing_to_led_ms": landing_led, "read_to_led_ms": read_led, "read_ms": reads, "loop_ms": periods, "step_ms": steps, "break_step_ms": break_steps,
            "flash_step_ms": flash_steps, "flash_steps_in_play": flash_in_play,
            "masked_ms": masked, "heap_peak": port.heap_game["peak"], "heap_boot": port.heap_boot["now"],
            "heap_end": port.heap_game["now"], "heap_peak_at": peak_at,
            "heap_floors": port.heap_game.get("floors") or [], "heap_growth": heap_growth(port.heap_game.get("floors") or []),
            "alloc_per_landing": kept_play / float(max(1, n)),
            "alloc_between_per_landing": kept_between / float(max(1, n)),
            "frames_per_landing": port.heap_game["allocated"] / float(max(1, n)),
            "finished": result.finished, "length_s": result.length_us / 1e6, "wall_s": wall_s,
            "notes": [x for x in result.notes if not x.startswith("unfinished")],
            # A game that stopped before its end other than by --seconds: the players waited
            # 60 s for a verdict (a stall), or the 90-minute limit.
            "stalled": [x for x in result.notes if x.startswith("unfinished") and not (
                seconds and "time limit" in x)]}


def landing_row(port, landed, pile, t_land, t_read, t_led, card, verdict, quiet_times):
    """What the slowest-landings listing shows of one landing (times in emulated us): the
    game time, pile, read, read -> LED, the verdict, the read's evidence (``act``), the other
    landings near it (a race on another pile within 30 ms before, a second card on the pile
    within 60 ms before) and the pile's ``quiet`` lines between the read and the LED frame
    (the verdict waited for the reader to find no other tag)."""
    act = card.get("act")
    other = [(p, t) for p, t in landed if t != t_land or p != pile]
    return {"t_s": round((t_land - port.t0) / 1e6, 3), "pile": pile, "card": card["card"],
            "read_ms": (t_read - t_land) / 1000.0, "read_led_ms": (t_led - t_read) / 1000.0,
            "landing_led_ms": (t_led - t_land) / 1000.0, "verdict": verdict["verdict"],
            "act": act,
            "race_ms": _nearest([t_land - t for p, t in other if p != pile and 0 <= t_land - t <= 30000]),
            "second_ms": _nearest([t_land - t for p, t in other if p == pile and 0 <= t_land - t <= 60000]),
            "quiet_ms": [round((q - t_read) / 1000.0, 2) for q in quiet_times if t_read <= q <= t_led]}


def _nearest(gaps_us):
    return min(gaps_us) / 1000.0 if gaps_us else None


def slowest_steps(port, rises, falls, breaks, flash_spans, landed, count=5):
    """The ``count`` longest loop steps in play: (game s, ms, the nearest landing before the
    step: its pile and how long before, ms)."""
    out = []
    for r, f in zip(rises, falls):
        if f < r or any(a <= r and f <= b for a, b in breaks) or any(r <= a < f for a, _ in flash_spans):
            continue
        out.append((f - r, r))
    out.sort(reverse=True)
    rows = []
    for d, r in out[:count]:
        before = [(p, t) for p, t in landed if t <= r]
        near = before[-1] if before else (None, None)
        rows.append({"t_s": round((r - port.t0) / 1e6, 3), "ms": d / 1000.0, "pile": near[0],
                     "after_landing_ms": None if near[1] is None else (r - near[1]) / 1000.0})
    return rows


def heap_growth(floors):
    """Live-heap trend over a game from the per-second floors: ``(first, last, bytes per hour)``,
    the lowest floor in the first and in the last quarter of the seconds sampled."""
    if len(floors) < 8:
        return None
    q = len(floors) // 4
    first = min(f for _, f in floors[:q])
    last = min(f for _, f in floors[-q:])
    span_s = floors[-1][0] - floors[0][0]
    return first, last, (last - first) * 3600.0 / max(1, span_s)


def round_breaks(objs, offset):
    """Emulated-time spans in which no input can be timed against another: before the first
    ``countdown`` (boot, the players getting ready), and from the end of a round's slaps (its
    last ``pile_won``, a ``question`` or ``game_over`` after ``round_end``) to the next
    ``countdown``.  Only READY/STUCK presses mean something there, and they race nobody."""
    # Before the first countdown the players are getting ready: nothing races there either.
    spans, start, ended = [], float("-inf"), False
    for o in objs:
        v = o.get("verdict")
        if v == "round_end":
            ended = True
        elif v == "game_over" or (ended and v in ("pile_won", "question")):
            start = int(o["t"]) + offset   # the latest: the slaps run until the last pile is won
        elif v == "countdown":
            if start is not None:
                spans.append((start, int(o["t"]) + offset))
            start, ended = None, False
    if start is not None:
        spans.append((start, float("inf")))
    return spans
