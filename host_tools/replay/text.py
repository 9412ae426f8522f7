"""The replay in words: one verdict per timeline line, the per-round counts and the summary.

Everything here works on one verdict at a time, so ``spit replay`` can print as it re-judges.
"""

from spit import verdicts as V
from spit.verdicts import REASON_NAMES
from host_tools.replay.facts import Story, Question, tie_reason

PILE_VERDICTS = ("spit", "accept", "illegal", "late", "tie", "early", "undo", "resync")

REASON_WORDS = {"out": "went out", "blocked": "nobody can play (blocked)", "timer": "the timer ran out",
                "points": "points target reached", "streak": "rounds in a row", "no_cards": "no cards left"}

# What each error reason means (docs/log-format.md), for the timeline and the page.
ERROR_WORDS = {
    "unknown_card": "a card code that names no card",
    "bad_pile": "a pile number this table does not have",
    "bad_player": "a player number that does not exist",
    "malformed": "a log line that is not a valid event",
    "no_read": "a touch with no card read after it (a misread card?)",
    "duplicate_card": "a second copy of a card already in the center this round",
    "slap_too_early": "a slap before that player can have gone out (ignored)",
    "unexpected": "an event with no meaning at this point of the game",
    "bad_answer": "an answer out of range, or with no question asked",
    "late_event": "an event that arrived after later ones were already judged",
    "unknown_uid": "a tag missing from the card map",
    "reader_down": "an NFC reader stopped answering",
    "no_owner": "a card without its player (own-deck game)",
    "overflow": "the board's input buffer overflowed",
}


def plural(n, word, words=None):
    """``1 tie``, ``2 ties``; ``words`` for irregular plurals."""
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def fmt_time(t_us):
    ms = t_us // 1000
    return "%d:%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def fmt_ms(us):
    return "%.1f ms" % (us / 1000.0)


def fmt_dt(us):
    """A race's delta t in milliseconds (three decimals below one: 400 us is 0.400 ms)."""
    return "%.3f ms" % (us / 1000.0) if us < 1000 else fmt_ms(us)


def describe(kind, f, rules=None):
    """One verdict in words (without time and tops).  ``rules``: the referee's rules, for a
    tie's reason with the log's numbers."""
    pile = "pile %s  " % f["pile"] if "pile" in f and kind in PILE_VERDICTS else ""
    card = f.get("card", "")
    if kind == "accept":
        who = "  by player %d" % f["player"] if "player" in f else ""
        race = "  (race: +%s, fits too)" % fmt_ms(f["dt_us"]) if "dt_us" in f else ""
        return "%sACCEPT %s%s%s" % (pile, card, who, race)
    if kind == "spit":
        return "%sSPIT %s  (player %s's spit card)" % (pile, card, f.get("player", "?"))
    if kind == "illegal":
        return "%sILLEGAL %s  (%s)" % (pile, card, "does not fit %s" % f["top"] if "top" in f else "empty pile")
    if kind == "late":
        return "%sLATE %s  (+%s behind %s)" % (pile, card, fmt_ms(f["dt_us"]), f["top"])
    if kind == "tie":
        return "%sTIE %s vs %s  (%s; %s stays on top, %s is judged against it)" % (
            pile, card, f["winner"], tie_reason(f, rules), f["winner"], card)
    if kind == "early":
        return "%sEARLY %s  (before the spit cards)" % (pile, card)
    if kind == "undo":
        return "%sUNDO %s taken back" % (pile, card)
    if kind == "resync":
        return "%sTOP is %s  (correction)" % (pile, card)
    if kind == "round_start":
        single = "  (single spit pile)" if "single_pile" in f else ""
        return "ROUND %d starts  cards %d | %d%s" % (f["round"], f["cards0"], f["cards1"], single)
    if kind == "countdown":
        return "countdown %.1f s" % (f["ms"] / 1000.0)
    if kind == "stuck":
        return "player %d STUCK" % f["player"]
    if kind == "spit_call":
        return "SPIT CALL  both stuck: countdown, then spit cards (%s)" % plural(f["piles"], "pile")
    if kind == "recycle":
        return "RECYCLE  %s become side piles" % plural(f["cards"], "center card")
    if kind == "round_end":
        if "player" in f:
            return "ROUND %s ENDS  player %d went out" % (f.get("round", "?"), f["player"])
        if f["reason"] == "out":
            return "ROUND %s ENDS  a player went out (who: said with STUCK or asked after the slaps)" % (
                f.get("round", "?"))
        return "ROUND %s ENDS  %s" % (f.get("round", "?"), REASON_WORDS.get(f["reason"], f["reason"]))
    if kind == "pile_won":
        size = "empty" if f["size"] == 0 else plural(f["size"], "card")
        return "player %d takes pile %d  (%s)" % (f["player"], f["pile"], size)
    if kind == "question":
        return "QUESTION  " + Question(0, f.get("ask"), f["player"], f.get("max", 1), 0).words()
    if kind == "score":
        return "player %d score %d" % (f["player"], f["score"])
    if kind == "game_over":
        who = "a draw" if f["winner"] < 0 else "player %d wins" % f["winner"]
        return "GAME OVER  %s (%s)" % (who, REASON_WORDS.get(f["reason"], f["reason"]))
    if kind == "error":
        return "ERROR %s" % error_words(f)
    return "%s %s" % (kind.upper(), " ".join("%s=%s" % kv for kv in f.items()))


def error_words(f):
    """``no_read: a touch with no card read after it (a misread card?)  pile 0``."""
    reason = f.get("reason", "?")
    extra = "".join("  %s %s" % (k, f[k]) for k in ("pile", "player", "card", "value") if k in f)
    where = "  (log line %d)" % f["line"] if "line" in f else ""
    meaning = ERROR_WORDS.get(reason)
    return "%s%s%s%s" % (reason, ": " + meaning if meaning else "", extra, where)


class Timeline:
    """Timeline lines, one verdict at a time: time, the verdict in words, the pile tops after it.
    ``input(t, kind, a, b, c)`` takes the log's input events (answers, STUCK presses), so the
    round winners and the answers to the referee's questions are told when they are settled.
    ``line`` may return several lines (joined by newlines)."""

    def __init__(self, npiles=2):
        self.tops = [None] * npiles
        self.story = Story()
        self.rules = None
        self.tie = None   # (pile, card) of the last tie: its card's own verdict follows

    def set_table(self, referee):
        self.tops = [None] * referee.npiles
        self.story.set_table(referee)
        self.rules = referee.rules

    def input(self, t, kind, a, b, c):
        self.story.input(t, kind, a, b, c)

    def line(self, items):
        t = items[0][1]
        kind = items[1][1]
        f = dict(items[2:])
        tops = self.tops
        pile = f.get("pile", -1)
        before = tops[pile] if isinstance(pile, int) and 0 <= pile < len(tops) else None
        if kind == "round_start":
            self.tops = tops = [None] * len(tops)
        elif kind in ("spit", "accept", "resync") and 0 <= pile < len(tops):
            tops[pile] = f["card"]
        elif kind == "undo" and 0 <= pile < len(tops):
            tops[pile] = f.get("top")
        tie, self.tie = self.tie, None
        if tie is not None and tie == (pile, f.get("card")) and kind in ("accept", "late", "illegal"):
            text = tie_outcome(kind, f, before)   # the card already shown in the TIE: no second verdict word
        elif kind == "tie" and self.rules is not None:
            from host_tools.replay.facts import tie_evidence
            ev = tie_evidence(self.story.recent_inputs(pile), pile, f["card"], f["winner"], t, f["dt_us"],
                              self.rules.relist_us)
            text = describe(kind, f, self.rules).replace(tie_reason(f, self.rules), tie_reason(f, self.rules, ev))
        else:
            text = describe(kind, f, self.rules)
        if kind == "tie":
            self.tie = (pile, f["card"])
        elif kind in PILE_VERDICTS:
            text = "%-44s  tops: %s" % (text, " | ".join(c or "--" for c in tops))
        # What this verdict settles (an answer, a round's winner) is told before it: the answer
        # came first, the piles are given out after it.
        news = self.story.verdict(t, kind, f)
        lines = ["%8s  %s" % (fmt_time(at), n) for at, n in news if not n.startswith("DECIDED BY")]
        lines.append("%8s  %s" % (fmt_time(t), text))
        lines += ["%8s  %s" % (fmt_time(at), n) for at, n in news if n.startswith("DECIDED BY")]
        return "\n".join(lines)

    def finish(self):
        """Lines settled by the log's last events (an answer with nothing after it), or []."""
        return ["%8s  %s" % (fmt_time(at), news) for at, news in self.story.finish()]


def tie_outcome(kind, f, top):
    """The verdict that follows a tie, for the tied card: what happened to it, without a second
    LATE/ACCEPT word for a card the TIE line already showed."""
    card = f["card"]
    pile = "pile %s  " % f["pile"]
    if kind == "accept":
        return "%s  -> %s fits %s too: it goes on top" % (pile, card, top or "the pile")
    if kind == "late":
        return "%s  -> %s fit only the card before %s: %s takes it back" % (pile, card, f.get("top", top), card)
    return "%s  -> %s fits neither: %s takes it back" % (pile, card, card)


class RoundStats:
    """Counts for one round, for the summary line and the HTML table."""

    __slots__ = ("number", "start", "end", "cards_start", "cards_after", "plays", "races", "late", "ties",
                 "illegal", "early", "spit_calls", "errors", "end_reason", "out_player", "piles_won")

    def __init__(self, number, start, cards):
        self.number = number
        self.start = start
        self.end = start
        self.cards_start = cards
        self.cards_after = None
        self.plays = self.races = self.late = self.ties = self.illegal = 0
        self.early = self.spit_calls = self.errors = 0
        self.end_reason = None
        self.out_player = None
        self.piles_won = []   # (player, pile, size)


class RoundTally:
    """Per-round counts and the game result, fed one raw verdict at a time
    (``add(line, t, code, a, b, c, d)``, the referee's sink arguments)."""

    def __init__(self):
        self.rounds = []
        self.game = None     # (winner, reason name)
        self.cur = None

    def add(self, _line, t, code, a, b, c, d):
        cur = self.cur
        if code == V.V_ROUND_START:
            if cur is not None and cur.cards_start is None:   # only log errors before the first round
                self.rounds.pop()
                errors = cur.errors
            else:
                errors = 0
                if cur is not None and cur.cards_after is None:
                    cur.cards_after = (b, c)
            cur = self.cur = RoundStats(a, t, (b, c))
            cur.errors = errors
            self.rounds.append(cur)
            return
        if cur is None:
            cur = self.cur = RoundStats(1, 0, None)
            self.rounds.append(cur)
        if t > cur.end:
            cur.end = t
        if code == V.V_ACCEPT:
            cur.plays += 1
            if d != -1:
                cur.races += 1
        elif code == V.V_LATE:
            cur.races += 1
            cur.late += 1
        elif code == V.V_TIE:
            cur.ties += 1
        elif code == V.V_ILLEGAL:
            cur.illegal += 1
        elif code == V.V_EARLY:
            cur.early += 1
        elif code == V.V_SPIT_CALL:
            cur.spit_calls += 1
        elif code == V.V_ERROR:
            cur.errors += 1
        elif code == V.V_ROUND_END:
            cur.end_reason = REASON_NAMES[a]
            cur.out_player = b if b >= 0 else None
        elif code == V.V_PILE_WON:
            cur.piles_won.append((a, b, c))
        elif code == V.V_GAME_OVER:
            self.game = (a, REASON_NAMES[b])
            if cur.end_reason is None:   # a game that ends mid-round (own deck, Speed, the timer)
                cur.end_reason = REASON_NAMES[b]
                cur.out_player = a if a >= 0 and b == V.R_OUT else None

    def close(self, referee):
        cur = self.cur
        if cur is not None and cur.cards_after is None and cur.piles_won and referee is not None:
            cur.cards_after = (referee.cards[0], referee.cards[1])

    def total(self, attr):
        return sum(getattr(r, attr) for r in self.rounds)


def mismatch_text(m):
    line, dev, rj = m
    return "MISMATCH line %d: device said %s, re-judge says %s" % (line, dev or "nothing", rj or "nothing")


def summary(replay, story=None):
    """The closing summary lines of a :class:`host_tools.replay.Replay`; ``story``: the
    timeline's :class:`host_tools.replay.facts.Story` (else made from the kept records, if any)."""
    if story is None and replay.records is not None:
        from host_tools.replay.facts import story_of
        story = story_of(replay)[0]
    rs = replay.rounds
    total = replay.tally.total
    lines = ["summary: %s, %s, %s (%d late), %s, %d illegal, %d early, %s, %s" % (
        plural(len(rs), "round"), plural(total("plays"), "play"), plural(total("races"), "race"), total("late"),
        plural(total("ties"), "tie"), total("illegal"), total("early"), plural(total("spit_calls"), "spit call"),
        plural(total("errors"), "error"))]
    if replay.game is not None:
        winner, reason = replay.game
        who = "a draw" if winner < 0 else "player %d" % winner
        lines.append("winner: %s (%s)" % (who, REASON_WORDS.get(reason, reason)))
    elif rs:
        lines.append("no winner yet: the log ends in round %d" % rs[-1].number)
    if story is not None and story.game is not None and story.game[3]:
        lines.append("decided by: %s" % story.game[3])
    if story is not None and story.rounds:
        lines.append("round winners: %s" % ", ".join(
            "%d %s" % (n, story.winner_words(n)) for n in sorted(story.rounds) if n > 0))
    if story is not None and story.questions:
        lines.append("questions: %s" % "; ".join("round %d %s -> %s" % (q.round, q.words(), q.answer_words())
                                                 for q in story.questions))
    if replay.device_verdicts:
        lines.append("device verdicts: %d logged, %s" % (replay.device_verdicts,
                                                          plural(replay.n_mismatches, "mismatch", "mismatches")))
    if replay.cut_off:
        lines.append("the log ends before the device wrote its last %s (cut off)" % plural(replay.cut_off, "verdict"))
    return lines


def timeline(replay):
    """The timeline lines of a replay that kept its verdicts (``keep=True``), with what its input
    events settle (answers, STUCK presses during the slaps) told where they settle it."""
    tl = Timeline(replay.npiles)
    if replay.referee is not None:
        tl.set_table(replay.referee)
        tl.story.referee = None   # the final state: read only at the game's end (below)
    inputs = sorted(replay.inputs or [], key=lambda e: e[0])
    k = 0
    out = []
    for _line, items in replay.verdicts:
        t = items[0][1]
        while k < len(inputs) and inputs[k][0] <= t:
            tl.input(*inputs[k])
            k += 1
        if items[1][1] == "game_over":
            tl.story.referee = replay.referee   # the game is over: the referee's counts are final
        out.extend(tl.line(items).split("\n"))
    while k < len(inputs):
        tl.input(*inputs[k])
        k += 1
    out.extend(tl.finish())
    return out
