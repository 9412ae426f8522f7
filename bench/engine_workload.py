"""Engine benchmark workload, shared by CPython and the MicroPython unix port.

``steady_state(n_rounds)`` plays rounds of 40 cards (touch + card read + the loop's advance per
landing, like the device feeds them, with the LED intents the device keeps) and measures, around the steady-state landings only: the median over rounds of ns per
landing, and heap bytes allocated (``gc.mem_alloc`` with the GC disabled on MicroPython).
``locked=True`` (MicroPython) runs the timed landings with the heap locked, as the firmware
runs the engine (referee/loop.py ``run_locked``): MicroPython then keeps call frames on the
C stack instead of allocating a heap block for each call of a function with a frame of more
than 11 words; an allocation would raise MemoryError.  ``main()`` prints both.
"""

import gc
import sys

try:
    from time import ticks_us, ticks_diff
    import micropython
    MICRO = True
except ImportError:  # CPython
    from time import perf_counter_ns
    MICRO = False

from spit.intents import LedIntents
from spit.referee import Referee


def _classic():
    """The classic ruleset with a 100 ms countdown.  On a flashed board spit.rules is not
    installed: the board's ruleset.json (resolved by spit flash: flash classic) instead."""
    try:
        from spit.rules import make_ruleset
    except ImportError:
        from referee.boardfile import load_ruleset
        rules = load_ruleset("ruleset.json")
        if rules.name != "classic":
            raise ValueError("the board is flashed with %s, not classic" % rules.name)
        rules.countdown_ms = 100
        rules.reorder_us = 20000   # (the classic default: the board's reorder_us would differ)
        return rules
    return make_ruleset("classic", {"countdown_ms": 100})

_MP = sys.implementation.name == "micropython"


def _now():
    # ticks_us() itself, not ticks_us() * 1000: that product is a big int (a heap allocation)
    # on the 32-bit port, inside the timed span.
    if MICRO:
        return ticks_us()
    return perf_counter_ns()


def _elapsed_ns(a, b):
    if MICRO:
        return ticks_diff(b, a) * 1000
    return b - a


class NullSink:
    """Counts verdicts.  The referee gets its bound method ``sink``, as the firmware gives it
    ``SessionLog.sink`` (an instance's ``__call__`` would cost a lookup per verdict more)."""

    def __init__(self):
        self.n = 0

    def sink(self, code, ms, us, a, b, c, d):
        self.n += 1


def _ascending(spit_card, other_spit):
    """48 distinct cards that each fit on the one before, starting above spit_card (and never
    other_spit, the other pile's spit card: a duplicate would end the run)."""
    out = []
    rank = spit_card & 15
    suit = 0
    used = {spit_card: 1, other_spit: 1}
    while len(out) < 48:
        rank = rank % 13 + 1
        for k in range(4):
            c = ((suit + k) % 4) * 16 + rank
            if c not in used:
                used[c] = 1
                out.append(c)
                break
        suit = (suit + 1) % 4
    return out


def steady_state(n_rounds=20, per_round=40, locked=False):
    rules = _classic()
    sink = NullSink()
    ref = Referee(rules, [26, 26], sink.sink, LedIntents())   # with the LED intents, as on the device
    samples = []
    alloc = 0
    events = 0
    t_ms = 0
    seq = _ascending(0x27, 0x02)   # after a 7H spit (2C spat on pile 1)
    for _round in range(n_rounds):
        # Round start: countdown, spit 7H on pile 0 and 2C on pile 1.
        t_ms += 200
        ref.feed(2, t_ms, 0, 0, 0x27, -1)
        ref.feed(2, t_ms, 1, 1, 0x02, -1)
        t_ms += 500
        ref.advance(t_ms, 0)
        gc.collect()
        if _MP:
            gc.disable()
        # One timed span per round (a clock read per landing would cost as much as the
        # engine on MicroPython, and ticks_us ticks in whole microseconds).
        a0 = gc.mem_alloc() if _MP else 0
        if locked:
            micropython.heap_lock()
        s = _now()
        for i in range(per_round):
            t_ms += 180
            ref.feed(1, t_ms, 0, 0, 0, 0)            # touch edge
            ref.feed(2, t_ms + 15, 0, 0, seq[i], -1)  # the read, 15 ms later
            ref.advance(t_ms + 170, 0)               # the loop's clock releases it
        e = _now()
        if locked:
            micropython.heap_unlock()
        if _MP:
            alloc += gc.mem_alloc() - a0
            gc.enable()
        samples.append(_elapsed_ns(s, e) // per_round)
        events += per_round
        # End the round: player 0 slaps (went out, and says so with STUCK: either could be by
        # the cards seen), player 1 slaps the other pile, both ready.
        t_ms += 1000
        ref.feed(4, t_ms, 0, 0, 1, 0)
        ref.feed(3, t_ms + 50, 0, 0, 0, 0)
        ref.feed(4, t_ms + 100, 0, 1, 0, 0)
        t_ms += 3500
        ref.advance(t_ms, 0)
        ref.cards[0] = 26     # keep every round identical
        ref.cards[1] = 26
        ref.feed(5, t_ms, 0, 0, 0, 0)
        ref.feed(5, t_ms, 0, 1, 0, 0)
        ref.advance(t_ms + 1, 0)
    samples.sort()
    # Each sample covers 3 engine calls (touch, card, advance) for one landing.
    return samples[len(samples) // 2], alloc, events, sink.n


def main():
    med, alloc, events, verdicts = steady_state()
    print("steady %d %d %d %d" % (med, alloc, events, verdicts))
    if MICRO:
        med, alloc, events, verdicts = steady_state(locked=True)
        print("locked %d %d %d %d" % (med, alloc, events, verdicts))


if __name__ == "__main__":
    main()
