"""``spit replay --html OUT``: one self-contained HTML page picturing a re-judged game.

Inline CSS and inline SVG only (no scripts, fonts or links), so the file can be mailed or opened
offline.  Every round gets its own timeline block; a round longer than ``ROW_S`` seconds wraps
onto more rows with the same scale, so long games stay readable.  In a row, x is time and each
pile has a lane; every landing is a mark coloured by its verdict, with the card code next to it
and the full verdict as a hover title.  Spit calls are dashed vertical lines, countdowns grey
bands, races small arcs from the earlier card with their delta t, and the players' lane shows
STUCK presses and slaps.  A per-round table closes the page.
"""

from html import escape

from host_tools.replay import describe, fmt_time, fmt_ms, summary, mismatch_text, REASON_WORDS

ROW_S = 30                 # seconds per timeline row
PX_PER_S = 33
LEFT = 64                  # room for lane labels
RIGHT = 80
TOP = 36                   # room for spit-call labels and race arcs
LANE_H = 46
PLAYERS_H = 30
AXIS_H = 24
R = 5                      # mark radius

COLOURS = {"accept": "#2e9d4a", "illegal": "#d7263d", "late": "#f08c00", "tie": "#7b2cbf",
           "early": "#2f6fde", "spit": "#ffffff", "resync": "#8a8a8a", "undo": "#8a8a8a"}
LEGEND = (("accept", "accepted"), ("spit", "spit card"), ("late", "late (lost a race)"),
          ("tie", "tie"), ("illegal", "illegal"), ("early", "early"))

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px 28px;color:#1d2330;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:26px 0 6px}
.sub{color:#5b6475;margin:0 0 14px}
.summary{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.summary p{margin:2px 0}
.legend{display:flex;flex-wrap:wrap;gap:16px;align-items:center;margin:0 0 8px;color:#3a4252}
.legend span{display:inline-flex;align-items:center;gap:6px}
.round{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:8px 12px 4px;margin:0 0 14px;overflow-x:auto}
.round h3{font-size:14px;margin:0 0 4px}
.round h3 small{font-weight:normal;color:#5b6475}
svg{display:block}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
table{border-collapse:collapse;background:#fff;border:1px solid #dde2ea}
th,td{padding:5px 10px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap}
th{background:#f1f3f7;font-weight:600}
td.l,th.l{text-align:left}
.warn{color:#b3261e}
ul.problems{margin:4px 0;padding-left:20px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
"""


def _x(t, row_start):
    return LEFT + (t - row_start) * PX_PER_S / 1e6


def _mark(kind, x, y, tip=""):
    """One verdict mark as an SVG element (``tip``: its <title>)."""
    fill = COLOURS.get(kind, "#555")
    if kind == "spit":
        return '<circle cx="%.1f" cy="%.1f" r="%d" fill="#fff" stroke="#6b7280" stroke-width="2">%s</circle>' % (
            x, y, R + 1, tip)
    if kind == "illegal":
        d = R + 0.5
        return ('<path d="M%.1f %.1fl%.1f %.1fm0 %.1fl%.1f %.1f" stroke="%s" stroke-width="3" stroke-linecap="round"'
                ' fill="none">%s</path>' % (x - d, y - d, 2 * d, 2 * d, -2 * d, -2 * d, 2 * d, fill, tip))
    if kind == "early":
        return '<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="%s">%s</rect>' % (
            x - R, y - R, 2 * R, 2 * R, fill, tip)
    if kind == "tie":
        return ('<path d="M%.1f %.1fl%d %dl%d %dl%d %dz" fill="%s">%s</path>'
                % (x, y - R - 2, R + 2, R + 2, -R - 2, R + 2, -R - 2, -R - 2, fill, tip))
    return '<circle cx="%.1f" cy="%.1f" r="%d" fill="%s">%s</circle>' % (x, y, R, fill, tip)


def _legend():
    items = []
    for kind, words in LEGEND:
        items.append('<span><svg width="16" height="16" viewBox="0 0 16 16">%s</svg>%s</span>'
                     % (_mark(kind, 8, 8), escape(words)))
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#1d2330" stroke-dasharray="3 2" stroke-width="1.5"/></svg>spit call</span>')
    items.append('<span><svg width="22" height="16" viewBox="0 0 22 16"><path d="M2 13 Q11 0 20 13" fill="none" '
                 'stroke="#f08c00" stroke-width="1.5"/></svg>race (&#916;t from the card before)</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><path d="M8 2l6 11H2z" fill="#475569"/>'
                 '</svg>STUCK press</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#0f766e" stroke-width="2.5"/></svg>round end; &#8594; P1 (24): player 1 takes the pile '
                 '(24 cards)</span>')
    return '<div class="legend">%s</div>' % "".join(items)


class _Row:
    """One timeline row: ``[start, start + ROW_S)`` of one round."""

    def __init__(self, start, end, npiles):
        self.start = start
        self.end = end
        self.npiles = npiles
        self.back = []     # bands, grid
        self.front = []    # marks, labels
        self.last_x = [[-99.0, -99.0] for _ in range(npiles)]   # last mark x per lane and label side
        self.stack = [(-99.0, 0)] * npiles
        self.last_dt_x = [-99.0] * npiles                        # last delta-t label per lane
        self.min_width = 0                                       # labels written past the end

    def width(self):
        return max(int(LEFT + (self.end - self.start) * PX_PER_S / 1e6 + RIGHT), self.min_width)

    def lane_y(self, pile):
        return TOP + pile * LANE_H + LANE_H / 2

    def players_y(self):
        return TOP + self.npiles * LANE_H + PLAYERS_H / 2

    def height(self):
        return TOP + self.npiles * LANE_H + PLAYERS_H + AXIS_H

    def svg(self):
        w = self.width()
        h = self.height()
        out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">' % (w, h, w, h)]
        bottom = TOP + self.npiles * LANE_H + PLAYERS_H
        for p in range(self.npiles):
            y = TOP + p * LANE_H
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
                LEFT, y, w - LEFT - RIGHT, LANE_H, "#f4f6fa" if p % 2 == 0 else "#eceff5"))
            out.append('<text x="8" y="%.1f" font-size="12" fill="#3a4252" dominant-baseline="middle">pile %d</text>'
                       % (y + LANE_H / 2, p))
        out.append('<text x="8" y="%.1f" font-size="11" fill="#5b6475" dominant-baseline="middle">players</text>'
                   % self.players_y())
        first = -(-self.start // 1000000)
        for s in range(first, self.end // 1000000 + 1):
            x = _x(s * 1000000, self.start)
            major = s % 5 == 0
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1"/>'
                       % (x, TOP, x, bottom + (5 if major else 3), "#c9d0dc" if major else "#e1e5ec"))
            if major:
                out.append('<text x="%.1f" y="%d" font-size="11" fill="#5b6475" text-anchor="middle">%d:%02d</text>'
                           % (x, bottom + 17, s // 60, s % 60))
        out.extend(self.back)
        out.extend(self.front)
        out.append("</svg>")
        return "\n".join(out)

    def place(self, pile, x):
        """A y for a mark at x in the lane: stacked when it would overlap the previous mark."""
        last_x, level = self.stack[pile]
        level = level + 1 if x - last_x < 2 * R else 0
        self.stack[pile] = (x, level)
        offsets = (0, 12, -12)
        return self.lane_y(pile) + offsets[level % len(offsets)]


def _title(t, kind, f):
    return "<title>%s</title>" % escape("%s  %s" % (fmt_time(t), describe(kind, f)))


def _draw(rows, records, npiles, start, end):
    """Turn one round's verdicts into marks on its rows."""
    def row_of(t):
        for row in rows:
            if t < row.end:
                return row
        return rows[-1]

    last_land = [None] * npiles   # (t, x, row) of the last card on each pile
    tied = None                   # (pile, card) of the last tie: its late/accept needs no second arc
    for _line, t, kind, f in records:
        row = row_of(t)
        x = _x(t, row.start)
        tip = _title(t, kind, f)
        pile = f.get("pile", -1)
        lane_ok = isinstance(pile, int) and 0 <= pile < npiles
        if kind == "countdown":
            x2 = min(_x(t + f["ms"] * 1000, row.start), row.width() - RIGHT)
            row.back.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#dfe3ea" opacity="0.7">%s</rect>'
                            % (x, TOP, max(1.0, x2 - x), npiles * LANE_H, tip))
            row.back.append('<text x="%.1f" y="%d" font-size="10" fill="#5b6475">countdown</text>' % (x + 3, TOP + 11))
        elif kind == "spit_call":
            row.back.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#1d2330" stroke-width="1.5" '
                            'stroke-dasharray="4 3">%s</line>' % (x, TOP - 2, x, TOP + npiles * LANE_H, tip))
            row.front.append('<text x="%.1f" y="%d" font-size="10" font-weight="600" fill="#1d2330" '
                             'text-anchor="middle">SPIT!%s</text>' % (x, TOP - 4, tip))
        elif kind in ("round_end", "game_over", "question"):
            if kind == "round_end":
                label = "round %s ends: %s" % (f.get("round", "?"), _end_words(f))
            else:
                label = "GAME OVER" if kind == "game_over" else "question: stock cards left?"
            colour = "#b3261e" if kind == "game_over" else "#0f766e"
            row.back.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2.5">%s</line>'
                            % (x, 6, x, TOP + npiles * LANE_H + PLAYERS_H, colour, tip))
            left = x - LEFT > 6.5 * len(label)   # room on the left of the line, else write to its right
            if not left:
                row.min_width = max(row.min_width, int(x + 8 + 6.5 * len(label)))
            row.front.append('<text x="%.1f" y="%d" font-size="11" font-weight="600" fill="%s" text-anchor="%s">'
                             '%s%s</text>' % (x - 4 if left else x + 4, 12 if kind == "round_end" else 25, colour,
                                              "end" if left else "start", escape(label), tip))
        elif kind == "pile_won" and lane_ok:
            row.front.append('<text x="%.1f" y="%.1f" font-size="11" font-weight="600" fill="#0f766e" '
                             'dominant-baseline="middle">&#8594; P%d (%d)%s</text>'
                             % (x + 6, row.lane_y(pile), f["player"], f["size"], tip))
        elif kind in ("stuck",):
            y = row.players_y()
            dy = -4 if f["player"] == 0 else 4
            row.front.append('<path d="M%.1f %.1fl5 9h-10z" fill="#475569">%s</path>' % (x, y - 5 + dy, tip))
            row.front.append('<text x="%.1f" y="%.1f" font-size="9" fill="#475569">P%d</text>'
                             % (x + 6, y + 3 + dy, f["player"]))
        elif kind == "error":
            y = row.lane_y(pile) if lane_ok else row.players_y()
            row.front.append('<text x="%.1f" y="%.1f" font-size="13" font-weight="700" fill="#d7263d" '
                             'text-anchor="middle" dominant-baseline="middle">!%s</text>' % (x, y, tip))
        elif kind == "tie" and lane_ok:
            # A tie marks the pair of landings: a purple diamond over the two cards.
            prev = last_land[pile]
            x0 = prev[1] if prev is not None and prev[2] is row else x
            ax, ay = _race_arc(row, x0, x, pile, f.get("dt_us"), kind)
            row.front.append(_mark("tie", ax, ay - 2, tip))
            tied = (pile, f.get("card"))
        elif kind in COLOURS and lane_ok:
            y = row.place(pile, x)
            if (kind == "late" or "dt_us" in f) and tied != (pile, f.get("card")):
                prev = last_land[pile]
                if prev is not None and prev[2] is row:
                    _race_arc(row, prev[1], x, pile, f.get("dt_us"), kind)
            tied = None
            row.front.append(_mark(kind, x, y, tip))
            side = 0 if y <= row.lane_y(pile) else 1
            ly = y - R - 3 if side == 0 else y + R + 10
            if x - row.last_x[pile][side] > 17:
                row.last_x[pile][side] = x
                row.front.append('<text x="%.1f" y="%.1f" font-size="9" fill="#3a4252" text-anchor="middle">%s'
                                 '</text>' % (x, ly, escape(f.get("card", ""))))
            if kind in ("spit", "accept", "resync"):
                last_land[pile] = (t, x, row)
    # Slaps are input events (not verdicts); pile_won marks show their outcome.


def _race_arc(row, x0, x1, pile, dt_us, kind):
    """An arc over the lane from the earlier card to the racing one, with the delta t;
    returns its apex ``(x, y)``."""
    y = row.lane_y(pile) - R - 4
    mid = (x0 + x1) / 2
    lift = 14 + min(10.0, (x1 - x0) / 4)
    colour = COLOURS["tie"] if kind == "tie" else COLOURS["late"]
    if x1 - x0 > 3:
        row.back.append('<path d="M%.1f %.1f Q%.1f %.1f %.1f %.1f" fill="none" stroke="%s" stroke-width="1.4"/>'
                        % (x0, y, mid, y - lift, x1, y, colour))
    apex = y - lift / 2
    if dt_us is not None and mid - row.last_dt_x[pile] > 44:
        row.last_dt_x[pile] = mid
        row.front.append('<text x="%.1f" y="%.1f" font-size="9" fill="%s" text-anchor="middle">+%s</text>'
                         % (mid, apex - 10, colour, escape(fmt_ms(dt_us))))
    return mid, apex


def _end_words(f):
    who = "player %d " % f["player"] if "player" in f else ""
    return who + REASON_WORDS.get(f["reason"], f["reason"])


def _round_blocks(replay):
    """One timeline block (heading + rows of SVG) per round."""
    blocks = []
    bounds = []
    for i, rs in enumerate(replay.rounds):
        nxt = replay.rounds[i + 1].start if i + 1 < len(replay.rounds) else None
        bounds.append((rs, nxt))
    recs = replay.records
    k = 0
    for rs, nxt in bounds:
        mine = []
        while k < len(recs) and (nxt is None or recs[k][1] < nxt or
                                 (recs[k][1] == nxt and recs[k][2] != "round_start")):
            mine.append(recs[k])
            k += 1
        start = (rs.start // 1000000) * 1000000
        end = max(max((r[1] for r in mine), default=rs.start) + 1500000, start + 12000000)  # room for labels
        rows = []
        s = start
        while s < end:
            row_end = s + ROW_S * 1000000
            if end - row_end <= ROW_S * 1000000 // 6:
                row_end = end   # a short remainder stays on this row
            rows.append(_Row(s, row_end, replay.npiles))
            s = row_end
        _draw(rows, mine, replay.npiles, start, end)
        ending = " &#183; %s" % escape(_end_words({"reason": rs.end_reason, "player": rs.out_player})
                                       if rs.out_player is not None else REASON_WORDS.get(rs.end_reason, "")) \
            if rs.end_reason else " &#183; not finished"
        blocks.append('<div class="round"><h3>Round %d <small>%s &#8211; %s (%.1f s)%s</small></h3>\n%s\n</div>'
                      % (rs.number, fmt_time(rs.start), fmt_time(rs.end), (rs.end - rs.start) / 1e6, ending,
                         "\n".join(r.svg() for r in rows)))
    return blocks


def _table(replay):
    head = ("<tr><th>round</th><th class=l>start</th><th>duration</th><th>plays</th><th>races</th><th>late</th>"
            "<th>ties</th><th>illegal</th><th>early</th><th>spit calls</th><th class=l>end</th>"
            "<th class=l>piles won</th><th>cards after (P0 | P1)</th></tr>")
    rows = []
    for rs in replay.rounds:
        won = ", ".join("P%d &#8592; pile %d (%d)" % (pl, pile, size) for pl, pile, size in rs.piles_won) or "&#8211;"
        end = escape(_end_words({"reason": rs.end_reason, "player": rs.out_player}) if rs.out_player is not None
                     else REASON_WORDS.get(rs.end_reason, "")) if rs.end_reason else "not finished"
        after = "%d | %d" % rs.cards_after if rs.cards_after else "&#8211;"
        rows.append("<tr><td>%d</td><td class=l>%s</td><td>%.1f s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>"
                    "<td>%d</td><td>%d</td><td>%d</td><td class=l>%s</td><td class=l>%s</td><td>%s</td></tr>"
                    % (rs.number, fmt_time(rs.start), (rs.end - rs.start) / 1e6, rs.plays, rs.races, rs.late,
                       rs.ties, rs.illegal, rs.early, rs.spit_calls, end, won, after))
    return "<table>%s%s</table>" % (head, "".join(rows))


def render(replay, title="session"):
    """The whole page as a string."""
    lines = summary(replay)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Spit replay &#8211; %s</title>" % escape(title), "<style>%s</style></head><body>" % CSS,
             "<h1>Spit replay &#8211; %s</h1>" % escape(title)]
    ruleset = replay.rules_name
    parts.append('<p class="sub">ruleset %s &#183; %d piles &#183; re-judged with the referee\'s own rules '
                 'engine &#183; hover a mark for its verdict</p>' % (escape(ruleset), replay.npiles))
    parts.append('<div class="summary">%s</div>' % "".join("<p>%s</p>" % escape(s) for s in lines))
    if replay.mismatches or replay.problems:
        items = [escape(mismatch_text(m)) for m in replay.mismatches]
        items += [escape("line %d: %s" % lp) for lp in replay.problems]
        parts.append('<h2 class="warn">Problems</h2><ul class="problems">%s</ul>'
                     % "".join("<li>%s</li>" % s for s in items))
    parts.append("<h2>Timeline</h2>")
    parts.append(_legend())
    parts.extend(_round_blocks(replay))
    parts.append("<h2>Rounds</h2>")
    parts.append(_table(replay))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write(path, replay, title="session"):
    """Write the page of ``replay`` to ``path`` (OSError if that fails)."""
    page = render(replay, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
