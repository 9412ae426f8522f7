"""Session log lines written into a bytearray without allocating (docs/log-format.md).

    fmt = LineFormat()                       # tables built once, at boot
    end = fmt.event(buf, p, kind, ms, us, a, b, c)
    end = fmt.verdict(buf, p, code, ms, us, a, b, c, d, uid)
    sys.stdout.write(buf, p, end - p)        # MicroPython streams take (buf, off, len)

Each call writes one JSON line ending in ``\\n`` at ``buf[p:]`` and returns its end; the
caller keeps ``MAX_LINE`` bytes free.  The text is the one ``spit.notation`` gives
(``event_items`` / ``verdict_items``, keys in that order, fields holding -1 left out), built
from the same tables: the names are turned into ``bytes`` once here, and a line is only
slice stores and digit stores into ``buf`` (a slice store takes no heap on MicroPython), so
the firmware can echo and log lines in the middle of play with no garbage and no GC pause.
``t`` is written from the session time pair ``(ms, us)`` as ``ms`` then ``us`` on three
digits: ``ms * 1000 + us`` would be a big int on the RP2040 after 17.9 minutes.
"""

from micropython import const

from spit.cards import format_card, is_card, JOKER
from spit.intake import EVENT_NAMES
from spit import notation
from spit import verdicts as V

MAX_LINE = const(200)   # longest line (an error verdict with a card and a 10-byte UID: ~150)

_INT = const(0)        # field kinds
_CARD = const(1)
_NAME = const(2)       # an index into a name table
_ERR_VALUE = const(3)  # an error's value: a card unless the error never carries one
_KEEP = const(8)       # flag: -1 is written (a game_over winner: a draw)
_OPTIONAL = const(16)  # flag: a negative value is left out (an event's "player?")
_QUOTE = const(34)
_NL = const(10)


def _put(buf, p, data):
    n = p + len(data)
    buf[p:n] = data
    return n


def _put_int(buf, p, v):
    if v < 0:
        buf[p] = 45   # -
        p += 1
        v = -v
    q = p
    while True:
        buf[q] = 48 + v % 10
        q += 1
        v //= 10
        if not v:
            break
    i = p
    j = q - 1
    while i < j:
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
        i += 1
        j -= 1
    return q


class LineFormat:
    def __init__(self):
        keys = {}   # one bytes object per key text, shared by every table (boot only)

        def key(name):
            k = keys.get(name)
            if k is None:
                k = keys[name] = (', "%s": ' % name).encode()
            return k

        def names(table):
            return tuple(('"%s"' % s).encode() for s in table)

        self._reason = names(V.REASON_NAMES)
        self._error = names(notation.ERROR_NAMES)
        self._ask = names(notation.QUESTION_NAMES)
        # Verdicts: head (``, "verdict": "accept"``) and per field a (key, kind, table) triple.
        self._vhead = tuple((', "verdict": "%s"' % s).encode() for s in notation.VERDICT_NAMES)
        vspec = [()]
        for code in range(1, len(notation.VERDICT_NAMES)):
            spec = []
            for name in notation._FIELDS[code]:   # (the engine's table of verdict fields)
                if name is None:
                    spec.append(None)
                    continue
                kind, table = _INT, None
                at = name.find("@")
                if at >= 0:
                    tag = name[at + 1:]
                    name = name[:at]
                    if tag == "card":
                        kind = _CARD
                    else:
                        kind = _NAME
                        table = (self._reason if tag == "reason" else
                                 self._error if tag == "error" else self._ask)
                if code == V.V_ERROR and name == "value":
                    kind = _ERR_VALUE
                if code == V.V_GAME_OVER and name == "winner":
                    kind |= _KEEP
                spec.append((key(name), kind, table))
            vspec.append(tuple(spec))
        self._vspec = tuple(vspec)
        # Events: head (``, "ev": "touch"``) and per field (key, kind) or None.
        ehead = [b""]
        espec = [()]
        for kind in range(1, len(EVENT_NAMES)):
            name = EVENT_NAMES[kind]
            ehead.append((', "ev": "%s"' % name).encode())
            fields = notation.EVENT_FIELDS.get(name)
            spec = []
            for i in range(3):
                f = fields[i + 1] if fields else None
                if f is None:
                    spec.append(None)
                    continue
                k = _INT
                if f.endswith("?"):
                    f = f[:-1]
                    k = _OPTIONAL
                if f == "card":
                    k |= _CARD
                spec.append((key(f), k))
            espec.append(tuple(spec))
        self._ehead = tuple(ehead)
        self._espec = tuple(espec)
        self._card_key = key("card")
        self._uid_key = key("uid")
        self._not_card = notation._NOT_CARD_ERRORS   # errors whose value is never a card
        # Card text: rank then suit letter (format_card's codes, "10" included).
        self._ranks = tuple(("" if r == 0 else format_card(r)[:-1]).encode() for r in range(14))
        self._suits = "".join(format_card(16 * s + 1)[-1] for s in range(4)).encode()
        self._joker = ('"%s"' % format_card(JOKER)).encode()

    # ---- pieces -------------------------------------------------------------------------
    def _start(self, buf, p, ms, us):
        p = _put(buf, p, b'{"t": ')
        if ms:
            p = _put_int(buf, p, ms)
            buf[p] = 48 + us // 100
            buf[p + 1] = 48 + us // 10 % 10
            buf[p + 2] = 48 + us % 10
            return p + 3
        return _put_int(buf, p, us)

    def _card(self, buf, p, card):
        if card == JOKER:
            return _put(buf, p, self._joker)
        buf[p] = _QUOTE
        p = _put(buf, p + 1, self._ranks[card & 15])
        buf[p] = self._suits[card >> 4]
        buf[p + 1] = _QUOTE
        return p + 2

    def _end(self, buf, p):
        buf[p] = 125   # }
        buf[p + 1] = _NL
        return p + 2

    # ---- lines --------------------------------------------------------------------------
    def event(self, buf, p, kind, ms, us, a, b, c):
        """The ``ev`` line of an input event (``tick``: no fields)."""
        p = self._start(buf, p, ms, us)
        p = _put(buf, p, self._ehead[kind])
        spec = self._espec[kind]
        for i in range(len(spec)):
            f = spec[i]
            if f is None:
                continue
            v = a if i == 0 else b if i == 1 else c
            k = f[1]
            if k & _OPTIONAL and v < 0:
                continue
            p = _put(buf, p, f[0])
            p = self._card(buf, p, v) if k & _CARD else _put_int(buf, p, v)
        return self._end(buf, p)

    def verdict(self, buf, p, code, ms, us, a, b, c, d, uid=None):
        """The ``verdict`` line (``uid``: bytes of hex digits added as ``"uid"``, or None)."""
        p = self._start(buf, p, ms, us)
        p = _put(buf, p, self._vhead[code])
        spec = self._vspec[code]
        for i in range(len(spec)):
            f = spec[i]
            if f is None:
                continue
            v = a if i == 0 else b if i == 1 else c if i == 2 else d
            k = f[1]
            if v == -1 and not k & _KEEP:
                continue
            k &= 7
            if k == _ERR_VALUE:
                if a not in self._not_card and is_card(v):
                    p = _put(buf, p, self._card_key)
                    p = self._card(buf, p, v)
                    continue
                k = _INT
            p = _put(buf, p, f[0])
            if k == _CARD:
                p = self._card(buf, p, v)
            elif k == _NAME:
                p = _put(buf, p, f[2][v])
            else:
                p = _put_int(buf, p, v)
        if uid is not None:
            p = _put(buf, p, self._uid_key)
            buf[p] = _QUOTE
            p = _put(buf, p + 1, uid)
            buf[p] = _QUOTE
            p += 1
        return self._end(buf, p)
