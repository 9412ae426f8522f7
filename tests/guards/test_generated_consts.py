"""The device modules' copies of other modules' constants are written by scripts/gen_consts.py
from their one source: every block is current, and no module keeps a copy by hand.

(const() is inlined per module only, so the firmware copies the codes it uses: ``_V_ACCEPT`` in
referee/app.py is spit.verdicts' ``V_ACCEPT``.  docs/architecture.md, "Constants".)
"""

import importlib
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gen_consts  # noqa: E402


@pytest.fixture(scope="module")
def facts():
    return gen_consts.read_sources()


def _text(module):
    with open(gen_consts.module_path(module)) as f:
        return f.read()


def test_every_generated_block_is_current_and_no_copy_is_kept_by_hand():
    run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_consts.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, "stale constant blocks (run python scripts/gen_consts.py):\n" + run.stdout


def test_the_check_sees_a_stale_value_a_hand_kept_copy_and_a_missing_name(facts):
    text = _text("referee.app")
    assert gen_consts.plan_text("referee.app", text, facts) == (text, [])
    # A value edited inside the block: stale, and the generator puts it back.
    stale = text.replace("\n_V_TIE = const(4)\n", "\n_V_TIE = const(5)\n")
    assert stale != text
    new, problems = gen_consts.plan_text("referee.app", stale, facts)
    assert problems == ["stale generated block"] and new == text
    # A copy defined by hand outside the block: reported, and moved into the block.
    extra = text.replace("\n_REREPORT_MS = const(", "\n_V_SCORE = const(17)\n_REREPORT_MS = const(")
    extra += "\n\ndef _uses_score():\n    return _V_SCORE\n"
    new, problems = gen_consts.plan_text("referee.app", extra, facts)
    assert problems[0] == "copies kept by hand outside a generated block: _V_SCORE"
    assert "\n_V_SCORE = const(17)\n" in new.split("# end generated")[0]
    assert gen_consts.plan_text("referee.app", new, facts)[1] == []
    # A name the code starts using: the block is stale until it holds it.
    used = text + "\n\ndef _uses_resync():\n    return _V_RESYNC\n"
    new, problems = gen_consts.plan_text("referee.app", used, facts)
    assert problems == ["stale generated block"] and "\n_V_RESYNC = const(19)\n" in new


_SMALL = """from micropython import const

# generated from spit.verdicts by scripts/gen_consts.py: do not edit
_V_ACCEPT = const(1)
_V_TIE = const(4)
# end generated


def accepted(v):
    return v == _V_ACCEPT   # (_V_TIE: named in a comment only)
"""


def test_an_own_constant_named_like_a_source_s_is_not_overwritten(facts):
    # A module's own _BUSY = 5 is not drivers.tag_scan's BUSY (0): reported, the text left alone.
    own = _SMALL.replace("\n\n\ndef accepted", "\n_BUSY = const(5)\n\n\ndef accepted").replace(
        "== _V_ACCEPT", "== _V_ACCEPT or v == _BUSY")
    new, problems = gen_consts.plan_text("referee.app", own, facts)
    assert new == own and problems == [
        "a name of another module's constant with another value (rename it, or use the source's value): "
        "_BUSY = 5 is not drivers.tag_scan BUSY = 0"]


def test_a_copy_no_longer_used_leaves_the_block_and_the_block_is_sorted_by_source(facts):
    new, problems = gen_consts.plan_text("referee.app", _SMALL, facts)
    assert problems == ["stale generated block"]
    assert new == _SMALL.replace("_V_TIE = const(4)\n", "")
    shuffled = _SMALL.replace("== _V_ACCEPT", "in (_EV_TOUCH, _V_ACCEPT, _PH_OVER)")
    new, _ = gen_consts.plan_text("referee.app", shuffled, facts)
    assert new.split("\n")[2:7] == [
        "# generated from spit.verdicts, spit.intake, spit.referee by scripts/gen_consts.py: do not edit",
        "_V_ACCEPT = const(1)", "_EV_TOUCH = const(1)  # a: pile", "_PH_OVER = const(5)", "# end generated"]


def test_a_new_source_value_makes_every_copy_stale(facts):
    # (what "a new verdict code" or a renumbering does: each module using it is rewritten)
    facts["spit.verdicts"]["V_ERROR"].text = "99"
    stale = [m for m in ("referee.app", "spit.referee", "spit.settle", "referee.corrections", "spit.intents")
             if gen_consts.plan_text(m, _text(m), facts)[1]]
    assert stale == ["referee.app", "spit.referee", "spit.settle", "referee.corrections", "spit.intents"]


def test_the_copies_equal_their_sources_as_python_imports_them(facts):
    # The generator reads the sources as text; the imported modules must agree with what it read.
    modules = ("spit.referee", "spit.settle", "spit.corrections", "spit.intents", "spit.legal",
               "referee.app", "referee.loop", "referee.corrections", "referee.sessionlog", "referee.logline",
               "referee.waiting", "referee.sources")
    checked = 0
    for name in modules:
        module = importlib.import_module(name)
        lines = _text(name).split("\n")
        begin, end = gen_consts._find_block(name, lines)
        for copy in gen_consts._top_level_definitions(lines[begin:end + 1]):
            fact = gen_consts.resolve(facts, name, copy)
            source = importlib.import_module(fact.module)
            assert getattr(module, copy) == getattr(source, fact.name) == fact.value, (name, copy)
            checked += 1
    assert checked > 150


def test_the_drivers_copies_name_the_engines_ids(facts):
    # drivers/led_patterns' C_*, P_*, Z_* ids are spit.intents' colours, patterns and zones.
    for name, (src, src_name) in [(k, v[:2]) for k, v in gen_consts.ALIASES.items() if k[:2] in ("C_", "P_", "Z_")]:
        assert src == "spit.intents"
        assert gen_consts.resolve(facts, "drivers.led_patterns", name).value == facts[src][src_name].value


def test_every_alias_names_a_fact_of_its_source(facts):
    for name, alias in gen_consts.ALIASES.items():
        assert alias[0] in gen_consts.SOURCES, name
        assert alias[1] in facts[alias[0]], (name, alias)


def test_one_card_name_and_order_spit_cards_and_the_boards_enrollment_script_agree(vb):
    # spit.cards names the cards (spit enroll on the PC uses it); the board's enrollment script
    # (referee/enroll.py, sent by mpremote run: spit.cards is not on the board) reads the same
    # tables, generated from spit.cards.
    from spit import cards
    from host_tools import enroll as host
    import referee.enroll as board
    assert host.card_name is cards.card_name
    order = board.card_order(jokers=True)
    assert order == host.card_order(jokers=True) == [cards.format_card(c) for c in cards.full_deck(2)]
    for k, code in enumerate(order):
        nth = order[:k + 1].count("JK")
        assert board.card_name(code, nth) == cards.card_name(code, nth), code
    assert (cards.card_name("QH"), cards.card_name("10D"), cards.card_name("JK", 2)) == (
        "Queen of Hearts", "Ten of Diamonds", "second Joker")
