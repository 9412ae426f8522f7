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

from spit import verdicts as V
from spit.cards import parse_card
from spit.notation import VERDICT_NAMES, ERROR_NAMES, QUESTION_NAMES, _FIELDS
from spit.verdicts import REASON_NAMES
from host_tools.sim.firmware import FirmwarePort, SYNC_US

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
        from spit.rules import make_ruleset
        from host_tools.rp2emu.board import FlashedPico
        self.sim = sim
        self.rules = rules
        self.out = []
        self.lines = None
        self.synced = 0
        if board is None:
            board = "pico_3pile" if rules.piles == 3 else "pico"
        options = {}
        defaults = make_ruleset(rules.name).options
        for key in rules.options:
            if rules.options[key] != defaults[key]:
                options[key] = rules.options[key]
        # Boots from the flashed file system until the first session's first verdict.
        self.pico = FlashedPico(board, rules.name, options, firmware, bootrom, emulator, progress)
        self.emu = self.pico.emu
        self.table = self.pico.table
        self.t0 = self.pico.t0
        for _, obj in self.pico.verdicts:
            self.out.append(verdict_tuple(obj))
        self.pico.on_verdict = lambda obj: self.out.append(verdict_tuple(obj))
        sim.at(SYNC_US, self._periodic, 0)

    @property
    def console(self):
        """Lines the board printed that are not session log lines."""
        return self.pico.console

    # --- time ---
    def sync(self, t):
        if t > self.synced:
            self.table.run_until(self.t0 + t)
            self.synced = t

    # --- the physical world ---
    def _uid(self, card, player):
        from host_tools.vboard.board_files import default_uid
        return default_uid(card, self._owner(player))

    def land(self, sim, t, pile, card, player):
        self.table.land_card(pile, self._uid(card, player), self.t0 + t)
        return True

    def lift(self, t, pile, card, player):
        self.table.lift_card(pile, self._uid(card, player), self.t0 + t)

    def _press(self, player, what, t, hold_us):
        self.table.press(player, what, self.t0 + t, hold_us=hold_us)

    def close(self, t):
        """Run to ``t``, then pull the session log with `spit logs pull` and keep the newest."""
        self.sync(t)
        try:
            self.lines = self.pico.pull_log()
        finally:
            self.pico.close()


def rp2_port(sim, counts, rng, extra, board=None):
    """``port_factory`` for :func:`host_tools.sim.run.run_game` (``--mode rp2``)."""
    return Rp2Port(sim, sim.rules, counts, board)
