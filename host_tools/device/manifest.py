"""What goes on a board: ``firmware/manifest.py`` (MicroPython's manifest format) read with a
board's options (``board_manifest``).  ``spit flash`` (host_tools/device/flash.py) compiles and copies
what it names; bench_rp2 and bench_firmware size it; tests/guards/test_manifest.py checks that no
installed module imports one that is not installed (``module_imports``, parsed, never run).
"""

import os


class FlashError(Exception):
    """A problem the user can fix; the message is one line that says what and where (``spit
    flash``'s errors, from here and from host_tools/device/flash.py, flash_inputs.py and board_mpremote.py)."""


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


MANIFEST = "manifest.py"
# The installed .mpy's ceiling per board (issue 27): growth is seen early, long before the chip's real
# limit, the heap (the stock image copies every imported .mpy into it: <= 120 KiB in use at a game's peak).
MPY_LIMIT_BYTES = 64 * 1024


class _Options:
    """The manifest's ``options``: ``options.defaults(k=v)`` fills what the caller did not give."""

    def __init__(self, given):
        self._given = dict(given)

    def defaults(self, **kwargs):
        for k in kwargs:
            self._given.setdefault(k, kwargs[k])

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._given.get(name)


def read_manifest(firmware_dir, **options):
    """The files ``firmware_dir/manifest.py`` installs with these options: ``(files, metadata)``,
    ``files`` the relative paths, sorted.  The manifest is MicroPython's format (the calls
    ``metadata``, ``module``, ``package`` (without ``files``: every .py file under the folder) and
    ``options``; ``require`` and ``include`` are refused:
    the firmware needs nothing from micropython-lib).  A file it names that does not exist is a
    FlashError, as MicroPython's own build would stop on it."""
    path = os.path.join(firmware_dir, MANIFEST)
    if not os.path.isfile(path):
        raise FlashError("not a firmware tree (no %s): %s" % (MANIFEST, firmware_dir))
    files = set()
    meta = {}

    def add(rel):
        rel = os.path.normpath(rel).replace(os.sep, "/")
        if rel.startswith("../") or not os.path.isfile(os.path.join(firmware_dir, rel)):
            raise FlashError("%s names %s, which is not in %s" % (MANIFEST, rel, firmware_dir))
        files.add(rel)

    def module(module_path, base_path=".", opt=None):
        add(os.path.join(base_path, module_path))

    def package(package_path, files=None, base_path=".", opt=None):
        if files is None:   # every .py file under it, as MicroPython's build takes them
            folder = os.path.join(firmware_dir, base_path, package_path)
            if not os.path.isdir(folder):
                raise FlashError("%s names %s, which is not a folder of %s" % (MANIFEST, package_path, firmware_dir))
            files = [os.path.relpath(os.path.join(d, name), folder) for d, _, names in os.walk(folder)
                     for name in names if name.endswith(".py")]
        for name in files:
            add(os.path.join(base_path, package_path, name))

    def metadata(**kwargs):
        meta.update(kwargs)

    def refused(*args, **kwargs):
        raise FlashError("%s: require() and include() are not used by this firmware" % MANIFEST)

    scope = {"metadata": metadata, "module": module, "package": package, "require": refused,
             "include": refused, "options": _Options(options)}
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        exec(compile(source, path, "exec"), scope)
    except ValueError as e:
        raise FlashError("%s: %s" % (MANIFEST, e))
    return sorted(files), meta


def board_options(board_data):
    """The manifest's options for a board file: its PN532 bus and LED driver (the manifest's
    defaults where the board file does not say)."""
    data = board_data if isinstance(board_data, dict) else {}
    options = {}
    nfc = data.get("nfc")
    if isinstance(nfc, dict) and isinstance(nfc.get("bus"), str):
        options["nfc_bus"] = nfc["bus"]
    leds = data.get("leds", 0)
    if leds is None:
        options["leds"] = "none"
    elif isinstance(leds, dict) and isinstance(leds.get("type"), str):
        options["leds"] = leds["type"]
    return options


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
    """What goes on a board: ``(files, skipped)``, from firmware/manifest.py with the board's options.

    ``files``: the relative paths of ``firmware/`` to install, sorted.  ``skipped``: ``{path: reason}``
    for every other Python file of the tree (``firmware_files``, or the whole tree), which stays on the PC."""
    files, _ = read_manifest(firmware_dir, **board_options(board_data))
    every = collect_firmware(firmware_dir) if firmware_files is None else list(firmware_files)
    kept = set(files)
    skipped = {rel: "not in firmware/manifest.py for this board" for rel in every
               if rel.endswith(".py") and rel not in kept and rel != MANIFEST}
    return files, skipped


def engine_modules(firmware_files):
    """Module names of the engine (``spit``, ``spit.cards``, ...) that the verify step imports."""
    names = []
    for rel in firmware_files:
        if rel.startswith("lib/spit/") and rel.endswith(".py") and rel.count("/") == 2:
            stem = rel[len("lib/spit/"):-3]
            names.append("spit" if stem == "__init__" else "spit." + stem)
    return sorted(names)
