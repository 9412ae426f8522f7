"""What goes on a board: the firmware files a board's manifest keeps, and why the others stay
on the PC (``board_manifest``).  ``spit flash`` (host_tools/flash.py) compiles and copies what
this returns; bench_rp2 and bench_firmware size it.

Module names (``module_name``) and imports (``module_imports``, parsed, never run) decide what a
kept module brings back: a skipped module that a kept one imports is installed anyway, so a
device import never breaks.
"""

import os


class FlashError(Exception):
    """A problem the user can fix; the message is one line that says what and where (``spit
    flash``'s errors, from here and from host_tools/flash.py, flash_inputs.py and board_mpremote.py)."""


def collect_firmware(firmware_dir):
    """Relative paths of every file to install, sorted; skips caches and hidden files."""
    if not os.path.isfile(os.path.join(firmware_dir, "main.py")):
        raise FlashError("not a firmware tree (no main.py): %s" % firmware_dir)
    found = []
    for dirpath, dirnames, filenames in os.walk(firmware_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in filenames:
            if name.startswith(".") or name.endswith((".pyc", ".mpy", "~")):
                continue
            found.append(os.path.relpath(os.path.join(dirpath, name), firmware_dir).replace(os.sep, "/"))
    return sorted(found)


# Modules only the PC uses (log parsing/re-judging, rule descriptions, reading logs back).  Kept anyway while a
# device module imports them (anywhere in its code), so a device import never breaks.
HOST_ONLY = ("lib/spit/log.py", "lib/spit/describe.py", "lib/spit/words.py", "referee/logread.py",
             # (the verdict codes, the card codes and the input source ids' layout: the board's modules keep
             # private copies of what they use, checked by tests/test_engine_shared_constants.py)
             "lib/spit/verdicts.py", "lib/spit/cards.py", "referee/sources.py",
             # (session times: spit.referee compares them inline, as spit.timebase.before does)
             "lib/spit/timebase.py")
# The board file's full validator and the ruleset presets and checks: spit flash runs them on the PC and writes
# the checked board and ruleset (host_tools/flash_inputs.py ``checked_board``, ``checked_ruleset``); the device
# loads those with a short check (referee/boardfile.py imports the full ones only where they are present).
PC_CHECKED = ("referee/board.py", "lib/spit/rules.py")
# Modules whose work spit flash does on the PC, writing its result to the board: {file: the file it writes}.  The
# log's words: the log line tables and the session header's template, in ``logtables.bin``
# (``log_tables_file``); the card map's file reader and checks: the map packed in ``cards.bin``
# (``packed_card_map``).  The device reads those at boot (referee/boardfile.py).
PC_BUILT = {"lib/spit/notation.py": "logtables.bin", "lib/spit/logtables.py": "logtables.bin",
            "lib/spit/cardfile.py": "cards.bin"}
# Device code for bring-up sessions, not for play: not installed, so it costs the board no flash and
# no heap.  ``mpremote run`` sends it when needed (``spit enroll --board-port`` runs referee/enroll.py;
# docs/hardware.md shows the reader probe, referee/nfc_probe.py).
ON_DEMAND = ("referee/enroll.py", "referee/nfc_probe.py")
# Plain-Python stand-ins of native (viper) modules, for a MicroPython that cannot load the board's armv6m code (the
# unix port on a PC runs the firmware from source): an RP2040 loads the native module, so the stand-in is not
# installed (it would cost the board flash for nothing), even though its importers name it at module level.
CPU_FALLBACKS = ("drivers/byteloops_py.py",)
# Board-specific drivers: (file, board section, key, value that needs it).  The firmware imports them lazily
# (referee/app.py ``_make_pn532``, referee/board_hw.py ``build_leds``), so a board gets only its own; one is kept
# anyway while a kept module imports it at module level (drivers/gpio_leds.py imports drivers/led_strip.py).
BOARD_DRIVERS = (
    ("drivers/pn532_spi.py", "nfc", "bus", "spi"),
    ("drivers/pn532_i2c.py", "nfc", "bus", "i2c"),
    ("drivers/led_strip.py", "leds", "type", "neopixel"),
    ("drivers/ws2812_pio.py", "leds", "type", "neopixel"),
    ("drivers/gpio_leds.py", "leds", "type", "gpio"),
)


def module_name(rel):
    """``lib/spit/cards.py`` -> ``spit.cards``, ``lib/spit/__init__.py`` -> ``spit``, ``drivers/x.py`` ->
    ``drivers.x`` (``''`` and ``/lib`` are on the board's sys.path); None for a file that is not a module."""
    if not rel.endswith(".py"):
        return None
    stem = rel[:-3]
    if stem.startswith("lib/"):
        stem = stem[4:]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


def module_imports(path):
    """``[(module, top_level)]`` that a source file imports (``from a import b`` gives ``a`` and ``a.b``).
    ``top_level`` is False for imports inside a function (lazy: they run only when called)."""
    import ast
    with open(path, encoding="utf-8") as f:
        try:
            tree = ast.parse(f.read(), path)
        except SyntaxError:
            return []  # mpy-cross reports it with the file name
    found = []

    def visit(node, top):
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                found.append((child.module, top))
                found.extend((child.module + "." + a.name, top) for a in child.names)
            visit(child, inner)
    visit(tree, True)
    return found


def board_manifest(firmware_dir, board_data, firmware_files=None):
    """What goes on a board: ``(files, skipped)``.

    ``files``: the relative paths of ``firmware/`` to install, sorted.  ``skipped``: ``{path: reason}`` for the
    host-only modules, the plain-Python stand-ins of native ones and the other boards' drivers (see HOST_ONLY,
    CPU_FALLBACKS and BOARD_DRIVERS).  A board file
    without the ``nfc`` or ``leds`` section keeps all drivers of that kind."""
    files = collect_firmware(firmware_dir) if firmware_files is None else list(firmware_files)
    present = set(files)
    skipped = {}
    for rel in HOST_ONLY:
        if rel in present:
            skipped[rel] = "host-only module"
    for rel in ON_DEMAND:
        if rel in present:
            skipped[rel] = "bring-up script (sent by mpremote run when needed)"
    for rel in CPU_FALLBACKS:
        if rel in present:
            skipped[rel] = "plain-Python stand-in of a native module (the RP2040 loads the native one)"
    for rel in PC_CHECKED:
        if rel in present:
            skipped[rel] = "run on the PC: spit flash writes the checked " + (
                "board" if rel.startswith("referee/") else "ruleset")
    for rel in PC_BUILT:
        if rel in present:
            skipped[rel] = "run on the PC: spit flash writes " + PC_BUILT[rel]
    data = board_data if isinstance(board_data, dict) else {}
    for rel, section, key, value in BOARD_DRIVERS:
        conf = data.get(section)
        if rel in present and isinstance(conf, dict) and key in conf and conf[key] != value:
            skipped[rel] = "board %s %s is %s" % (section, key, conf[key])
    if data.get("leds", 0) is None:   # a board without LEDs needs no LED driver
        for rel, section, _, _ in BOARD_DRIVERS:
            if section == "leds" and rel in present:
                skipped[rel] = "board has no leds"
    by_module = {module_name(rel): rel for rel in files if module_name(rel)}
    # A skipped module that a kept one imports comes back (host-only: any import; driver: module level).
    changed = True
    while changed:
        changed = False
        for rel in files:
            if rel in skipped or not rel.endswith(".py"):
                continue
            for module, top in module_imports(os.path.join(firmware_dir, rel)):
                target = by_module.get(module)
                if target in skipped and (top or target in HOST_ONLY) and target not in CPU_FALLBACKS:
                    del skipped[target]
                    changed = True
    return sorted(rel for rel in files if rel not in skipped), skipped


def engine_modules(firmware_files):
    """Module names of the engine (``spit``, ``spit.cards``, ...) that the verify step imports."""
    names = []
    for rel in firmware_files:
        if rel.startswith("lib/spit/") and rel.endswith(".py") and rel.count("/") == 2:
            stem = rel[len("lib/spit/"):-3]
            names.append("spit" if stem == "__init__" else "spit." + stem)
    return sorted(names)
