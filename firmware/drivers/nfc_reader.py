"""NfcReader: one PN532 under one center pile, serviced by the firmware loop without blocking.

State machine (one step per ``service(now_us)`` call; each step costs at most one command
ACK, well under a millisecond on a real chip)::

    idle -> listing --reply ready--> read UID --> halting --> listing ...
                         (no tag)  `-----------------------> listing ...
    any failure -> backoff --(retry time)--> [abort, re-setup after repeated failures] -> listing

Newest card on a growing pile (``STRATEGY_HALT``, the default): every card read is sent HLTA
(InRelease).  A halted ISO14443A tag stays silent to REQA for as long as it stays powered in
the field, so the next InListPassiveTarget only hears the card that landed last.  The reader
also remembers the UIDs already seen on its pile (``memory`` slots): a tag that answers again
(it lost power when another card detuned the stack, or it slid off and back) is halted again
and not reported twice.  Call ``clear_pile()`` when the pile is taken (round end).

``STRATEGY_FIELD_RESET``: whenever a listing comes back empty and ``field_reset_us`` has
passed, the RF field is switched off and on (RFConfiguration item 1).  Every tag on the pile
wakes, and the reader enumerates them again (list + halt until nothing answers), reporting
only UIDs not yet remembered.  Trade-offs: it recovers from tags whose HALT state is unknown
and re-checks the whole pile, but one enumeration costs a read (~3-5 ms) per card on the pile,
so a new card can wait behind the old ones, and the memory must hold the whole pile (a UID
pushed out of memory would be reported again).  HALT keeps the latency of a single read.

Failures (NACK, bad checksum, error frame, timeout, silence, bus errors) never raise into the
loop: they are counted (``failures``, ``consecutive_failures``, ``last_error``), ``status``
turns ``STATUS_FAILING`` (``on_status(reader)`` is called on every change) and the reader
retries with exponential backoff.  After ``setup_after`` failures in a row it also re-runs the
chip setup (wake, SAMConfiguration, retries), which blocks for at most a few ACK timeouts.

Timestamps: pass the IRQ edge time from the input ring buffer to ``note_irq(ticks_us)``; a
card is delivered with that time (or with the ``now_us`` of the poll that saw the reply when
there is no IRQ line).  Remember the PN532 IRQ marks "reply ready", milliseconds after the
card landed: a touch sensor gives the true landing time.

What to try on real hardware:
- Stacked tags detune each other: one test read 0 of 20 exactly stacked NTAG203 pairs.  Try
  offsetting the tag position from card to card, smaller tags (NTAG213 25 mm) away from the
  antenna centre, a spacer (2-5 mm of foam) between antenna and pile, and check how many
  cards a pile can hold before reads fail (``failures`` and the emulator's miss model help).
- Check that a halted card stays silent: place one card, read it, and see that the next
  listings come back empty.  If it answers every time, the chip (firmware) sends WUPA rather
  than REQA; the UID memory still suppresses duplicates, but a new card can then only win
  anticollision by chance, so that board needs a different approach (e.g. MaxTg=2 listings).
- Tune MxRtyPassiveActivation (``passive_retries``): smaller answers "no tag" sooner and
  keeps the chip responsive to aborts; larger spends fewer SPI transactions.  0xFF (what the
  firmware uses) makes the chip wait for a card by itself: no bus traffic and no Python work
  while a pile is quiet, the IRQ line falls when a card answers.  A listing that stays
  unanswered for ``reply_timeout_us`` is then cancelled and re-issued, and that command's ACK
  is the reader's health check.
"""

from micropython import const
import time

from drivers.pn532 import MAX_UID_LEN, PN532Timeout

STRATEGY_HALT = const(0)
STRATEGY_FIELD_RESET = const(1)

STATUS_OK = const(0)
STATUS_FAILING = const(1)

_IDLE = const(0)
_LISTING = const(1)
_HALTING = const(2)
_FIELD_OFF = const(3)
_FIELD_ON = const(4)
_BACKOFF = const(5)

_SLOT = const(11)  # one remembered UID: length byte + up to 10 bytes
_RETRY_FOREVER = const(0xFF)   # MxRtyPassiveActivation: the chip itself waits for a card
_MAX_SHIFT = const(12)


class NfcReader:
    def __init__(self, pn532, pile=0, strategy=STRATEGY_HALT, on_card=None, on_status=None,
                 passive_retries=1, reply_timeout_us=250000, backoff_us=20000,
                 max_backoff_us=2000000, setup_after=3, memory=64, field_reset_us=500000):
        self.pn532 = pn532
        self.pile = pile
        self.strategy = strategy
        self.on_card = on_card        # on_card(pile, uid_bytes, ticks_us)
        self.on_status = on_status    # on_status(reader) when status changes
        self.passive_retries = passive_retries
        self.reply_timeout_us = reply_timeout_us
        self.backoff_us = backoff_us
        self.max_backoff_us = max_backoff_us
        self.setup_after = setup_after
        self.field_reset_us = field_reset_us
        # The last card delivered (also handed to on_card).
        self.uid = bytearray(MAX_UID_LEN)
        self.uid_len = 0
        self.uid_ticks_us = 0
        # Health, for the status display and the log.
        self.status = STATUS_OK
        self.last_error = None
        self.failures = 0
        self.consecutive_failures = 0
        self.recoveries = 0
        self.cards = 0
        self.rereads = 0
        self.field_resets = 0
        self._read_buf = bytearray(MAX_UID_LEN)
        self._state = _IDLE
        self._since_us = 0
        self._retry_at_us = 0
        self._last_reset_us = 0
        self._listed_at_us = 0
        self._irq_us = 0
        self._irq_seen = False
        self._needs_setup = False
        self._memory_slots = memory
        self._seen = bytearray(memory * _SLOT)
        self._seen_count = 0
        self._seen_next = 0

    # ---- called by the firmware loop ------------------------------------------------------
    def note_irq(self, ticks_us):
        """The reader's IRQ line fell at ``ticks_us`` (from the input ring buffer)."""
        if self._state == _LISTING and time.ticks_diff(ticks_us, self._listed_at_us) > 0:
            self._irq_us = ticks_us
            self._irq_seen = True

    def service(self, now_us):
        """Advance one step.  Returns the UID length of a new card delivered now, else 0."""
        try:
            return self._step(now_us)
        except Exception as error:  # noqa: BLE001 - a reader must never stop the loop
            self._fail(now_us, error)
            return 0

    def clear_pile(self):
        """Forget every UID seen on this pile (the pile was taken away)."""
        self._seen_count = 0
        self._seen_next = 0

    def forget(self, uid):
        """Forget one UID (a card lifted off the pile, e.g. by a correction)."""
        seen = self._seen
        for slot in range(self._seen_count):
            base = slot * _SLOT
            if seen[base] == len(uid) and seen[base + 1:base + 1 + len(uid)] == uid:
                seen[base] = 0
                return True
        return False

    @property
    def healthy(self):
        return self.status == STATUS_OK

    # ---- the state machine ------------------------------------------------------------
    def _start_listing(self):
        self.pn532.start_list()
        self._state = _LISTING
        self._since_us = self._listed_at_us = time.ticks_us()
        self._irq_seen = False

    def _waiting(self, now_us):
        """True while the pending reply is not there yet (raises on timeout)."""
        if self.pn532.reply_ready():
            return False
        if time.ticks_diff(now_us, self._since_us) > self.reply_timeout_us:
            if self._state == _LISTING and self.passive_retries == _RETRY_FOREVER:
                # The chip is waiting for a new card, as asked: no news is normal.  Cancel
                # and list again; the new command's ACK proves the chip still answers.
                self.pn532.abort()
                self._start_listing()
                return True
            self._state = _IDLE
            raise PN532Timeout("reply timeout")
        return True

    def _step(self, now_us):
        state = self._state
        if state == _IDLE:
            self._last_reset_us = now_us
            self._start_listing()
            return 0
        if state == _BACKOFF:
            if time.ticks_diff(now_us, self._retry_at_us) < 0:
                return 0
            self._recover(now_us)
            return 0
        if self._waiting(now_us):
            return 0
        if state == _LISTING:
            return self._listing_done(now_us)
        if state == _HALTING:
            self.pn532.finish_halt()
            self._ok()
            self._start_listing()
        elif state == _FIELD_OFF:
            self.pn532.finish_field()
            self.pn532.start_field(True)
            self._state = _FIELD_ON
            self._since_us = now_us
        elif state == _FIELD_ON:
            self.pn532.finish_field()
            self._ok()
            self._start_listing()
        return 0

    def _listing_done(self, now_us):
        buf = self._read_buf
        n = self.pn532.finish_list(buf)
        stamp = self._irq_us if self._irq_seen else now_us
        self._ok()
        if n == 0:
            if (self.strategy == STRATEGY_FIELD_RESET
                    and time.ticks_diff(now_us, self._last_reset_us) >= self.field_reset_us):
                self._last_reset_us = now_us
                self.field_resets += 1
                self.pn532.start_field(False)
                self._state = _FIELD_OFF
                self._since_us = now_us
            else:
                self._start_listing()
            return 0
        delivered = 0
        if self._known(buf, n):
            self.rereads += 1
        else:
            self._remember(buf, n)
            uid = self.uid
            for i in range(n):
                uid[i] = buf[i]
            self.uid_len = n
            self.uid_ticks_us = stamp
            self.cards += 1
            delivered = n
        if delivered and self.on_card is not None:
            self.on_card(self.pile, bytes(buf[:n]), stamp)
        # Halt it even when known: a re-woken tag must go quiet again.
        self.pn532.start_halt()
        self._state = _HALTING
        self._since_us = now_us
        return delivered

    # ---- failures ------------------------------------------------------------------------
    def _fail(self, now_us, error):
        self.failures += 1
        self.consecutive_failures += 1
        self.last_error = getattr(error, "kind", "bus")
        shift = self.consecutive_failures - 1
        if shift > _MAX_SHIFT:
            shift = _MAX_SHIFT
        delay = self.backoff_us << shift
        if delay > self.max_backoff_us:
            delay = self.max_backoff_us
        self._retry_at_us = time.ticks_add(now_us, delay)
        self._state = _BACKOFF
        if self.consecutive_failures >= self.setup_after:
            self._needs_setup = True
        self._set_status(STATUS_FAILING)

    def _recover(self, now_us):
        self._state = _IDLE
        self.pn532.abort()
        if self._needs_setup:
            self.pn532.setup(self.passive_retries)
            self._needs_setup = False
        self._last_reset_us = now_us
        self._start_listing()

    def _ok(self):
        if self.consecutive_failures:
            self.consecutive_failures = 0
            self.recoveries += 1
        self._set_status(STATUS_OK)

    def _set_status(self, status):
        if status != self.status:
            self.status = status
            if self.on_status is not None:
                self.on_status(self)

    # ---- UID memory ----------------------------------------------------------------------
    def _known(self, buf, n):
        seen = self._seen
        for slot in range(self._seen_count):
            base = slot * _SLOT
            if seen[base] != n:
                continue
            i = 0
            while i < n and seen[base + 1 + i] == buf[i]:
                i += 1
            if i == n:
                return True
        return False

    def _remember(self, buf, n):
        if not self._memory_slots:
            return
        base = self._seen_next * _SLOT
        seen = self._seen
        seen[base] = n
        for i in range(n):
            seen[base + 1 + i] = buf[i]
        self._seen_next = (self._seen_next + 1) % self._memory_slots
        if self._seen_count < self._memory_slots:
            self._seen_count += 1
