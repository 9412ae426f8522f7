"""A PN532 emulator for the virtual board: real frames over the fake SPI and I2C buses.

Frame level (PN532 user manual 6.2): a host frame is taken whole (SPI: at the end of its
chip-select, I2C: one write); the ACK is ready ``ack_us`` later (``slow_ack_rate`` of the
commands take ``slow_ack_us`` instead), the reply when the work is done.  The IRQ pin (a fake
Pin, or a GPIO number looked up in ``Pin.registry``) is low while an ACK or reply waits.
``host_frame(bytes)`` / ``_ready()`` / ``read_output()`` are the frame-level API; the bus side
(SPI with ``cs_setup_us``, I2C) is in ``pn532_wire.py``.

Tags and timing (on a ``VirtualClock``, or the pty emulator's real-time clock):
``place_tag(uid or Tag)`` / ``remove_tag(uid)``.  A pending InListPassiveTarget finds a tag at
the next activation attempt (``attempt_us`` apart) and replies ``anticollision_us`` later;
MxRtyPassiveActivation 0xFF retries forever, n gives n+1 tries (``pn532_listing.py``).  The
chip is the strict model: tags are ISO 14443-3 / NTAG21x as they are (``iso14443a.py``), the
CIU a register file with its reset values, field and modulation (``pn532_ciu.py``), every
command a client here sends (``pn532_commands.py``), and what no document settles a named
option (``pn532_options.py``: ``list_uses_wupa``, ``release_halts``, ``deselect_halts``,
``rx_align``, ``collision_status``, ``coll_readable``, ``list_order``), passed as keywords.
Stacked tags: ``stacked_miss_rate``/``stacked_miss_attempts`` (a tag landing on others misses
that many activation attempts, listing or REQA), ``stacked_dropout_rate`` (each of the three
tags below a new card may brown out and forget HALT), ``read_failure_rate``, or per tag
``misses=``/``unreadable=True``.  Faults: ``nack_next``, ``bad_checksum_next``,
``error_frame_next``, ``silent``, ``slow_ack_rate``, ``cs_setup_us``.

The simulator calls ``update()`` after moving the clock (bus traffic and firmware sleeps
through ``Installed.add_device`` update too); ``next_event_us()`` says when something happens
next.  MicroPython-compatible.
"""

from .iso14443a import Tag
from .pins import Pin
from .pn532_ciu import Ciu
from .pn532_commands import Commands
from .pn532_listing import ListingModel
from .pn532_options import DEFAULTS
from .pn532_wire import WireSide, reverse_bits  # noqa: F401 - reverse_bits is public API
from host_tools.vboard.pn532_frames import ACK_FRAME as ACK, NACK_FRAME as NACK, ERROR_FRAME, build_frame  # noqa: F401

_TFI_HOST = 0xD4
_TFI_CHIP = 0xD5

# fRetryTimeout codes of RFConfiguration item 2: 100 us * 2**(code-1)
_THRU_TIMEOUT_DEFAULT = 0x0A   # 51.2 ms


class PN532Emulator(WireSide, ListingModel, Commands):
    def __init__(self, clock, irq=None, attempt_us=2000, anticollision_us=2500, ack_us=150,
                 command_us=600, seed=12345, stacked_miss_rate=0.0, stacked_miss_attempts=3,
                 read_failure_rate=0.0, asleep=True, wake_us=1000,
                 slow_ack_rate=0.0, slow_ack_us=10000, cs_setup_us=0, reset_gpio=None,
                 stacked_dropout_rate=0.0, **options):
        self.clock = clock
        self.irq = irq
        self.attempt_us = attempt_us
        self.anticollision_us = anticollision_us
        self.ack_us = ack_us
        self.command_us = command_us
        self.stacked_miss_rate = stacked_miss_rate
        self.stacked_miss_attempts = stacked_miss_attempts
        self.read_failure_rate = read_failure_rate
        self.stacked_dropout_rate = stacked_dropout_rate
        for name in options:
            if name not in DEFAULTS:
                raise TypeError("unknown PN532 option %r" % name)
        opts = dict(DEFAULTS)
        opts.update(options)
        self.options = opts
        self.list_uses_wupa = opts["list_uses_wupa"]
        self.release_halts = opts["release_halts"]
        self.deselect_halts = opts["deselect_halts"]
        self.list_order = opts["list_order"]
        self.asleep = asleep
        self.wake_us = wake_us
        self.slow_ack_rate = slow_ack_rate
        self.slow_ack_us = slow_ack_us
        self.cs_setup_us = cs_setup_us
        self.cs_setup_violations = 0
        # RSTPD_N: a GPIO number (looked up in Pin.registry) held low = chip in reset.
        self.reset_gpio = reset_gpio
        self.wedged = False           # fault: ignores everything until a reset pulse
        self.resets = 0
        self._in_reset = False
        self.slow_acks = 0
        self.dropouts = 0
        self.i2c_bytes_read = 0
        self.thru_timeout_code = _THRU_TIMEOUT_DEFAULT
        self.raw_frames = []          # (first byte, status) of each InCommunicateThru
        self._rng = seed & 0x7FFFFFFF or 1
        self.tags = []
        self.ciu = Ciu(self.tags, opts["rx_align"], opts["collision_status"], opts["coll_readable"])
        self.parameters = 0
        self.powered_down = False
        self.passive_retries = 0xFF
        self.irq_enabled = True
        # Faults (each *_next applies once).
        self.nack_next = self.bad_checksum_next = self.error_frame_next = self._silent = False
        # Bookkeeping tests look at.
        self.commands = []            # command codes received, in order
        self.host_frame_errors = 0
        self.aborts = 0
        self.listed = []              # UIDs returned by InListPassiveTarget, in order
        # Output queue: [ready_at_us, frame]; the head is what a read returns.
        self._out = []
        self._last_sent = None
        self._list_started = None     # time the pending InListPassiveTarget began
        self._selected = []           # the targets of the last listing
        self.held = []                # listed tags lifted off that InDataExchange still reaches
        self._max_targets = 1
        self._list_blind = False
        self._list_budget = None
        self._poll_types = None
        self._command = 0
        self.spi_select()  # sets up the SPI transaction state

    def attach_spi(self, spi, cs_pin):
        spi.attach(self, cs_pin)
        return self

    def attach_i2c(self, i2c, addr=0x24):
        self.asleep = False
        i2c.attach(self, addr)
        return self

    def _random(self):
        # xorshift31: deterministic, same on CPython and MicroPython.
        x = self._rng
        x ^= (x << 13) & 0x7FFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0x7FFFFFFF
        self._rng = x or 1
        return (x & 0xFFFFFF) / 16777216.0

    def place_tag(self, uid, misses=0, unreadable=False, sel_res=0x00):
        """A card lands in the field now (``uid``, or a ``Tag`` made by the caller)."""
        given = uid if isinstance(uid, Tag) else None
        if given is not None:
            uid = given.uid
        self.remove_tag(uid)
        if self.tags and self.stacked_miss_rate and self._random() < self.stacked_miss_rate:
            misses += self.stacked_miss_attempts
        if self.read_failure_rate and self._random() < self.read_failure_rate:
            misses += 1
        if self.stacked_dropout_rate:
            # The new card detunes the ones just below: each may brown out and forget HALT.
            for below in self.tags[-3:]:
                if self._random() < self.stacked_dropout_rate:
                    below.power_up()
                    self.dropouts += 1
        if given is None:
            tag = Tag(uid, self.clock.now_us, misses, unreadable, sel_res)
        else:
            tag = given
            tag.placed_us = self.clock.now_us
            tag.misses += misses
            tag.power_up()
        self.tags.append(tag)   # the same list RawField looks at
        self.update()
        return tag

    def remove_tag(self, uid):
        tag = self.tag(uid)
        if tag is None:
            return False
        self.tags.remove(tag)
        tag.power_up()   # out of the field
        if tag in self._selected:
            self._selected.remove(tag)
        return True

    def tag(self, uid):
        uid = bytes(uid)
        for tag in self.tags:
            if tag.uid == uid:
                return tag
        return None

    # ---- time --------------------------------------------------------------------------
    def next_event_us(self):
        """Absolute ``clock.now_us`` of the next state change, or None."""
        times = []
        outcome = self._list_outcome()
        if outcome is not None:
            times.append(outcome[0])
        if self._out:
            times.append(self._out[0][0])
        future = [t for t in times if t > self.clock.now_us]
        return min(future) if future else None

    def _watch_reset(self):
        pin = Pin.registry.get(self.reset_gpio)
        if pin is None:
            return
        low = pin.value() == 0
        if low and not self._in_reset:
            self._in_reset = True
        elif not low and self._in_reset:
            # Out of reset: power-on state, tags re-powered, asleep until woken (SPI).
            self._in_reset = False
            self.resets += 1
            self.wedged = False
            self._out = []
            self._list_started = None
            self.passive_retries = 0xFF
            self.thru_timeout_code = _THRU_TIMEOUT_DEFAULT
            self._selected = []
            self.ciu.reset()   # the registers' reset values; the field off: every tag IDLE

    @property
    def silent(self):
        return self._silent or self.wedged or self._in_reset

    @silent.setter
    def silent(self, value):
        self._silent = value

    def update(self):
        if self.reset_gpio is not None:
            self._watch_reset()
        now = self.clock.now_us
        outcome = self._list_outcome()
        if outcome is not None and outcome[0] <= now:
            self._end_listing(outcome[0], outcome[1])
        self._drive_irq()

    def _ready(self):
        return bool(self._out) and self._out[0][0] <= self.clock.now_us

    def _drive_irq(self):
        if self.irq is None:
            return
        pin = self.irq
        if isinstance(pin, int):
            pin = Pin.registry.get(pin)
            if pin is None:
                return
        pin.drive(0 if (self.irq_enabled and self._ready() and not self.silent) else 1)

    # ---- frames from the host -------------------------------------------------------------
    def _queue(self, frame, at_us):
        self._out.append([at_us, frame])

    def _queue_reply(self, payload, at_us):
        """``payload`` = command+1 and data; the TFI is added here."""
        if self.error_frame_next:
            self.error_frame_next = False
            self._queue(ERROR_FRAME, at_us)
            return
        frame = build_frame(bytes([_TFI_CHIP]) + payload)

        if self.bad_checksum_next:
            self.bad_checksum_next = False
            corrupted = bytearray(frame)
            corrupted[-2] ^= 0x5A
            frame = bytes(corrupted)
        self._queue(frame, at_us)

    def _consume_output(self):
        if self._out:
            self._last_sent = self._out.pop(0)[1]
        self._drive_irq()

    def read_output(self):
        """Frame level: the waiting ACK or reply frame (consumed), or None if none is ready."""
        self.update()
        if not self._ready():
            return None
        frame = self._out[0][1]
        self._consume_output()
        return frame

    def host_frame(self, data):
        """A complete frame written by the host (already in logical bit order)."""
        now = self.clock.now_us
        i = 0
        while i < len(data) and data[i] == 0x00:
            i += 1
        if i >= len(data):
            return  # only zeros: a wake-up write
        if i == 0 or data[i] != 0xFF or i + 2 >= len(data):
            self.host_frame_errors += 1
            return
        length = data[i + 1]
        lcs = data[i + 2]
        if length == 0x00 and lcs == 0xFF:
            # ACK from the host aborts the command in progress.
            self.aborts += 1
            self._list_started = None
            self._out = []
            self._drive_irq()
            return
        if length == 0xFF and lcs == 0x00:
            # NACK: send the frame again (the one being read, else the last one read).
            if self._out and self._out[0][0] <= now:
                self._out = [[now + self.ack_us, self._out[0][1]]]
            elif self._last_sent is not None:
                self._out = [[now + self.ack_us, self._last_sent]]
            self._drive_irq()
            return
        start = i + 3
        if (length + lcs) & 0xFF or start + length >= len(data) or length < 2:
            self.host_frame_errors += 1
            return
        if sum(data[start:start + length + 1]) & 0xFF or data[start] != _TFI_HOST:
            self.host_frame_errors += 1
            return
        command = data[start + 1]
        params = bytes(data[start + 2:start + length])
        self.commands.append(command)
        if self.nack_next:
            self.nack_next = False
            self._queue(NACK, now + self.ack_us)
            self._drive_irq()
            return
        # A new command replaces whatever was pending.
        self._out = []
        self._list_started = None
        ack_us = self.ack_us
        if self.slow_ack_rate and self._random() < self.slow_ack_rate:
            ack_us = self.slow_ack_us
            self.slow_acks += 1
        self._queue(ACK, now + ack_us)
        self._command = command
        self._execute(command, params, now + ack_us)
        self._drive_irq()

    def _thru_timeout_us(self):
        code = self.thru_timeout_code
        return 0 if code == 0 else 100 << (code - 1)
