"""Source ids of the events in the input ring (16-bit; bit 15 = EdgeInput.RELEASE flag).

Layout (room for up to 4 piles and 2 players):
    0..3    TOUCH   first-touch sensor of pile p         touch(p) = p
    4..7    READER  PN532 IRQ line ("reply ready") of p  reader(p) = 4 + p
    8..9    STUCK   STUCK/READY button of player q       stuck(q) = 8 + q
    16..23  SLAP    slap pad of player q on pile p       slap(q, p) = 16 + 4*q + p
"""

from micropython import const

# The first id of each kind (private consts: inlined, no module global on the board).
_TOUCH0 = const(0)       # touch sensor of pile p: _TOUCH0 + p
_READER0 = const(4)      # PN532 IRQ line of pile p: _READER0 + p
_STUCK0 = const(8)       # STUCK button of player q: _STUCK0 + q
_SLAP_BASE = const(16)   # slap pad of player q on pile p: _SLAP_BASE + 4 * q + p
N_SOURCES = const(24)  # size for per-source tables (Debouncer)

# generated from drivers.edge_input by scripts/gen_consts.py: do not edit
RELEASE = const(0x8000)  # flag OR-ed into the source id for release edges (the id: source & 0x7FFF)
# end generated

KIND_TOUCH = const(0)
KIND_READER = const(1)
KIND_STUCK = const(2)
KIND_SLAP = const(3)
KIND_UNKNOWN = const(-1)


def touch(pile):
    return _TOUCH0 + pile


def reader(pile):
    return _READER0 + pile


def stuck(player):
    return _STUCK0 + player


def slap(player, pile):
    return _SLAP_BASE + 4 * player + pile


def kind(source):
    """KIND_* of a source id (the RELEASE flag is ignored)."""
    s = source & 0x7FFF
    if s < 4:
        return KIND_TOUCH
    if s < 8:
        return KIND_READER
    if s < 10:
        return KIND_STUCK
    if _SLAP_BASE <= s < N_SOURCES:
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
        return s - _STUCK0
    if k == KIND_SLAP:
        return (s - _SLAP_BASE) >> 2
    return -1


def is_release(source):
    return (source & RELEASE) != 0
