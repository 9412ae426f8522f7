"""Run the real firmware (``firmware/main.py``, unchanged) on the virtual board.

``VirtualTable`` builds a board file system in a directory (``board.json`` from boards/,
``ruleset.json``, ``cards.json`` and ``cards.bin``, ``logtables.bin``), installs the fakes (``machine``, ``rp2``,
``time`` on a ``VirtualClock``), attaches one ``PN532Emulator`` per pile to the buses the firmware builds,
boots the firmware through ``main.start()`` and then steps ``App.step()`` itself while the
virtual clock advances.  Works under CPython and the MicroPython unix port.

    from host_tools.vboard.runner import VirtualTable
    table = VirtualTable(board="pico", ruleset="classic")    # boots the firmware
    table.land_card(0, "7H", at_us=2_100_000)                # touch edge + tag on pile 0
    table.land_card(1, "KS", at_us=2_150_000)
    table.press(0, "stuck", at_us=3_000_000)                 # a short STUCK press (100 ms)
    table.press(1, ("slap", 0), at_us=4_000_000)
    table.run_until(5_000_000)
    table.led_state()      # {"PILE0": "green", "SPIT": "white", "PLAYER0": "off", ...}
    table.log_lines()      # the session log as written on the board's flash
    table.close()

Times (``at_us``, ``run_until``, ``now_us``) are table time: microseconds since the first
session started (the end of the firmware's boot), which is also the log's ``t`` of that
session.  Actions are queued and happen exactly at their time while ``run_until`` steps the
firmware; scheduling in the past means "now".

Constructor options:
    board           a name in boards/ ("pico", "pico_3pile", "pico_i2c"), or a dict
    ruleset/options the ruleset.json content
    cards           {uid_hex: "QH"} card map; default: one tag per card (two decks for own-deck)
    files           {"board.json": text-or-None, ...}: override (None = leave the file out);
                    cards.bin is packed from the cards.json written (none if it is left out or bad)
    start_us        the virtual clock's start (e.g. just below a 2**30 wrap)
    loop_us         virtual time between two firmware steps (default 1000)
    emulator        PN532Emulator options (dict) for every pile, or a list of dicts per pile
    lock_heap       True: run every ``App.poll()`` under ``micropython.heap_lock()`` (MicroPython
                    only; fakes of C code release it, host_tools/vboard/heapgate.py), so any
                    allocation of the firmware's own code in the loop raises MemoryError;
                    ``pause_work()`` runs locked in play (the live echo) and unlocked at
                    pauses (log writes, ``gc.collect``)
    console         True: the firmware echoes its live log into ``console`` (bytes), as
                    it does on the chip's USB console
    boot            False: do not boot (use ``run_main()`` to test boot errors)
    ready           True (default): after boot both players press READY (a short STUCK press
                    each), as they do before every game, and table time 0 is the session's
                    start; False: the firmware is left waiting for READY (table time 0 is the
                    end of its boot)
    root            the directory used as the board's file system (default: a new temp dir)
    touch_sensor    a ``TouchSensor`` (host_tools/vboard/touch_sensor.py): when ``land_card``'s
                    touch edge comes after the landing, if at all (default: at the landing)

World actions: ``land_card(pile, card, at_us, touch=True, tag_delay_us=0, touch_us=2000)``
(``card`` is a code "QH", an encoded int, or a UID as bytes/hex; ``owner`` picks the deck in
own-deck games), ``lift_card(pile, card, at_us)``, ``press(player, "stuck" | ("slap", pile),
at_us, hold_us=100000)``, ``touch(pile, at_us)``, ``at(at_us, fn)`` for anything else (e.g.
a reader fault: ``table.at(t, lambda: setattr(table.emulators[1], "silent", True))``).

Observation: ``led_state()`` decodes the strip (or GPIO LEDs) as colour names per zone,
``led_intents()`` the engine's intents ``{zone: (colour, pattern)}``, ``log_lines()`` /
``log_objects()`` / ``log_path``, ``app`` (the firmware's ``App``: ``referee``, ``readers``,
``ring`` ...), ``emulators``, ``clock``, ``now_us``, ``uid_of(card)``.

The table's parts: ``board_files`` (the board's file system and default card map),
``hooked_machine`` (the ``machine`` module that attaches the emulators), ``led_readout``.
"""

import json
import sys

from . import heapgate, led_readout
from .board_files import (REPO, board_json_text, card_uids, default_card_map, make_root, remove_root,
                          write_board_files)
from .clock import VirtualClock
from .hooked_machine import install_hooked_machine, release_hooked_machine
from .install import install
from .pins import Pin
from .pn532_emulator import PN532Emulator

for _p in (REPO + "/firmware/lib", REPO + "/firmware"):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def next_world_us(agenda, emulators, limit):
    """The time of the next queued action (``agenda``: sorted ``(time, seq, fn)``) or reader
    state change (PN532 emulators), at most ``limit`` (shared with the emulated Pico's table)."""
    nxt = limit
    if agenda and agenda[0][0] < nxt:
        nxt = agenda[0][0]
    for em in emulators:
        e = em.next_event_us()
        if e is not None and e < nxt:
            nxt = e
    return nxt


class VirtualTable:
    def __init__(self, board="pico", ruleset="classic", options=None, cards=None, files=None,
                 start_us=0, loop_us=1000, emulator=None, boot=True, root=None, lock_heap=False,
                 console=False, ready=True, touch_sensor=None):
        from spit.rules import make_ruleset
        self.touch_sensor = touch_sensor
        self.loop_us = loop_us
        self.lock_heap = lock_heap
        self.console = bytearray() if console else None   # the live log echoed by the firmware
        self.steps = 0
        self.app = None
        self.ready = ready
        self.spis = {}
        self.emulators = []
        self._agenda = []
        self._seq = 0
        self._closed = False
        if root is None:
            root, self._own_root = make_root()
        else:
            self._own_root = False
            if not root.endswith("/"):
                root += "/"
        self.root = root
        # --- the board's file system ---
        board_text = board_json_text(board)
        rules = make_ruleset(ruleset, options)
        self.rules = rules
        if cards is None:
            cards = default_card_map(rules)
        self.cards = cards
        self.uids = card_uids(cards)      # (card, owner) -> uid bytes
        write_board_files(root, board_text, ruleset, options, cards, files)
        # --- the fakes ---
        Pin.reset_registry()
        self.clock = VirtualClock(start_us)
        self.installed = install(self.clock)
        install_hooked_machine(self)   # hardware the firmware builds from now on gets the emulators
        # --- what the world needs to know about the board ---
        from referee.board import load_board
        try:
            self.board = load_board(json.loads(board_text))
        except Exception:  # noqa: BLE001 - a bad board is a legitimate test subject
            self.board = None
        self._cs_pile = {}
        self._i2c_readers = {}
        piles = self.board["piles"] if self.board else 0
        for p in range(piles):
            opts = emulator[p] if isinstance(emulator, list) else (emulator or {})
            em = PN532Emulator(self.clock, seed=p + 1, **opts)
            self.installed.add_device(em)
            self.emulators.append(em)
            r = self.board["nfc"]["readers"][p]
            em.irq = r["irq"]
            if self.board["nfc"]["bus"] == "spi":
                self._cs_pile[r["cs"]] = p
            else:
                bus_id = self.board["nfc"]["i2c"][r["i2c"]]["id"]
                self._i2c_readers.setdefault(bus_id, []).append((p, r["addr"]))
        self.t0 = self.clock.now_us
        self._next_step = self.clock.now_us
        self.clock.during_wait = self._world_until
        if boot:
            self.boot()

    # ---- hardware hooks ------------------------------------------------------------------
    def _pin_built(self, pin):
        p = self._cs_pile.get(pin.id)
        if p is not None and pin.mode == Pin.OUT and self.spis:
            spi = self.spis[self.board["nfc"]["spi"]["id"]]
            self.emulators[p].attach_spi(spi, pin)

    def _i2c_built(self, bus_id, i2c):
        for p, addr in self._i2c_readers.get(bus_id, ()):
            self.emulators[p].attach_i2c(i2c, addr)

    # ---- boot ----------------------------------------------------------------------------
    def _import_main(self):
        import main
        return main

    def boot(self):
        """Boot the firmware (``main.start``); table time 0 is the session start."""
        echo = self._console_write if self.console is not None else None
        self.app = self._import_main().start(self.root, echo)
        # The firmware's own heap locks go through the gate too (fakes may allocate).
        self.app.heap_lock = heapgate.fw_lock
        self.app.heap_unlock = heapgate.fw_unlock
        self.t0 = self.clock.now_us
        self._next_step = self.clock.now_us
        if self.ready:
            self.press_ready()
        return self.app

    def press_ready(self, hold_us=60000, limit_us=3000000):
        """Both players press READY now; run until the session starts, which is table time 0
        from then on (returns False if it did not start within ``limit_us``)."""
        app = self.app
        clock = app.clock
        start = clock.start
        table = self

        def started():   # (the session clock's start: table time 0 from now)
            start()
            table.t0 = table.clock.now_us
            del clock.start   # (the class's method again)
        clock.start = started
        sessions = app.sessions
        t = self.now_us
        self.press(0, "stuck", t, hold_us=hold_us)
        self.press(1, "stuck", t, hold_us=hold_us)
        begin = self.clock.now_us
        while app.sessions == sessions and self.clock.now_us - begin < limit_us:
            self.run_until(self.now_us + 5000)
        if "start" in getattr(clock, "__dict__", {}):
            del clock.start
        return app.sessions != sessions

    def run_main(self, error_cycles=1):
        """Run ``main.run`` (boot errors blink ``error_cycles`` times); returns its result."""
        return self._import_main().run(self.root, error_cycles)

    # ---- time ----------------------------------------------------------------------------
    @property
    def now_us(self):
        return self.clock.now_us - self.t0

    def at(self, at_us, fn):
        """Run ``fn()`` at table time ``at_us`` (while ``run_until`` steps)."""
        t = self.t0 + at_us
        self._seq += 1
        item = (t, self._seq, fn)
        agenda = self._agenda
        i = len(agenda)
        while i > 0 and agenda[i - 1][0] > t:
            i -= 1
        agenda.insert(i, item)

    def _next_world_us(self, limit):
        """The time of the table's next action or reader state change, at most ``limit``."""
        return next_world_us(self._agenda, self.emulators, limit)

    def _world_now(self):
        for em in self.emulators:
            em.update()
        while self._agenda and self._agenda[0][0] <= self.clock.now_us:
            self._agenda.pop(0)[2]()

    def _world_until(self, until_us):
        """While the firmware sleeps until ``until_us`` (a chip-select setup wait, a reset
        pulse), the table's actions and the readers' replies happen at their own time: on
        the chip a sleep does not hold interrupts off, so their edges are stamped then."""
        clock = self.clock
        while True:
            nxt = self._next_world_us(until_us)
            if nxt >= until_us:
                return
            clock.advance_to_us(nxt)
            self._world_now()

    def run_until(self, at_us):
        """Step the firmware until table time ``at_us``, applying queued actions on time."""
        end = self.t0 + at_us
        clock = self.clock
        while True:
            nxt = self._next_world_us(self._next_step if self._next_step < end else end)
            if nxt > clock.now_us:
                clock.advance_to_us(nxt)
            self._world_now()
            if clock.now_us >= self._next_step:
                self._step()
                self.steps += 1
                self._next_step = clock.now_us + self.loop_us
            if clock.now_us >= end:
                return

    def _console_write(self, buf, off, n):
        """The firmware's echo: ``sys.stdout.write(buf, off, n)`` on the chip (C code)."""
        heapgate.enter_c()
        try:
            self.console.extend(buf[off:off + n])
        finally:
            heapgate.exit_c()
        return n

    def _step(self):
        app = self.app
        if not self.lock_heap:
            app.step()
            return
        heapgate.lock_step()
        try:
            app.poll()
            if not app.at_pause():   # the live echo in play runs locked too
                app.pause_work()
                return
        finally:
            heapgate.unlock_step()
        app.pause_work()

    def run_for(self, us):
        self.run_until(self.now_us + us)

    # ---- world actions -------------------------------------------------------------------
    def _pin(self, gpio):
        return Pin.registry[gpio]

    def _drive_input(self, spec, active):
        level = 0 if spec["active"] == "low" else 1
        self._pin(spec["pin"]).drive(level if active else 1 - level)

    def uid_of(self, card, owner=-1):
        """UID bytes of a card code / encoded card / UID (bytes or hex)."""
        if isinstance(card, (bytes, bytearray)):
            return bytes(card)
        if isinstance(card, str) and len(card) >= 8:
            return bytes(int(card[i:i + 2], 16) for i in range(0, len(card), 2))
        if isinstance(card, str):
            from spit.cards import parse_card
            card = parse_card(card)
        if self.rules.mode == 1 and owner < 0:
            owner = 0
        return self.uids[(card, owner)]

    def touch(self, pile, at_us, touch_us=2000):
        spec = self.board["touch"][pile]
        if spec is None:
            return
        self.at(at_us, lambda: self._drive_input(spec, True))
        self.at(at_us + touch_us, lambda: self._drive_input(spec, False))

    def land_card(self, pile, card, at_us, touch=True, tag_delay_us=0, touch_us=2000, owner=-1):
        """A card lands on ``pile``: its touch sensor edge at ``at_us`` (if the board has
        one and ``touch``), its tag enters the reader's field ``tag_delay_us`` later."""
        uid = self.uid_of(card, owner)
        if touch:
            edge = at_us if self.touch_sensor is None else self.touch_sensor.edge(at_us)
            if edge is not None:
                self.touch(pile, edge, touch_us)
        em = self.emulators[pile]
        self.at(at_us + tag_delay_us, lambda: em.place_tag(uid))
        return uid

    def lift_card(self, pile, card, at_us, owner=-1):
        uid = self.uid_of(card, owner)
        em = self.emulators[pile]
        self.at(at_us, lambda: em.remove_tag(uid))

    def press(self, player, what, at_us, hold_us=100000):
        """Press and release a button: ``"stuck"`` or ``("slap", pile)``."""
        pl = self.board["players"][player]
        spec = pl["stuck"] if what == "stuck" else pl["slap"][what[1]]
        if spec is None:
            raise ValueError("player %d has no %r" % (player, what))
        self.at(at_us, lambda: self._drive_input(spec, True))
        self.at(at_us + hold_us, lambda: self._drive_input(spec, False))

    # ---- observation ---------------------------------------------------------------------
    def led_state(self):
        """``{zone: colour name}`` of what the LEDs physically show now ("off" = dark)."""
        return led_readout.led_colours(self.board, self.app)

    def led_intents(self):
        """``{zone: (colour, pattern)}`` the firmware is rendering (menu or engine intents)."""
        return led_readout.led_intents(self.app)

    @property
    def log_path(self):
        book = self.app.book if self.app is not None else None
        return None if book is None else book.path

    def log_lines(self, flush=True):
        """The current session log's lines (``flush`` first writes the RAM buffer out)."""
        from referee.logread import read_log
        if self.app is None or self.app.book is None:
            return []
        if flush:
            self.app.slog.flush()   # drains the queued lines too
        return read_log(self.log_path)[0]

    def log_objects(self, flush=True):
        return [json.loads(line) for line in self.log_lines(flush)]

    def wrapped(self):
        """True if ticks_us wrapped (2**30) since the session started."""
        return (self.clock.now_us >> 30) != (self.t0 >> 30)

    def close(self):
        """Close the session log, remove the fakes (and the temp file system)."""
        if self._closed:
            return
        self._closed = True
        if self.app is not None:
            try:
                self.app.close()
            except Exception:  # noqa: BLE001
                pass
        self.installed.uninstall()
        release_hooked_machine()
        if self._own_root:
            remove_root(self.root)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
