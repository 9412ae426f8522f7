"""What the parts of bench/bench_firmware.py share: the checkout's root (bench._paths's), the board
files, the classic rules, and the PN532 emulator's default read timing.

Importable under CPython and the MicroPython unix port (which has no os.path: there the bench
runs from the repo root, "." on MICROPYPATH).
"""

import json

from bench._paths import ROOT

ATTEMPT_US = 2000            # PN532Emulator defaults (host_tools/vboard/pn532_emulator.py)
ANTICOLLISION_US = 2500


def classic_rules():
    from spit.rules import make_ruleset
    return make_ruleset("classic", None)


def board_settings(name):
    """The board file boards/<name>.json, as a dict."""
    with open(ROOT + "/boards/" + name + ".json") as f:
        return json.load(f)
