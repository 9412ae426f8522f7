"""Session log lines written into a bytearray without allocating (docs/log-format.md).

    fmt = LineFormat()                       # tables built once, at boot
    end = fmt.event(buf, p, kind, ms, us, a, b, c)
    end = fmt.verdict(buf, p, code, ms, us, a, b, c, d, uid)
    sys.stdout.write(buf, p, end - p)        # MicroPython streams take (buf, off, len)

Each call writes one JSON line ending in ``\\n`` at ``buf[p:]`` and returns its end; the
caller keeps ``MAX_LINE`` bytes free.  The text is the one ``spit.notation`` gives
(``event_items`` / ``verdict_items``, keys in that order, fields holding -1 left out), built
from the same tables: their text is copied once into one blob here, and a line is only
byte stores into ``buf`` (pieces copied by ``drivers.byteloops.copy_into``), so
the firmware can echo and log lines in the middle of play with no garbage and no GC pause.
``t`` is written from the session time pair ``(ms, us)`` as ``ms`` then ``us`` on three
digits: ``ms * 1000 + us`` would be a big int on the RP2040 after 17.9 minutes.
"""

from array import array

from micropython import const

from spit.cards import JOKER, is_card

try:   # a piece's bytes copied into the line (viper: ~0.2 us a byte on the RP2040)
    from drivers.byteloops import copy_into
except (ValueError, SyntaxError):   # native code for another CPU (a unix-port board), or
    from drivers.byteloops_py import copy_into   # a PC's micropython package (no viper)

MAX_LINE = const(200)   # longest line (an error verdict with a card and a 10-byte UID: ~150)

_INT = const(0)        # field kinds (the low 3 bits)
_CARD = const(1)
_NAME = const(2)       # an index into a name table (``_vbase``: its first piece)
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
    """Every piece of text a line can hold (``, "pile": ``, ``"accept"``, a rank ...) is kept
    once in one ``bytes`` blob, piece ``k`` at ``_at[k]:_at[k + 1]`` (copied into the line by
    ``copy_into``: no slice object, no heap), and the verdict and event layouts are small
    byte arrays of piece ids: about 1.5 KB of heap for every table (a memoryview per piece
    took 3.5 KB more), built at boot from ``spit.notation`` (which need not stay loaded)."""

    def __init__(self):
        from spit import notation as N   # (boot only: the app drops it from sys.modules)
        from spit.cards import format_card
        from spit.intake import EVENT_NAMES
        from spit import verdicts as V
        pieces = [""]   # piece 0: nothing
        ids = {}

        def piece(text):   # a shared piece (keys)
            k = ids.get(text)
            if k is None:
                k = ids[text] = len(pieces)
                pieces.append(text)
            return k

        def table(names, form):   # consecutive pieces; returns the first one's id
            first = len(pieces)
            for name in names:
                pieces.append(form % name)
            return first

        reason = table(V.REASON_NAMES, '"%s"')
        error = table(N.ERROR_NAMES, '"%s"')
        ask = table(N.QUESTION_NAMES, '"%s"')
        self._rank = table([format_card(r)[:-1] for r in range(1, 14)], "%s") - 1   # rank 1..13
        self._suits = "".join(format_card(16 * s + 1)[-1] for s in range(4)).encode()
        self._joker = piece('"%s"' % format_card(JOKER))
        self._card_key = piece(', "card": ')
        self._uid_key = piece(', "uid": ')
        self._start_text = piece('{"t": ')
        # Verdicts: a head piece (``, "verdict": "accept"``) per code, then per field (4 a
        # code) its key piece (0: unused), kind and, for a name, its table's first piece.
        nv = len(N.VERDICT_NAMES)
        self._vhead = bytearray(nv)
        self._vkey = bytearray(4 * nv)
        self._vkind = bytearray(4 * nv)
        self._vbase = bytearray(4 * nv)
        for code in range(1, nv):
            self._vhead[code] = piece(', "verdict": "%s"' % N.VERDICT_NAMES[code])
            fields = N._FIELDS[code]   # (the engine's table of verdict fields)
            if fields is None:
                continue
            for i in range(4):
                name = fields[i]
                if name is None:
                    continue
                kind = _INT
                at = name.find("@")
                if at >= 0:
                    tag = name[at + 1:]
                    name = name[:at]
                    if tag == "card":
                        kind = _CARD
                    else:
                        kind = _NAME
                        self._vbase[4 * code + i] = (reason if tag == "reason" else
                                                     error if tag == "error" else ask)
                if code == V.V_ERROR and name == "value":
                    kind = _ERR_VALUE
                if code == V.V_GAME_OVER and name == "winner":
                    kind |= _KEEP
                self._vkey[4 * code + i] = piece(', "%s": ' % name)
                self._vkind[4 * code + i] = kind
        # Events: a head piece (``, "ev": "touch"``) per kind, then per field (3 a kind)
        # its key piece (0: none) and kind.
        ne = len(EVENT_NAMES)
        self._ehead = bytearray(ne)
        self._ekey = bytearray(3 * ne)
        self._ekind = bytearray(3 * ne)
        for kind in range(1, ne):
            name = EVENT_NAMES[kind]
            self._ehead[kind] = piece(', "ev": "%s"' % name)
            fields = N.EVENT_FIELDS.get(name)
            for i in range(3):
                f = fields[i + 1] if fields else None
                if f is None:
                    continue
                k = _INT
                if f.endswith("?"):
                    f = f[:-1]
                    k = _OPTIONAL
                if f == "card":
                    k |= _CARD
                self._ekey[3 * kind + i] = piece(', "%s": ' % f)
                self._ekind[3 * kind + i] = k
        self._not_card = N._NOT_CARD_ERRORS   # errors whose value is never a card (a tuple)
        if len(pieces) > 255:
            raise ValueError("log line pieces")
        self._text = "".join(pieces).encode()
        at = array("H", bytes(2 * len(pieces) + 2))
        for k in range(len(pieces)):
            at[k + 1] = at[k] + len(pieces[k].encode())
        self._at = at

    # ---- pieces -------------------------------------------------------------------------
    def _piece(self, buf, p, k):
        at = self._at
        s = at[k]
        n = at[k + 1] - s
        copy_into(buf, p, self._text, s, n)
        return p + n

    def _start(self, buf, p, ms, us):
        p = self._piece(buf, p, self._start_text)
        if ms:
            p = _put_int(buf, p, ms)
            buf[p] = 48 + us // 100
            buf[p + 1] = 48 + us // 10 % 10
            buf[p + 2] = 48 + us % 10
            return p + 3
        return _put_int(buf, p, us)

    def _card(self, buf, p, card):
        if card == JOKER:
            return self._piece(buf, p, self._joker)
        buf[p] = _QUOTE
        p = self._piece(buf, p + 1, self._rank + (card & 15))
        buf[p] = self._suits[card >> 4]
        buf[p + 1] = _QUOTE
        return p + 2

    # ---- lines --------------------------------------------------------------------------
    def event(self, buf, p, kind, ms, us, a, b, c):
        """The ``ev`` line of an input event (``tick``: no fields)."""
        p = self._start(buf, p, ms, us)
        p = self._piece(buf, p, self._ehead[kind])
        f = 3 * kind
        for i in range(3):
            key = self._ekey[f + i]
            if not key:
                continue
            v = a if i == 0 else b if i == 1 else c
            k = self._ekind[f + i]
            if k & _OPTIONAL and v < 0:
                continue
            p = self._piece(buf, p, key)
            p = self._card(buf, p, v) if k & _CARD else _put_int(buf, p, v)
        buf[p] = 125   # }
        buf[p + 1] = _NL
        return p + 2

    def verdict(self, buf, p, code, ms, us, a, b, c, d, uid=None):
        """The ``verdict`` line (``uid``: bytes of hex digits added as ``"uid"``, or None)."""
        p = self._start(buf, p, ms, us)
        p = self._piece(buf, p, self._vhead[code])
        f = 4 * code
        for i in range(4):
            key = self._vkey[f + i]
            if not key:
                continue
            v = a if i == 0 else b if i == 1 else c if i == 2 else d
            k = self._vkind[f + i]
            if v == -1 and not k & _KEEP:
                continue
            k &= 7
            if k == _ERR_VALUE:
                if a not in self._not_card and is_card(v):
                    p = self._piece(buf, p, self._card_key)
                    p = self._card(buf, p, v)
                    continue
                k = _INT
            p = self._piece(buf, p, key)
            if k == _CARD:
                p = self._card(buf, p, v)
            elif k == _NAME:
                p = self._piece(buf, p, self._vbase[f + i] + v)
            else:
                p = _put_int(buf, p, v)
        if uid is not None:
            p = self._piece(buf, p, self._uid_key)
            buf[p] = _QUOTE
            p = _put(buf, p + 1, uid)
            buf[p] = _QUOTE
            p += 1
        buf[p] = 125   # }
        buf[p + 1] = _NL
        return p + 2
