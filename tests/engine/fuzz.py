"""Random event streams for the property tests (deterministic: same streams on every Python)."""

from spit.referee import Referee
from spit.rules import make_ruleset

_RULESETS = (
    ("classic", None),
    ("tableau", None),
    ("family", {"stocks": 4, "colours": "alternate"}),
    ("own_deck", None),
    ("speed", None),
    ("classic", {"piles": 3, "jokers": 2, "joker_next": "as_below"}),
    ("classic", {"wrap": "ace_only", "slow_spit_ms": 2000, "slap": "choose"}),
    ("tableau", {"points_target": 30, "timer_ms": 20000, "rounds_in_a_row": 2}),
)
_COUNTS = ((26, 26), (10, 42), (3, 49), (16, 36))


class Rng:
    def __init__(self, seed):
        self.s = seed & 0x7FFFFFFF

    def below(self, n):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.s >> 8) % n


class Checksum:
    """A verdict sink that folds every verdict into one small int (no per-verdict storage)."""

    def __init__(self):
        self.h = 17
        self.n = 0

    def __call__(self, code, ms, us, a, b, c, d):
        h = self.h
        for x in (code, ms, us, a, b, c, d):
            h = (h * 31 + x) & 0x3FFFFFFF
        self.h = h
        self.n += 1


def run_stream(seed, n_events=60):
    """Feed one random stream; returns (checksum, verdict count)."""
    rng = Rng(seed)
    name, options = _RULESETS[rng.below(len(_RULESETS))]
    rules = make_ruleset(name, options)
    counts = _COUNTS[rng.below(len(_COUNTS))]
    if rules.mode != 0:
        counts = None
    sink = Checksum()
    ref = Referee(rules, counts, sink)
    t = 0
    npiles = rules.piles
    for _ in range(n_events):
        t += rng.below(400000)
        jitter = rng.below(250000) if rng.below(5) == 0 else 0
        ev_t = t - jitter if t > jitter else 0
        ms = ev_t // 1000
        us = ev_t % 1000
        k = rng.below(100)
        pile = rng.below(npiles + 1) if rng.below(20) == 0 else rng.below(npiles)
        player = rng.below(2) if rng.below(10) else rng.below(4) - 1
        if k < 50:
            card = (rng.below(4) << 4) | (1 + rng.below(13))
            r = rng.below(40)
            if r == 0:
                card = 0          # a joker (legal only with jokers on)
            elif r == 1:
                card = 14 + rng.below(100)   # not a card at all
            ref.feed(2, ms, us, pile, card, player if rng.below(3) else -1)
        elif k < 65:
            ref.feed(1, ms, us, pile, 0, 0)
        elif k < 76:
            ref.feed(3, ms, us, player, 0, 0)
        elif k < 84:
            ref.feed(4, ms, us, player, pile, 0)
        elif k < 89:
            ref.feed(5, ms, us, player, 0, 0)
        elif k < 93:
            ref.feed(8, ms, us, player, rng.below(40) - 2, 0)
        elif k < 96:
            ref.feed(6, ms, us, pile, 0, 0)
        elif k < 98:
            ref.feed(7, ms, us, pile, (rng.below(4) << 4) | (1 + rng.below(13)), 0)
        else:
            ref.advance(ms, us)
    ref.flush()
    return sink.h, sink.n


def run_many(first_seed, count, n_events=60):
    """Run ``count`` streams; returns a checksum over all of them and the verdict total."""
    h = 0
    total = 0
    for seed in range(first_seed, first_seed + count):
        s, n = run_stream(seed, n_events)
        h = (h * 1000003 + s) & 0x3FFFFFFF
        total += n
    return h, total
