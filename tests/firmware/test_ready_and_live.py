"""Every round starts on READY, the first one too (docs/rules.md), and the live stream's lines
(docs/live-protocol.md) on the virtual board: seq and device time on every line, a host that
does not read costs the referee nothing (lines wait or are dropped with a count; the log on
flash has them all)."""

import json

from host_tools.device.live import live_lines, split_line, LiveReader
from host_tools.vboard.runner import VirtualTable

MS = 1000


def verdicts(lines):
    return [o["verdict"] for k, o, _, _ in lines if k == "log" and "verdict" in o]


def test_the_first_round_waits_for_both_ready():
    with VirtualTable(console=True, ready=False) as t:
        app = t.app
        t.land_card(0, "5S", 500 * MS)   # a card on a pile before READY
        t.run_until(3000 * MS)
        assert app.waiting and app.sessions == 0
        assert t.log_path is None            # no session file yet
        lines = live_lines(t.console)
        assert verdicts(lines) == []         # no round_start, no countdown at boot
        kinds = [k for k, _, _, _ in lines if k != "text"]
        assert kinds[:2] == ["hello", "status"]
        assert [o["status"] for k, o, _, _ in lines if k == "status"] == ["waiting"]
        intents = t.led_intents()
        assert intents["PLAYER0"] == intents["PLAYER1"] == ("yellow", "blink")   # the READY pattern
        t.press(0, "stuck", 3000 * MS, hold_us=60 * MS)
        t.run_until(3500 * MS)
        assert app.waiting                   # one READY is not enough
        assert t.led_intents()["PLAYER0"] == ("yellow", "solid")
        assert t.led_intents()["PLAYER1"] == ("yellow", "blink")
        t.press(1, "stuck", 3500 * MS, hold_us=60 * MS)
        t.run_until(4000 * MS)
        assert not app.waiting and app.sessions == 1 and t.log_path is not None
        t.land_card(1, "6H", 4400 * MS)      # in the countdown: early, as always
        t.run_until(6000 * MS)
        v = [o for o in t.log_objects() if "verdict" in o]
        assert [o["verdict"] for o in v[:2]] == ["round_start", "countdown"]
        assert v[0]["t"] == 0
        # The card laid on pile 0 before READY belongs to no session (the piles are empty when
        # both press READY: docs/rules.md).
        assert not any(o.get("card") == "5S" for o in t.log_objects())
        assert any(o.get("verdict") == "early" and o.get("card") == "6H" for o in t.log_objects())


def test_stream_lines_have_seq_and_device_time_and_match_the_log():
    with VirtualTable(console=True) as t:
        t.land_card(0, "5S", 2600 * MS)
        t.land_card(1, "9H", 2650 * MS)
        t.run_until(3500 * MS)
        lines = live_lines(t.console)
        seqs = [s for k, _, _, s in lines if k != "text"]
        assert seqs == list(range(len(seqs)))   # 0 at boot, +1 a line, none missed
        logged = t.log_lines()
        header = [b for k, _, b, _ in lines if k == "header"]
        assert header == [logged[0]]
        echoed = [b for k, _, b, _ in lines if k == "log"]
        assert echoed == logged[1:len(echoed) + 1]
        first = bytes(t.console).decode().splitlines()
        proto = [x for x in first if x.startswith("{")]
        assert all(x.startswith('{"seq": ') and ', "dev": ' in x for x in proto)


def test_a_host_that_does_not_read_loses_the_stream_not_the_game():
    with VirtualTable(console=True) as t:
        app = t.app
        stalled = [True]
        app.live.busy = lambda: stalled[0]
        t.run_until(1000 * MS)
        sent = len(t.console)
        cards = ["5S", "6S", "7S", "8S"]
        for i, c in enumerate(cards):
            t.land_card(0, c, (2600 + 300 * i) * MS)
        t.run_until(4000 * MS)
        assert len(t.console) == sent        # nothing written while the host does not read
        assert app.slog.pending              # the records wait (in play)
        stalled[0] = False
        t.run_until(4500 * MS)
        r = LiveReader()
        lines = []
        for x in bytes(t.console).decode().splitlines():
            lines.extend(r.feed(x))
        v = verdicts(lines)
        assert v.count("spit") == 1 and v.count("accept") == 3
        assert r.missed == 0 and r.dropped == 0   # in play they waited: nothing dropped


def test_lines_still_waiting_at_a_pause_are_dropped_with_a_count():
    with VirtualTable(console=True, ready=False) as t:
        app = t.app
        stalled = [True]
        app.live.busy = lambda: stalled[0]
        assert t.press_ready()   # the session starts while the host does not read
        # The records go to flash (what a pause does): the stream's lines that waited are
        # dropped then, never the log's.
        app.slog.flush()
        stalled[0] = False
        t.land_card(0, "5S", 2600 * MS)
        t.run_until(3000 * MS)
        text = bytes(t.console).decode().splitlines()
        r = LiveReader()
        for x in text:
            r.feed(x)
        assert r.dropped >= 4 and r.missed == r.dropped   # status, header, round_start, countdown
        marked = [x for x in text if '"dropped": ' in x]
        assert len(marked) == 1
        assert split_line(marked[0])[2] == r.dropped
        objs = t.log_objects()
        assert [o["verdict"] for o in objs if "verdict" in o][:3] == ["round_start", "countdown", "spit"]
        assert json.loads(t.log_lines()[0])["spitlog"] == 1
