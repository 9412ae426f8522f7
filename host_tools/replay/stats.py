"""Per-player statistics of re-judged games: what players ask after a game (or a league evening).

From a replay that kept its verdicts (``host_tools.replay.replay_lines(..., keep=True)``):

- reaction time: from the last change of any center pile (a spit card or an accepted card, by
  anyone) to the player's next accepted card; gaps over ``MAX_REACTION_US`` (a stall, a countdown)
  are not reactions and are left out;
- races won and lost: a ``late`` card lost to the card on top of its pile (R-PLAY-5); an accepted
  card with ``dt_us`` raced and fitted too (counted as a race won by neither, "close calls");
- ties, illegal and early plays, STUCK presses (the calls for a spit), rounds won, games won.

The log says who played a card only where the game needs it: own-deck games (R-OWN-1, every card
event names its player), spit cards (the spitter), STUCK presses and slaps.  Everything else is
counted under "unknown", never guessed.
"""

from spit.cards import format_card
from spit.intake import EV_CARD
from host_tools.replay.facts import story_of, NOT_KNOWN

MAX_REACTION_US = 10 * 1000000
UNKNOWN = -1


class PlayerStats:
    """Counts for one player (0, 1) or for cards nobody can be named for (``UNKNOWN``)."""

    FIELDS = ("plays", "spit_cards", "races_won", "races_lost", "close_calls", "ties", "illegal", "early",
              "stuck", "rounds_won", "games_won")

    def __init__(self, player):
        self.player = player
        self.reactions_us = []
        for name in self.FIELDS:
            setattr(self, name, 0)

    def add(self, other):
        self.reactions_us.extend(other.reactions_us)
        for name in self.FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def median_ms(self):
        return _percentile(self.reactions_us, 50)

    def p90_ms(self):
        return _percentile(self.reactions_us, 90)


def _percentile(values, pct):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, (len(v) * pct) // 100)] / 1000.0


class GameStats:
    """Per-player statistics of one replay: ``players[0]``, ``players[1]``, ``unknown``."""

    def __init__(self, replay):
        self.players = [PlayerStats(0), PlayerStats(1)]
        self.unknown = PlayerStats(UNKNOWN)
        self.rounds = len(replay.rounds)
        self.ruleset = replay.rules_name
        self.winner = replay.game[0] if replay.game is not None else None
        self.reason = replay.game[1] if replay.game is not None else None
        self.finished = replay.game is not None
        self.length_us = replay.records[-1][1] if replay.records else 0
        self.owner_of = {}      # record index -> player who played that verdict's card (where known)
        self._owners = {}
        self.names_cards = False   # the log names who played each card (own deck, R-OWN-1)
        for ev in replay.inputs:
            kind, pile, card, player = ev[1], ev[2], ev[3], ev[4]
            if kind == EV_CARD and player >= 0:
                self.names_cards = True
                self._owners.setdefault((pile, format_card(card)), []).append(player)
        self.story, self.news = story_of(replay)   # news: record index -> what it settled
        self.rounds_unknown = 0   # rounds that ended with a winner the log does not tell
        self._walk(replay)
        for rf in self.story.rounds.values():
            if rf.reason is None:
                continue   # not finished
            if rf.winner is None:
                self.rounds_unknown += 1
            elif rf.winner >= 0:
                self.players[rf.winner].rounds_won += 1

    def of(self, player):
        return self.players[player] if player in (0, 1) else self.unknown

    def _owner(self, f, take=True):
        """The player of the card in a verdict, from its own field or the card event that named it."""
        owners = self._owners.get((f.get("pile"), f.get("card")))
        if f.get("player") in (0, 1):
            who = f["player"]
            if take and owners:
                owners.pop(0)
        elif not owners:
            who = UNKNOWN
        else:
            who = owners.pop(0) if take else owners[0]
        if who != UNKNOWN:
            self.owner_of[self._i] = who
        return who

    def _walk(self, replay):
        top_owner = {}          # pile -> player of its top card
        last_change = None      # t of the last change of any center pile
        for i, (_line, t, kind, f) in enumerate(replay.records):
            self._i = i
            if kind == "round_start":
                top_owner = {}
                last_change = None
            elif kind == "spit":
                who = self._owner(f)
                self.of(who).spit_cards += 1
                top_owner[f["pile"]] = who
                last_change = t
            elif kind == "accept":
                who = self._owner(f)
                st = self.of(who)
                st.plays += 1
                if "dt_us" in f:
                    st.close_calls += 1
                if who != UNKNOWN and last_change is not None and t - last_change <= MAX_REACTION_US:
                    st.reactions_us.append(t - last_change)
                top_owner[f["pile"]] = who
                last_change = t
            elif kind == "late":
                self.of(self._owner(f)).races_lost += 1
                self.of(top_owner.get(f["pile"], UNKNOWN)).races_won += 1
            elif kind == "tie":
                self.of(self._owner(f, take=False)).ties += 1
            elif kind == "illegal":
                self.of(self._owner(f)).illegal += 1
            elif kind == "early":
                self.of(self._owner(f)).early += 1
            elif kind == "stuck":
                self.of(f["player"]).stuck += 1
            elif kind in ("resync", "undo"):
                last_change = t
            elif kind == "game_over" and f.get("winner") in (0, 1):
                self.players[f["winner"]].games_won += 1


def names_of(header, given=None):
    """The two players' names: the session header's ``players`` (or ``names``; set at the table), else
    ``given`` (``spit stats --players A,B``), else "player 0" and "player 1"."""
    names = (header.get("players") or header.get("names")) if isinstance(header, dict) else None
    if isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) and n.strip() for n in names) \
            and names[0].strip() != names[1].strip():
        return [n.strip() for n in names]
    if given:
        return list(given)
    return ["player 0", "player 1"]


class Evening:
    """Several games added up (``spit stats LOG...``), per named player across seat swaps."""

    def __init__(self):
        self.names = []           # in the order they first played
        self.by_name = {}
        self.unknown = PlayerStats(UNKNOWN)
        self.games = 0
        self.finished = 0
        self.rounds = 0
        self.rulesets = {}
        self.named_games = 0      # games whose log names who played each card
        self.rounds_unknown = 0
        self.game_rows = []       # one per game: the per-game table

    @property
    def players(self):
        return [self.by_name[n] for n in self.names]

    def player(self, name):
        if name not in self.by_name:
            self.names.append(name)
            self.by_name[name] = PlayerStats(name)
        return self.by_name[name]

    def add(self, game, names=("player 0", "player 1"), label="", started=None):
        self.games += 1
        self.finished += game.finished
        self.rounds += game.rounds
        self.rulesets[game.ruleset] = self.rulesets.get(game.ruleset, 0) + 1
        self.named_games += game.names_cards
        self.rounds_unknown += game.rounds_unknown
        for seat in (0, 1):
            self.player(names[seat]).add(game.players[seat])
        self.unknown.add(game.unknown)
        w = game.winner
        self.game_rows.append({
            "log": label, "started": started, "ruleset": game.ruleset, "players": list(names),
            "winner": None if w is None else ("draw" if w < 0 else names[w]), "reason": game.reason,
            "rounds": game.rounds, "rounds_won": [game.players[0].rounds_won, game.players[1].rounds_won],
            "rounds_not_known": game.rounds_unknown, "length_s": round(game.length_us / 1e6, 1),
            "races_won": [game.players[0].races_won, game.players[1].races_won] if game.names_cards else None})


# (row name, value, per card: only known where the log names who played each card)
ROWS = (
    ("games won", lambda s: s.games_won, False),
    ("rounds won", lambda s: s.rounds_won, False),
    ("cards played", lambda s: s.plays, True),
    ("spit cards", lambda s: s.spit_cards, False),
    ("reaction median", lambda s: _ms(s.median_ms()), True),
    ("reaction 90th percentile", lambda s: _ms(s.p90_ms()), True),
    ("reactions measured", lambda s: len(s.reactions_us), True),
    ("races won / lost", lambda s: "%d / %d" % (s.races_won, s.races_lost), True),
    ("close calls (raced, fit too)", lambda s: s.close_calls, True),
    ("ties", lambda s: s.ties, True),
    ("illegal plays", lambda s: s.illegal, True),
    ("early plays", lambda s: s.early, True),
    ("STUCK presses (spit calls)", lambda s: s.stuck, False),
)
UNNAMED = {"cards played": lambda s: s.plays, "races won / lost": lambda s: "%d races" % s.races_lost,
           "ties": lambda s: s.ties, "illegal plays": lambda s: s.illegal, "early plays": lambda s: s.early,
           "close calls (raced, fit too)": lambda s: s.close_calls}
NOT_KNOWN_CELL = "not known"


def _ms(v):
    return "-" if v is None else "%d ms" % round(v)


def cells(evening, name, value, per_card):
    """The row's cells for each player and the cards nobody is named for: a number the
    log does not give is "not known", never 0."""
    if per_card and not evening.named_games:
        out = [NOT_KNOWN_CELL] * len(evening.names)
    else:
        out = [str(value(s)) for s in evening.players]
        if per_card and evening.named_games < evening.games:
            out = [c + "*" for c in out]
    if name == "rounds won" and evening.rounds_unknown:
        out = [c + "+?" for c in out]
    unnamed = UNNAMED.get(name)
    out.append(str(unnamed(evening.unknown)) if unnamed is not None and not evening.named_games == evening.games
               else "")
    return out


def table(evening):
    """The terminal table, as lines."""
    kinds = ", ".join("%s %d" % (k, evening.rulesets[k]) for k in sorted(evening.rulesets))
    out = ["%d game%s (%s), %d finished, %d rounds" % (evening.games, "" if evening.games == 1 else "s", kinds,
                                                      evening.finished, evening.rounds)]
    width = max([12] + [len(n) for n in evening.names])
    fmt = "%-30s" + (" %" + str(width) + "s") * (len(evening.names) + 1)
    out.append(fmt % tuple([""] + evening.names + ["not named"]))
    for name, value, per_card in ROWS:
        out.append(fmt % tuple([name] + cells(evening, name, value, per_card)))
    if not evening.named_games:
        out.append("\"not known\": %s (only own-deck games say who played each card; spit cards, STUCK and "
                   "slaps are always named)" % NOT_KNOWN)
    elif evening.named_games < evening.games:
        out.append("*: from the %d of %d games whose logs say who played each card" % (evening.named_games,
                                                                                       evening.games))
    if evening.rounds_unknown:
        out.append("+?: %d round%s ended with a winner %s" % (evening.rounds_unknown,
                                                               "" if evening.rounds_unknown == 1 else "s", NOT_KNOWN))
    return out
