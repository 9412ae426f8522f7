"""Every LED effect in firmware/drivers/led_effects/ keeps the interface the renderers call
(drivers/led_patterns.py): the effects are found here from the folder, so a new one is checked
without a line added.  Each effect's own look is in its own test (test_<name>.py)."""

import doctest
import importlib
import os

import pytest

from host_tools.device import manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIRMWARE = os.path.join(ROOT, "firmware")
NAMES = sorted(f[:-3] for f in os.listdir(os.path.join(FIRMWARE, "drivers", "led_effects"))
               if f.endswith(".py") and not f.startswith("_"))
TOTALS = (-1, 0, 1, 700, 3000)   # lit/on's ``total``: none, nothing left, short, long


def effect(name):
    return importlib.import_module("drivers.led_effects." + name)


def test_the_folder_holds_the_effects():
    assert {"blink", "fast", "pulse", "countdown"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_an_effect_is_found_by_its_engine_id(vb, name):
    from spit import intents
    from drivers import led_patterns as L

    pid = getattr(intents, name.upper())   # the pattern id an intent asks for
    assert L._EFFECTS[pid] == name
    assert L.load_effects()[pid] is effect(name)
    assert L.load_effects()[intents.SOLID] is None   # SOLID: the plain colour, no effect


def test_an_effect_without_an_engine_id_stops_the_generator():
    """scripts/gen_consts.py names the effects by id: a module whose name spit.intents has no id
    for (a typo, a forgotten id) is a clear error, never a silently missing effect."""
    import scripts.gen_consts as gen
    facts = gen.read_sources()
    assert gen.effect_names(facts)["EFFECTS"].value[facts["spit.intents"]["PULSE"].value] == "pulse"
    del facts["spit.intents"]["PULSE"]
    with pytest.raises(SystemExit, match="led_effects/pulse.py: spit.intents has no pattern id PULSE"):
        gen.effect_names(facts)


@pytest.mark.parametrize("name", NAMES)
def test_an_effect_is_installed_with_every_led_driver(name):
    for leds in ("neopixel", "gpio"):
        files, _ = manifest.read_manifest(FIRMWARE, leds=leds)
        assert "drivers/led_effects/%s.py" % name in files, leds
    assert not [f for f in manifest.read_manifest(FIRMWARE, leds="none")[0] if "led_effects" in f]


@pytest.mark.parametrize("name", NAMES)
def test_levels_are_brightnesses_and_next_is_never_late(vb, name):
    """``level`` is 0..255; ``next`` is at least 1 ms and either the frame period (an effect drawn
    frame by frame) or exactly when ``level`` and ``lit`` change next, so a renderer that draws
    again only then shows every edge on time; NEVER_MS only when nothing ever changes."""
    from drivers.led_patterns import _FRAME_MS, _NEVER_MS

    fx = effect(name)
    lit = getattr(fx, "lit", None)
    for total in TOTALS if lit else (-1,):
        def look(t, total=total):
            return fx.level(t), lit(16, t, total) if lit else 16
        t = 0
        while t < 4000:
            k = fx.next(t)
            assert type(k) is int and 1 <= k and (k <= 60000 or k == _NEVER_MS), (t, k)
            level = fx.level(t)
            assert type(level) is int and 0 <= level <= 255, (t, level)
            if k == _NEVER_MS:
                assert all(look(u) == look(t) for u in range(t, 4000)), t
                break
            if k != _FRAME_MS:
                assert all(look(t + j) == look(t) for j in range(k)), (t, k)
                assert look(t + k) != look(t), (t, k)
            t += 1


@pytest.mark.parametrize("name", [n for n in NAMES if n != "countdown"] + ["countdown"])
def test_optional_hooks_keep_their_ranges(vb, name):
    fx = effect(name)
    for total in TOTALS:
        for t in range(0, 3200, 7):
            if hasattr(fx, "lit"):
                n = fx.lit(5, t, total)
                assert type(n) is int and 0 <= n <= 5
                if total < 0:
                    assert n == 5   # no end: the whole zone
            if hasattr(fx, "on"):
                assert fx.on(t, total) in (True, False)


@pytest.mark.parametrize("name", NAMES)
def test_an_effects_docstring_examples_run(vb, name):
    result = doctest.testmod(effect(name))
    assert result.failed == 0


def test_the_renderers_and_every_effect_allocate_nothing_under_micropython(run_mp):
    r = run_mp("mp_led_check.py")
    assert r.returncode == 0 and "mp_led_check: OK" in r.stdout, r.stdout + r.stderr
    r = run_mp("mp_led_check.py", "--bad")
    assert r.returncode == 1 and "caught" in r.stdout, r.stdout + r.stderr
