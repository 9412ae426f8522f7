"""The replay page as a game review: key moments, the questions and their answers, and the play
by play stepper (the table at each verdict: each pile's top card and size, the cards each player
has left where the log tells, who played).

The stepper's steps are computed here, in Python, from the re-judged verdicts and embedded in the
page as JSON; a small inline script shows one at a time (left/right arrow keys, or the buttons
for taps).  Without scripts the page still shows the first step and everything else.
"""

import json
from html import escape

from spit.rules import MODE_OWN_DECK

from host_tools.replay.text import describe, fmt_time, plural, tie_outcome
from host_tools.replay.facts import NOT_KNOWN, tie_reason, tie_evidence, fmt_dt

PLAY_KINDS = ("spit", "accept", "resync", "undo")


def steps(replay, owners, news, races=None):
    """One step per verdict: ``{"t", "text", "tops", "sizes", "left", "who", "round"}``.

    ``tops``/``sizes``: each pile after the verdict; ``left``: each player's cards, from the
    round's start count where the log can follow it (own deck: every card names its player; a
    round's start) or None; ``who``: who played this verdict's card (None: not named)."""
    n = replay.npiles
    rules = replay.referee.rules if replay.referee is not None else None
    own = rules is not None and rules.mode == MODE_OWN_DECK
    tops, sizes = [None] * n, [0] * n
    left = [None, None]
    out = []
    rnd = 0
    tie = None
    for i, (_line, t, kind, f) in enumerate(replay.records):
        pile = f.get("pile", -1)
        on_table = isinstance(pile, int) and 0 <= pile < n
        before = tops[pile] if on_table else None
        who = owners.get(i, f.get("player") if kind in ("spit", "accept") else None)
        if kind == "round_start":
            rnd = f["round"]
            tops, sizes = [None] * n, [0] * n
            left = [f["cards0"], f["cards1"]]
        elif kind in ("spit", "accept") and on_table:
            tops[pile] = f["card"]
            sizes[pile] += 1
            if own or kind == "spit":
                if who in (0, 1) and left[who] is not None:
                    left[who] -= 1
            elif who is None:
                left = [None, None]   # a card of the tableau nobody is named for: counts unknown
        elif kind == "resync" and on_table:
            tops[pile] = f["card"]
        elif kind == "undo" and on_table:
            tops[pile] = f.get("top")
            sizes[pile] = max(0, sizes[pile] - 1)
        text = describe(kind, f, rules)
        if tie is not None and tie == (pile, f.get("card")) and kind in ("accept", "late", "illegal"):
            text = tie_outcome(kind, f, before)   # the card the TIE step showed: no second LATE
        tie = (pile, f["card"]) if kind == "tie" else None
        if kind == "tie" and rules is not None:
            ev = tie_evidence(replay.inputs or [], pile, f["card"], f["winner"], t, f["dt_us"], rules.relist_us)
            text = describe(kind, f, rules).replace(tie_reason(f, rules), tie_reason(f, rules, ev))
        for _at, line in news.get(i, ()):
            text += " \u2014 " + line
        race = (races or {}).get(i)
        out.append({"race": race.number if race is not None else None, "t": fmt_time(t), "text": text, "tops": list(tops), "sizes": list(sizes),
                    "left": list(left), "who": who if kind in ("spit", "accept", "illegal", "late", "early", "tie")
                    else f.get("player"), "round": rnd, "kind": kind})
    return out


STEPPER_JS = r"""
(function(){
var S=JSON.parse(document.getElementById('steps-data').textContent),i=0;
var box=document.getElementById('stepper');
function who(p){return p===null||p===undefined?'not named in the log':'player '+p;}
function show(k){
  if(!S.length)return; i=Math.max(0,Math.min(S.length-1,k)); var s=S[i];
  box.querySelector('.step-no').textContent=(i+1)+' / '+S.length;
  box.querySelector('.step-time').textContent=s.t+' \u00b7 round '+s.round;
  box.querySelector('.step-text').textContent=s.text;
  box.querySelector('.step-who').textContent=who(s.who);
  var z=box.querySelector('.step-race');z.style.display=s.race?'':'none';
  if(s.race){z.href='#race-'+s.race;z.textContent='open race '+s.race+' (its \u00b5s zoom)';}
  var piles=box.querySelectorAll('.pile');
  for(var p=0;p<piles.length;p++){
    piles[p].querySelector('.top').textContent=s.tops[p]||'--';
    piles[p].querySelector('.size').textContent=s.sizes[p]+' card'+(s.sizes[p]==1?'':'s');}
  for(var q=0;q<2;q++)box.querySelector('.left'+q).textContent=s.left[q]===null?'not known from the log':s.left[q];
  box.setAttribute('data-step',i);
}
document.addEventListener('keydown',function(e){
  if(e.key==='ArrowRight'){show(i+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'){show(i-1);e.preventDefault();}});
box.querySelector('.next').addEventListener('click',function(){show(i+1);});
box.querySelector('.prev').addEventListener('click',function(){show(i-1);});
window.spitStep=show;
show(0);
})();
"""


def stepper_html(data, npiles):
    first = data[0] if data else {"t": "", "text": "(no verdicts)", "tops": [None] * npiles, "sizes": [0] * npiles,
                                  "left": [None, None], "who": None, "round": 0}
    piles = "".join('<div class="pile" data-pile="%d"><div class="pname">pile %d</div><div class="top">%s</div>'
                    '<div class="size">%d cards</div></div>' % (p, p, escape(first["tops"][p] or "--"),
                                                                first["sizes"][p]) for p in range(npiles))
    left = "".join('<span>player %d: <b class="left%d">%s</b></span> ' % (
        q, q, escape(str(first["left"][q]) if first["left"][q] is not None else NOT_KNOWN)) for q in (0, 1))
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return ('<div id="stepper" class="stepper" data-step="0">'
            '<div class="step-head"><button class="prev" aria-label="previous play">&#9664; prev</button>'
            '<span class="step-no">1 / %d</span><button class="next" aria-label="next play">next &#9654;</button></div>'
            '<p class="step-time">%s</p><p class="step-text">%s</p>'
            '<p>played by: <b class="step-who">%s</b> <a class="step-race" style="display:none" href="#">race</a></p>'
            '<div class="piles">%s</div><p class="left">cards left: %s</p>'
            '<p class="hint">&#8592; / &#8594; keys or the buttons step play by play.</p></div>'
            '<script type="application/json" id="steps-data">%s</script><script>%s</script>'
            % (len(data), escape(first["t"]), escape(first["text"]),
               escape("not named in the log" if first["who"] is None else "player %d" % first["who"]),
               piles, left, payload, STEPPER_JS))


def key_moments(replay, story, races):
    """The closest race, the longest stall, the round that decided the game: ``[(title, html)]``."""
    out = []
    if races:
        close = min(races.values(), key=lambda r: r.dt_us)
        out.append(("Closest race", '<a href="#race-%d">race %d</a> on pile %d at %s: %s vs %s, %s apart (%s)'
                    % (close.number, close.number, close.pile, fmt_time(close.t_win), escape(close.winner),
                       escape(close.loser), escape(fmt_dt(close.dt_us)), escape(close.kind))))
    stall = None
    last = None
    for _line, t, kind, _f in replay.records:
        if kind in ("round_start", "round_end", "game_over"):
            last = None
            continue
        if kind in ("spit", "accept", "resync"):
            if last is not None and (stall is None or t - last > stall[0]):
                stall = (t - last, last, t)
            last = t
    if stall is not None:
        out.append(("Longest stall", "%s with no card played, from %s to %s" % (
            fmt_dt(stall[0]), fmt_time(stall[1]), fmt_time(stall[2]))))
    if replay.game is not None:
        winner, reason = replay.game
        decided = max((n for n, rf in story.rounds.items() if rf.reason is not None), default=None)
        words = story.game[3] if story.game is not None and story.game[3] else reason.replace("_", " ")
        who = "a draw" if winner < 0 else "player %d wins" % winner
        out.append(("Deciding round", "round %s: %s (%s)" % (decided if decided is not None else "?", who,
                                                             escape(words))))
    return out


def questions_html(story):
    if not story.questions:
        return ""
    rows = "".join('<li class="question"><span class="q-time">%s, round %d</span> <span class="q-text">%s</span>'
                   ' &#8594; <span class="q-answer">%s</span></li>'
                   % (fmt_time(q.t), q.round, escape(q.words()), escape(q.answer_words())) for q in story.questions)
    return '<h2>The referee\'s questions</h2><ul class="questions">%s</ul>' % rows


def ties_html(replay, races):
    rules = replay.referee.rules if replay.referee is not None else None
    items = []
    for i, (_line, t, kind, f) in enumerate(replay.records):
        if kind != "tie":
            continue
        ev = tie_evidence(replay.inputs or [], f["pile"], f["card"], f["winner"], t, f["dt_us"],
                          rules.relist_us if rules is not None else 60000)
        race = races.get(i)
        link = ' (<a href="#race-%d">zoom</a>)' % race.number if race is not None else ""
        items.append('<li class="tie" data-dt-us="%d" data-window-us="%s">%s pile %d: %s vs %s &#8212; '
                     '<span class="tie-reason">%s</span>%s</li>'
                     % (f["dt_us"], rules.tie_window_us if rules is not None else "", fmt_time(t), f["pile"],
                        escape(f["card"]), escape(f["winner"]), escape(tie_reason(f, rules, ev)), link))
    if not items:
        return ""
    return '<h2>%s</h2><ul class="ties">%s</ul>' % (plural(len(items), "tie").capitalize(), "".join(items))
