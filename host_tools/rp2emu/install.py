"""Put our firmware on an emulated Pico the way a user does: `spit flash` through mpremote.

``flashed_image(board, ruleset, options)`` returns the path of a flash file-system image with
the referee installed (``spit flash --port <pty> --board B --ruleset R --cards C``); the image
boots like a flashed board (``Rp2Emulator(fs_image=...)``).  Images are cached under
``build/rp2emu/`` by a hash of everything that goes on the board (firmware tree, board file,
ruleset, card map, MicroPython image), so a test or bench flashes once per firmware change.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from host_tools.rp2emu.emulator import REPO, EmulatorError, Rp2Emulator, find_images
from host_tools.rp2emu.serial_pty import SerialPty

CACHE = os.path.join(REPO, "build", "rp2emu")
FLASH_TIMEOUT_S = 600


def default_cards(rules):
    """The virtual decks' card map (one tag per card, two decks in own-deck games), as the
    virtual board makes it."""
    from host_tools.vboard.board_files import default_card_map
    return default_card_map(rules)


def _tree_digest(h, top):
    for base, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py") or name.endswith(".json"):
                path = os.path.join(base, name)
                h.update(os.path.relpath(path, top).encode())
                with open(path, "rb") as f:
                    h.update(f.read())


def flashed_image(board="pico", ruleset="classic", options=None, firmware=None, bootrom=None,
                  progress=None, force=False):
    """Path of a file-system image with the referee flashed by `spit flash` (cached)."""
    from spit.rules import make_ruleset
    rules = make_ruleset(ruleset, options or {})
    firmware, bootrom = find_images(firmware, bootrom)
    config = {"ruleset": ruleset, "options": options or {}}
    cards = {"cardmap": 1, "cards": default_cards(rules)}
    board_path = board if board.endswith(".json") else os.path.join(REPO, "boards", board + ".json")
    h = hashlib.sha256()
    _tree_digest(h, os.path.join(REPO, "firmware"))
    # (spit flash's code too: how it builds the board's files is part of what goes on it)
    from host_tools.device import flash, flash_inputs, manifest, mpremote, referee
    flash_code = [m.__file__ for m in (flash, flash_inputs, manifest, mpremote, referee)]
    for path in [board_path, firmware] + flash_code:
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(json.dumps([config, cards], sort_keys=True).encode())
    os.makedirs(CACHE, exist_ok=True)
    image = os.path.join(CACHE, "%s-%s.fs" % (os.path.basename(board_path)[:-5], h.hexdigest()[:16]))
    if os.path.exists(image) and not force:
        return image
    # This process's own work files: two runs that flash the same image at once (two benches
    # from one checkout) each build it, and the last atomic replace wins (the same bytes).
    work = "%s.%d.d" % (image, os.getpid())
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "ruleset.json"), "w") as f:
        json.dump(config, f)
    with open(os.path.join(work, "cards.json"), "w") as f:
        json.dump(cards, f)
    say = progress or (lambda text: None)
    say("flashing the referee onto an emulated Pico (spit flash, board %s, ruleset %s)" % (board, ruleset))
    t0 = time.monotonic()
    with Rp2Emulator(firmware, bootrom) as emu:
        link = SerialPty(emu)
        try:
            emu.run_for_ms(1200)          # MicroPython boots (and formats its flash) in about a second
            argv = [sys.executable, "-m", "host_tools", "flash", "--port", link.path, "--board", board_path,
                    "--ruleset", os.path.join(work, "ruleset.json"), "--cards", os.path.join(work, "cards.json"),
                    "--build-dir", os.path.join(work, "mpy")]
            # (Its waits for the referee stretched: the emulator runs several times slower.)
            env = dict(os.environ, SPIT_BOARD_WAIT_S=os.environ.get("SPIT_BOARD_WAIT_S", "8"))
            proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
            link.serve(stop=lambda: proc.poll() is not None, seconds=FLASH_TIMEOUT_S)
            if proc.poll() is None:
                proc.kill()
            output = proc.communicate()[0].decode(errors="replace")
            if proc.returncode != 0:
                raise EmulatorError("spit flash failed on the emulated Pico:\n" + output[-1500:])
            emu.save_fs(work + ".fs")
        finally:
            link.close()
    os.replace(work + ".fs", image)
    shutil.rmtree(work, ignore_errors=True)
    say("flashed in %.1f s: %s" % (time.monotonic() - t0, output.strip().splitlines()[-1]))
    return image
