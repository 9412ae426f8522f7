import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tests", "engine"), ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture
def run_mp():
    """``run_mp(script, *args, timeout=120)``: run ``tests/<script>`` under the MicroPython unix
    port with the firmware on its path (as the board has it); skips without the executable."""
    import subprocess
    from host_tools.fakeboard_pty import find_micropython
    try:
        exe = find_micropython()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    env = dict(os.environ, MICROPYPATH=".frozen:firmware:firmware/lib:.")

    def run(script, *args, timeout=120):
        return subprocess.run(exe + ["tests/" + script] + list(args), cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout)
    return run


@pytest.fixture
def vb():
    """Virtual board: fake machine/rp2/micropython and a clock 5 ms before a 2**30 wrap as ``time``."""
    from host_tools.vboard.clock import VirtualClock
    from host_tools.vboard.install import install
    from host_tools.vboard.pins import Pin

    Pin.reset_registry()
    board = install(VirtualClock((1 << 30) - 5000))
    try:
        yield board
    finally:
        board.uninstall()
