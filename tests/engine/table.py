"""Test helper: a referee on a table, fed by readable calls, recording verdicts as dicts.

Shared by pytest (CPython) and tests/micropython/mp_runner.py (MicroPython): plain Python only.
"""

from spit import notation, words
from spit.cards import parse_card, format_card, rank_of
from spit.intake import EV_TOUCH, EV_CARD, EV_STUCK, EV_SLAP, EV_READY, EV_UNDO, EV_TOP, EV_ANSWER
from spit.referee import Referee
from spit.rules import make_ruleset

SUITS = "CDHS"
RANKS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class Table:
    def __init__(self, ruleset="classic", counts=None, leds=None, **options):
        self.rules = make_ruleset(ruleset, options)
        self.raw = []         # (code, ms, us, a, b, c, d): dicts are made only when asked
        self.ref = Referee(self.rules, counts, self._sink, leds)   # leds: a LedIntents
        self.used = {}
        self.now = 0          # ms of the last event fed by the helpers below

    def _sink(self, code, ms, us, a, b, c, d):
        self.raw.append((code, ms, us, a, b, c, d))

    @property
    def verdicts(self):
        return [words.verdict_dict(*v) for v in self.raw]

    # --- feeding (times in ms, optional extra us) ---
    def _at(self, ms):
        if ms is None:
            ms = self.now + 300
        self.now = ms
        return ms

    def card(self, pile, code, ms=None, us=0, player=-1):
        ms = self._at(ms)
        self.used[code] = True
        self.ref.feed(EV_CARD, ms, us, pile, parse_card(code), player)
        return self

    def touch(self, pile, ms=None, us=0):
        ms = self._at(ms)
        self.ref.feed(EV_TOUCH, ms, us, pile, 0, 0)
        return self

    def stuck(self, player, ms=None):
        self.ref.feed(EV_STUCK, self._at(ms), 0, player, 0, 0)
        return self

    def slap(self, player, pile, ms=None):
        self.ref.feed(EV_SLAP, self._at(ms), 0, player, pile, 0)
        return self

    def ready(self, player, ms=None):
        self.ref.feed(EV_READY, self._at(ms), 0, player, 0, 0)
        return self

    def answer(self, player, value, ms=None):
        self.ref.feed(EV_ANSWER, self._at(ms), 0, player, value, 0)
        return self

    def undo(self, pile, ms=None):
        self.ref.feed(EV_UNDO, self._at(ms), 0, pile, 0, 0)
        return self

    def top(self, pile, code, ms=None):
        self.ref.feed(EV_TOP, self._at(ms), 0, pile, parse_card(code), 0)
        return self

    def flush(self):
        self.ref.flush()
        return self

    def advance(self, ms):
        self.ref.advance(ms, 0)
        self.now = ms
        return self

    # --- common openings ---
    def begin(self, spits=("7H", "KS"), after_ms=None):
        """Let the countdown run out, then spit one card onto each pile (player p onto pile p)."""
        t = self.rules.countdown_ms + 10 if after_ms is None else after_ms
        for p in range(len(spits)):
            if spits[p]:
                self.card(p, spits[p], t + p)
        self.now = t + 10
        return self.flush()

    def fresh_code(self, rank):
        """An unused card code of this rank (any suit), or None."""
        for s in SUITS:
            code = RANKS[rank] + s
            if code not in self.used:
                return code
        return None

    def run(self, pile, n, step_ms=400, up=True, player=-1):
        """Play n legal cards in a row onto a pile (ascending or descending ranks)."""
        for _ in range(n):
            top = self.ref.top[pile]
            r = rank_of(top)
            nxt = r % 13 + 1 if up else (r + 11) % 13 + 1
            code = self.fresh_code(nxt)
            if code is None:
                raise AssertionError("no unused card of rank %d left" % nxt)
            self.card(pile, code, self.now + step_ms, player=player)
            self.flush()
        return self

    # --- reading the verdicts ---
    def names(self):
        return [notation.VERDICT_NAMES[v[0]] for v in self.raw]

    def of(self, name):
        return [words.verdict_dict(*v) for v in self.raw if notation.VERDICT_NAMES[v[0]] == name]

    def last(self, name=None):
        for i in range(len(self.raw) - 1, -1, -1):
            v = self.raw[i]
            if name is None or notation.VERDICT_NAMES[v[0]] == name:
                return words.verdict_dict(*v)
        return None

    def tail(self, n):
        """The last n verdicts as dicts."""
        return [words.verdict_dict(*v) for v in self.raw[-n:]]

    def tops(self):
        return [format_card(c) if c >= 0 else "-" for c in self.ref.top]
