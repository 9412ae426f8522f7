"""``spit stats LOG...``: per-player statistics over one or many session logs (a league evening).

Each log is re-judged with the rules engine (as ``spit replay`` does) and the players' numbers are
added up: games and rounds won, reaction times, races won and lost, ties, illegal plays, STUCK
presses.  See :mod:`host_tools.replay.stats` for what each number means.
"""

import argparse
import csv
import json
import sys

from host_tools import replay
from host_tools.replay import stats

DESCRIPTION = """Per-player statistics over session logs: games and rounds won, reaction times (from a
pile's change to the player's next card), races won and lost, ties, illegal plays and STUCK presses.
Every log is re-judged with the referee's own rules engine. Cards are credited to a player only
where the log names them (own-deck games, spit cards, STUCK and slaps): the rest is "not named"."""

EPILOG = """examples:
  spit stats logs/*.spitlog            an evening of games, per named player (names from each log's header)
  spit stats game.spitlog --players Ann,Bob    names for logs whose header has none (seat 0, seat 1)
  spit stats logs/*.spitlog --json     the numbers for scripts (--csv: the per-game table)
  spit stats logs/*.spitlog --html evening.html    with plots

exit codes: 0 ok, 1 a log could not be read (the others are still counted), 2 bad command line"""


def read_header(path):
    """The session header (the first JSON line with a ``spitlog`` key), or {}."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as f:
            for _i, line in zip(range(64), f):
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict) and "spitlog" in obj:
                    return obj
    except OSError:
        pass
    return {}


def parse_players(text):
    """``--players A,B`` -> ["A", "B"]; ValueError if it is not two different names."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ValueError("--players: two different names, comma-separated (seat 0, seat 1), got %r" % text)
    return names


def load(paths, given=None, err=None):
    """``(Evening, failed)`` over the logs at ``paths``."""
    err = err or sys.stderr
    evening = stats.Evening()
    failed = 0
    for path in paths:
        try:
            stream = replay.open_log(path)
        except replay.ReplayError as e:
            err.write("spit stats: %s (skipped)\n" % e)
            failed += 1
            continue
        try:
            with stream:
                rep = replay.replay_lines(stream, keep=True)
        except OSError as e:
            err.write("spit stats: %s: cannot read: %s (skipped)\n" % (path, e.strerror or e))
            failed += 1
            continue
        if rep.referee is None:
            first = rep.problems[0] if rep.problems else (1, "no header line")
            err.write("spit stats: %s: not a session log: line %d: %s (skipped)\n" % (path, first[0], first[1]))
            failed += 1
            continue
        if rep.n_problems:
            err.write("spit stats: %s: %s skipped\n" % (path, replay.plural(rep.n_problems, "bad line")))
        header = read_header(path) if path != "-" else {}
        evening.add(stats.GameStats(rep), stats.names_of(header, given), label=path, started=header.get("started"))
    return evening, failed


def as_json(evening):
    players = {}
    for name, st in zip(evening.names, evening.players):
        d = {f: getattr(st, f) for f in stats.PlayerStats.FIELDS}
        d["reaction_median_ms"] = st.median_ms()
        if not evening.named_games:
            for f in ("plays", "races_won", "races_lost", "close_calls", "ties", "illegal", "early"):
                d[f] = None   # not known from the log (null, never 0)
            d["reaction_median_ms"] = None
        players[name] = d
    return {"games": evening.games, "finished": evening.finished, "rounds": evening.rounds,
            "rounds_winner_not_known": evening.rounds_unknown, "rulesets": evening.rulesets,
            "games_naming_cards": evening.named_games, "players": players, "per_game": evening.game_rows}


CSV_FIELDS = ("log", "started", "ruleset", "player0", "player1", "winner", "reason", "rounds", "rounds_won0",
              "rounds_won1", "rounds_not_known", "length_s")


def write_csv(evening, out):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for g in evening.game_rows:
        w.writerow([g["log"], g["started"] or "", g["ruleset"], g["players"][0], g["players"][1],
                    g["winner"] if g["winner"] is not None else "not finished", g["reason"] or "", g["rounds"],
                    g["rounds_won"][0], g["rounds_won"][1], g["rounds_not_known"], g["length_s"]])


def game_table(evening):
    out = ["", "%-4s %-19s %-9s %-25s %-16s %6s %8s" % ("game", "started", "ruleset", "players (seat 0 v 1)",
                                                        "winner", "rounds", "length")]
    for i, g in enumerate(evening.game_rows, 1):
        out.append("%-4d %-19s %-9s %-25s %-16s %6d %7.0fs" % (
            i, g["started"] or "not in the log", g["ruleset"], "%s v %s" % tuple(g["players"]),
            g["winner"] if g["winner"] is not None else "not finished", g["rounds"], g["length_s"]))
    return out


def run(args, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    given = None
    if getattr(args, "players", None):
        try:
            given = parse_players(args.players)
        except ValueError as e:
            err.write("spit stats: %s\n" % e)
            return 2
    evening, failed = load(args.logs, given, err)
    if evening.games:
        if getattr(args, "json", False):
            out.write(json.dumps(as_json(evening), indent=1) + "\n")
        elif getattr(args, "csv", False):
            write_csv(evening, out)
        else:
            for line in stats.table(evening) + game_table(evening):
                out.write(line + "\n")
        if getattr(args, "html", None):
            from host_tools.replay.stats_page import write_html
            try:
                write_html(args.html, evening)
            except OSError as e:
                err.write("spit stats: %s: cannot write: %s\n" % (args.html, e.strerror or e))
                return 1
    return 1 if failed else 0


def add_subcommands(subparsers):
    """Register ``stats`` on the ``spit`` command's subparsers."""
    p = subparsers.add_parser("stats", help="per-player statistics over session logs (a league evening)",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", metavar="LOG", help="session logs (.spitlog)")
    p.add_argument("--players", metavar="A,B", help="names of seat 0 and seat 1 for logs whose header names nobody")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the numbers as JSON (null where the log does not know)")
    fmt.add_argument("--csv", action="store_true", help="the per-game table as CSV")
    p.add_argument("--html", metavar="OUT", help="also write a page with the tables and plots")
    p.set_defaults(func=run)
    return p
