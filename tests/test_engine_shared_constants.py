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
    # The history entry's spit flag sits above every card code, the rank above the player
    # (card | flag | (player + 1) << 7 | rank << 9).
    assert corrections._SPIT_BIT == referee._SPIT_BIT == 64
    assert corrections._RANK_SHIFT == referee._RANK_SHIFT == 9


def test_no_landing_time_agrees_and_is_further_back_than_any_session_time():
    from spit import intake
    assert corrections._NEVER_T == referee._NEVER_T == intake._FLOOR
    # Landing times are intake times (judged times, above _FLOOR, below _LIMIT): "never" is
    # over 500 s back from any of them (dt saturated, no race), and a difference from it
    # stays a small int on a 32-bit port.
    # (a judged time trails the newest time by the holds at most: 2 s each by spit.rules' bounds)
    assert -referee._NEVER_T - 3 * 2000000 > 500000000
    assert intake._LIMIT - 1 - referee._NEVER_T <= 2 ** 30 - 1


def test_the_per_card_path_copies_of_codes_agree():
    # referee.py keeps private const copies for its per-card path (inlined by the compiler).
    from spit import cards, timebase, verdicts
    assert referee._JOKER == cards.JOKER
    assert (referee._V_ACCEPT, referee._V_ILLEGAL, referee._V_LATE, referee._V_TIE, referee._V_SPIT) == (
        verdicts.V_ACCEPT, verdicts.V_ILLEGAL, verdicts.V_LATE, verdicts.V_TIE, verdicts.V_SPIT)
    assert referee._SATURATED_US == timebase.SATURATED_US
    assert referee._HIST_MASK == referee._HIST - 1 and referee._HIST & referee._HIST_MASK == 0


def test_log_line_field_kinds_agree():
    # spit.logtables writes the field kinds referee/logline.py reads (consts in both).
    from spit import logtables
    from referee import logline
    for name in ("_INT", "_CARD", "_NAME", "_ERR_VALUE", "_KEEP", "_OPTIONAL"):
        assert getattr(logtables, "_LINE" + name) == getattr(logline, name), name
