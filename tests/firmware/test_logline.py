"""The firmware's log lines (referee/logline.py) are byte for byte the text spit.notation gives,
with the tables the board has: spit flash's logtables.bin, read by the device's loader.

The firmware formats lines into a bytearray without allocating (the live console echo runs in
the middle of play); these tests compare every verdict code and event kind, with fields left
out (-1), a draw (game_over winner -1), error values that are and are not cards, jokers, tens,
an unknown tag's UID and times before and after the first millisecond.
"""

import json

import pytest

from spit import verdicts as V
from spit.cards import JOKER, parse_card
from spit.intake import EVENT_NAMES, EV_TICK
from spit.notation import ERROR_NAMES, VERDICT_NAMES
from spit.words import event_items, verdict_items

from spit import __version__
from spit.logtables import tables_file
from referee.boardfile import load_log_tables
from referee.logline import LineFormat, MAX_LINE


def _board_tables():
    """The tables as the board loads them from the file spit flash writes."""
    import os
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".bin")
    try:
        os.write(fd, tables_file(__version__))
        os.close(fd)
        return load_log_tables(path, __version__, ("classic", {}, [26, 26], "pico", __version__))[1]
    finally:
        os.remove(path)


FMT = LineFormat(_board_tables())
CARDS = [parse_card(c) for c in ("AC", "10D", "QH", "KS")] + [JOKER]


def reference(items, t, uid=None):
    """The line as spit.notation's ordered items give it (the format of docs/log-format.md)."""
    parts = ['{"t": %d' % t]
    for k, v in items[1:]:
        parts.append(', "%s": "%s"' % (k, v) if isinstance(v, str) else ', "%s": %d' % (k, v))
    if uid is not None:
        parts.append(', "uid": "%s"' % uid)
    return "".join(parts) + "}\n"


def verdict_line(code, ms, us, a, b, c, d, uid=None):
    buf = bytearray(MAX_LINE + 10)
    end = FMT.verdict(buf, 5, code, ms, us, a, b, c, d, None if uid is None else uid.encode())
    assert end - 5 <= MAX_LINE
    return buf[5:end].decode()


def value_sets(code):
    """Field values that exercise each field's forms for ``code``."""
    if code == V.V_ERROR:
        for reason in range(len(ERROR_NAMES)):
            for value in (-1, 7, CARDS[1], JOKER):
                yield reason, 1, value, 0
            yield reason, -1, -1, -1
        return
    names = {V.V_ROUND_END: 0, V.V_GAME_OVER: 1, V.V_QUESTION: 0}
    for card in CARDS:
        for other in (-1, 0, 1, CARDS[2]):
            vals = [1, card, other, 123456]
            if code in names:
                vals[names[code]] = 1
            if code == V.V_GAME_OVER:
                yield -1, 2, -1, -1   # a draw
            yield tuple(vals)


@pytest.mark.parametrize("code", range(1, len(VERDICT_NAMES)))
def test_every_verdict_line_is_the_notation_text(code):
    for a, b, c, d in value_sets(code):
        for ms, us in ((0, 7), (0, 999), (1, 5), (123456, 80)):
            try:
                items = verdict_items(code, 0, 0, a, b, c, d)
            except (ValueError, KeyError, IndexError, TypeError):   # (values this verdict never carries)
                continue
            assert verdict_line(code, ms, us, a, b, c, d) == reference(items, ms * 1000 + us)


def test_an_error_value_is_written_as_a_card_exactly_when_it_is_a_card_code():
    # (logline decides it itself: spit.cards is not loaded on the board)
    for value in range(-20, 100):
        items = verdict_items(V.V_ERROR, 0, 0, V.E_DUPLICATE, 1, value, 0)
        assert verdict_line(V.V_ERROR, 3, 250, V.E_DUPLICATE, 1, value, 0) == reference(items, 3250), value


def test_unknown_uid_error_carries_the_uid():
    items = verdict_items(V.V_ERROR, 0, 0, V.E_UNKNOWN_UID, 0, -1, -1)
    line = verdict_line(V.V_ERROR, 2, 500, V.E_UNKNOWN_UID, 0, -1, -1, "04DEADBEEF0001")
    assert line == reference(items, 2500, "04DEADBEEF0001")
    assert json.loads(line)["uid"] == "04DEADBEEF0001"


@pytest.mark.parametrize("kind", range(1, len(EVENT_NAMES) - 1))
def test_every_event_line_is_the_notation_text(kind):
    buf = bytearray(MAX_LINE)
    for a, b, c in ((0, CARDS[0], -1), (1, CARDS[1], 1), (2, JOKER, 0), (1, CARDS[3], -1)):
        try:
            items = event_items(kind, 0, a, b, c)
        except (ValueError, KeyError, IndexError, TypeError):   # (values this event never carries)
            continue
        end = FMT.event(buf, 0, kind, 17, 42, a, b, c)
        assert buf[:end].decode() == reference(items, 17042)
    end = FMT.event(buf, 0, EV_TICK, 0, 0, 0, 0, 0)
    assert buf[:end] == b'{"t": 0, "ev": "tick"}\n'
