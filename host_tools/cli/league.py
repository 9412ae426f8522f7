"""``spit league LOG... [--db FILE]``: add games to a league kept in SQLite and show the standings
(ratings by openskill, see :mod:`host_tools.replay.league`); ``--html OUT`` writes the standings page."""

import argparse
import json
import sqlite3
import sys
from html import escape

from host_tools.cli import stats as cli_stats
from host_tools.replay.league import League, game_id, PROVISIONAL_GAMES, PROVISIONAL_SIGMA

DESCRIPTION = """A league over many evenings: each log is re-judged and kept as one game in a SQLite file
(adding a log twice changes nothing), and the players are rated with openskill (Plackett-Luce, 1 v 1):
a skill with its uncertainty, "provisional" until it settles. Names come from each log's header (set at
the table) or --players. Rounds and races won are shown apart, as extra signal; they are not rated."""

EPILOG = """examples:
  spit league logs/*.spitlog                   add the games, print the standings (league.sqlite)
  spit league --db club.sqlite                 the standings only
  spit league new.spitlog --html standings.html

exit codes: 0 ok, 1 a log could not be read (the others are added), 2 bad command line"""


def fmt_row(i, e):
    races = "-" if e["races_won"] is None else str(e["races_won"])
    return "%3d  %-16s %7.2f %6.2f %6.2f  %-11s %5d %4d %4d %4d   %6d %6s" % (
        i, e["name"], e["ordinal"], e["mu"], e["sigma"], "provisional" if e["provisional"] else "settled",
        e["games"], e["won"], e["lost"], e["drawn"], e["rounds_won"], races)


def table(standings):
    out = ["%3s  %-16s %7s %6s %6s  %-11s %5s %4s %4s %4s   %6s %6s" % (
        "#", "player", "rating", "mu", "sigma", "", "games", "won", "lost", "draw", "rounds", "races"),
        "%-57s %s" % ("", "(extra signal, not rated)")]
    out += [fmt_row(i, e) for i, e in enumerate(standings, 1)]
    out.append("rating: mu - 3 sigma (openskill's ordinal); provisional: fewer than %d rated games or sigma over %.1f"
               % (PROVISIONAL_GAMES, PROVISIONAL_SIGMA))
    if any(e["races_won"] is None for e in standings):
        out.append("races -: not known from the log (only own-deck games say who played each card)")
    return out


def standings_html(standings):
    rows = "".join(
        "<tr><td>%d</td><td class=l>%s</td><td>%.2f</td><td>%.2f &#177; %.2f</td><td class=l>%s</td><td>%d</td>"
        "<td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>"
        % (i, escape(e["name"]), e["ordinal"], e["mu"], e["sigma"], "provisional" if e["provisional"] else "settled",
           e["games"], e["won"], e["lost"], e["drawn"], e["rounds_won"],
           "not known from the log" if e["races_won"] is None else e["races_won"])
        for i, e in enumerate(standings, 1))
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
            "content=\"width=device-width, initial-scale=1\"><title>Spit league</title><style>"
            "body{font:14px/1.45 system-ui,sans-serif;margin:16px;color:#1d2330}.wrap{overflow-x:auto}"
            "table{border-collapse:collapse}th,td{padding:4px 8px;border-bottom:1px solid #e6e9ef;text-align:right}"
            ".l{text-align:left}</style></head><body><h1>Spit league: standings</h1><div class=\"wrap\"><table>"
            "<tr><th>#</th><th class=l>player</th><th>rating</th><th>skill &#177; uncertainty</th><th class=l></th>"
            "<th>games</th><th>won</th><th>lost</th><th>drawn</th><th>rounds won*</th><th>races won*</th></tr>%s"
            "</table></div><p>rating: mu &#8722; 3 sigma (openskill, Plackett-Luce); provisional: fewer than %d rated "
            "games or sigma over %.1f. *extra signal, shown apart: not part of the rating.</p></body></html>\n"
            % (rows, PROVISIONAL_GAMES, PROVISIONAL_SIGMA))


def run(args, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    given = None
    if args.players:
        try:
            given = cli_stats.parse_players(args.players)
        except ValueError as e:
            err.write("spit league: %s\n" % e)
            return 2
    try:
        league = League(args.db)
    except sqlite3.Error as e:   # not a database, cannot write
        err.write("spit league: %s: %s\n" % (args.db, e))
        return 1
    failed = 0
    added = 0
    try:
        for path in args.logs:
            evening, bad = cli_stats.load([path], given, err)
            failed += bad
            if not evening.game_rows:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                gid = game_id(f.read())
            added += league.add(gid, evening.game_rows[0])
        standings = league.standings()
    finally:
        league.close()
    if args.json:
        out.write(json.dumps({"added": added, "standings": standings}, indent=1) + "\n")
    else:
        if args.logs:
            out.write("%d game%s added to %s\n" % (added, "" if added == 1 else "s", args.db))
        for line in table(standings):
            out.write(line + "\n")
    if args.html:
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(standings_html(standings))
        except OSError as e:
            err.write("spit league: %s: cannot write: %s\n" % (args.html, e.strerror or e))
            return 1
    return 1 if failed else 0


def add_subcommands(subparsers):
    p = subparsers.add_parser("league", help="a league over many games: ratings (openskill) and standings",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="*", metavar="LOG", help="session logs to add (none: the standings only)")
    p.add_argument("--db", default="league.sqlite", metavar="FILE", help="the league's SQLite file "
                                                                         "(default league.sqlite)")
    p.add_argument("--players", metavar="A,B", help="names of seat 0 and seat 1 for logs whose header names nobody")
    p.add_argument("--html", metavar="OUT", help="write the standings page")
    p.add_argument("--json", action="store_true", help="the standings as JSON")
    p.set_defaults(func=run)
    return p
