"""``spit sim``: the simulated table, its bots and the statistics (fast mode, plus MicroPython equality)."""

import os
import shutil
import subprocess

import pytest

from host_tools import cli
from host_tools.replay import rejudge_lines
from host_tools.sim import claims
from host_tools.sim.game import Rng
from host_tools.sim.run import Sim, run_game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRESETS = ("classic", "tableau", "family", "own_deck", "speed")
OPTION_SETS = (
    ("classic", {"wrap": "ace_only"}),
    ("classic", {"piles": 3}),
    ("classic", {"jokers": 2}),
    ("family", {"jokers": 1, "joker_next": "as_below", "colours": "alternate"}),
    ("classic", {"slow_spit_ms": 2000}),
    ("classic", {"stocks": 4}),
    ("classic", {"points_target": 40}),
    ("tableau", {"rounds_in_a_row": 2}),
    ("classic", {"timer_ms": 60000}),
    ("classic", {"slap": "choose"}),
)
# A card still in the air when the game ends lands after game_over: the referee says "unexpected".
EXPECTED_ERRORS = ("unexpected",)


def verdict_lines(lines):
    return [line for line in lines[1:] if '"verdict"' in line]


def check_game(result):
    assert result.finished, result.notes
    assert result.notes == []   # the referee's card counts always matched the table's
    for name in result.errors:
        assert name in EXPECTED_ERRORS, result.errors
    objs = [line for line in result.lines if '"game_over"' in line]
    assert len(objs) == 1


def test_rng_is_deterministic_and_spread():
    a, b = Rng(5), Rng(5)
    xs = [a.below(10) for _ in range(1000)]
    assert xs == [b.below(10) for _ in range(1000)]
    assert sorted(set(xs)) == list(range(10))
    deck = list(range(52))
    Rng(1).shuffle(deck)
    assert sorted(deck) == list(range(52)) and deck != list(range(52))


def test_same_seed_same_game_other_seed_other_game():
    one = run_game("classic", seed=11).lines
    assert run_game("classic", seed=11).lines == one
    assert run_game("classic", seed=12).lines != one


@pytest.mark.parametrize("ruleset", PRESETS)
def test_every_preset_finishes(ruleset):
    for seed in (1, 2, 3):
        check_game(run_game(ruleset, seed=seed))


@pytest.mark.parametrize("ruleset,options", OPTION_SETS)
def test_options_finish(ruleset, options):
    for seed in (1, 2):
        check_game(run_game(ruleset, options, seed=seed))


def test_timer_ends_the_game_by_the_timer():
    result = run_game("classic", {"timer_ms": 20000}, seed=2)
    assert result.reason == "timer"
    assert any('"question"' in line for line in result.lines)


def test_cards_are_conserved_at_every_round_end(monkeypatch):
    seen = []
    original = Sim._round_over

    def round_over(self, t, arg):
        table = self.table
        # Piles handed out, cards still out there not yet home: count everything.
        assert table.total() == table.deck_size
        original(self, t, arg)
        if not self.over:
            assert table.total() == table.deck_size == 52
            assert sum(self.expected) == 52   # what each player now holds, told to the referee
            seen.append(list(self.expected))

    monkeypatch.setattr(Sim, "_round_over", round_over)
    for seed in range(1, 6):
        result = run_game("classic", seed=seed)
        check_game(result)
    assert len(seen) >= 5


@pytest.mark.parametrize("ruleset,options", [(p, None) for p in PRESETS] + list(OPTION_SETS[:3]))
def test_log_rejudges_to_the_live_verdicts(ruleset, options):
    result = run_game(ruleset, options, seed=4)
    replay = rejudge_lines(result.lines)
    assert replay.problems == []
    assert replay.mismatches == []
    from spit.words import items_json
    assert [items_json(items) for _line, items in replay.rejudge.verdicts] == verdict_lines(result.lines)


def test_races_late_cards_and_stalemates_happen():
    total = {"races": 0, "late": 0, "spit_calls": 0, "illegal": 0}
    for seed in range(1, 9):
        st = run_game("classic", seed=seed, keep_log=False).stats
        for k in total:
            total[k] += st[k]
    assert all(total[k] > 0 for k in total), total


def test_cli_one_game_writes_log_and_html(tmp_path, capsys):
    log = tmp_path / "g.spitlog"
    html = tmp_path / "g.html"
    assert cli.main(["sim", "--seed", "3", "--log", str(log), "--html", str(html)]) == 0
    out = capsys.readouterr()
    assert "ROUND 1 starts" in out.out and "GAME OVER" in out.out
    assert "spit sim: round 1" in out.err
    assert log.read_text().startswith('{"spitlog": 1')
    assert "<svg" in html.read_text()


def test_cli_games_prints_the_stats_table(capsys):
    assert cli.main(["sim", "--games", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for words in ("rounds / game", "stalemates (spit calls) / game", "races / game", "ties / game",
                  "illegal / game", "late / game", "game length (simulated min)", "winner split"):
        assert words in out
    assert "unfinished 0" in out


def test_cli_bad_option_is_one_line(capsys):
    assert cli.main(["sim", "--option", "wrap=sideways"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("spit sim: option 'wrap'") and err.count("\n") == 1


def test_claims_script_runs(capsys):
    assert claims.main(["4"]) == 0
    out = capsys.readouterr().out
    assert "wrap=ace_only" in out and "piles=3" in out and "claim R-CARD-3" in out


@pytest.mark.skipif(shutil.which("micropython", path=os.path.join(ROOT, ".venv", "bin")) is None,
                    reason="micropython unix port not installed")
def test_same_game_on_micropython(tmp_path):
    script = tmp_path / "mp_sim.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nsys.path.insert(0, %r)\n"
                      "from host_tools.sim.run import run_game\n"
                      "for line in run_game('classic', None, seed=3).lines[1:]:\n    print(line)\n"
                      % (os.path.join(ROOT, "firmware", "lib"), ROOT))
    mp = shutil.which("micropython", path=os.path.join(ROOT, ".venv", "bin"))
    got = subprocess.run([mp, str(script)], capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert got.returncode == 0, got.stdout + got.stderr
    assert got.stdout.splitlines() == run_game("classic", seed=3).lines[1:]


def test_firmware_mode_first_seconds_match_the_rejudge():
    """The same table drives the real firmware on the virtual board; its log re-judges cleanly."""
    pytest.importorskip("host_tools.vboard.runner")
    from host_tools.sim.firmware import firmware_port
    result = run_game("classic", seed=1, port_factory=firmware_port, max_minutes=0.2)
    assert result.notes == ["unfinished: simulated time limit reached"]
    assert result.stats["plays"] > 3
    assert result.lines[0].startswith('{"spitlog": 1') and '"firmware"' in result.lines[0]
    replay = rejudge_lines(result.lines)
    assert replay.mismatches == [] and replay.problems == []
    assert sum(1 for _l, items in replay.rejudge.verdicts if items[1][1] == "accept") == result.stats["plays"]


def test_a_speed_recycle_keeps_the_referees_top_and_leaves_a_rejected_card_out():
    """R-SPEED-1 with a late card still on a pile (its owner has not taken it back yet): the side
    piles get the counted cards under the referee's top, not that top, and not the late card."""
    from host_tools.sim.game import S_IN, S_OUT, Table
    from spit.rules import make_ruleset
    table = Table(make_ruleset("speed"), Rng(3))
    table.piles[0] = [[0x11, 0, S_IN, 0, False, -1], [0x12, 1, S_IN, 0, False, -1],
                      [0x13, 0, S_OUT, 0, False, -1]]           # 0x13 was called late
    table.piles[1] = [[0x21, 0, S_IN, 0, False, -1], [0x22, 1, S_IN, 0, False, -1]]
    assert [e[0] for e in table.recycled_entries(0)] == [0x11]
    assert table.recycle() == 2                                    # 0x11 and 0x21, as the referee counts
    assert [e[0] for e in table.piles[0]] == [0x12, 0x13]         # the referee's top, the late card
    assert [e[0] for e in table.piles[1]] == [0x22]
    assert sorted(table.seats[0].spit + table.seats[1].spit) == [0x11, 0x21]
