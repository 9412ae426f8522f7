"""What the log can tell beyond each verdict: who won each round and how we know, the referee's
questions with their answers, why each tie is a tie, the card counts that decided a blocked or
timed game.  Shared by the text timeline, the page and ``spit stats`` so they tell one story.

:class:`Story` is fed like the timeline, one thing at a time: ``input(t, kind, a, b, c)`` for the
log's input events (``spit.intake`` EV_* codes, as the log reader hands them on) and
``verdict(t, kind, fields)`` for each verdict; ``verdict`` returns news it settled, as
``(t, text)`` (an answer at its own time and what it settled).  Nothing is guessed: a fact the log does not give stays None
and is shown as "not known from the log".

Where the round winner comes from (docs/log-format.md, "Who went out"):

- the ``round_end`` verdict names the player (only one could be out, or one slapper could not be);
- a STUCK press during the slaps while who went out is not known ("I went out");
- the answer to the ``went_out`` question (1: the asked player went out, 0: the opponent did);
- a blocked round (R-ROUND-2): the answer to ``stock_left`` splits the stock cards, fewer wins;
- a game that ends in the round (own deck, Speed): the game's winner.
"""

from spit.intake import EV_ANSWER, EV_STUCK, EV_CARD, EV_TOUCH
from spit.cards import format_card
from spit.rules import MODE_OWN_DECK, MODE_SPEED

NOT_KNOWN = "not known from the log"
RECENT = 16          # input events kept while a question or the slaps are open
RECENT_READS = 32    # touches and reads kept per pile (a tie's evidence is a few landings back)


def fmt_ms(us):
    return "%.1f ms" % (us / 1000.0)


def fmt_dt(us):
    """A delta t in milliseconds (three decimals below 1 ms, so 400 us reads 0.400 ms)."""
    return "%.3f ms" % (us / 1000.0) if us < 1000 else "%.1f ms" % (us / 1000.0)


class Question:
    __slots__ = ("t", "ask", "player", "max", "round", "answer", "answer_t", "refused")

    def __init__(self, t, ask, player, top, rnd):
        self.t = t
        self.ask = ask
        self.player = player
        self.max = top
        self.round = rnd
        self.answer = None       # the accepted answer's value
        self.answer_t = None
        self.refused = []        # values the referee refused (bad_answer)

    def words(self):
        """The question in the referee's own words (docs/log-format.md, Questions and answers)."""
        if self.ask == "went_out":
            return "player %d: did you go out? (1 = I went out, 0 = my opponent did)" % self.player
        return "player %d: how many stock cards do you have left? (0..%d; player %d has the rest)" % (
            self.player, self.max, 1 - self.player)

    def answer_words(self):
        if self.answer is None:
            return "no answer in the log" + (" (refused: %s)" % ", ".join(map(str, self.refused))
                                             if self.refused else "")
        if self.ask == "went_out":
            out = self.player if self.answer == 1 else 1 - self.player
            return "%d: player %d went out" % (self.answer, out)
        return "%d: player %d has %d stock cards left, player %d has %d" % (
            self.answer, self.player, self.answer, 1 - self.player, self.max - self.answer)


class RoundFacts:
    __slots__ = ("number", "reason", "winner", "how", "counts", "t_end")

    def __init__(self, number):
        self.number = number
        self.reason = None
        self.winner = None       # None: not known (yet); -1: nobody (equal counts)
        self.how = None          # how the log tells the winner
        self.counts = None       # (p0, p1) cards that decided it (blocked round)
        self.t_end = None


class Story:
    """Facts across verdicts; see the module doc."""

    def __init__(self, referee=None):
        self.referee = referee
        self.rounds = {}         # number -> RoundFacts
        self.questions = []
        self.game = None         # (winner, reason, counts or None, words)
        self.round = 0
        self._open_q = None
        self._slaps_from = None  # t of a round_end that did not name who went out
        self._answers = []       # (t, player, value) recent
        self._stucks = []        # (t, player) recent
        self._refused_stuck = set()
        self._pile_inputs = {}   # pile -> its recent touches and reads (a tie's evidence)

    def recent_inputs(self, pile):
        """The pile's recent touch and card input events (for :func:`tie_evidence`)."""
        return self._pile_inputs.get(pile, [])

    def set_table(self, referee):
        self.referee = referee

    def _round(self):
        r = self.rounds.get(self.round)
        if r is None:
            r = self.rounds[self.round] = RoundFacts(self.round)
        return r

    def input(self, t, kind, a, b, c=None, *_more):
        if kind in (EV_TOUCH, EV_CARD):
            recent = self._pile_inputs.setdefault(a, [])
            recent.append((t, kind, a, b, c))
            del recent[:-RECENT_READS]
        elif kind == EV_ANSWER:
            self._answers.append((t, a, b))
            del self._answers[:-RECENT]
        elif kind == EV_STUCK:
            self._stucks.append((t, a))
            del self._stucks[:-RECENT]

    def verdict(self, t, kind, f):
        """Take a verdict; returns lines of news it settles (may be empty)."""
        news = []
        if kind == "round_start":
            news += self._settle(t)
            self.round = f["round"]
            self._round()
        elif kind == "round_end":
            rf = self._round()
            rf.reason = f["reason"]
            rf.t_end = t
            if "player" in f:
                self._win(rf, f["player"], "the round's end names who went out")
            elif f["reason"] == "out":
                self._slaps_from = t
        elif kind == "question":
            q = Question(t, f["ask"], f["player"], f.get("max", 1), self.round)
            self.questions.append(q)
            self._open_q = q
        elif kind == "error" and f.get("reason") == "bad_answer" and self._open_q is not None:
            self._open_q.refused.append(f.get("value"))
            self._answers = [a for a in self._answers if not (a[0] == t and a[2] == f.get("value"))]
        elif kind == "error" and f.get("reason") == "slap_too_early" and "pile" not in f:
            self._refused_stuck.add((t, f.get("player")))
        elif kind in ("pile_won", "game_over"):
            news += self._settle(t)
            if kind == "game_over":
                news += self._game_over(t, f)
        return news

    def finish(self):
        """The log ended: settle what its last lines answered."""
        return self._settle(None)

    def _win(self, rf, player, how, counts=None):
        if rf.winner is None:
            rf.winner = player
            rf.how = how
            if counts is not None:
                rf.counts = counts

    def _settle(self, t):
        news = []
        q = self._open_q
        if q is not None:
            for at, player, value in self._answers:
                if at >= q.t and player == q.player and (t is None or at <= t) and value not in q.refused:
                    q.answer, q.answer_t = value, at
                    break
            if q.answer is not None or t is not None:
                self._open_q = None
            if q.answer is not None:
                rf = self.rounds.get(q.round) or self._round()
                news.append((q.answer_t, "ANSWER  %s" % q.answer_words()))
                if q.ask == "went_out":
                    self._win(rf, q.player if q.answer == 1 else 1 - q.player,
                              "player %d answered the referee's question" % q.player)
                    self._slaps_from = None
                elif rf.reason == "blocked":
                    s0 = q.answer if q.player == 0 else q.max - q.answer
                    s1 = q.max - s0
                    self._win(rf, 0 if s0 < s1 else 1 if s1 < s0 else -1,
                              "blocked: fewer stock cards left wins the round (R-ROUND-2)", (s0, s1))
                if rf.winner is not None:
                    news.append((q.answer_t, "ROUND %d WON BY %s  (%s)" % (rf.number, _who(rf.winner), rf.how)))
        if self._slaps_from is not None and t is not None and self._open_q is None:
            said = [(at, p) for at, p in self._stucks
                    if self._slaps_from <= at <= t and (at, p) not in self._refused_stuck]
            if said:
                rf = self._round()
                self._win(rf, said[0][1], "player %d pressed STUCK during the slaps: I went out" % said[0][1])
                news.append((said[0][0], "ROUND %d WON BY %s  (%s)" % (rf.number, _who(rf.winner), rf.how)))
                self._slaps_from = None
        return news

    def _game_over(self, _t, f):
        winner, reason = f["winner"], f["reason"]
        rf = self._round()
        q = self.questions[-1] if self.questions else None
        mid = q is not None and q.ask == "stock_left" and q.answer_t == _t and rf.reason == "timer"
        counts, words = deciding_counts(self.referee, reason, mid)
        if reason in ("out", "no_cards") and winner >= 0 and rf.reason is None:
            self._win(rf, winner, "the game's end")
        elif reason in ("blocked", "timer") and (rf.reason is None or rf.reason == reason):
            rf.reason = reason
            self._win(rf, winner, words or "fewer cards wins", counts)
        self.game = (winner, reason, counts, words)
        return [(_t, "DECIDED BY  %s" % words)] if words else []

    def winner_words(self, number):
        rf = self.rounds.get(number)
        if rf is not None and rf.reason is None:
            return "not finished"
        if rf is None or rf.winner is None:
            return NOT_KNOWN
        return _who(rf.winner)


def _who(p):
    return "nobody (a draw)" if p < 0 else "player %d" % p


def deciding_counts(referee, reason, mid_round=False):
    """``((p0, p1), words)``: the card counts that decided a game ended by ``blocked`` or ``timer``
    (fewer wins, R-GAME-6, R-OWN-1), read from the re-judging referee when the game is over; else
    ``(None, None)``.  ``mid_round``: the game ended on the answer to the round's ``stock_left``
    question (the timer ran out in play), not between rounds or after the piles were given out."""
    if referee is None or reason not in ("blocked", "timer"):
        return None, None
    mode = referee.rules.mode
    if mode == MODE_OWN_DECK:
        c = (referee.left[0], referee.left[1])
        what = "cards not yet played"
    elif mode == MODE_SPEED:
        if reason == "blocked":
            return None, "nobody can play and nothing is left to recycle: a draw"
        c = (referee.stock_left[0], referee.stock_left[1])
        what = "cards in hand and stock (answered)"
    elif not mid_round:
        c = (referee.cards[0], referee.cards[1])
        what = "cards for the next round"
    else:
        c = (referee.stock_left[0] + referee.spit_left[0], referee.stock_left[1] + referee.spit_left[1])
        what = "stock and spit cards"
    verdict = "player 0 wins" if c[0] < c[1] else "player 1 wins" if c[1] < c[0] else "a draw"
    return c, "%s: player 0 %d, player 1 %d; fewer wins: %s" % (what, c[0], c[1], verdict)


# --- ties ---

def tie_reason(f, rules, evidence=None):
    """Why a ``tie`` verdict is a tie, in words with the log's numbers.  ``rules``: the referee's
    rules (``tie_window_us``, ``relist_us``); ``evidence``: :func:`tie_evidence`'s sentence."""
    dt = f["dt_us"]
    window = getattr(rules, "tie_window_us", None)
    said = f.get("why") or f.get("cause")
    if said:   # a log that says itself why (a newer device)
        base = "%s (%s apart)" % (str(said).replace("_", " "), fmt_dt(dt))
    elif evidence and evidence.startswith(ONE_ACTIVATION):
        return "the race rule: %s (%s apart)" % (evidence, fmt_dt(dt))
    elif window is not None and dt < window:
        base = "closer than the tie window: %s apart, the window is %s" % (fmt_dt(dt), fmt_dt(window))
    else:
        base = "the race rule: the reads could not order the landings (%s apart%s)" % (
            fmt_dt(dt), ", more than the %s tie window" % fmt_dt(window) if window is not None else "")
    if evidence:
        base += "; " + evidence
    return base


ONE_ACTIVATION = "both cards were read in one activation of the reader"


def tie_evidence(inputs, pile, card, winner, t_card, dt_us, relist_us):
    """What in the log's input events made the reads unable to order the landings of ``winner``
    (landed ``dt_us`` before ``t_card``) and ``card`` on ``pile`` (docs/log-format.md, the race
    rule); None if nothing shows."""
    t_win = t_card - dt_us
    touches = [e[0] for e in inputs if e[1] == EV_TOUCH and e[2] == pile]
    reads = [(e[0], format_card(e[3])) for e in inputs if e[1] == EV_CARD and e[2] == pile]
    win_read = next((t for t, c in reads if c == winner and t >= t_win), None)
    card_read = next((t for t, c in reads if c == card and t >= t_card), None)
    if card_read is not None and card_read == win_read:
        return ONE_ACTIVATION + " (the same read time): it cannot tell which landed first"
    if t_card in touches and win_read is not None and win_read >= t_card:
        return ("%s's read came %s after %s's touch: both cards were on the pile when the tag answered"
                % (winner, fmt_dt(win_read - t_card), card))
    if card_read is not None and t_card not in touches and win_read is not None:
        if 0 < card_read - win_read <= relist_us:
            return ("%s had no touch of its own and was read %s after %s, within the %s relisting window: "
                    "its tag may have been in the field already" % (card, fmt_dt(card_read - win_read), winner,
                                                                  fmt_dt(relist_us)))
    return None


def story_of(replay):
    """A :class:`Story` of a replay that kept its records and inputs (``keep=True``), and the news
    each record settled: ``(story, {record index: [lines]})``.  Input events are taken in time
    order, each before the first verdict at or after its time."""
    story = Story(replay.referee)
    inputs = sorted(replay.inputs or [], key=lambda e: e[0])
    news = {}
    k = 0
    for i, (_line, t, kind, f) in enumerate(replay.records or []):
        while k < len(inputs) and inputs[k][0] <= t:
            story.input(*inputs[k])
            k += 1
        said = story.verdict(t, kind, f)
        if said:
            news[i] = said
    while k < len(inputs):
        story.input(*inputs[k])
        k += 1
    tail = story.finish()
    if tail and replay.records:
        news.setdefault(len(replay.records) - 1, []).extend(tail)
    return story, news
