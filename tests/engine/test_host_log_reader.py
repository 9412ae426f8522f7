"""The one log reader (spit.log, issue 25 item 1) on lax JSON, whitespace, duplicate keys, BOMs
and out-of-bound fields: never an exception, and the verdicts pinned here are what both
Pythons give (tests/micropython/mp_runner.py runs this file under MicroPython with the host heap;
tests/micropython/test_engine_micropython.py compares whole runs; tests/drivers/test_log_reader.py runs the same
logs through ``spit replay``)."""

from fuzz import run_lax_logs, fold_verdicts
from spit.log import rejudge

HEADER = '{"spitlog": 1, "ruleset": "classic", "options": {"countdown_ms": 1000}}'
SPIT = ['{"t": 1100000, "ev": "card", "pile": 0, "card": "7H"}',
        '{"t": 1100500, "ev": "card", "pile": 1, "card": "KS"}']


def _errors(r):
    out = []
    for line_no, items in r.verdicts:
        d = dict(items)
        if d["verdict"] == "error":
            out.append((line_no, d["reason"], d["t"]))
    return out


def _cards(r):
    return [(dict(items)["verdict"], dict(items)["card"]) for _n, items in r.verdicts if "card" in dict(items)]


def _judged(line):
    """The errors and card verdicts of one line after the header and the spit cards."""
    r = rejudge([HEADER] + SPIT + [line])
    return _errors(r), _cards(r)[2:]


def test_host_lax_json_lines_are_malformed_on_both_pythons():
    good = '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H"}'
    assert _judged(good) == ([], [("accept", "8H")])
    for bad in ('{"t": 2100000, "ev": "card", "pile": 0, "card": "8H",}',     # trailing comma
                '{"t": 2100000, "ev" "card", "pile": 0, "card": "8H"}',      # missing colon
                '{"t": 2100000, "ev": "card", "pile": 00, "card": "8H"}',    # leading zero
                '{"t": 02100000, "ev": "card", "pile": 0, "card": "8H"}',
                '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H"]',     # ']' closing an object
                '{1: 2, "t": 2100000, "ev": "card", "pile": 0, "card": "8H"}',   # an int key
                '{"t": 2100000, "ev": "card", "pile": 0, "card": "\\q8H"}',  # unknown escapes
                '{"t": 2100000, "ev": "card", "pile": 0, "card": "\\x41"}',
                '{"t": 2100000, "ev": "card", "pile": 0, "card": "8\tH"}',   # a raw control character
                good + "\x00",                                               # a trailing NUL
                '{"t": 2100000, "ev": "answer", "player": 0, "value": NaN}',
                '{"t": 2100000, "ev": "answer", "player": 0, "value": Infinity}',
                '{"t": 2100000, "ev": "answer", "player": 0, "value": -Infinity}',
                "{'t': 2100000, 'ev': 'tick'}",
                good + " " + good):
        errors, cards = _judged(bad)
        assert [e[:2] for e in errors] == [(4, "malformed")] and cards == [], bad


def test_host_whitespace_is_json_whitespace_only():
    good = '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H"}'
    for ws in (" ", "\t", "\r", "\r\n", "  \t "):
        assert _judged(ws + good + ws) == ([], [("accept", "8H")]), repr(ws)
    for c in ("\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\ufeff"):
        errors, cards = _judged(c + good)
        assert [e[:2] for e in errors] == [(4, "malformed")] and cards == [], repr(c)
        errors, cards = _judged(good + c)
        assert [e[:2] for e in errors] == [(4, "malformed")] and cards == [], repr(c)


def test_host_duplicate_key_refuses_the_line():
    for dup in ('{"t": 2100000, "ev": "card", "pile": 0, "card": "8H", "t": 2200000}',
                '{"t": 2100000, "\\u0074": 1, "ev": "card", "pile": 0, "card": "8H"}',
                '{"t": 2100000, "ev": "card", "pile": 0, "pile": 1, "card": "8H"}',
                '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H", "x": {"a": 1, "a": 2}}'):
        errors, cards = _judged(dup)
        assert [e[:2] for e in errors] == [(4, "malformed")] and cards == [], dup


def test_host_t_bound_is_below_2_30_ms():
    # docs/log-format.md: t below 2**30 ms.  2**30 - 1 ms was refused (one early).
    last_ms = (1 << 30) - 1
    r = rejudge([HEADER] + SPIT + ['{"t": %d, "ev": "stuck", "player": 0}' % (last_ms * 1000 + 999)])
    assert _errors(r) == []
    for t in ((1 << 30) * 1000, 1 << 40, 1 << 62, -1):
        r = rejudge([HEADER] + SPIT + ['{"t": %d, "ev": "stuck", "player": 0}' % t,
                                       '{"t": 2100000, "ev": "card", "pile": 0, "card": "8H"}'])
        assert _errors(r) == [(4, "malformed", 1100500)], t   # (a bad t: the previous line's)
        assert _cards(r)[2:] == [("accept", "8H")], t          # the clock did not move


def test_host_unknown_card_error_carries_its_own_line_time():
    r = rejudge([HEADER] + SPIT + ['{"t": 2100000, "ev": "card", "pile": 0, "card": "ZZ"}',
                                   '{"t": 2200000, "ev": "card", "pile": 0, "card": " 8H"}',
                                   '{"t": 2300000, "ev": "card", "pile": 0, "card": "8\\u0048"}'])
    assert _errors(r) == [(4, "unknown_card", 2100000), (5, "unknown_card", 2200000)]
    assert _cards(r)[2:] == [("accept", "8H")]   # (an escape that is fine: "8H")


def test_host_bom_only_before_the_first_line():
    r = rejudge(["\ufeff" + HEADER] + SPIT)
    assert _errors(r) == [] and r.referee.rules.countdown_ms == 1000
    r = rejudge([HEADER, "\ufeff" + SPIT[0], SPIT[1]])
    assert [e[:2] for e in _errors(r)] == [(2, "malformed")]


def test_host_missing_header_classic_rules_said_once():
    r = rejudge(["not json", SPIT[0].replace("1100000", "2100000"), '{"t": 5, "verdict": "accept"}'])
    assert r.referee.rules.name == "classic" and r.header_problem is not None
    # said once (at the first JSON line), then the lines in their order: the bad one, the event
    assert [e[:2] for e in _errors(r)] == [(2, "malformed"), (1, "malformed")]
    assert len(r.device_verdicts) == 1 and _cards(r) == [("spit", "7H")]


def test_host_no_session_log_after_64_lines_without_json():
    r = rejudge(["garbage %d" % i for i in range(100)] + [HEADER])
    assert r.referee is None and r.not_a_log


def test_host_lax_logs_never_raise_and_repeat_exactly():
    first = run_lax_logs(1, 60)
    assert first == run_lax_logs(1, 60)
    assert first[1] > 1500


def test_host_both_line_splits_read_alike():
    # CPython splits the writers' form with one regular expression, MicroPython with str methods.
    assert run_lax_logs(1, 60, pure=True) == run_lax_logs(1, 60)
    lines = [HEADER] + SPIT + ['{"t": %d, "ev": "tick"}%s' % (3000000 + i, ws)
                               for i, ws in enumerate(("", " ", "\r", "\t\t", "\x0c", "\x00"))]
    assert fold_verdicts(lines, pure=True) == fold_verdicts(lines)
