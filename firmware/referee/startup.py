"""Boot steps of the referee ``App``: configuration files, devices, self-test; ``BootError``.

Each step returns what it loads or builds, and ``App.boot()`` keeps it.  Only ``App.boot()``
uses this module; it is dropped from ``sys.modules`` afterwards (with the board-file validator
and the device builders), so its code does not hold heap during play.
"""

import time

import micropython
from micropython import const

import spit
from spit.clock import SessionClock
from spit.legal import MODE_OWN_DECK
from drivers.input_ring import InputRing
from referee import board_hw
from referee.boardfile import load as load_board, load_ruleset, load_cards, load_log_tables, BoardError
from referee.sessionlog import LOG_BUFFER_BYTES
from referee.corrections import Corrections
from referee.rejected import RejectedUids

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


_PASSIVE_RETRIES = const(0xFF)   # PN532 MxRtyPassiveActivation: wait for a card
_RING = const(64)
# generated from spit.intents, referee.boardfile by scripts/gen_consts.py: do not edit
_GREEN = const(1)         # accept
_RED = const(2)           # illegal
_BLUE = const(5)          # early
_WHITE = const(6)         # spit / spit call
_ERR_HARDWARE = const(5)  # board valid but a device failed at init (set by the caller)
_ERR_RULESET = const(6)   # ruleset.json missing or invalid
# end generated


# What a BoardError's blink code is about, by code (referee/boardfile.py's ERR_ constants).
_WHAT = const((None, None, "board", "board", "board", "board", "ruleset", "card map", None, "log tables"))


def load_configs(root):
    """``(board, rules, cards, counts, own_deck, header, log tables)`` from the files in
    ``root`` (BootError on a bad one)."""
    led = None   # (the status LED: the board's, once its file is read)
    try:
        board = load_board(root + "board.json", "board.json")
        led = board_hw.status_led(board)
        rules = load_ruleset(root + "ruleset.json")
        if rules.piles != board["piles"]:
            raise BoardError("ruleset.json: the ruleset plays on %d piles, board %s has %d"
                             % (rules.piles, board["name"], board["piles"]), _ERR_RULESET)
        cards = load_cards(root + "cards.bin")   # (cards.json checked and packed by spit flash)
        counts = rules.default_counts()
        # The log's words, made on the PC by spit flash: the line tables and the session
        # header (the same for every session of this boot).
        header, tables = load_log_tables(
            root + "logtables.bin", spit.__version__,
            (rules.name, rules.options, counts, board["name"], spit.__version__))
    except BoardError as e:
        raise BootError(_WHAT[e.code], e.msg, e.code, led if led is not None else board_hw.status_led(None))
    try:   # The players' names (`spit players`, `spit flash --players`; checked on the PC).
        with open(root + "players.txt") as f:
            names = [n for n in f.read().split("\n") if n]
        if names:
            header = header[:-1] + ', "players": ["%s"]}' % '", "'.join(names)
    except OSError:
        pass
    return board, rules, cards, counts, rules.mode == MODE_OWN_DECK, header, tables


def build(app, board, log_buffer):
    """``(status, ring, inputs, deb, pn532, readers, rejected, leds, loop_pin, buzzer, corr,
    book, clock)``: inputs, readers, LEDs, buzzer, corrections, the log's ``Logbook`` and the
    session clock, with ``app``'s callbacks (BootError code 5 if a device fails)."""
    alloc = getattr(micropython, "alloc_emergency_exception_buf", None)
    if alloc is not None:   # (absent from some host stand-ins of the module)
        alloc(100)
    status = board_hw.status_led(board)
    try:
        from drivers.nfc_reader import NfcReader
        ring = InputRing(_RING)
        nfc = board_hw.build_nfc(board)
        # The readers' IRQ lines are timestamped like every other input; the PN532 drivers
        # only read irq.value().  One Pin object per GPIO, shared by both.
        inputs = board_hw.build_inputs(board, ring, [irq for _, _, irq in nfc])
        deb = board_hw.build_debouncer(board, inputs)
        pn532 = []
        readers = []
        for p, (bus, cs, irq) in enumerate(nfc):
            pn532.append(board_hw.build_pn532(board, p, bus, cs, irq))
            # passive_retries 0xFF: the PN532 waits for a card itself (IRQ when one
            # answers), so a quiet pile costs no bus traffic; re-listed every 500 ms.
            readers.append(NfcReader(pn532[p], p, on_card=app._on_card,
                                     on_status=app._on_status, on_quiet=app._on_quiet,
                                     passive_retries=_PASSIVE_RETRIES,
                                     reply_timeout_us=500000))
        leds = board_hw.build_leds(board)
        loop_pin = board_hw.loop_pin(board)
        buzzer = board_hw.build_buzzer(board)
    except (ValueError, TypeError, OSError, AttributeError) as e:
        raise BootError("board", "board.json: a device failed to initialise: %s" % e,
                        _ERR_HARDWARE, status)
    corr = Corrections(app.feed, app._stuck_held, app._short_stuck, app._beep)
    from referee.logbook import Logbook
    # The log's buffer: allocated first thing at boot (referee/boot.py start; else made here).
    book = Logbook(app.root + "logs", buffer_bytes=LOG_BUFFER_BYTES, buf=log_buffer)
    return (status, ring, inputs, deb, pn532, readers, RejectedUids(len(readers)), leds,
            loop_pin, buzzer, corr, book, SessionClock(time.ticks_us, time.ticks_ms, time.ticks_diff))


def selftest(out, board, pn532, leds, buzzer):
    """PN532 firmware version per reader (a dead one is retried later) and an LED sweep;
    returns the versions, per pile: (ic, ver, rev, support) or None (no answer)."""
    nfc = board["nfc"]
    versions = []
    for p, pn in enumerate(pn532):
        try:
            v = pn.setup(_PASSIVE_RETRIES)
            versions.append(v)
            out("spit-referee: reader %d: PN532 IC 0x%02X firmware %d.%d" % (p, v[0], v[1], v[2]))
        except Exception as e:  # noqa: BLE001 - a dead reader must not stop the boot
            versions.append(None)
            r = nfc["readers"][p]
            where = ("cs=GP%d irq=GP%d" % (r["cs"], r["irq"])) if nfc["bus"] == "spi" else (
                "i2c=%d addr=0x%02X irq=GP%d" % (r["i2c"], r["addr"], r["irq"]))
            out("spit-referee: reader %d: no answer (%s; %s): check the SPI/I2C mode "
                "switches, the wiring and 3.3 V; retrying while the other piles play"
                % (p, getattr(e, "kind", type(e).__name__), where))
    if leds is not None:
        for c in (_GREEN, _RED, _BLUE, _WHITE):   # the self-test's colours
            leds.fill(c)
            time.sleep_ms(80)
        leds.off()
    if buzzer is not None:
        buzzer.play(buzzer.READY)
    return versions
