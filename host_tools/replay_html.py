"""``spit replay --html OUT``: one self-contained HTML page picturing a re-judged game.

Inline CSS and inline SVG only (no scripts, fonts or links), so the file can be mailed or opened
offline.  Per round: a sentence players recognise (who went out, who took which pile, the
counts), the timeline (:mod:`host_tools.html_timeline`: every mark labelled, labels never
overlapping, each race's delta t linked to its zoom) and the round's races, each zoomed on a
microsecond axis with both touch edges, both reads and the verdict (:mod:`host_tools.html_races`).
Then the players' statistics as small plots (:mod:`host_tools.html_plots`) and a table of the rounds.
"""

import itertools
from html import escape

from host_tools.replay_text import fmt_time, summary, mismatch_text, plural, REASON_WORDS
from host_tools.html_timeline import Row, Drawer, mark_svg, ROW_S
from host_tools.html_races import find_races, race_html
from host_tools.html_plots import player_section
from host_tools.stats import GameStats

LEGEND = (("accept", "accepted"), ("spit", "spit card"), ("late", "late (lost a race)"),
          ("illegal", "illegal"), ("early", "early"), ("error", "error (hover: why)"), ("stuck", "STUCK press"))

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px 28px;color:#1d2330;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:26px 0 6px}
h4{font-size:13px;margin:0 0 4px}
.sub{color:#5b6475;margin:0 0 14px}
.summary{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.summary p{margin:2px 0}
.legend{display:flex;flex-wrap:wrap;gap:16px;align-items:center;margin:0 0 8px;color:#3a4252}
.legend span{display:inline-flex;align-items:center;gap:6px}
.round{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:8px 12px 6px;margin:0 0 14px;overflow-x:auto}
.round h3{font-size:14px;margin:0 0 2px}
.round h3 small{font-weight:normal;color:#5b6475}
.round p.story{margin:0 0 6px;color:#3a4252}
.races{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 4px}
.race{border:1px solid #e1e5ec;border-radius:6px;padding:6px 8px;background:#fbfcfe}
.race:target{border-color:#7b2cbf;box-shadow:0 0 0 3px #e4d4f7}
.race ul{margin:2px 0 0;padding-left:18px;font-size:12px;color:#3a4252}
.plots{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start;background:#fff;border:1px solid #dde2ea;
border-radius:8px;padding:10px 14px}
svg{display:block}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
svg.timeline .label text{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace}
svg.timeline a text{text-decoration:underline}
table{border-collapse:collapse;background:#fff;border:1px solid #dde2ea}
th,td{padding:5px 10px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap}
th{background:#f1f3f7;font-weight:600}
td.l,th.l{text-align:left}
.warn{color:#b3261e}
ul.problems{margin:4px 0;padding-left:20px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
"""


def _legend():
    items = []
    for kind, words in LEGEND:
        items.append('<span><svg width="16" height="16" viewBox="0 0 16 16">%s</svg>%s</span>'
                     % (mark_svg(kind, 8, 9), escape(words)))
    items.append('<span><svg width="22" height="16" viewBox="0 0 22 16"><path d="M3 4v4h16v-4" fill="none" '
                 'stroke="#f08c00" stroke-width="1.5"/></svg>race: &#916;t under the cards (click it for the zoom)'
                 '</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#1d2330" stroke-dasharray="3 2" stroke-width="1.5"/></svg>spit call</span>')
    items.append('<span>8H&#183;P0: card and the player who played it (where the log says)</span>')
    return '<div class="legend">%s</div>' % "".join(items)


def _end_words(rs):
    if not rs.end_reason:
        return "not finished"
    who = "player %d " % rs.out_player if rs.out_player is not None else ""
    return who + REASON_WORDS.get(rs.end_reason, rs.end_reason)


def story(rs):
    """One round in a sentence players recognise."""
    parts = []
    if rs.end_reason == "out" and rs.out_player is not None:
        parts.append("Player %d went out after %s." % (rs.out_player, _duration(rs)))
    elif rs.end_reason:
        parts.append("The round ended after %s: %s." % (_duration(rs), REASON_WORDS.get(rs.end_reason, rs.end_reason)))
    else:
        parts.append("The log ends %s into this round." % _duration(rs))
    if rs.piles_won:
        parts.append("; ".join("player %d took pile %d (%s)" % (pl, pile, "empty" if size == 0 else
                                                              plural(size, "card"))
                               for pl, pile, size in rs.piles_won).capitalize() + ".")
    parts.append("%s, %s (%d lost late), %s, %d illegal, %d early, %s." % (
        plural(rs.plays, "card") + " played", plural(rs.races, "race"), rs.late, plural(rs.ties, "tie"), rs.illegal,
        rs.early, plural(rs.spit_calls, "spit call")))
    if rs.cards_after:
        parts.append("Cards after the round: player 0 %d, player 1 %d." % rs.cards_after)
    return " ".join(parts)


def _duration(rs):
    s = (rs.end - rs.start) / 1e6
    return "%d:%02d" % (s // 60, s % 60) if s >= 60 else "%.1f s" % s


def _round_blocks(replay, owners, races):
    blocks = []
    numbers = itertools.count(1)
    recs = replay.records
    k = 0
    for i, rs in enumerate(replay.rounds):
        nxt = replay.rounds[i + 1].start if i + 1 < len(replay.rounds) else None
        mine = []
        while k < len(recs) and (nxt is None or recs[k][1] < nxt
                                 or (recs[k][1] == nxt and recs[k][2] != "round_start")):
            mine.append((k, recs[k]))
            k += 1
        start = (rs.start // 1000000) * 1000000
        end = max(max((r[1] for _i, r in mine), default=rs.start) + 1000000, start + 10000000)
        rows = []
        s = start
        while s < end:
            row_end = s + ROW_S * 1000000
            if end - row_end <= ROW_S * 1000000 // 6:
                row_end = end   # a short remainder stays on this row
            rows.append(Row(s, row_end, replay.npiles))
            s = row_end
        drawer = Drawer(rows, replay.npiles, owners, races, numbers)
        for index, (_line, t, kind, f) in mine:
            drawer.draw(index, t, kind, f)
        round_races = [races[index] for index, _r in mine if index in races]
        race_part = ""
        if round_races:
            race_part = '<h4>%s in round %d (zoom on the touch edges and reads)</h4><div class="races">%s</div>' % (
                plural(len(round_races), "race").capitalize(), rs.number, "".join(race_html(r) for r in round_races))
        blocks.append('<div class="round"><h3>Round %d <small>%s &#8211; %s &#183; %s</small></h3>'
                      '<p class="story">%s</p>\n%s\n%s</div>'
                      % (rs.number, fmt_time(rs.start), fmt_time(rs.end), escape(_end_words(rs)), escape(story(rs)),
                         "\n".join(r.svg() for r in rows), race_part))
    return blocks


def _table(replay):
    head = ("<tr><th>round</th><th class=l>start</th><th>duration</th><th>plays</th><th>races</th><th>late</th>"
            "<th>ties</th><th>illegal</th><th>early</th><th>spit calls</th><th class=l>end</th>"
            "<th class=l>piles won</th><th>cards after (P0 | P1)</th></tr>")
    rows = []
    for rs in replay.rounds:
        won = ", ".join("P%d &#8592; pile %d (%d)" % (pl, pile, size) for pl, pile, size in rs.piles_won) or "&#8211;"
        after = "%d | %d" % rs.cards_after if rs.cards_after else "&#8211;"
        rows.append("<tr><td>%d</td><td class=l>%s</td><td>%.1f s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>"
                    "<td>%d</td><td>%d</td><td>%d</td><td class=l>%s</td><td class=l>%s</td><td>%s</td></tr>"
                    % (rs.number, fmt_time(rs.start), (rs.end - rs.start) / 1e6, rs.plays, rs.races, rs.late,
                       rs.ties, rs.illegal, rs.early, rs.spit_calls, escape(_end_words(rs)), won, after))
    return "<table>%s%s</table>" % (head, "".join(rows))


def render(replay, title="session"):
    """The whole page as a string (``replay`` must have kept its records: ``keep=True``)."""
    game = GameStats(replay)
    races = find_races(replay, game.owner_of)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Spit replay &#8211; %s</title>" % escape(title), "<style>%s</style></head><body>" % CSS,
             "<h1>Spit replay &#8211; %s</h1>" % escape(title)]
    parts.append('<p class="sub">ruleset %s &#183; %s &#183; re-judged with the referee\'s own rules engine '
                 '&#183; hover a mark for its verdict, click a &#916;t for its race</p>'
                 % (escape(replay.rules_name), plural(replay.npiles, "pile")))
    parts.append('<div class="summary">%s</div>' % "".join("<p>%s</p>" % escape(s) for s in summary(replay)))
    if replay.mismatches or replay.problems:
        items = [escape(mismatch_text(m)) for m in replay.mismatches]
        items += [escape("line %d: %s" % lp) for lp in replay.problems]
        more = replay.n_mismatches + replay.n_problems - len(items)
        if more > 0:
            items.append("... and %d more (see the terminal)" % more)
        parts.append('<h2 class="warn">Problems</h2><ul class="problems">%s</ul>'
                     % "".join("<li>%s</li>" % s for s in items))
    parts.append("<h2>Timeline</h2>")
    parts.append(_legend())
    parts.extend(_round_blocks(replay, game.owner_of, races))
    parts.append("<h2>Players</h2>")
    parts.append(player_section(game))
    parts.append("<h2>Rounds</h2>")
    parts.append(_table(replay))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write(path, replay, title="session"):
    """Write the page of ``replay`` to ``path`` (OSError if that fails)."""
    page = render(replay, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)

