"""referee/sessionlog.py: the records keep every value of every event and verdict, whatever its
size (18-byte records: one value may need more than 16 bits; two such go beside the arrays),
and the lines they give are the ones spit.words makes."""

import pytest

from spit import verdicts as V
from spit.intake import EV_CARD, EV_TOUCH, EV_ANSWER, EV_TICK
from spit.words import event_items, items_json, verdict_items

from referee.sessionlog import make_records

BIG = (1 << 30) - 1   # past 16 bits, still a small int on the RP2040


class Book:
    """The Logbook's buffer side only (what SessionLog.drain uses)."""

    def __init__(self):
        self.buf = bytearray(8192)
        self.n = 0
        self.lines = 0

    def free(self):
        return len(self.buf) - self.n

    def room(self, nbytes):
        return self.n

    def commit(self, end, lines):
        self.n = end
        self.lines += lines

    def text(self):
        return bytes(self.buf[:self.n]).decode()


def line_of(items):
    return items_json(items) + "\n"


def test_records_are_18_bytes():
    ints, shorts = make_records(10)
    assert len(ints) * ints.itemsize + len(shorts) * shorts.itemsize == 180


@pytest.mark.parametrize("code, a, b, c, d", [
    (V.V_ACCEPT, 1, 17, 0, 123456),                 # d wide (a dt_us)
    (V.V_LATE, 0, 17, 4999999, 33),                 # c wide
    (V.V_COUNTDOWN, 60000, 3, -1, -1),              # a wide
    (V.V_SCORE, 1, 40000, -1, -1),                  # b wide
    (V.V_ERROR, V.E_READER, 1, BIG, 70000),         # two wide: kept beside the arrays
    (V.V_ROUND_START, 70000, 40000, 26, 0),         # two wide in a and b
    (V.V_ERROR, V.E_OVERFLOW, -1, -40000, -1),      # a wide negative
    (V.V_GAME_OVER, -1, 2, -1, -1),                 # small values only
])
def test_every_value_comes_back_in_its_line(code, a, b, c, d):
    book = Book()
    log = _session_log(book, 5000, capacity=4)
    log.sink(code, 1234, 567, a, b, c, d)
    log.drain()
    assert book.text() == line_of(verdict_items(code, 1234, 567, a, b, c, d))
    assert not log._side   # written: nothing kept beside the arrays


def test_a_full_ring_of_mixed_records_drains_in_order():
    book = Book()
    log = _session_log(book, 5000, capacity=4)
    want = []
    for k in range(10):   # past the capacity: the oldest are spilled into the book as it goes
        ms = 1000 * k + 1
        log.event(EV_TOUCH, ms, 0, k % 2, 0, 0)
        want.append(line_of(event_items(EV_TOUCH, ms * 1000, k % 2, 0, 0)))
        log.event(EV_ANSWER, ms, 1, 1, 2, 0)
        want.append(line_of(event_items(EV_ANSWER, ms * 1000 + 1, 1, 2, 0)))
        log.sink(V.V_ERROR, ms, 2, V.E_READER, 1, BIG - k, 70000 + k)
        want.append(line_of(verdict_items(V.V_ERROR, ms, 2, V.E_READER, 1, BIG - k, 70000 + k)))
    log.drain()
    assert book.text() == "".join(want) and log.spills > 0 and not log._side


def test_a_card_behind_the_horizon_gets_its_tick_line_first():
    book = Book()
    log = _session_log(book, 5000, capacity=8)
    log.advanced(900000, 500)    # the loop's horizon: 900 s, past 16 bits of ms
    log.event(EV_CARD, 899999, 0, 0, 17, -1)
    log.drain()
    assert book.text() == (line_of(event_items(EV_TICK, 900000500, 0, 0, 0))
                           + line_of(event_items(EV_CARD, 899999000, 0, 17, -1)))


def _session_log(*args, **kwargs):
    """A SessionLog with the log's words, as the boot gives them (logtables.bin: spit.logtables)."""
    from referee.sessionlog import SessionLog
    from spit.logtables import line_tables
    slog = SessionLog(*args, **kwargs)
    slog.line_format.use(line_tables())
    return slog
