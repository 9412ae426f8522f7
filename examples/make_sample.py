"""Write examples/sample.spitlog: a realistic classic session, the same bytes every run.

    .venv/bin/python examples/make_sample.py          # rewrites examples/sample.spitlog

Two scripted players (player 0 a little quicker) really deal a shuffled deck into five stocks
and a spit pile each and play legal cards from their stock tops, with human reaction times.
Every landing is a touch-sensor edge followed 6-25 ms later by the NFC read, as on the board.
A few incidents are staged on purpose: a won race, a late card, a tie inside the tie window,
an illegal card, an early card during a countdown, stalemates with spit calls, the slaps at
the round end and the next round.  The engine's verdicts are written after the event that
produced them, like the device does, so ``spit replay`` also checks them.

After an intentional engine change: rerun this script, then refresh the expected verdicts:
    .venv/bin/python -m host_tools replay examples/sample.spitlog --json > tests/data/sample.verdicts.jsonl
"""

import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from spit.cards import full_deck, format_card  # noqa: E402
from spit.log import Rejudge, header_line  # noqa: E402
from spit.rules import make_ruleset, fits  # noqa: E402

try:
    from spit.notation import items_json  # noqa: E402
except ImportError:
    from spit.verdicts import items_json  # noqa: E402

SEED = 7
MS = 1000
REACTION_MS = ((330, 700), (420, 900))   # per player: a look at the table and a move
STAGED = {4: "race", 7: "late", 11: "tie", 15: "illegal"}   # play number in round 1 -> incident


class Table:
    """The physical game: stocks, spit piles and center piles; writes log events."""

    def __init__(self, rng, rules):
        self.rng = rng
        self.rules = rules
        self.events = []          # (t_us, seq, obj)
        self.hands = [[], []]
        self.t = 0
        self.plays = 0
        self.round = 0
        self.early_done = False
        self.over = False

    # --- log output ---
    def emit(self, t, obj):
        obj = dict([("t", t)] + list(obj.items()))
        self.events.append((t, len(self.events), obj))

    def land(self, t, pile, card, latency_ms=None):
        """A card lands: touch edge now, NFC read a few ms later."""
        self.emit(t, {"ev": "touch", "pile": pile})
        lat = latency_ms if latency_ms is not None else self.rng.randint(6, 25)
        self.emit(t + lat * MS + self.rng.randint(0, 999), {"ev": "card", "pile": pile, "card": format_card(card)})

    # --- the game ---
    def deal_round(self):
        self.round += 1
        self.stocks = [[], []]
        self.spit = [[], []]
        for p in (0, 1):
            cards = list(self.hands[p])
            self.rng.shuffle(cards)
            stock_n = min(len(cards), self.rules.stock_cards)
            stock, self.spit[p] = cards[:stock_n], cards[stock_n:]
            for size in range(1, 6):
                self.stocks[p].append(stock[:size])
                stock = stock[size:]
            self.stocks[p] = [s for s in self.stocks[p] if s]
        self.piles = [[], []]
        single = [p for p in (0, 1) if self.spit[p]]
        self.single = single[0] if len(single) == 1 else None

    def reaction(self, p):
        lo, hi = REACTION_MS[p]
        return self.rng.randint(lo, hi) * MS

    def flip(self, t):
        """Countdown from ``t``, then the spit cards (only the lone spitter in single-pile mode)."""
        t += self.rules.countdown_ms * MS
        spitters = [self.single] if self.single is not None else [0, 1]
        for p in spitters:
            t += self.rng.randint(80, 260) * MS
            card = self.spit[p].pop()
            self.piles[p].append(card)
            self.land(t, p, card)
        return t

    def moves(self, p):
        """Legal (stock index, pile) moves for player p, in the order a player would see them."""
        out = []
        for i, stack in enumerate(self.stocks[p]):
            for pile in (0, 1):
                top = self.piles[pile][-1] if self.piles[pile] else -1
                if fits(self.rules, top, top & 15, stack[-1]):
                    out.append((i, pile))
        return out

    def fits_pile(self, card, top):
        return top >= 0 and fits(self.rules, top, top & 15, card)

    def play(self, t, p, i, pile):
        card = self.stocks[p][i].pop()
        self.stocks[p] = [s for s in self.stocks[p] if s]
        old = self.piles[pile][-1]
        self.piles[pile].append(card)
        self.land(t, pile, card)
        self.plays += 1
        return old, card

    def staged(self, t, p, pile, old, new):
        """A staged incident by the other player right after p's play on ``pile``; returns its end time."""
        kind = STAGED.get(self.plays) if self.round == 1 else None
        q = 1 - p
        if kind is None:
            return t
        tops = [s[-1] for s in self.stocks[q]]
        if kind == "race":      # q's card also fits the new top: both count
            for i, c in enumerate(tops):
                if self.fits_pile(c, new):
                    return self.play_at(t + 140 * MS, q, i, pile)
        elif kind in ("late", "tie"):   # fits the old top only: q takes it back
            dt = 90 * MS if kind == "late" else 400
            for c in tops:
                if self.fits_pile(c, old) and not self.fits_pile(c, new):
                    self.land(t + dt, pile, c, latency_ms=30)
                    return t + dt + 600 * MS
        elif kind == "illegal":
            for c in tops:
                if not any(self.fits_pile(c, s[-1]) for s in self.piles if s):
                    self.land(t + 650 * MS, pile, c)
                    return t + 1300 * MS
        STAGED[self.plays + 1] = kind   # no card for it now: try after the next play
        return t

    def play_at(self, t, p, i, pile):
        self.play(t, p, i, pile)
        return t + 300 * MS

    def play_round(self, t):
        t = self.flip(t)
        nxt = [t + self.reaction(0), t + self.reaction(1)]
        stuck = [False, False]
        while True:
            p = 0 if nxt[0] <= nxt[1] else 1
            t = nxt[p]
            mv = self.moves(p)
            if mv:
                i, pile = mv[self.rng.randrange(len(mv))]
                old, new = self.play(t, p, i, pile)
                stuck = [False, False]
                if not self.stocks[p]:
                    return self.round_end(t, p)
                end = self.staged(t, p, pile, old, new)
                nxt[p] = t + self.reaction(p)
                nxt[1 - p] = max(nxt[1 - p], end + self.reaction(1 - p) // 2)
                continue
            if not stuck[p]:
                stuck[p] = True
                self.emit(t, {"ev": "stuck", "player": p})
            if stuck[0] and stuck[1]:
                t = self.spit_call(t)
                stuck = [False, False]
                nxt = [t + self.reaction(0), t + self.reaction(1)]
            else:
                nxt[p] = max(nxt[1 - p], t) + self.reaction(p)

    def spit_call(self, t):
        left = [p for p in (0, 1) if self.spit[p]]
        if not left:
            raise SystemExit("seed %d: a blocked round; pick another seed" % SEED)
        if len(left) == 1:
            self.single = left[0]
        if not self.early_done:   # an eager player jumps the countdown
            self.early_done = True
            q = 1
            self.land(t + 900 * MS, q, self.stocks[q][0][-1])
        return self.flip(t)

    def round_end(self, t, p):
        """p went out: slap the smaller pile, the opponent slaps the other one."""
        q = 1 - p
        t += self.reaction(p) // 2
        sizes = [len(s) for s in self.piles]
        small = 0 if sizes[0] <= sizes[1] else 1
        self.emit(t, {"ev": "slap", "player": p, "pile": small})
        # Either could be out by the cards seen: p says it was them (STUCK during the slaps).
        self.emit(t + 120 * MS, {"ev": "stuck", "player": p})
        won = [[], []]
        if self.single is not None:
            won[q] = self.piles[0] + self.piles[1]
        else:
            self.emit(t + 230 * MS, {"ev": "slap", "player": q, "pile": 1 - small})
            won[p], won[q] = self.piles[small], self.piles[1 - small]
        for r in (0, 1):
            self.hands[r] = won[r] + self.spit[r] + [c for s in self.stocks[r] for c in s]
        t += 2500 * MS
        if not self.hands[p]:
            self.over = True
            return t
        self.emit(t + 900 * MS, {"ev": "ready", "player": 1})
        self.emit(t + 1600 * MS, {"ev": "ready", "player": 0})
        return t + 1600 * MS


def generate():
    rng = random.Random(SEED)
    rules = make_ruleset("classic")
    table = Table(rng, rules)
    deck = full_deck()
    rng.shuffle(deck)
    table.hands = [deck[0::2], deck[1::2]]
    t = 0
    while not table.over and table.round < 6:
        table.deal_round()
        t = table.play_round(t)
    table.emit(t + 1000 * MS, {"ev": "tick"})
    events = sorted(table.events, key=lambda e: (e[0], e[1]))
    header = json.loads(header_line(rules, [26, 26]))
    header.update({"board": "pico", "firmware": "0.1.0", "started": "2025-03-14T19:02:11"})
    lines = [json.dumps(header)] + [json.dumps(obj) for _t, _s, obj in events]
    return with_device_verdicts(lines)


def with_device_verdicts(lines):
    """Insert the engine's verdicts after the line that released them, as the device logs them."""
    r = Rejudge()
    out = []
    done = 0
    for line in lines:
        r.feed_line(line)
        out.append(line)
        new = r.verdicts[done:]
        done += len(new)
        out.extend(items_json(items) for _n, items in new)
    r.finish()
    out.extend(items_json(items) for _n, items in r.verdicts[done:])
    return out


def main():
    lines = generate()
    path = os.path.join(HERE, "sample.spitlog")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s (%d lines)" % (path, len(lines)))


if __name__ == "__main__":
    main()
