import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for p in (os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tests", "engine"), ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)


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
