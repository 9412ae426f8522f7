"""The board file on the device (referee/boardfile.py) and its check by `spit flash` on the PC.

The full validator (referee/board.py) does not go onto the board: spit flash runs it and writes
the normalised board marked ``"checked": 1``; the device loads that with a short check, and
refuses an unchecked file when it has no validator, with one line saying what to do.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")


def _modules():
    from host_tools.device import flash_inputs
    from referee import boardfile
    return flash_inputs, boardfile


def raw_board(name="pico"):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", ["pico", "pico_3pile", "pico_i2c"])
def test_flash_writes_a_checked_board_the_device_loads_without_the_validator(name, tmp_path, monkeypatch):
    flash_inputs, boardfile = _modules()
    checked = flash_inputs.checked_board(FIRMWARE, name + ".json", raw_board(name))
    assert checked["checked"] == 1 and checked["name"] == name
    path = tmp_path / "board.json"
    path.write_text(json.dumps(checked))
    monkeypatch.setitem(sys.modules, "referee.board", None)   # the device: no validator installed
    got = boardfile.load(str(path))
    assert got["piles"] == checked["piles"] and got["nfc"] == checked["nfc"]


def test_flash_refuses_a_bad_board_naming_the_key():
    flash_inputs, _ = _modules()
    bad = raw_board()
    bad["players"][1]["slap"][0] = 40
    with pytest.raises(flash_inputs.FlashError,
                       match=r"board file pico.json: players\[1\].slap\[0\]: pin 40 is not a Pico GPIO"):
        flash_inputs.checked_board(FIRMWARE, "pico.json", bad)


def test_an_unchecked_board_is_refused_even_where_the_validator_is_importable(tmp_path):
    # The device never reaches for the PC's validator: a hand-copied file is one line saying what to do.
    _, boardfile = _modules()
    import referee.board  # noqa: F401  (importable here, on the PC: still not used)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(raw_board()))
    with pytest.raises(boardfile.BoardError, match="board.json: not checked by `spit flash`") as e:
        boardfile.load(str(path))
    assert e.value.code == boardfile.ERR_INVALID


def test_a_checked_board_missing_a_key_is_one_clear_error(tmp_path):
    flash_inputs, boardfile = _modules()
    checked = flash_inputs.checked_board(FIRMWARE, "pico.json", raw_board())
    del checked["players"]
    path = tmp_path / "board.json"
    path.write_text(json.dumps(checked))
    with pytest.raises(boardfile.BoardError, match="board.json: missing key 'players'"):
        boardfile.load(str(path))
    checked = flash_inputs.checked_board(FIRMWARE, "pico.json", raw_board())
    checked["nfc"]["readers"].pop()
    path.write_text(json.dumps(checked))
    with pytest.raises(boardfile.BoardError, match="nfc.readers: expected 2 entries"):
        boardfile.load(str(path))


def test_the_manifest_leaves_the_validator_and_bring_up_scripts_off_the_board():
    from host_tools.device import manifest
    files, skipped = manifest.board_manifest(FIRMWARE, raw_board())
    for rel in ("referee/board.py", "lib/spit/rules.py", "referee/enroll.py", "referee/nfc_probe.py"):
        assert rel not in files and rel in skipped
    assert "referee/boardfile.py" in files


# ---- the ruleset: resolved by spit flash on the PC, loaded with a short check ----------------

def _attributes(rs):
    return {k: v for k, v in vars(rs).items()}


@pytest.mark.parametrize("name, options, board", [
    ("classic", {}, "pico"), ("own_deck", {"jokers": 2}, "pico"), ("speed", {"wrap": "ace_only"}, "pico_i2c"),
    ("tableau", {"piles": 3, "reorder_us": 7000}, "pico_3pile"), ("family", {"colours": "alternate"}, "pico")])
def test_flash_writes_a_checked_ruleset_the_device_loads_without_spit_rules(name, options, board, tmp_path,
                                                                           monkeypatch):
    from spit.rules import from_config
    flash_inputs, boardfile = _modules()
    board_checked = flash_inputs.checked_board(FIRMWARE, board + ".json", raw_board(board))
    config = {"ruleset": name, "options": options}
    written = flash_inputs.checked_ruleset(FIRMWARE, config, board_checked)
    assert written["checked"] == 1
    path = tmp_path / "ruleset.json"
    path.write_text(json.dumps(written))
    monkeypatch.setitem(sys.modules, "spit.rules", None)   # the device: spit.rules not installed
    got = boardfile.load_ruleset(str(path))
    monkeypatch.undo()
    want = from_config(config, board_checked["reorder_us"])   # the board's reorder_us unless set
    assert _attributes(got) == _attributes(want)
    assert got.reorder_us == options.get("reorder_us", board_checked["reorder_us"])


def test_the_device_checks_every_value_the_engine_reads():
    from spit.rules import make_ruleset
    _, boardfile = _modules()
    values = set(_attributes(make_ruleset("classic"))) - {"name", "options"}
    assert boardfile.RULESET_VALUE_COUNT == len(values)
    from spit.rules import checked_config
    assert set(checked_config(make_ruleset("classic"))["values"]) == values


def test_flash_refuses_a_bad_ruleset_naming_the_option():
    flash_inputs, _ = _modules()
    with pytest.raises(flash_inputs.FlashError, match=r"ruleset classic: option 'wrap': 'sometimes' is not one of"):
        flash_inputs.checked_ruleset(FIRMWARE, {"ruleset": "classic", "options": {"wrap": "sometimes"}}, {})


def test_bad_ruleset_files_are_one_clear_error_with_blink_code_6(tmp_path, monkeypatch):
    flash_inputs, boardfile = _modules()
    path = tmp_path / "ruleset.json"
    written = flash_inputs.checked_ruleset(FIRMWARE, {"ruleset": "classic", "options": {}}, {})
    del written["values"]["tie_window_us"]
    cases = [(None, "ruleset.json: missing (spit flash writes it"),
             ("{", "ruleset.json: not valid JSON"),
             (json.dumps(written), "ruleset.json: values: %d, not %d" % (
                 boardfile.RULESET_VALUE_COUNT - 1, boardfile.RULESET_VALUE_COUNT)),
             ('{"ruleset": "classic", "checked": 1}', 'expected "ruleset", "options" and "values"'),
             ('{"ruleset": "nope"}', "ruleset.json: not checked by `spit flash`"),
             ('{"ruleset": "classic", "options": {}}', "ruleset.json: not checked by `spit flash`")]
    for text, words in cases:
        if text is None:
            path.unlink() if path.exists() else None
        else:
            path.write_text(text)
        with pytest.raises(boardfile.BoardError) as e:
            boardfile.load_ruleset(str(path))
        assert words in str(e.value) and e.value.code == 6
