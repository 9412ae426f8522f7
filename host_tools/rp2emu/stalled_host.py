"""A USB host that holds the port open and stops reading, in the middle of a game on the
emulated Pico (issue 28): what it costs the referee.

    figures = stalled_host_game(board_file, stall_s=60, emulator=pn532_model((5, 10)))

The flashed referee (as `spit flash` installs it, a board file with a loop probe pin) boots,
both players press READY, the spit cards land, then the host stops reading (it NAKs the CDC
data IN transfers: ``Rp2Emulator.stall_host``) for ``stall_s`` seconds while cards keep
landing on both piles (a legal run each, one landing every ``gap_ms``), then reads again.
The figures: the loop's steps while stalled (from the probe pin), each landing's LED frame
(landing -> first frame with its verdict's colour), the verdicts the stream delivered and
when, the stream's ``dropped`` count and seq gaps, and the session log on flash (pulled by
`spit logs pull --force` after the game) against the stream's verdicts.
"""

MS = 1000
SEC = 1000 * MS
COLOUR = {"accept": "green", "illegal": "red", "late": "orange", "tie": "purple", "early": "blue",
          "spit": "white"}


def _runs():
    """Two legal runs from the spit cards 5S (pile 0) and 9H (pile 1), each card once: every
    card one rank above the last, in the first of the run's two suits not used yet (a run that
    skipped a used card would break its chain: every card after it illegal)."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

    def run(start, suits, used):
        out = []
        i = ranks.index(start[:-1])
        while True:
            i = (i + 1) % 13
            card = next((ranks[i] + s for s in suits if ranks[i] + s not in used), None)
            if card is None:
                return out
            used.add(card)
            out.append(card)
    return run("5S", "SD", {"5S"}), run("9H", "HC", {"9H"})


def stalled_host_game(board_file, stall_s=60, gap_ms=600, emulator=None, loop_pin=0, progress=None):
    from host_tools.rp2emu.board import FlashedPico
    from host_tools.rp2emu.leds import zone_colours
    say = progress or (lambda text: None)
    pico = FlashedPico(board_file, "classic", {}, emulator=emulator, progress=progress)
    try:
        emu = pico.emu
        table = pico.table
        emu.watch_pins([loop_pin])
        t = 2600 * MS                       # after the 2 s countdown
        pico.land(0, "5S", t)
        pico.land(1, "9H", t + 40 * MS)
        pico.run_to(3 * SEC)
        stall_from = 3 * SEC
        stall_to = stall_from + int(stall_s * SEC)
        emu.stall_host((pico.t0 + stall_to) * 1000)
        a, b = _runs()
        landings = []
        t = stall_from + 300 * MS
        k = 0
        while t < stall_to - 500 * MS and (a or b):
            pile = k % 2
            run = a if pile == 0 else b
            if run:
                card = run.pop(0)
                pico.land(pile, card, t)
                landings.append((pile, card, t))
            k += 1
            t += gap_ms * MS
        stream_before = len(pico.verdicts)
        step = 5 * SEC
        now = stall_from
        while now < stall_to:
            now = min(stall_to, now + step)
            pico.run_to(now)
            say("stalled host: %.0f of %.0f s" % ((now - stall_from) / SEC, stall_s))
        during = len(pico.verdicts) - stream_before
        pico.run_to(stall_to + 3 * SEC)
        edges = [(lv, tt - pico.t0) for pin, lv, tt in table.pin_edges if pin == loop_pin]
        steps = []
        rise = None
        for lv, tt in edges:
            if lv:
                rise = tt
            elif rise is not None:
                if stall_from <= rise < stall_to:
                    steps.append((tt - rise) / 1000.0)
                rise = None
        shown = [(f["t_us"] - pico.t0, zone_colours(table.board, f["rgb"])) for f in table.frames]
        stream = {}
        for tt, v in pico.verdicts:
            if v.get("verdict") in COLOUR and "card" in v:
                stream.setdefault((v.get("pile"), v["card"]), (v["verdict"], tt - pico.t0))
        led_ms = []
        missing = []
        for pile, card, tl in landings:
            got = stream.get((pile, card))
            if got is None:
                missing.append(card)
                continue
            colour = COLOUR[got[0]]
            first = next((ts for ts, z in shown if ts >= tl and z.get("pile%d" % pile) == colour), None)
            if first is None:
                missing.append(card)
            else:
                led_ms.append((first - tl) / 1000.0)
        resumed = [tt - pico.t0 for tt, _ in pico.verdicts[stream_before:]]
        log = pico.pull_log(force=True)
        import json
        logged = [json.loads(x) for x in log[1:] if x.startswith("{")]
        log_v = [(o["verdict"], o.get("pile"), o.get("card")) for o in logged if "verdict" in o]
        stream_v = [(o["verdict"], o.get("pile"), o.get("card")) for _, o in pico.verdicts]
        return {
            "stall_s": stall_s, "landings": len(landings),
            "steps": len(steps), "step_max_ms": max(steps) if steps else None,
            "step_p99_ms": sorted(steps)[int(0.99 * (len(steps) - 1))] if steps else None,
            "led_ms": led_ms, "led_max_ms": max(led_ms) if led_ms else None, "missing": missing,
            "stream_during_stall": during,
            "stream_resumed_after_ms": ((min(resumed) - stall_to) / 1000.0) if resumed else None,
            "dropped": pico.live.dropped, "missed": pico.live.missed,
            "log_verdicts": len(log_v), "stream_verdicts": len(stream_v),
            "log_has_stream": all(v in log_v for v in stream_v),
            "landings_in_log": sum(1 for p, c, _ in landings if ("accept", p, c) in log_v),
        }
    finally:
        pico.close()
