"""``spit replay --html OUT``: one self-contained HTML page picturing a re-judged game.

Inline CSS, inline SVG and one small inline script (the play by play stepper), no fonts or links,
so the file can be mailed or opened offline, and laid out for a phone (390 px) as for a desktop.
First what a player looks for: the result, the rounds (who won each and how the log tells), the
key moments (closest race, longest stall, deciding round), the referee's questions with their
answers and every tie with its reason; then the play by play (:mod:`host_tools.replay.page_review`).
Per round: a sentence players recognise, the illegal cards and errors with their reasons (never
hover-only), the timeline (:mod:`host_tools.replay.page_timeline`: every mark labelled, labels never
overlapping, each race's delta t linked to its zoom) and the round's races, each zoomed with both
touch edges, both reads and the verdict (:mod:`host_tools.replay.page_races`).  Then the players'
statistics as small plots (:mod:`host_tools.replay.page_plots`).
"""

import bisect
import itertools
from html import escape

from host_tools.replay.text import fmt_time, summary, mismatch_text, plural, describe, REASON_WORDS
from host_tools.replay.facts import NOT_KNOWN
from host_tools.replay.page_timeline import Row, Drawer, mark_svg, ROW_S
from host_tools.replay.page_races import find_races, race_html
from host_tools.replay.page_plots import player_section
from host_tools.replay.page_review import steps, stepper_html, key_moments, questions_html, ties_html
from host_tools.replay.stats import GameStats

# One entry per mark drawn on the timeline; no two marks look alike.
LEGEND = (("accept", "accepted"), ("spit", "spit card"), ("late", "late (lost a race)"), ("tie", "tie"),
          ("illegal", "illegal (fits no top)"), ("early", "early"), ("undo", "undo (taken back)"),
          ("resync", "top set by a correction"), ("error", "error (bad input)"), ("stuck", "STUCK press"),
          ("mismatch", "the device said otherwise here"))

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px 28px;color:#1d2330;background:#fafbfc;
overflow-wrap:anywhere}
@media (max-width:600px){body{margin:10px 8px}.round{padding:6px}}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 10px}
.rcard{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:6px 10px;flex:1 1 220px;max-width:100%}
.rcard b{font-size:15px}
.moments li,.questions li,.ties li{margin:3px 0}
.stepper{background:#fff;border:2px solid #7b2cbf;border-radius:10px;padding:8px 12px;margin:0 0 14px}
.stepper .step-head{display:flex;gap:10px;align-items:center}
.stepper button{font-size:16px;padding:6px 14px;border-radius:6px;border:1px solid #7b2cbf;background:#f5effc}
.stepper .piles{display:flex;flex-wrap:wrap;gap:8px}
.stepper .pile{border:1px solid #cfd5df;border-radius:8px;padding:4px 12px;text-align:center;min-width:70px}
.stepper .top{font-size:26px;font-weight:700}
.stepper .hint{color:#5b6475;font-size:12px}
.wrap{overflow-x:auto;max-width:100%}
.detail{font-size:13px;margin:4px 0 8px;padding-left:18px}
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
.race{border:1px solid #e1e5ec;border-radius:6px;padding:6px 8px;background:#fbfcfe;max-width:100%;box-sizing:border-box}
svg.zoom{max-width:100%;height:auto}
.race:target{border-color:#7b2cbf;box-shadow:0 0 0 3px #e4d4f7}
.race ul{margin:2px 0 0;padding-left:18px;font-size:12px;color:#3a4252}
.plots{display:flex;overflow-x:auto;flex-wrap:wrap;gap:18px;align-items:flex-start;background:#fff;border:1px solid #dde2ea;
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
        items.append('<span class="key key-%s"><svg width="16" height="16" viewBox="0 0 16 16">%s</svg>%s</span>'
                     % (kind, mark_svg(kind, 8, 9), escape(words)))
    items.append('<span><svg width="22" height="16" viewBox="0 0 22 16"><path d="M3 4v4h16v-4" fill="none" '
                 'stroke="#f08c00" stroke-width="1.5"/></svg>race: &#916;t under the cards (tap it for the zoom)'
                 '</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#1d2330" stroke-dasharray="3 2" stroke-width="1.5"/></svg>spit call</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#0f766e" stroke-width="2.5"/></svg>round end</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><line x1="8" y1="0" x2="8" y2="16" '
                 'stroke="#0f766e" stroke-dasharray="3 2" stroke-width="1.5"/></svg>question</span>')
    items.append('<span><svg width="16" height="16" viewBox="0 0 16 16"><rect x="2" y="2" width="12" height="12" '
                 'fill="#dfe3ea"/></svg>countdown</span>')
    items.append('<span>8H&#183;P0: card and the player who played it (where the log says)</span>')
    return '<div class="legend">%s</div>' % "".join(items)


def _winner(rf):
    """``(who, how)`` of a round from the story, in words."""
    if rf is None or rf.reason is None:
        return "not finished", ""
    if rf.winner is None:
        return NOT_KNOWN, ""
    who = "nobody (a draw)" if rf.winner < 0 else "player %d" % rf.winner
    how = rf.how or ""
    if rf.counts is not None:
        how += " (player 0 %d, player 1 %d)" % rf.counts
    return who, how


def _end_words(rs, rf=None):
    if not rs.end_reason:
        return "not finished"
    if rs.end_reason == "out":
        if rf is not None and rf.winner is not None and rf.winner >= 0:
            return "player %d went out" % rf.winner
        return "a player went out (who: %s)" % NOT_KNOWN
    return REASON_WORDS.get(rs.end_reason, rs.end_reason)


def story(rs, rf=None):
    """One round in a sentence players recognise (``rf``: the round's facts, who won it)."""
    parts = []
    who, how = _winner(rf)
    if rs.end_reason == "out" and rf is not None and rf.winner is not None and rf.winner >= 0:
        parts.append("Player %d went out after %s (%s)." % (rf.winner, _duration(rs), how))
    elif rs.end_reason:
        parts.append("The round ended after %s: %s. Round won by %s%s." % (
            _duration(rs), _end_words(rs, rf), who, " (%s)" % how if how else ""))
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


def _mismatch_times(replay):
    """``[(t, text)]``: each device disagreement at its time: the re-judged verdict's own ``t`` when
    there is one (the same text), else the time of the log line it was found on."""
    from host_tools.replay.matcher import normalise
    out = []
    if not replay.mismatches:
        return out
    wanted = {m[2] for m in replay.mismatches if m[2]}
    by_text = {}
    lines, latest = [], []   # the records' log lines, and the latest t up to each (a line's time)
    for (line, items), rec in zip(replay.verdicts, replay.records):
        text = normalise(dict(items))
        if text in wanted:
            by_text.setdefault(text, []).append(items[0][1])
        lines.append(line if line is not None else (lines[-1] if lines else 0))
        latest.append(max(rec[1], latest[-1]) if latest else rec[1])
    for m in replay.mismatches:
        line, _dev, rj = m
        ts = by_text.get(rj) if rj else None
        if ts:
            t = ts.pop(0)
        else:
            k = bisect.bisect_right(lines, line)
            t = latest[k - 1] if k else 0
        out.append((t, mismatch_text(m)))
    return out


def _round_blocks(replay, owners, races, story_, mismatches):
    blocks = []
    numbers = itertools.count(1)
    recs = replay.records
    rules = replay.referee.rules if replay.referee is not None else None
    questions = {q.t: q for q in story_.questions}
    winners = {n: (rf.winner, rf.how) for n, rf in story_.rounds.items()}
    k = 0
    for i, rs in enumerate(replay.rounds):
        nxt = replay.rounds[i + 1].start if i + 1 < len(replay.rounds) else None
        mine = []
        while k < len(recs) and (nxt is None or recs[k][1] < nxt
                                 or (recs[k][1] == nxt and recs[k][2] != "round_start")):
            mine.append((k, recs[k]))
            k += 1
        start = (rs.start // 1000000) * 1000000
        ends = [r[1] for _i, r in mine] + [t for t, _m in mismatches if nxt is None or t < nxt]
        end = max(max(ends, default=rs.start) + 1000000, start + 10000000)
        rows = []
        s = start
        while s < end:
            row_end = s + ROW_S * 1000000
            if end - row_end <= ROW_S * 1000000 // 6:
                row_end = end   # a short remainder stays on this row
            rows.append(Row(s, row_end, replay.npiles))
            s = row_end
        drawer = Drawer(rows, replay.npiles, owners, races, numbers, questions, rules, winners)
        for index, (_line, t, kind, f) in mine:
            drawer.draw(index, t, kind, f)
        for t, text in mismatches:
            if t >= start and (nxt is None or t < nxt):
                drawer.mismatch(t, text)
        round_races = [races[index] for index, _r in mine if index in races]
        race_part = ""
        if round_races:
            race_part = '<h4>%s in round %d (zoom on the touch edges and reads)</h4><div class="races">%s</div>' % (
                plural(len(round_races), "race").capitalize(), rs.number, "".join(race_html(r) for r in round_races))
        bad = ["%s  %s%s" % (fmt_time(t), describe(kind, f, rules), "  (played by player %d)" % owners[i]
                               if owners.get(i) is not None and "player" not in f else "")
               for i, (_l, t, kind, f) in mine if kind in ("illegal", "error")]
        bad += ["%s  %s" % (fmt_time(t), text) for t, text in mismatches if t >= start and (nxt is None or t < nxt)]
        bad_part = ('<h4>Illegal cards, errors and disagreements, with why</h4><ul class="detail">%s</ul>'
                    % "".join("<li>%s</li>" % escape(b) for b in bad)) if bad else ""
        rf = story_.rounds.get(rs.number)
        blocks.append('<div class="round" id="round-%d"><h3>Round %d <small>%s &#8211; %s &#183; %s</small></h3>'
                      '<p class="story">%s</p>\n%s<div class="wrap">%s</div>\n%s</div>'
                      % (rs.number, rs.number, fmt_time(rs.start), fmt_time(rs.end), escape(_end_words(rs, rf)),
                         escape(story(rs, rf)), bad_part, "\n".join(r.svg() for r in rows), race_part))
    return blocks


def _rounds_cards(replay, story_):
    """The rounds, first thing on the page: who won each and how the log tells, the counts."""
    cards = []
    for rs in replay.rounds:
        rf = story_.rounds.get(rs.number)
        who, how = _winner(rf)
        won = ", ".join("P%d &#8592; pile %d (%d)" % (pl, pile, size) for pl, pile, size in rs.piles_won) or "&#8211;"
        after = "%d | %d" % rs.cards_after if rs.cards_after else NOT_KNOWN if rs.end_reason else "&#8211;"
        cards.append('<div class="rcard" data-round="%d"><a href="#round-%d"><b>Round %d</b></a> &#183; %s &#183; '
                     '%.1f s<br>won by <b class="winner">%s</b>%s<br>end: %s<br>%s, %s, %s, %d illegal<br>'
                     'piles: %s<br>cards after (P0 | P1): %s</div>'
                     % (rs.number, rs.number, rs.number, fmt_time(rs.start), (rs.end - rs.start) / 1e6, escape(who),
                        " <small>(%s)</small>" % escape(how) if how else "", escape(_end_words(rs, rf)),
                        plural(rs.plays, "play"), plural(rs.races, "race"), plural(rs.ties, "tie"), rs.illegal, won,
                        after))
    return '<div class="cards">%s</div>' % "".join(cards)


def render(replay, title="session"):
    """The whole page as a string (``replay`` must have kept its records: ``keep=True``)."""
    game = GameStats(replay)
    story_ = game.story
    races = find_races(replay, game.owner_of)
    mismatches = _mismatch_times(replay)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>Spit replay &#8211; %s</title>" % escape(title), "<style>%s</style></head><body>" % CSS,
             "<h1>Spit replay &#8211; %s</h1>" % escape(title)]
    parts.append('<p class="sub">ruleset %s &#183; %s &#183; re-judged with the referee\'s own rules engine '
                 '&#183; tap a &#916;t for its race</p>' % (escape(replay.rules_name), plural(replay.npiles, "pile")))
    parts.append('<div class="summary">%s</div>' % "".join("<p>%s</p>" % escape(s) for s in summary(replay, story_)))
    parts.append("<h2>Rounds</h2>")
    parts.append(_rounds_cards(replay, story_))
    moments = key_moments(replay, story_, races)
    if moments:
        parts.append('<h2>Key moments</h2><ul class="moments">%s</ul>'
                     % "".join("<li><b>%s</b>: %s</li>" % (escape(a), b) for a, b in moments))
    parts.append(questions_html(story_))
    parts.append(ties_html(replay, races))
    if replay.mismatches or replay.problems:
        items = [escape("%s  %s" % (fmt_time(t), text)) for t, text in mismatches]
        items += [escape("line %d: %s" % lp) for lp in replay.problems]
        more = replay.n_mismatches + replay.n_problems - len(items)
        if more > 0:
            items.append("... and %d more (see the terminal)" % more)
        parts.append('<h2 class="warn">Problems</h2><ul class="problems">%s</ul>'
                     % "".join("<li>%s</li>" % s for s in items))
    parts.append("<h2>Play by play</h2>")
    parts.append(stepper_html(steps(replay, game.owner_of, game.news, races), replay.npiles))
    parts.append("<h2>Timeline</h2>")
    parts.append(_legend())
    parts.extend(_round_blocks(replay, game.owner_of, races, story_, mismatches))
    parts.append("<h2>Players</h2>")
    parts.append(player_section(game))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write(path, replay, title="session"):
    """Write the page of ``replay`` to ``path`` (OSError if that fails)."""
    page = render(replay, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
