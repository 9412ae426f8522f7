"""bench/long_session.py writes real sessions (issue 25, item 5): the replay's events/s are
measured on logs whose re-judge is a game of hundreds of rounds, with no error and no early card
(the went-out question answered, as players answer it), and whose device verdicts all match."""

import io
import os

from bench.long_session import write_long_session
from host_tools.replay import replay_lines

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_long_session_rejudges_as_hundreds_of_rounds_without_errors():
    buf = io.StringIO()
    n = write_long_session(buf, 30000, seed=3)
    assert n >= 30000
    counts = {}

    def on_items(_line, items):
        name = items[1][1]
        counts[name] = counts.get(name, 0) + 1
    rep = replay_lines(io.StringIO(buf.getvalue()), on_items=on_items)
    assert rep.n_problems == 0 and rep.n_mismatches == 0 and rep.cut_off == 0
    assert counts.get("error", 0) == 0 and counts.get("early", 0) == 0
    assert counts["round_start"] >= 300
    assert counts.get("question", 0) >= 300 and "game_over" not in counts
    assert counts["accept"] > 5000 and counts["tie"] > 100 and counts["late"] > 50
    assert rep.device_verdicts == sum(counts.values())
