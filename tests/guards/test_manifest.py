"""firmware/manifest.py: what goes on the board, and nothing on the board reaching for what is not.

Every installed module's imports (at module level and inside functions: a lazy import runs on
the chip too, the day its function is called) must name modules that are installed or that the
chip's MicroPython has built in.  Two exceptions: a board driver that the manifest installs for
another board (the board's own setting picks the branch that imports it, in a function:
referee/board_hw.py), and the one module named here with its reason.
"""
import json
import os
import subprocess
import sys

import pytest

from host_tools.device import manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")
BOARDS = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "boards")) if f.endswith(".json"))

# Modules of firmware/ that an installed module may name without their being installed:
# {module: why the chip never imports it}.
NEVER_IMPORTED_ON_THE_CHIP = {
    # drivers/byteloops is native code for the RP2040 (armv6m); only a CPU that cannot load it (the
    # MicroPython unix port on a PC) takes this plain-Python stand-in, in an `except ValueError`.
    "drivers.byteloops_py": "the unix port's stand-in for the native drivers/byteloops",
}

MPY_LIMIT = manifest.MPY_LIMIT_BYTES


def _board(name):
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def _firmware_modules():
    """``{module name: relative path}`` of every Python file under firmware/."""
    return {manifest.module_name(rel): rel for rel in manifest.collect_firmware(FIRMWARE)
            if manifest.module_name(rel)}


@pytest.mark.parametrize("board", BOARDS + ["no-leds"])
def test_no_installed_module_imports_one_that_is_not_installed(board):
    data = dict(_board("pico"), leds=None) if board == "no-leds" else _board(board)
    files, _ = manifest.board_manifest(FIRMWARE, data)
    installed = set(files)
    other_boards = set()
    for bus in ("spi", "i2c"):
        for leds in ("neopixel", "gpio", "none"):
            other_boards |= set(manifest.read_manifest(FIRMWARE, nfc_bus=bus, leds=leds)[0])
    ours = _firmware_modules()
    missing = []
    for rel in files:
        if not rel.endswith(".py"):
            continue
        for module, top in manifest.module_imports(os.path.join(FIRMWARE, rel)):
            target = ours.get(module)
            if target is None or target in installed or module in NEVER_IMPORTED_ON_THE_CHIP:
                continue
            if not top and target in other_boards and rel == "referee/board_hw.py":
                continue   # (another board's driver, picked by the board file)
            missing.append("%s imports %s (%s)%s" % (rel, module, target, "" if top else ", lazily"))
    assert not missing, "installed modules import modules the manifest leaves off the board:\n" + "\n".join(missing)


def test_every_firmware_file_is_installed_or_named_as_pc_side():
    """A new device module that nobody added to the manifest would silently stay off the board."""
    on_some_board = set()
    for board in BOARDS:
        on_some_board |= set(manifest.board_manifest(FIRMWARE, _board(board))[0])
    on_some_board |= set(manifest.board_manifest(FIRMWARE, dict(_board("pico"), leds=None))[0])
    with open(os.path.join(FIRMWARE, "manifest.py"), encoding="utf-8") as f:
        words = f.read()
    left = [rel for rel in manifest.collect_firmware(FIRMWARE)
            if rel.endswith(".py") and rel != "manifest.py" and rel not in on_some_board
            and rel.rsplit("/", 1)[-1][:-3] not in words]
    assert not left, ("firmware files neither installed nor named in firmware/manifest.py's list of "
                      "what stays on the PC: %s" % left)


def test_manifest_version_is_the_engines():
    from host_tools.device.flash_inputs import firmware_version
    _, meta = manifest.read_manifest(FIRMWARE)
    assert meta["version"] == firmware_version(FIRMWARE)


@pytest.mark.parametrize("board", BOARDS)
def test_installed_mpy_stays_under_64_kib(board, tmp_path):
    """Compiled as spit flash compiles it (mpy-cross -march=armv6m, no source lines)."""
    from host_tools.device import flash
    files, _ = manifest.board_manifest(FIRMWARE, _board(board))
    jobs = [(rel, rel[:-3] + ".mpy", True) for rel in files if rel.endswith(".py") and rel != "main.py"]
    try:
        flash.build(FIRMWARE, str(tmp_path), jobs, flash.Progress(open(os.devnull, "w")))
    except manifest.FlashError as e:
        if "mpy-cross" in str(e) and "not found" in str(e):
            pytest.skip(str(e))
        raise
    total = sum(os.path.getsize(os.path.join(tmp_path, out)) for _, out, _ in jobs)
    assert 30 * 1024 < total <= MPY_LIMIT, "%s: %d B of .mpy (limit %d)" % (board, total, MPY_LIMIT)


def test_manifest_freezes_with_micropythons_own_reader(tmp_path):
    """The same file is a valid manifest for MicroPython's build (tools/manifestfile.py), when a
    checkout of it is at hand (SPIT_MICROPYTHON_SRC); what it collects is what spit flash installs."""
    src = os.environ.get("SPIT_MICROPYTHON_SRC")
    if not src or not os.path.isfile(os.path.join(src, "tools", "manifestfile.py")):
        pytest.skip("no MicroPython checkout (set SPIT_MICROPYTHON_SRC to check the manifest with its reader)")
    code = ("import sys; sys.path.insert(0, %r); import manifestfile as m\n"
            "mf = m.ManifestFile(m.MODE_FREEZE, {'MPY_DIR': %r})\nmf.execute(%r)\n"
            "print('\\n'.join(sorted(r.target_path for r in mf.files())))"
            % (os.path.join(src, "tools"), src, os.path.join(FIRMWARE, "manifest.py")))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ours, _ = manifest.read_manifest(FIRMWARE)
    want = sorted(rel[4:] if rel.startswith("lib/") else rel for rel in ours)
    assert r.stdout.split() == want
