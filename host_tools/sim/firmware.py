"""Firmware mode: the simulated table drives the real firmware on the virtual board.

The physical events go to :class:`host_tools.vboard.runner.VirtualTable` (PN532 emulators under
the piles, touch sensors, STUCK buttons and slap pads), which runs ``firmware/main.py``
unchanged; the firmware senses, judges and writes the session log itself.  The players learn
the verdicts the way the firmware's lamps show them -- here read from the firmware's engine as it
emits them (the same ints that drive its LED intents).

Mapping: a landing -> ``land_card`` (touch edge + tag in the reader's field); a card taken back
or handed out -> ``lift_card``; STUCK / READY -> a short STUCK press (it counts on release);
a slap -> the pad of that pile; an answer -> one pad press per unit, then a short STUCK press
(docs/hardware.md).  The sensor model is the firmware's and the emulators' own.
"""

from spit import verdicts as V
from spit.intake import EV_STUCK, EV_SLAP, EV_READY, EV_ANSWER
from spit.rules import make_ruleset, MODE_OWN_DECK
from host_tools.vboard import heapgate

MS = 1000
SYNC_US = 20 * MS      # the players look at the lamps at least this often
PRESS_US = 60 * MS     # a button press


class FirmwarePort:
    mode = "firmware"

    def __init__(self, sim, rules, counts, board=None, emulator=None):
        from host_tools.vboard.runner import VirtualTable
        self.sim = sim
        self.rules = rules
        defaults = make_ruleset(rules.name).options
        options = {}
        for key in rules.options:
            if rules.options[key] != defaults[key]:
                options[key] = rules.options[key]
        if board is None:
            board = "pico_3pile" if rules.piles == 3 else "pico"
        # emulator: the PN532 model's keywords (e.g. its options, host_tools/vboard/pn532_options.py)
        self.join(sim, VirtualTable(board=board, ruleset=rules.name, options=options, emulator=emulator))

    def join(self, sim, vt):
        """Play on ``vt`` from its session's start: the players hear the engine's verdicts."""
        self.vt = vt
        self.out = []
        app = vt.app
        assert app is not None, "the firmware did not boot on the virtual board"
        ref = app.referee
        self._orig_sink = ref.sink
        ref.sink = self._sink
        # The verdicts the engine gave when the session started (before the hook).
        c = ref.cards
        self.out.append((V.V_ROUND_START, 0, 0, 1, c[0], c[1], -1))
        self.out.append((V.V_COUNTDOWN, 0, 0, self.rules.countdown_ms, 1, -1, -1))
        self.lines = None
        self.synced = 0
        sim.at(SYNC_US, self._periodic, 0)

    def _sink(self, code, ms, us, a, b, c, d):
        # (The players' record of a verdict: the harness's allocation, not the firmware's.  On
        # MicroPython the firmware runs the engine under heap_lock: open the gate around it.)
        heapgate.enter_c()
        try:
            self.out.append((code, ms, us, a, b, c, d))
        finally:
            heapgate.exit_c()
        sink = self._orig_sink
        if sink is not None:
            sink(code, ms, us, a, b, c, d)

    def take(self):
        out = self.out
        self.out = []
        return out

    # --- time ---
    def sync(self, t):
        """Step the firmware up to table time ``t``."""
        if t > self.synced:
            self.vt.run_until(t)
            self.synced = t

    def advance(self, t):
        self.sync(t)

    def _periodic(self, t, _arg):
        self.sync(t)
        self.sim._dispatch()
        if not self.sim.over:
            self.sim.at(t + SYNC_US, self._periodic, 0)

    # --- the physical world ---
    def _owner(self, player):
        return player if self.rules.mode == MODE_OWN_DECK else -1

    def misread(self, rng, permille, counter):
        """Inject faults: that share of the landing tags are never read (``counter[0]`` counts)."""
        self._misread = (rng, permille, counter)

    _misread = None

    def land(self, sim, t, pile, card, player):
        m = self._misread
        if m is not None and m[0].chance(m[1]):
            m[2][0] += 1
            vt = self.vt
            uid = vt.uid_of(card, self._owner(player))
            em = vt.emulators[pile]
            vt.touch(pile, t)
            vt.at(t, lambda: em.place_tag(uid, unreadable=True))
            return False   # the referee will see a touch with no read
        self.vt.land_card(pile, card, t, touch=True, owner=self._owner(player))
        return True

    def lift(self, t, pile, card, player):
        self.vt.lift_card(pile, card, t, owner=self._owner(player))

    def _press(self, player, what, t, hold_us):
        """A button press at table time ``t`` (the rp2 port drives the emulated Pico's pins)."""
        self.vt.press(player, what, t, hold_us=hold_us)

    def feed(self, kind, t, a, b, c):
        press = self._press
        if kind == EV_STUCK or kind == EV_READY:
            press(a, "stuck", t, PRESS_US)
        elif kind == EV_SLAP:
            press(a, ("slap", b), t, PRESS_US)
        elif kind == EV_ANSWER:
            for i in range(b):
                press(a, ("slap", 0), t + i * 2 * PRESS_US, PRESS_US)
            press(a, "stuck", t + b * 2 * PRESS_US, PRESS_US)
        # EV_TOP (a correction after a misread) needs the correction menu: not simulated here.

    def close(self, t):
        from referee.logread import read_log
        self.sync(t)
        vt = self.vt
        path = vt.log_path
        try:
            if vt.app is not None:
                vt.app.close()
            self.lines = read_log(path)[0] if path else []
        finally:
            vt.close()

    def log_lines(self):
        return self.lines or []


def firmware_port(sim, counts, rng, extra, board=None):
    """``port_factory`` for :func:`host_tools.sim.run.run_game` (``--mode firmware``)."""
    return FirmwarePort(sim, sim.rules, counts, board)
