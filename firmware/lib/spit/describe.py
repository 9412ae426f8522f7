"""Human-readable descriptions for prompts, docs and ``--help``: card names, ruleset options.

Host tools and the device's enrollment prompts use it; the referee never imports it.
"""

from spit import rules
from spit.cards import JOKER

RANK_NAMES = ("Joker", "Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
              "Ten", "Jack", "Queen", "King")
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")


def card_name(card):
    """``"Queen of Hearts"``: for prompts and timelines."""
    if card == JOKER:
        return "Joker"
    return RANK_NAMES[card & 15] + " of " + SUIT_NAMES[card >> 4]


def option_names():
    names = list(rules._CHOICES) + list(rules._INTS)
    names.sort()
    return names


def option_default(name):
    if name in rules._CHOICES:
        return rules._DEFAULT_CHOICES[name]
    if name in rules._INTS:
        return rules._INTS[name][0]
    raise rules.RulesetError("unknown option %r" % (name,))


def option_choices(name):
    if name in rules._CHOICES:
        return rules._CHOICES[name]
    lo_hi = rules._INTS[name]
    return (lo_hi[1], lo_hi[2])


# Names of the engine's small-int ids (spit.intents, spit.referee), for tools and tests.
ZONE_NAMES = ("pile0", "pile1", "pile2", "spit", "player0", "player1", "result")
COLOUR_NAMES = ("off", "green", "red", "orange", "purple", "blue", "white", "yellow", "cyan", "magenta")
PATTERN_NAMES = ("solid", "blink", "fast", "pulse", "countdown")
PHASE_NAMES = ("countdown", "play", "slap", "question", "between", "over")
