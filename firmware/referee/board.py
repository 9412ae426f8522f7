"""Validate a board file (``boards/*.json``, ``/board.json``): the full check, on the PC.

``load_board(path_or_dict)`` returns a normalised dict (schema in boards/README.md) or raises
``BoardError`` whose message names the file and the key, e.g.
``board.json: players[1].slap[0]: pin 40 is not a Pico GPIO (0-29)``.  ``BoardError.code``
is the LED blink code (``referee/boardfile.py`` ``blink_code``; ``boot_error()`` here prints and blinks it).

``spit flash`` runs this on the PC and writes the normalised board, marked checked, to the
device; it is not installed there (``referee/boardfile.py`` loads a checked board with a
short check, and uses this module only where it is present: the virtual board, a PC).

The machine objects (pins, buses, strip, PWM) are built from a validated board by
``referee/board_hw.py``; this module imports no hardware, so it also runs on a PC.
"""

import json

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython: spit flash checks board files on the PC
    def const(x):
        return x

from referee.boardfile import (BoardError, ERR_MISSING, ERR_JSON, ERR_INVALID,  # noqa: F401
                               ERR_HARDWARE, blink_code, read_json)

ZONE_NAMES = ("PILE0", "PILE1", "PILE2", "SPIT", "PLAYER0", "PLAYER1", "RESULT")
COLOR_NAMES = ("OFF", "GREEN", "RED", "ORANGE", "PURPLE", "BLUE", "WHITE", "YELLOW", "CYAN", "MAGENTA")

_N_GPIO = const(30)
_LED_GPIO = const(25)  # on-board LED of the Pico
_INTERNAL = (23, 24, 29)  # SMPS mode, VBUS sense, VSYS/3: not on the header
_I2C_ADDR = const(0x24)
_MAX_STABLE_MS = const(20)  # a held press reaches the referee this much late: keep it short
_MAX_CS_SETUP_US = const(10000)


def _is_int(v):
    return type(v) is int  # excludes bool on CPython (and MicroPython)


class _Checker:
    def __init__(self, label):
        self.label = label
        self.used = {}  # gpio -> path of first use

    def fail(self, path, msg):
        raise BoardError("%s: %s: %s" % (self.label, path, msg) if path else "%s: %s" % (self.label, msg))

    def obj(self, d, path, required, optional=()):
        if type(d) is not dict:
            self.fail(path, "expected an object")
        for k in required:
            if k not in d:
                self.fail(path, "missing key '%s'" % k)
        for k in d:
            if k not in required and k not in optional and not k.startswith("_"):
                allowed = ", ".join(tuple(required) + tuple(optional))
                self.fail(path, "unknown key '%s' (expected %s)" % (k, allowed))
        return d

    def seq(self, v, path, n=-1, unit="pile"):
        if type(v) is not list:
            self.fail(path, "expected a list")
        if n >= 0 and len(v) != n:
            self.fail(path, "expected %d entries (one per %s), got %d" % (n, unit, len(v)))
        return v

    def integer(self, v, path, lo, hi):
        if not _is_int(v) or v < lo or v > hi:
            self.fail(path, "expected an integer %d..%d, got %s" % (lo, hi, json.dumps(v)))
        return v

    def choice(self, v, path, options):
        if v not in options:
            self.fail(path, "expected one of %s, got %s" % ("/".join(options), json.dumps(v)))
        return v

    def pin(self, v, path, allow_led=False):
        if not _is_int(v) or v < 0 or v >= _N_GPIO:
            self.fail(path, "pin %s is not a Pico GPIO (0-29)" % json.dumps(v))
        if v in _INTERNAL:
            self.fail(path, "GPIO %d is used inside the Pico, not on its header" % v)
        if v == _LED_GPIO and not allow_led:
            self.fail(path, "GPIO 25 is the on-board LED, only status_led may use it")
        prev = self.used.get(v)
        if prev is not None:
            self.fail(path, "pin %d is already used by %s" % (v, prev))
        self.used[v] = path
        return v

    def input(self, v, path, stable_ms=None):
        """One input.  ``stable_ms`` is the board default for buttons and pads; None for a
        touch sensor, which takes no ``stable_ms`` (its first edge is the landing)."""
        short = _is_int(v)
        if short:
            v = {"pin": v}
        keys = ("active", "pull", "debounce_ms") if stable_ms is None else (
            "active", "pull", "debounce_ms", "stable_ms")
        self.obj(v, path, ("pin",), keys)
        pin = self.pin(v["pin"], path if short else path + ".pin")
        active = self.choice(v.get("active", "low"), path + ".active", ("low", "high"))
        pull = self.choice(v.get("pull", "up" if active == "low" else "down"), path + ".pull",
                           ("up", "down", "none"))
        deb = v.get("debounce_ms")
        if deb is not None:
            self.integer(deb, path + ".debounce_ms", 0, 1000)
        out = {"pin": pin, "active": active, "pull": pull, "debounce_ms": deb}
        if stable_ms is not None:
            out["stable_ms"] = self.integer(v.get("stable_ms", stable_ms), path + ".stable_ms", 0, _MAX_STABLE_MS)
        return out


def _spi_role(gpio, bus):
    """'miso'/'cs'/'sck'/'mosi' if gpio carries that function of SPI<bus>, else None."""
    if (gpio >> 3) & 1 != bus:
        return None
    return ("miso", "cs", "sck", "mosi")[gpio & 3]


def _i2c_role(gpio, bus):
    if (gpio >> 1) & 1 != bus:
        return None
    return "scl" if gpio & 1 else "sda"


def _reset_pin(ck, r, path):
    """The GPIO on the reader's RSTPD_N (low = reset), or None."""
    v = r.get("reset")
    return None if v is None else ck.pin(v, path + ".reset")


# The first-contact probe's answers for a reader (referee/nfc_probe.py; the open questions of the
# PN532 model, host_tools/vboard/pn532_options.py, and its measured times), as a reader's "chip":
# name -> the values it may take (None: the probe's answer was unclear).  The firmware reads
# list_uses_wupa and coll_readable (referee/board_hw.py); a reader without them gets the defaults
# that work on every chip.
CHIP_ANSWERS = {"list_uses_wupa": (True, False), "release_halts": (True, False), "deselect_halts": (True, False),
                "rx_align": (True, False), "coll_readable": (True, False), "list_order": ("high", "low"),
                "collision_status": "status", "listing_us": "us", "exchange_us": "us", "write_register_us": "us"}
_MAX_CHIP_US = 1000000


def _check_chip(ck, d, path):
    """A reader's ``chip`` (the probe's answers): known names only, each a value the probe gives or
    null; returned as given."""
    ck.obj(d, path, (), tuple(CHIP_ANSWERS))
    out = {}
    for k in d:
        if k.startswith("_"):
            continue
        v = d[k]
        kind = CHIP_ANSWERS[k]
        if v is None:
            pass
        elif kind == "us":
            ck.integer(v, "%s.%s" % (path, k), 0, _MAX_CHIP_US)
        elif kind == "status":
            ck.integer(v, "%s.%s" % (path, k), 0, 0x3F)
        elif not any(v is w or (type(v) is str and v == w) for w in kind):
            ck.fail("%s.%s" % (path, k), "expected one of %s or null (the probe's answer), got %s"
                    % ("/".join(json.dumps(w) for w in kind), json.dumps(v)))
        out[k] = v
    return out


def _reader_out(ck, r, p, out):
    """The reader entry ``out`` with its ``chip`` (the probe's answers) when the file gives one."""
    if r.get("chip") is not None:
        out["chip"] = _check_chip(ck, r["chip"], p + ".chip")
    return out


def _check_spi(ck, d, path):
    ck.obj(d, path, ("id", "sck", "mosi", "miso"), ("baudrate", "cs_setup_us"))
    bus = ck.integer(d["id"], path + ".id", 0, 1)
    out = {"id": bus, "baudrate": ck.integer(d.get("baudrate", 1000000), path + ".baudrate", 100000, 5000000),
           "cs_setup_us": ck.integer(d.get("cs_setup_us", 50), path + ".cs_setup_us", 0, _MAX_CS_SETUP_US)}
    for role in ("sck", "mosi", "miso"):
        p = ck.pin(d[role], path + "." + role)
        if _spi_role(p, bus) != role:
            ck.fail(path + "." + role, "GPIO %d cannot be SPI%d %s" % (p, bus, role.upper()))
        out[role] = p
    return out


def _check_nfc(ck, d, piles):
    bus = ck.choice(d.get("bus") if type(d) is dict else None, "nfc.bus", ("spi", "i2c"))
    if bus == "spi":
        ck.obj(d, "nfc", ("bus", "spi", "readers"))
        out = {"bus": "spi", "spi": _check_spi(ck, d["spi"], "nfc.spi"), "readers": []}
        for i, r in enumerate(ck.seq(d["readers"], "nfc.readers", piles)):
            p = "nfc.readers[%d]" % i
            ck.obj(r, p, ("cs", "irq"), ("reset", "chip"))
            out["readers"].append(_reader_out(ck, r, p, {"cs": ck.pin(r["cs"], p + ".cs"),
                                                         "irq": ck.pin(r["irq"], p + ".irq"),
                                                         "reset": _reset_pin(ck, r, p)}))
        return out
    ck.obj(d, "nfc", ("bus", "i2c", "readers"))
    buses = []
    ids = []
    for j, b in enumerate(ck.seq(d["i2c"], "nfc.i2c")):
        p = "nfc.i2c[%d]" % j
        ck.obj(b, p, ("id", "sda", "scl"), ("freq",))
        bid = ck.integer(b["id"], p + ".id", 0, 1)
        if bid in ids:
            ck.fail(p + ".id", "I2C%d is listed twice" % bid)
        ids.append(bid)
        nb = {"id": bid, "freq": ck.integer(b.get("freq", 100000), p + ".freq", 10000, 400000)}
        for role in ("sda", "scl"):
            g = ck.pin(b[role], p + "." + role)
            if _i2c_role(g, bid) != role:
                ck.fail(p + "." + role, "GPIO %d cannot be I2C%d %s" % (g, bid, role.upper()))
            nb[role] = g
        buses.append(nb)
    out = {"bus": "i2c", "i2c": buses, "readers": []}
    seen = {}
    for i, r in enumerate(ck.seq(d["readers"], "nfc.readers", piles)):
        p = "nfc.readers[%d]" % i
        ck.obj(r, p, ("i2c", "irq"), ("addr", "reset", "chip"))
        bi = ck.integer(r["i2c"], p + ".i2c", 0, len(buses) - 1)
        addr = ck.integer(r.get("addr", _I2C_ADDR), p + ".addr", 8, 119)
        key = bi * 256 + addr
        if key in seen:
            ck.fail(p, "address 0x%02x on nfc.i2c[%d] is already used by %s (the PN532 address is "
                       "fixed: one reader per bus, or put them behind a mux)" % (addr, bi, seen[key]))
        seen[key] = p
        out["readers"].append(_reader_out(ck, r, p, {"i2c": bi, "addr": addr, "irq": ck.pin(r["irq"], p + ".irq"),
                                                     "reset": _reset_pin(ck, r, p)}))
    return out


def _check_leds(ck, d):
    if d is None:
        return None
    typ = ck.choice(d.get("type") if type(d) is dict else None, "leds.type", ("neopixel", "gpio"))
    zones = [[] for _ in ZONE_NAMES]
    if typ == "neopixel":
        ck.obj(d, "leds", ("type", "pin", "count", "zones"), ("brightness",))
        pin = ck.pin(d["pin"], "leds.pin")
        count = ck.integer(d["count"], "leds.count", 1, 256)
        owner = {}
        zd = ck.obj(d["zones"], "leds.zones", (), ZONE_NAMES)
        for name in zd:
            if name.startswith("_"):
                continue
            p = "leds.zones." + name
            for k, px in enumerate(ck.seq(zd[name], p)):
                ck.integer(px, "%s[%d]" % (p, k), 0, count - 1)
                if px in owner:
                    ck.fail("%s[%d]" % (p, k), "pixel %d is already in zone %s" % (px, owner[px]))
                owner[px] = name
                zones[ZONE_NAMES.index(name)].append(px)
        return {"type": typ, "pin": pin, "count": count, "zones": zones,
                "brightness": ck.integer(d.get("brightness", 64), "leds.brightness", 0, 255)}
    ck.obj(d, "leds", ("type", "zones"), ("active_high",))
    ah = d.get("active_high", True)
    if ah is not True and ah is not False:
        ck.fail("leds.active_high", "expected true or false")
    zd = ck.obj(d["zones"], "leds.zones", (), ZONE_NAMES)
    for name in zd:
        if name.startswith("_"):
            continue
        p = "leds.zones." + name
        v = zd[name]
        if _is_int(v):
            v = {"ANY": v}
        ck.obj(v, p, (), COLOR_NAMES[1:] + ("ANY",))
        for cname in v:
            if cname.startswith("_"):
                continue
            cid = -1 if cname == "ANY" else COLOR_NAMES.index(cname)
            zones[ZONE_NAMES.index(name)].append([cid, ck.pin(v[cname], p + "." + cname)])
    return {"type": typ, "active_high": ah, "zones": zones}


def validate(d, label="board.json"):
    """Validate a parsed board dict; returns the normalised board or raises BoardError."""
    ck = _Checker(label)
    ck.obj(d, "", ("board", "name", "piles", "nfc", "players"),
           ("description", "touch", "leds", "buzzer", "status_led", "debounce_ms", "stable_ms", "reorder_us",
            "loop_pin"))
    if d["board"] != 1:
        ck.fail("board", "unsupported board file version %s (this firmware reads 1)" % json.dumps(d["board"]))
    if type(d["name"]) is not str or not d["name"]:
        ck.fail("name", "expected a non-empty string")
    piles = ck.integer(d["piles"], "piles", 2, 3)
    out = {"name": d["name"], "description": d.get("description", ""), "piles": piles,
           "debounce_ms": ck.integer(d.get("debounce_ms", 20), "debounce_ms", 0, 1000)}
    # How long the referee holds events to order them (spit option reorder_us); with a touch
    # sensor on every pile a few ms suffice, since pending touches make it wait for reads.
    ro = d.get("reorder_us")
    out["reorder_us"] = None if ro is None else ck.integer(ro, "reorder_us", 0, 2000000)
    # Buttons and pads must hold their level this long to count (touch sensors: first edge).
    stable = ck.integer(d.get("stable_ms", 3), "stable_ms", 0, _MAX_STABLE_MS)
    out["stable_ms"] = stable
    st = d.get("status_led")
    out["status_led"] = None if st is None else ck.pin(st, "status_led", allow_led=True)
    # Optional scope probe: high while the firmware loop works on a step (loop period, step time).
    lp = d.get("loop_pin")
    out["loop_pin"] = None if lp is None else ck.pin(lp, "loop_pin")
    out["nfc"] = _check_nfc(ck, d["nfc"], piles)
    touch = d.get("touch")
    out["touch"] = [None] * piles
    if touch is not None:
        for i, t in enumerate(ck.seq(touch, "touch", piles)):
            if t is not None:
                out["touch"][i] = ck.input(t, "touch[%d]" % i)
    players = []
    for q, pl in enumerate(ck.seq(d["players"], "players", 2, "player")):
        p = "players[%d]" % q
        ck.obj(pl, p, ("stuck",), ("slap",))
        slaps = [None] * piles
        if pl.get("slap") is not None:
            for i, s in enumerate(ck.seq(pl["slap"], p + ".slap", piles)):
                if s is not None:
                    slaps[i] = ck.input(s, "%s.slap[%d]" % (p, i), stable)
        players.append({"stuck": ck.input(pl["stuck"], p + ".stuck", stable), "slap": slaps})
    out["players"] = players
    ro = out["reorder_us"]
    if ro is not None:
        for q in range(2):
            for path, spec in [("players[%d].stuck" % q, players[q]["stuck"])] + [
                    ("players[%d].slap[%d]" % (q, i), s) for i, s in enumerate(players[q]["slap"]) if s]:
                if spec["stable_ms"] * 1000 >= ro:
                    ck.fail(path + ".stable_ms", "%d ms is not below reorder_us (%d us): the held "
                            "press would reach the referee after what it must precede" % (spec["stable_ms"], ro))
    out["leds"] = _check_leds(ck, d.get("leds"))
    bz = d.get("buzzer")
    if bz is not None:
        if _is_int(bz):
            bz = {"pin": bz}
        ck.obj(bz, "buzzer", ("pin",), ("volume",))
        out["buzzer"] = {"pin": ck.pin(bz["pin"], "buzzer.pin"),
                         "volume": ck.integer(bz.get("volume", 8000), "buzzer.volume", 0, 32768)}
    else:
        out["buzzer"] = None
    return out


def load_board(src, label=None):
    """Load a board from a path or an already-parsed dict; returns the normalised board.

    Raises BoardError (code ERR_MISSING / ERR_JSON / ERR_INVALID) with a message naming the key.
    """
    if type(src) is dict:
        return validate(src, label or "board.json")
    name = label or src.rsplit("/", 1)[-1]
    return validate(read_json(src, name), name)


def boot_error(err, led=None, repeats=3, sleep_ms=None):
    """Print one clear serial line for a boot error and blink its code; returns the code."""
    code = getattr(err, "code", ERR_HARDWARE)
    print("spit-referee: board error (blink code %d): %s" % (code, err))
    blink_code(led, code, repeats, sleep_ms)
    return code
