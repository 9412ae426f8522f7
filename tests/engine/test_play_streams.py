"""Pinned verdicts: play-heavy event streams (tests/engine/fuzz.py ``play_stream``: every preset,
touches and their reads out of order, missed reads, two tags in one activation, quiet reports,
corrections, session times across the intake's base move) give the verdicts, LED intents after
every call and ``outcome()`` the engine gave when these digests were taken (9ab223d, before the
per-landing path was cut down for issue 8).  The per-landing path is rewritten for speed now and
then; this says it still judges alike.  A change that means to judge differently updates the
digests in the same commit and says why.

Changed on purpose: R-ROUND-3 with both players slapping, a slap by a player who cannot be out
while the opponent can is the opponent going out (was slap_too_early): 14 slaps of the short
streams, 3 verdicts more; the long streams have none.

Changed on purpose (issue 25, the time base): an input 2**29 us or more past the intake's base
first brings time up to it (as a tick line would), then moves the base; the countdown's LED
intents of 3 short streams that start 600 s in now show the countdown over at their first input
(a touch) instead of at the next call.  The verdicts are the same.

Changed on purpose (R-STALL-2, a spit card that never comes): a STUCK press 5 s or more after a
countdown whose spit cards have not all landed counts (was ignored), and both such presses end
the wait (the spitter has no card) with the both-stuck rule.  The streams that start minutes in
wait that long for spit cards: 57 of the 1,200 short streams judge differently (+43 verdicts, the
first difference of each a ``stuck`` where there was none), 3 of the 30 long ones (+1)."""

from fuzz import play_many


def test_r_play_5_play_streams_are_judged_as_pinned():
    assert play_many(1, 1200) == (661961408, 149726)


def test_r_play_5_long_play_streams_are_judged_as_pinned():
    # 1500 landings each: several rounds per stream, the time base moved in most of them
    assert play_many(20001, 30, 1500) == (856522099, 65313)
