"""The replay page as evidence, checked in headless Chromium from the rendered page (1400 px wide):
every card mark has a visible label, no two labels' boxes overlap, every race shows its delta t
(linked to its zoom, which shows the same delta t); for the bundled sample log and simulated games
of three presets (one with three center piles).  Skipped when /usr/bin/chromium is missing
(.ci/run installs Debian's chromium).

Also, without a browser: races found on the page match the verdicts, the per-player plots and the
round stories are there, and ``spit stats`` adds up several logs.
"""

import json
import os
import re
import subprocess

import pytest

from support.cli import run  # (the CLI in-process: exit code, stdout, stderr)
from support.pages import CHROMIUM, SAMPLE, expected_races, page_of, simulated_log  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# Three presets: a 3-pile tableau game, own-deck (every card names its player), Speed.
SIMULATED = (("tableau", {"piles": 3}, 5), ("own_deck", None, 3), ("speed", None, 2))

# Measures the rendered page and writes the findings into <pre id="layout-check"> (the page itself has
# no script: the test adds this one to a copy).
CHECKER = r"""
<script>
(function () {
  function box(el) {
    var r = el.getBoundingClientRect();
    return {l: r.left + scrollX, t: r.top + scrollY, r: r.right + scrollX, b: r.bottom + scrollY, w: r.width,
            h: r.height};
  }
  var res = {labels: 0, marks: 0, races: 0, missing: [], invisible: [], overlaps: [], race_problems: [],
             duplicate_ids: []};
  var seen = {};
  Array.prototype.forEach.call(document.querySelectorAll('[id]'), function (el) {
    if (seen[el.id]) res.duplicate_ids.push(el.id);
    seen[el.id] = true;
  });
  var labels = Array.prototype.slice.call(document.querySelectorAll('svg .label'));
  res.labels = labels.length;
  var items = [];
  labels.forEach(function (g) {
    var text = g.querySelector('text'), tb = box(text), rb = box(g.querySelector('rect'));
    var svg = box(g.ownerSVGElement), style = getComputedStyle(text);
    var name = g.id + ' "' + text.textContent + '"';
    if (tb.w < 2 || tb.h < 2 || style.visibility !== 'visible' || style.display === 'none' || style.opacity === '0')
      res.invisible.push(name + ' is not shown');
    else if (tb.l < svg.l - 0.5 || tb.r > svg.r + 0.5 || tb.t < svg.t - 0.5 || tb.b > svg.b + 0.5)
      res.invisible.push(name + ' is cut off by its picture');
    else if (tb.l < rb.l - 0.5 || tb.r > rb.r + 0.5)
      res.invisible.push(name + ' is wider than its box');
    items.push({name: name, l: Math.min(tb.l, rb.l), r: Math.max(tb.r, rb.r), t: Math.min(tb.t, rb.t),
                b: Math.max(tb.b, rb.b)});
  });
  items.sort(function (a, b) { return a.l - b.l; });
  for (var i = 0; i < items.length; i++)
    for (var j = i + 1; j < items.length && items[j].l < items[i].r - 0.5; j++) {
      var a = items[i], c = items[j];
      if (Math.min(a.r, c.r) - Math.max(a.l, c.l) > 0.5 && Math.min(a.b, c.b) - Math.max(a.t, c.t) > 0.5)
        res.overlaps.push(a.name + ' / ' + c.name);
    }
  var marks = document.querySelectorAll('svg .mark');
  res.marks = marks.length;
  Array.prototype.forEach.call(marks, function (m) {
    var id = m.getAttribute('data-label'), lab = id && document.getElementById(id);
    if (!lab || !lab.classList.contains('label')) {
      var t = m.querySelector('title');
      res.missing.push(t ? t.textContent : m.outerHTML.slice(0, 80));
    }
  });
  var races = document.querySelectorAll('div.race');
  res.races = races.length;
  Array.prototype.forEach.call(races, function (r) {
    var links = document.querySelectorAll('svg.timeline a[href="#' + r.id + '"]');
    var dt = r.querySelector('h4').textContent.split('\u0394t ')[1];
    if (!links.length) res.race_problems.push(r.id + ': no delta t on the timeline');
    else if (!dt || links[0].textContent.indexOf(dt) < 0)
      res.race_problems.push(r.id + ': the timeline says ' + links[0].textContent + ', the zoom says ' + dt);
    if (!r.querySelector('svg.zoom')) res.race_problems.push(r.id + ': no zoom');
  });
  var pre = document.createElement('pre');
  pre.id = 'layout-check';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
})();
</script>
"""


def check_in_chromium(tmp_path, html):
    checked = html[:-5] + ".checked.html"
    with open(html, encoding="utf-8") as f:
        page = f.read()
    with open(checked, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", CHECKER + "</body>"))
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--user-data-dir=" + str(tmp_path / "profile"), "--window-size=1400,900", "--dump-dom",
                           "file://" + checked], capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="layout-check">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">"))


def assert_evidence(result, races):
    assert result["marks"] > 10
    assert result["duplicate_ids"] == []
    assert result["missing"] == [], "marks without a label"
    assert result["invisible"] == []
    assert result["overlaps"] == []
    assert result["races"] == races
    assert result["race_problems"] == []


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed (CI installs Debian chromium)")
def test_sample_page_labels_every_mark_without_overlap_and_shows_every_race(tmp_path):
    html = page_of(tmp_path, SAMPLE)
    assert_evidence(check_in_chromium(tmp_path, html), expected_races(SAMPLE))


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed (CI installs Debian chromium)")
@pytest.mark.parametrize("preset,options,seed", SIMULATED)
def test_simulated_game_pages_are_evidence(tmp_path, preset, options, seed):
    log = simulated_log(tmp_path, preset, options, seed)
    races = expected_races(log)
    assert races > 0, "pick a seed with races"
    assert_evidence(check_in_chromium(tmp_path, page_of(tmp_path, log)), races)


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed (CI installs Debian chromium)")
def test_checker_finds_overlapping_and_missing_labels(tmp_path):
    """The checks can fail: two labels moved onto each other and a label removed are both found."""
    html = page_of(tmp_path, SAMPLE)
    with open(html, encoding="utf-8") as f:
        page = f.read()
    ids = re.findall(r'<g class="label" id="(L\d+)"><rect x="([\d.]+)" y="([\d.]+)"', page)
    first, second = ids[0], ids[1]
    page = page.replace('id="%s"><rect x="%s" y="%s"' % second, 'id="%s"><rect x="%s" y="%s"' % (
        second[0], first[1], first[2]), 1)
    page = page.replace('<g class="label" id="%s">' % ids[5][0], '<g class="gone" id="x%s">' % ids[5][0], 1)
    with open(html, "w", encoding="utf-8") as f:
        f.write(page)
    result = check_in_chromium(tmp_path, html)
    assert result["missing"]
    assert result["invisible"] and result["overlaps"]   # the moved box no longer holds its text


def test_own_deck_page_says_who_played_and_plots_the_players(tmp_path):
    log = simulated_log(tmp_path, "own_deck", None, 3)
    with open(page_of(tmp_path, log), encoding="utf-8") as f:
        page = f.read()
    assert re.search(r">\w{1,2}[CDHS]\u00b7P[01]</text>", page), "card labels name their player"
    assert "player 0: reaction times" in page and "median" in page
    assert page.count('class="plot"') == 3
    assert re.search(r'<p class="story">(Player [01] went out|The round ended) after', page)


def test_race_zoom_has_both_touch_edges_both_reads_and_the_verdict(tmp_path):
    html = page_of(tmp_path, SAMPLE)
    with open(html, encoding="utf-8") as f:
        page = f.read()
    race = re.search(r'<div class="race" id="race-1">(.*?)</div>', page, re.S).group(1)
    assert race.count(">touch ") == 2
    assert len(re.findall(r"read \d+\.\d+ ms after its landing", race)) == 2
    assert "verdict: " in race


def test_stats_over_several_logs(tmp_path):
    logs = [simulated_log(tmp_path, "own_deck", None, seed) for seed in (1, 2)] + [SAMPLE]
    code, out, err = run(["stats"] + logs)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("3 games (classic 1, own_deck 2), 3 finished")
    row = {line[:30].strip(): line[30:].split() for line in lines[2:]}
    assert int(row["games won"][0]) + int(row["games won"][1]) == 3
    cells = row["races won / lost"]   # "5 / 3*" "2 / 4*" "17 races"
    assert cells[2].endswith("*") and cells[5].endswith("*"), "counted from the own-deck games only, and marked so"
    assert int(cells[0]) + int(cells[3]) > 0 and row["reaction median"][0] != "-"
    assert int(row["STUCK presses (spit calls)"][0]) > 0


def test_stats_skips_what_is_not_a_log(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    code, out, err = run(["stats", SAMPLE, str(bad), str(tmp_path / "missing.spitlog")])
    assert code == 1
    assert out.startswith("1 game (classic 1)")
    assert "notes.txt: not a session log" in err and "missing.spitlog: no such file" in err


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed (CI installs Debian chromium)")
def test_a_long_session_page_is_evidence_too(tmp_path):
    """Fifty rounds and thousands of marks (bench/long_session.py): still every label shown, none overlapping."""
    from bench.long_session import write_long_session
    log = str(tmp_path / "long.spitlog")
    with open(log, "w", encoding="utf-8") as f:
        write_long_session(f, 5000)
    result = check_in_chromium(tmp_path, page_of(tmp_path, log))
    assert result["labels"] > 2000
    assert_evidence(result, expected_races(log))
