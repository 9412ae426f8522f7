"""The stalled-host game's cards (host_tools/rp2emu/stalled_host.py) are legal runs: every
landing of it must be accepted, or its log check counts a legal-play fault of the scenario as a
lost landing (it did: the runs skipped the used 5S and broke, 20 of 50 cards illegal)."""

from spit.cards import parse_card, rank_of


def _one_rank_apart(x, y):
    """R-CARD-2 with the Ace between King and 2 (the classic wrap)."""
    return (rank_of(parse_card(x)) - rank_of(parse_card(y))) % 13 in (1, 12)


def test_stalled_host_runs_are_unbroken_chains_of_distinct_cards():
    from host_tools.rp2emu.stalled_host import _runs
    a, b = _runs()
    assert len(a) == len(b) == 25
    assert len(set(a) | set(b)) == 50 and not ({"5S", "9H"} & (set(a) | set(b)))
    for spit, run in (("5S", a), ("9H", b)):
        chain = [spit] + run
        for x, y in zip(chain, chain[1:]):
            assert _one_rank_apart(x, y), (x, y)
