"""Rulesets as data: named presets plus options, one per variant in RULES.md.

A ``Ruleset`` is a plain object whose attributes the referee reads in its per-event path
(small ints and bools only).  ``make_ruleset(name, options)`` validates everything and raises
``RulesetError`` naming the bad option.  ``fits()`` is the legality test of R-CARD-2..5.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from spit.cards import JOKER

WRAP_BOTH = const(0)      # R-CARD-2: A links K and 2 both ways
WRAP_ACE_ONLY = const(1)  # R-CARD-3: only an Ace goes on a K or a 2, never K/2 onto an Ace
WRAP_NONE = const(2)      # no linkage at all (A is low only)

MODE_TABLEAU = const(0)   # one shared deck, stocks + spit pile (000, 001, 002)
MODE_OWN_DECK = const(1)  # R-OWN-1: each player has their own deck (003)
MODE_SPEED = const(2)     # R-SPEED-1: hands of five, side piles (002 names it)

SLAP_BOTH = const(0)      # R-ROUND-3 (000, 002): both slap
SLAP_OUT_ONLY = const(1)  # R-ROUND-3 (001): only the player who went out slaps
SLAP_CHOOSE = const(2)    # R-ROUND-4 (002 variant): the player who went out chooses a pile

END_STOCKS = const(0)           # R-ROUND-1: a round ends when a player's stocks are empty
END_STOCKS_AND_SPIT = const(1)  # R-ROUND-2: ... and their spit pile too

JOKER_ANY = const(0)       # anything may be played on a joker
JOKER_AS_BELOW = const(1)  # a joker keeps the rank of the card it covers

_CHOICES = {
    "wrap": ("both", "ace_only", "none"),
    "colours": ("any", "alternate"),
    "joker_next": ("any", "as_below"),
    "slap": ("both", "out_only", "choose"),
    "round_end": ("stocks", "stocks_and_spit"),
    "mode": ("tableau", "own_deck", "speed"),
}

# name: (default, minimum, maximum) for integer options
_INTS = {
    "jokers": (0, 0, 2),
    "piles": (2, 2, 3),
    "stocks": (5, 4, 5),
    "slow_spit_ms": (0, 0, 60000),
    "points_target": (0, 0, 10000),
    "timer_ms": (0, 0, 24 * 3600 * 1000),
    "rounds_in_a_row": (0, 0, 100),
    "row": (4, 1, 8),
    "speed_side": (10, 1, 20),
    "tie_window_us": (1000, 0, 1000000),
    "race_window_us": (250000, 0, 5000000),
    "countdown_ms": (2000, 0, 60000),
    "reorder_us": (150000, 0, 2000000),
    "touch_match_us": (120000, 0, 2000000),
    "slap_window_ms": (3000, 0, 60000),
}

_DEFAULT_CHOICES = {
    "wrap": "both", "colours": "any", "joker_next": "any", "slap": "both",
    "round_end": "stocks", "mode": "tableau",
}

# Presets: one per seed game (docs/rules.md maps them to rule IDs).
PRESETS = {
    # 000: French "Cracher". Both slap, round ends on empty stocks, R-GAME-1.
    "classic": {},
    # 001: the "one, two, three, SPIT" game: round ends when tableau AND spit pile are empty,
    # only the player who went out slaps, R-GAME-2. Its variants are options.
    "tableau": {"round_end": "stocks_and_spit", "slap": "out_only"},
    # 002: Polish family rules: both slap, single spit pile (R-STALL-2), R-GAME-3.
    "family": {},
    # 003: own deck each, a row of four (R-OWN-1).
    "own_deck": {"mode": "own_deck", "row": 4},
    # R-SPEED-1: hand of five, 15-card stock, two side piles of 10.
    "speed": {"mode": "speed", "speed_side": 10},
}


class RulesetError(ValueError):
    """A ruleset name or option that does not exist or has a bad value."""


class Ruleset:
    """Validated ruleset. ``options`` holds the full canonical option dict (for logs)."""

    def __init__(self, name, options):
        self.name = name
        self.options = options
        ch = _CHOICES
        self.wrap = ch["wrap"].index(options["wrap"])
        self.alternate_colours = options["colours"] == "alternate"
        self.joker_next = ch["joker_next"].index(options["joker_next"])
        self.slap = ch["slap"].index(options["slap"])
        self.round_end = ch["round_end"].index(options["round_end"])
        self.mode = ch["mode"].index(options["mode"])
        self.jokers = options["jokers"]
        self.piles = options["piles"]
        self.stocks = options["stocks"]
        # Cards in the tableau: 1+2+3+4+5 = 15 or 1+2+3+4 = 10 (R-SETUP-2, R-SETUP-3).
        self.stock_cards = self.stocks * (self.stocks + 1) // 2
        self.slow_spit_ms = options["slow_spit_ms"]
        self.points_target = options["points_target"]
        self.timer_ms = options["timer_ms"]
        self.rounds_in_a_row = options["rounds_in_a_row"]
        self.row = options["row"]
        self.speed_side = options["speed_side"]
        self.tie_window_us = options["tie_window_us"]
        self.race_window_us = options["race_window_us"]
        self.countdown_ms = options["countdown_ms"]
        self.reorder_us = options["reorder_us"]
        self.touch_match_us = options["touch_match_us"]
        self.slap_window_ms = options["slap_window_ms"]

    def default_counts(self):
        if self.mode == MODE_OWN_DECK:
            return [52 + self.jokers, 52 + self.jokers]
        if self.mode == MODE_SPEED:
            # 52 = 2 middle cards + 2 side piles + two personal stocks (hand included).
            each = (52 - 2 - 2 * self.speed_side) // 2
            return [each, each]
        return [26 + self.jokers // 2, 26 + (self.jokers + 1) // 2]


def make_ruleset(name="classic", options=None):
    """Build a ruleset from a preset name and option overrides (validated)."""
    if name not in PRESETS:
        raise RulesetError("unknown ruleset %r (presets: %s)" % (name, ", ".join(sorted(PRESETS))))
    merged = {}
    for key in _CHOICES:
        merged[key] = _DEFAULT_CHOICES[key]
    for key in _INTS:
        merged[key] = _INTS[key][0]
    preset = PRESETS[name]
    for key in preset:
        merged[key] = preset[key]
    if options:
        if not isinstance(options, dict):
            raise RulesetError("options must be an object, not %r" % (options,))
        for key in options:
            merged[key] = _check_option(key, options[key])
    if merged["mode"] != "tableau" and merged["piles"] != 2:
        raise RulesetError("option 'piles': 3 piles need mode 'tableau'")
    return Ruleset(name, merged)


def _check_option(key, value):
    if key in _CHOICES:
        if value not in _CHOICES[key]:
            raise RulesetError("option %r: %r is not one of %s" % (key, value, ", ".join(_CHOICES[key])))
        return value
    if key in _INTS:
        lo, hi = _INTS[key][1], _INTS[key][2]
        # bool is not an int on MicroPython, but it is on CPython: reject it on both.
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesetError("option %r: %r is not an integer" % (key, value))
        if value < lo or value > hi:
            raise RulesetError("option %r: %d is outside %d..%d" % (key, value, lo, hi))
        return value
    raise RulesetError("unknown option %r" % (key,))


def fits(rules, top, top_rank, card):
    """R-CARD-2..5: may ``card`` go on a pile whose top card is ``top``?

    ``top_rank`` is the rank the top counts as (differs from the top's own rank only for a
    joker under ``joker_next = as_below``); 0 means "wild": anything fits.  ``top < 0``
    means an empty pile: nothing fits (a pile is started only by a spit card).
    """
    if top < 0:
        return False
    if card == JOKER:
        return rules.jokers > 0  # R-CARD-4: a joker is wild and may be played on anything
    if rules.alternate_colours and top != JOKER:
        # R-CARD-5: the other colour than the top card (a joker has no colour).
        ts = top >> 4
        cs = card >> 4
        if (ts == 1 or ts == 2) == (cs == 1 or cs == 2):
            return False
    if top_rank == 0:
        return True
    r = card & 15
    if top_rank == 1 and rules.wrap == WRAP_ACE_ONLY:
        # R-CARD-3: "only Aces go onto Kings or 2s, not the other way": nothing but a
        # joker may cover an Ace, which is what makes stalemates more frequent.
        return False
    d = r - top_rank
    if d == 1 or d == -1:
        return True
    if d == 12 or d == -12:
        # Ace next to King. R-CARD-2: both ways. R-CARD-3: only an Ace onto a King.
        if rules.wrap == WRAP_BOTH:
            return True
        return rules.wrap == WRAP_ACE_ONLY and r == 1
    return False
