"""Bad log input becomes error verdicts, never a traceback (docs/log-format.md, bounds).

Re-judging logs is a host job (spit.log): these run on CPython; the random bad-log fuzz is
tests/engine/test_host_log_fuzz.py (also under tests/micropython/mp_runner.py), and
tests/micropython/test_engine_micropython.py checks MicroPython gives CPython's verdicts."""

from spit.log import rejudge

HEADER = '{"spitlog": 1, "ruleset": "classic"}'


def _errors(r):
    out = []
    for line_no, items in r.verdicts:
        d = dict(items)
        if d["verdict"] == "error":
            out.append((line_no, d["reason"]))
    return out


def _verdicts(r, name):
    return [dict(items) for _n, items in r.verdicts if dict(items)["verdict"] == name]


def test_log_t_at_or_past_2_31_ms_is_an_error_not_a_crash():
    r = rejudge([HEADER, '{"t": 2147483648000, "ev": "touch", "pile": 0}',
                 '{"t": 1099511627776000, "ev": "stuck", "player": 0}',
                 '{"t": 2010000, "ev": "card", "pile": 0, "card": "7H"}'])
    assert _errors(r) == [(2, "malformed"), (3, "malformed")]
    assert _verdicts(r, "spit")[0]["card"] == "7H"     # refereeing goes on


def test_log_pile_beyond_32_bits_is_an_error_not_pile_0():
    r = rejudge([HEADER, '{"t": 2010000, "ev": "card", "pile": 1099511627776, "card": "7H"}',
                 '{"t": 2020000, "ev": "slap", "player": 4294967296, "pile": 0}',
                 '{"t": 2030000, "ev": "answer", "player": 0, "value": -1099511627776}'])
    assert _errors(r)[:3] == [(2, "malformed"), (3, "malformed"), (4, "malformed")]
    assert _verdicts(r, "spit") == []


def test_log_header_ruleset_of_the_wrong_json_type_is_an_error():
    for bad in ('["classic"]', "{}", "7", "null"):
        r = rejudge(['{"spitlog": 1, "ruleset": %s}' % bad, '{"t": 2010000, "ev": "card", "pile": 0, "card": "7H"}'])
        assert _errors(r) == [(1, "malformed")], bad
        assert r.referee.rules.name == "classic"
        assert _verdicts(r, "spit")[0]["card"] == "7H"


def test_log_header_options_and_counts_of_the_wrong_json_type_are_errors():
    for bad in ('"options": [1]', '"options": {"piles": 1099511627776}', '"options": {"wrap": ["both"]}',
                '"counts": {"a": 1}', '"counts": [26, 1099511627776]'):
        r = rejudge(['{"spitlog": 1, %s}' % bad])
        assert _errors(r) == [(1, "malformed")], bad
    r = rejudge(['{"spitlog": true}'])
    assert _errors(r) == [(1, "malformed")]


def test_log_deep_nesting_is_an_error_not_a_recursion_crash():
    r = rejudge([HEADER, "[" * 100000, "{" * 3000, '{"t": 1, "ev": "card", "pile": %s}' % ("[" * 40 + "]" * 40),
                 '{"t": 2010000, "ev": "card", "pile": 0, "card": "7H"}'])
    assert _errors(r) == [(2, "malformed"), (3, "malformed"), (4, "malformed")]
    assert len(_verdicts(r, "spit")) == 1


def test_log_a_json_first_line_that_is_no_header_does_not_hide_the_header():
    # Like a first line that is not JSON at all: said, skipped, and the header still counts.
    for first in ('{"hello": 1}', "[1, 2]", "not json", '{"t": 5, "verdict": "accept"}'):
        r = rejudge([first, '{"spitlog": 1, "ruleset": "classic", "options": {"piles": 3}}'])
        assert _errors(r) == [(1, "malformed")], first
        assert r.referee.rules.piles == 3


def test_log_event_lines_before_the_header_wait_for_it():
    r = rejudge(['{"t": 2010000, "ev": "card", "pile": 2, "card": "7H"}',
                 '{"spitlog": 1, "ruleset": "classic", "options": {"piles": 3}}'])
    assert _errors(r) == []
    assert r.referee.rules.piles == 3
    assert _verdicts(r, "spit")[0]["pile"] == 2    # judged under the header's rules (3 piles)


def test_log_without_a_header_is_judged_with_the_classic_rules():
    r = rejudge(['{"t": 2010000, "ev": "card", "pile": 0, "card": "7H"}'])
    assert _errors(r) == [(1, "malformed")]
    assert _verdicts(r, "spit")[0]["card"] == "7H"

