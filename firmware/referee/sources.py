"""Source ids of the events in the input ring (16-bit; bit 15 = EdgeInput.RELEASE flag).

Layout (room for up to 4 piles and 2 players):
    0..3    TOUCH   first-touch sensor of pile p         TOUCH0 + p
    4..7    READER  PN532 IRQ line ("reply ready") of p  READER0 + p
    8..9    STUCK   STUCK/READY button of player q       STUCK0 + q
    16..23  SLAP    slap pad of player q on pile p       SLAP_BASE + 4*q + p
"""

from micropython import const

MAX_PILES = const(4)
N_PLAYERS = const(2)

TOUCH0 = const(0)
TOUCH1 = const(1)
TOUCH2 = const(2)
READER0 = const(4)
READER1 = const(5)
READER2 = const(6)
STUCK0 = const(8)
STUCK1 = const(9)
SLAP_BASE = const(16)
SLAP0_0 = const(16)  # player 0, pile 0
SLAP0_1 = const(17)
SLAP0_2 = const(18)
SLAP1_0 = const(20)  # player 1, pile 0
SLAP1_1 = const(21)
SLAP1_2 = const(22)
N_SOURCES = const(24)  # size for per-source tables (Debouncer)

RELEASE = const(0x8000)  # same bit as drivers/edge_input.RELEASE

KIND_TOUCH = const(0)
KIND_READER = const(1)
KIND_STUCK = const(2)
KIND_SLAP = const(3)
KIND_UNKNOWN = const(-1)


def touch(pile):
    return TOUCH0 + pile


def reader(pile):
    return READER0 + pile


def stuck(player):
    return STUCK0 + player


def slap(player, pile):
    return SLAP_BASE + 4 * player + pile


def kind(source):
    """KIND_* of a source id (the RELEASE flag is ignored)."""
    s = source & 0x7FFF
    if s < 4:
        return KIND_TOUCH
    if s < 8:
        return KIND_READER
    if s < 10:
        return KIND_STUCK
    if SLAP_BASE <= s < N_SOURCES:
        return KIND_SLAP
    return KIND_UNKNOWN


def pile_of(source):
    """Pile index of a TOUCH/READER/SLAP source, else -1."""
    k = kind(source)
    if k == KIND_TOUCH or k == KIND_READER or k == KIND_SLAP:
        return source & 3
    return -1


def player_of(source):
    """Player index of a STUCK/SLAP source, else -1."""
    k = kind(source)
    s = source & 0x7FFF
    if k == KIND_STUCK:
        return s - STUCK0
    if k == KIND_SLAP:
        return (s - SLAP_BASE) >> 2
    return -1


def is_release(source):
    return (source & RELEASE) != 0
