"""Rulesets as data: named presets plus options, one per variant in RULES.md.

A ``Ruleset`` is a plain object whose attributes the referee reads in its per-event path
(small ints and bools only).  ``make_ruleset(name, options)`` validates everything and raises
``RulesetError`` naming the bad option.  The ``Ruleset`` class and ``fits()`` (the legality
test of R-CARD-2..5) live in ``spit.legal``, which is all the referee imports at play time.

This module is not installed on the board: ``spit flash`` resolves ``ruleset.json`` here
(``from_config``) and writes the result (``checked_config``), which the device loads with a
short check (``referee/boardfile.py`` ``load_ruleset``).
"""

from spit.legal import Ruleset, fits, MODE_OWN_DECK  # noqa: F401

# A Ruleset's option codes: each is its choice's index in _CHOICES below.  The engine modules
# on the board keep private const copies (written by scripts/gen_consts.py).
WRAP_BOTH = 0      # R-CARD-2: A links K and 2 both ways
WRAP_ACE_ONLY = 1  # R-CARD-3: only an Ace goes on a K or a 2, never K/2 onto an Ace
WRAP_NONE = 2      # no linkage at all (A is low only)

MODE_TABLEAU = 0   # one shared deck, stocks + spit pile (000, 001, 002)
# MODE_OWN_DECK = 1: R-OWN-1, each player has their own deck (003); spit.legal's (the board's)
MODE_SPEED = 2     # R-SPEED-1: hands of five, side piles (002 names it)

SLAP_BOTH = 0      # R-ROUND-3 (000, 002): both slap
SLAP_OUT_ONLY = 1  # R-ROUND-3 (001): only the player who went out slaps
SLAP_CHOOSE = 2    # R-ROUND-4 (002 variant): the player who went out chooses a pile

END_STOCKS = 0           # R-ROUND-1: a round ends when a player's stocks are empty
END_STOCKS_AND_SPIT = 1  # R-ROUND-2: ... and their spit pile too

JOKER_ANY = 0       # anything may be played on a joker
JOKER_AS_BELOW = 1  # a joker keeps the rank of the card it covers

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
    "tie_window_us": (3000, 0, 1000000),
    "race_window_us": (250000, 0, 5000000),
    "countdown_ms": (2000, 0, 60000),
    "reorder_us": (20000, 0, 2000000),
    "touch_match_us": (120000, 0, 2000000),
    "relist_us": (60000, 0, 2000000),
    "slap_window_ms": (3000, 0, 60000),
}

# The Ruleset attributes the choices above set (``checked_config`` writes them beside the integers).
_CHOSEN = ("wrap", "alternate_colours", "joker_next", "slap", "round_end", "mode", "stock_cards")

# How many values ``checked_config`` writes: the board checks ruleset.json's count against its
# copy (referee/boardfile.py's, which scripts/gen_consts.py writes from this line).
RULESET_VALUE_COUNT = len(_INTS) + len(_CHOSEN)

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


def _build(name, options):
    rs = Ruleset()
    rs.name = name
    rs.options = options
    ch = _CHOICES
    rs.wrap = ch["wrap"].index(options["wrap"])
    rs.alternate_colours = options["colours"] == "alternate"
    rs.joker_next = ch["joker_next"].index(options["joker_next"])
    rs.slap = ch["slap"].index(options["slap"])
    rs.round_end = ch["round_end"].index(options["round_end"])
    rs.mode = ch["mode"].index(options["mode"])
    for key in _INTS:
        setattr(rs, key, options[key])   # every integer option is an attribute of that name
    # Cards in the tableau: 1+2+3+4+5 = 15 or 1+2+3+4 = 10 (R-SETUP-2, R-SETUP-3).
    rs.stock_cards = rs.stocks * (rs.stocks + 1) // 2
    return rs


def make_ruleset(name="classic", options=None):
    """Build a ruleset from a preset name and option overrides (validated)."""
    if not isinstance(name, str) or name not in PRESETS:
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
    return _build(name, merged)


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




def from_config(config, reorder_us=None):
    """The ruleset of a ``ruleset.json`` object ``{"ruleset": NAME, "options": {...}}``;
    ``reorder_us``: the board's (touch sensors or not decide how long to hold events), used
    unless the options set it."""
    if type(config) is not dict:
        raise RulesetError("expected {\"ruleset\": NAME, \"options\": {...}}")
    options = config.get("options")
    if reorder_us is not None and not (type(options) is dict and "reorder_us" in options):
        options = dict(options) if type(options) is dict else {}
        options["reorder_us"] = reorder_us
    return make_ruleset(config.get("ruleset", "classic"), options)


def checked_config(rs):
    """What ``spit flash`` writes to the board's ``ruleset.json`` for ``rs``: the name and
    canonical options (the log header), marked ``"checked": 1``, and ``values``: every
    attribute the referee reads, ready to set."""
    values = {}
    for key in _INTS:
        values[key] = getattr(rs, key)
    for key in _CHOSEN:
        values[key] = getattr(rs, key)
    return {"ruleset": rs.name, "options": rs.options, "checked": 1, "values": values}
