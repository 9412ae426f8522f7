"""rp2 mode: the simulated table drives our firmware on an emulated Pico running real MicroPython.

The same bots and table as ``--mode firmware``, but the referee is ``firmware/`` installed by
`spit flash` (through mpremote, on a pty) onto the MicroPython v1.26.1 rp2 image running on an
emulated RP2040 (``host_tools/rp2emu``).  Landings, presses and slaps reach it as GPIO edges and
PN532 frames on its SPI bus (``Rp2Table``); the players learn the verdicts from the live session
log the firmware prints on its USB console after the LEDs show them.  At the end the device's
session log is pulled with `spit logs pull` (mpremote again) and re-judged on the PC.

Table time ``t`` (the Sim's microseconds) is emulated time since the session started on the
board (when its first verdict, ``round_start``, came over the console).
"""

import json
import os
import subprocess
import sys
import tempfile

from spit import verdicts as V
from spit.cards import parse_card
from spit.notation import VERDICT_NAMES, ERROR_NAMES, QUESTION_NAMES, _FIELDS
from spit.verdicts import REASON_NAMES
from host_tools.sim.firmware import FirmwarePort, SYNC_US

BOOT_LIMIT_US = 15 * 1000000      # boot + self-test + first session must fit in this


def verdict_tuple(obj):
    """A session-log verdict line (a dict) as the engine's ``(code, ms, us, a, b, c, d)``."""
    code = VERDICT_NAMES.index(obj["verdict"])
    t = int(obj["t"])
    values = [-1, -1, -1, -1]
    for i, name in enumerate(_FIELDS[code]):
        if name is None:
            continue
        key, _, kind = name.partition("@")
        if code == V.V_ERROR and key == "value" and "card" in obj:
            values[i] = parse_card(obj["card"])
            continue
        if key not in obj:
            continue
        v = obj[key]
        if kind == "card":
            v = parse_card(v)
        elif kind == "reason":
            v = REASON_NAMES.index(v)
        elif kind == "error":
            v = ERROR_NAMES.index(v)
        elif kind == "ask":
            v = QUESTION_NAMES.index(v)
        values[i] = int(v)
    return (code, t // 1000, t % 1000, values[0], values[1], values[2], values[3])


class Rp2Port(FirmwarePort):
    mode = "rp2"

    def __init__(self, sim, rules, counts, board=None, firmware=None, bootrom=None, emulator=None,
                 progress=None):
        from host_tools.rp2emu.emulator import Rp2Emulator
        from host_tools.rp2emu.install import flashed_image
        from host_tools.rp2emu.table import Rp2Table
        self.sim = sim
        self.rules = rules
        self.out = []
        self.lines = None
        self.synced = 0
        self.console = []               # lines the board printed that are not log lines
        self.device_lines = 0
        self._partial = b""
        if board is None:
            board = "pico_3pile" if rules.piles == 3 else "pico"
        self.board_name = board
        options = {}
        from spit.rules import make_ruleset
        defaults = make_ruleset(rules.name).options
        for key in rules.options:
            if rules.options[key] != defaults[key]:
                options[key] = rules.options[key]
        image = flashed_image(board, rules.name, options, firmware, bootrom, progress=progress)
        self.emu = Rp2Emulator(firmware, bootrom, fs_image=image)
        self.emu.on_serial = self._serial
        self.table = Rp2Table(self.emu, board, emulator)
        self.t0 = 0
        # Boot from the flashed file system until the first session's first verdict.
        while not self.out and self.table.now_us < BOOT_LIMIT_US:
            self.table.run_until(self.table.now_us + 10000)
        if not self.out:
            self.emu.close()
            raise RuntimeError("the referee did not start on the emulated Pico: %s"
                               % " | ".join(self.console[-5:]) or "no output")
        self.t0 = self.table.now_us
        sim.at(SYNC_US, self._periodic, 0)

    # --- the board's console: the live session log ---
    def _serial(self, data):
        buf = self._partial + data
        *lines, self._partial = buf.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            if line.startswith("{") and '"verdict"' in line:
                try:
                    self.out.append(verdict_tuple(json.loads(line)))
                    self.device_lines += 1
                    continue
                except (ValueError, KeyError, IndexError):
                    pass
            if not line.startswith("{"):
                self.console.append(line)

    # --- time ---
    def sync(self, t):
        if t > self.synced:
            self.table.run_until(self.t0 + t)
            self.synced = t

    # --- the physical world ---
    def _uid(self, card, player):
        from host_tools.vboard.runner import default_uid
        return default_uid(card, self._owner(player))

    def land(self, sim, t, pile, card, player):
        self.table.land_card(pile, self._uid(card, player), self.t0 + t)
        return True

    def lift(self, t, pile, card, player):
        self.table.lift_card(pile, self._uid(card, player), self.t0 + t)

    def feed(self, kind, t, a, b, c):
        from spit.intake import EV_STUCK, EV_SLAP, EV_READY, EV_ANSWER
        from host_tools.sim.firmware import PRESS_US
        table = self.table
        t += self.t0
        if kind == EV_STUCK or kind == EV_READY:
            table.press(a, "stuck", t, hold_us=PRESS_US)
        elif kind == EV_SLAP:
            table.press(a, ("slap", b), t, hold_us=PRESS_US)
        elif kind == EV_ANSWER:
            for i in range(b):
                table.press(a, ("slap", 0), t + i * 2 * PRESS_US, hold_us=PRESS_US)
            table.press(a, "stuck", t + b * 2 * PRESS_US, hold_us=PRESS_US)

    def close(self, t):
        """Run to ``t``, then pull the session log with `spit logs pull` and keep the newest."""
        from host_tools.rp2emu.serial_pty import SerialPty
        self.sync(t)
        link = SerialPty(self.emu, runner=self.table.run_until_ns)
        dest = tempfile.mkdtemp(prefix="spit-rp2-logs-")
        try:
            argv = [sys.executable, "-m", "host_tools", "logs", "pull", "--port", link.path, "--dest", dest]
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            link.serve(stop=lambda: proc.poll() is not None, seconds=300)
            if proc.poll() is None:
                proc.kill()
            output = proc.communicate()[0].decode(errors="replace")
            names = sorted(n for n in os.listdir(dest) if n.endswith(".spitlog"))
            if proc.returncode != 0 or not names:
                raise RuntimeError("spit logs pull failed on the emulated Pico: %s" % output.strip()[-500:])
            from referee.logread import read_log
            self.lines = read_log(os.path.join(dest, names[-1]))[0]
        finally:
            link.close()
            self.emu.close()


def rp2_port(sim, counts, rng, extra, board=None):
    """``port_factory`` for :func:`host_tools.sim.run.run_game` (``--mode rp2``)."""
    return Rp2Port(sim, sim.rules, counts, board)
