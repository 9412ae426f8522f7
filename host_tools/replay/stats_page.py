"""``spit stats --html OUT``: the evening's numbers as one self-contained page (tables and plots)."""

from html import escape

from host_tools.replay import stats

COLOURS = ("#2f6fde", "#d9480f", "#2e9d4a", "#7b2cbf", "#b3261e", "#0f766e", "#a85f00", "#475569")

CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:16px;color:#1d2330;background:#fafbfc;overflow-wrap:anywhere}
table{border-collapse:collapse;background:#fff;border:1px solid #dde2ea;margin:0 0 14px}
th,td{padding:4px 8px;border-bottom:1px solid #e6e9ef;text-align:right}
th:first-child,td:first-child{text-align:left}
.wrap{overflow-x:auto;max-width:100%}
svg{max-width:100%;height:auto}"""


def bars(title, names, values):
    """A horizontal bar per player."""
    w, left, row_h = 420, 120, 22
    h = 24 + row_h * len(names)
    top = max([v for v in values if v is not None] + [1])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">' % (w, h, w, h),
           '<text x="4" y="14" font-size="12" fill="#1d2330">%s</text>' % escape(title)]
    for i, (name, v) in enumerate(zip(names, values)):
        y = 22 + i * row_h
        out.append('<text x="%d" y="%d" font-size="11" fill="#3a4252" text-anchor="end">%s</text>'
                   % (left - 6, y + 12, escape(name)))
        if v is None:
            out.append('<text x="%d" y="%d" font-size="11" fill="#5b6475">not known from the log</text>'
                       % (left, y + 12))
            continue
        bw = (w - left - 40) * v / float(top)
        out.append('<rect x="%d" y="%d" width="%.1f" height="14" fill="%s"/>' % (left, y + 2, bw,
                                                                               COLOURS[i % len(COLOURS)]))
        out.append('<text x="%.1f" y="%d" font-size="11" fill="#1d2330">%s</text>' % (left + bw + 4, y + 13, v))
    out.append("</svg>")
    return "".join(out)


def render(evening):
    names = evening.names
    head = "".join("<th>%s</th>" % escape(n) for n in names + ["not named"])
    rows = []
    for name, value, per_card in stats.ROWS:
        cells = stats.cells(evening, name, value, per_card)
        rows.append("<tr><td>%s</td>%s</tr>" % (escape(name), "".join("<td>%s</td>" % escape(c) for c in cells)))
    games = []
    for i, g in enumerate(evening.game_rows, 1):
        games.append("<tr><td>%d</td><td>%s</td><td>%s</td><td>%s v %s</td><td>%s</td><td>%d</td><td>%s</td>"
                     "<td>%.0f s</td></tr>" % (
                         i, escape(g["started"] or "not in the log"), escape(g["ruleset"]), escape(g["players"][0]),
                         escape(g["players"][1]), escape(g["winner"] if g["winner"] is not None else "not finished"),
                         g["rounds"], "%d | %d" % tuple(g["rounds_won"]), g["length_s"]))
    known = bool(evening.named_games)
    plots = [bars("games won", names, [p.games_won for p in evening.players]),
             bars("rounds won", names, [p.rounds_won for p in evening.players]),
             bars("races won", names, [p.races_won if known else None for p in evening.players])]
    notes = "".join("<p>%s</p>" % escape(line) for line in stats.table(evening)[-2:] if not line.startswith(" "))
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Spit stats</title>"
            "<style>%s</style></head><body><h1>Spit stats</h1><p>%s</p><h2>Players</h2><div class=\"wrap\">"
            "<table><tr><th></th>%s</tr>%s</table></div>%s<h2>Games</h2><div class=\"wrap\"><table><tr><th>game</th>"
            "<th>started</th><th>ruleset</th><th>players</th><th>winner</th><th>rounds</th><th>rounds won</th>"
            "<th>length</th></tr>%s</table></div><h2>Plots</h2>%s</body></html>\n"
            % (CSS, escape(stats.table(evening)[0]), head, "".join(rows), notes, "".join(games), "".join(plots)))


def write_html(path, evening):
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(evening))
