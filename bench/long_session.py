"""A long session log for replay benchmarks: one classic session of many rounds.

    .venv/bin/python -m bench.long_session EVENTS OUT.spitlog

Simulated games end after a few rounds, so a log of a million events cannot come from one of
them.  This writes one valid session instead: every round, two players play fitting cards from
one deck (races within 1-120 ms now and then, a tie, an illegal card, a STUCK pair and spit call
when nothing fits), then the player with more cards goes out and both slap, and both are ready
for the next round.  The device's verdict lines come from the rules engine itself, written after
the event that caused them as the firmware does, so the replay finds no mismatch.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import json
import random
import sys

from spit import verdicts as V
from spit.cards import format_card, parse_card
from spit.log import parse_event
from spit.intake import EV_TICK
from spit.notation import header_line
from spit.words import verdict_items, items_json
from spit.referee import Referee, PH_OVER
from spit.rules import make_ruleset

RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()
MS = 1000


class _Writer:
    """Feeds events to a referee and writes each event line, then the verdicts it caused."""

    def __init__(self, out):
        self.rules = make_ruleset("classic")
        self.out = out
        self.tops = [None, None]
        self.events = 0
        self.verdicts = []
        self.asked = -1
        self.ref = Referee(self.rules, [26, 26], self._sink)
        out.write(header_line(self.rules, [26, 26]) + "\n")

    def _sink(self, code, ms, us, a, b, c, d):
        self.verdicts.append((code, ms, us, a, b, c, d))
        if code in (V.V_ACCEPT, V.V_SPIT):
            self.tops[a] = b
        elif code == V.V_QUESTION:
            self.asked = b   # (the player asked: a went_out question, the only kind here)
        elif code == V.V_ROUND_START:
            self.asked = -1

    def event(self, obj):
        kind, ms, us, a, b, c = parse_event(obj)
        if kind == EV_TICK:
            self.ref.advance(ms, us)
        else:
            self.ref.feed(kind, ms, us, a, b, c)
        self.events += 1
        self.out.write(json.dumps(obj) + "\n")
        self.flush_verdicts()

    def flush_verdicts(self):
        for v in self.verdicts:
            self.out.write(items_json(verdict_items(*v)) + "\n")
        del self.verdicts[:]


def _fits(card, top):
    if top is None:
        return False
    d = abs((card & 15) - (top & 15))
    return d == 1 or d == 12


def write_long_session(out, n_events, seed=1):
    """Write a session of at least ``n_events`` input events to the text stream ``out``; returns
    the number of input events written."""
    rng = random.Random(seed)
    w = _Writer(out)
    ref = w.ref
    t = 0
    while w.events < n_events and ref.phase != PH_OVER:
        deck = [parse_card(r + s) for r in RANKS for s in "CDHS"]
        rng.shuffle(deck)
        t += w.rules.countdown_ms * MS + 50 * MS
        for pile in (0, 1):
            card = deck.pop()
            w.event({"t": t, "ev": "touch", "pile": pile})
            w.event({"t": t + 30 * MS, "ev": "card", "pile": pile, "card": format_card(card)})
            t += 40 * MS
        while deck:
            # Someone can be out once as many cards reached the center as they held (R-ROUND-1):
            # the round ends a few plays after that.
            if (ref.can_be_out(0) or ref.can_be_out(1)) and rng.random() < 0.25:
                break
            t += rng.randrange(150, 900) * MS
            pile = rng.randrange(2)
            fitting = [c for c in deck if _fits(c, w.tops[pile])]
            if not fitting:
                other = [c for c in deck if _fits(c, w.tops[1 - pile])]
                if other:
                    pile, fitting = 1 - pile, other
            if not fitting or rng.random() < 0.02:
                if len(deck) < 2:
                    break
                for player in (0, 1):   # R-STALL-1: both stuck, a spit call, new spit cards
                    w.event({"t": t + player * 200 * MS, "ev": "stuck", "player": player})
                t += 200 * MS + w.rules.countdown_ms * MS + 100 * MS
                w.event({"t": t, "ev": "tick"})
                for p in (0, 1):
                    w.event({"t": t + p * 40 * MS, "ev": "card", "pile": p, "card": format_card(deck.pop())})
                t += 80 * MS
                continue
            card = rng.choice(fitting)
            deck.remove(card)
            w.event({"t": t, "ev": "touch", "pile": pile})
            race = rng.random()
            if race < 0.15 and deck:   # a second hand on the same pile, 0.5-120 ms later
                rival = rng.choice(deck)
                deck.remove(rival)
                gap = rng.randrange(500, 120000) if race > 0.02 else rng.randrange(50, 900)
                w.event({"t": t + gap, "ev": "touch", "pile": pile})
                w.event({"t": t + 25 * MS, "ev": "card", "pile": pile, "card": format_card(card)})
                w.event({"t": t + gap + 25 * MS, "ev": "card", "pile": pile, "card": format_card(rival)})
                t += gap
            else:
                w.event({"t": t + 25 * MS, "ev": "card", "pile": pile, "card": format_card(card)})
            t += 30 * MS
        able = [p for p in (0, 1) if ref.can_be_out(p)]
        if not able:
            break   # (no deck left and nobody out: the session ends here, still a valid log)
        # The player who went out: the one with more cards when both could be (keeps the game
        # going for hundreds of rounds).  They slap the smaller pile first, the opponent the
        # other (R-ROUND-3); asked who went out (both could be), the first slapper answers.
        out_player = max(able, key=lambda p: (ref.cards[p], -p))
        small = 0 if ref.size[0] <= ref.size[1] else 1
        t += 600 * MS
        w.event({"t": t, "ev": "slap", "player": out_player, "pile": small})
        w.event({"t": t + 150 * MS, "ev": "slap", "player": 1 - out_player, "pile": 1 - small})
        t += 150 * MS + 200 * MS
        w.event({"t": t, "ev": "tick"})   # (as the device writes one when time decided something)
        asked = w.asked
        if asked >= 0:
            t += 2000 * MS
            w.event({"t": t, "ev": "answer", "player": asked, "value": 1 if asked == out_player else 0})
        t += 4000 * MS
        w.event({"t": t, "ev": "tick"})
        if ref.phase == PH_OVER:
            break
        for player in (0, 1):
            t += 500 * MS
            w.event({"t": t, "ev": "ready", "player": player})
    ref.flush()
    w.flush_verdicts()
    return w.events


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    with open(argv[1], "w", encoding="utf-8") as f:
        n = write_long_session(f, int(argv[0]))
    print("wrote %s: %d input events" % (argv[1], n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
