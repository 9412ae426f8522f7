"""scripts/demo.sh with a Pico attached passes only `spit flash`'s options to it (issue 29 item 4),
and scripts/test.sh ends by saying what it skipped and why (scripts/skip_summary.py)."""

import json
import os
import subprocess
import sys

from host_tools import demo_args
from host_tools import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _flash_ns(argv):
    return cli.parse_args(cli.build_parser(), ["flash"] + argv)


def test_readme_example_flash_args_parse(tmp_path):
    flash, notes = demo_args.flash_argv(["--ruleset", "tableau", "--seed", "7"], str(tmp_path))
    ns = _flash_ns(flash)
    assert ns.ruleset == "tableau"
    assert any("--seed 7" in n for n in notes)


def test_every_sim_option_is_left_out(tmp_path):
    argv = ["--games", "3", "--seed=9", "--log", "x.spitlog", "--html", "x.html", "--mode", "rp2",
            "--seconds", "20", "--skills", "quick,novice", "--misread", "5", "--quiet", "--board", "pico",
            "--port", "/dev/ttyACM0"]
    flash, notes = demo_args.flash_argv(argv, str(tmp_path))
    ns = _flash_ns(flash)
    assert (ns.board, ns.port) == ("pico", "/dev/ttyACM0")
    assert "--seed" not in flash and "--quiet" not in flash and "20" not in flash


def test_options_become_a_ruleset_file_flash_accepts(tmp_path):
    from host_tools.cli.device import check_ruleset
    flash, _ = demo_args.flash_argv(["--ruleset", "tableau", "--option", "wrap=ace_only",
                                     "--option", "slow_spit_ms=1500"], str(tmp_path))
    ns = _flash_ns(flash)
    with open(ns.ruleset) as f:
        config = json.load(f)
    assert config == {"ruleset": "tableau", "options": {"wrap": "ace_only", "slow_spit_ms": 1500}}
    check_ruleset(ns.ruleset)     # raises if the board would boot into an error


def test_demo_sh_with_a_board_runs_flash_with_flash_options_only(tmp_path):
    """The script itself, a board taken as attached and `spit` replaced by a recorder."""
    record = tmp_path / "calls"
    fake = tmp_path / "spit"
    fake.write_text("#!/bin/sh\nprintf '%%s|' \"$@\" >> %s\necho >> %s\n" % (record, record))
    fake.chmod(0o755)
    env = dict(os.environ, SPIT_DEMO_BOARD="1", SPIT_DEMO_SPIT=str(fake))
    env.pop("SPIT_SIMULATE", None)
    r = subprocess.run(["bash", "scripts/demo.sh", "--ruleset", "tableau", "--seed", "7"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    calls = record.read_text().splitlines()
    assert calls == ["flash|--ruleset|tableau|", "console|"]
    assert "--seed 7" in r.stderr


def _junit(tmp_path, cases):
    body = "".join('<testcase classname="tests.%s" file="tests/%s.py" name="t%d">%s</testcase>'
                   % (f, f, i, '<skipped message="%s"/>' % m if m else "") for i, (f, m) in enumerate(cases))
    p = tmp_path / "j.xml"
    p.write_text('<testsuites><testsuite name="pytest">%s</testsuite></testsuites>' % body)
    return str(p)


def test_skip_summary_names_the_emulated_pico_tests(tmp_path):
    from host_tools.rp2emu.emulator import MISSING_FIRMWARE
    path = _junit(tmp_path, [("test_rp2emu", MISSING_FIRMWARE + " (looked for /x)"),
                             ("test_rp2emu_inputs", MISSING_FIRMWARE), ("test_replay", None),
                             ("test_replay_page", "chromium not installed (CI installs Debian chromium)")])
    r = subprocess.run([sys.executable, "scripts/skip_summary.py", path], cwd=ROOT, capture_output=True, text=True)
    out = r.stdout
    assert r.returncode == 0
    assert "skipped: 3 test(s)" in out
    assert "emulated-Pico tests skipped (2: test_rp2emu.py, test_rp2emu_inputs.py): firmware image not found; see README" in out
    assert "HTML render tests skipped (1: test_replay_page.py)" in out


def test_skip_summary_says_when_nothing_was_skipped(tmp_path):
    path = _junit(tmp_path, [("test_replay", None)])
    r = subprocess.run([sys.executable, "scripts/skip_summary.py", path], cwd=ROOT, capture_output=True, text=True)
    assert r.stdout.strip() == "skipped: nothing (every test ran)"
