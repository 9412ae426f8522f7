"""The replay tells the truth (issue 30): one test per item, on logs written for it from
docs/log-format.md and ../shared/RULES.md (not from engine output).

- round winners wherever the log can tell: the answer to ``went_out``, a STUCK press during the
  slaps, a round end that names the player (``slap=out_only``), a blocked round's stock split;
- every question in its own words with its answer, in the text, the page and ``spit stats``;
- every tie with its real reason and the log's numbers (the race rule vs the tie window), and no
  second LATE for the card the TIE line shows;
- "not known" instead of zeros; the card counts that decide a blocked game; device disagreements
  marked on the timeline; one legend entry per mark, no two marks alike; times in ms.
"""

import json
import os
import re

from support.cli import run  # (the CLI in-process: exit code, stdout, stderr)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def header(ruleset="classic", counts=None, **options):
    h = {"spitlog": 1, "ruleset": ruleset, "options": dict({"countdown_ms": 1000}, **options)}
    if counts:
        h["counts"] = counts
    return json.dumps(h)


def ev(t, kind, **fields):
    return json.dumps(dict({"t": t, "ev": kind}, **fields))


def twenty_plays():
    """Spit cards AH and AD at 1.1 s (after the 1 s countdown), then 20 cards up the ranks on pile 0,
    300 ms apart: more than the 15 stock cards each player has (R-SETUP-2), so either may be out."""
    lines = [ev(1100000, "card", pile=0, card="AH"), ev(1200000, "card", pile=1, card="AD")]
    t = 1400000
    for i in range(20):
        lines.append(ev(t, "card", pile=0, card=RANKS[(i + 1) % 13] + ("H" if i < 12 else "S")))
        t += 300000
    return lines, t


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def went_out_log(tmp_path):
    """Both slap; the first slapper (player 1) is asked and answers 0: "my opponent went out"."""
    plays, t = twenty_plays()
    return write(tmp_path, "went_out.spitlog", [header()] + plays + [
        ev(t, "slap", player=1, pile=0), ev(t + 200000, "slap", player=0, pile=1),
        ev(t + 2000000, "answer", player=1, value=0), ev(t + 2500000, "tick")])


def stuck_log(tmp_path):
    """Player 1 presses STUCK during the slaps: "I went out" (no question)."""
    plays, t = twenty_plays()
    return write(tmp_path, "stuck.spitlog", [header()] + plays + [
        ev(t, "slap", player=0, pile=0), ev(t + 100000, "stuck", player=1), ev(t + 200000, "slap", player=1, pile=1),
        ev(t + 2500000, "tick")])


def out_only_log(tmp_path):
    """Only the player who went out slaps (R-ROUND-3, 001): the round's end names them."""
    plays, t = twenty_plays()
    return write(tmp_path, "out_only.spitlog", [header(slap="out_only")] + plays + [
        ev(t, "slap", player=1, pile=0), ev(t + 2500000, "tick")])


def blocked_log(tmp_path):
    """16 cards each: 15 in the stocks and one spit card (R-SETUP-2), so after the first spit cards
    nobody has any left; both stuck: blocked (R-ROUND-1), the stock split is asked, player 0 says 4."""
    return write(tmp_path, "blocked.spitlog", [header(counts=[16, 16]),
        ev(1100000, "card", pile=0, card="AH"), ev(1200000, "card", pile=1, card="AD"),
        ev(1500000, "card", pile=0, card="2H"), ev(2000000, "stuck", player=0), ev(2100000, "stuck", player=1),
        ev(3000000, "answer", player=0, value=4), ev(3500000, "slap", player=1, pile=0),
        ev(3600000, "slap", player=0, pile=1), ev(6000000, "tick")])


def own_deck_blocked_log(tmp_path):
    """Own deck (R-OWN-1), 5 cards each: a row of 4 and one spit card.  Player 0 plays one more;
    both stuck with empty decks: fewer cards left wins (player 0 has 3, player 1 has 4)."""
    return write(tmp_path, "own_blocked.spitlog", [header("own_deck", counts=[5, 5]),
        ev(1100000, "card", pile=0, card="5H", player=0), ev(1200000, "card", pile=1, card="9D", player=1),
        ev(1600000, "card", pile=0, card="6H", player=0), ev(2500000, "stuck", player=0),
        ev(2600000, "stuck", player=1), ev(4000000, "tick")])


def race_rule_tie_log(tmp_path):
    """Two touches 16.5 ms apart on pile 0, then the reads: the first read comes after the second
    touch, so both cards were on the pile when the tag answered: the race rule ties them, although
    16.5 ms is far more than the 3 ms tie window."""
    return write(tmp_path, "tie.spitlog", [header(tie_window_us=3000),
        ev(1100000, "card", pile=0, card="4H"), ev(1200000, "card", pile=1, card="9D"),
        ev(2000000, "touch", pile=0), ev(2016500, "touch", pile=0), ev(2020000, "card", pile=0, card="5C"),
        ev(2030000, "card", pile=0, card="5H"), ev(3000000, "card", pile=1, card="10D"), ev(3500000, "tick")])


def page(tmp_path, log):
    out = str(tmp_path / (os.path.basename(log) + ".html"))
    code, _stdout, err = run(["replay", "--quiet", "--html", out, log])
    assert code in (0, 3), err
    with open(out, encoding="utf-8") as f:
        return f.read()


# --- round winners ---

def test_went_out_answer_names_the_round_winner_everywhere(tmp_path):
    log = went_out_log(tmp_path)
    code, out, err = run(["replay", log])
    assert code == 0, err
    assert "QUESTION  player 1: did you go out? (1 = I went out, 0 = my opponent did)" in out
    assert re.search(r"0:09\.400  ANSWER  0: player 0 went out", out)
    assert "ROUND 1 WON BY player 0  (player 1 answered the referee's question)" in out
    assert "round winners: 1 player 0" in out
    html = page(tmp_path, log)
    assert re.search(r'won by <b class="winner">player 0</b>', html)
    code, out, _ = run(["stats", log])
    row = {line[:30].strip(): line[30:].split() for line in out.splitlines()[2:]}
    assert row["rounds won"][:2] == ["1", "0"]


def test_stuck_during_the_slaps_names_the_round_winner(tmp_path):
    log = stuck_log(tmp_path)
    _code, out, _ = run(["replay", log])
    assert "ROUND 1 WON BY player 1  (player 1 pressed STUCK during the slaps: I went out)" in out
    assert "QUESTION" not in out
    assert re.search(r'won by <b class="winner">player 1</b>', page(tmp_path, log))


def test_a_round_end_that_names_the_player(tmp_path):
    log = out_only_log(tmp_path)
    _code, out, _ = run(["replay", log])
    assert "ROUND 1 ENDS  player 1 went out" in out and "round winners: 1 player 1" in out


def test_blocked_round_winner_from_the_stock_split_with_the_counts(tmp_path):
    log = blocked_log(tmp_path)
    _code, out, _ = run(["replay", log])
    question = re.search(r"QUESTION  player 0: how many stock cards do you have left\? \(0\.\.(\d+); "
                         r"player 1 has the rest\)", out)
    assert question, out
    rest = int(question.group(1)) - 4
    assert re.search(r"0:03\.000  ANSWER  4: player 0 has 4 stock cards left, player 1 has %d" % rest, out)
    assert "ROUND 1 WON BY player 0  (blocked: fewer stock cards left wins the round (R-ROUND-2))" in out
    html = page(tmp_path, log)
    assert "(player 0 4, player 1 %d)" % rest in html


def test_the_card_counts_that_decide_a_blocked_game(tmp_path):
    log = own_deck_blocked_log(tmp_path)
    _code, out, _ = run(["replay", log])
    assert "GAME OVER  player 0 wins (nobody can play (blocked))" in out
    assert "DECIDED BY  cards not yet played: player 0 3, player 1 4; fewer wins: player 0 wins" in out
    assert "decided by: cards not yet played: player 0 3, player 1 4" in page(tmp_path, log)


def test_a_round_whose_winner_the_log_does_not_tell(tmp_path):
    """Both slap and nobody answers: the winner is "not known from the log", not guessed."""
    plays, t = twenty_plays()
    log = write(tmp_path, "open.spitlog", [header()] + plays + [
        ev(t, "slap", player=1, pile=0), ev(t + 200000, "slap", player=0, pile=1), ev(t + 2500000, "tick")])
    _code, out, _ = run(["replay", log])
    assert "round winners: 1 not known from the log" in out
    assert "no answer in the log" in out
    code, out, _ = run(["stats", log])
    assert "+?: 1 round ended with a winner not known from the log" in out


# --- questions ---

def test_every_question_in_its_own_words_with_its_answer_on_the_page(tmp_path):
    html = page(tmp_path, went_out_log(tmp_path))
    found = re.findall(r'<span class="q-text">(.*?)</span> &#8594; <span class="q-answer">(.*?)</span>', html)
    assert found == [("player 1: did you go out? (1 = I went out, 0 = my opponent did)", "0: player 0 went out")]
    assert "P0&#x27;s stock cards?" not in html and "stock cards?" not in html
    # on the timeline too, with the answer
    assert "question player 1: did you go out? (1 = I went out, 0 = my opponent did) \u2192 answer 0: player 0 " \
           "went out" in html


def test_a_refused_answer_is_not_taken(tmp_path):
    """An answer the cards seen rule out... here one out of range (2) is bad_answer; the next counts."""
    plays, t = twenty_plays()
    log = write(tmp_path, "refused.spitlog", [header()] + plays + [
        ev(t, "slap", player=1, pile=0), ev(t + 200000, "slap", player=0, pile=1),
        ev(t + 1000000, "answer", player=1, value=2), ev(t + 2000000, "answer", player=1, value=1),
        ev(t + 2500000, "tick")])
    _code, out, _ = run(["replay", log])
    assert "ANSWER  1: player 1 went out" in out and "ROUND 1 WON BY player 1" in out


# --- ties ---

def test_a_race_rule_tie_says_so_with_the_numbers_and_no_second_late(tmp_path):
    log = race_rule_tie_log(tmp_path)
    _code, out, _ = run(["replay", log])
    tie = next(line for line in out.splitlines() if "TIE 5H vs 5C" in line)
    assert "the race rule: the reads could not order the landings (16.5 ms apart, more than the 3.0 ms tie " \
           "window)" in tie
    assert "closer than the tie window" not in out
    assert "LATE 5H" not in out
    assert "-> 5H fit only the card before 5C: 5H takes it back" in out
    html = page(tmp_path, log)
    reason = re.search(r'<li class="tie" data-dt-us="16500" data-window-us="3000">.*?'
                       r'<span class="tie-reason">(.*?)</span>', html).group(1)
    assert reason.startswith("the race rule") and "16.5 ms" in reason
    assert "5C&#x27;s read came 3.5 ms after 5H&#x27;s touch" in reason
    assert "closer than the tie window" not in html


def test_a_tie_inside_the_window_says_the_window(tmp_path):
    log = write(tmp_path, "window.spitlog", [header(tie_window_us=3000),
        ev(1100000, "card", pile=0, card="4H"), ev(1200000, "card", pile=1, card="9D"),
        ev(2000000, "touch", pile=0), ev(2000400, "touch", pile=0), ev(2010000, "card", pile=0, card="5C"),
        ev(2030000, "card", pile=0, card="6H"), ev(3500000, "tick")])
    _code, out, _ = run(["replay", log])
    assert "TIE 6H vs 5C  (closer than the tie window: 0.400 ms apart, the window is 3.0 ms" in out
    assert "-> 6H fits 5C too: it goes on top" in out and "ACCEPT 6H" not in out


# --- not known, disagreements, legend, ms ---

def test_stats_say_not_known_instead_of_zeros(tmp_path):
    code, out, _ = run(["stats", went_out_log(tmp_path)])
    assert code == 0
    row = {line[:30].strip(): line[30:].strip() for line in out.splitlines()[2:]}
    for name in ("cards played", "races won / lost", "ties", "illegal plays", "reaction median"):
        assert row[name].startswith("not known    not known"), name
    assert "0 / 0" not in out


def test_players_panel_draws_no_zeros_the_log_does_not_know(tmp_path):
    html = page(tmp_path, went_out_log(tmp_path))
    players = html[html.index("<h2>Players</h2>"):]
    assert ">races won<" not in players and ">races lost<" not in players and "reaction times (" not in players
    assert "not known from the log" in players


def test_a_device_disagreement_is_marked_where_it_happened(tmp_path):
    plays, t = twenty_plays()
    lines = [header(), '{"t": 0, "verdict": "round_start", "round": 1, "cards0": 26, "cards1": 26}',
             '{"t": 0, "verdict": "countdown", "ms": 1000, "round": 1}'] + plays[:2] + [
        '{"t": 1100000, "verdict": "spit", "pile": 0, "card": "AH", "player": 1}',   # the spitter is player 0
        '{"t": 1200000, "verdict": "spit", "pile": 1, "card": "AD", "player": 1}'] + plays[2:5]
    html = page(tmp_path, write(tmp_path, "mismatch.spitlog", lines))
    mark = re.search(r'<g class="mark mark-mismatch" data-label="(L\d+)">.*?<title>(.*?)</title>', html, re.S)
    assert mark and "MISMATCH line" in mark.group(2)
    assert re.search(r'<li>0:01\.100  MISMATCH line 6: device said spit card=AH pile=0 player=1', html), \
        "listed with its time, under its round"


def test_legend_has_one_entry_per_mark_and_no_two_marks_alike(tmp_path):
    from host_tools.replay.page_timeline import mark_svg
    from host_tools.replay.page import LEGEND
    html = page(tmp_path, os.path.join(ROOT, "examples", "sample.spitlog"))
    kinds = [k for k, _w in LEGEND]
    assert len(kinds) == len(set(kinds))
    for kind in re.findall(r'<g class="mark mark-(\w+)"', html):
        assert kind in kinds, "%s drawn but not in the legend" % kind
    shapes = [re.sub(r"<title>.*?</title>", "", mark_svg(k, 8, 9)) for k in kinds]
    assert len(set(shapes)) == len(shapes)
    assert mark_svg("illegal", 8, 9) != mark_svg("error", 8, 9)
    assert "hover" not in html[html.index('<div class="legend">'):].split("</div>")[0]


def test_race_zoom_axis_in_ms(tmp_path):
    html = page(tmp_path, os.path.join(ROOT, "examples", "sample.spitlog"))
    zooms = re.findall(r'<svg [^>]*class="zoom".*?</svg>', html, re.S)
    assert zooms
    for z in zooms:
        ticks = re.findall(r'text-anchor="(?:start|end|middle)">\+([^<]*)</text>', z)
        assert ticks and all(tick.endswith(" ms") for tick in ticks), ticks
        assert "&#181;s" not in z and "\u00b5s" not in z


def test_page_has_a_viewport_and_the_rounds_first(tmp_path):
    html = page(tmp_path, os.path.join(ROOT, "examples", "sample.spitlog"))
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert html.index("<h2>Rounds</h2>") < html.index("<h2>Key moments</h2>") < html.index("<h2>Timeline</h2>")
    for moment in ("Closest race", "Longest stall", "Deciding round"):
        assert "<b>%s</b>" % moment in html


def test_the_card_counts_that_decide_a_timed_game(tmp_path):
    """R-GAME-6: the 5 s timer runs out in play; the referee asks the stock split (player 0: 3) and
    fewer stock and spit cards wins.  20 cards each: 15 in the stocks, 5 spit cards, one flipped."""
    log = write(tmp_path, "timer.spitlog", [header(counts=[20, 20], timer_ms=5000),
        ev(1100000, "card", pile=0, card="AH"), ev(1200000, "card", pile=1, card="AD"),
        ev(1500000, "card", pile=0, card="2H"), ev(6000000, "tick"), ev(7000000, "answer", player=0, value=3),
        ev(8000000, "tick")])
    _code, out, _ = run(["replay", log])
    lines = out.splitlines()
    answer = next(i for i, line in enumerate(lines) if "ANSWER  3: player 0 has 3 stock cards left" in line)
    assert "GAME OVER  player 0 wins (the timer ran out)" in lines[answer + 1]
    rest = int(re.search(r"player 1 has (\d+)", lines[answer]).group(1))
    assert "DECIDED BY  stock and spit cards: player 0 %d, player 1 %d; fewer wins: player 0 wins" % (
        3 + 4, rest + 4) in lines[answer + 2]
    assert "round winners: 1 player 0" in out


def test_a_tie_of_one_activation_says_so(tmp_path):
    """Two touch-less reads with the same time: the reader found both tags in one activation (the race
    rule), whatever the tie window says."""
    log = write(tmp_path, "one.spitlog", [header(tie_window_us=3000),
        ev(1100000, "card", pile=0, card="4H"), ev(1200000, "card", pile=1, card="9D"),
        ev(2000000, "card", pile=0, card="5C"), ev(2000000, "card", pile=0, card="5H"), ev(3500000, "tick")])
    _code, out, _ = run(["replay", log])
    tie = next(line for line in out.splitlines() if "TIE 5H vs 5C" in line)
    assert "the race rule: both cards were read in one activation of the reader" in tie
    assert "closer than the tie window" not in tie


def test_reads_with_evidence_one_activation_is_the_reason_not_the_window(tmp_path):
    """Reads with ``act`` (docs/log-format.md, read evidence): two tags of one activation (the same
    read time) are a tie by the race rule although their touches are 0.4 ms apart, under the 3 ms
    window; two reads of later activations 0.8 ms apart are ordered: no tie, no window."""
    log = write(tmp_path, "act.spitlog", [header(tie_window_us=3000),
        ev(1100000, "card", pile=0, card="4H", act=[500, 1]), ev(1200000, "card", pile=1, card="9D", act=[500, 1]),
        ev(2000000, "touch", pile=0), ev(2000400, "touch", pile=0),
        ev(2010000, "card", pile=0, card="5C", act=[9000, 2]), ev(2010000, "card", pile=0, card="5H", act=[9000, 2]),
        ev(3000000, "touch", pile=0), ev(3000800, "touch", pile=0),
        ev(3008000, "card", pile=0, card="6C", act=[7000, 1]), ev(3014000, "card", pile=0, card="7C", act=[5000, 1]),
        ev(3500000, "tick")])
    _code, out, _ = run(["replay", log])
    ties = [line for line in out.splitlines() if " TIE " in line]
    assert len(ties) == 1 and "TIE 5H vs 5C  (the race rule: both cards were read in one activation" in ties[0]
    assert "closer than the tie window" not in out
    html = page(tmp_path, log)
    reason = re.search(r'<span class="tie-reason">(.*?)</span>', html).group(1)
    assert reason.startswith("the race rule: both cards were read in one activation") and "0.400 ms" in reason
