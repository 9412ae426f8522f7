"""What the parts of bench/bench_firmware.py share: the repo root (on CPython it puts the repo,
firmware/ and firmware/lib on sys.path), the board files, the classic rules, and the PN532
emulator's default read timing.

Importable under CPython and the MicroPython unix port (which has no os.path: there the bench
runs from the repo root and MICROPYPATH gives the paths).
"""

import json
import os
import sys

if sys.implementation.name == "micropython":
    ROOT = "."
else:
    ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, ROOT)
    for _p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "firmware", "lib")):
        if _p not in sys.path:
            sys.path.insert(1, _p)

ATTEMPT_US = 2000            # PN532Emulator defaults (host_tools/vboard/pn532_emulator.py)
ANTICOLLISION_US = 2500


def classic_rules():
    from spit.rules import make_ruleset
    return make_ruleset("classic", None)


def board_settings(name):
    """The board file boards/<name>.json, as a dict."""
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)
