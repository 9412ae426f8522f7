"""Small SVG plots of the per-player statistics (host_tools.replay.stats) for the replay page."""

from html import escape

PLAYER_COLOURS = ("#2f6fde", "#d9480f")
BIN_MS = 100
BINS = 20                  # 0 .. 2 s


def reaction_histogram(stats, player):
    """Reaction times of one player: bars per 100 ms, the median marked."""
    w, h, left, bottom = 300, 120, 30, 96
    values = [us / 1000.0 for us in stats.reactions_us]
    counts = [0] * BINS
    for v in values:
        counts[min(BINS - 1, int(v // BIN_MS))] += 1
    top = max(counts) or 1
    bar_w = (w - left - 10) / float(BINS)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (w, h, w, h),
           '<text x="%d" y="12" font-size="11" fill="#1d2330">player %d: reaction times (%d)</text>'
           % (left, player, len(values))]
    for i, c in enumerate(counts):
        bh = (bottom - 20) * c / float(top)
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%d-%d ms: %d</title></rect>'
                   % (left + i * bar_w + 1, bottom - bh, bar_w - 2, bh, PLAYER_COLOURS[player], i * BIN_MS,
                      (i + 1) * BIN_MS, c))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#8a93a3"/>' % (left, bottom, w - 10, bottom))
    for s in (0, 5, 10, 15, 20):
        out.append('<text x="%.1f" y="%d" font-size="9" fill="#5b6475" text-anchor="middle">%.1f s</text>'
                   % (left + s * bar_w, bottom + 12, s * BIN_MS / 1000.0))
    median = stats.median_ms()
    if median is not None:
        x = left + min(median, BINS * BIN_MS) / BIN_MS * bar_w
        out.append('<line x1="%.1f" y1="22" x2="%.1f" y2="%d" stroke="#1d2330" stroke-dasharray="3 2"/>'
                   % (x, x, bottom))
        out.append('<text x="%.1f" y="22" font-size="9" fill="#1d2330">median %d ms</text>' % (x + 3, round(median)))
    else:
        out.append('<text x="%d" y="56" font-size="10" fill="#5b6475">not measurable: this log does not</text>'
                   '<text x="%d" y="70" font-size="10" fill="#5b6475">name who played each card</text>' % (left, left))
    out.append("</svg>")
    return "".join(out)


def counts_chart(players, names_cards=True):
    """Races won and lost, ties, illegal and early plays, STUCK presses: one pair of bars each.
    ``names_cards``: the log says who played each card; if not, only what it names is drawn
    (never a zero for what it does not know)."""
    rows = (("races won", "races_won"), ("races lost", "races_lost"), ("ties", "ties"),
            ("illegal", "illegal"), ("early", "early"), ("STUCK", "stuck"))
    if not names_cards:
        rows = (("spit cards", "spit_cards"), ("STUCK", "stuck"), ("rounds won", "rounds_won"))
    w, left, row_h = 330, 80, 22
    h = 24 + row_h * len(rows)
    top = max([getattr(p, key) for p in players for _n, key in rows] + [1])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (w, h, w, h)]
    for k in range(len(players)):
        out.append('<rect x="%d" y="4" width="10" height="10" fill="%s"/><text x="%d" y="13" font-size="10" '
                   'fill="#1d2330">player %d</text>' % (left + 90 * k, PLAYER_COLOURS[k], left + 90 * k + 14, k))
    for i, (name, key) in enumerate(rows):
        y = 22 + i * row_h
        out.append('<text x="%d" y="%d" font-size="10" fill="#3a4252" text-anchor="end">%s</text>'
                   % (left - 6, y + 13, escape(name)))
        for k, p in enumerate(players):
            v = getattr(p, key)
            bw = (w - left - 40) * v / float(top)
            out.append('<rect x="%d" y="%d" width="%.1f" height="8" fill="%s"><title>player %d %s: %d</title></rect>'
                       % (left, y + 2 + 9 * k, bw, PLAYER_COLOURS[k], k, escape(name), v))
            out.append('<text x="%.1f" y="%d" font-size="9" fill="#3a4252">%d</text>' % (left + bw + 3, y + 9 + 9 * k,
                                                                                        v))
    out.append("</svg>")
    return "".join(out)


def player_section(game):
    """The page's "Players" section for a host_tools.replay.stats.GameStats."""
    parts = ['<div class="plots">', counts_chart(game.players, game.names_cards)]
    if game.names_cards:
        for p in (0, 1):
            parts.append(reaction_histogram(game.players[p], p))
    parts.append("</div>")
    if not game.names_cards:
        parts.append('<p class="sub">Races won and lost, ties, illegal and early plays and reaction times per '
                     'player: not known from the log (only own-deck games say who played each card).</p>')
    unknown = game.unknown
    if unknown.plays or unknown.races_lost or unknown.illegal:
        parts.append('<p class="sub">Not named in the log (only own-deck games name who played each card): '
                     '%d cards played, %d races lost, %d illegal, %d early.</p>'
                     % (unknown.plays, unknown.races_lost, unknown.illegal, unknown.early))
    return "\n".join(parts)
