"""`spit enroll`: map NFC tags to playing cards and write the card map file.

The card map (docs/architecture.md) is ``{"cardmap": 1, "cards": {"04A1B2C3D4E5F6": "QH", ...}}`` with
upper-case hex UIDs; with ``--deck P`` every code gets the deck owner's suffix, ``"QH@P"``, so two decks
enrolled with ``--deck 0`` and ``--deck 1`` (the player who owns each, R-OWN-1) can share one file.

Session rules:

* cards are prompted in a fixed order (clubs, diamonds, hearts, spades; A 2..10 J Q K within a suit, then
  the jokers with ``--jokers``); sort the deck that way before starting;
* only a *new* tag counts: a tag that stays on the reader is read once, a UID already in the file is
  rejected with the card it belongs to, and the prompt is repeated;
* the file is saved after every card, so re-running with the same ``--out`` resumes at the first card of
  this deck that is still missing;
* undo: type ``u`` + Enter while a prompt is waiting (or start with ``--undo-last``) to drop the most
  recently enrolled card of this deck; ``q`` + Enter stops (the file is already saved);
* ``--write-tags`` also writes the card code into the tag's user memory and reads it back (see
  :func:`encode_tag_payload`).

Tag payload format (``--write-tags``), from NTAG page 4 on, 4 bytes per page::

    "SPIT"  version(=1)  length  code (ASCII, e.g. b"QH@1")  zero padding to a whole page

It replaces the tag's NDEF area, so phones no longer see an (empty) NDEF message on it.

Without a USB reader, ``--board-port`` runs the board's own enrollment mode over mpremote; see
:func:`run_board_enrollment`.
"""

import json
import os
import queue
import sys
import threading
import time

from spit.cards import card_name, format_card, full_deck

JOKER = "JK"
TAG_MAGIC = b"SPIT"
TAG_FORMAT_VERSION = 1
TAG_FIRST_PAGE = 4
UID_HEX_LENGTHS = (8, 14, 20)


class EnrollError(Exception):
    """A problem the user must fix; main() prints it as one line and exits non-zero."""


class EnrollQuit(Exception):
    """The user typed q: stop, the file is already saved."""


def card_order(jokers=False):
    """The 52 (or 54 with two jokers) card codes in prompting order."""
    return [format_card(card) for card in full_deck(2 if jokers else 0)]


def encode_tag_payload(code):
    """Bytes written from page 4: magic, version, length, ASCII code, zero-padded to whole pages."""
    raw = code.encode("ascii")
    payload = TAG_MAGIC + bytes([TAG_FORMAT_VERSION, len(raw)]) + raw
    return payload + bytes(-len(payload) % 4)


def decode_tag_payload(data):
    """The card code stored by :func:`encode_tag_payload`, or None if ``data`` does not hold one."""
    if len(data) < 6 or data[:4] != TAG_MAGIC or data[4] != TAG_FORMAT_VERSION:
        return None
    raw = bytes(data[6:6 + data[5]])
    if len(raw) != data[5]:
        return None
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        return None


# ----- the card map file ---------------------------------------------------------------------------------
def load_card_map(path):
    """The ``cards`` dict of an existing card map file (insertion order = enrollment order), {} if absent."""
    if not os.path.exists(path):
        return {}
    def unique(pairs):
        keys = [key for key, _value in pairs]
        twice = [key for key in keys if keys.count(key) > 1]
        if twice:   # saving the map again would drop one of them
            raise EnrollError("%s: key %r appears twice in one object (keep one)" % (path, twice[0]))
        return dict(pairs)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle, object_pairs_hook=unique)
    except (OSError, ValueError) as exc:
        raise EnrollError("%s is not a readable card map: %s" % (path, exc))
    if not isinstance(document, dict) or document.get("cardmap") != 1:
        raise EnrollError('%s is not a card map (expected {"cardmap": 1, "cards": {...}})' % path)
    cards = document.get("cards")
    if not isinstance(cards, dict):
        raise EnrollError('%s: "cards" must be an object of UID -> card code' % path)
    for uid, code in cards.items():
        if not _is_uid_hex(uid):
            raise EnrollError("%s: bad UID %r (upper-case hex, 4, 7 or 10 bytes)" % (path, uid))
        if not isinstance(code, str) or _split_code(code)[0] not in card_order(jokers=True):
            raise EnrollError("%s: UID %s has a bad card code %r" % (path, uid, code))
        if "@" in code and _split_code(code)[1] not in ("0", "1"):
            raise EnrollError("%s: UID %s: deck owner in %r must be @0 or @1" % (path, uid, code))
    return dict(cards)


def save_card_map(path, cards):
    """Write the card map atomically (a crash never leaves half a file)."""
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump({"cardmap": 1, "cards": cards}, handle, indent=1)
        handle.write("\n")
    os.replace(temporary, path)


def _is_uid_hex(uid):
    return (isinstance(uid, str) and len(uid) in UID_HEX_LENGTHS
            and all(c in "0123456789ABCDEF" for c in uid))


def _split_code(value):
    code, _, deck = value.partition("@")
    return code, deck


# ----- the reader ----------------------------------------------------------------------------------------
class Pn532Reader:
    """A PN532 on a serial port, driven by adafruit_pn532 (HSU/UART at 115200 baud)."""

    def __init__(self, port, poll_s=0.2):
        import serial
        from adafruit_pn532.adafruit_pn532 import BusyError
        from adafruit_pn532.uart import PN532_UART
        self._reader_errors = (RuntimeError, IndexError, TypeError, BusyError)
        self.port = port
        self.poll_s = poll_s
        if os.sep in port and not os.path.exists(port):
            raise EnrollError("serial port %s not found (is the reader plugged in?)" % port)
        try:
            self.serial = serial.Serial(port, 115200, timeout=0.1)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise EnrollError("cannot open serial port %s: %s" % (port, _first_line(exc)))
        try:
            self.pn532 = PN532_UART(self.serial)
            self.firmware = self.pn532.firmware_version
        except self._reader_errors + (OSError,) as exc:
            self.serial.close()
            raise EnrollError("no PN532 answering on %s (%s); check the reader is in HSU/UART mode"
                              % (port, _first_line(exc)))

    def poll(self):
        """UID (upper hex) of a card in the field within ``poll_s``, else None."""
        for attempt in range(3):
            try:
                uid = self.pn532.read_passive_target(timeout=self.poll_s)
                return bytes(uid).hex().upper() if uid else None
            except self._reader_errors:
                # a late reply to a previous poll can land where the ACK was expected: just ask again
                if attempt == 2:
                    raise EnrollError("the PN532 on %s keeps sending garbled replies" % self.port)
            except OSError as exc:
                raise EnrollError("lost the reader on %s: %s" % (self.port, _first_line(exc)))
        return None

    def write_code(self, code):
        """Write ``code`` into the selected tag and read it back. Returns None or a reason string."""
        payload = encode_tag_payload(code)
        try:
            for index in range(0, len(payload), 4):
                if not self.pn532.ntag2xx_write_block(TAG_FIRST_PAGE + index // 4, payload[index:index + 4]):
                    return "the tag refused page %d" % (TAG_FIRST_PAGE + index // 4)
            stored = bytearray()
            while len(stored) < len(payload):
                block = self.pn532.mifare_classic_read_block(TAG_FIRST_PAGE + len(stored) // 4)
                if block is None:
                    return "reading back failed"
                stored += block
        except self._reader_errors as exc:
            return "the reader did not answer (%s)" % _first_line(exc)
        if decode_tag_payload(stored) != code:
            return "read back %r instead of %r" % (bytes(stored[:len(payload)]), code)
        return None

    def close(self):
        self.serial.close()


def _first_line(exc):
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


# ----- keyboard commands ---------------------------------------------------------------------------------
class StdinCommands:
    """Non-blocking line reader: a daemon thread feeds stdin lines into a queue; call to poll one."""

    def __init__(self, stream=None):
        self._lines = queue.Queue()
        self._stream = stream if stream is not None else sys.stdin
        threading.Thread(target=self._pump, name="enroll-stdin", daemon=True).start()

    def _pump(self):
        for line in self._stream:
            self._lines.put(line.strip().lower())

    def __call__(self):
        try:
            return self._lines.get_nowait()
        except queue.Empty:
            return None


# ----- the session ---------------------------------------------------------------------------------------
class Enroller:
    """One enrollment session. ``commands`` is a zero-argument callable returning a typed line or None."""

    def __init__(self, reader, out_path, deck=None, jokers=False, write_tags=False, timeout_s=0.0,
                 commands=None, echo=print):
        self.reader = reader
        self.out_path = out_path
        self.suffix = "@%s" % deck if deck else ""
        self.order = card_order(jokers)
        self.write_tags = write_tags
        self.timeout_s = timeout_s
        self.commands = commands or (lambda: None)
        self.echo = echo
        self.cards = load_card_map(out_path)
        self.last_seen = None

    def deck_entries(self):
        """(uid, code) of this deck's cards in enrollment order."""
        return [(uid, value) for uid, value in self.cards.items()
                if _split_code(value)[1] == self.suffix[1:]]

    def next_missing(self):
        """Index in the prompting order of the first card this deck still lacks, or None when complete."""
        remaining = [_split_code(value)[0] for _, value in self.deck_entries()]
        for index, code in enumerate(self.order):
            if code in remaining:
                remaining.remove(code)
            else:
                return index
        return None

    def undo_last(self):
        """Forget the most recently enrolled card of this deck and save. Returns its code or None."""
        entries = self.deck_entries()
        if not entries:
            self.echo("Nothing to undo.")
            return None
        uid, value = entries[-1]
        del self.cards[uid]
        save_card_map(self.out_path, self.cards)
        self.echo("Undone: %s (tag %s)" % (value, uid))
        return value

    def run(self):
        """Prompt until the deck is complete. Returns the number of cards enrolled in this session."""
        total = len(self.order)
        if self.deck_entries():
            self.echo("Resuming %s: %d/%d cards already enrolled." % (self.out_path, len(self.deck_entries()),
                                                                     total))
        enrolled = 0
        while True:
            index = self.next_missing()
            if index is None:
                self.echo("All %d cards enrolled in %s." % (total, self.out_path))
                return enrolled
            code = self.order[index]
            name = card_name(code, nth_joker=self.order[:index + 1].count(JOKER))
            self.echo("Tap the %s (%d/%d)  [u = undo, q = quit]" % (name, index + 1, total))
            uid = self._wait_for_new_tag(name)
            if uid is None:
                continue                                    # undo: prompt again from the new position
            value = code + self.suffix
            if self.write_tags:
                problem = self.reader.write_code(value)
                if problem:
                    self.echo("  Writing %s to tag %s failed: %s. Tap it again." % (value, uid, problem))
                    self.last_seen = None
                    continue
            self.cards[uid] = value
            save_card_map(self.out_path, self.cards)
            enrolled += 1
            self.echo("  %s = %s%s" % (uid, value, " (written and verified)" if self.write_tags else ""))

    def _wait_for_new_tag(self, name):
        """UID of the next new, not yet enrolled tag; None after an undo."""
        deadline = time.monotonic() + self.timeout_s if self.timeout_s else None
        while True:
            command = self.commands()
            if command in ("u", "undo"):
                self.undo_last()
                return None
            if command in ("q", "quit"):
                raise EnrollQuit()
            if deadline is not None and time.monotonic() > deadline:
                raise EnrollError("no tag tapped for the %s within %g s (progress is saved in %s)"
                                  % (name, self.timeout_s, self.out_path))
            uid = self.reader.poll()
            if uid is None:
                self.last_seen = None                       # the field is empty: the next tag is new
                continue
            if uid == self.last_seen:
                continue                                    # the same tag is still lying on the reader
            self.last_seen = uid
            if uid in self.cards:
                self.echo("  Tag %s is already enrolled as %s; tap the %s." % (uid, self.cards[uid], name))
                continue
            return uid


# ----- the board's own enrollment mode ---------------------------------------------------------------------
ENROLL_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "firmware", "referee", "enroll.py")


def board_enrollment_script(deck=None, jokers=False, source=ENROLL_SCRIPT, timeout_s=0):
    """The text ``mpremote run`` sends: the board's clock set to this PC's (issue 28: every command
    that reaches the prompt sets it; the referee restarts by a soft reset, which keeps it), the
    firmware's ``referee/enroll.py`` (a bring-up script that ``spit flash`` does not install), then
    its ``run(...)`` call."""
    arguments = []
    if deck:
        arguments.append("deck=%r" % str(deck))
    if jokers:
        arguments.append("jokers=True")
    if timeout_s:
        arguments.append("timeout_s=%r" % float(timeout_s))
    with open(source, encoding="utf-8") as f:
        text = f.read()
    from host_tools.device.referee import clock_script
    return "%s%s\nrun(%s)\n" % (clock_script(), text, ", ".join(arguments))


def board_enrollment_commands(port, out_path, script_path, packed_path):
    """The mpremote command lines used by :func:`run_board_enrollment`: run the script, copy ``/cards.json``
    here, copy the packed map (``packed_path``) to the board's ``/cards.bin``.

    Firmware contract: ``referee/enroll.py``'s ``run(deck=None, jokers=False)`` prompts on the serial
    console, reads tags with the board's own PN532, prints one progress line per card and writes
    ``/cards.json`` (same format as this tool, saved after each card so it can resume too).  It is sent
    with ``mpremote run`` (``script_path``: :func:`board_enrollment_script`), so it never takes room on
    the board.  The referee reads the map packed (``/cards.bin``, as ``spit flash --cards`` writes it),
    so the last command puts the enrolled map there, checked and packed on the PC (:func:`packed_card_map`).
    """
    mpremote = [sys.executable, "-m", "mpremote", "connect", port]
    return [mpremote + ["run", script_path], mpremote + ["fs", "cp", ":cards.json", out_path],
            mpremote + ["fs", "cp", packed_path, ":cards.bin"]]


def packed_card_map(cards):
    """The board's ``cards.bin`` for the ``cards`` dict (``spit.cardfile``: checked, then packed)."""
    from spit.cardfile import CardMapError, load_cardmap, pack
    try:
        return pack(load_cardmap({"cardmap": 1, "cards": cards}))
    except CardMapError as e:
        raise EnrollError("the board's card map: %s" % e)


# How long an mpremote step may say nothing before it is given up (seconds, stretched by
# SPIT_BOARD_WAIT_S like the other board waits): a copy, and the enrollment beyond its --timeout
# (the script's start: raw REPL, the script sent, the reader set up).
COPY_IDLE_S = 60
RUN_IDLE_EXTRA_S = 60


def run_board_enrollment(port, out_path, deck=None, jokers=False, runner=None, timeout_s=0):
    """Run the board's enrollment mode (its output streams to our stdout), copy /cards.json here, and put
    the enrolled map on the board packed (/cards.bin), which the referee reads at its next boot.
    ``runner(command, idle_s)`` runs an mpremote step, its exit code or None when it said nothing
    for ``idle_s`` seconds (the enrollment itself: only with a ``timeout_s``): an EnrollError,
    never an endless wait."""
    import tempfile
    from host_tools.device.mpremote import run_relayed
    from host_tools.device.referee import WAIT_S
    runner = runner or run_relayed
    fd, script = tempfile.mkstemp(prefix="spit-enroll-", suffix=".py")
    packed = script[:-3] + ".bin"
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(board_enrollment_script(deck, jokers, timeout_s=timeout_s))
        commands = board_enrollment_commands(port, out_path, script, packed)
        for command in commands:
            if command is commands[-1]:
                with open(packed, "wb") as f:
                    f.write(packed_card_map(load_card_map(out_path)))
            if command is commands[0]:
                idle_s = (timeout_s + RUN_IDLE_EXTRA_S) * WAIT_S if timeout_s else None
            else:
                idle_s = COPY_IDLE_S * WAIT_S
            started = time.monotonic()
            code = runner(command, idle_s)
            if code is None:
                raise EnrollError("the board said nothing for %.0f s during `mpremote %s` on %s (after %.0f s): "
                                  "given up (is it still connected?)" % (
                                      idle_s, " ".join(command[5:]), port, time.monotonic() - started))
            if code != 0:
                raise EnrollError("mpremote failed on %s (exit %d): %s" % (port, code, " ".join(command[3:])))
    finally:
        for path in (script, packed):
            if os.path.exists(path):
                os.remove(path)
    cards = load_card_map(out_path)
    print("Copied %d cards from the board to %s; the referee uses them from its next boot." % (len(cards), out_path))
    return cards
