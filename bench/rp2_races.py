"""Races on one pile on the emulated Pico (part of bench/bench_rp2.py): two cards land on pile 0
dt apart (touch edges + tags) on the flashed firmware, each race is counted right / tie / wrong
as the players would count it (a tie is not right), and its LEDs are timed: the first card's
landing to its green, the loser's to its orange (purple too for a tie).  The touch edges come as
a ``TouchSensor`` model says (host_tools/vboard/touch_sensor.py: a delay, missed edges).

Alone, for a short run of the races only (the emulator is slow: keep it short)::

    .venv/bin/python -m bench.rp2_races --per-dt 2 [--delay-ms 0-8] [--miss 0.05] [--read-ms 5-10] [--chip 98]
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

from bench import rp2_bench_setup
from bench.rp2_bench_setup import MS, READ_MS, bench_board, pn532_model

RACE_DTS_MS = (1, 2, 3, 5, 10, 20, 50)


def races(per_dt, say, read_ms=READ_MS, sensor=None):
    """``{dt_ms: {right, tie, wrong, first_ms, loser_ms}}`` for two cards dt apart on pile 0 (touch
    + tag each): how the race was called (a tie is not right), and when the LEDs showed it: each
    race's first card's landing to the first frame with pile 0 green (its accept), the second
    card's landing to the first frame with pile 0 orange (its late verdict; purple too for a
    tie), in ms; PN532 reads of ``read_ms`` = (lo, hi) ms; ``sensor``: the touch sensor model
    (None: each edge at its landing)."""
    from spit.cards import parse_card, rank_of
    from host_tools.rp2emu.board import FlashedPico
    out = {}
    board = FlashedPico(bench_board(2), emulator=pn532_model(read_ms))
    try:
        used = set()

        def card(rank):
            for suit in "SHDC":
                code = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank)) + suit
                if code not in used:
                    used.add(code)
                    return code
            return None

        def land(pile, code, at):
            if sensor is None:
                board.land(pile, code, at)
                return
            edge = sensor.edge(at)
            board.land(pile, code, at, touch=False)
            if edge is not None:
                board.table.touch(pile, board.t0 + edge)

        t = 2600 * MS
        top = card(5)
        board.land(0, top, t)
        board.land(1, card(9), t + 40 * MS)
        board.run_to(t + 300 * MS)
        for dt in RACE_DTS_MS:
            out[dt] = {"right": 0, "tie": 0, "wrong": 0, "first_ms": [], "loser_ms": [], "detail": []}

        def shown_after(t_land, colours):
            """ms from table time ``t_land`` (session time + board.t0) to the first frame at
            or after it whose pile 0 zone shows one of ``colours`` (None: none within 500 ms)."""
            at = board.t0 + t_land
            for f in board.table.frames:
                if at <= f["t_us"] <= at + 500 * MS and board.table.zone_colours(f["rgb"])["pile0"] in colours:
                    return (f["t_us"] - at) / 1000.0
            return None

        def led_times(dt, t, loser_colours):
            for key, t_land, colours in (("first_ms", t, ("green",)), ("loser_ms", t + dt * MS, loser_colours)):
                shown = shown_after(t_land, colours)
                if shown is not None:
                    out[dt][key].append(shown)
        for _ in range(per_dt):
            for dt in RACE_DTS_MS:
                r = rank_of(parse_card(top))
                up = r % 13 + 1
                down = (r - 2) % 13 + 1
                first, second = card(up), card(down)
                if first is None or second is None:
                    break
                t += 700 * MS
                i = len(board.verdicts)
                j = len(board.events)
                land(0, first, t)
                land(0, second, t + dt * MS)
                board.run_to(t + 500 * MS)
                got = [(v["verdict"], v.get("card")) for v in board.since(i)]
                losers = len(out[dt]["loser_ms"])
                # A tie is not right, even though the first-stamped card stays and the other is
                # then judged late against it (R-PLAY-5): the players must correct it.
                if any(k == "tie" for k, _ in got):
                    out[dt]["tie"] += 1
                    acc = [c for k, c in got if k == "accept"]
                    top = acc[-1] if acc else first
                    led_times(dt, t, ("purple", "orange"))   # (the tie, or the late drawn over it)
                elif ("accept", first) in got and ("late", second) in got:
                    out[dt]["right"] += 1
                    top = first
                    led_times(dt, t, ("orange",))
                else:
                    out[dt]["wrong"] += 1
                    acc = [c for k, c in got if k == "accept"]
                    top = acc[-1] if acc else second
                loser = out[dt]["loser_ms"][-1] if len(out[dt]["loser_ms"]) > losers else None
                out[dt]["detail"].append((loser, race_detail(board, i, j, t)))
        say("races: %r" % {dt: {k: v for k, v in r.items() if k != "detail"} for dt, r in out.items()})
        COLLISIONS[:] = [sum(e.ciu.collisions for e in board.table.emulators)]
    finally:
        board.close()
    return out


COMMANDS = []   # (emulated us, reader's chip, command code): filled by --commands
COLLISIONS = []   # [exchanges the chips answered with their collision status] in the last races()


def trace_commands():
    """Record every PN532 command frame the chips get (emulated time, chip, command code and
    the first parameter byte: a WriteRegister's or InCommunicateThru's), for ``race_detail``."""
    from host_tools.vboard.pn532_emulator import PN532Emulator
    host_frame = PN532Emulator.host_frame

    def traced(self, data):
        n = len(self.commands)
        host_frame(self, data)
        if len(self.commands) > n:
            COMMANDS.append((self.clock.now_us, id(self), self.commands[-1]))
    PN532Emulator.host_frame = traced
    deselect = PN532Emulator.spi_deselect

    def deselected(self):
        op = self._op
        deselect(self)
        if op in (0x02, 0x03):   # a status poll (s), a frame read (r)
            COMMANDS.append((self.clock.now_us, id(self), "s" if op == 0x02 else "r"))
    PN532Emulator.spi_deselect = deselected


_NAMES = {0x4A: "list", 0x42: "thru", 0x08: "wreg", 0x06: "rreg", 0x32: "rfcfg", 0x44: "desel", 0x52: "rel"}


def race_detail(board, i, j, t):
    """One race as the stream told it: each card / quiet line and verdict after the first
    landing (session time ``t``), as "what@ms (came over USB at ms)", ms after the first
    landing's touch line (the card's ``t``: its read; act: us before it its activation began,
    tags)."""
    events = board.events[j:]
    touch = next((o for _, o in events if o.get("ev") == "touch"), None)
    t0 = int(touch["t"]) if touch else t
    at0 = board.t0 + t
    parts = []
    for now, o in sorted(events + board.verdicts[i:], key=lambda x: x[0]):
        what = o.get("ev") or o.get("verdict")
        if what in ("card", "quiet", "accept", "late", "tie", "touch"):
            extra = "" if "act" not in o else "[%d/%d]" % tuple(o["act"])
            parts.append("%s%s%s@%.2f(%.2f)" % (what, "" if what != "card" else " " + o["card"], extra,
                                                 (int(o["t"]) - t0) / 1000.0, (now - at0) / 1000.0))
    frames = [f["t_us"] for f in board.table.frames if at0 <= f["t_us"] <= at0 + 100 * MS]
    if frames:
        parts.append("frames@" + ",".join("%.2f" % ((f - at0) / 1000.0) for f in frames[:6]))
    chips = {}
    cmds = ["%s%d@%.2f" % (_NAMES.get(c, c if isinstance(c, str) else "%02x" % c), chips.setdefault(chip, len(chips)),
                           (at - at0) / 1000.0)
            for at, chip, c in COMMANDS if at0 <= at <= at0 + 60 * MS]
    if cmds:
        parts.append("cmds: " + " ".join(cmds))
    return " ".join(parts)


def print_slowest_races(out, count=4):
    """The races whose loser waited longest for its LED, as the stream told them."""
    rows = sorted(((dt, ms, text) for dt, r in out.items() for ms, text in r.get("detail", ()) if ms is not None),
                  key=lambda x: -x[1])[:count]
    for dt, ms, text in rows:
        print("slowest race losers: dt %d ms, loser -> LED %.2f ms: %s" % (dt, ms, text))


def main():
    import argparse
    import json
    import time
    from host_tools.vboard.touch_sensor import TouchSensor
    ap = argparse.ArgumentParser(description="races on one pile on the emulated Pico (short runs)")
    ap.add_argument("--per-dt", type=int, default=2)
    ap.add_argument("--read-ms", default="5-10")
    ap.add_argument("--delay-ms", default="0-0", help="touch sensor delay lo-hi (ms)")
    ap.add_argument("--miss", type=float, default=0.0, help="share of missed touch edges")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands", action="store_true", help="list the PN532 commands of the slowest races")
    ap.add_argument("--unprobed", action="store_true",
                    help="readers without the probe's answers in board.json (the safe defaults)")
    ap.add_argument("--chip", type=int, default=-1,
                    help="the PN532 model's option combination (its number among all 192, as "
                         "rp2_nfc_games --all numbers them; default: the model's defaults)")
    args = ap.parse_args()
    rp2_bench_setup.PROBED = not args.unprobed
    chip = "the default PN532 model"
    if args.chip >= 0:
        from host_tools.vboard.pn532_options import DEFAULTS, all_combinations, label
        combo = all_combinations()[args.chip]
        rp2_bench_setup.CHIP = dict((k, v) for k, v in combo.items() if v != DEFAULTS[k])
        chip = "PN532 model %d (%s)" % (args.chip, label(combo))
    if args.commands:
        trace_commands()
    read = tuple(int(x) for x in args.read_ms.split("-"))
    delay = tuple(int(float(x) * MS) for x in args.delay_ms.split("-"))
    sensor = TouchSensor(delay, args.miss, args.seed)
    started = time.time()
    out = races(args.per_dt, lambda text: None, read, sensor)
    print("races on the emulated Pico: %s, reads %s ms, touch sensor %s, %d per dt, readers %s (%.0f s)"
          % (chip, args.read_ms, sensor.describe(), args.per_dt,
             "without the probe's answers" if args.unprobed else "with the probe's answers",
             time.time() - started))
    print("| dt (ms) | right | tie | wrong |")
    print("|---|---|---|---|")
    for dt in RACE_DTS_MS:
        r = out[dt]
        print("| %d | %d | %d | %d |" % (dt, r["right"], r["tie"], r["wrong"]))
    print("exchanges the chip answered with its collision status: %d" % COLLISIONS[0])
    print(json.dumps({dt: [out[dt]["right"], out[dt]["tie"], out[dt]["wrong"]] for dt in RACE_DTS_MS}))
    print_slowest_races(out)
    from bench import report
    report.check("race_wrong", sum(out[dt]["wrong"] for dt in RACE_DTS_MS))


if __name__ == "__main__":
    main()
