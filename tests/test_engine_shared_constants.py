"""The mixins keep private copies of the referee's phase ids and history size (const() is
inlined per module, and importing referee.py from them would be circular): they must agree."""

from spit import corrections, referee, settle


def test_phase_ids_agree_across_the_referee_and_its_mixins():
    assert (settle._PH_SLAP, settle._PH_QUESTION, settle._PH_BETWEEN, settle._PH_OVER) == (
        referee.PH_SLAP, referee.PH_QUESTION, referee.PH_BETWEEN, referee.PH_OVER)
    assert corrections._PH_PLAY == referee.PH_PLAY
    # corrections compares "phase > _PH_PLAY" (settled): the later phases must come after it.
    assert referee.PH_COUNTDOWN < referee.PH_PLAY < min(referee.PH_SLAP, referee.PH_QUESTION, referee.PH_BETWEEN,
                                                        referee.PH_OVER)


def test_undo_history_size_agrees():
    assert corrections._HIST == referee._HIST
