"""`spit doctor` on the emulated Pico (real MicroPython, the referee as `spit flash` installs it), a
person at its table (tests/support/doctor_table.py): a healthy table passes every check, and each injected
wiring fault (host_tools/rp2emu/table.py ``faults``) is named on one line with its likely cause.
Skipped, with the reason, without the firmware image (../shared/rp2/)."""

import json
import os

import pytest

from host_tools.doctor import Report, result_line
from host_tools.rp2emu.emulator import why_unavailable

REASON = why_unavailable()
needs_rp2 = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def _fails(report_text):
    return [ln for ln in report_text.splitlines() if ln.startswith("FAIL")]


def _run(tmp_path, faults, argv, range_cards=99, emulator=None):
    from support.doctor_table import DoctorTable
    with DoctorTable(faults=faults, range_cards=range_cards, emulator=emulator) as t:
        return t.run_doctor(argv, str(tmp_path / "report.txt"))


def _kept(tmp_path):
    """The JSON the doctor keeps beside the report (doctor-<board>-<date>.json)."""
    found = sorted(tmp_path.glob("doctor-pico-*.json"))
    assert len(found) == 1, found
    with open(found[0], encoding="utf-8") as f:
        return json.load(f)


@needs_rp2
def test_healthy_table_passes_every_check_and_the_referee_runs_again(tmp_path):
    # The person has 5 cards at hand for the range step (8 asked): the 6th prompt is answered
    # with a STUCK button, which ends the pile.
    rc, output, report = _run(tmp_path, None, [], range_cards=5)
    assert rc == 0, output
    assert _fails(report) == []
    for what in ("reader 0", "reader 1", "player 0's STUCK", "player 1's pad of pile 1", "card on pile 0",
                 "touch sensor of pile 0", "touch sensor of pile 1", "reader 0 probe: GO",
                 "reader 1 probe: GO", "tag range on pile 0: 5 cards read",
                 "zone PILE0", "zone RESULT", "buzzer"):
        assert "PASS  %s" % what in report, what
    assert "0 failed, 0 skipped" in report
    assert "the referee is running again" in output
    kept = _kept(tmp_path)
    assert str(tmp_path) in report and "kept in" in report
    pts = kept["range"]["points"]
    assert [p["n"] for p in pts] == [1, 2, 3, 4, 5] and len({p["uid"] for p in pts}) == 5
    limit = kept["range"]["limit_us"]
    assert limit == 120000 and "touch_match_us" in kept["range"]["limit_source"]   # classic's ruleset.json
    assert all(0 < p["read_us"] <= limit for p in pts)
    assert [t["pile"] for t in kept["touch"]] == [0, 1] and all(0 < t["dt_us"] <= limit for t in kept["touch"])
    # The probe's first-contact answers per reader, as the emulated chip's default options give them
    # (host_tools/vboard/pn532_options.py): the listing sends REQA, InRelease/InDeselect halt.
    for pr in kept["probe"]:
        a = pr["answers"]
        assert pr["verdict"] == "GO" and a["list_uses_wupa"] is False and a["listing_us"] > 0, pr
        assert "      list_uses_wupa = False" in report
    # ... one card, then two (a second card put on the first): the collision's status, CIU_Coll
    # readable, the listing's order, as the default chip gives them.
    assert [(p["pile"], "collision_status" in p["answers"]) for p in kept["probe"]] == [
        (0, False), (0, True), (1, False), (1, True)]
    for pr in kept["probe"][1::2]:
        a = pr["answers"]
        assert (a["collision_status"], a["coll_readable"], a["list_order"]) == (0x06, True, "high"), pr
    assert "PASS  reader 0 probe, two cards: GO" in report and "PASS  reader 1 probe, two cards: GO" in report


@needs_rp2
def test_unread_pile_and_unwired_touch_sensor_one_line_each(tmp_path):
    # Pile 0's tags never answer its reader (out of range); pile 1's touch sensor gives no edge.
    rc, output, report = _run(tmp_path, {"unreadable_piles": [0], "dead_touch": [1]},
                              ["--steps", "touch,range", "--pile-cards", "3"])
    assert rc == 1, output
    fails = _fails(report)
    assert len(fails) == 3, fails
    assert fails[0].startswith("FAIL  touch sensor of pile 0: the sensor fired but no card was read") \
        and "reader 0" in fails[0]
    assert fails[1].startswith("FAIL  touch sensor of pile 1: card ") and "gave no edge" in fails[1] \
        and "GPIO 27" in fails[1] and "row touch sensor pile 1" in fails[1]
    assert fails[2].startswith("FAIL  tag range on pile 0: card 1 was never read") \
        and "reader 0" in fails[2] and "row PN532 pile 0" in fails[2]
    assert "the referee is running again" in output


@needs_rp2
def test_missing_reader_stuck_button_and_dark_strip_one_line_each(tmp_path):
    rc, output, report = _run(tmp_path, {"missing_readers": [1], "stuck_pins": [2], "dark_strip": True},
                              ["--steps", "readers,buttons,leds"])
    assert rc == 1
    fails = _fails(report)
    assert len(fails) == 3, fails
    assert fails[0].startswith("FAIL  reader 1: no answer") and "row PN532 pile 1" in fails[0]
    assert fails[1].startswith("FAIL  player 0's STUCK: reads pressed before anyone touched it (GPIO 2)")
    assert fails[2].startswith("FAIL  LED strip: no zone was seen lit") and "GPIO 28" in fails[2]
    assert "PASS  reader 0" in report and "PASS  player 1's STUCK" in report
    assert "the referee is running again" in output


@needs_rp2
def test_swapped_irq_lines(tmp_path):
    rc, output, report = _run(tmp_path, {"swapped_irqs": True}, ["--steps", "readers"])
    fails = _fails(report)
    assert rc == 1 and len(fails) == 1, fails
    assert "IRQ lines of readers 0 and 1" in fails[0] and "swapped" in fails[0]


@needs_rp2
def test_cs_line_without_pull_up_both_readers_answer(tmp_path):
    rc, output, report = _run(tmp_path, {"floating_cs": [1]}, ["--steps", "readers"])
    fails = _fails(report)
    assert rc == 1 and len(fails) == 1, fails
    assert "reader 1 answers when reader 0 is addressed" in fails[0] and "CS line floats" in fails[0]


@needs_rp2
def test_the_probe_answers_as_each_reader_s_chip_behaves(tmp_path):
    # Reader 0's chip: the listing sends WUPA, InRelease does not halt, RxAlign is not honoured
    # (options of the strict model no datasheet settles); reader 1 is missing.
    # With a second card on the first: a collision gives status 0x03, CIU_Coll says nothing, the
    # listing returns the lower UID first.
    chip = {"list_uses_wupa": True, "release_halts": False, "rx_align": False,
            "collision_status": 0x03, "coll_readable": False, "list_order": "low"}
    rc, output, report = _run(tmp_path, {"missing_readers": [1]}, ["--steps", "probe"], emulator=[chip, {}])
    assert rc == 0, output         # the missing reader is the readers step's FAIL; here it is skipped
    assert "PASS  reader 0 probe: GO" in report and "PASS  reader 0 probe, two cards: GO" in report
    for line in ("list_uses_wupa = True", "release_halts = False", "deselect_halts = True", "rx_align = False",
                 "collision_status = 0x03", "coll_readable = False", "list_order = low"):
        assert "      " + line in report, line
    assert "SKIP  reader probe of pile 1: reader 1 cannot be set up" in report
    kept = _kept(tmp_path)
    assert [p["pile"] for p in kept["probe"]] == [0, 0]
    assert kept["probe"][0]["answers"]["list_uses_wupa"] is True
    two = kept["probe"][1]["answers"]
    assert (two["collision_status"], two["coll_readable"], two["list_order"]) == (0x03, False, "low")
    # ... and written into the board's board.json, where the referee's reader takes them.
    assert kept["probe"][0]["saved"] is True and "answers written to board.json" in report
    assert "keep them with `spit flash --probe " in report


@needs_rp2
def test_without_a_second_card_the_two_card_questions_are_skipped_and_say_so(tmp_path):
    from support.doctor_table import DoctorTable
    with DoctorTable(faults={"missing_readers": [1]}) as t:
        t.person.second_card = False      # a STUCK button at "put a second card"
        rc, output, report = t.run_doctor(["--steps", "probe"], str(tmp_path / "report.txt"))
    assert rc == 0, output
    assert "PASS  reader 0 probe: GO" in report
    assert "SKIP  reader 0 probe, two cards: no second card (done): collision_status, coll_readable" in report
    kept = _kept(tmp_path)
    assert [p["pile"] for p in kept["probe"]] == [0] and kept["probe"][0]["saved"] is True


@needs_rp2
def test_a_pile_without_a_touch_sensor_is_skipped_with_the_reason(tmp_path):
    # A board file whose pile 1 has no touch sensor (flashed as spit flash does: the emulated Pico
    # gets this board.json).
    from host_tools.rp2emu.table import load_board_file
    from support.doctor_table import DoctorTable
    board = load_board_file("pico")
    board.update(name="pico_one_touch", touch=[board["touch"][0], None])
    board.pop("reorder_us")          # (5 ms is for a sensor on every pile)
    path = tmp_path / "pico_one_touch.json"
    path.write_text(json.dumps(board))
    with DoctorTable(str(path)) as t:
        rc, output, report = t.run_doctor(["--steps", "touch"], str(tmp_path / "report.txt"))
    assert rc == 0, output
    assert "PASS  touch sensor of pile 0: edge " in report
    assert "SKIP  touch sensor of pile 1: this board has none (boards/pico_one_touch.json: touch)" in report
    assert "1 passed, 0 failed, 1 skipped" in report
    assert "place a card on pile 1" not in output     # no card asked for where nothing is checked


def test_report_lines_and_counts():
    import io
    out = io.StringIO()
    r = Report("/dev/x", out)
    r.feed(">> press player 0's STUCK now\r\n")
    r.feed(json.dumps({"doctor": "reader", "result": "fail", "what": "reader 1", "detail": "no answer",
                       "cause": "its CS wire"}) + "\r\n")
    r.feed(json.dumps({"doctor": "buzzer", "result": "skip", "what": "buzzer", "detail": "nobody answered"}))
    assert not r.done
    r.feed('{"doctor": "done"}')
    assert r.done and r.counts() == {"pass": 0, "fail": 1, "skip": 1}
    assert r.lines[0] == "FAIL  reader 1: no answer  -> likely cause: its CS wire"
    assert ">> press player 0's STUCK now" in out.getvalue()
    assert "0 passed, 1 failed, 1 skipped" in r.text()
    assert result_line({"doctor": "x", "result": "pass", "what": "w"}) == "PASS  w"


def test_the_range_curve_is_drawn_and_kept_beside_the_report(tmp_path):
    import io
    from host_tools.doctor import save_curve
    r = Report("/dev/x", io.StringIO())
    data = {"board": "pico", "pile": 0, "limit_us": 120000, "limit_source": "ruleset.json touch_match_us",
            "touch": True, "points": [{"n": 1, "uid": "A1", "read_us": 6000},
                                      {"n": 2, "uid": "B2", "read_us": 12000},
                                      {"n": 3, "uid": "C3", "read_us": None}]}
    r.feed(json.dumps({"doctor": "range", "result": "fail", "what": "tag range on pile 0", "detail": "d",
                       "cause": "c", "data": data}))
    text = r.lines[0].splitlines()
    assert text[0].startswith("FAIL  tag range on pile 0: d")
    rows = [ln for ln in text if ln.strip()[:1].isdigit()]
    # The bars are drawn to the limit's scale (40 columns = 120 ms), the limit marked with |.
    assert rows[0].split()[:3] == ["1", "6.0", "ms"] and rows[0].count("#") == 2 and rows[0].endswith("|")
    assert rows[1].count("#") == 4 and len(rows[1]) == len(rows[0]) and "(no touch edge)" in rows[2]
    assert "the longest read is 10% of it" in text[-1]
    path = save_curve(str(tmp_path / "report.txt"), r, when=0)
    assert os.path.dirname(path) == str(tmp_path) and os.path.basename(path).startswith("doctor-pico-")
    with open(path, encoding="utf-8") as f:
        kept = json.load(f)
    assert kept["board"] == "pico" and kept["range"]["points"] == data["points"] and kept["probe"] == []
    assert save_curve(str(tmp_path / "r.txt"), Report("/dev/x", io.StringIO())) is None


def test_the_findings_are_named_after_the_board_the_device_reports(tmp_path):
    import io
    from host_tools.doctor import save_curve
    r = Report("/dev/x", io.StringIO())
    r.feed("spit doctor: board pico_3pile, 3 piles\r\n")
    r.feed(json.dumps({"doctor": "probe", "result": "pass", "what": "reader 2 probe", "detail": "GO",
                       "data": {"pile": 2, "verdict": "GO", "answers": {"list_uses_wupa": False}}}))
    path = save_curve(str(tmp_path / "report.txt"), r, when=0)
    assert os.path.basename(path).startswith("doctor-pico_3pile-")
    with open(path, encoding="utf-8") as f:
        kept = json.load(f)
    assert kept["board"] == "pico_3pile" and kept["range"] is None and kept["probe"][0]["pile"] == 2
    assert "      list_uses_wupa = False" in r.lines[0]
