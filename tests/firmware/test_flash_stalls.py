"""Flash writes and the firmware loop (issue 10 item 4), on the virtual board (CPython).

The log is written to flash only where no card can land (round end, game over, the correction
menu); in play it stays in preallocated records.  An input edge stamped inside a flash write
(interrupts masked: stamped when the write ends, in GPIO order) is moved to the write's end,
so two landings inside one write are a tie, never an order decided by pin numbers.
"""

import json
import os
import sys

from host_tools.vboard.runner import VirtualTable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_MASK = (1 << 30) - 1


def verdicts(t):
    return [(o["verdict"], o.get("card")) for o in t.log_objects() if "verdict" in o]


def play_four_landings_a_pile(t):
    """Spit cards, then four accepted cards on each pile, until 4.0 s (a round in play)."""
    t.land_card(0, "7H", 2_100_000)
    t.land_card(1, "KS", 2_150_000)
    for i, (c0, c1) in enumerate((("8H", "QS"), ("9H", "JS"), ("TH", "TS"), ("JH", "9S"))):
        t.land_card(0, c0, 2_500_000 + i * 300_000)
        t.land_card(1, c1, 2_550_000 + i * 300_000)
    t.run_until(4_000_000)


def race_inside_a_flash_write(stall):
    """8H then 8C on pile 0, 7 ms apart (beyond the 3 ms tie window), both while a flash write
    masks interrupts from 3.000 to 3.040 s (``stall``) or with no write at all."""
    t = VirtualTable()
    try:
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)

        def flash_write():
            book = t.app.book
            book.stall_from_us = (t.t0 + 3_000_000) & _MASK
            book.stall_to_us = (t.t0 + 3_040_000) & _MASK
            book.flushes += 1          # a write the loop did not ask for (buffer overflow)
        if stall:
            t.at(2_900_000, flash_write)
        t.land_card(0, "8H", 3_005_000)
        t.land_card(0, "8C", 3_012_000)
        t.run_until(3_500_000)
        return t.app.stalls.uncertain, t.app.stalls.midplay_writes, [v for v in verdicts(t) if v[1] in ("8H", "8C")]
    finally:
        t.close()


def test_a_race_inside_a_flash_write_is_a_tie_not_pin_order():
    moved, writes, got = race_inside_a_flash_write(True)
    assert writes == 1
    assert got[:2] == [("accept", "8H"), ("tie", "8C")]   # the engine declares the tie (then judges 8C)
    # Control: the same landings with no flash write are ordered (8C lost the race, 7 ms late).
    uncertain, writes, got = race_inside_a_flash_write(False)
    assert writes == 0
    assert moved - uncertain >= 2   # both touch edges (and their reads' IRQ edges) were moved
    assert got == [("accept", "8H"), ("late", "8C")]   # no tie


def test_no_flash_write_in_play_and_the_correction_menu_writes_the_log():
    t = VirtualTable()
    try:
        app = t.app
        writes = app.book.flushes
        play_four_landings_a_pile(t)
        assert app.book.flushes == writes          # nothing written while cards could land
        assert app.slog.pending > 20 and app.book.bytes_buffered == 0
        # Both STUCK held 2 s: the correction menu opens (no card is judged there): written.
        t.press(0, "stuck", 4_100_000, hold_us=2_300_000)
        t.press(1, "stuck", 4_100_000, hold_us=2_300_000)
        t.run_until(6_500_000)
        assert app.corr.menu or app.book.flushes > writes
        assert app.book.flushes > writes and app.slog.pending == 0 and app.stalls.midplay_writes == 0
        cards = [o.get("card") for o in t.log_objects(flush=False) if o.get("verdict") == "accept"]
        assert cards[-2:] == ["JH", "9S"]
    finally:
        t.close()


def test_records_past_the_capacity_spill_in_order_and_nothing_is_lost(vb, tmp_path):
    """Past ``capacity`` records the oldest quarter is formatted into the Logbook's RAM buffer
    (mid-play, counted in ``spills``); every line still reaches the file, in order."""
    sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "firmware", "lib")]
    from referee.logbook import Logbook
    from referee.logread import read_log
    from spit.intake import EV_TOUCH

    book = Logbook(str(tmp_path / "logs"), buffer_bytes=4096)
    book.start('{"spitlog": 1}')
    slog = _session_log(book, 5000, capacity=8)
    for i in range(30):
        slog.event(EV_TOUCH, 100 + i, 0, i % 2, 0, 0)
    assert slog.spills == (30 - 8) // 2 and slog.pending <= 8 and book.flushes == 1   # (the header)
    slog.flush()
    lines = read_log(book.path)[0]
    ts = [json.loads(line)["t"] for line in lines[1:]]
    assert ts == [(100 + i) * 1000 for i in range(30)]


def test_a_card_and_the_tick_before_it_share_one_record(vb, tmp_path):
    """A card read while the horizon is ahead of the log needs a tick line at the horizon
    first (so a re-judge sees the same horizon); it costs no second record."""
    sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "firmware", "lib")]
    from referee.logbook import Logbook
    from referee.logread import read_log
    from spit.intake import EV_CARD, EV_TOUCH

    book = Logbook(str(tmp_path / "logs"))
    book.start('{"spitlog": 1}')
    slog = _session_log(book, 5000)
    slog.event(EV_TOUCH, 9, 250, 0, 0, 0)
    slog.advanced(10, 999)
    slog.event(EV_CARD, 10, 100, 0, 5, -1)
    assert slog.pending == 2 and slog.ticks_written == 1
    slog.flush()
    got = [json.loads(line) for line in read_log(book.path)[0][1:]]
    assert got == [{"t": 9250, "ev": "touch", "pile": 0}, {"t": 10999, "ev": "tick"},
                   {"t": 10100, "ev": "card", "pile": 0, "card": "5C"}]


def test_the_console_echo_gets_every_line_once_in_order_while_flash_waits(vb, tmp_path):
    """With ``echo`` (the live log on the console), records are echoed a few per step as they
    come; the flash write still waits for the pause, and nothing is echoed twice."""
    sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "firmware", "lib")]
    from referee.logbook import Logbook
    from referee.logread import read_log
    from spit.intake import EV_CARD, EV_TOUCH

    book = Logbook(str(tmp_path / "logs"))
    book.start('{"spitlog": 1}')
    console = bytearray()

    def echo(buf, off, n):   # sys.stdout.write on MicroPython: n bytes of buf from off
        console.extend(bytes(buf[off:off + n]))
    slog = _session_log(book, 5000, echo=echo)
    for i in range(5):
        slog.event(EV_TOUCH, 100 * i, 0, 0, 0, 0)
        slog.advanced(100 * i + 3, 0)
        slog.event(EV_CARD, 100 * i + 3, 0, 0, 5, -1)   # with a tick line before it
        slog.sink(1, 100 * i, 0, 0, 5, -1, -1)
        slog.echo_some(2)
    assert book.flushes == 1 and slog.pending == 15       # (the header only: nothing written)
    assert 0 < console.count(b"\n") < 20
    slog.flush()
    lines = read_log(book.path)[0][1:]
    assert len(lines) == 20 and console.decode().splitlines() == lines


def test_the_log_goes_to_flash_only_between_rounds_one_flash_write_per_step():
    """A round end is no pause (the slap race for the piles follows, R-ROUND-3): nothing is
    written during the slaps.  Between rounds (waiting for READY) the log is written a piece
    per step: no step does more than one flash operation (a write or a sync), then one
    gc.collect."""
    from spit.referee import PH_SLAP, PH_BETWEEN
    t = VirtualTable()
    try:
        app = t.app
        play_four_landings_a_pile(t)
        writes = app.book.flushes
        pending = app.slog.pending
        app.referee.phase = PH_SLAP          # the slaps after a round end: still timed
        t.run_for(200_000)
        assert app.book.flushes == writes and app.slog.pending == pending and not app.paused
        app.referee.phase = PH_BETWEEN       # the piles are settled: waiting for the next deal
        per_step = []
        for _ in range(400):
            before = app.book.flushes
            t.run_for(1_000)                 # one loop step
            per_step.append(app.book.flushes - before)
            if app.slog.pending == 0 and app._synced and app._swept:
                break
        assert app.paused and app.slog.pending == 0 and app.book.bytes_buffered == 0
        assert max(per_step) == 1 and sum(per_step) >= 2      # writes, then the sync
        assert app.stalls.midplay_writes == 0
        cards = [o.get("card") for o in t.log_objects(flush=False) if o.get("verdict") == "accept"]
        assert cards[-2:] == ["JH", "9S"]
    finally:
        t.close()


def test_a_long_round_moves_the_records_to_the_logbook_a_step_at_a_time():
    """A round longer than the records hold: once all but 16 are in use the loop formats the
    oldest into the Logbook's RAM buffer, one at a step without a card, so no card's step spills
    (``spills`` stays 0) and no write happens while the buffer has room; a full buffer is written
    at such a step (counted as a mid-play write).  Every line reaches the file, in order."""
    from referee.sessionlog import make_records
    t = VirtualTable()
    try:
        app = t.app
        slog = app.slog
        slog.flush()   # (the session's first lines: a small record array from here on)
        slog._rec, slog._short = make_records(24)
        slog.capacity = 24
        slog._head = slog.pending = slog._echoed = 0
        t.run_until(t.now_us + 2000)   # (the loop notes that write)
        writes = app.book.flushes
        mid = app.stalls.midplay_writes
        play_four_landings_a_pile(t)   # about 30 records
        # (from 8 records on, the oldest go one a step: a card's step adds at most four)
        assert slog.spills == 0 and 7 <= slog.pending <= 12 and app.book.bytes_buffered > 0
        before = app.book.flushes - writes   # (the 1 KB buffer fills in play)
        assert app.stalls.midplay_writes - mid == before and app.book.forced_flushes == 0
        full = app.book.free
        n0 = app.book.flushes
        # The buffer is full (until it is written): written at a quiet step.
        app.book.free = lambda: 0 if app.book.flushes == n0 else full()
        for i, (c0, c1) in enumerate((("QH", "8S"), ("KH", "7S"))):
            t.land_card(0, c0, 4_100_000 + i * 300_000)
            t.land_card(1, c1, 4_150_000 + i * 300_000)
        t.run_until(4_700_000)
        app.book.free = full
        assert app.book.flushes > writes + before
        assert app.stalls.midplay_writes - mid == app.book.flushes - writes
        assert slog.spills == 0 and app.book.forced_flushes == 0
        cards = [o.get("card") for o in t.log_objects() if o.get("verdict") in ("accept", "spit")]
        assert cards == ["7H", "KS", "8H", "QS", "9H", "JS", "10H", "10S", "JH", "9S", "QH", "8S", "KH", "7S"]
    finally:
        t.close()


def _session_log(*args, **kwargs):
    """A SessionLog with the log's words, as the boot gives them (logtables.bin: spit.logtables)."""
    from referee.sessionlog import SessionLog
    from spit.logtables import line_tables
    slog = SessionLog(*args, **kwargs)
    slog.line_format.use(line_tables())
    return slog


def test_the_console_echo_is_not_starved_by_long_steps(monkeypatch):
    """A step that has already taken _ECHO_BEFORE_US echoes nothing (the LEDs and the readers
    come first), but the echo never waits more than _ECHO_WAIT_MS for a short step: with a
    chip that wakes halted tags the readers scan on their own and most steps are long, and
    the console (spit console, spit watch) went silent for seconds while the log had it all."""
    t = VirtualTable(console=True)
    try:
        monkeypatch.setattr(sys.modules["referee.loop"], "_ECHO_BEFORE_US", 0)   # every step is a long one
        play_four_landings_a_pile(t)
        echoed = [json.loads(x) for x in t.console.decode().splitlines() if x.startswith("{")]
        assert sum(1 for o in echoed if o.get("verdict") == "accept") == 8
    finally:
        t.close()
