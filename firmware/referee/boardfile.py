"""The board and ruleset files on the device (``/board.json``, ``/ruleset.json``): load them
with a short check; boot-error blinks.

``spit flash`` checks the board file on the PC with the full validator (``referee/board.py``,
which names the bad key: ``players[1].slap[0]: pin 40 is not a Pico GPIO (0-29)``) and writes
the checked, normalised board to the device with ``"checked": 1``.  The validator is not
installed (it costs the board 7 KB of flash and 9 KB of heap at boot), so the device only
checks that such a file has the keys the firmware reads.  A board file without the mark (one
copied by hand) is refused with one line saying to run ``spit flash`` (the virtual board and the
emulated Pico write their files as spit flash does, so they run this same path).

``load(path)`` returns the board dict or raises ``BoardError`` whose ``code`` is the LED blink
code shown by ``blink_code`` (2 missing, 3 bad JSON, 4 bad content).

The ruleset likewise: ``spit flash`` resolves it on the PC (``spit.rules``: presets, options
and their checks, not installed on the board) and writes it marked ``"checked": 1`` with
``values``, every attribute the referee reads; ``load_ruleset`` sets those on a
``spit.legal.Ruleset`` once each is there and an integer.  An unchecked file is refused with
one line saying to run ``spit flash``.  Its errors are ``BoardError`` with code ``ERR_RULESET``.

The card map likewise: ``spit flash --cards`` checks ``cards.json`` on the PC
(``spit.cardfile``, not installed) and writes it packed to ``cards.bin``; ``load_cards`` takes
its arrays (errors: ``ERR_CARDS``).  The log's words likewise: ``spit flash`` builds the log line tables and the session header's
template on the PC (``spit.logtables``, not installed) and writes them to ``logtables.bin``;
``load_log_tables`` reads them (errors: ``ERR_LOG_TABLES``).
"""

import json

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython: spit flash checks board files on the PC
    def const(x):
        return x

# Blink codes (number of blinks, repeated) for boot errors, and the firmware's own (referee/boot.py).
ERR_MISSING = const(2)  # board.json missing or unreadable
ERR_JSON = const(3)  # not valid JSON
ERR_INVALID = const(4)  # valid JSON, wrong content
ERR_HARDWARE = const(5)  # board valid but a device failed at init (set by the caller)
ERR_RULESET = const(6)  # ruleset.json missing or invalid
ERR_CARDS = const(7)  # cards.bin missing or damaged
ERR_FIRMWARE = const(8)  # a firmware bug: an error at boot, or loop errors that keep coming
ERR_LOG_TABLES = const(9)  # logtables.bin missing, or not the one of this firmware

_AGAIN = const(" (run `spit flash` again)")   # the end of a message about a file spit flash writes
# A file the PC checks (its validator is not installed on the board), copied by hand: what to do.
_UNCHECKED = const("%s: not checked by `spit flash` (the board has no validator): flash it with `spit flash --%s`")

# What the firmware reads from a checked board (referee/board.py ``validate`` writes them all).
_KEYS = const(("name", "piles", "debounce_ms", "stable_ms", "reorder_us", "status_led", "loop_pin", "nfc",
         "touch", "players", "leds", "buzzer"))


class BoardError(ValueError):
    def __init__(self, msg, code=ERR_INVALID):
        super().__init__(msg)
        self.msg = msg
        self.code = code

    def __str__(self):
        return self.msg


def load(path, label=None):
    """The board in ``path`` (checked by ``spit flash``); raises BoardError with a message naming
    the file and the key."""
    name = label or path.rsplit("/", 1)[-1]
    d = read_json(path, name)
    if type(d) is dict and d.get("checked") == 1:
        return short_check(d, name)
    raise BoardError(_UNCHECKED % (name, "board FILE"))


# generated from spit.intents, spit.rules, spit.logtables by scripts/gen_consts.py: do not edit
_OFF = const(0)
_MAGENTA = const(9)  # error / flag
RULESET_VALUE_COUNT = const(23)
_TABLES_MAGIC = const(b"spit log tables 1\n")
_TABLES_SECTIONS = const(14)
# end generated

# How many Ruleset attributes the engine reads (RULESET_VALUE_COUNT, generated above from spit.rules,
# whose ``checked_config`` writes them all as ``values``).  The device checks the count and that each
# is an integer; their names are not repeated here (-249 B of .mpy).


def load_ruleset(path, name="ruleset.json"):
    """The ``Ruleset`` in ``path`` (as ``spit flash`` writes it).
    Raises BoardError (code ERR_RULESET) naming the file and what to fix."""
    try:
        d = read_json(path, name)
    except BoardError as e:
        if e.code == ERR_MISSING:
            e.msg = '%s: missing (spit flash writes it: {"ruleset": "classic", "options": {}})' % name
        e.code = ERR_RULESET
        raise
    if type(d) is dict and d.get("checked") == 1:
        from spit.legal import Ruleset
        values = d.get("values")
        if type(values) is not dict or type(d.get("options")) is not dict or type(d.get("ruleset")) is not str:
            raise BoardError('%s: expected "ruleset", "options" and "values"%s' % (name, _AGAIN),
                             ERR_RULESET)
        rs = Ruleset()
        rs.name = d["ruleset"]
        rs.options = d["options"]
        if len(values) != RULESET_VALUE_COUNT:
            raise BoardError("%s: values: %d, not %d%s" % (name, len(values), RULESET_VALUE_COUNT, _AGAIN),
                             ERR_RULESET)
        for k in values:
            v = values[k]
            if type(v) is not int and type(v) is not bool:
                raise BoardError("%s: values.%s: not an integer%s" % (name, k, _AGAIN), ERR_RULESET)
            setattr(rs, k, v)
        return rs
    raise BoardError(_UNCHECKED % (name, "ruleset NAME"), ERR_RULESET)



def load_log_tables(path, version, header_values, name="logtables.bin"):
    """``(header line, tables)`` from the log tables file ``spit flash`` writes
    (``spit.logtables.tables_file``): the session header with ``header_values`` (ruleset,
    options, counts, board, firmware) in its template as JSON, and the line tables as
    ``referee.logline.LineFormat`` takes them.  The file must be the one of firmware
    ``version``.  Raises BoardError (code ERR_LOG_TABLES) naming the file and what to do."""
    data = _read_bytes(path, "%s: missing (spit flash writes it)" % name, ERR_LOG_TABLES)
    p = len(_TABLES_MAGIC)
    parts = []
    if data[:p] == _TABLES_MAGIC:
        while p + 2 <= len(data):
            n = data[p] | data[p + 1] << 8
            p += 2 + n
            parts.append(data[p - n:p])
    if p != len(data) or len(parts) != _TABLES_SECTIONS or len(parts[4]) != 5 or len(parts[5]) != 4:
        raise BoardError("%s: damaged or not a log tables file%s" % (name, _AGAIN), ERR_LOG_TABLES)
    if parts[0] != version.encode():
        raise BoardError("%s: written for another firmware than this one, %s%s" % (name, version, _AGAIN),
                         ERR_LOG_TABLES)
    try:
        header = parts[1].decode() % tuple(json.dumps(v) for v in header_values)
    except (TypeError, ValueError):
        raise BoardError("%s: damaged header template%s" % (name, _AGAIN), ERR_LOG_TABLES)
    s = parts[4]
    from array import array
    return header, (parts[2], array("H", parts[3]), s[0], parts[5], s[1], s[2], s[3], s[4]) + tuple(parts[6:])


def load_cards(path, name="cards.bin"):
    """The ``spit.cardmap.CardMap`` in the packed card map ``spit flash --cards`` writes
    (``spit.cardfile.pack``: the map's arrays, built and checked on the PC, taken as they are).
    Raises BoardError (code ERR_CARDS) naming the file and what to do."""
    from spit.cardmap import CardMap, PACKED_MAGIC, SLOT_BYTES
    data = _read_bytes(path, "%s: missing (enroll the cards: `spit enroll`, then `spit flash --cards "
                       "cards.json`; or `spit enroll --board-port PORT`)" % name, ERR_CARDS)
    m = len(PACKED_MAGIC) + 1
    n = data[m - 1] if len(data) >= m else 0
    at = m + n * (SLOT_BYTES + 1)   # the index
    size = len(data) - at
    ok = data[:m - 1] == PACKED_MAGIC and size >= 16 and size >= 2 * n and not size & (size - 1)
    uids = bytearray(data[m:m + n * SLOT_BYTES])
    index = bytearray(data[at:])
    for i in range(0, n * SLOT_BYTES if ok else 0, SLOT_BYTES):
        ok = ok and uids[i] in (4, 7, 10)   # (a UID's length)
    if not ok or max(index) > n:   # (an index entry names slot + 1)
        raise BoardError("%s: damaged or not a packed card map (run `spit flash --cards cards.json` again)"
                         % name, ERR_CARDS)
    cm = CardMap(0)   # (its arrays, as spit.cardfile.pack wrote them)
    cm._uids = uids
    cm._values = bytearray(data[m + n * SLOT_BYTES:at])
    cm._index = index
    cm._mask = size - 1
    cm.count = n
    return cm


def _read_bytes(path, missing, code):
    """The bytes in ``path``; BoardError(``missing``, ``code``) if it cannot be read."""
    try:
        f = open(path, "rb")
    except OSError:
        raise BoardError(missing, code)
    try:
        return f.read()
    finally:
        f.close()


def read_json(path, name):
    """The parsed JSON in ``path``; BoardError (ERR_MISSING, ERR_JSON) naming ``name``."""
    try:
        f = open(path)
    except OSError as e:
        raise BoardError("%s: cannot open %s (%s)" % (name, path, e), ERR_MISSING)
    try:
        try:
            return json.load(f)
        except ValueError as e:
            raise BoardError("%s: not valid JSON (%s)" % (name, e), ERR_JSON)
    finally:
        f.close()


def short_check(d, name="board.json"):
    """The keys the firmware reads are there, with the right kinds (the values were checked on
    the PC); returns ``d``."""
    for k in _KEYS:
        if k not in d:
            raise BoardError("%s: missing key '%s' (run `spit flash` again to write a checked board)"
                             % (name, k))
    piles = d["piles"]
    if type(piles) is not int or not 2 <= piles <= 3:
        raise BoardError("%s: piles: expected 2 or 3" % name)
    nfc = d["nfc"]
    readers = nfc.get("readers") if type(nfc) is dict else None
    for k, v, n in (("touch", d["touch"], piles), ("players", d["players"], 2), ("nfc.readers", readers, piles)):
        if type(v) is not list or len(v) != n:
            raise BoardError("%s: %s: expected %d entries" % (name, k, n))
    return d


def blink_code(led, code, repeats=1, sleep_ms=None):
    """Blink ``code`` times, pause, ``repeats`` times (blocking: boot errors only).

    ``led`` is a Pin (``value()``), an LED renderer with ``fill(color)`` (LedStrip/GpioLeds:
    magenta), or None (just waits).
    """
    if sleep_ms is None:
        import time

        sleep_ms = time.sleep_ms
    for _ in range(repeats):
        for _ in range(code):
            for on in (True, False):   # 250 ms on, 250 ms off
                if led is None:
                    pass
                elif hasattr(led, "fill"):
                    led.fill(_MAGENTA if on else _OFF)
                else:
                    led.value(1 if on else 0)
                sleep_ms(250)
        sleep_ms(1000)
