"""The simulated table drives the firmware on the MicroPython unix port as on CPython."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_simulated_game_on_micropython_is_the_game_cpython_plays():
    """The firmware runs its engine under ``heap_lock`` on MicroPython; the players' record of
    each verdict (``FirmwarePort._sink``) must not allocate under it, or the verdict is lost
    and the game stalls (it did: 'no verdict for 60 s')."""
    from fakes.fakeboard_pty import find_micropython
    from host_tools.sim.firmware import FirmwarePort
    from host_tools.sim.run import run_game
    try:
        exe = find_micropython()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    env = dict(os.environ, MICROPYPATH="firmware:firmware/lib:.")
    proc = subprocess.run(exe + ["-X", "heapsize=8m", "tests/micropython/mp_sim_check.py"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    on_mp = json.loads(proc.stdout.strip().splitlines()[-1])
    res = run_game("classic", seed=1,
                   port_factory=lambda sim, c, rng, extra: FirmwarePort(sim, sim.rules, c))
    assert on_mp["lock_failures"] == 0
    assert on_mp["finished"] and res.finished
    assert (on_mp["winner"], on_mp["length_us"], on_mp["lines"]) == (res.winner, res.length_us, len(res.lines))
