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


def test_private_copies_of_codes_agree_with_their_modules():
    # The engine modules keep private const copies (_NAME) of the codes other modules define
    # (NAME): const() is inlined per module only, so the copy costs no global lookup per use
    # and no name in the module's table.  Every _NAME whose NAME a source module defines must
    # equal it.
    from spit import cards, intake, intents, legal, rules, timebase, verdicts
    sources = (verdicts, intake, legal, rules, cards, timebase, referee)
    checked = 0
    for module in (referee, settle, corrections, intents, legal):
        for name, value in vars(module).items():
            if not name.startswith("_") or name.startswith("__") or type(value) is not int:
                continue
            found = [getattr(src, name[1:]) for src in sources if src is not module and hasattr(src, name[1:])]
            assert found == [value] * len(found), (module.__name__, name, value, found)
            checked += len(found) > 0
    assert checked >= 80   # (the copies exist: the check is not empty)
    # The firmware's own modules keep copies too (spit.verdicts is not loaded on the board).
    from referee import app, corrections as referee_corrections, loop, sessionlog
    checked = 0
    for module in (app, loop, referee_corrections):
        for name, value in vars(module).items():
            if name.startswith("_V_") or name.startswith("_E_"):
                assert getattr(verdicts, name[1:]) == value, (module.__name__, name, value)
                checked += 1
    assert checked >= 18
    # And of the event kinds, phases, LED colours, patterns and zones.
    from referee import logline
    copied = {"_EV_": intake, "_PH_": referee, "_ALL_ZONES": intents, "_N_ZONES": intents,
              "_YELLOW": intents, "_CYAN": intents, "_BLINK": intents, "_PULSE": intents,
              "_EVID_": intake}
    checked = 0
    for module in (app, loop, referee_corrections, sessionlog, logline):
        for name, value in vars(module).items():
            for prefix, src in copied.items():
                if name.startswith(prefix):
                    assert getattr(src, name[1:]) == value, (module.__name__, name, value)
                    checked += 1
    assert checked >= 25
    # The reasons' names outcome() gives (spit.settle keeps them: spit.verdicts is PC only).
    assert settle._REASON_NAMES == verdicts.REASON_NAMES
    # The few the names do not pair:
    # (intake's internal kinds and _process flags are private there too)
    assert (referee._EV_NO_READ, referee._EV_OFF_TABLE, referee._F_LATE, referee._F_TIED) == (
        intake._EV_NO_READ, intake._EV_OFF_TABLE, intake._F_LATE, intake._F_TIED)
    assert referee._HIST_MASK == referee._HIST - 1 and referee._HIST & referee._HIST_MASK == 0


def test_log_lines_joker_agrees():
    from spit import cards
    from referee import logline
    assert logline._JOKER == cards.JOKER


def test_log_line_field_kinds_agree():
    # spit.logtables writes the field kinds referee/logline.py reads (consts in both).
    from spit import logtables
    from referee import logline
    for name in ("_INT", "_CARD", "_NAME", "_ERR_VALUE", "_KEEP", "_OPTIONAL"):
        assert getattr(logtables, "_LINE" + name) == getattr(logline, name), name


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
    # referee/board_hw.py and referee/startup.py number the inputs themselves (referee.sources is
    # not installed on the board).  (Imported on the virtual board: startup binds its ``time``.)
    from referee import board_hw, startup, sources
    for p in range(4):
        assert board_hw._TOUCH0 + p == sources.touch(p)
        assert board_hw._READER0 + p == sources.reader(p)
        for q in range(2):
            assert board_hw._SLAP0 + 4 * q + p == sources.slap(q, p)
    for q in range(2):
        assert board_hw._STUCK0 + q == startup._STUCK0 + q == sources.stuck(q)
    assert board_hw._N_SOURCES == sources.N_SOURCES
