"""The board file on the device (referee/boardfile.py) and its check by `spit flash` on the PC.

The full validator (referee/board.py) does not go onto the board: spit flash runs it and writes
the normalised board marked ``"checked": 1``; the device loads that with a short check, and
refuses an unchecked file when it has no validator, with one line saying what to do.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")


def _modules():
    from host_tools import flash
    from referee import boardfile
    return flash, boardfile


def raw_board(name="pico"):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", ["pico", "pico_3pile", "pico_i2c"])
def test_flash_writes_a_checked_board_the_device_loads_without_the_validator(name, tmp_path, monkeypatch):
    flash, boardfile = _modules()
    checked = flash.checked_board(FIRMWARE, name + ".json", raw_board(name))
    assert checked["checked"] == 1 and checked["name"] == name
    path = tmp_path / "board.json"
    path.write_text(json.dumps(checked))
    monkeypatch.setitem(sys.modules, "referee.board", None)   # the device: no validator installed
    got = boardfile.load(str(path))
    assert got["piles"] == checked["piles"] and got["nfc"] == checked["nfc"]


def test_flash_refuses_a_bad_board_naming_the_key():
    flash, _ = _modules()
    bad = raw_board()
    bad["players"][1]["slap"][0] = 40
    with pytest.raises(flash.FlashError, match=r"board file pico.json: players\[1\].slap\[0\]: pin 40 is not a Pico GPIO"):
        flash.checked_board(FIRMWARE, "pico.json", bad)


def test_an_unchecked_board_is_refused_where_there_is_no_validator(tmp_path, monkeypatch):
    _, boardfile = _modules()
    path = tmp_path / "board.json"
    path.write_text(json.dumps(raw_board()))
    monkeypatch.setitem(sys.modules, "referee.board", None)
    with pytest.raises(boardfile.BoardError, match="board.json: not checked by `spit flash`") as e:
        boardfile.load(str(path))
    assert e.value.code == boardfile.ERR_INVALID
    monkeypatch.undo()
    assert boardfile.load(str(path))["name"] == "pico"   # the validator present: checked in full


def test_a_checked_board_missing_a_key_is_one_clear_error(tmp_path):
    flash, boardfile = _modules()
    checked = flash.checked_board(FIRMWARE, "pico.json", raw_board())
    del checked["players"]
    path = tmp_path / "board.json"
    path.write_text(json.dumps(checked))
    with pytest.raises(boardfile.BoardError, match="board.json: missing key 'players'"):
        boardfile.load(str(path))
    checked = flash.checked_board(FIRMWARE, "pico.json", raw_board())
    checked["nfc"]["readers"].pop()
    path.write_text(json.dumps(checked))
    with pytest.raises(boardfile.BoardError, match="nfc.readers: expected 2 entries"):
        boardfile.load(str(path))


def test_the_manifest_leaves_the_validator_and_bring_up_scripts_off_the_board():
    flash, _ = _modules()
    files, skipped = flash.board_manifest(FIRMWARE, raw_board())
    for rel in ("referee/board.py", "referee/enroll.py", "referee/nfc_probe.py"):
        assert rel not in files and rel in skipped
    assert "referee/boardfile.py" in files
