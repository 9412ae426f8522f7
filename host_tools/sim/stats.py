"""Statistics over many simulated games: collect, summarise, print as a table."""

from host_tools.sim.run import run_game

ROWS = (
    ("rounds", "rounds / game"),
    ("spit_calls", "stalemates (spit calls) / game"),
    ("races", "races / game"),
    ("ties", "ties / game"),
    ("illegal", "illegal / game"),
    ("late", "late / game"),
    ("early", "early / game"),
    ("plays", "accepted plays / game"),
    ("minutes", "game length (simulated min)"),
)


class Summary:
    """Aggregated results of a batch of games with one ruleset."""

    def __init__(self, label):
        self.label = label
        self.values = {}
        for key, _ in ROWS:
            self.values[key] = []
        self.wins = [0, 0]
        self.draws = 0
        self.unfinished = 0
        self.errors = {}
        self.notes = 0
        self.games = 0
        self.reasons = {}

    def add(self, result):
        self.games += 1
        for key, _ in ROWS:
            if key == "minutes":
                self.values[key].append(result.length_us / 60e6)
            else:
                self.values[key].append(result.stats[key])
        if not result.finished:
            self.unfinished += 1
        elif result.winner < 0:
            self.draws += 1
        else:
            self.wins[result.winner] += 1
        if result.finished:
            self.reasons[result.reason] = self.reasons.get(result.reason, 0) + 1
        for name in result.errors:
            self.errors[name] = self.errors.get(name, 0) + result.errors[name]
        # (an unfinished game is counted in the winner split, as `spit sim` says of one game)
        self.notes += sum(1 for n in result.notes if not n.startswith("unfinished"))

    def mean(self, key):
        v = self.values[key]
        return sum(v) / len(v) if v else 0.0


def run_batch(ruleset, options, games, seed=1, skills=("quick", "steady"), label=None, progress=None,
              on_result=None, **kw):
    """Play ``games`` games (seeds ``seed``, ``seed + 1`` ...); returns a :class:`Summary`.
    ``on_result(result, seed)`` gets each game with its session log (kept only when it is set)."""
    summary = Summary(label or (ruleset if isinstance(ruleset, str) else ruleset.name))
    for i in range(games):
        result = run_game(ruleset, options, seed=seed + i, skills=skills, keep_log=on_result is not None, **kw)
        summary.add(result)
        if on_result is not None:
            on_result(result, seed + i)
        if progress is not None:
            progress(i + 1, games)
    return summary


def table(summary, skills=("quick", "steady")):
    """The statistics table of one batch, as lines."""
    out = ["%-32s %8s %7s %7s" % ("per game (%d games)" % summary.games, "mean", "min", "max")]
    for key, name in ROWS:
        v = summary.values[key]
        if not v:
            continue
        fmt = "%-32s %8.2f %7.1f %7.1f" if key == "minutes" else "%-32s %8.2f %7d %7d"
        out.append(fmt % (name, summary.mean(key), min(v), max(v)))
    out.append("winner split: player 0 (%s) %d, player 1 (%s) %d, draws %d, unfinished %d" % (
        skills[0], summary.wins[0], skills[1], summary.wins[1], summary.draws, summary.unfinished))
    if summary.reasons:
        out.append("game ends: " + ", ".join("%s %d" % (k, summary.reasons[k]) for k in sorted(summary.reasons)))
    errs = ", ".join("%s %d" % (k, summary.errors[k]) for k in sorted(summary.errors)) or "none"
    out.append("referee errors: %s; table/referee disagreements: %d" % (errs, summary.notes))
    return out


def compare(summaries, keys=("spit_calls", "rounds", "races", "late", "minutes")):
    """A side-by-side table of several batches (one column each)."""
    names = dict(ROWS)
    out = ["%-32s" % "per game (mean)" + "".join(" %14s" % s.label[:14] for s in summaries)]
    for key in keys:
        out.append("%-32s" % names[key] + "".join(" %14.2f" % s.mean(key) for s in summaries))
    out.append("%-32s" % "games" + "".join(" %14d" % s.games for s in summaries))
    return out
