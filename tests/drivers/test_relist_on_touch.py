"""A touch sends a waiting listing again (``NfcReader.touched``), on the virtual board.

The PN532 repeats its activation attempts a few ms apart while a listing waits for a card; a card
landing just after an attempt waits for the next one.  The firmware knows when a card lands (the
pile's touch sensor), so it lists again at once: the card is read at the new listing's first
attempt.  A second touch soon after the first does not: the chip may be reading the first card,
and an aborted listing would read both cards together, as a tie (R-PLAY-5).
"""

import json
import os

import pytest

from host_tools.vboard.runner import VirtualTable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


ATTEMPT_US = 5000       # the chip's attempts 5 ms apart, the reply 5 ms after the one that heard
READ_US = 5000          # the tag: reads of 5-10 ms, as bench_rp2 runs them
OPTIONS = {"attempt_us": ATTEMPT_US, "anticollision_us": READ_US}


@pytest.fixture
def table():
    t = VirtualTable(emulator=OPTIONS)
    t.land_card(0, "7H", 2_100_000)
    t.land_card(1, "KS", 2_150_000)
    t.run_until(2_600_000)     # pile 0's listing has waited ~0.5 s for the next card
    yield t
    t.close()


def just_after_an_attempt(t, pile):
    """A time 0.2 ms after one of the waiting listing's activation attempts, ~10 ms ahead."""
    started = t.emulators[pile]._list_started
    assert started is not None, "the pile's chip is not listing"
    started -= t.t0   # (the chip's clock time as table time)
    k = (t.now_us - started) // ATTEMPT_US + 2
    return started + k * ATTEMPT_US + 200


def card_events(t, pile):
    out = [json.loads(line) for line in t.log_lines()]
    return [o for o in out if o.get("ev") == "card" and o["pile"] == pile]


def test_r_play_5_a_touch_lists_again_so_the_card_is_read_at_the_first_attempt(table):
    t = table
    em = t.emulators[0]
    aborts = em.aborts
    at = just_after_an_attempt(t, 0)
    t.land_card(0, "8H", at)
    t.run_until(at + 100_000)
    assert em.aborts == aborts + 1
    (card,) = [e for e in card_events(t, 0) if e["card"] == "8H"]
    # Without the new listing the tag would answer the attempt 4.8 ms later: a read of 9.8 ms.
    # With it: the loop's step (1 ms here), the command and its ACK, then one read.
    assert card["t"] - at <= READ_US + 2_000


def test_r_play_5_a_landing_without_a_touch_waits_for_the_next_attempt(table):
    t = table
    at = just_after_an_attempt(t, 0)
    t.land_card(0, "8H", at, touch=False)
    t.run_until(at + 100_000)
    (card,) = [e for e in card_events(t, 0) if e["card"] == "8H"]
    assert card["t"] - at >= ATTEMPT_US + READ_US - 200


@pytest.mark.parametrize("gap_us", [3_000, 5_000, 20_000])
def test_r_play_5_a_second_touch_soon_after_does_not_abort_the_first_cards_read(table, gap_us):
    t = table
    em = t.emulators[0]
    aborts = em.aborts
    at = just_after_an_attempt(t, 0)
    t.land_card(0, "8H", at)
    t.land_card(0, "8C", at + gap_us)
    t.run_until(at + 200_000)
    assert em.aborts == aborts + 1     # the first touch only
    first, second = card_events(t, 0)[-2:]
    assert (first["card"], second["card"]) == ("8H", "8C")
    assert first["t"] - at <= READ_US + 2_000
    assert second["t"] > first["t"]    # two reads, not one listing of both


def test_a_bus_error_while_listing_again_is_a_counted_reader_failure_and_the_card_is_read(table):
    t = table
    reader = t.app.readers[0]
    pn = reader.pn532
    failures = reader.failures
    tried = []

    def broken_abort():
        tried.append(t.now_us)
        raise OSError(5)   # EIO: the bus failed

    pn.abort = broken_abort
    at = just_after_an_attempt(t, 0)
    t.land_card(0, "8H", at)
    t.run_until(at + 3_000)          # the touch's step: the relist fails
    del pn.abort                     # (the bus works again)
    assert tried and reader.failures == failures + 1
    t.run_until(at + 300_000)        # backoff, the listing again, the read
    out = [json.loads(line) for line in t.log_lines()]
    assert {"t": at, "verdict": "accept", "pile": 0, "card": "8H"} in [
        {k: o[k] for k in ("t", "verdict", "pile", "card") if k in o} for o in out if o.get("verdict")]
    # Flagged as any reader failure is, and refereeing went on.
    assert [(o["reason"], o["pile"]) for o in out if o.get("verdict") == "error"] == [("reader_down", 0)]
