"""What the parts of bench/bench_rp2.py share: the checkout (``REPO``, host_tools's: trace_landing's
instrumented copy when it runs), the bench's board file with its loop probe, the PN532 reads issue 8
measures under, and percentiles.
"""

import json
import os

import host_tools.rp2emu  # noqa: F401  (the emulated Pico; its checkout's firmware/ importable)
from host_tools import REPO

MS = 1000
LOOP_PIN = 0
READ_MS = (5, 10)   # a PN532 read (card in the field -> the listing's reply), as issue 8 measures
# The bench board's readers carry the first-contact probe's answers for the bench's PN532 model, as
# a board has them after bring-up (`spit doctor`'s probe step or `spit flash --probe` writes them
# into board.json: docs/getting-started.md).  False (``--unprobed``): a board never probed, whose
# readers take the safe defaults and learn the chip as they go.
PROBED = True
CHIP = {}   # the PN532 model's options that are not at their default (rp2_races --chip)


def probe_answers():
    """What referee/nfc_probe.py answers for the PN532 model the bench runs (its options: the
    model's defaults and ``CHIP``; tests/drivers/test_nfc_chip_config.py checks the probe gives
    each option combination's own values)."""
    from host_tools.vboard.pn532_options import DEFAULTS
    return dict(DEFAULTS, **CHIP)


def pn532_model(read_ms):
    """The PN532 emulators' options for reads of ``read_ms`` = (lo, hi) ms (the listing model's
    ``read_time_options``, as bench_firmware's reader-time sweep uses it), and ``CHIP``."""
    from host_tools.vboard.pn532_listing import read_time_options
    return dict(read_time_options(read_ms[0] * MS, read_ms[1] * MS), **CHIP)


def pct(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100.0 * (len(s) - 1))))]


def triple(values):
    return {"p50": pct(values, 50), "p99": pct(values, 99), "max": max(values) if values else None}


def bench_board(piles):
    """boards/pico(_3pile).json plus the loop probe (and the probe's answers: ``PROBED``), as a file
    `spit flash` can take."""
    name = "pico_3pile" if piles == 3 else "pico"
    with open(os.path.join(REPO, "boards", name + ".json")) as f:
        board = json.load(f)
    board["loop_pin"] = LOOP_PIN
    board["name"] = name + "_bench"
    if CHIP:   # (a file of its own: two benches with other chips at once)
        name += "_" + "_".join("%s-%s" % (k, CHIP[k]) for k in sorted(CHIP))
    if PROBED:
        for r in board["nfc"]["readers"]:
            r["chip"] = probe_answers()
    out = os.path.join(REPO, "build", "rp2emu", "boards")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name + "_bench.json")
    with open(path, "w") as f:
        json.dump(board, f, indent=1)
    return path
