"""Session time: wrapping device ticks -> (ms, us) without big ints; ordering across wraps."""

from spit.clock import SessionClock
from spit.timebase import diff_us, before, SATURATED_US
from table import Table

_PERIOD = 1 << 30
_MASK = _PERIOD - 1


class WrapClock:
    """The RP2040's tick counters: us and ms both wrap at 2**30 (injected: the unix port's never wrap)."""

    def __init__(self, start_us):
        self.true_us = start_us      # host-side truth (may be a big int: test only)

    def ticks_us(self):
        return self.true_us & _MASK

    def ticks_ms(self):
        return (self.true_us // 1000) & _MASK

    @staticmethod
    def ticks_diff(a, b):
        return ((a - b + (_PERIOD >> 1)) & _MASK) - (_PERIOD >> 1)


class Rng:
    """A tiny deterministic LCG (same numbers on CPython and MicroPython)."""

    def __init__(self, seed):
        self.s = seed

    def below(self, n):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return self.s % n


def _session_us(clock):
    return clock.ms * 1000 + clock.us


def test_session_clock_four_hours_of_wrapping_ticks():
    start = _PERIOD - 3000000            # 3 s before the first wrap
    wc = WrapClock(start)
    sc = SessionClock(wc.ticks_us, wc.ticks_ms, wc.ticks_diff)
    rng = Rng(7)
    four_hours = 4 * 3600 * 1000000
    while wc.true_us - start < four_hours:
        wc.true_us += 1 + rng.below(40000)   # a loop iteration every 0..40 ms
        sc.update()
        assert _session_us(sc) == wc.true_us - start
    assert wc.true_us - start >= four_hours  # crossed the 2**30 us wrap 13 times
    assert sc.coarse_jumps == 0


def test_session_clock_pause_longer_than_ticks_diff_range():
    # The loop stalls for 20 minutes (> 2**29 us) twice: ticks_ms bridges it to the ms.
    start = _PERIOD - 1000
    wc = WrapClock(start)
    sc = SessionClock(wc.ticks_us, wc.ticks_ms, wc.ticks_diff)
    for pause in (20 * 60 * 1000000 + 123456, 5000, 35 * 60 * 1000000 + 7):
        wc.true_us += pause
        sc.update()
        err = (wc.true_us - start) - _session_us(sc)
        assert -1000 < err < 1000
    assert sc.coarse_jumps == 2


def test_irq_stamps_just_before_and_after_a_wrap_keep_their_order():
    wc = WrapClock(_PERIOD - 500)
    sc = SessionClock(wc.ticks_us, wc.ticks_ms, wc.ticks_diff)
    first = wc.ticks_us()                 # stamped 500 us before the wrap
    wc.true_us += 1000
    second = wc.ticks_us()                # stamped 500 us after it (raw value is smaller)
    assert second < first
    wc.true_us += 5000
    sc.update()
    sc.convert(first)
    a = (sc.ev_ms, sc.ev_us)
    sc.convert(second)
    b = (sc.ev_ms, sc.ev_us)
    assert before(a[0], a[1], b[0], b[1])
    assert diff_us(b[0], b[1], a[0], a[1]) == 1000


def test_race_order_across_a_wrap_in_the_referee():
    # R-PLAY-5 across a tick wrap: the second landing's raw ticks are smaller.
    wc = WrapClock(_PERIOD - 2500000)    # countdown runs across the wrap
    sc = SessionClock(wc.ticks_us, wc.ticks_ms, wc.ticks_diff)
    t = Table()
    wc.true_us += 2010000
    sc.update()
    t.ref.feed(2, sc.ms, sc.us, 0, 0x27, -1)      # 7H spit on pile 0
    t.ref.feed(2, sc.ms, sc.us, 1, 0x3D, -1)      # KS spit on pile 1
    wc.true_us += 489000                           # 1 ms before the wrap
    s1 = wc.ticks_us()
    wc.true_us += 4000                             # 3 ms after the wrap
    s2 = wc.ticks_us()
    wc.true_us += 30000
    sc.update()
    sc.convert(s2)
    t.ref.feed(2, sc.ev_ms, sc.ev_us, 0, 0x06, -1)   # 6C arrives first, landed second
    sc.convert(s1)
    t.ref.feed(2, sc.ev_ms, sc.ev_us, 0, 0x28, -1)   # 8H landed first
    t.flush()
    a, b = t.tail(2)
    assert (a["verdict"], a["card"]) == ("accept", "8H")
    assert (b["verdict"], b["card"], b["dt_us"]) == ("late", "6C", 4000)


def test_diff_us_saturates_instead_of_making_big_ints():
    assert diff_us(10, 5, 10, 0) == 5
    assert diff_us(0, 0, 0, 999) == -999
    assert diff_us(600000000, 0, 0, 0) == SATURATED_US
    assert diff_us(0, 0, 600000000, 0) == -SATURATED_US
    assert before(5, 999, 6, 0) and not before(6, 0, 6, 0)
