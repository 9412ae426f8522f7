"""What every test module shares: the one place sys.path is set (the engine and the device code
as the board has them, tests/ for ``support`` and ``fakes``, the root for ``bench.*``), the
markers, and the fixtures ``run_mp`` (a script under the MicroPython unix port) and ``vb`` (the
virtual board).

Markers (pyproject.toml): ``rp2emu`` (tests/rp2emu: the real firmware on an emulated Pico),
``micropython`` (tests/micropython, and every test that runs the unix port through ``run_mp``),
``slow`` (the tests listed in ``SLOW``, measured over 5 s each on 2 shared cores).  The fast subset,
`pytest -m "not slow and not micropython and not rp2emu"`, runs in under a minute.
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "tests"), os.path.join(ROOT, "firmware", "lib"),
          os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tests", "engine"), ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)

MP_SCRIPTS = os.path.join("tests", "micropython")

# Test files (or file::test prefixes) that take over 5 s on 2 shared cores: `slow`.
SLOW = (
    # whole files: games on the virtual board under every PN532 option, libnfc's tools, pages in
    # Chromium, scripted players at a terminal, a league of simulated games
    "tests/drivers/test_libnfc.py",
    "tests/drivers/test_nfc_games_strict.py",
    "tests/drivers/test_nfc_probe.py",
    "tests/firmware/test_firmware_follows_verdicts.py",
    "tests/firmware/test_races_on_the_board.py",
    "tests/host/test_terminal_table.py",
    "tests/host/test_watch.py",
    "tests/host/test_league.py",
    "tests/host/test_replay_review.py",
    "tests/host/test_long_session.py",
"tests/engine/test_fuzz.py::test_ten_thousand_random_streams_never_raise_and_repeat_exactly",
    "tests/engine/test_play_streams.py::test_r_play_5_long_play_streams_are_judged_as_pinned",
    "tests/engine/test_play_streams.py::test_r_play_5_play_streams_are_judged_as_pinned",
    "tests/engine/test_time.py::test_session_clock_four_hours_of_wrapping_ticks",
    "tests/engine/test_time_gaps.py::test_time_base_gap_streams_judge_as_with_ticks_in_the_gaps",
    "tests/host/test_cli.py::test_sim_games_in_firmware_mode_prints_no_boot_banner",
    "tests/micropython/test_engine_micropython.py::test_bad_log_fuzz_gives_identical_verdicts_on_cpython_and_micropython",
    "tests/micropython/test_engine_micropython.py::test_broken_rule_makes_the_micropython_run_fail",
    "tests/micropython/test_engine_micropython.py::test_fuzz_checksums_identical_on_cpython_and_micropython",
    "tests/micropython/test_engine_micropython.py::test_sample_log_rejudges_to_the_checked_in_verdicts_under_micropython",
    "tests/micropython/test_engine_micropython.py::test_unbroken_engine_passes_the_same_micropython_run",
    "tests/host/test_enroll.py::test_full_deck_enrollment_with_scripted_taps",
    "tests/host/test_enroll.py::test_resume_after_an_interrupted_session",
    "tests/host/test_enroll.py::test_silent_port_gives_one_line_error",
    "tests/host/test_enroll.py::test_typed_commands_from_stdin_in_a_real_process",
    "tests/firmware/test_firmware_follows_verdicts.py::test_every_verdict_kind_leaves_the_firmware_following_the_engine",
    "tests/firmware/test_firmware_follows_verdicts.py::test_r_speed_1_recycled_cards_are_read_again_when_flipped_back",
    "tests/firmware/test_firmware_loop.py::test_a_slap_pads_bouncing_release_is_not_another_slap",
    "tests/firmware/test_firmware_loop.py::test_board_reorder_us_sets_the_hold_unless_the_ruleset_does",
    "tests/firmware/test_firmware_loop.py::test_correction_menu_undo_and_resync",
    "tests/firmware/test_firmware_loop.py::test_dead_reader_at_boot_is_reported_and_retried",
    "tests/firmware/test_firmware_loop.py::test_enrollment_on_the_board",
    "tests/firmware/test_firmware_loop.py::test_micropython_unix_port_runs_the_firmware",
    "tests/firmware/test_firmware_loop.py::test_power_cut_mid_log_write_keeps_everything_before",
    "tests/firmware/test_firmware_loop.py::test_race_order_across_the_tick_wrap",
    "tests/firmware/test_firmware_loop.py::test_reader_fault_is_flagged_and_the_other_pile_plays_on",
    "tests/firmware/test_firmware_loop.py::test_ring_overflow_is_flagged",
    "tests/firmware/test_firmware_loop.py::test_scripted_game_leds_and_log_equal_rejudge",
    "tests/firmware/test_firmware_loop.py::test_unknown_uid_is_flagged",
    "tests/host/test_flash.py::test_engine_that_fails_to_import_on_the_board",
    "tests/host/test_flash.py::test_fake_board_soft_resets_and_cleans_up",
    "tests/host/test_flash.py::test_flash_copies_exactly_the_manifest",
    "tests/host/test_flash.py::test_flash_lands_files_and_firmware_imports",
    "tests/host/test_flash.py::test_flash_real_firmware",
    "tests/host/test_flash.py::test_flash_ruleset_file_and_card_map",
    "tests/host/test_flash.py::test_flash_source_replaces_mpy_modules",
    "tests/host/test_flash.py::test_logs_pull_copies_every_log",
    "tests/host/test_flash.py::test_version_mismatch_is_reported",
    "tests/firmware/test_flash_stalls.py::test_a_race_inside_a_flash_write_is_a_tie_not_pin_order",
    "tests/firmware/test_flash_stalls.py::test_no_flash_write_in_play_and_the_correction_menu_writes_the_log",
    "tests/firmware/test_flash_stalls.py::test_the_log_goes_to_flash_only_between_rounds_one_flash_write_per_step",
    "tests/drivers/test_inputs.py::test_r_play_glitches_on_button_and_pad_wires_are_not_presses",
    "tests/firmware/test_logbook.py::test_power_cut_mid_write_keeps_every_complete_record",
    "tests/firmware/test_loop_errors.py::test_errors_far_apart_do_not_add_up",
    "tests/drivers/test_nfc_piles.py::test_forty_card_pile_with_stacked_tag_faults_is_read_whole_and_in_order",
    "tests/drivers/test_nfc_reader.py::test_readers_allocate_nothing_per_card_or_idle_step_under_heap_lock",
    "tests/drivers/test_nfc_reader.py::test_silent_reader_backs_off_while_the_other_pile_keeps_working",
    "tests/host/test_packaging.py::test_commands_run_from_the_installed_wheel",
    "tests/host/test_packaging.py::test_wheel_holds_every_host_tools_package_and_the_engine",
    "tests/drivers/test_pn532_driver.py::test_runs_under_the_micropython_unix_port",
    "tests/host/test_replay.py::test_html_renders_in_headless_chromium",
    "tests/host/test_replay.py::test_long_logs_replay_in_constant_memory",
    "tests/host/test_replay_page.py::test_a_long_session_page_is_evidence_too",
    "tests/host/test_replay_page.py::test_checker_finds_overlapping_and_missing_labels",
    "tests/host/test_replay_page.py::test_sample_page_labels_every_mark_without_overlap_and_shows_every_race",
    "tests/host/test_replay_page.py::test_simulated_game_pages_are_evidence",
    "tests/host/test_replay_review.py::test_sample_page_reviews_at_390_px",
    "tests/host/test_replay_review.py::test_simulated_pages_review_at_390_px",
    "tests/host/test_replay_review.py::test_the_review_check_can_fail",
    "tests/micropython/test_sim_micropython.py::test_a_simulated_game_on_micropython_is_the_game_cpython_plays",
    "tests/host/test_sim_sweep.py::test_firmware_mode_no_faults_no_referee_errors_no_disagreements",
    "tests/host/test_sim_sweep.py::test_firmware_mode_with_misreads_every_error_is_an_injected_one",
    "tests/host/test_watch.py::test_every_verdict_reaches_the_page_in_order_and_a_late_page_sees_the_tops",
    "tests/host/test_watch.py::test_watch_command_serves_the_page_and_the_state",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        rel = os.path.relpath(str(item.fspath), ROOT).replace(os.sep, "/")
        group = rel.split("/")[1] if rel.count("/") >= 2 else ""
        if group == "rp2emu":
            item.add_marker(pytest.mark.rp2emu)
            item.add_marker(pytest.mark.slow)
        if group == "micropython" or "run_mp" in getattr(item, "fixturenames", ()) or "micropython" in item.name:
            item.add_marker(pytest.mark.micropython)
        node = rel + "::" + item.name
        if any(node == s or node.startswith(s + "[") or rel == s for s in SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def run_mp():
    """``run_mp(script, *args, timeout=120)``: run ``tests/micropython/<script>`` under the MicroPython unix
    port with the firmware on its path (as the board has it); skips without the executable."""
    import subprocess
    from fakes.fakeboard_pty import find_micropython
    try:
        exe = find_micropython()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    env = dict(os.environ, MICROPYPATH=".frozen:firmware:firmware/lib:.")

    def run(script, *args, timeout=120):
        return subprocess.run(exe + [MP_SCRIPTS + "/" + script] + list(args), cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout)
    return run


@pytest.fixture
def vb():
    """Virtual board: fake machine/rp2/micropython and a clock 5 ms before a 2**30 wrap as ``time``."""
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin

    Pin.reset_registry()
    board = install(VirtualClock((1 << 30) - 5000))
    try:
        yield board
    finally:
        board.uninstall()
