"""`spit emu --table`: the emulated Pico's table in this terminal while its USB serial is a pty.

The board is the one `spit emu` serves (other terminals flash it, run `spit doctor`, pull its logs
over the pty); this terminal is the table around it.  Between games the keys are the bare
hardware: STUCK and the pads are pressed at the pins, ``/P CARD PILE`` puts a card of the deck on
a pile and ``/off PILE`` takes the cards off it (for `spit doctor`'s "place a card").  When the
referee starts a session (both READY: its ``round_start`` on the live stream), the table becomes
a game (``PlayTable``: the deal, the keys that land face-up cards) refereed by this board; the
players learn its verdicts from the live stream, as `spit console` shows them.
"""

import time

from host_tools.device.live import LiveReader
from host_tools.sim.firmware import SYNC_US
from host_tools.sim.rp2 import Rp2Port

MS = 1000
WAITING = "waiting for READY: both players press STUCK"


class LinkedPort(Rp2Port):
    """A ``PlaySim`` port on a running emulated Pico (``Rp2Port``'s table, not its boot)."""

    def __init__(self, sim, rules, linked):
        from host_tools.sim.rp2 import verdict_tuple
        self.sim = sim
        self.rules = rules
        self.linked = linked
        self.pico = linked                 # (BoardView: an emulated Pico's pins)
        self.emu = linked.emu
        self.table = linked.rtable
        self.t0 = linked.session_t0
        self.out = [verdict_tuple(obj) for obj in linked.pending]
        self.lines = None
        self.synced = 0
        sim.at(SYNC_US, self._periodic, 0)

    def sync(self, t):
        if t > self.synced:
            self.linked.run_to(self.t0 + t)
            self.synced = t

    def close(self, t):
        self.sync(t)
        self.lines = []                    # the log stays on the board: `spit logs pull`


class IdleTable:
    """The keys' target between games: the bare buttons and cards by hand."""

    def __init__(self, linked):
        self.linked = linked
        self.notes = []
        self.placed = {}                   # pile -> [uid]

    @property
    def now(self):
        return self.linked.rtable.now_us - self.linked.session_t0

    def note(self, text):
        self.notes.append((self.now, text))

    def piles(self):
        return len(self.linked.rtable.emulators)

    def pick(self, player, index):
        self.note("no game yet: %s" % WAITING)

    def land_picked(self, player, pile):
        self.note("no game yet: %s" % WAITING)

    def fill_gap(self, player):
        pass

    def stuck(self, player):
        rt = self.linked.rtable
        rt.press(player, "stuck", rt.now_us)

    def pad(self, player, pile):
        rt = self.linked.rtable
        if 0 <= pile < len(rt.emulators):
            rt.press(player, ("slap", pile), rt.now_us)

    def land_by_name(self, player, name, pile):
        from spit.cards import parse_card
        from host_tools.vboard.board_files import default_uid
        rt = self.linked.rtable
        try:
            uid = default_uid(parse_card(name), player if self.linked.rules.mode == 1 else -1)
        except (ValueError, KeyError):
            self.note("%r names no card" % name)
            return False
        if not 0 <= pile < len(rt.emulators):
            self.note("there is no pile %d" % pile)
            return False
        rt.land_card(pile, uid, rt.now_us)
        self.placed.setdefault(pile, []).append(uid)
        self.note("%s placed on pile %d" % (name, pile))
        return True

    def take_off(self, pile):
        rt = self.linked.rtable
        for uid in self.placed.pop(pile, []):
            rt.lift_card(pile, uid, rt.now_us)
        self.note("pile %d cleared" % pile)


class Linked:
    """The emulated Pico (``emu``), its table at the pins (``rtable``), its pty (``link``) and the game."""

    def __init__(self, emu, rtable, ruleset="classic", options=None, seed=1):
        from spit.rules import make_ruleset
        self.emu = emu
        self.rtable = rtable
        self.table = rtable                # (BoardView reads the pins' frames and tones here)
        self.pico = True
        self.ruleset = ruleset
        self.options = options
        self.seed = seed
        self.rules = make_ruleset(ruleset, options)
        self.reader = LiveReader()
        self.text = []                     # the board's text lines (boot banner, doctor prompts ...)
        self.status = None
        self.game = None                   # PlayTable of the session in progress
        self.games = 0
        self.pending = []                  # verdicts of a session about to start
        self.session_t0 = 0
        self.idle = IdleTable(self)
        self._partial = b""
        self.t0 = 0                        # (BoardView: the sounds' time origin)

    def serial(self, data):
        """The board's output (chained before the pty's)."""
        buf = self._partial + data
        *lines, self._partial = buf.split(b"\n")
        for raw in lines:
            for kind, obj, body, _seq in self.reader.feed(raw.decode(errors="replace").strip()):
                if kind == "log" and "verdict" in obj:
                    self._verdict(obj)
                elif kind == "status":
                    self.status = obj
                elif kind == "text" and body:
                    self.text.append(body)
                    del self.text[:-8]

    def _verdict(self, obj):
        from host_tools.sim.rp2 import verdict_tuple
        if obj["verdict"] == "round_start" and obj.get("round") == 1 and obj.get("t") == 0:
            self.pending = [obj]           # a new session: the game starts at the next step
            self.session_t0 = self.rtable.now_us
            self.t0 = self.session_t0
            self.game = None
            return
        if self.game is None and self.pending:
            self.pending.append(obj)
            return
        if self.game is not None:
            self.game.sim.port.out.append(verdict_tuple(obj))

    def _start_game(self):
        from host_tools.play.table import PlayTable
        self.games += 1
        self.game = PlayTable(self.ruleset, self.options, self.seed + self.games - 1, "rp2",
                              port_factory=lambda sim, counts, rng, extra: LinkedPort(sim, sim.rules, self))
        self.pending = []

    def run_to(self, t_us):
        self.rtable.run_until(t_us)

    def advance(self, target_us):
        """Run the board and the table to emulated time ``target_us``."""
        if self.game is None and self.pending:
            self._start_game()
        if self.game is not None:
            self.game.advance(max(self.game.now, target_us - self.session_t0))
        else:
            self.rtable.run_until(target_us)

    def target(self):
        return self.game if self.game is not None else self.idle


def serve(linked, link, out, term, colour=True, stop=None, frame_s=0.1, slice_us=20 * MS):
    """The terminal loop: keys, the pty's bytes, emulated time after the wall clock, the screen."""
    from host_tools.play.hardware import BoardView
    from host_tools.play.keys import Keyboard
    from host_tools.play.screen import render, render_idle
    view = BoardView(linked)
    views = {}
    kb = Keyboard(linked.idle)
    wall0 = time.monotonic()
    emu0 = linked.rtable.now_us
    shown = 0.0
    while not kb.quit and not (stop is not None and stop()):
        keys = term.keys(0.01)
        if keys is None:
            break
        kb.table = linked.target()
        for ch in keys:
            kb.key(ch)
        link._to_board()
        target = emu0 + int((time.monotonic() - wall0) * 1e6)
        now = linked.rtable.now_us
        if target - now > 10 * slice_us:       # the emulator is slower than real time: time stretches
            wall0 = time.monotonic()
            emu0 = now + slice_us
            target = emu0
        linked.advance(min(target, now + slice_us))
        game = linked.game
        if game is not None:
            v = views.get(id(game))
            if v is None:
                v = views[id(game)] = BoardView(game.sim.port)
            v.listen(game.now)
        else:
            view.listen(linked.rtable.now_us - linked.t0)
        if keys or time.monotonic() - shown >= frame_s:
            kb.table = linked.target()
            if game is not None:
                out.write(render(game, v, kb, colour=colour, board_lines=linked.text[-2:]))
            else:
                out.write(render_idle(linked, view, kb, colour=colour))
            out.flush()
            shown = time.monotonic()
