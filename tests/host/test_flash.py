"""End-to-end tests of `spit flash`, `spit logs pull` and the pty fake board, with no hardware.

The fake board (tests/fakes/fakeboard_pty.py) is the MicroPython unix port behind a pty, with a temp dir as its
flash file system; mpremote talks to it exactly as to a Pico. Most tests flash a tiny fake firmware tree (fast,
independent of the real engine's progress); one flashes the real firmware/ and boards/pico.json when present.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from host_tools.device import mpremote as board_mpremote
from host_tools.cli import device as cli_flash
from host_tools.device import flash
from host_tools.device import flash_inputs
from host_tools.device import manifest
from spit import logtables
from fakes.fakeboard_pty import FakeBoard, find_micropython

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_VERSION = "9.8.7"

try:
    find_micropython()
    HAVE_MICROPYTHON = True
except FileNotFoundError:
    HAVE_MICROPYTHON = False
needs_micropython = pytest.mark.skipif(not HAVE_MICROPYTHON, reason="micropython unix port not installed")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


@pytest.fixture
def firmware(tmp_path):
    """A tiny firmware tree shaped like the real one."""
    root = tmp_path / "firmware"
    write(str(root / "main.py"), "import spit\nprint('spit-referee', spit.__version__)\n")
    write(str(root / "lib/spit/__init__.py"), '"""Fake engine."""\n__version__ = "%s"\n' % FAKE_VERSION)
    write(str(root / "lib/spit/legal.py"), "RANKS = 'A23456789TJQK'\n\ndef rank(code):\n    return code[:-1]\n")
    write(str(root / "drivers/leds.py"), "class Leds:\n    pass\n")
    write(str(root / "referee/app.py"), "import machine\n")  # needs hardware: must not be imported by verify
    write(str(root / "manifest.py"), 'module("main.py")\npackage("spit", files=("__init__.py", "legal.py"), '
          'base_path="lib")\npackage("drivers", files=("leds.py",))\npackage("referee", files=("app.py",))\n')
    return str(root)


def install(firmware, rel):
    """Name ``lib/spit/<rel>`` in the tiny tree's manifest (what is not named there is not installed)."""
    with open(os.path.join(firmware, "manifest.py"), "a") as f:
        f.write('package("spit", files=(%r,), base_path="lib")\n' % rel.split("/")[-1])


@pytest.fixture
def boards(tmp_path):
    root = tmp_path / "boards"
    write(str(root / "pico.json"), json.dumps({"name": "pico", "pins": {"led": 25}}))
    return str(root)


@pytest.fixture
def board(tmp_path):
    if not HAVE_MICROPYTHON:
        pytest.skip("micropython unix port not installed")
    with FakeBoard(str(tmp_path / "board")) as fake:
        yield fake


def run_cli(capsys, *argv):
    """Run the board subcommands in-process; return (exit code, stdout, stderr)."""
    code = cli_flash.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def flash_args(board, firmware, boards, tmp_path, *extra):
    return ["flash", "--port", board.port, "--board", "pico", "--ruleset", "classic",
            "--firmware-dir", firmware, "--boards-dir", boards, "--build-dir", str(tmp_path / "build")] + list(extra)


def mpremote(port, *actions):
    proc = subprocess.run([sys.executable, "-m", "mpremote", "connect", port] + list(actions),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def board_files(root):
    found = set()
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            found.add(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return found


# -- the fake board itself -----------------------------------------------------------------------------------

@needs_micropython
def test_fake_board_soft_resets_and_cleans_up(tmp_path):
    with FakeBoard(str(tmp_path / "b")) as fake:
        boots = fake.boots
        assert mpremote(fake.port, "soft-reset", "+", "exec", "import os; print(os.getcwd())").strip() \
            == str(tmp_path / "b")
        assert fake.boots > boots  # the process exited on Ctrl-D and was respawned
        # A program left running is interrupted by the next session's Ctrl-C, as on a board.
        mpremote(fake.port, "exec", "--no-follow", "import time\nwhile True: time.sleep_ms(5)")
        assert mpremote(fake.port, "exec", "print(6 * 7)").strip() == "42"
        child = fake._child
        thread = fake._thread
    assert child.poll() is not None  # reaped: no zombie micropython
    assert not thread.is_alive()


# -- spit flash ----------------------------------------------------------------------------------------------

def test_flash_lands_files_and_firmware_imports(board, firmware, boards, tmp_path, capsys):
    code, out, err = run_cli(capsys, *flash_args(board, firmware, boards, tmp_path))
    assert code == 0, err
    assert out.strip() == "spit-referee %s board=pico" % FAKE_VERSION
    assert "[7/7] :ruleset.json" in err and "copied 7 files" in err  # progress on stderr

    assert board_files(board.root) == {
        "main.py", "lib/spit/__init__.mpy", "lib/spit/legal.mpy", "drivers/leds.mpy", "referee/app.mpy",
        "board.json", "ruleset.json"}
    assert os.path.isdir(os.path.join(board.root, "logs"))
    with open(os.path.join(board.root, "lib/spit/legal.mpy"), "rb") as f:
        assert f.read(2) == b"M\x06"  # a .mpy v6 file, not a copied source
    with open(os.path.join(board.root, "ruleset.json")) as f:
        assert json.load(f) == {"ruleset": "classic", "options": {}}
    with open(os.path.join(board.root, "board.json")) as f:
        assert json.load(f)["pins"] == {"led": 25}

    # A fresh interpreter on the board imports the compiled engine from lib/.
    answer = mpremote(board.port, "exec", "import spit, spit.legal; print(spit.__version__, spit.legal.rank('QH'))")
    assert answer.split() == [FAKE_VERSION, "Q"]


def test_flash_source_replaces_mpy_modules(board, firmware, boards, tmp_path, capsys):
    assert run_cli(capsys, *flash_args(board, firmware, boards, tmp_path))[0] == 0
    code, out, err = run_cli(capsys, *flash_args(board, firmware, boards, tmp_path, "--source"))
    assert code == 0, err
    files = board_files(board.root)
    assert "lib/spit/legal.py" in files and "drivers/leds.py" in files
    assert not [f for f in files if f.endswith(".mpy")]  # stale .mpy removed: no mixed install


def test_flash_ruleset_file_and_card_map(board, firmware, boards, tmp_path, capsys):
    ruleset = tmp_path / "house.json"
    ruleset.write_text(json.dumps({"ruleset": "own_deck", "options": {"row": 3}}))
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH"}}))
    args = flash_args(board, firmware, boards, tmp_path, "--cards", str(cards))
    args[args.index("classic")] = str(ruleset)
    code, _, err = run_cli(capsys, *args)
    assert code == 0, err
    with open(os.path.join(board.root, "ruleset.json")) as f:
        assert json.load(f) == {"ruleset": "own_deck", "options": {"row": 3}}
    with open(os.path.join(board.root, "cards.json")) as f:
        assert json.load(f)["cards"] == {"04A1B2C3D4E5F6": "QH"}


def test_dry_run_prints_mpremote_steps_only(firmware, boards, tmp_path, capsys):
    build = tmp_path / "build"
    code, out, err = run_cli(capsys, "flash", "--dry-run", "--port", "/dev/ttyACM7", "--firmware-dir", firmware,
                             "--boards-dir", boards, "--build-dir", str(build))
    assert code == 0, err
    commands = [line for line in out.splitlines() if line.startswith("mpremote ")]
    assert len(commands) == 2
    assert commands[0].startswith("mpremote connect /dev/ttyACM7 exec ")
    assert " + fs cp %s :lib/spit/legal.mpy" % (build / "lib/spit/legal.mpy") in commands[0]
    assert " :main.py " in commands[0] and " :board.json " in commands[0] and commands[0].endswith(":ruleset.json")
    assert commands[1].startswith("mpremote connect /dev/ttyACM7 soft-reset + exec ")
    assert '"machine").RTC().datetime((' in commands[1]       # the board's clock set on the way
    assert "a soft reset (Ctrl-D at the prompt) so main.py runs the referee, the clock kept" in out
    assert not build.exists()  # nothing compiled, nothing touched


def test_two_boards_flashed_at_once_build_apart(firmware, boards, tmp_path, capsys):
    """Without --build-dir each port has its own build dir (build/mpy/PORT next to firmware/): two
    `spit flash` runs from one checkout at once (two tables) cannot empty each other's image."""
    dirs = []
    for port in ("/dev/ttyACM0", "/dev/ttyACM1", "COM5", "/tmp/a/pico", "/tmp/b/pico"):
        code, out, err = run_cli(capsys, "flash", "--dry-run", "--port", port, "--firmware-dir", firmware,
                                 "--boards-dir", boards)
        assert code == 0, err
        into = [line for line in out.splitlines() if " into " in line][0].split(" into ", 1)[1]
        dirs.append(into)
    base = os.path.join(os.path.dirname(os.path.abspath(firmware)), "build", "mpy")
    assert dirs == [os.path.join(base, name) for name in ("dev_ttyACM0", "dev_ttyACM1", "COM5", "tmp_a_pico",
                                                          "tmp_b_pico")]


def test_mpy_carry_source_lines_only_with_lines(tmp_path):
    # The board's .mpy files leave line numbers out unless asked (--lines): smaller in flash
    # and in the heap; a traceback from such a module names no line.
    fw = tmp_path / "fw"
    write(str(fw / "lib" / "m.py"), "def f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    raise ValueError(f(1))\n")
    sizes, lines = {}, {}
    for keep in (False, True):
        out = tmp_path / ("build%d" % keep)
        flash.build(str(fw), str(out), [("lib/m.py", "lib/m.mpy", True)], flash.Progress(open(os.devnull, "w")),
                    lines=keep)
        sizes[keep] = os.path.getsize(str(out / "lib" / "m.mpy"))
        exe = find_micropython()
        if exe:
            r = subprocess.run(exe + ["-c", "import sys; sys.path.insert(0, %r)\nimport m\nm.g()" % str(out / "lib")],
                               capture_output=True, text=True)
            lines[keep] = "line 7" in r.stdout + r.stderr
    assert sizes[False] < sizes[True]
    if lines:
        assert lines == {False: False, True: True}


def test_main_cli_dispatches_flash(firmware, boards, tmp_path, capsys):
    cli = pytest.importorskip("host_tools.cli")
    code = cli.main(["flash", "--dry-run", "--port", "/dev/ttyACM7", "--firmware-dir", firmware,
                     "--boards-dir", boards, "--build-dir", str(tmp_path / "build")])
    assert code == 0
    assert "mpremote connect /dev/ttyACM7 soft-reset + exec " in capsys.readouterr().out


def test_missing_board_file_is_one_line_error(firmware, boards, tmp_path, capsys):
    code, out, err = run_cli(capsys, "flash", "--port", "/dev/null", "--board", "nosuch",
                             "--firmware-dir", firmware, "--boards-dir", boards)
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith("spit flash: error: board file not found: ") and "nosuch.json" in err
    assert "known boards: pico" in err


def test_mpy_cross_failure_names_the_file(board, firmware, boards, tmp_path, capsys):
    write(os.path.join(firmware, "lib/spit/bad.py"), "def f(a, /, b):\n    return a\n")
    install(firmware, "lib/spit/bad.py")
    code, _, err = run_cli(capsys, *flash_args(board, firmware, boards, tmp_path))
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("spit flash: error: mpy-cross failed on ") and "lib/spit/bad.py" in last
    assert not board_files(board.root)  # failed before touching the board


def test_engine_that_fails_to_import_on_the_board(board, firmware, boards, tmp_path, capsys):
    # Compiles fine, fails only at import time on MicroPython (docs: FACTS.md, mpy-cross section).
    write(os.path.join(firmware, "lib/spit/typed.py"), "import typing\n")
    install(firmware, "lib/spit/typed.py")
    code, _, err = run_cli(capsys, *flash_args(board, firmware, boards, tmp_path))
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("spit flash: error: firmware did not start after reset: ")
    assert "typing" in last


def test_no_board_found(firmware, boards, tmp_path, capsys, monkeypatch):
    from serial.tools import list_ports
    monkeypatch.setattr(list_ports, "comports", lambda: [])
    code, _, err = run_cli(capsys, "flash", "--firmware-dir", firmware, "--boards-dir", boards,
                           "--build-dir", str(tmp_path / "build"))
    assert code == 1
    assert err.startswith("spit flash: error: no board found")


def test_unreachable_port_reports_mpremote_failure(firmware, boards, tmp_path, capsys):
    port = str(tmp_path / "ttyNOPE")
    open(port, "w").close()    # a path that exists but is no serial device (a missing one is said before mpremote runs)
    code, _, err = run_cli(capsys, "flash", "--port", port, "--firmware-dir", firmware, "--boards-dir", boards,
                           "--build-dir", str(tmp_path / "build"))
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("spit flash: error: mpremote on %s failed: " % port)


def test_version_mismatch_is_reported(board, firmware, boards, tmp_path, capsys):
    # An older engine left as .py in a directory that shadows lib/ makes the board report another version.
    write(os.path.join(board.root, "spit/__init__.py"), '__version__ = "0.0.1"\n')
    write(os.path.join(board.root, "spit/legal.py"), "")
    code, _, err = run_cli(capsys, *flash_args(board, firmware, boards, tmp_path))
    assert code == 1
    assert "board reports spit-referee 0.0.1 but %s was flashed" % FAKE_VERSION in err


# -- the real firmware tree ------------------------------------------------------------------------------------

REAL_FIRMWARE = os.path.join(REPO, "firmware")


@pytest.mark.skipif(not os.path.isfile(os.path.join(REAL_FIRMWARE, "lib/spit/__init__.py")),
                    reason="firmware/lib/spit/__init__.py not written yet")
def test_flash_real_firmware(board, boards, tmp_path, capsys):
    """The real tree compiles with mpy-cross and its engine imports on the (fake) board."""
    firmware_dir = REAL_FIRMWARE
    if not os.path.isfile(os.path.join(REAL_FIRMWARE, "main.py")):  # main.py still being written
        firmware_dir = str(tmp_path / "firmware")
        shutil.copytree(REAL_FIRMWARE, firmware_dir, ignore=shutil.ignore_patterns("__pycache__"))
        write(os.path.join(firmware_dir, "main.py"), "import spit\n")
    real_boards = os.path.join(REPO, "boards")
    use_boards = real_boards if os.path.isfile(os.path.join(real_boards, "pico.json")) else boards
    args = ["flash", "--port", board.port, "--board", "pico", "--ruleset", "classic", "--firmware-dir",
            firmware_dir, "--boards-dir", use_boards, "--build-dir", str(tmp_path / "build")]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    version = flash_inputs.firmware_version(REAL_FIRMWARE)
    assert out.strip() == "spit-referee %s board=pico" % version
    files = board_files(board.root)
    assert {"main.py", "lib/spit/__init__.mpy", "board.json", "ruleset.json"} <= files
    assert not [f for f in files if f.endswith(".py") and f != "main.py"]
    answer = mpremote(board.port, "exec", "import spit; print(spit.__version__)")
    assert answer.strip() == version
    # mpy-cross -s: each .mpy names its source by its path on the board, never this checkout's.
    build = tmp_path / "build"
    mpys = sorted(build.rglob("*.mpy"))
    assert mpys
    for mpy in mpys:
        data = mpy.read_bytes()
        assert firmware_dir.encode() not in data and REPO.encode() not in data, mpy
    ws = (build / "drivers" / "ws2812_pio.mpy").read_bytes()
    assert b"drivers/ws2812_pio.mpy" in ws


# -- logs pull ---------------------------------------------------------------------------------------------------

def test_logs_pull_copies_every_log_once_named_apart(board, tmp_path, capsys):
    first = '{"spitlog": 1, "board": "pico", "started": "2026-12-06T20:15:00"}\n{"t": 0, "verdict": "round_start"}\n'
    write(os.path.join(board.root, "logs/session-0001.spitlog"), first)
    write(os.path.join(board.root, "logs/session-0002.spitlog"), '{"spitlog": 1, "board": "pico"}\n' + "{}\n" * 500)
    dest = tmp_path / "pulled"
    code, _, err = run_cli(capsys, "logs", "pull", "--port", board.port, "--dest", str(dest))
    assert code == 0, err
    names = sorted(os.listdir(dest))
    assert names[0] == "pico-20261206-201500-session-0001.spitlog"
    assert len(names) == 2 and names[1].startswith("pico-") and names[1].endswith("-session-0002.spitlog")
    assert (dest / names[0]).read_text() == first
    assert "[2/2]" in err and "pulled 2 log files" in err
    # Pulled again: nothing new, nothing overwritten; the board knows they were pulled.
    code, _, err = run_cli(capsys, "logs", "pull", "--port", board.port, "--dest", str(dest))
    assert code == 0 and "nothing new to pull" in err
    assert sorted(os.listdir(dest)) == names
    with open(os.path.join(board.root, "logs/pulled.txt")) as f:
        assert f.read().split() == ["session-0001.spitlog", "session-0002.spitlog"]
    code, out, err = run_cli(capsys, "logs", "list", "--port", board.port)
    assert code == 0 and out.count(" yes") == 2
    code, _, err = run_cli(capsys, "logs", "clear", "--port", board.port)
    assert code == 0 and "removed 2 pulled" in err
    assert [n for n in os.listdir(os.path.join(board.root, "logs")) if n.endswith(".spitlog")] == []


def test_logs_pull_with_no_logs(board, tmp_path, capsys):
    code, _, err = run_cli(capsys, "logs", "pull", "--port", board.port, "--dest", str(tmp_path / "pulled"))
    assert code == 0
    assert "no session logs" in err
    assert not (tmp_path / "pulled").exists()


def test_help_reads(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli_flash.main(["flash", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--port", "--board", "--ruleset", "--cards", "--source", "--lines", "--dry-run", "--build-dir"):
        assert option in out


def test_console_repl_execs_mpremote_repl_with_a_warning(monkeypatch, capsys):
    from host_tools import board_console
    calls = []
    monkeypatch.setattr(board_console.os, "execv", lambda path, argv: calls.append(argv))
    monkeypatch.setattr(board_mpremote, "check_port", lambda port: None)    # (no /dev/ttyACM3 on this machine)
    assert cli_flash.main(["console", "--repl", "--port", "/dev/ttyACM3"]) == 0
    assert calls == [[sys.executable, "-m", "mpremote", "connect", "/dev/ttyACM3", "repl"]]
    assert "STOPS the referee" in capsys.readouterr().err


# -- the board manifest ------------------------------------------------------------------------------------------

def _real_board(name):
    with open(os.path.join(REPO, "boards", name + ".json")) as f:
        return json.load(f)


@pytest.mark.skipif(not os.path.isfile(os.path.join(REPO, "boards/pico_i2c.json")), reason="no real boards")
def test_manifest_picks_the_boards_drivers_and_skips_host_modules():
    spi, skipped = manifest.board_manifest(REAL_FIRMWARE, _real_board("pico"))
    assert "drivers/pn532_spi.py" in spi and "drivers/led_strip.py" in spi and "drivers/ws2812_pio.py" in spi
    assert "drivers/pn532_i2c.py" not in spi and "drivers/gpio_leds.py" not in spi
    assert "lib/spit/describe.py" not in spi and "lib/spit/describe.py" in skipped
    # The log's words are built on the PC (logtables.bin), so neither module goes on the board;
    # the card file's reader neither: the board reads the map packed (cards.bin).
    for rel in ("lib/spit/notation.py", "lib/spit/logtables.py", "lib/spit/cardfile.py", "referee/board.py",
                "lib/spit/rules.py", "lib/spit/log.py", "referee/logread.py", "drivers/byteloops_py.py"):
        assert rel not in spi and rel in skipped
    assert "lib/spit/cardmap.py" in spi and "referee/logfiles.py" in spi and "referee/logbook.py" in spi
    assert "main.py" in spi and "lib/spit/__init__.py" in spi and "manifest.py" not in skipped
    i2c, _ = manifest.board_manifest(REAL_FIRMWARE, _real_board("pico_i2c"))
    assert "drivers/pn532_i2c.py" in i2c and "drivers/pn532_spi.py" not in i2c
    # gpio_leds shares led_patterns with led_strip; the strip renderer stays off a GPIO-LED board.
    assert "drivers/gpio_leds.py" in i2c and "drivers/led_patterns.py" in i2c
    assert "drivers/led_strip.py" not in i2c and "drivers/led_patterns.py" in spi
    assert "drivers/ws2812_pio.py" not in i2c
    nothing, _ = manifest.board_manifest(REAL_FIRMWARE, dict(_real_board("pico"), leds=None))
    assert not [rel for rel in nothing if "led" in rel or "ws2812" in rel]


def test_manifest_names_a_missing_file_and_a_bad_option(firmware):
    with open(os.path.join(firmware, "manifest.py"), "a") as f:
        f.write('options.defaults(bus="spi")\nif options.bus not in ("spi",):\n'
                '    raise ValueError("bus: spi only")\npackage("drivers", files=("gone.py",))\n')
    with pytest.raises(manifest.FlashError, match="names drivers/gone.py, which is not in"):
        manifest.read_manifest(firmware)
    with pytest.raises(manifest.FlashError, match="bus: spi only"):
        manifest.read_manifest(firmware, bus="i2c")


def test_manifest_options_come_from_the_board_file():
    assert manifest.board_options({"nfc": {"bus": "i2c"}, "leds": {"type": "gpio"}}) == \
        {"nfc_bus": "i2c", "leds": "gpio"}
    assert manifest.board_options({"leds": None}) == {"leds": "none"}
    assert manifest.board_options({"name": "x"}) == {}       # the manifest's defaults


def _native(path):
    """Does the module hold native code (viper), compiled for the RP2040's CPU only?"""
    with open(path, encoding="utf-8") as f:
        return "@micropython.viper" in f.read()


@pytest.mark.skipif(not os.path.isfile(os.path.join(REPO, "boards/pico_i2c.json")), reason="no real boards")
@pytest.mark.parametrize("board_name,own,other", [("pico", "pn532_spi", "pn532_i2c"),
                                                   ("pico_i2c", "pn532_i2c", "pn532_spi")])
def test_flash_copies_exactly_the_manifest(board, tmp_path, capsys, board_name, own, other):
    args = ["flash", "--port", board.port, "--board", board_name, "--ruleset", "classic", "--firmware-dir",
            REAL_FIRMWARE, "--boards-dir", os.path.join(REPO, "boards"), "--build-dir", str(tmp_path / "build")]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    kept, _ = manifest.board_manifest(REAL_FIRMWARE, _real_board(board_name))
    expected = {rel if rel == "main.py" or not rel.endswith(".py") else rel[:-3] + ".mpy" for rel in kept}
    files = board_files(board.root)
    assert files == expected | {"board.json", "ruleset.json", "logtables.bin"}
    with open(os.path.join(board.root, "logtables.bin"), "rb") as f:   # (the log's words: PC-built)
        assert f.read() == logtables.tables_file(flash_inputs.firmware_version(REAL_FIRMWARE))
    assert "drivers/%s.mpy" % own in files and "drivers/%s.mpy" % other not in files
    assert "lib/spit/describe.mpy" not in files
    # The firmware imports on the board from what was copied: main (the stub), the app, every driver
    # (but those that need the chip's rp2 module at import, e.g. the PIO WS2812 driver, or its CPU:
    # native code such as drivers/byteloops, whose importers fall back to plain Python; the fake
    # board is the unix port).
    modules = [manifest.module_name(rel) for rel in kept if rel.endswith(".py")
               and ("rp2", True) not in manifest.module_imports(os.path.join(REAL_FIRMWARE, rel))
               and not _native(os.path.join(REAL_FIRMWARE, rel))]
    assert ("drivers.ws2812_pio" in modules) is False and "drivers.%s" % own in modules
    # The plain-Python stand-ins of the native modules are not installed (the RP2040 loads the native
    # code); the fake board, the unix port, needs them to import the drivers: given here, as source.
    for rel in ("drivers/byteloops_py.py",):
        assert rel not in kept and rel[:-3] + ".mpy" not in files
        mpremote(board.port, "fs", "cp", os.path.join(REAL_FIRMWARE, rel), ":" + rel)
    answer = mpremote(board.port, "exec", "import sys\nfor m in %r:\n    __import__(m)\n"
                      "print('imported', len(%r), 'main' in sys.modules)" % (modules, modules))
    assert answer.split() == ["imported", str(len(modules)), "True"]


def test_mpy_name_their_file_as_the_board_imports_it(tmp_path):
    # The source name inside a .mpy is the path MicroPython's import gives the module's
    # __file__ on the board (one qstr for both), never a path of the build machine.
    fw = tmp_path / "fw"
    write(str(fw / "lib" / "spit" / "m.py"), "X = 1\n")
    write(str(fw / "referee" / "r.py"), "Y = 2\n")
    out = tmp_path / "build"
    flash.build(str(fw), str(out), [("lib/spit/m.py", "lib/spit/m.mpy", True), ("referee/r.py", "referee/r.mpy", True)],
                flash.Progress(open(os.devnull, "w")))
    for remote, name in (("lib/spit/m.mpy", b"/lib/spit/m.mpy"), ("referee/r.mpy", b"referee/r.mpy")):
        data = (out / remote).read_bytes()
        assert name in data and str(tmp_path).encode() not in data


def test_probe_answers_go_into_board_json_checked(tmp_path, capsys):
    # spit flash --probe FILE (the file spit doctor keeps): the readers' answers are merged into the
    # board file's readers (a clear answer replaces, an unclear one only fills a gap) and checked with
    # the rest of the board; a bad answer or a pile the board has not stops the flash, named.
    probe = tmp_path / "doctor-pico.json"
    probe.write_text(json.dumps({"board": "pico", "probe": [
        {"pile": 1, "verdict": "GO", "answers": {"list_uses_wupa": True, "coll_readable": None, "listing_us": 5200}},
        {"pile": 1, "verdict": "GO", "answers": {"list_uses_wupa": None, "coll_readable": False}}]}))
    argv = ["flash", "--dry-run", "--port", "/dev/ttyACM7", "--build-dir", str(tmp_path / "build"),
            "--probe", str(probe)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert ('board.json: nfc.readers[1].chip {"coll_readable": false, "list_uses_wupa": true, "listing_us": 5200}'
            in out)
    assert "nfc.readers[0].chip" not in out
    probe.write_text(json.dumps([{"pile": 0, "answers": {"list_uses_wupa": "yes"}}]))
    code, out, err = run_cli(capsys, *argv)
    assert code != 0 and "nfc.readers[0].chip.list_uses_wupa: expected one of true/false or null" in err
    probe.write_text(json.dumps([{"pile": 2, "answers": {"list_uses_wupa": True}}]))
    code, out, err = run_cli(capsys, *argv)
    assert code != 0 and "answers for pile 2, but the board has 2 readers" in err
    probe.write_text(json.dumps({"probe": []}))
    code, out, err = run_cli(capsys, *argv)
    assert code != 0 and "expected spit doctor's file" in err
