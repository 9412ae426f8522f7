"""Bad input gets a clear one-line error and loses nothing: each case as a user meets it."""

import os

from host_tools import replay
from support.cli import run  # (the CLI in-process: exit code, stdout, stderr)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


SAMPLE = os.path.join(ROOT, "examples", "sample.spitlog")


def sample_bytes():
    with open(SAMPLE, "rb") as f:
        return f.read()


def sample_lines():
    return sample_bytes().decode("utf-8").splitlines()


# --- spit replay: lines before the header (docs/log-format.md) ---

def test_replay_keeps_the_real_header_after_json_lines_that_are_no_header(tmp_path):
    lines = sample_lines()
    path = tmp_path / "pre.spitlog"
    path.write_text("\n".join(["[1, 2]", '{"note": "table 3"}'] + lines) + "\n")
    code, out, err = run(["replay", "--quiet", str(path)])
    assert code == replay.EXIT_BAD_LINES
    assert "line 1: before the header: not a header or event line (skipped): [1, 2]" in err
    assert "line 2: before the header" in err
    assert "no valid header" not in err and "classic rules" not in err
    assert ", 0 mismatches" in out    # the header's options (tie window, reorder) were used


def test_replay_judges_event_lines_before_the_header_after_it():
    lines = sample_lines()
    first_event = next(i for i, line in enumerate(lines) if '"ev"' in line)
    moved = [lines[first_event], lines[0]] + lines[1:first_event] + lines[first_event + 1:]
    rep = replay.replay_lines([line + "\n" for line in moved])
    assert rep.header_problem is None and rep.n_problems == 0 and rep.n_mismatches == 0


def test_replay_of_a_bad_header_says_it_once_and_judges_with_classic_rules(tmp_path):
    lines = sample_lines()
    path = tmp_path / "v2.spitlog"
    path.write_text("\n".join([lines[0].replace('"spitlog": 1', '"spitlog": 2')] + lines[1:]) + "\n")
    code, out, err = run(["replay", "--json", str(path)])
    problems = [line for line in err.splitlines() if ": line " in line]
    assert len(problems) == 1 and "line 1: bad header (unsupported spitlog version 2" in problems[0]
    assert "unknown event" not in err
    errors = [line for line in out.splitlines() if '"verdict": "error"' in line]
    assert len(errors) == 1 and '"reason": "malformed"' in errors[0] and '"line": 1' in errors[0]


# --- spit replay / spit stats: bad bytes in one line are one bad line, not a binary file ---

def test_replay_reports_a_non_utf8_line_near_the_start_and_keeps_the_rest(tmp_path):
    data = sample_bytes().split(b"\n")
    data.insert(3, b'{"t": 5, "ev": "card", "pile": 0, "card": "7\xe9"}')
    data.insert(4, b"\x00\x00\xff\xff")     # erased or zeroed flash
    path = tmp_path / "bytes.spitlog"
    path.write_bytes(b"\n".join(data))
    code, out, err = run(["replay", "--quiet", str(path)])
    assert code == replay.EXIT_BAD_LINES
    assert "line 4: unknown card code" in err
    assert "line 5: not valid JSON: \\x00\\x00" in err and "\x00" not in err
    assert ", 0 mismatches" in out
    code, out, err = run(["stats", str(path)])
    assert code == 0 and "2 bad lines skipped" in err and "player 0" in out


def test_replay_still_refuses_a_file_whose_first_line_is_binary(tmp_path):
    path = tmp_path / "blob.spitlog"
    path.write_bytes(b"\xff\xfe\x00{\n" + sample_bytes())
    code, out, err = run(["replay", str(path)])
    assert (code, out) == (1, "")
    assert err.startswith("spit replay: %s: not a session log: it is binary data" % path)


def test_replay_reads_a_log_saved_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.spitlog"
    path.write_bytes(b"\xef\xbb\xbf" + sample_bytes())
    code, out, err = run(["replay", "--quiet", str(path)])
    assert code == replay.EXIT_OK and err == ""


# --- spit flash: a ruleset file with a misspelt key ---

def test_flash_refuses_a_ruleset_file_with_an_unknown_key(tmp_path):
    path = tmp_path / "house.json"
    path.write_text('{"ruleset": "classic", "optoins": {"wrap": "ace_only"}}')
    code, out, err = run(["flash", "--dry-run", "--build-dir", str(tmp_path / "b"), "--ruleset", str(path)])
    assert code == 1 and out == ""
    assert err == ("spit flash: error: ruleset file %s: unknown key 'optoins' (a ruleset file has \"ruleset\" "
                   "and \"options\"; keys starting with _ are comments)\n" % path)


def test_flash_takes_a_ruleset_file_with_comment_keys(tmp_path):
    from host_tools.device import flash_inputs
    path = tmp_path / "house.json"
    path.write_text('{"_why": "Friday club", "ruleset": "tableau", "options": {"wrap": "none"}}')
    assert flash_inputs.ruleset_config(str(path))["options"] == {"wrap": "none"}


# --- spit sim: a wrong option value ---

def test_sim_refuses_seconds_that_are_not_above_zero(tmp_path):
    for value in ("-1", "0", "nan", "inf"):
        code, out, err = run(["sim", "--seconds", value, "--log", str(tmp_path / "x.spitlog")])
        assert (code, out) == (2, "")
        assert err.startswith("spit sim: --seconds must be a number of seconds above 0") and err.count("\n") == 1
    assert not (tmp_path / "x.spitlog").exists()


def test_sim_games_stop_each_game_after_seconds_and_count_no_disagreement_for_it():
    code, out, err = run(["sim", "--games", "2", "--seconds", "5", "--quiet"])
    assert code == 0
    assert "unfinished 2" in out and "table/referee disagreements: 0" in out


# --- board commands: a port that does not exist ---

def test_board_commands_say_a_missing_port_is_no_device_before_building(tmp_path):
    port = str(tmp_path / "ttyACM9")
    for argv in (["flash", "--build-dir", str(tmp_path / "b")], ["logs", "pull", "--dest", str(tmp_path / "l")],
                 ["console"]):
        code, out, err = run(argv + ["--port", port])
        assert (code, out) == (1, "")
        assert err == ("spit %s: error: no device at %s: is the board plugged in? (without --port, spit finds "
                       "a connected Pico by itself)\n" % (" ".join(argv[:2] if argv[0] == "logs" else argv[:1]), port))
    assert not (tmp_path / "b").exists()


def test_port_check_lets_mpremote_urls_and_short_names_through():
    from host_tools.device import mpremote as board_mpremote
    for port in ("rfc2217://localhost:2217", "socket://192.168.1.5:23", "COM5", "a0", "auto", None):
        assert board_mpremote.check_port(port) is None


# --- spit replay: the log's line limits (docs/log-format.md) hold on its fast path too ---

def test_replay_says_too_long_and_too_deep_lines_are_malformed_as_the_engine_does():
    from spit.log import rejudge
    lines = sample_lines()
    t = 1700000

    def nested(k):      # a tick whose line nests 1 + k deep
        return '{"t": %d, "ev": "tick", "x": %s%s}' % (t, "[" * k, "]" * k)

    def long_line(n):   # a tick line of exactly n characters
        head = '{"t": %d, "ev": "tick", "pad": "' % t
        return head + "x" * (n - len(head) - 2) + '"}'

    extra = [nested(7), nested(8), long_line(4096), long_line(4097),
             '{"t": %d, "verdict": "error", "reason": "malformed", "x": %s%s}' % (t, "[" * 8, "]" * 8)]
    assert [len(line) for line in extra[2:4]] == [4096, 4097]
    mixed = lines[:5] + extra + lines[5:]
    engine = sorted(n for n, _ in rejudge(mixed).problems)
    rep = replay.replay_lines([line + "\n" for line in mixed])
    assert sorted(n for n, _ in rep.problems) == engine == [7, 9, 10]


# --- config files: a key written twice (json would keep the last one silently) ---

def test_flash_refuses_a_card_map_with_a_uid_written_twice(tmp_path):
    path = tmp_path / "cards.json"
    path.write_text('{"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", "04A1B2C3D4E5F6": "KS"}}')
    code, out, err = run(["flash", "--dry-run", "--build-dir", str(tmp_path / "b"), "--cards", str(path)])
    assert (code, out) == (1, "")
    assert err == "spit flash: error: card map %s: key '04A1B2C3D4E5F6' appears twice in one object (keep one)\n" % path


def test_flash_refuses_a_ruleset_file_with_an_option_written_twice(tmp_path):
    path = tmp_path / "house.json"
    path.write_text('{"ruleset": "classic", "options": {"wrap": "none", "wrap": "both"}}')
    code, out, err = run(["flash", "--dry-run", "--build-dir", str(tmp_path / "b"), "--ruleset", str(path)])
    assert code == 1 and "ruleset file %s: key 'wrap' appears twice" % path in err


def test_enroll_refuses_to_resume_a_card_map_with_a_uid_written_twice(tmp_path, capsys):
    from host_tools import cli
    path = tmp_path / "cards.json"
    text = '{"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "AC", "04A1B2C3D4E5F6": "2C"}}'
    path.write_text(text)
    assert cli.main(["enroll", "--port", "/dev/null", "--out", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == "spit enroll: error: %s: key '04A1B2C3D4E5F6' appears twice in one object (keep one)\n" % path
    assert path.read_text() == text    # nothing lost


def test_flash_says_an_empty_or_non_utf8_config_file_in_words(tmp_path):
    empty, blob = tmp_path / "empty.json", tmp_path / "blob.json"
    empty.write_text("  \n")
    blob.write_bytes(b"\xff\xfe{\x00")
    cases = [(["--board", str(empty)], "board file %s is empty" % empty),
             (["--ruleset", str(empty)], "ruleset file %s is empty" % empty),
             (["--cards", str(empty)], "card map %s is empty" % empty),
             (["--board", str(blob)], "board file %s is not UTF-8 text (byte 0xff at offset 0)" % blob)]
    for args, message in cases:
        code, out, err = run(["flash", "--dry-run", "--build-dir", str(tmp_path / "b")] + args)
        assert (code, out) == (1, "") and err.startswith("spit flash: error: " + message) and err.count("\n") == 1


def test_replay_gives_the_engine_s_error_verdicts_for_bad_lines_before_the_header():
    from spit.log import rejudge
    lines = sample_lines()
    deep = '{"t": 0, "ev": "tick", "x": %s%s}' % ("[" * 8, "]" * 8)
    for before in (["junk"], ["[1, 2]", "junk", deep], [deep, '{"t": 0, "verdict": "accept"}']):
        mixed = before + lines

        def errors(verdicts):
            return [(n, dict(items)["reason"]) for n, items in verdicts if dict(items)["verdict"] == "error"]
        rep = replay.replay_lines([line + "\n" for line in mixed], keep=True)
        assert errors(rep.verdicts) == errors(rejudge(mixed).verdicts) and len(errors(rep.verdicts)) == len(before)
        assert rep.n_mismatches == 0


def test_replay_of_a_log_without_header_says_it_once_with_one_error():
    lines = sample_lines()[1:]
    rep = replay.replay_lines([line + "\n" for line in lines], keep=True)
    errors = [dict(items) for _n, items in rep.verdicts if dict(items)["verdict"] == "error"]
    assert len(errors) == 1 and errors[0]["reason"] == "malformed"
    assert rep.n_problems == 1 and "no valid header" in rep.problems[0][1]


# --- spit flash --cards: legal but likely mistakes are warned about ---

def test_flash_warns_about_an_empty_card_map_and_a_card_on_two_tags(tmp_path):
    from host_tools.device import flash_inputs
    empty = tmp_path / "empty.json"
    empty.write_text('{"cardmap": 1, "cards": {}}')
    assert flash_inputs.card_map_warnings(str(empty)) == [
        "card map %s has no cards: every tag will be an unknown tag (enroll them: spit enroll)" % empty]
    twice = tmp_path / "twice.json"
    twice.write_text('{"cardmap": 1, "cards": {"04A1B2C3": "QH", "04A1B2C4": "QH", "04A1B2C5": "QH@1", '
                     '"04A1B2C6": "KS"}}')
    assert flash_inputs.card_map_warnings(str(twice)) == [
        "card map %s: QH is on 2 tags (04A1B2C3, 04A1B2C4): remove the ones not in the deck" % twice]


def test_flash_dry_run_prints_the_card_map_warning(tmp_path):
    cards = tmp_path / "cards.json"
    cards.write_text('{"cardmap": 1, "cards": {"04A1B2C3": "QH", "04A1B2C4": "QH"}}')
    code, out, err = run(["flash", "--dry-run", "--port", "/dev/ttyACM7", "--cards", str(cards),
                          "--build-dir", str(tmp_path / "b")])
    assert code == 0, err
    assert "spit flash: warning: card map %s: QH is on 2 tags (04A1B2C3, 04A1B2C4)" % cards in err
