"""bench_rp2's listing of the slowest landings and loop steps (bench/rp2_games.py, rp2_report.py):
what each row says about a landing (race, second card on the pile, quiet lines), from made-up
pin times (no emulator)."""

from bench.rp2_games import landing_row, slowest_steps
from bench.rp2_report import print_slowest


class _Port:
    t0 = 1000000


def test_landing_row_names_the_race_the_second_card_and_the_quiet_lines():
    landed = [(0, 2000000), (1, 2010000), (0, 2040000)]
    card = {"card": "7S", "act": [5100, 1]}
    row = landing_row(_Port(), landed, 0, 2040000, 2046000, 2060000, card, {"verdict": "late"},
                      [2001000, 2050000, 2070000])
    assert row["t_s"] == 1.04
    assert (row["read_ms"], row["read_led_ms"], row["landing_led_ms"]) == (6.0, 14.0, 20.0)
    assert row["race_ms"] == 30.0      # pile 1, 30 ms before
    assert row["second_ms"] == 40.0    # pile 0, 40 ms before
    assert row["quiet_ms"] == [4.0]    # only the quiet between the read and the LED frame
    alone = landing_row(_Port(), landed, 0, 2000000, 2006000, 2009000, card, {"verdict": "accept"}, [])
    assert alone["race_ms"] is None and alone["second_ms"] is None and alone["quiet_ms"] == []


def test_slowest_steps_leave_out_breaks_and_flash_writes():
    rises = [100, 1000, 2000, 3000]
    falls = [600, 1900, 2100, 3050]
    breaks = [(950, 1950)]            # the 0.9 ms step is between rounds
    flash = [(2050, 2060)]            # the 0.1 ms one writes flash
    rows = slowest_steps(_Port(), rises, falls, breaks, flash, [(1, 50)], count=5)
    assert [r["ms"] for r in rows] == [0.5, 0.05]
    assert rows[0]["pile"] == 1 and rows[0]["after_landing_ms"] == 0.05


def test_print_slowest_lists_the_slowest_first(capsys):
    rows = [{"t_s": t, "pile": 0, "card": "2H", "read_ms": 6.0, "read_led_ms": led - 6.0, "landing_led_ms": led,
             "verdict": "accept", "act": None, "race_ms": None, "second_ms": 3.0, "quiet_ms": []}
            for t, led in ((1.0, 9.0), (2.0, 37.5), (3.0, 12.0))]
    print_slowest({"tableau": {"slowest": rows, "slow_steps": [
        {"t_s": 2.01, "ms": 5.13, "pile": 0, "after_landing_ms": 11.5}]}})
    out = capsys.readouterr().out.splitlines()
    assert "37.50" in out[1] and "12.00" in out[2] and "9.00" in out[3]
    assert "5.13 ms" in out[-1]
