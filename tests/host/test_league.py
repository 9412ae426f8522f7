"""Players with names, and the league (issue 30): ``spit stats`` per named player across seat swaps
(names from the session header or ``--players``), its per-game table, ``--json`` and ``--csv``;
``spit league`` over 30 simulated games with named players gives standings, and the ratings are
pinned against openskill's own result for the same games in the same order."""

import csv
import io
import json
import os

import pytest

from host_tools.sim.run import run_game
from support.cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


NAMES = ("Ann", "Bob", "Cy", "Dee")
PAIRS = ((0, 1), (2, 0), (1, 2), (3, 0), (1, 3), (2, 3))   # every pair, seats swapped as the evening goes
PRESETS = ("own_deck", "speed", "classic")


def named_log(tmp_path, i):
    """Game i: a simulated game whose header names its players (as set at the table) and its start."""
    preset = PRESETS[i % len(PRESETS)]
    lines = run_game(preset, None, seed=100 + i).lines
    a, b = PAIRS[i % len(PAIRS)]
    if i % 2:
        a, b = b, a
    header = json.loads(lines[0])
    header["players"] = [NAMES[a], NAMES[b]]
    header["started"] = "2026-12-%02dT20:%02d:00" % (1 + i // 10, i % 60)
    path = tmp_path / ("g%02d.spitlog" % i)
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    return str(path), header["players"]


def result_of(log):
    """The winner's seat (-1 a draw, None unfinished) from the re-judged verdicts."""
    code, out, err = run(["replay", "--json", log])
    assert code in (0, 3), err
    over = [json.loads(v) for v in out.splitlines() if '"game_over"' in v]
    return over[-1]["winner"] if over else None


@pytest.fixture(scope="module")
def thirty(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("league")
    return [named_log(tmp, i) for i in range(30)], tmp


def test_league_standings_pinned_against_openskill(thirty):
    from openskill.models import PlackettLuce
    games, tmp = thirty
    db = str(tmp / "club.sqlite")
    code, out, err = run(["league", "--db", db, "--json"] + [g for g, _n in reversed(games)])   # any order given
    assert code == 0, err
    got = json.loads(out)
    assert got["added"] == 30
    standings = {e["name"]: e for e in got["standings"]}
    assert sorted(standings) == sorted(NAMES)
    # the library's own result, the same games in the order they were played
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in NAMES}
    played = {n: 0 for n in NAMES}
    for log, (p0, p1) in games:
        w = result_of(log)
        if w is None:
            continue
        ranks = [1, 1] if w < 0 else [1, 2] if w == 0 else [2, 1]
        [[a], [b]] = model.rate([[ratings[p0]], [ratings[p1]]], ranks=ranks)
        ratings[p0], ratings[p1] = a, b
        played[p0] += 1
        played[p1] += 1
    for n in NAMES:
        assert standings[n]["mu"] == pytest.approx(ratings[n].mu, abs=1e-9)
        assert standings[n]["sigma"] == pytest.approx(ratings[n].sigma, abs=1e-9)
        assert standings[n]["ordinal"] == pytest.approx(ratings[n].ordinal(), abs=1e-9)
        assert standings[n]["games"] == played[n]
    order = [e["name"] for e in got["standings"]]
    assert order == sorted(NAMES, key=lambda n: -ratings[n].ordinal())
    # adding the same logs again changes nothing
    code, out, _ = run(["league", "--db", db, "--json", games[0][0]])
    assert json.loads(out)["added"] == 0 and json.loads(out)["standings"] == got["standings"]


def test_league_text_and_page_and_provisional(thirty, tmp_path):
    games, _tmp = thirty
    db = str(tmp_path / "few.sqlite")
    page = str(tmp_path / "standings.html")
    code, out, err = run(["league", "--db", db, "--html", page] + [g for g, _n in games[:4]])
    assert code == 0, err
    assert out.startswith("4 games added to %s" % db)
    assert "provisional" in out   # nobody has 5 rated games yet
    with open(page, encoding="utf-8") as f:
        html = f.read()
    assert 'name="viewport"' in html and "provisional" in html
    for _log, names in games[:4]:
        assert all(n in html for n in names)


def test_stats_per_named_player_across_seat_swaps(thirty):
    games, _tmp = thirty
    logs = [g for g, _n in games[:12]]
    code, out, err = run(["stats", "--json"] + logs)
    assert code == 0, err
    got = json.loads(out)
    wins = {n: 0 for n in NAMES}
    for log, names in games[:12]:
        w = result_of(log)
        if w is not None and w >= 0:
            wins[names[w]] += 1
    assert {n: p["games_won"] for n, p in got["players"].items()} == {n: wins[n] for n in got["players"]}
    assert [g["players"] for g in got["per_game"]] == [n for _g, n in games[:12]]
    code, out, _ = run(["stats", "--csv"] + logs)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 12 and rows[0]["started"] == "2026-12-01T20:00:00"
    code, out, _ = run(["stats"] + logs)
    assert out.splitlines()[1].split() == ["Ann", "Bob", "Cy", "Dee", "not", "named"]


def test_players_option_names_logs_without_names(tmp_path):
    log = tmp_path / "plain.spitlog"
    log.write_text("\n".join(run_game("own_deck", None, seed=3).lines) + "\n", encoding="utf-8")
    code, out, err = run(["stats", "--players", "Eve,Fay", str(log)])
    assert code == 0, err
    assert out.splitlines()[1].split()[:2] == ["Eve", "Fay"]
    code, _out, err = run(["stats", "--players", "Eve", str(log)])
    assert code == 2 and "two different names" in err


def test_stats_html_and_json_say_not_known_for_what_the_log_does_not_name(tmp_path):
    log = tmp_path / "classic.spitlog"
    log.write_text("\n".join(run_game("classic", None, seed=1).lines) + "\n", encoding="utf-8")
    page = tmp_path / "evening.html"
    code, out, err = run(["stats", "--json", "--html", str(page), "--players", "Ann,Bob", str(log)])
    assert code == 0, err
    got = json.loads(out)
    assert got["players"]["Ann"]["races_won"] is None and got["players"]["Ann"]["illegal"] is None
    assert got["players"]["Ann"]["stuck"] > 0 and got["players"]["Ann"]["spit_cards"] > 0
    html = page.read_text(encoding="utf-8")
    assert 'name="viewport"' in html and html.count("<svg") == 3
    assert "races won" in html and "not known from the log" in html
    assert ">0</td>" not in html.split("<h2>Games</h2>")[0].split("races won / lost")[1].split("</tr>")[0]
