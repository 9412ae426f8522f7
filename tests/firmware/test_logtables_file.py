"""The log's words as the board gets them: ``logtables.bin``, written by `spit flash` on the PC
(spit.logtables.tables_file) and read at boot by referee/boardfile.py ``load_log_tables``.

The board then needs neither spit.notation nor spit.logtables: the file carries the log line
tables (referee/logline.py writes lines from them, tests/firmware/test_logline.py compares every line
with spit.notation's text) and the session header's template (filled at boot with the
ruleset, options, counts, board and firmware; the same text as spit.notation.header_line).
A missing, damaged or stale file is one clear line with blink code 9.
"""

import json

import pytest

from spit import __version__
from spit.logtables import TABLES_MAGIC, header_template, line_tables, tables_file
from spit.notation import header_line
from spit.rules import make_ruleset
from referee import boardfile


def _values(rules, board="pico"):
    return (rules.name, rules.options, rules.default_counts(), board, __version__)


def _load(tmp_path, data, version=__version__, values=None):
    path = tmp_path / "logtables.bin"
    path.write_bytes(data)
    return boardfile.load_log_tables(str(path), version, values or _values(make_ruleset("classic")))


def _plain(table):
    return table if isinstance(table, int) else list(table)


def test_the_file_gives_back_every_table(tmp_path):
    _, tables = _load(tmp_path, tables_file(__version__))
    built = line_tables()
    assert len(tables) == len(built)
    for got, want in zip(tables, built):
        assert _plain(got) == _plain(want)


@pytest.mark.parametrize("name, options, board", [
    ("classic", {}, "pico"), ("own_deck", {"jokers": 2}, "pico"), ("speed", {"wrap": "ace_only"}, "pico_i2c"),
    ("tableau", {"piles": 3, "tie_window_us": 2000}, "pico_3pile")])
def test_the_header_is_the_notation_header(name, options, board, tmp_path):
    rules = make_ruleset(name, options)
    header, _ = _load(tmp_path, tables_file(__version__), values=_values(rules, board))
    extra = {"board": board, "firmware": __version__}
    assert header == header_line(rules, rules.default_counts(), extra)
    assert json.loads(header)["counts"] == rules.default_counts()


def test_the_header_template_takes_five_json_values():
    assert header_template() % ('"a"', "{}", "[1, 2]", '"b"', '"c"') == \
        '{"spitlog": 1, "ruleset": "a", "options": {}, "counts": [1, 2], "board": "b", "firmware": "c"}'


def test_a_missing_file_is_one_clear_error_with_blink_code_9(tmp_path):
    with pytest.raises(boardfile.BoardError) as e:
        boardfile.load_log_tables(str(tmp_path / "logtables.bin"), __version__, _values(make_ruleset("classic")))
    assert str(e.value) == "logtables.bin: missing (spit flash writes it)"
    assert e.value.code == boardfile.ERR_LOG_TABLES == 9


def test_damaged_files_are_refused(tmp_path):
    good = tables_file(__version__)
    for data in (b"", good[:-1], good + b"\x00", b"spit log tables 2\n" + good[len(TABLES_MAGIC):],
                 good[:len(TABLES_MAGIC)] + b"\x05\x00ab", b'{"cardmap": 1}'):
        with pytest.raises(boardfile.BoardError) as e:
            _load(tmp_path, data)
        assert str(e.value) == "logtables.bin: damaged or not a log tables file (run `spit flash` again)"
        assert e.value.code == 9


def test_a_file_of_another_firmware_is_refused(tmp_path):
    with pytest.raises(boardfile.BoardError) as e:
        _load(tmp_path, tables_file("0.0.1"), version="0.2.0")
    assert str(e.value) == "logtables.bin: written for another firmware than this one, 0.2.0 (run `spit flash` again)"
    assert e.value.code == 9


def test_a_damaged_header_template_is_refused(tmp_path):
    good = tables_file(__version__)
    template = header_template().encode()
    at = good.index(template)
    bad = template.replace(b"%s}", b"%d}")   # (same length: only the template changes)
    with pytest.raises(boardfile.BoardError, match="logtables.bin: damaged header template") as e:
        _load(tmp_path, good[:at] + bad + good[at + len(template):])
    assert e.value.code == 9
