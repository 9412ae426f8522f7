"""The referee application: boot, sessions, and the firmware loop as a steppable ``App``.

    app = App()            # root="" on the Pico: /board.json, /ruleset.json, /cards.bin, /logtables.bin, /logs
    app.boot()             # raises BootError (one clear message + blink code) on bad config
    while True:
        app.step()         # one loop iteration; never blocks on a reader

``App.__init__`` declares every piece of the App's state; ``App.boot`` keeps what
referee/startup.py's steps return (they assign nothing to the App).

Boot: board, ruleset and card map; ``alloc_emergency_exception_buf``; inputs (hard IRQs
into one ``InputRing``), PN532 readers, LEDs, buzzer; self-test (firmware version of each
PN532: a dead reader is reported and retried by its ``NfcReader`` while the other piles are
refereed; an LED sweep); then a session (engine + session log).

One ``step()`` is ``poll()`` then ``pause_work()`` (referee/loop.py).  ``poll()``: the input
ring drained (debounced; touch -> ``touch``, slap pads -> ``slap``, STUCK edges ->
``Corrections``, reader IRQ edges -> ``note_irq``); a reader whose listing reply came in is
served at once and alone, and a card it reads takes the card path (``loop.take_card``: read,
feed, judge, draw, log; docs/architecture.md, "The card path"), which ends the step; else the
debouncer's held edges, the clock, ring overflows, every reader one non-blocking step,
``referee.advance``, the LEDs (when the intents changed or a frame is due) and the buzzer.  A
card landing allocates nothing (tests/micropython/mp_firmware_check.py runs it under
heap_lock).  ``pause_work()``: in play, the live echo of one log record; at a pause (between
rounds, after the game, the correction menu) one piece of log work per step.  The card
callback's lookup, the engine's feeds and verdicts and the LED drawing run with the heap
locked (``loop.run_locked``): MicroPython then keeps their call frames on the C stack instead
of allocating one heap block per call (measured on the chip: the card callback 1.5 -> 0.6 ms,
a card map lookup 0.43 -> 0.13 ms).

Flash writes mask interrupts: an input edge during one is stamped when the write ends, in
GPIO order.  Every stamp inside the last write's window is therefore moved to the window's end
(``referee/stalls.py``): two landings in one write share a time, so a race decided by them is
a tie (the engine's tie window), and the log carries that shared time, so a re-judge agrees.
"""

import gc
import time

import micropython
from micropython import const

import spit
from spit.intents import LedIntents
from spit.referee import Referee
from referee.stalls import FlashStalls
from referee.sessionlog import SessionLog
from referee.live import Live
from referee import waiting
from referee import loop

# Copies of other modules' codes: const() is inlined per module only, so a use costs no global
# and attribute lookup (and spit.verdicts, for one, need not be on the board).
# The input source layout is referee/sources.py's (only the PC and the tests use it).
# generated from spit.verdicts, spit.intake, spit.referee, spit.intents, drivers.edge_input, referee.sources
#   by scripts/gen_consts.py: do not edit
_V_ACCEPT = const(1)
_V_ILLEGAL = const(2)
_V_LATE = const(3)
_V_TIE = const(4)
_V_EARLY = const(5)
_V_SPIT_CALL = const(6)
_V_PILE_WON = const(9)
_V_ERROR = const(11)
_V_ROUND_START = const(15)
_V_RECYCLE = const(16)
_V_UNDO = const(18)
_E_DUPLICATE = const(5)   # a second copy of a card already in the center this round
_E_READER = const(11)     # firmware: an NFC reader stopped answering
_EV_TOUCH = const(1)      # a: pile
_EV_STUCK = const(3)      # a: player
_EV_SLAP = const(4)       # a: player, b: pile
_PH_OVER = const(5)
_ALL_ZONES = const(0x7F)  # a bit per zone
_RELEASE = const(0x8000)  # flag OR-ed into the source id for release edges (the id: source & 0x7FFF)
_READER0 = const(4)       # PN532 IRQ line of pile p: _READER0 + p
_STUCK0 = const(8)        # STUCK button of player q: _STUCK0 + q
_SLAP0 = const(16)        # referee.sources _SLAP_BASE: slap pad of player q on pile p: _SLAP_BASE + 4 * q + p
_SLAP_END = const(24)     # referee.sources N_SOURCES: size for per-source tables (Debouncer)
# end generated

_REREPORT_MS = const(10000)


# Modules only the boot needs (the board file, ruleset, card map and log tables loaders, the
# device builders, the boot steps): dropped after boot so their code does not hold heap during
# play (imported again if needed).
_BOOT_ONLY = const(("referee.startup", "referee.board_hw", "referee.boardfile"))
# The session files' naming and rotation (Logbook.start): dropped after a session start.
_SESSION_ONLY = const(("referee.logfiles",))


def _unlocked():
    return 0   # (heap_unlock where MicroPython has no heap lock)


def _drop_modules(names):
    import sys
    if sys.implementation.name != "micropython":
        return   # (a PC test process keeps its module objects: exception classes stay the same)
    for name in names:
        if sys.modules.pop(name, None) is not None:
            parent, _, child = name.rpartition(".")
            pkg = sys.modules.get(parent)
            if pkg is not None and hasattr(pkg, child):
                delattr(pkg, child)


_TYPE_CHECKING = const(False)   # (mpy-cross drops the block below: pyright reads it)
if _TYPE_CHECKING:
    from drivers.debouncer import Debouncer
    from drivers.input_ring import InputRing
    from referee.corrections import Corrections
    from referee.rejected import RejectedUids
    from spit.cardmap import CardMap
    from spit.clock import SessionClock
    from spit.legal import Ruleset


class App:
    def __init__(self, root="", out=print, echo=None, log_records=None):
        # Every attribute of the App is set here (or, annotated, by boot).  Their number matters
        # on MicroPython: an instance's attribute table grows only once it is full (sizes 47, 59,
        # 71, 89...), and a method called on the App is first looked for there, slot by slot up
        # to an empty one.  With exactly 59 attributes every such call scanned them all: read ->
        # LED +0.2 ms p50 on the emulated Pico; the unix port's lookups 4.8x slower than with 60
        # (tests/firmware/test_app_shape.py keeps the count off the table sizes).
        self.root = root
        self.out = out
        # echo(buf, off, n): the live session log on the console (None: off).
        # The live stream (docs/live-protocol.md): seq and device time on every line, written
        # only when the host can take it (referee/live.py).
        self.live = Live(echo) if echo is not None else None
        self.waiting = False       # no session: waiting for both READY (referee/waiting.py)
        # The session log's records (9 KB in one block, made first thing at boot by
        # referee/boot.py, or here), reused by every session.
        if log_records is None:
            gc.collect()
        # The engine's verdict sink, bound once (a bound method made per use allocates).
        self._verdict_fn = self._verdict
        live = self.live
        self.slog = SessionLog(None, 0, None if live is None else live.line, records=log_records)
        if live is not None:
            self.slog.echo_ready = live.ready
        # What the boot loads and builds (referee/startup.py returns it to App.boot); the
        # annotated ones exist from the boot on, the others are None or empty before it.
        self.board: dict           # board.json (after the self-test, its name only)
        self.rules: "Ruleset"
        self.cards: "CardMap"
        self.counts: list          # the players' card counts at a round's start
        self.own_deck = False      # each player plays their own deck (the card's owner is fed)
        self.header = ""           # the session log's first line
        self.status = None         # status LED pin
        self.ring: "InputRing"     # every input's edges, stamped by hard IRQs
        self.inputs = []           # the EdgeInputs (kept alive: their IRQs)
        self.stuck_inputs = [None, None]
        self.deb: "Debouncer"
        self.pn532 = []            # the PN532 drivers, per pile (the readers', self-tested at boot)
        self.readers = []          # an NfcReader per pile
        self.rejected: "RejectedUids"   # UIDs of read cards, to forget rejected ones
        self.leds = None
        self.loop_pin = None       # scope probe: high while a step runs (board.json loop_pin)
        self.buzzer = None
        self.corr: "Corrections"   # STUCK presses and the correction menu
        self.book = None           # the session files ("Logbook")
        self.clock: "SessionClock"
        self.versions = []         # per pile: (ic, ver, rev, support) or None (no answer)
        # A session (new_session):
        self.referee: "Referee"    # the engine
        self.intents: "LedIntents"
        self.sessions = 0
        self._over_ready = [False, False]
        self._restart = False      # both READY after the game: a new session once the log is written
        self._reported_ms = [0, 0, 0]
        self._housekeep_ms = 0
        self.stalls = FlashStalls()   # input stamps inside flash writes (referee/stalls.py)
        # The loop (referee/loop.py): a step, the card path, the LEDs.
        self.step_us = 0           # ticks_us when this step began (pause_work's time budget)
        self.steps = 0
        self.paused = False        # no card can land now (set each step by pause_work)
        self._judge = False        # a card was read (or a pile went quiet): judge_cards in the next step
        self._replied = -1         # the pile whose reader's reply came in (IRQ): served first
        self._read = False         # a reader delivered a tag in this step
        self._fed_pile = -1        # the pile whose reader read a card: served after the next step's judge_cards
        self._quiet_pile = -1      # a pile its reader settled with cards queued (App._on_quiet)
        self._next_reader = 0      # the readers are served in turn, from this one
        self._overflows = 0
        self._echo_ms = 0          # when pause_work last echoed the log (a long step defers it)
        # The card path (loop.take_card): cards read in this step, fed in the next (ms, us,
        # pile, card, owner, evidence each); the card fed now, until its first verdict
        # (_landing: its UID, a view, on the pile _fed_pile); its read's evidence (spit.intake
        # EVID_*).
        self._card_queue = [0] * loop.CARD_QUEUE_INTS
        self._cards_in = 0
        self._now = False          # on_card: this card is the step's first (take_card feeds it)
        self._landing = None
        self._evidence = 0
        # What the LEDs show (_render): the intents, their change count, the frame to draw.
        self._shown = None
        self._shown_changes = 0
        self._draw_src = None
        self._draw_ms = 0
        # micropython.heap_lock/heap_unlock (None where absent): code that provably allocates
        # nothing runs locked, so MicroPython puts its call frames on the C stack (a frame of
        # more than 11 words is otherwise a heap block, allocated and freed on every call).
        self.heap_lock = getattr(micropython, "heap_lock", None)
        self.heap_unlock = getattr(micropython, "heap_unlock", _unlocked)
        self.lock_failures = 0     # MemoryErrors under the lock (loop.run_locked)
        self._lock_reported = 0
        # Pause work (loop.pause_work):
        self._synced = True        # the session file has no unsynced write
        self._swept = True         # gc.collect() done at this pause

    # ---- boot ---------------------------------------------------------------------------
    def boot(self, log_buffer=None):
        """Load the files, build the devices, self-test, wait for READY (``log_buffer``: the
        log's RAM buffer, allocated first thing at boot by referee/boot.py; else made here)."""
        from referee import startup
        (self.board, self.rules, self.cards, self.counts, self.own_deck, self.header,
         tables) = startup.load_configs(self.root)
        self.slog.line_format.use(tables)
        (self.status, self.ring, self.inputs, self.deb, self.pn532, self.readers, self.rejected,
         self.leds, self.loop_pin, self.buzzer, self.corr, self.book,
         self.clock) = startup.build(self, self.board, log_buffer)   # (first alloc_emergency_exception_buf)
        for e in self.inputs:
            q = e.source - _STUCK0
            if 0 <= q < 2:   # player q's STUCK button
                self.stuck_inputs[q] = e
        # The firmware line is printed here, not in startup.selftest: that way the heap in use
        # after boot measured 9.6 KB more on the emulated Pico (bench_rp2's "heap start"),
        # which looks like startup's module outliving the collect through a stale reference.
        name = self.board["name"]
        self.out("spit-referee %s board=%s" % (spit.__version__, name))
        self.versions = startup.selftest(self.out, self.board, self.pn532, self.leds, self.buzzer)
        # Play needs nothing of the board file (the session log's header was made with its
        # name), so all but the name (2-3 KB of heap) goes now that every device is built.
        self.board = {"name": name}
        del startup
        _drop_modules(_BOOT_ONLY)
        if self.live is not None:
            self.live.text('{"live": 1, "firmware": "%s", "board": "%s", "session": %d}' % (
                spit.__version__, name, self.session_number()))
        self.wait_ready()   # (every round starts on READY, the first one too)
        _drop_modules(_SESSION_ONLY)
        gc.collect()
        n = 64
        while n and self.slog.echo_some(8):   # (records of the boot, if any, before the loop)
            n -= 1
        self._render(self.clock.ms)   # (the first frame, every zone: boot work, not a step's)

    # ---- sessions -----------------------------------------------------------------------
    def new_session(self):
        """Start a game: close the old log, a fresh engine and log, session time 0."""
        if self.sessions and not self.waiting:
            self.close()
        self.waiting = False
        self.sessions += 1
        self._over_ready[0] = self._over_ready[1] = False
        self.intents = LedIntents()
        self.slog.start(self.book, self.rules.reorder_us)
        # The header made at boot (referee/startup.py), with the date once a PC set the clock.
        lt = time.localtime()
        head = self.header if lt[0] < 2024 else self.header[:-1] + (
            ', "started": "%04d-%02d-%02dT%02d:%02d:%02d"}' % lt[:6])
        if self.book is not None:
            self.book.start(head)
            _drop_modules(_SESSION_ONLY)
            # The new engine's first records wait in RAM for the next pause: its countdown
            # begins now, and a flash write would mask the IRQs that time early cards.
            self.stalls.note(self.book, 0, True)   # (written before play: not a mid-play write)
        for r in self.readers:
            r.clear_pile()
        self.clock.start()
        self.referee = Referee(self.rules, self.counts, self._verdict_fn, self.intents)
        self.corr.attach(self.referee)
        for p in range(len(self.readers)):
            self._reported_ms[p] = 0
            if self.versions[p] is None:
                self.referee.report(0, 0, _E_READER, p, 0)
        live = self.live
        if live is not None:
            live.text(head)   # (the log file's first line, on the stream too)
            live.status(self)

    def close(self):
        """End the session: a closing tick, flush and close the log."""
        if self.sessions and not self.waiting:
            self.clock.update()
            self.slog.tick(self.clock.ms, self.clock.us)
            self.slog.close()

    def feed(self, kind, ms, us, a, b, c):
        """Log one input event and feed it to the engine (none while waiting for READY)."""
        if self.waiting:
            return
        self.slog.event(kind, ms, us, a, b, c)
        self.referee.feed(kind, ms, us, a, b, c)

    # ---- the loop (run_forever, pause_work, at_pause: referee/loop.py) ------------------
    run_forever = loop.run_forever
    wait_ready = waiting.wait_ready
    session_number = waiting.session_number
    pause_work = loop.pause_work
    at_pause = loop.at_pause
    poll = loop.poll
    feed_cards = loop.feed_cards
    run_locked = loop.run_locked
    _on_card = loop.on_card

    def step(self):
        self.poll()
        self.pause_work()

    def _input(self, src, ticks):
        """One debounced input event."""
        st = self.stalls
        book = self.book
        if st.watch_ms >= 0 or (book is not None and book.flushes != st.seen):
            ticks = st.stamp(ticks, book, self.clock.ms, self.paused)
        s = src & 0x7FFF   # (the id without its RELEASE flag; layout: referee/sources.py)
        if _READER0 <= s < _STUCK0:
            if self.readers[s & 3].note_irq(ticks):
                self._replied = s & 3
            return
        clock = self.clock
        clock.convert(ticks)
        ms = clock.ev_ms
        us = clock.ev_us
        if s < _READER0:   # a touch sensor
            if s < len(self.readers):
                reader = self.readers[s]
                reader.touched(ticks)   # (first: its chip lists again now if it waits)
                if self.rejected.pending[s]:
                    self.rejected.forget_now(s, reader)
            self.feed(_EV_TOUCH, ms, us, s, 0, 0)
        elif s < _STUCK0 + 2:   # a STUCK button (its release too)
            self.corr.stuck_edge(s - _STUCK0, not (src & _RELEASE), ms, us)
        elif _SLAP0 <= s < _SLAP_END and not src & _RELEASE:
            # A slap pad's press (its release is no slap: a bouncing release fires the pad's
            # press-edge IRQ again, and the debouncer reports the settled release).
            player = (s - _SLAP0) >> 2
            pile = s & 3
            if not self.corr.slap(player, pile, ms, us):
                self.feed(_EV_SLAP, ms, us, player, pile, 0)
            elif self.corr.resync == pile and pile < len(self.readers):
                # The true top card may be one the reader has already seen: forget the pile
                # (halted tags stay silent, so only a card put back or newly placed answers).
                self.readers[pile].clear_pile()

    def _short_stuck(self, player, ms, us):
        """A short STUCK press outside the correction menu."""
        if self.referee.phase == _PH_OVER:
            # After the game: both STUCK (READY) start the next game.
            self._over_ready[player] = True
            waiting.ready_pressed(self, player)
            if self._over_ready[0] and self._over_ready[1]:
                self._restart = True   # (pause_work: once the log is on flash)
            return
        self.feed(_EV_STUCK, ms, us, player, 0, 0)

    def _stuck_held(self, player):
        e = self.stuck_inputs[player]
        # An edge still held by the debouncer (release not confirmed yet) counts as held.
        return e is not None and (e.is_active() or self.deb.holding(e.source))

    def _on_quiet(self, pile):
        """The pile's reader found no other tag of the activation it just reported: the
        engine stops holding later landings on the other piles back for one (their verdicts
        come now, not ``relist_us`` after this pile's read).  With cards of this step still
        queued, the next step's ``judge_cards`` feeds them first and then tells the engine
        (one reader reports per step, so one pile waits at most)."""
        if self._cards_in:
            self._quiet_pile = pile
        elif loop.quiet_pile(self, pile):
            self._judge = True

    def _forget_card(self, pile, card):
        """A rejected card goes back to its player: once it can have left the pile, the
        reader must read it again if it lands again (it was halted and remembered)."""
        if 0 <= pile < len(self.readers):
            self.rejected.reject(pile, card)

    def _forget_piles(self, pile=-1):
        """A pile was taken (``pile_won``: that pile) or a round starts (-1: every pile): its
        tags are new again."""
        for r in self.readers:
            if pile < 0 or r.pile == pile:
                r.clear_pile()
                self.rejected.clear(r.pile)

    def _recycled(self):
        """R-SPEED-1: every center pile's cards but its top left the table (the new side
        piles): they will be flipped back, and must be read then.  Each reader forgets its
        pile's tags but the top's, which stays and must not be reported again."""
        top = self.referee.top
        for r in self.readers:
            self.rejected.keep_top(r.pile, top[r.pile], r)

    def _on_status(self, reader):
        p = reader.pile
        if reader.status:
            self._reported_ms[p] = self.clock.ms
            self.referee.report(self.clock.ms, self.clock.us, _E_READER, p, reader.failures)
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
                self.referee.report(ms, us, _E_READER, p, r.failures)

    def _verdict(self, code, ms, us, a, b, c, d):
        """The engine's verdict sink (the firmware's own errors too): the verdict's reactions
        (corrections, the readers' memory, sounds), then its log record.  The first verdict
        of the card ``loop.take_card`` feeds comes after that card's LED frame and log record
        (``loop.landed``: the frame is what the players wait for)."""
        if self._landing is not None:
            loop.landed(self)
        self.corr.on_verdict(code, a, b)
        # The readers' memory follows the engine: a card that leaves a pile (rejected, taken
        # back, handed out, recycled) is forgotten, so it is read if it lands again
        # (tests/firmware/test_firmware_follows_verdicts.py).
        if code == _V_ILLEGAL or code == _V_LATE or code == _V_EARLY or code == _V_UNDO:
            self._forget_card(a, b)
        elif code == _V_ERROR and a == _E_DUPLICATE:
            self._forget_card(b, c)
        elif code == _V_PILE_WON:
            self._forget_piles(b)
        elif code == _V_ROUND_START:
            self._forget_piles()
        elif code == _V_RECYCLE:
            self._recycled()
        bz = self.buzzer
        if bz is not None:
            if code == _V_ACCEPT:
                bz.play(bz.ACCEPT)
            elif code == _V_ILLEGAL:
                bz.play(bz.ILLEGAL)
            elif code == _V_LATE:
                bz.play(bz.LATE)
            elif code == _V_TIE:
                bz.play(bz.TIE)
            elif code == _V_SPIT_CALL:
                bz.play(bz.SPIT)
            elif code == _V_ERROR:
                bz.play(bz.ERROR)
        self.slog.sink(code, ms, us, a, b, c, d)

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
            src.dirty = _ALL_ZONES   # (every zone compared with what the other one showed)
            self._shown = src
        leds = self.leds
        if leds is not None and (src.changes != self._shown_changes or leds.pending
                                 or ms >= leds.due_ms):
            # A new verdict is drawn at once (or as soon as the strip has latched the frame
            # before); a blink edge, an expiry or a countdown frame when it is due.
            self._draw_src = src
            self._draw_ms = ms
            self.run_locked(loop.draw_leds)
        self._shown_changes = src.changes
        if self.buzzer is not None:
            self.buzzer.update(ms)
