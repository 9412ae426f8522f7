"""The per-landing path allocates nothing (docs/architecture.md): on MicroPython the whole
session below runs under ``micropython.heap_lock()``, where any allocation raises MemoryError.
On CPython the same session runs unlocked (its verdict counts are checked either way)."""

import sys

from spit.intake import EV_TOUCH, EV_CARD, EV_SLAP, EV_STUCK, EV_READY
from spit.intents import LedIntents
from spit.referee import Referee
from spit.rules import make_ruleset

try:
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython
    heap_lock = heap_unlock = None
if sys.implementation.name != "micropython":
    heap_lock = heap_unlock = None


class Count:
    def __init__(self):
        self.n = [0] * 20   # per verdict code

    def __call__(self, code, ms, us, a, b, c, d):
        self.n[code] += 1


def _run(up):
    """40 distinct cards, each one rank up (or down) from the one before, from 7H on (never 2C,
    the other pile's spit card)."""
    used = {0x27: 1, 0x02: 1}
    out = []
    rank = 7
    while len(out) < 40:
        rank = rank % 13 + 1 if up else (rank + 11) % 13 + 1
        for s in range(4):
            card = ((len(out) + s) % 4) * 16 + rank
            if card not in used:
                used[card] = 1
                out.append(card)
                break
    return out


def _round(ref, t, cards):
    """A round: spit 7H / 2C, 40 landings on pile 0 (touch, read 15 ms later, the loop's
    advance), then player 0 goes out and both slap and get ready.  Returns the time after."""
    ref.feed(EV_CARD, t, 0, 0, 0x27, -1)
    ref.feed(EV_CARD, t, 0, 1, 0x02, -1)
    t += 500
    ref.advance(t, 0)
    for card in cards:
        t += 180
        ref.feed(EV_TOUCH, t, 0, 0, 0, 0)
        ref.feed(EV_CARD, t + 15, 0, 0, card, -1)
        ref.advance(t + 170, 0)
    t += 1000
    ref.feed(EV_SLAP, t, 0, 0, 1, 0)
    ref.feed(EV_STUCK, t + 50, 0, 0, 0, 0)
    ref.feed(EV_SLAP, t + 100, 0, 1, 0, 0)
    t += 3500
    ref.advance(t, 0)
    ref.cards[0] = 26   # keep every round alike
    ref.cards[1] = 26
    ref.feed(EV_READY, t, 0, 0, 0, 0)
    ref.feed(EV_READY, t, 0, 1, 0, 0)
    ref.advance(t + 2200, 0)   # the countdown runs out
    return t + 2300


def test_r_play_5_a_long_session_allocates_nothing_per_landing():
    rules = make_ruleset("classic")
    sink = Count()
    ref = Referee(rules, [26, 26], sink, LedIntents())
    t = ref.rules.countdown_ms + 100
    rounds = 80   # 3200 landings over 11 minutes: the intake's time base moves on the way
    runs = (_run(True), _run(False))
    if heap_lock is not None:
        heap_lock()
    try:
        for r in range(rounds):
            t = _round(ref, t, runs[r % 2])
    finally:
        if heap_unlock is not None:
            heap_unlock()
    assert t > 600000
    assert sink.n[7] == 2 * rounds          # spit
    assert sink.n[8] == rounds              # round_end
    assert sink.n[1] == 40 * rounds         # every landing accepted
    assert sink.n[11] == 0                  # no error on the way
