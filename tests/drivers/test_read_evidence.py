"""The evidence a reader gives with each card read (R-PLAY-5, docs/log-format.md "read evidence").

With each ``on_card`` the reader says when the activation that found the tag began
(``act_us``: the listing command sent, or the scan's REQA answered) and whether the tag
answered it alone (``alone``: no other new tag answered that activation).  The referee orders
two reads of one pile by their activations: a tag answers every activation while it lies in
the field, so a card first read by a later activation landed after it; reads of one
activation cannot be ordered by the reader.
"""

import os

import pytest

from support.readers import Table, uid, _run_until_cards

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class EvidenceTable(Table):
    """Cards with the reader's evidence: (pile, uid, stamp, act_us, alone)."""

    def _on_card(self, pile, card_uid, ticks_us):
        r = self.readers[pile]
        self.cards.append((pile, bytes(card_uid), ticks_us, r.act_us, r.alone))


@pytest.fixture(params=[False, True], ids=["reqa_listing", "wupa_listing"])
def table(request):
    t = EvidenceTable(piles=1, emulator_options={"list_uses_wupa": request.param})
    t.run(20000)
    yield t
    t.close()


def test_r_play_5_a_card_read_alone_carries_its_activation_start(table):
    t = table
    before = t.ticks_now()
    t.emulators[0].place_tag(uid(1))
    _run_until_cards(t, 1)
    (pile, card, stamp, act, alone), = t.cards
    assert alone
    # The activation began before the read's stamp (at it, for a scan's REQA), and after
    # the reader started waiting for this card.
    assert t.time.ticks_diff(stamp, act) >= 0
    assert t.time.ticks_diff(act, before) >= -40000


def test_r_play_5_tags_that_answered_one_activation_together_are_not_alone(table):
    t = table
    t.emulators[0].place_tag(uid(2))
    t.emulators[0].place_tag(uid(3))
    _run_until_cards(t, 2)
    assert sorted(c[1] for c in t.cards) == [uid(2), uid(3)]
    assert [c[4] for c in t.cards] == [False, False]
    assert t.cards[0][2] == t.cards[1][2]   # (one activation: one time)


def test_r_play_5_a_race_second_card_read_by_a_later_activation_is_alone(table):
    t = table
    em = t.emulators[0]
    em.place_tag(uid(4))
    _run_until_cards(t, 1)
    em.place_tag(uid(5))
    _run_until_cards(t, 2)
    first, second = t.cards
    assert first[4]
    # (The scan's own REQA hears the second card alone: halted tags stay silent to REQA,
    # whatever the chip's listing does.)
    assert second[4]
    # The second card's activation began after the first card's read.
    assert t.time.ticks_diff(second[3], first[2]) > 0
