"""The board file on the device (``/board.json``): load it, a short check, boot-error blinks.

``spit flash`` checks the board file on the PC with the full validator (``referee/board.py``,
which names the bad key: ``players[1].slap[0]: pin 40 is not a Pico GPIO (0-29)``) and writes
the checked, normalised board to the device with ``"checked": 1``.  The validator is not
installed (it costs the board 7 KB of flash and 9 KB of heap at boot), so the device only
checks that such a file has the keys the firmware reads.  A board file without the mark (one
copied by hand) is validated in full where ``referee/board.py`` is present (the virtual board,
a PC), and otherwise refused with one line saying to run ``spit flash``.

``load(path)`` returns the board dict or raises ``BoardError`` whose ``code`` is the LED blink
code shown by ``blink_code`` (2 missing, 3 bad JSON, 4 bad content).
"""

import json

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython: spit flash checks board files on the PC
    def const(x):
        return x

# Blink codes (number of blinks, repeated) for boot errors.
ERR_MISSING = const(2)  # board.json missing or unreadable
ERR_JSON = const(3)  # not valid JSON
ERR_INVALID = const(4)  # valid JSON, wrong content
ERR_HARDWARE = const(5)  # board valid but a device failed at init (set by the caller)

# What the firmware reads from a checked board (referee/board.py ``validate`` writes them all).
_KEYS = ("name", "piles", "debounce_ms", "stable_ms", "reorder_us", "status_led", "loop_pin", "nfc",
         "touch", "players", "leds", "buzzer")


class BoardError(ValueError):
    def __init__(self, msg, code=ERR_INVALID):
        super().__init__(msg)
        self.msg = msg
        self.code = code

    def __str__(self):
        return self.msg


def load(path, label=None):
    """The board in ``path`` (checked by ``spit flash``, or validated in full here if the
    validator is present); raises BoardError with a message naming the file and the key."""
    name = label or path.rsplit("/", 1)[-1]
    d = read_json(path, name)
    if type(d) is dict and d.get("checked") == 1:
        return short_check(d, name)
    try:
        from referee.board import validate
    except ImportError:
        raise BoardError("%s: not checked by `spit flash` (the board has no validator): flash it with "
                         "`spit flash --board FILE`" % name)
    return validate(d, name)


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
    for k, n in (("touch", piles), ("players", 2)):
        if type(d[k]) is not list or len(d[k]) != n:
            raise BoardError("%s: %s: expected %d entries" % (name, k, n))
    nfc = d["nfc"]
    if type(nfc) is not dict or type(nfc.get("readers")) is not list or len(nfc["readers"]) != piles:
        raise BoardError("%s: nfc.readers: expected %d entries" % (name, piles))
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
            _led(led, True)
            sleep_ms(250)
            _led(led, False)
            sleep_ms(250)
        sleep_ms(1000)


def _led(led, on):
    if led is None:
        return
    if hasattr(led, "fill"):
        led.fill(9 if on else 0)  # MAGENTA
    else:
        led.value(1 if on else 0)


def boot_error(err, led=None, repeats=3, sleep_ms=None):
    """Print one clear serial line for a boot error and blink its code; returns the code."""
    code = getattr(err, "code", ERR_HARDWARE)
    print("spit-referee: board error (blink code %d): %s" % (code, err))
    blink_code(led, code, repeats, sleep_ms)
    return code
