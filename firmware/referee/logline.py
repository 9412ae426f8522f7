"""Session log lines written into a bytearray without allocating (docs/log-format.md).

    fmt = LineFormat()
    fmt.use(tables)                          # logtables.bin, read at boot (spit.logtables on a PC)
    end = fmt.event(buf, p, kind, ms, us, a, b, c)
    end = fmt.verdict(buf, p, code, ms, us, a, b, c, d, uid)
    sys.stdout.write(buf, p, end - p)        # MicroPython streams take (buf, off, len)

Each call writes one JSON line ending in ``\\n`` at ``buf[p:]`` and returns its end; the
caller keeps ``MAX_LINE`` bytes free.  The text is the one ``spit.words`` gives
(``event_items`` / ``verdict_items``, keys in that order, fields holding -1 left out), built
from the same tables of ``spit.notation`` (``spit.logtables``, run on the PC: the board gets
them in ``logtables.bin``): their text is in one blob, and a line is only byte stores into
``buf`` (pieces copied by ``drivers.byteloops.copy_into``), so the firmware can echo and log lines in the middle of play with no garbage and no GC pause.
``t`` is written from the session time pair ``(ms, us)`` as ``ms`` then ``us`` on three
digits: ``ms * 1000 + us`` would be a big int on the RP2040 after 17.9 minutes.
"""

from micropython import const

try:   # a piece's bytes copied into the line (viper: ~0.2 us a byte on the RP2040)
    from drivers.byteloops import copy_into
except (ValueError, SyntaxError):   # native code for another CPU (a unix-port board), or
    from drivers.byteloops_py import copy_into   # a PC's micropython package (no viper)

# generated from spit.intake, spit.cards, spit.logtables by scripts/gen_consts.py: do not edit
_EV_CARD = const(2)    # a: pile, b: card, c: player (-1 unknown); e: the read's evidence (below)
_JOKER = const(0)
_INT = const(0)        # spit.logtables _LINE_INT
_CARD = const(1)       # spit.logtables _LINE_CARD
_NAME = const(2)       # spit.logtables _LINE_NAME: an index into a name table (its first piece given)
_ERR_VALUE = const(3)  # spit.logtables _LINE_ERR_VALUE: an error's value: a card unless the error never carries one
_KEEP = const(8)       # spit.logtables _LINE_KEEP: flag: -1 is written (a game_over winner: a draw)
_OPTIONAL = const(16)  # spit.logtables _LINE_OPTIONAL: flag: a negative value is left out (an event's "player?")
# end generated
MAX_LINE = const(200)   # longest line (an error verdict with a card and a 10-byte UID: ~150)

_QUOTE = const(34)
_NL = const(10)
# A card event's read evidence (spit.intake EVID_*: tags in the low 2 bits, then the us from
# the activation's start in units of 100), packed above the owner by the loop
# (referee/loop.py logged: a value of 4 or more), written as ``"act": [us, tags]``.
_ACT_KEY = const(b', "act": [')
_ACT_SEP = const(b", ")


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
    byte strings of piece ids: about 1.5 KB of heap for every table (a memoryview per piece
    took 3.5 KB more).  ``spit.logtables.line_tables`` builds them from ``spit.notation``:
    at flash time (``spit flash`` writes them to ``logtables.bin``, which the boot reads:
    ``referee.boardfile.load_log_tables``, then ``use``), so neither module is on the board.
    The field kinds below are that function's."""

    def __init__(self, tables=None):
        if tables is not None:   # (else the boot gives them: use)
            self.use(tables)

    def use(self, tables):
        """Take the tables (``spit.logtables.line_tables``' tuple)."""
        (self._text, self._at, self._rank, self._suits, self._joker, self._card_key, self._uid_key,
         self._start_text, self._vhead, self._vkey, self._vkind, self._vbase, self._ehead,
         self._ekey, self._ekind, self._not_card) = tables

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
        if card == _JOKER:
            return self._piece(buf, p, self._joker)
        buf[p] = _QUOTE
        p = self._piece(buf, p + 1, self._rank + (card & 15))
        buf[p] = self._suits[card >> 4]
        buf[p + 1] = _QUOTE
        return p + 2

    # ---- lines --------------------------------------------------------------------------
    def event(self, buf, p, kind, ms, us, a, b, c):
        """The ``ev`` line of an input event (``tick``: no fields).  A card's ``c`` may hold
        its read's evidence above the owner (see ``_ACT_KEY``)."""
        evidence = 0
        if kind == _EV_CARD and c >= 4:
            evidence = c >> 2
            c = (c & 3) - 1
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
        if evidence:
            n = len(_ACT_KEY)
            copy_into(buf, p, _ACT_KEY, 0, n)
            p = _put_int(buf, p + n, (evidence >> 2) * 100)
            copy_into(buf, p, _ACT_SEP, 0, 2)
            p = _put_int(buf, p + 2, evidence & 3)
            buf[p] = 93   # ]
            p += 1
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
                if a not in self._not_card and (v == _JOKER or (1 <= (v & 15) <= 13 and 0 <= v <= 63)):
                    # (a card code: spit.cards.is_card)
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
            copy_into(buf, p + 1, uid, 0, len(uid))
            p += 1 + len(uid)
            buf[p] = _QUOTE
            p += 1
        buf[p] = 125   # }
        buf[p + 1] = _NL
        return p + 2
