"""Races on the replay page: each race found in the verdicts, with its zoom on a microsecond axis.

A race (R-PLAY-5) is a card that landed on a pile within the race window of the card before it:
a ``late`` verdict (it lost: it fit only the old top), an ``accept`` with ``dt_us`` (it fit the new
top too), or a ``tie`` (closer than ``tie_window_us``; the card's own verdict follows).  The zoom
shows what the referee saw: the two touch edges (the landing times, from the touch sensors), the
two NFC reads that named the cards, and the verdict.
"""

from html import escape

from spit.cards import format_card
from spit.intake import EV_TOUCH, EV_CARD

from host_tools.replay.text import fmt_dt, fmt_time
from host_tools.replay.facts import tie_reason, tie_evidence

ZOOM_W = 600
ZOOM_LEFT = 18


class Race:
    def __init__(self, number, index, kind, pile, winner, loser, t_win, t_lose, dt_us):
        self.number = number
        self.index = index          # record index of the verdict that carries dt_us
        self.kind = kind            # late, accept (fits too) or tie
        self.pile = pile
        self.winner = winner
        self.loser = loser
        self.t_win = t_win
        self.t_lose = t_lose
        self.dt_us = dt_us
        self.outcome = kind         # for a tie: the loser's own verdict
        self.players = [None, None]  # (winner, loser) where known
        self.touches = [None, None]
        self.reads = [None, None]
        self.timeline_label = None
        self.reason = None          # a tie's reason, in words with the log's numbers


def find_races(replay, owners):
    """``{record index: Race}`` in time order, numbered from 1."""
    races = {}
    last = {}       # pile -> (t, card, record index) of its top card
    tie = None
    rules = replay.referee.rules if replay.referee is not None else None
    for i, (_line, t, kind, f) in enumerate(replay.records):
        if kind == "round_start":
            last = {}
            continue
        pile = f.get("pile")
        if kind == "tie":
            top = last.get(pile)
            race = Race(len(races) + 1, i, "tie", pile, f["winner"], f["card"], t - f["dt_us"], t, f["dt_us"])
            race.players[0] = owners.get(top[2]) if top is not None else None
            evidence = tie_evidence(replay.inputs or [], pile, f["card"], f["winner"], t, f["dt_us"],
                                    rules.relist_us if rules is not None else 60000)
            race.reason = tie_reason(f, rules, evidence)
            races[i] = tie = race
            continue
        if kind in ("late", "accept", "illegal") and tie is not None and tie.pile == pile and tie.loser == f["card"]:
            tie.outcome = kind
            tie.players[1] = owners.get(i)
            tie = None
        elif kind == "late" or (kind == "accept" and "dt_us" in f):
            top = last.get(pile)
            winner = f["top"] if kind == "late" else (top[1] if top is not None else "?")
            race = Race(len(races) + 1, i, kind, pile, winner, f["card"], t - f["dt_us"], t, f["dt_us"])
            race.players = [owners.get(top[2]) if top is not None else None, owners.get(i)]
            races[i] = race
        if kind in ("spit", "accept", "resync"):
            last[pile] = (t, f["card"], i)
    _attach_inputs(races.values(), replay.inputs or [], replay.referee)
    return races


def _attach_inputs(races, inputs, referee):
    """Each race's touch edges and reads from the log's input events."""
    if not inputs:
        return
    match_us = referee.rules.touch_match_us if referee is not None else 120000
    by_pile = {}
    for ev in inputs:
        t, kind, a, b = ev[0], ev[1], ev[2], ev[3]
        if kind in (EV_TOUCH, EV_CARD):
            by_pile.setdefault(a, []).append((t, kind, format_card(b) if kind == EV_CARD else None))
    for race in races:
        events = by_pile.get(race.pile, [])
        for side, (card, landed) in enumerate(((race.winner, race.t_win), (race.loser, race.t_lose))):
            for t, kind, code in events:
                if kind == EV_TOUCH and t == landed:
                    race.touches[side] = t
                elif kind == EV_CARD and code == card and landed <= t <= landed + match_us:
                    race.reads[side] = t
                    break


def _who(player):
    return " (player %d)" % player if player is not None else ""


def race_html(race):
    """One race's detail block: a heading, the zoom SVG, the facts in words."""
    outcome = {"late": "LATE: %s fit only the old top; %s stays" % (race.loser, race.winner),
               "accept": "ACCEPT: %s fits %s too (a race, nobody lost)" % (race.loser, race.winner),
               "illegal": "ILLEGAL: %s fits neither" % race.loser}
    if race.kind == "tie":
        verdict = "TIE (%s): %s stays on top; then %s" % (
            race.reason, race.winner, outcome.get(race.outcome, race.outcome.upper()))
    else:
        verdict = outcome[race.kind]
    facts = ["winner %s%s landed %s, %s%s landed %s later" % (race.winner, _who(race.players[0]), fmt_time(race.t_win),
                                                                race.loser, _who(race.players[1]), fmt_dt(race.dt_us))]
    if race.touches[0] is None and race.touches[1] is None:
        facts.append("no touch sensor edges in the log: landing times are the reads' own times")
    for side, card in enumerate((race.winner, race.loser)):
        if race.reads[side] is not None:
            base = race.touches[side] if race.touches[side] is not None else race.reads[side]
            facts.append("%s read %s after its landing" % (card, fmt_dt(race.reads[side] - base)))
    facts.append("verdict: " + verdict)
    return ('<div class="race" id="race-%d"><h4>Race %d &#183; pile %d &#183; %s &#183; &#916;t %s</h4>%s'
            '<ul>%s</ul></div>' % (race.number, race.number, race.pile, fmt_time(race.t_win),
                                   escape(fmt_dt(race.dt_us)), zoom_svg(race),
                                   "".join("<li>%s</li>" % escape(s) for s in facts)))


def zoom_svg(race):
    """The race on a microsecond axis: left, the two touch edges ``dt_us`` apart; right, the reads."""
    w = ZOOM_W
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="zoom" width="%d" height="96" viewBox="0 0 %d 96">'
           % (w, w)]
    # Panel 1: the landings, dt apart, on a us axis padded by half of dt each side.
    half = w // 2 - 30
    pad = max(race.dt_us // 2, 1)
    lo, hi = race.t_win - pad, race.t_lose + pad

    def x1(t):
        return ZOOM_LEFT + (t - lo) * (half - ZOOM_LEFT) / float(hi - lo)
    out.append('<text x="%d" y="11" font-size="10" fill="#5b6475">landings (touch edges), ms after the first</text>' % ZOOM_LEFT)
    out.append('<line x1="%d" y1="62" x2="%d" y2="62" stroke="#8a93a3"/>' % (ZOOM_LEFT, half))
    for t in (race.t_win, race.t_lose):
        out.append('<text x="%.1f" y="78" font-size="9" fill="#5b6475" text-anchor="%s">+%s</text>'
                   % (x1(t), "start" if t == race.t_win else "end", escape(fmt_dt(t - race.t_win))))
    for side, (card, t, colour) in enumerate(((race.winner, race.t_win, "#2e9d4a"),
                                              (race.loser, race.t_lose, _colour(race)))):
        x = x1(t)
        edge = "touch" if race.touches[side] is not None else "read"
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="62" stroke="%s" stroke-width="2.5"/>' % (
            x, 24 if side == 0 else 38, x, colour))
        out.append('<text x="%.1f" y="%d" font-size="10" fill="%s" text-anchor="middle">%s %s</text>' % (
            x, 21 if side == 0 else 35, colour, edge, escape(card)))
    out.append('<text x="%.1f" y="92" font-size="10" fill="#1d2330" text-anchor="middle">&#916;t = %s</text>'
               % ((x1(race.t_win) + x1(race.t_lose)) / 2, escape(fmt_dt(race.dt_us))))
    # Panel 2: when each card was read, after the first landing.
    reads = [(card, t) for card, t in zip((race.winner, race.loser), race.reads) if t is not None]
    left = half + 40
    out.append('<text x="%d" y="11" font-size="10" fill="#5b6475">NFC reads after the first landing</text>' % left)
    if reads:
        end = max(t for _c, t in reads)
        span = max(end - race.t_win, 1000)

        def x2(t):
            return left + (t - race.t_win) * (w - 30 - left) / float(span)
        out.append('<line x1="%d" y1="62" x2="%d" y2="62" stroke="#8a93a3"/>' % (left, w - 30))
        out.append('<text x="%d" y="78" font-size="9" fill="#5b6475">0</text>' % left)
        out.append('<text x="%d" y="78" font-size="9" fill="#5b6475" text-anchor="end">+%s</text>'
                   % (w - 30, escape(fmt_dt(span))))
        for k, (card, t) in enumerate(reads):
            x = x2(t)
            out.append('<path d="M%.1f %dl5 5l-5 5l-5 -5z" fill="#475569"/>' % (x, 52))
            out.append('<text x="%.1f" y="%d" font-size="10" fill="#334155" text-anchor="%s">%s +%s</text>'
                       % (x, 24 + 14 * k, "end" if x > w - 90 else "middle", escape(card),
                          escape(fmt_dt(t - race.t_win))))
    else:
        out.append('<text x="%d" y="40" font-size="10" fill="#5b6475">(the reads are not in this log)</text>' % left)
    out.append("</svg>")
    return "\n".join(out)


def _colour(race):
    return {"late": "#f08c00", "tie": "#7b2cbf"}.get(race.kind, "#2e9d4a")
