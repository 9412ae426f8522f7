"""The referee application: boot, sessions, and the firmware loop as a steppable ``App``.

    app = App()            # root="" on the Pico: /board.json, /ruleset.json, /cards.json, /logs
    app.boot()             # raises BootError (one clear message + blink code) on bad config
    while True:
        app.step()         # one loop iteration; never blocks on a reader

Boot: board, ruleset and card map; ``alloc_emergency_exception_buf``; inputs (hard IRQs
into one ``InputRing``), PN532 readers, LEDs, buzzer; self-test (firmware version of each
PN532: a dead reader is reported and retried by its ``NfcReader`` while the other piles are
refereed; an LED sweep); then a session (engine + session log).

One ``step()``: ``SessionClock.update()``; drain the ring (debounce, ticks -> session time;
touch -> ``touch``, slap pads -> ``slap``, STUCK edges -> ``Corrections`` (a short press is
``stuck``, both held 2 s opens the correction menu), reader IRQ edges -> ``note_irq``);
report ring overflows (``overflow``); service every reader one non-blocking step (cards ->
card map -> ``card``, unknown tags -> ``unknown_uid``, failing readers -> ``reader_down``);
``referee.advance(now)``; render LEDs and buzzer; flush the log at pauses.
"""

import time

import micropython
from micropython import const

import spit
from spit import verdicts as V
from spit.cardmap import read_cardmap, CardMapError, uid_hex
from spit.clock import SessionClock
from spit.intake import EV_TOUCH, EV_CARD, EV_STUCK, EV_SLAP, EV_TOP
from spit.intents import LedIntents
from spit.notation import header_line
from spit.referee import Referee, PH_OVER
from spit.rules import make_ruleset, RulesetError, MODE_OWN_DECK
from drivers.input_ring import InputRing
from referee import sources
from referee.board import load_board, BoardError, ERR_HARDWARE
from referee.corrections import Corrections
from referee.sessionlog import SessionLog

ERR_RULESET = const(6)     # blink code: /ruleset.json missing or invalid
ERR_CARDS = const(7)       # blink code: /cards.json missing or invalid
ERR_FIRMWARE = const(8)    # blink code: the firmware itself failed (a bug)

_PASSIVE_RETRIES = const(0xFF)   # PN532 MxRtyPassiveActivation: wait for a card
_RING = const(64)
_DRAIN_MAX = const(48)     # events taken from the ring per step (the rest next step)
_HOUSEKEEP_MS = const(1000)
_REREPORT_MS = const(10000)
_IDLE_MS = const(1)       # sleep after a step with no input waiting
_RENDER_MS = const(10)     # animation frame period (patterns change at >= 62 ms)


class BootError(Exception):
    """A configuration or hardware problem found at boot: ``what``, ``msg``, blink ``code``."""

    def __init__(self, what, msg, code, led=None):
        super().__init__(msg)
        self.what = what
        self.msg = msg
        self.code = code
        self.led = led

    def __str__(self):
        return "spit-referee: %s error (blink code %d): %s" % (self.what, self.code, self.msg)


class App:
    def __init__(self, root="", out=print, echo=None, log_buffer=None):
        self.root = root
        self._log_buffer = log_buffer   # the log's RAM buffer, allocated early at boot
        self.out = out
        self.echo = echo          # echo(line): live session log on the console (None: off)
        self.own_deck = False
        self.status = None        # status LED pin
        self.loop_pin = None      # scope probe: high while a step runs (board.json loop_pin)
        self.leds = None
        self.buzzer = None
        self.inputs = []
        self.stuck_inputs = [None, None]
        self.pn532 = []
        self.readers = []
        self._uids = []
        self._to_forget = []
        self.book = None
        self.steps = 0
        self.sessions = 0
        self.versions = []        # per pile: (ic, ver, rev, support) or None (no answer)
        self._overflows = 0
        self._housekeep_ms = 0
        self._reported_ms = [0, 0, 0]
        self._shown = None
        self._shown_changes = 0
        self._render_ms = 0
        self._over_ready = [False, False]

    # ---- boot ---------------------------------------------------------------------------
    def boot(self):
        self.load_configs()
        alloc = getattr(micropython, "alloc_emergency_exception_buf", None)
        if alloc is not None:   # (absent from some host stand-ins of the module)
            alloc(100)
        self.build()
        self.out("spit-referee %s board=%s" % (spit.__version__, self.board["name"]))
        self.selftest()
        self.new_session()

    def load_configs(self):
        root = self.root
        try:
            self.board = load_board(root + "board.json", "board.json")
        except BoardError as e:
            raise BootError("board", e.msg, e.code, self._status_led(None))
        led = self._status_led(self.board)
        try:
            self.rules = self._load_ruleset(root + "ruleset.json")
        except (RulesetError, ValueError, OSError) as e:
            raise BootError("ruleset", "ruleset.json: %s" % e, ERR_RULESET, led)
        if self.rules.piles != self.board["piles"]:
            raise BootError("ruleset", "ruleset.json: the ruleset plays on %d piles, board %s has %d"
                            % (self.rules.piles, self.board["name"], self.board["piles"]), ERR_RULESET, led)
        try:
            self.cards = read_cardmap(root + "cards.json")
        except CardMapError as e:
            raise BootError("card map", "%s (enroll the cards: `spit enroll`, or on the board "
                            "`import referee.enroll as e; e.run()`)" % e, ERR_CARDS, led)
        self.counts = self.rules.default_counts()
        self.own_deck = self.rules.mode == MODE_OWN_DECK

    def _status_led(self, board):
        try:
            from referee.board_hw import status_led
            return status_led(board)
        except Exception:  # noqa: BLE001 - no LED is no reason to hide the real error
            return None

    def _load_ruleset(self, path):
        import json
        try:
            f = open(path)
        except OSError:
            raise ValueError("missing (spit flash writes it: {\"ruleset\": \"classic\", \"options\": {}})")
        try:
            d = json.load(f)
        finally:
            f.close()
        if type(d) is not dict:
            raise ValueError("expected {\"ruleset\": NAME, \"options\": {...}}")
        options = d.get("options")
        ro = self.board.get("reorder_us") if self.board else None
        if ro is not None and not (type(options) is dict and "reorder_us" in options):
            # The board's sensing (touch sensors or not) decides how long to hold events.
            options = dict(options) if type(options) is dict else {}
            options["reorder_us"] = ro
        return make_ruleset(d.get("ruleset", "classic"), options)

    def build(self):
        """Build inputs, readers, LEDs and buzzer (BootError code 5 if a device fails)."""
        from referee import board_hw
        board = self.board
        self.status = self._status_led(board)
        try:
            from machine import Pin
            from drivers.edge_input import EdgeInput
            from drivers.nfc_reader import NfcReader
            self.ring = InputRing(_RING)
            self.inputs = board_hw.build_inputs(board, self.ring, reader_irqs=False)
            for e in self.inputs:
                if sources.kind(e.source) == sources.KIND_STUCK:
                    self.stuck_inputs[sources.player_of(e.source)] = e
            self.deb = board_hw.build_debouncer(board, self.inputs)
            self.pn532 = []
            self.readers = []
            for p, (bus, cs, irq) in enumerate(board_hw.build_nfc(board)):
                self.pn532.append(board_hw.build_pn532(board, p, bus, cs, irq))
                # The reader's IRQ line is timestamped like every other input; the driver
                # only reads irq.value().  One Pin object per GPIO, shared by both.
                self.inputs.append(EdgeInput(irq, sources.reader(p), self.ring, Pin.IRQ_FALLING))
                # passive_retries 0xFF: the PN532 waits for a card itself (IRQ when one
                # answers), so a quiet pile costs no bus traffic; re-listed every 500 ms.
                self.readers.append(NfcReader(self.pn532[p], p, on_card=self._on_card,
                                              on_status=self._on_status, passive_retries=_PASSIVE_RETRIES,
                                              reply_timeout_us=500000))
            self._uids = [{} for _ in self.readers]   # per pile: card -> UID read
            self._to_forget = [[] for _ in self.readers]   # rejected UIDs, forgotten soon
            self.leds = board_hw.build_leds(board)
            self.loop_pin = board_hw.loop_pin(board)
            self.buzzer = board_hw.build_buzzer(board)
        except (ValueError, TypeError, OSError, AttributeError) as e:
            raise BootError("board", "board.json: a device failed to initialise: %s" % e,
                            ERR_HARDWARE, self.status)
        self.corr = Corrections(self.feed, self._stuck_held, self._short_stuck, self._beep)
        self.book = self._make_logbook()
        self.clock = SessionClock(time.ticks_us, time.ticks_ms, time.ticks_diff)

    def _make_logbook(self):
        try:
            from referee.logbook import Logbook
        except ImportError:
            self.out("spit-referee: no referee/logbook module: sessions are not logged")
            return None
        buf = self._log_buffer
        self._log_buffer = None
        if buf is not None:
            return Logbook(self.root + "logs", buffer_bytes=len(buf), buf=buf)
        return Logbook(self.root + "logs")

    def selftest(self):
        """PN532 firmware version per reader (a dead one is retried later) and an LED sweep."""
        nfc = self.board["nfc"]
        self.versions = []
        for p, pn in enumerate(self.pn532):
            try:
                v = pn.setup(_PASSIVE_RETRIES)
                self.versions.append(v)
                self.out("spit-referee: reader %d: PN532 IC 0x%02X firmware %d.%d" % (p, v[0], v[1], v[2]))
            except Exception as e:  # noqa: BLE001 - a dead reader must not stop the boot
                self.versions.append(None)
                r = nfc["readers"][p]
                where = ("cs=GP%d irq=GP%d" % (r["cs"], r["irq"])) if nfc["bus"] == "spi" else (
                    "i2c=%d addr=0x%02X irq=GP%d" % (r["i2c"], r["addr"], r["irq"]))
                self.out("spit-referee: reader %d: no answer (%s; %s): check the SPI/I2C mode "
                         "switches, the wiring and 3.3 V; retrying while the other piles play"
                         % (p, getattr(e, "kind", type(e).__name__), where))
        if self.leds is not None:
            for c in (1, 2, 5, 6):   # green, red, blue, white
                self.leds.fill(c)
                time.sleep_ms(80)
            self.leds.off()
        if self.buzzer is not None:
            self.buzzer.play(self.buzzer.READY)

    # ---- sessions -----------------------------------------------------------------------
    def new_session(self):
        """Start a game: close the old log, a fresh engine and log, session time 0."""
        if self.sessions:
            self.close()
        self.sessions += 1
        self._over_ready[0] = self._over_ready[1] = False
        self.intents = LedIntents()
        self.slog = SessionLog(self.book, self.rules.reorder_us, self._on_verdict, self.echo)
        if self.book is not None:
            extra = {"board": self.board["name"], "firmware": spit.__version__}
            self.book.start(header_line(self.rules, self.counts, extra))
        for r in self.readers:
            r.clear_pile()
        self.clock.start()
        self.referee = Referee(self.rules, self.counts, self.slog.sink, self.intents)
        self.corr.attach(self.referee)
        for p in range(len(self.readers)):
            self._reported_ms[p] = 0
            if self.versions[p] is None:
                self.referee.report(0, 0, V.E_READER, p, 0)
        self.slog.flush()

    def close(self):
        """End the session: a closing tick, flush and close the log."""
        if self.sessions:
            self.clock.update()
            self.slog.tick(self.clock.ms, self.clock.us)
            self.slog.close()

    def feed(self, kind, ms, us, a, b, c, uid=None):
        """Log one input event and feed it to the engine."""
        self.slog.event(kind, ms, us, a, b, c, uid)
        self.referee.feed(kind, ms, us, a, b, c)

    # ---- the loop -----------------------------------------------------------------------
    def run_forever(self):
        ring = self.ring
        probe = self.loop_pin
        while True:
            if probe is not None:
                probe.value(1)
                self.step()
                probe.value(0)
            else:
                self.step()
            if not len(ring):
                # Nothing waiting: sleep (WFE) until the next tick. Edges are stamped by
                # hard IRQs meanwhile, so this adds at most a millisecond before they are
                # judged, and the chip idles between cards instead of spinning.
                time.sleep_ms(_IDLE_MS)

    def step(self):
        clock = self.clock
        clock.update()
        ms = clock.ms
        us = clock.us
        ring = self.ring
        n = 0
        while n < _DRAIN_MAX:
            src = ring.pop()
            if src < 0:
                break
            n += 1
            if self.deb.accept(src, ring.ticks):
                self._input(src, ring.ticks)
        # Button and pad edges held by the debouncer until their level proved stable.
        src = self.deb.pop_due(time.ticks_us())
        while src >= 0:
            self._input(src, self.deb.ticks)
            src = self.deb.pop_due(time.ticks_us())
        if ring.overflows != self._overflows:
            lost = ring.overflows - self._overflows
            self._overflows = ring.overflows
            self.referee.report(ms, us, V.E_OVERFLOW, -1, lost)
        now = time.ticks_us()
        for r in self.readers:
            r.service(now)
        self.corr.tick(ms)
        self.referee.advance(ms, us)
        self.slog.advanced(ms, us)
        self._render(ms)
        self.slog.drain()   # formatting log lines waits until the LEDs show the verdict
        if self.slog.pause:
            self.slog.flush()
        if ms - self._housekeep_ms >= _HOUSEKEEP_MS:
            self._housekeep(ms, us)
        self.steps += 1

    def _input(self, src, ticks):
        """One debounced input event."""
        k = sources.kind(src)
        if k == sources.KIND_READER:
            self.readers[src & 3].note_irq(ticks)
            return
        clock = self.clock
        clock.convert(ticks)
        ms = clock.ev_ms
        us = clock.ev_us
        if k == sources.KIND_TOUCH:
            if (src & 3) < len(self._to_forget):
                self._forget_now(src & 3)
            self.feed(EV_TOUCH, ms, us, src & 3, 0, 0)
        elif k == sources.KIND_STUCK:
            self.corr.stuck_edge(sources.player_of(src), not sources.is_release(src), ms, us)
        elif k == sources.KIND_SLAP:
            player = sources.player_of(src)
            pile = sources.pile_of(src)
            if not self.corr.slap(player, pile, ms, us):
                self.feed(EV_SLAP, ms, us, player, pile, 0)
            elif self.corr.resync == pile and pile < len(self.readers):
                # The true top card may be one the reader has already seen: forget the pile
                # (halted tags stay silent, so only a card put back or newly placed answers).
                self.readers[pile].clear_pile()

    def _short_stuck(self, player, ms, us):
        """A short STUCK press outside the correction menu."""
        if self.referee.phase == PH_OVER:
            # After the game: both STUCK (READY) start the next game.
            self._over_ready[player] = True
            if self._over_ready[0] and self._over_ready[1]:
                self.new_session()
            return
        self.feed(EV_STUCK, ms, us, player, 0, 0)

    def _stuck_held(self, player):
        e = self.stuck_inputs[player]
        # An edge still held by the debouncer (release not confirmed yet) counts as held.
        return e is not None and (e.is_active() or self.deb.holding(e.source))

    def _on_card(self, pile, uid, ticks):
        clock = self.clock
        clock.convert(ticks)
        ms = clock.ev_ms
        us = clock.ev_us
        cm = self.cards
        if not cm.lookup(uid, len(uid)):
            self.slog.uid_note = uid_hex(uid)
            self.referee.report(ms, us, V.E_UNKNOWN_UID, pile, -1)
            self.out("spit-referee: pile %d: unknown tag %s (not in cards.json)" % (pile, uid_hex(uid)))
            return
        if self.corr.take_resync(pile):
            self.feed(EV_TOP, ms, us, pile, cm.card, 0)
            return
        if pile < len(self._uids):
            self._forget_now(pile)
            self._uids[pile][cm.card] = bytes(uid)   # to forget it if the card is rejected
        self.feed(EV_CARD, ms, us, pile, cm.card, cm.owner if self.own_deck else -1)

    def _forget_card(self, pile, card):
        """A rejected card goes back to its player: once it can have left the pile, the
        reader must read it again if it lands again (it was halted and remembered)."""
        if 0 <= pile < len(self.readers):
            uid = self._uids[pile].pop(card, None)
            if uid is not None:
                # Not yet: it may still lie there (un-halted after a failed halt, it would be
                # read twice).  The next touch on the pile, or the next card read there, is
                # the sign it has gone or is landing again.
                self._to_forget[pile].append(uid)

    def _forget_now(self, pile):
        pending = self._to_forget[pile]
        if pending:
            reader = self.readers[pile]
            for uid in pending:
                reader.forget(uid)
            self._to_forget[pile] = []

    def _forget_piles(self):
        """The piles were taken (round end) or a round starts: every tag is new again."""
        for r in self.readers:
            r.clear_pile()
        for m in self._uids:
            m.clear()
        for p in range(len(self._to_forget)):
            self._to_forget[p] = []

    def _on_status(self, reader):
        p = reader.pile
        if reader.status:
            self._reported_ms[p] = self.clock.ms
            self.referee.report(self.clock.ms, self.clock.us, V.E_READER, p, reader.failures)
            self.out("spit-referee: reader %d failing (%s), retrying" % (p, reader.last_error))
        else:
            self.out("spit-referee: reader %d answers again" % p)

    def _housekeep(self, ms, us):
        self._housekeep_ms = ms
        self.deb.expire(time.ticks_us())
        for r in self.readers:
            p = r.pile
            if r.status and ms - self._reported_ms[p] >= _REREPORT_MS:
                self._reported_ms[p] = ms
                self.referee.report(ms, us, V.E_READER, p, r.failures)

    def _on_verdict(self, code, ms, a, b, c):
        self.corr.on_verdict(code, a)
        if code == V.V_ILLEGAL or code == V.V_LATE or code == V.V_EARLY:
            self._forget_card(a, b)
        elif code == V.V_ERROR and a == V.E_DUPLICATE:
            self._forget_card(b, c)
        elif code == V.V_PILE_WON or code == V.V_ROUND_START:
            self._forget_piles()
        bz = self.buzzer
        if bz is None:
            return
        if code == V.V_ACCEPT:
            bz.play(bz.ACCEPT)
        elif code == V.V_ILLEGAL:
            bz.play(bz.ILLEGAL)
        elif code == V.V_LATE:
            bz.play(bz.LATE)
        elif code == V.V_TIE:
            bz.play(bz.TIE)
        elif code == V.V_SPIT_CALL:
            bz.play(bz.SPIT)
        elif code == V.V_ERROR:
            bz.play(bz.ERROR)

    def _beep(self, kind):
        bz = self.buzzer
        if bz is not None:
            bz.play(bz.READY if kind == "open" or kind == "close" else bz.ACCEPT)

    def _render(self, ms):
        src = self.corr.intents if self.corr.menu else self.intents
        if src is not self._shown:
            # Switching what is shown: make sure the renderer sees a new change count.
            if src.changes <= self._shown_changes:
                src.changes = self._shown_changes + 1
            self._shown = src
        if self.leds is not None and (src.changes != self._shown_changes or ms - self._render_ms >= _RENDER_MS):
            # A new verdict is drawn at once; blinking/countdown frames every _RENDER_MS.
            self._render_ms = ms
            self.leds.render(src, ms)
        self._shown_changes = src.changes
        if self.buzzer is not None:
            self.buzzer.update(ms)
