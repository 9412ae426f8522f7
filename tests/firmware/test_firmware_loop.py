"""The firmware loop (firmware/main.py + referee/app.py) on the virtual board.

Proofs: a scripted game gives the expected LEDs and a session log whose device verdicts equal
``spit.log.rejudge`` of the same log; ticks wrapping at 2**30 us mid-play keep race order;
reader faults (NACK, bad checksum, silence) are flagged while the other pile plays on; ring
overflow and unknown tags are flagged; a bad board.json gives one clear boot error; the
correction gesture; a power cut in the middle of a log write.
"""

import json
import os

import pytest

from host_tools.vboard.runner import VirtualTable
from host_tools.vboard.pins import Pin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


JUST_BELOW_WRAP = (1 << 30) - 2_500_000   # ticks_us wraps ~2.5 s after power-on, i.e. mid-play
FIRMWARE_ONLY = ("unknown_uid", "reader_down", "overflow")   # errors with no input event behind them


def device_and_rejudged(lines):
    from spit.log import rejudge
    from spit.words import items_json
    device = [json.loads(line) for line in lines if '"verdict"' in line]
    device = [v for v in device if not (v["verdict"] == "error" and v["reason"] in FIRMWARE_ONLY)]
    r = rejudge(lines)
    assert r.problems == []
    return device, [json.loads(items_json(items)) for _, items in r.verdicts]


def verdicts(lines, name=None):
    out = [json.loads(line) for line in lines if '"verdict"' in line]
    return [v for v in out if name is None or v["verdict"] == name]


def events(lines, name=None):
    out = [json.loads(line) for line in lines if '"ev"' in line]
    return [e for e in out if name is None or e["ev"] == name]


@pytest.fixture
def table():
    t = VirtualTable(start_us=JUST_BELOW_WRAP)
    yield t
    t.close()


def open_piles(t, at=2_100_000):
    t.land_card(0, "7H", at)
    t.land_card(1, "KS", at + 50_000)


def test_scripted_game_leds_and_log_equal_rejudge(table):
    t = table
    t.run_until(1_000_000)
    assert t.led_state()["SPIT"] == "cyan"              # the countdown bar
    open_piles(t)
    t.land_card(0, "8H", 2_600_000)                      # accept
    t.land_card(1, "QS", 2_600_400)                      # accept (other pile, same moment)
    t.land_card(0, "9H", 2_800_000)                      # race on pile 0: 9H first ...
    t.land_card(0, "9C", 2_810_000)                      # ... 9C 10 ms later: late
    t.land_card(1, "2C", 3_000_000)                      # illegal on QS
    t.run_until(2_790_000)
    leds = t.led_state()
    assert leds["PILE0"] == "green" and leds["PILE1"] == "green"
    t.run_until(3_200_000)
    assert t.led_intents()["PILE0"] == ("orange", "blink")   # late: blinking (phase varies)
    assert t.led_state()["PILE1"] == "red" or t.led_intents()["PILE1"] == ("red", "fast")
    t.press(0, "stuck", 3_500_000)
    t.press(1, "stuck", 3_600_000)
    t.run_until(3_900_000)                                 # the spit call follows the second STUCK
    assert t.led_intents()["SPIT"] == ("cyan", "countdown")   # the spit call's countdown
    t.run_until(4_200_000)
    lines = t.log_lines()
    names = [(v["verdict"], v.get("card")) for v in verdicts(lines)]
    assert names == [("round_start", None), ("countdown", None), ("spit", "7H"), ("spit", "KS"),
                     ("accept", "8H"), ("accept", "QS"), ("accept", "9H"), ("late", "9C"),
                     ("illegal", "2C"), ("stuck", None), ("stuck", None), ("spit_call", None),
                     ("countdown", None)]
    # Touch edges carry the true landing time (to the microsecond, across the wrap).
    assert [e["t"] for e in events(lines, "touch")][:4] == [2_100_000, 2_150_000, 2_600_000, 2_600_400]
    assert t.wrapped()
    device, rejudged = device_and_rejudged(lines)
    assert device == rejudged
    assert Pin.irq_errors == []
    assert json.loads(lines[0])["spitlog"] == 1


def test_race_order_across_the_tick_wrap():
    # Start so that ticks_us wraps between the two landings of a race on pile 0.
    t = VirtualTable(start_us=(1 << 30) - 3_500_000)
    try:
        wrap_at = (1 << 30) - t.t0                         # table time of the wrap
        assert 2_500_000 < wrap_at < 3_500_000
        open_piles(t)
        first = wrap_at - 3_000
        t.land_card(0, "8H", first)                        # 8H lands just before the wrap
        t.land_card(0, "8C", first + 6_000)                # 8C after it: late
        t.run_until(first + 400_000)
        assert t.wrapped()
        lines = t.log_lines()
        race = [(v["verdict"], v["card"]) for v in verdicts(lines) if v.get("card") in ("8H", "8C")]
        assert race == [("accept", "8H"), ("late", "8C")]
        touches = [e["t"] for e in events(lines, "touch")]
        assert first in touches and first + 6_000 in touches
        device, rejudged = device_and_rejudged(lines)
        assert device == rejudged
    finally:
        t.close()


@pytest.mark.parametrize("fault", ["nack_next", "bad_checksum_next", "silent"])
def test_reader_fault_is_flagged_and_the_other_pile_plays_on(fault):
    t = VirtualTable()
    try:
        open_piles(t)
        t.run_until(2_400_000)
        t.at(2_400_000, lambda: setattr(t.emulators[1], fault, True))
        t.land_card(0, "8H", 2_600_000)
        t.land_card(0, "9H", 3_000_000)
        t.run_until(3_400_000)
        if fault == "silent":
            t.at(3_400_000, lambda: setattr(t.emulators[1], "silent", False))
        t.land_card(1, "QS", 5_500_000)                    # pile 1 works again afterwards
        t.run_until(6_000_000)
        lines = t.log_lines()
        down = [v for v in verdicts(lines, "error") if v["reason"] == "reader_down"]
        assert down and down[0]["pile"] == 1
        assert [v["card"] for v in verdicts(lines, "accept")] == ["8H", "9H", "QS"]
        device, rejudged = device_and_rejudged(lines)
        assert device == rejudged
        assert t.app.readers[1].failures >= 1 and t.app.readers[1].status == 0
    finally:
        t.close()


def test_dead_reader_at_boot_is_reported_and_retried():
    t = VirtualTable(emulator=[{}, {"asleep": True}], boot=False)
    try:
        t.emulators[1].silent = True
        t.boot()
        assert t.app.versions[1] is None and t.app.versions[0] is not None
        t.at(500_000, lambda: setattr(t.emulators[1], "silent", False))
        open_piles(t)
        t.land_card(0, "8H", 2_600_000)
        t.land_card(1, "QS", 4_600_000)
        t.run_until(5_000_000)
        lines = t.log_lines()
        assert any(v["reason"] == "reader_down" and v["pile"] == 1 for v in verdicts(lines, "error"))
        assert [v["card"] for v in verdicts(lines, "accept")] == ["8H", "QS"]
    finally:
        t.close()


def test_ring_overflow_is_flagged(table):
    t = table
    open_piles(t)
    pin = t.board["players"][0]["slap"][0]["pin"]

    def storm():
        for _ in range(100):          # 100 edges before the loop runs again: the ring holds 64
            Pin.registry[pin].pulse(0)
    t.at(2_500_000, storm)
    t.run_until(2_700_000)
    over = [v for v in verdicts(t.log_lines(), "error") if v["reason"] == "overflow"]
    assert len(over) == 1 and over[0]["value"] == t.app.ring.overflows
    assert t.app.ring.overflows >= 100 - 64


def test_unknown_uid_is_flagged(table):
    t = table
    open_piles(t)
    t.land_card(0, b"\x04\xde\xad\xbe\xef\x00\x01", 2_600_000)
    t.land_card(0, "8H", 3_000_000)
    t.run_until(3_300_000)
    lines = t.log_lines()
    bad = [v for v in verdicts(lines, "error") if v["reason"] == "unknown_uid"]
    assert bad == [{"t": bad[0]["t"], "verdict": "error", "reason": "unknown_uid", "pile": 0,
                    "uid": "04DEADBEEF0001"}]
    assert [v["card"] for v in verdicts(lines, "accept")] == ["8H"]
    device, rejudged = device_and_rejudged(lines)
    assert device == rejudged      # the unread touch is a no_read on both sides


@pytest.mark.parametrize("files,code,text", [
    ({"board.json": "{\"board\": 1,"}, 3, "board error (blink code 3): board.json: not valid JSON"),
    ({"board.json": None}, 2, "board error (blink code 2): board.json: cannot open"),
    ({"board.json": json.dumps({"board": 1, "name": "x", "piles": 2, "nfc": {}, "players": []})}, 4,
     "board error (blink code 4): board.json: not checked by `spit flash`"),
    ({"board.json": json.dumps({"board": 1, "checked": 1, "name": "x"})}, 4,
     "board error (blink code 4): board.json: "),
    ({"ruleset.json": "{\"ruleset\": \"nope\"}"}, 6, "ruleset error (blink code 6): ruleset.json: not checked by"),
    ({"cards.json": None}, 7, "card map error (blink code 7): cards.bin: missing (enroll the cards"),
    ({"cards.bin": None}, 7, "card map error (blink code 7): cards.bin: missing (enroll the cards"),
    ({"cards.bin": b"spit cards 1\n" + bytes(12)}, 7, "card map error (blink code 7): cards.bin: damaged"),
    ({"logtables.bin": None}, 9, "log tables error (blink code 9): logtables.bin: missing (spit flash writes it)"),
    ({"logtables.bin": b"spit log tables 1\n\x05\x00ab"}, 9,
     "log tables error (blink code 9): logtables.bin: damaged or not a log tables file"),
])
def test_boot_errors_are_one_clear_line(files, code, text, capsys):
    t = VirtualTable(files=files, boot=False)
    try:
        assert t.run_main(error_cycles=2) == code
        out = capsys.readouterr().out
        lines = [line for line in out.splitlines() if line.strip()]
        assert len(lines) == 1 and text in lines[0], out
        assert "Traceback" not in out
    finally:
        t.close()


def test_correction_menu_undo_and_resync(table):
    t = table
    open_piles(t)
    t.land_card(0, "8H", 2_600_000)
    t.land_card(0, "9H", 2_900_000)
    t.run_until(3_000_000)
    # Both players hold STUCK: the menu opens after 2 s of overlap; no STUCK is registered.
    t.press(0, "stuck", 3_100_000, hold_us=2_600_000)
    t.press(1, "stuck", 3_200_000, hold_us=2_400_000)
    t.run_until(5_300_000)
    assert t.app.corr.menu
    assert set(t.led_intents().values()) == {("yellow", "pulse")}
    t.press(0, "stuck", 6_000_000)                         # undo the 9H
    t.press(1, ("slap", 0), 6_500_000)                     # re-sync pile 0 ...
    t.run_until(6_700_000)
    assert t.led_intents()["PILE0"] == ("cyan", "blink")
    t.lift_card(0, "8H", 6_800_000)                        # ... lift the 8H and put it back
    t.land_card(0, "8H", 6_900_000, touch=False)
    t.run_until(7_200_000)
    t.run_until(17_500_000)                                # 10 s without input closes the menu
    assert not t.app.corr.menu
    t.land_card(0, "9C", 17_600_000)
    t.run_until(18_000_000)
    lines = t.log_lines()
    assert not verdicts(lines, "stuck")
    assert [e["ev"] for e in events(lines) if e["ev"] in ("undo", "top")] == ["undo", "top"]
    assert [(v["verdict"], v["card"]) for v in verdicts(lines) if v["verdict"] in ("undo", "resync")] == \
        [("undo", "9H"), ("resync", "8H")]
    assert verdicts(lines, "accept")[-1]["card"] == "9C"
    device, rejudged = device_and_rejudged(lines)
    assert device == rejudged


def test_power_cut_mid_log_write_keeps_everything_before(table):
    from referee.logread import read_log
    t = table
    open_piles(t)
    t.land_card(0, "8H", 2_600_000)
    t.press(0, "stuck", 3_000_000)
    t.press(1, "stuck", 3_100_000)                         # spit call: a pause, the log is flushed
    t.run_until(3_500_000)
    book = t.app.book
    saved = len(read_log(book.path)[0])
    t.land_card(0, "9H", 6_000_000)
    t.run_until(6_400_000)

    class Cut:
        """The file as the power dies: half of the write reaches flash, then nothing."""

        def __init__(self, f):
            self.f = f

        def write(self, data):
            self.f.write(bytes(data[:len(data) // 2]))
            self.f.flush()
            raise OSError(5)

        def flush(self):
            pass

        def close(self):
            pass
    book._f = Cut(book._f)
    t.app.slog.flush()   # the records of the round so far are formatted, then written
    lines, dropped_bytes, dropped_lines = read_log(book.path)
    assert dropped_lines == 1 and dropped_bytes > 0
    assert len(lines) >= saved
    device, rejudged = device_and_rejudged(lines)
    assert device == rejudged[:len(device)]


def test_micropython_unix_port_runs_the_firmware(run_mp):
    r = run_mp("mp_firmware_check.py")
    assert r.returncode == 0 and "mp_firmware_check: OK" in r.stdout, r.stdout + r.stderr


def test_enrollment_on_the_board(tmp_path):
    """referee.enroll.run: prompted taps on pile 0, duplicates rejected, resumable cards.json."""
    t = VirtualTable(files={"cards.json": None}, boot=False, root=str(tmp_path))
    try:
        import referee.enroll as enroll
        order = enroll.card_order()
        em = t.emulators[0]
        uids = [bytes([4, 1, 2, 3, 4, 5, k]) for k in range(60)]
        said = []
        state = {"k": 0, "dup": False}

        def out(line):
            said.append(line)
            if line.startswith("Tap the"):
                # The player taps the next tag (and once an already enrolled one first).
                for uid in list(em.tags):
                    em.remove_tag(uid.uid)
                if state["k"] == 3 and not state["dup"]:
                    state["dup"] = True
                    em.place_tag(uids[0])
                else:
                    em.place_tag(uids[state["k"]])
                    state["k"] += 1
            elif "already enrolled" in line:
                em.remove_tag(uids[0])
                em.place_tag(uids[state["k"]])
                state["k"] += 1
        assert enroll.run(root=t.root, out=out) == 52
        cards = json.loads((tmp_path / "cards.json").read_text())["cards"]
        assert len(cards) == 52
        assert sorted(cards.values()) == sorted(order)
        assert cards["04010203040500"] == "AC"
        assert any("already enrolled as AC" in line for line in said)
        assert said[1] == "Tap the Ace of Clubs (1/52)" and said[-1].startswith("All 52 cards enrolled")
        # Resume: a second deck ("@1") starts at its first card; the first deck is complete.
        assert enroll.next_missing(cards, order, "") == -1
        assert enroll.next_missing(cards, order, "@1") == 0
        # The referee plays with the enrolled tags from its next boot: `spit enroll --board-port`
        # puts the map, checked and packed on the PC, in /cards.bin (the file the boot reads).
        from host_tools.enroll import packed_card_map
        (tmp_path / "cards.bin").write_bytes(packed_card_map(cards))
        t.boot()
        tag = {code: uid for uid, code in cards.items()}
        t.land_card(0, tag["7H"], 2_100_000)
        t.land_card(1, tag["KS"], 2_150_000)
        t.land_card(0, tag["8H"], 2_600_000)
        t.run_until(3_000_000)
        lines = t.log_lines()
        assert [v["card"] for v in verdicts(lines, "accept")][-1] == "8H"
        assert not [v for v in verdicts(lines, "error") if v["reason"] == "unknown_uid"]
    finally:
        t.close()


def test_enrollment_names_each_card_left_on_the_reader_once(tmp_path):
    """Two cards already enrolled lying on pile 0's reader (a game's pile) answer its listings
    in turn (the one just listed lets the next REQA pass): each is named once, not again and
    again (a flood of lines that filled the USB link and hung `spit enroll --board-port` on the
    emulated Pico).  Taken off, the new card tapped is enrolled."""
    t = VirtualTable(files={"cards.json": None}, boot=False, root=str(tmp_path))
    try:
        import referee.enroll as enroll
        em = t.emulators[0]
        lying = [bytes([4, 9, 9, 9, 9, 9, k]) for k in range(2)]
        (tmp_path / "cards.json").write_text(json.dumps({"cardmap": 1, "cards": {
            "04090909090900": "AC", "04090909090901": "2C"}}))
        for uid in lying:
            em.place_tag(uid)
        said = []
        polls = [0]
        new = bytes([4, 1, 2, 3, 4, 5, 6])

        class Reader:
            """Pile 0's reader as the script reads it: the cards are taken off after 60 listings,
            the new one tapped 5 listings later."""
            def __init__(self):
                from referee.boardfile import load
                self.real = enroll._Reader(load(t.root + "board.json", "board.json"))

            def poll(self):
                polls[0] += 1
                if polls[0] == 60:
                    for uid in lying:
                        em.remove_tag(uid)
                if polls[0] == 65:
                    em.place_tag(new)
                return self.real.poll()
        assert enroll.run(root=t.root, out=said.append, timeout_s=3, reader=Reader()) == 1, said
        named = [line for line in said if "already enrolled" in line]
        assert sorted(named) == ["  Tag 04090909090900 is already enrolled as AC; tap the Three of Clubs.",
                                 "  Tag 04090909090901 is already enrolled as 2C; tap the Three of Clubs."], said
        assert "  04010203040506 = 3C" in said
    finally:
        t.close()


def test_board_reorder_us_sets_the_hold_unless_the_ruleset_does():
    # boards/pico.json has touch sensors on every pile and "reorder_us": 5000.
    t = VirtualTable()
    try:
        assert t.app.rules.reorder_us == 5000
        # A card is judged right after its read: the LED is green ~read latency + 5 ms later.
        t.run_until(2_000_000)
        t.land_card(0, "7H", 2_100_000)
        t.land_card(1, "KS", 2_150_000)
        t.land_card(0, "8H", 2_600_000)
        t.run_until(2_660_000)
        assert t.led_intents()["PILE0"] == ("green", "solid")
    finally:
        t.close()
    t = VirtualTable(options={"reorder_us": 40000})
    try:
        assert t.app.rules.reorder_us == 40000
    finally:
        t.close()


def bouncing_press(t, player, pile, at, hold_us=60_000):
    """A mechanical slap pad pressed and released, each edge bouncing for 0.7 ms (as the
    emulated Pico's table drives them: host_tools/rp2emu/table.py BOUNCE_US)."""
    spec = t.board["players"][player]["slap"][pile]
    for start, active in ((at, True), (at + hold_us, False)):
        for i, dt in enumerate((0, 150, 400, 550, 700)):
            level = active if i % 2 == 0 else not active
            t.at(start + dt, lambda s=spec, v=level: t._drive_input(s, v))


def test_a_slap_pads_bouncing_release_is_not_another_slap(table):
    """A slap is the pad's press; its release (bouncing, so the pad's press-edge IRQ fires
    again) must not count as a second slap, nor as a second unit of a question's answer."""
    t = table
    open_piles(t)
    bouncing_press(t, 0, 0, 3_000_000)
    t.run_until(3_500_000)
    assert len(events(t.log_lines(), "slap")) == 1
