"""What the shared constants must mean beyond being equal: scripts/gen_consts.py writes every
copy from its source (tests/guards/test_generated_consts.py checks the copies are current); these
check the orders, widths and layouts the code relies on."""

from spit import corrections, referee, settle


def test_the_phases_after_play_come_after_it():
    # spit.corrections compares "phase > _PH_PLAY" (settled): the later phases must come after it.
    assert referee.PH_COUNTDOWN < referee.PH_PLAY < min(referee.PH_SLAP, referee.PH_QUESTION, referee.PH_BETWEEN,
                                                        referee.PH_OVER)
    assert corrections._PH_PLAY == referee.PH_PLAY and settle._PH_OVER == referee.PH_OVER


def test_the_undo_history_entry_layout():
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


def test_the_private_kinds_and_the_history_mask():
    # (intake's internal kinds and _process flags are private there and copied into spit.referee)
    from spit import intake
    assert (referee._EV_NO_READ, referee._EV_OFF_TABLE, referee._F_LATE, referee._F_TIED) == (
        intake._EV_NO_READ, intake._EV_OFF_TABLE, intake._F_LATE, intake._F_TIED)
    assert referee._HIST_MASK == referee._HIST - 1 and referee._HIST & referee._HIST_MASK == 0


def test_the_apps_copy_of_the_input_source_layout_agrees():
    # referee/app.py decodes source ids itself (referee.sources is dropped after boot).
    from referee import app, sources
    assert (app._READER0, app._STUCK0, app._SLAP0, app._SLAP_END, app._RELEASE) == (
        sources.reader(0), sources.stuck(0), sources.slap(0, 0), sources.N_SOURCES, sources.RELEASE)
    assert sources.kind(app._READER0 - 1) == sources.KIND_TOUCH
    assert sources.kind(app._STUCK0 - 1) == sources.KIND_READER
    assert sources.kind(app._STUCK0 + 1) == sources.KIND_STUCK
    assert sources.kind(app._STUCK0 + 2) == sources.KIND_UNKNOWN
    assert sources.slap(1, 3) == app._SLAP0 + 4 + 3 < app._SLAP_END


def test_the_boot_builders_copies_of_the_input_source_layout_agree(vb):
    # referee/board_hw.py numbers the inputs itself (referee.sources is not installed on the
    # board).  (Imported on the virtual board.)
    from referee import board_hw, sources
    for p in range(4):
        assert board_hw._TOUCH0 + p == sources.touch(p)
        assert board_hw._READER0 + p == sources.reader(p)
        for q in range(2):
            assert board_hw._SLAP0 + 4 * q + p == sources.slap(q, p)
    for q in range(2):
        assert board_hw._STUCK0 + q == sources.stuck(q)
    assert board_hw._N_SOURCES == sources.N_SOURCES
