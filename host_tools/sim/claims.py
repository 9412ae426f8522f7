"""Quantify two claims of the rule documents with simulated games.

* R-CARD-3 (001): with the *ace-only link* "stalemates become more frequent"
  -> classic vs ``wrap=ace_only``: spit calls per game (and per 100 accepted plays).
* R-STALL-4 (001): *three piles* give stuck players more options
  -> classic vs ``piles=3``: spit calls per game (and per 100 accepted plays).

    python -m host_tools.sim.claims [GAMES] [SEED]      (default 200 games, seed 1)

Same seeds for every column, so each comparison deals the same decks.
"""

import sys

import host_tools  # noqa: F401,E402  (the engine on the path in a checkout)

from host_tools.sim.stats import run_batch

VARIANTS = (
    ("classic", None, "classic"),
    ("classic", {"wrap": "ace_only"}, "wrap=ace_only"),
    ("classic", {"piles": 3}, "piles=3"),
)


def per_100_plays(summary):
    plays = sum(summary.values["plays"])
    return 100.0 * sum(summary.values["spit_calls"]) / plays if plays else 0.0


def measure(games=200, seed=1, progress=None):
    """Run the three variants; returns their :class:`~host_tools.sim.stats.Summary` objects."""
    out = []
    for ruleset, options, label in VARIANTS:
        out.append(run_batch(ruleset, options, games, seed=seed, label=label, progress=progress))
    return out


def report(summaries):
    """The claims table, as lines."""
    base, ace, three = summaries
    head = "%-34s" % "per game (mean)" + "".join(" %14s" % s.label for s in summaries)
    lines = [head]

    def row(name, fn):
        lines.append("%-34s" % name + "".join(" %14s" % fn(s) for s in summaries))

    row("stalemates (spit calls)", lambda s: "%.2f" % s.mean("spit_calls"))
    row("spit calls per 100 plays", lambda s: "%.2f" % per_100_plays(s))
    row("rounds", lambda s: "%.2f" % s.mean("rounds"))
    row("accepted plays", lambda s: "%.1f" % s.mean("plays"))
    row("races", lambda s: "%.2f" % s.mean("races"))
    row("game length (simulated min)", lambda s: "%.2f" % s.mean("minutes"))
    row("games (unfinished)", lambda s: "%d (%d)" % (s.games, s.unfinished))
    lines.append("")
    lines.append("claim R-CARD-3, ace-only link -> more stalemates: spit calls per 100 plays %.2f -> %.2f (%s)" % (
        per_100_plays(base), per_100_plays(ace),
        "holds" if per_100_plays(ace) > per_100_plays(base) else "does NOT hold"))
    lines.append("claim R-STALL-4, three piles -> fewer spit calls: per 100 plays %.2f -> %.2f (%s)" % (
        per_100_plays(base), per_100_plays(three),
        "holds" if per_100_plays(three) < per_100_plays(base) else "does NOT hold"))
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    games = int(argv[0]) if argv else 200
    seed = int(argv[1]) if len(argv) > 1 else 1
    for line in report(measure(games, seed)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
