"""NfcReader: one PN532 under one center pile, serviced by the firmware loop without blocking.

Each ``service(now_us)`` does one step: nothing (the IRQ line is high), a status poll, or
reading one reply and writing the next command.  Nothing waits for the chip, and nothing is
allocated per step or per card (only a failure allocates, when it happens).

Newest card on a growing pile::

    listing --reply--> (card to on_card) halt it --> scan (own REQA) --silence--> listing ...
       (the chip waits for a card itself: no bus traffic on a quiet pile)
    scan's REQA --answered--> listing (reads the new tag in one command) --> halt it --> scan

Every card read is halted (HLTA, our own through InCommunicateThru: it works whatever the
chip's InRelease does).  Whether the chip's listing (InListPassiveTarget, MaxTg=2)
sends REQA or WUPA (which wakes halted tags) is not documented, so each listing is followed
by a ``TagScan`` (own REQA: ``drivers/tag_scan.py``), which only tags not read yet answer
(ISO 14443-3).  An answered REQA is handed over to a listing, which reads the new tag(s) in
one command (a race's second card: one command, not the scan's seven); the tags that answered
are READY then, and a READY tag takes the listing's REQA / WUPA as an unexpected frame (back to
IDLE, unanswered: NTAG213F 8.4.4), so an HLTA goes first (READY tags: to IDLE).  Before any of
the chip's own commands follows raw exchanges, chip mode is put back (BitFraming 0, CRC on).  The same read tag
listed twice in a row means the chip wakes halted tags (``wakes_halted``): the reader then
scans every ``poll_us`` instead (and at once after a touch), resolving anticollision itself
(as it does once after a handed-over listing that returned the tag the listing before it had).
The probe's answers in board.json (``PN532.wupa`` / ``coll``, set by referee/board_hw.py) say
it beforehand: a WUPA chip is polled from the start, a REQA chip needs no scan after its
listings (halted tags stay silent to the next one), a chip without CIU_Coll is not asked for it;
without them the reader learns, which works on every chip.
``STRATEGY_FIELD_RESET`` also switches the field off and on every ``field_reset_us`` on a
quiet pile: every tag wakes and is read again.  The reader remembers the pile's UIDs
(``memory`` slots) and reports each once; ``clear_pile()`` when the pile is taken.

The pile's touch sensor says when a card lands (``touched``): a listing that was waiting is sent
again then, so that the chip's first activation attempt comes right after the landing; a reader
that polls scans in its next step (its REQA right after the landing).

Time stamps are never earlier than the landing (the referee matches reads to touch edges):
a listing's IRQ edge, or the time a scan's REQA was answered.  New tags that answered one
activation together share one time (``LandingGroup``): a tie for the referee (R-PLAY-5).
With each card, ``on_card`` can read the reader's evidence of its activation: ``act_us``,
when the activation that found it began (the listing command sent, or the scan's REQA
answered), and ``alone``, True when no other new tag answered that activation (a listing
with one target, a scan's tag with no collision): a tag answers every activation while it
lies in the field, so a card first read by a later activation landed after it (the race
rule, docs/log-format.md).

Failures (NACK, no ACK, bad checksum, error frame, timeout, bus errors) never raise into the
loop: they are counted (``failures``, ``last_error``), ``status`` turns ``STATUS_FAILING``
(``on_status(reader)``) and the reader retries with exponential backoff; after
``setup_after`` failures in a row it sets the chip up again in steps (``ChipSetup``: RSTPD_N
pulse, I2C bus clear, wake-up, configuration), none longer than the SPI wake-up's 2 ms.
"""

from micropython import const
import time

from drivers.pn532 import PN532Timeout, prefix_views
from drivers.pn532_setup import ChipSetup
from drivers.tag_scan import TagScan
from drivers.uid_memory import LandingGroup, UidMemory, copy_into, keep_uid, same_uid

STRATEGY_HALT = const(0)
STRATEGY_FIELD_RESET = const(1)

STATUS_OK = const(0)
STATUS_FAILING = const(1)

_IDLE = const(0)
_LISTING = const(1)     # _LISTING.._FIELD_ON: a command's reply is awaited
_HALTING = const(2)
_SCANNING = const(3)
_FIELD_OFF = const(4)
_FIELD_ON = const(5)
_POLL_WAIT = const(6)
_BACKOFF = const(7)
_SETUP = const(8)
_HALT_NEXT = const(9)   # a listed tag was delivered: halt it in the next step
_DETECT_NEXT = const(10)   # its pile reported quiet: list (or poll) again in the next step
_RESTORE = const(11)    # chip mode put back (WriteRegister) before a listing
_PARK = const(12)       # HLTA to the READY tags of a handed-over REQA: IDLE for the listing

# generated from drivers.pn532, drivers.tag_scan by scripts/gen_consts.py: do not edit
_MAX_UID_LEN = const(10)
_BUSY = const(0)
_QUIET = const(2)
_ANSWERED = const(3)
# end generated
_RETRY_FOREVER = const(0xFF)   # MxRtyPassiveActivation: the chip itself waits for a card
_MAX_SHIFT = const(12)
_RELISTS_FOR_WUPA = const(2)
_HANDOFF_US = const(20000)   # a collision handed to a listing is resolved within this
_RELIST_QUIET_US = const(50000)   # a touch this long after the pile's last one relists

# Buffers shared by every reader (the loop services one reader at a time, and these are used
# within one step): the UID handed to on_card, with a view of each length made once (a slice
# per card would allocate); a listing's first UID; a held card of a group being reported.
_UID = bytearray(_MAX_UID_LEN)
_UID_VIEWS = prefix_views(_UID)
_LISTED = bytearray(_MAX_UID_LEN)
_LISTED_VIEWS = prefix_views(_LISTED)
_HELD = bytearray(_MAX_UID_LEN)


class NfcReader:
    def __init__(self, pn532, pile=0, strategy=STRATEGY_HALT, on_card=None, on_status=None,
                 on_quiet=None, passive_retries=1, reply_timeout_us=250000, backoff_us=20000,
                 max_backoff_us=2000000, setup_after=3, memory=64, field_reset_us=500000,
                 poll_us=5000, reset_low_us=10000, reset_boot_us=20000):
        self.pn532 = pn532
        self.pile = pile
        self.strategy = strategy
        # on_card(pile, uid, ticks_us): uid is a memoryview of a buffer every reader shares,
        # valid during the call (nothing is allocated per card): copy it to keep it.
        self.on_card = on_card
        self.on_status = on_status    # on_status(reader) when status changes
        # on_quiet(pile): the cards reported since the last call were all the tags of their
        # activation (a scan or listing found nothing new after them): no tag reported with
        # an earlier time can follow, so the referee need not hold other piles back for one.
        self.on_quiet = on_quiet
        self._unsettled = False       # cards reported since the last on_quiet
        # The evidence of the card being reported (valid during on_card; see the docstring).
        self.act_us = 0
        self.alone = False
        self._act_us = 0            # the current activation's start
        self._lone = False          # the next _report's tag answered its activation alone
        self.passive_retries = passive_retries
        self.reply_timeout_us = reply_timeout_us
        self.backoff_us = backoff_us
        self.max_backoff_us = max_backoff_us
        self.setup_after = setup_after
        self.field_reset_us = field_reset_us
        self.poll_us = poll_us
        self.setup = ChipSetup(pn532, passive_retries, reset_low_us, reset_boot_us, reply_timeout_us)
        self.scan = TagScan(pn532)
        self.memory = UidMemory(memory)
        # Health and counters, for the status display, the log and the benches.
        self.status = STATUS_OK
        self.last_error = None
        self.failures = 0
        self.consecutive_failures = 0
        self.recoveries = 0
        self.cards = 0
        self.rereads = 0
        self.field_resets = 0
        # The chip as the probe found it (board.json, ``PN532.wupa``/``coll``: None unknown): a
        # listing known to send WUPA polls from the start (else learned: wakes_halted), one
        # known to send REQA needs no scan after it; CIU_Coll known unreadable: no read tried.
        self.wakes_halted = pn532.wupa is True
        self.scan.use_coll = pn532.coll is not False
        self._scan_now = True       # a touch since the last scan began (or none yet): a reader
                                    # that polls (wakes_halted) scans at once
        self._relists = 0
        self._relisted_uid = bytearray(1 + _MAX_UID_LEN)   # length + the UID re-listed last
        self._state = _IDLE
        self._since_us = 0          # when the state's wait began (_BACKOFF: when it ends)
        self._last_reset_us = 0
        self._irq_us = None         # the listing's reply edge (None: not seen)
        self._stamp_us = 0          # time given to the cards being delivered
        self._activation_us = 0     # when the scan's current REQA was answered
        # The time of an activation (an answered REQA of the scan) whose tags are not all
        # reported yet (-1: none): the loop does not judge past it meanwhile (referee/loop.py
        # advance_now), for a collision walked bit by bit may take longer than the rules'
        # touch_match_us, and the activation's reads carry its time.
        self.hold_us = -1
        self._scan_started_us = 0
        self.group = LandingGroup()   # new cards that answered one activation together
        self._handoff = False       # the listing reads what answered a scan's REQA
        self._own_anticoll = False  # the next scan resolves anticollision itself
        self._acked_us = None       # when the listing's ACK was read (None: not yet)
        self._touch_us = 0          # the pile's last touch
        self._last_found = bytearray(1 + _MAX_UID_LEN)   # the scan's last tag (length + UID)

    # ---- called by the firmware loop ------------------------------------------------------
    def note_irq(self, ticks_us):
        """The reader's IRQ line fell at ``ticks_us`` (from the input ring buffer).  Only an
        edge after the listing's ACK was read is its reply (the ACK pulls the line low too):
        then True (the reply waits to be read: serve this reader first)."""
        acked_us = self._acked_us
        if self._state == _LISTING and acked_us is not None and time.ticks_diff(ticks_us, acked_us) > 0:
            self._irq_us = ticks_us
            return True
        return False

    def touched(self, ticks_us):
        """A card touched the pile at ``ticks_us``.  A listing waiting for a card is sent again
        at once: the chip repeats its activation attempts a few ms apart, and the new listing's
        first attempt comes right after the landing instead of up to one period later.  Not
        for a touch within ``_RELIST_QUIET_US`` of the last one: the chip may be reading that
        card (an aborted listing loses it, and both cards would be read as a tie)."""
        last = self._touch_us
        self._touch_us = ticks_us
        self._scan_now = True
        if (self._state == _LISTING and self._irq_us is None and not self._handoff
                and time.ticks_diff(ticks_us, last) > _RELIST_QUIET_US):
            try:
                self.pn532.abort()
                self._start_listing()
            except Exception as error:  # noqa: BLE001 - as in service(): counted, backed off
                self._failed(error, ticks_us)

    def service(self, now_us):
        """Advance one step.  Returns how many new cards were reported now."""
        try:
            state = self._state
            if _LISTING <= state <= _FIELD_ON:
                # The usual step: a reply is awaited (the chip waits for a card).  Once the
                # command's ACK was read, the IRQ line alone says when the reply is there.
                pn = self.pn532
                irq = pn.irq
                if irq is not None and not pn.awaiting_ack:
                    if irq.value():
                        if time.ticks_diff(now_us, self._since_us) <= self.reply_timeout_us:
                            return 0
                    elif state == _LISTING:
                        return self._listing_done(now_us)
            return self._step(now_us)
        except Exception as error:  # noqa: BLE001 - a reader must never stop the loop
            self._failed(error, now_us)
            return 0

    def _failed(self, error, now_us):
        """A step failed: counted; retried after an exponential backoff (from the setup after
        setup_after failures in a row)."""
        self.failures += 1
        failures = self.consecutive_failures + 1
        self.consecutive_failures = failures
        # PN532Error.kind; OSError from the bus; "memory" only where something allocated.
        self.last_error = getattr(error, "kind", "memory" if isinstance(error, MemoryError) else "bus")
        self._close_group()   # what was read stays read
        scan = self.scan
        scan.stop()
        scan.invalidate()
        delay = self.backoff_us << min(failures - 1, _MAX_SHIFT)
        self._since_us = time.ticks_add(now_us, min(delay, self.max_backoff_us))
        self._state = _BACKOFF
        if not self.status:
            self.status = STATUS_FAILING
            if self.on_status is not None:
                self.on_status(self)

    def clear_pile(self):
        """Forget every UID seen on this pile (the pile was taken away)."""
        self.memory.clear()

    def forget(self, uid):
        """Forget one UID (a card lifted off the pile, e.g. by a correction)."""
        return self.memory.forget(uid)

    # ---- the state machine ------------------------------------------------------------
    def _start_listing(self, handoff=False):
        self._handoff = handoff
        if self.scan.raw:
            # Raw exchanges ran (or the CIU is unknown): chip mode first, then (a handed-over
            # REQA) the HLTA that sends its READY tags back to IDLE, then the listing.
            self.pn532.start_chip_mode()
            self._state = _RESTORE
            self._since_us = time.ticks_us()
            return
        self.pn532.start_list(2)
        self._state = _LISTING
        self._since_us = time.ticks_us()
        self._irq_us = None
        self._acked_us = None

    def _start_scan(self, now_us):
        # The scan resolves what answers its REQA itself (five commands for one tag, three
        # more per collision with CIU_Coll: the read stays within the referee's reorder_us of
        # its REQA), unless the chip does not give CIU_Coll or the field is reset (the whole
        # pile is read again: two tags a command): then a chip whose listing leaves halted
        # tags alone reads them in one command (a listing, after chip mode and an HLTA for the
        # READY tags); not right after such a listing returned the tag the listing before it
        # had (halted tags woken: then the scan resolves them itself, once).
        scan = self.scan
        scan.start(not (self.wakes_halted or self._own_anticoll
                        or scan.use_coll and not self.strategy))   # (STRATEGY_HALT)
        self._own_anticoll = False
        self._scan_now = False
        self._scan_started_us = now_us
        self._last_found[0] = 0
        self._state = _SCANNING
        self._since_us = now_us

    def _detect(self, now_us):
        """Wait for the next card: a listing in the chip, or the next poll."""
        if self.wakes_halted:
            self._state = _POLL_WAIT    # poll_us from the start of the last scan
        else:
            self._start_listing()

    def _step(self, now_us):
        state = self._state
        pn = self.pn532
        if state == _BACKOFF:
            if time.ticks_diff(now_us, self._since_us) < 0:   # the retry time
                return 0
            if self.consecutive_failures >= self.setup_after:
                # No abort first: the bus may be what is broken.
                self.setup.begin(now_us, self.last_error == "bus")
                self._state = _SETUP
                return 0
            pn.abort()
            state = _IDLE   # and start as at first, now
        elif state == _SETUP:
            if not self.setup.step(now_us):
                return 0
            self._ok()
            self.scan.invalidate()
            state = _IDLE   # the chip is set up: start as at first, now
        if state == _IDLE:
            self._last_reset_us = now_us
            self._detect(now_us)
            return 0
        if state == _HALT_NEXT:
            pn.start_halt()
            self._state = _HALTING
            self._since_us = now_us
            return 0
        if state == _DETECT_NEXT:
            self._detect(now_us)
            return 0
        if state == _POLL_WAIT:
            # Every poll_us, or at once after a touch (its card answers the first REQA).
            if self._scan_now or time.ticks_diff(now_us, self._scan_started_us) >= self.poll_us:
                self._start_scan(now_us)
            return 0
        # A command's reply is awaited.
        acking = pn.awaiting_ack
        ready = pn.reply_ready()
        if acking and not pn.awaiting_ack:
            # The ACK was read just now: an IRQ edge noted so far was the ACK's.
            self._acked_us = time.ticks_us()
            self._irq_us = None
        if not ready:
            if time.ticks_diff(now_us, self._since_us) > self.reply_timeout_us:
                if state == _LISTING and self.passive_retries == _RETRY_FOREVER:
                    # The chip is waiting for a new card, as asked: no news is normal.  Cancel
                    # and list again; the new command's ACK proves the chip still answers.
                    pn.abort()
                    self._start_listing()
                    return 0
                raise PN532Timeout("reply timeout")   # (service() then backs off)
            return 0
        if state == _LISTING:
            return self._listing_done(now_us)
        if state == _SCANNING:
            return self._scan_step(now_us)
        if state == _RESTORE:
            pn.finish_write_register()
            scan = self.scan
            scan.invalidate()   # raw mode is to be written again before the next REQA
            scan.raw = False
            if self._handoff:
                pn.start_halt()
                self._state = _PARK
                self._since_us = now_us
                return 0
        elif state == _PARK:
            pn.finish_halt()
        if state == _RESTORE or state == _PARK:
            self._start_listing(self._handoff)
            return 0
        if state == _HALTING:
            pn.finish_halt()   # then a scan: a group the listing opened goes on in it
            if pn.wupa is False:
                # The listing sends REQA (board.json): halted tags stay silent to it, so the
                # next listing hears what the scan would have.  (The listing's reply made the
                # status OK.)
                return self._scan_over(now_us)
        else:
            pn.finish_field()
            if state == _FIELD_OFF:
                pn.start_field(True)
                self._state = _FIELD_ON
                self._since_us = now_us
                return 0
        self._ok()
        self._start_scan(now_us)
        return 0

    def _listing_done(self, now_us):
        pn = self.pn532
        buf = _LISTED
        n = pn.finish_list(buf)
        handoff = self._handoff
        group = self.group
        if group.open:
            stamp_us = group.stamp_us
        else:
            stamp_us = self._irq_us
            if stamp_us is None:
                stamp_us = now_us
            self._act_us = self._since_us   # (the listing's command went out then)
            if handoff and time.ticks_diff(stamp_us, self._since_us) <= _HANDOFF_US:
                # Resolving a scan's collision: these tags answered that REQA.  (A listing
                # that waited longer heard a tag that landed since: its own reply time.)
                stamp_us = self._act_us = self._activation_us
        self._stamp_us = stamp_us
        if self.status:
            self._ok()
        if n == 0:
            return self._scan_over(now_us)   # (no scan runs while the chip lists)
        memory = self.memory
        n2 = pn.uid2_len
        new1 = not memory.known(buf, n)
        if new1 and not (n2 or group.open or (handoff and self.scan.collided)):
            # The usual case: one new tag, alone.  What the general path below does for it
            # (_deliver, _report), written out: on_card gets a view of the listing's buffer
            # itself (no copy), then the UID is remembered, and the pile is quiet.
            self.cards += 1
            self._relists = 0
            self._unsettled = True
            self.act_us = self._act_us
            self.alone = True
            if self.on_card is not None:
                self.on_card(self.pile, _LISTED_VIEWS[n], stamp_us)
            memory.remember(buf, n)
            self._settle()
            self._state = _HALT_NEXT
            return 1
        new2 = n2 > 0 and not memory.known(pn.uid2, n2)
        delivered = 0
        if (new1 or new2) and ((handoff and self.scan.collided) or n2 or group.open):
            # Tags that answered together; more may follow in the scan: hold them.  (An
            # open group keeps its time: stamp_us is that time then.)
            group.start(stamp_us)
            self.hold_us = stamp_us
        elif group.open:
            delivered = self._close_group()
        delivered += self._deliver(buf, n, new1)
        if n2:
            delivered += self._deliver(pn.uid2, n2, new2)
        # The chip wakes halted tags if its listing returns the same tag, read and halted
        # before, twice in a row (a tag that browned out is halted again and stays quiet).
        if new1 or new2:
            self._relists = 0
        elif self._relists and same_uid(self._relisted_uid, buf, n):
            if handoff:
                # Its tags answered a REQA, so they were awake (a field reset, a brown-out):
                # no proof of WUPA.  But the same tag again means the halt did not hold: the
                # next scan resolves anticollision itself (see _start_scan).
                self._own_anticoll = True
            else:
                self._relists += 1
                if self._relists >= _RELISTS_FOR_WUPA:
                    self.wakes_halted = True
        else:
            self._relists = 1
            keep_uid(self._relisted_uid, buf, n)
        if not group.open:
            # Every tag that answered this activation was listed (the chip lists two, and
            # a third answers a later REQA, with a later time): the pile is quiet for the
            # referee now, not after the scan.
            self._settle()
        # Halt it even when known (a re-woken tag must go quiet again), in the next step:
        # the card's verdict and LEDs come first.
        self._state = _HALT_NEXT
        return delivered

    def _scan_step(self, now_us):
        scan = self.scan
        reqa = scan.awaiting_reqa
        if reqa:
            self._activation_us = now_us
        result = scan.step()
        self._since_us = now_us
        self._ok()
        if reqa and self.hold_us < 0:
            self.hold_us = now_us   # (until its tags are reported: _settle, _close_group)
        if result == _BUSY:
            return 0
        if result == _ANSWERED:
            # A new tag (or several): the chip's listing reads them in one command.
            self._start_listing(True)
            return 0
        if result == _QUIET:
            return self._scan_over(now_us)
        n = scan.uid_len
        if same_uid(self._last_found, scan.uid, n):
            # The same tag again right after its HLTA: it does not halt.  End this scan (the
            # HLTA just sent goes out; the next command replaces its wait).
            return self._scan_over(now_us)
        keep_uid(self._last_found, scan.uid, n)
        group = self.group
        if self.memory.known(scan.uid, n):
            # A tag read before was awake (field reset, brown-out): whatever collided with
            # it may have landed at any time since, so the group ends here.
            self.rereads += 1
            return self._close_group()
        if scan.found_collided:
            # New tags that answered one REQA together: one time for all of them.
            if not group.open:
                group.start(self._activation_us)
                self._act_us = self._activation_us
        elif not group.open:
            self._stamp_us = self._act_us = self._activation_us
            self._lone = True   # (no collision: it answered its REQA alone)
            self.hold_us = -1
        else:
            # The last of the group answers alone.
            self._deliver(scan.uid, n, True)
            return self._close_group()
        return self._deliver(scan.uid, n, True)

    def _scan_over(self, now_us):
        """The pile is quiet: report the group, then a field reset or the next detection."""
        self.scan.stop()
        delivered = self._close_group()
        quiet = self._settle()
        # No field resets on a chip that wakes halted tags: re-reading the whole pile would
        # take the scan's bit-wise anticollision, one probe per shared UID bit and card.
        if (self.strategy == STRATEGY_FIELD_RESET and not self.wakes_halted
                and time.ticks_diff(now_us, self._last_reset_us) >= self.field_reset_us):
            self._last_reset_us = now_us
            self.field_resets += 1
            self.scan.invalidate()
            self.pn532.start_field(False)
            self._state = _FIELD_OFF
            self._since_us = now_us
        elif quiet:
            # The referee took the news in this step (it may judge cards now): the next
            # command goes out in the reader's next step, so neither step is long.
            self._state = _DETECT_NEXT
        else:
            self._detect(now_us)
        return delivered

    def _deliver(self, buf, n, new):
        """A tag read now: report it if ``new`` (not in ``memory``; held while a group is
        open).  Returns 1 if it was reported now."""
        if not new:
            self.rereads += 1
            return 0
        group = self.group
        if group.open and self.wakes_halted and group.count < group.slots:
            # Bit-wise anticollision takes a while: hand the group over in one step.
            self.memory.remember(buf, n)
            group.remember(buf, n)
            return 0
        self._report(buf, n, group.stamp_us if group.open else self._stamp_us)
        self.memory.remember(buf, n)   # (after the report: the card's verdict comes first)
        return 1

    def _close_group(self):
        """Report the held cards of the group, all with its time.  Returns how many."""
        self.hold_us = -1
        group = self.group
        held = group.count
        buf = _HELD
        for k in range(held):
            self._report(buf, group.uid_into(k, buf), group.stamp_us)
        group.clear()
        return held

    def _settle(self):
        """No tag reported with an earlier time can follow: ``on_quiet``, if cards were
        reported since the last one.  Returns True if it was called for."""
        self.hold_us = -1
        if not self._unsettled:
            return False
        self._unsettled = False
        if self.on_quiet is not None:
            self.on_quiet(self.pile)
        return True

    def _report(self, buf, n, stamp_us):
        copy_into(_UID, 0, buf, 0, n)
        self.cards += 1
        self._unsettled = True
        self.alone = self._lone
        self._lone = False
        self.act_us = self._act_us
        if self.on_card is not None:
            self.on_card(self.pile, _UID_VIEWS[n], stamp_us)

    def _ok(self):
        if self.status:   # failing until now (consecutive_failures > 0)
            self.consecutive_failures = 0
            self.recoveries += 1
            self.status = STATUS_OK
            if self.on_status is not None:
                self.on_status(self)
