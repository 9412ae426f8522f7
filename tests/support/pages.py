"""Shared by several test modules (moved from test_replay_page.py)."""

import json
import os
from host_tools.sim.run import run_game  # noqa: E402
from support.cli import run  # noqa: E402  (the CLI in-process: exit code, stdout, stderr)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


SAMPLE = os.path.join(ROOT, "examples", "sample.spitlog")


CHROMIUM = "/usr/bin/chromium"


def simulated_log(tmp_path, preset, options, seed):
    path = tmp_path / ("%s-%d.spitlog" % (preset, seed))
    path.write_text("\n".join(run_game(preset, options, seed=seed).lines) + "\n", encoding="utf-8")
    return str(path)


def page_of(tmp_path, log):
    html = str(tmp_path / (os.path.basename(log) + ".html"))
    code, _out, err = run(["replay", "--quiet", "--html", html, log])
    assert code == 0, err
    return html


def expected_races(log):
    """Races from the verdicts: ties, late cards and accepted cards with dt_us (a tie's card counted once)."""
    code, out, err = run(["replay", "--json", log])
    assert code == 0, err
    count, tie = 0, None
    for v in map(json.loads, out.splitlines()):
        if v["verdict"] == "tie":
            count += 1
            tie = (v["pile"], v["card"])
        elif v["verdict"] in ("late", "accept", "illegal") and tie == (v["pile"], v["card"]):
            tie = None
        elif v["verdict"] == "late" or (v["verdict"] == "accept" and "dt_us" in v):
            count += 1
    return count
