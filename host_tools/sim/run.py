"""Drive one simulated game: bots + table + sensors -> referee, verdicts -> table, a session log, stats.

Simulated time is integer microseconds in one event queue (``heapq``), so both bots act
concurrently: races, late cards and ties happen when two actions fall close together.  The
referee's verdicts come back through the port the moment the referee emits them; the players
obey them as they would the lamps (take back an illegal/late/early card, flip spit cards after a
countdown, answer a question, slap, hand out the piles, lay out the next round): that part is
:class:`host_tools.sim.reactions.VerdictReactions`, mixed into :class:`Sim`.

``run_game(...)`` returns a :class:`Result` (stats, log lines, the table).  Fast mode is plain
Python and runs under the MicroPython unix port too.
"""

import heapq

from spit.intake import EV_STUCK, EV_SLAP
from spit.rules import make_ruleset, SLAP_BOTH
from host_tools.sim.game import Rng, Table
from host_tools.sim.bots import Bot, SKILLS
from host_tools.sim.ports import FastPort, SensorModel  # noqa: F401 (SensorModel: for callers)
from host_tools.sim.reactions import VerdictReactions

MS = 1000
SEC = 1000000
STAT_KEYS = ("rounds", "spit_calls", "races", "ties", "illegal", "late", "early", "plays", "errors", "anomalies")


class Result:
    """What one game produced."""

    def __init__(self, sim):
        self.stats = sim.stats
        self.winner = sim.winner
        self.reason = sim.reason
        self.finished = sim.over
        self.length_us = sim.end_t
        self.lines = sim.port.log_lines()
        self.errors = sim.errors
        self.notes = sim.notes
        self.table = sim.table
        self.sim = sim


class Sim(VerdictReactions):
    def __init__(self, rules, seed, skills=("quick", "steady"), sensors=None, max_minutes=90,
                 keep_log=True, port_factory=None, progress=None):
        rng = Rng(seed)
        self.rules = rules
        self.table = Table(rules, rng.fork())
        self.heap = []
        self.seq = 0
        self.now = 0
        self.phase = "countdown"
        self.live_at = 0          # slow spit: play allowed (as the players judge it)
        self.cd_end = 0
        self.over = False
        self.winner = -1
        self.reason = None
        self.end_t = 0
        self.limit = max_minutes * 60 * SEC
        self.progress = progress
        self.stats = {}
        for k in STAT_KEYS:
            self.stats[k] = 0
        self.errors = {}
        self.notes = []           # disagreements between the table and the referee
        self.end_reason = -1
        self.tick_due = 0
        self.round_closing = False
        self.bots = [Bot(0, SKILLS[skills[0]], rng.fork(), self), Bot(1, SKILLS[skills[1]], rng.fork(), self)]
        counts = self.table.counts()
        self.expected = counts
        self.table.layout()
        extra = {"sim": {"seed": seed, "skills": list(skills)}}
        if port_factory is None:
            self.port = FastPort(rules, counts, rng.fork(), sensors, keep_log, extra)
        else:
            self.port = port_factory(self, counts, rng.fork(), extra)
        if rules.timer_ms:
            self.at(rules.timer_ms * MS + rules.reorder_us + 1, self._tick, 0)
        self.last_verdict = 0
        self.over_stalled = False
        self.at(10 * SEC, self._watchdog, 0)
        self._dispatch()

    # --- the event queue ---
    def at(self, t, fn, arg):
        heapq.heappush(self.heap, (t, self.seq, fn, arg))
        self.seq += 1

    def run(self):
        heap = self.heap
        sync = getattr(self.port, "sync", None)   # firmware mode: step the board up to now
        while heap and not self.over:
            t, _seq, fn, arg = heapq.heappop(heap)
            if t > self.limit:
                self.notes.append("unfinished: simulated time limit reached")
                break
            if t > self.now:
                self.now = t
            if sync is not None:
                sync(self.now)
                self._dispatch()
                if self.over:
                    break
            fn(self.now, arg)
            if self.progress is not None:
                self.progress(self)
        if not self.over:
            self.end_t = self.now
        end = self.now + self.rules.reorder_us + 1
        self.port.close(end)
        self._dispatch()
        return Result(self)

    def _tick(self, t, _arg):
        self.port.advance(t)
        self._dispatch()

    def _fed(self, t):
        """After an input: make sure the referee's clock passes its reorder hold."""
        due = t + self.rules.reorder_us + 1
        if due > self.tick_due:
            self.tick_due = due
            self.at(due, self._tick, 0)
        self._dispatch()

    def feed(self, t, ev):
        self.port.feed(ev[0], t, ev[1], ev[2], ev[3])
        self._fed(t)

    # --- physical actions (called by bots) ---
    def throw(self, land_t, player, pile, card, src, spit, aimed=-1):
        self.at(land_t, self._land, (player, pile, card, src, spit, aimed))

    def _land(self, t, arg):
        player, pile, card, src, spit, aimed = arg
        table = self.table
        table.land(t, pile, card, player, src, spit, aimed)
        entry = table.piles[pile][-1]
        if not self.port.land(self, t, pile, card, player):
            entry[4] = True   # the read will fail
        self._changed(t)

    def press_stuck(self, t, player):
        self.at(t, self.feed, (EV_STUCK, player, 0, 0))

    def go_out(self, t, player):
        """R-ROUND-1..3: a player with nothing left slaps the smaller pile; the opponent slaps too."""
        bot = self.bots[player]
        self.phase = "slap"
        self.out_player = player
        pile = self.table.smallest_pile()
        slap_t = t + bot.move()
        self.at(slap_t, self.feed, (EV_SLAP, player, pile, 0))
        # The slap window's end may settle the round (or ask who went out): time must pass.
        self.at(slap_t + self.rules.slap_window_ms * MS + self.rules.reorder_us + 1, self._tick, 0)
        if self.rules.slap == SLAP_BOTH and self.table.single < 0:
            self._slap(slap_t, 1 - player)

    def _slap(self, t, player):
        bot = self.bots[player]
        pile = self.table.smallest_pile()
        at = t + bot.reaction() + bot.decide() // 2
        self.at(at, self.feed, (EV_SLAP, player, pile, 0))
        self.at(at + self.rules.slap_window_ms * MS + self.rules.reorder_us + 1, self._tick, 0)

    def _changed(self, t):
        for bot in self.bots:
            bot.notice(t)

    # --- verdicts ---
    def _watchdog(self, t, _arg):
        """Nothing judged for a long time: players look again; after a minute, give up."""
        if self.over:
            return
        quiet = t - self.last_verdict
        if quiet > 60 * SEC:
            self.notes.append("unfinished: no verdict for 60 s (t=%d)" % t)
            self.over_stalled = True
            self.heap[:] = []
            return
        if quiet > 20 * SEC:
            self._changed(t)
        self.at(t + 10 * SEC, self._watchdog, 0)

    def _dispatch(self):
        out = self.port.take()
        if out:
            self.last_verdict = self.now
        for v in out:
            self.on_verdict(v[0], v[1] * MS + v[2], v[3], v[4], v[5], v[6])


def run_game(ruleset=None, options=None, seed=1, skills=("quick", "steady"), sensors=None,
             max_minutes=90, keep_log=True, port_factory=None, progress=None):
    """Play one game; returns a :class:`Result`.  ``ruleset``: a preset name (default classic)
    with ``options``, or a ``Ruleset``."""
    if ruleset is None or isinstance(ruleset, str):
        ruleset = make_ruleset(ruleset or "classic", options)
    rules = ruleset
    sim = Sim(rules, seed, skills, sensors, max_minutes, keep_log, port_factory, progress)
    return sim.run()

