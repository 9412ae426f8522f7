"""The command line with no rough edges (issue 11, section 3): each item as a user meets it."""

import json
import os
import re
import sys

import pytest

from host_tools.cli import sim as cli_sim
from host_tools import replay
from host_tools.sim import run as sim_run
from support.cli import run  # (the CLI in-process: exit code, stdout, stderr)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


SAMPLE = os.path.join(ROOT, "examples", "sample.spitlog")


def sample_lines():
    with open(SAMPLE, encoding="utf-8") as f:
        return f.read().splitlines()


# --- spit sim ---

@pytest.mark.parametrize("value", ["2000", "-1", "lots"])
def test_sim_misread_outside_0_to_1000_is_refused(value):
    code, out, err = run(["sim", "--misread", value])
    assert code == 2 and out == ""
    assert "usage: spit sim" in err and "argument --misread:" in err


def test_sim_games_with_log_and_html_writes_one_file_per_game(tmp_path):
    log, html = tmp_path / "night.spitlog", tmp_path / "night.html"
    code, out, err = run(["sim", "--games", "3", "--seed", "4", "--log", str(log), "--html", str(html)])
    assert code == 0, err
    for seed in (4, 5, 6):
        game_log = tmp_path / ("night-%d.spitlog" % seed)
        assert game_log.read_text().splitlines() == sim_run.run_game("classic", seed=seed).lines
        assert "<svg" in (tmp_path / ("night-%d.html" % seed)).read_text()
    assert "wrote 6 files:" in out and not log.exists() and not html.exists()


@pytest.mark.parametrize("flag", ["--log", "--html"])
@pytest.mark.parametrize("games", [[], ["--games", "2"]])
def test_sim_unwritable_output_is_found_before_playing(tmp_path, monkeypatch, flag, games):
    def no_game(*_a, **_k):
        raise AssertionError("a game was played before the output was checked")
    monkeypatch.setattr(sim_run, "run_game", no_game)
    monkeypatch.setattr("host_tools.sim.stats.run_game", no_game)
    target = str(tmp_path / "no-such-dir" / "out.x")
    code, out, err = run(["sim", flag, target] + games)
    assert code == 1 and out == ""
    assert err.startswith("spit sim: ") and "cannot write: no such folder" in err and err.count("\n") == 1


def test_sim_games_in_firmware_mode_prints_no_boot_banner():
    pytest.importorskip("host_tools.vboard.runner")
    code, out, err = run(["sim", "--games", "2", "--mode", "firmware", "--quiet"])
    assert code == 0, err
    assert out.startswith("spit sim: 2 games, ruleset classic")
    assert "spit-referee" not in out and "PN532" not in out


def test_per_game_names_follow_the_seed():
    assert cli_sim.game_path("a/b.spitlog", 7, 3) == "a/b-7.spitlog"
    assert cli_sim.game_path("a/b.spitlog", 7, None) == "a/b.spitlog"


# --- spit flash and enroll ---

def test_flash_refuses_an_unknown_ruleset_even_in_a_dry_run(tmp_path):
    code, out, err = run(["flash", "--ruleset", "nosuch", "--dry-run", "--build-dir", str(tmp_path / "b")])
    assert code == 1 and "mpremote" not in out
    assert err == "spit flash: error: --ruleset nosuch: unknown ruleset 'nosuch' (presets: classic, family, own_deck, " \
                  "speed, tableau)\n"
    house = tmp_path / "house.json"
    house.write_text(json.dumps({"ruleset": "classic", "options": {"piles": 9}}))
    code, _out, err = run(["flash", "--ruleset", str(house), "--dry-run", "--build-dir", str(tmp_path / "b")])
    assert code == 1 and "piles" in err


def test_enroll_board_port_with_no_device_says_so(tmp_path, monkeypatch):
    from host_tools import enroll

    def no_mpremote(*_a, **_k):
        raise AssertionError("mpremote started for a port that does not exist")
    monkeypatch.setattr(enroll, "run_board_enrollment", no_mpremote)
    port = "/dev/ttyACM-spit-test-missing"
    code, _out, err = run(["enroll", "--board-port", port, "--out", str(tmp_path / "c.json")])
    assert code == 1
    assert "no device at %s" % port in err and "plugged in" in err and "in use" not in err


# --- spit replay: bad files said in words ---

def test_replay_of_a_binary_file_names_it_and_prints_no_raw_bytes(tmp_path):
    blob = tmp_path / "firmware.mpy"
    blob.write_bytes(b"M\xceb\x1f\x00\x01\x02\xff\xfe" * 50)
    code, out, err = run(["replay", str(blob)])
    assert (code, out) == (1, "")
    assert err.startswith("spit replay: %s: not a session log: it is binary data" % blob)
    assert "MicroPython bytecode" in err and "\x00" not in err and "\ufffd" not in err


def test_replay_with_a_garbage_first_line_says_the_header_is_missing(tmp_path):
    lines = sample_lines()
    path = tmp_path / "g.spitlog"
    path.write_text("\n".join(["garbage here"] + lines[1:]) + "\n")
    code, out, err = run(["replay", "--quiet", str(path)])
    assert "device said nothing" not in out
    assert code == replay.EXIT_BAD_LINES
    assert "line 1: not valid JSON: garbage here" in err
    # The first JSON line is a device verdict, not a header: said in words, and used as a verdict.
    assert "no valid header" in err and "classic rules" in err
    assert "device verdicts: 173 logged, 0 mismatches" in out


def test_replay_of_a_cut_off_log_reports_no_disagreement(tmp_path):
    lines = sample_lines()
    # Cut just after an event line whose verdicts the device had not written yet.
    cut = next(i for i in range(len(lines) // 2, len(lines))
               if '"ev"' in lines[i] and '"verdict"' in lines[i + 1])
    path = tmp_path / "cut.spitlog"
    path.write_text("\n".join(lines[:cut + 1]) + "\n")
    code, out, err = run(["replay", "--quiet", str(path)])
    assert code == replay.EXIT_OK, err
    assert "MISMATCH" not in out
    assert re.search(r"the log ends before the device wrote its last \d+ verdicts? \(cut off", err)
    # A real disagreement in the same cut log is still one.
    i = next(i for i in range(cut) if '"verdict": "accept"' in lines[i])
    wrong = lines[:cut + 1]
    wrong[i] = wrong[i].replace('"accept"', '"illegal"')
    path.write_text("\n".join(wrong) + "\n")
    code, out, _err = run(["replay", "--quiet", str(path)])
    assert code == replay.EXIT_MISMATCH and out.count("MISMATCH line %d: device said illegal" % (i + 1)) == 1


def test_unknown_flag_gets_the_subcommands_usage():
    for argv, usage in ((["replay", "--bogus", SAMPLE], "usage: spit replay"), (["sim", "--nope"], "usage: spit sim"),
                        (["logs", "pull", "--zz"], "usage: spit logs pull"), (["stats", "--x", SAMPLE],
                                                                              "usage: spit stats")):
        code, _out, err = run(argv)
        assert code == 2
        assert err.startswith(usage), err
        assert "unrecognized arguments" in err


def test_error_lines_say_what_the_error_means(tmp_path):
    lines = sample_lines()[:1] + ['{"t": 2500000, "ev": "touch", "pile": 0}', '{"t": 9000000, "ev": "tick"}']
    path = tmp_path / "e.spitlog"
    path.write_text("\n".join(lines) + "\n")
    code, out, _err = run(["replay", str(path)])
    assert "ERROR no_read: a touch with no card read after it (a misread card?)  pile 0" in out
    assert "summary: 1 round, 0 plays, 0 races (0 late), 0 ties, 0 illegal, 0 early, 0 spit calls, 1 error" in out


def test_counts_are_in_plain_english():
    assert replay.plural(1, "tie") == "1 tie" and replay.plural(2, "tie") == "2 ties"
    assert replay.plural(1, "mismatch", "mismatches") == "1 mismatch"
    assert replay.describe("pile_won", {"player": 1, "pile": 0, "size": 0}) == "player 1 takes pile 0  (empty)"
    assert replay.describe("pile_won", {"player": 1, "pile": 0, "size": 1}) == "player 1 takes pile 0  (1 card)"
    assert replay.describe("spit_call", {"piles": 1}).endswith("(1 pile)")


# --- docs and benches the command line points to ---

def test_bench_readme_exists_and_explains_the_heap_cap():
    with open(os.path.join(ROOT, "scripts", "test.sh"), encoding="utf-8") as f:
        assert "bench/README.md" in f.read()
    with open(os.path.join(ROOT, "bench", "README.md"), encoding="utf-8") as f:
        text = f.read()
    assert "96 KB" in text and "48 KB" in text and "64-bit" in text
    assert "bench_firmware.py" in text and "2.5 min" in text


def test_bench_firmware_says_how_long_it_takes_before_starting(monkeypatch, capsys):
    import subprocess
    from bench import bench_firmware

    def stop(*_a, **_k):
        raise KeyboardInterrupt
    monkeypatch.setattr(subprocess, "run", stop)
    monkeypatch.setattr(sys, "argv", ["bench_firmware.py"])
    with pytest.raises(KeyboardInterrupt):
        bench_firmware.main()
    assert "about 2.5 minutes" in capsys.readouterr().out


def test_rules_doc_says_why_family_plays_like_classic():
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
        text = f.read()
    assert "Why `family` plays like `classic`" in text
    family, classic = sim_run.run_game("family", seed=2).lines, sim_run.run_game("classic", seed=2).lines
    assert family[1:] == classic[1:] and family[0] != classic[0]   # what the doc claims
