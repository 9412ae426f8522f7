"""The log's words as the device's line writer keeps them (``referee.logline.LineFormat``).

Built from the tables of ``spit.notation`` on the PC: ``spit flash`` writes them, with the
session header's template, to the board's ``logtables.bin`` (``tables_file``), which the
device reads at boot (``referee.boardfile.load_log_tables``); neither module is on the board.
"""

from array import array

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

from spit.cards import JOKER, format_card
from spit.intake import EVENT_NAMES
from spit.verdicts import V_ERROR, V_GAME_OVER, REASON_NAMES
from spit.notation import (VERDICT_NAMES, ERROR_NAMES, QUESTION_NAMES, EVENT_FIELDS, _FIELDS,
                           _NOT_CARD_ERRORS)


# Field kinds (referee/logline.py keeps the same values as consts).
_LINE_INT = const(0)
_LINE_CARD = const(1)
_LINE_NAME = const(2)        # an index into a name table (its first piece given)
_LINE_ERR_VALUE = const(3)   # an error's value: a card unless the error never carries one
_LINE_KEEP = const(8)        # flag: -1 is written (a game_over winner: a draw)
_LINE_OPTIONAL = const(16)   # flag: a negative value is left out (an event's "player?")


def line_tables():
    """The log's words as the device's line writer (``referee.logline.LineFormat``) keeps them:
    every piece of text once in one ``bytes`` (``text``, piece k at ``at[k]:at[k + 1]``), and per
    verdict code / event kind the piece ids and field kinds of its head and fields."""
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

    reason = table(REASON_NAMES, '"%s"')
    error = table(ERROR_NAMES, '"%s"')
    ask = table(QUESTION_NAMES, '"%s"')
    rank = table([format_card(r)[:-1] for r in range(1, 14)], "%s") - 1   # rank 1..13
    suits = "".join(format_card(16 * s + 1)[-1] for s in range(4)).encode()
    joker = piece('"%s"' % format_card(JOKER))
    card_key = piece(', "card": ')
    uid_key = piece(', "uid": ')
    start_text = piece('{"t": ')
    # Verdicts: a head piece (``, "verdict": "accept"``) per code, then per field (4 a
    # code) its key piece (0: unused), kind and, for a name, its table's first piece.
    nv = len(VERDICT_NAMES)
    vhead = bytearray(nv)
    vkey = bytearray(4 * nv)
    vkind = bytearray(4 * nv)
    vbase = bytearray(4 * nv)
    for code in range(1, nv):
        vhead[code] = piece(', "verdict": "%s"' % VERDICT_NAMES[code])
        fields = _FIELDS[code]   # (the engine's table of verdict fields)
        if fields is None:
            continue
        for i in range(4):
            name = fields[i]
            if name is None:
                continue
            kind = _LINE_INT
            mark = name.find("@")
            if mark >= 0:
                tag = name[mark + 1:]
                name = name[:mark]
                if tag == "card":
                    kind = _LINE_CARD
                else:
                    kind = _LINE_NAME
                    vbase[4 * code + i] = (reason if tag == "reason" else
                                           error if tag == "error" else ask)
            if code == V_ERROR and name == "value":
                kind = _LINE_ERR_VALUE
            if code == V_GAME_OVER and name == "winner":
                kind |= _LINE_KEEP
            vkey[4 * code + i] = piece(', "%s": ' % name)
            vkind[4 * code + i] = kind
    # Events: a head piece (``, "ev": "touch"``) per kind, then per field (3 a kind)
    # its key piece (0: none) and kind.
    ne = len(EVENT_NAMES)
    ehead = bytearray(ne)
    ekey = bytearray(3 * ne)
    ekind = bytearray(3 * ne)
    for kind in range(1, ne):
        name = EVENT_NAMES[kind]
        ehead[kind] = piece(', "ev": "%s"' % name)
        fields = EVENT_FIELDS.get(name)
        for i in range(3):
            f = fields[i + 1] if fields else None
            if f is None:
                continue
            k = _LINE_INT
            if f.endswith("?"):
                f = f[:-1]
                k = _LINE_OPTIONAL
            if f == "card":
                k |= _LINE_CARD
            ekey[3 * kind + i] = piece(', "%s": ' % f)
            ekind[3 * kind + i] = k
    not_card = _NOT_CARD_ERRORS   # errors whose value is never a card (a tuple)
    if len(pieces) > 255:
        raise ValueError("log line pieces")
    text = "".join(pieces).encode()
    at = array("H", bytes(2 * len(pieces) + 2))
    for k in range(len(pieces)):
        at[k + 1] = at[k] + len(pieces[k].encode())
    return (text, at, rank, suits, joker, card_key, uid_key, start_text, vhead, vkey, vkind, vbase,
            ehead, ekey, ekind, not_card)


# --- the tables file (``logtables.bin``): spit flash writes it, the device reads it ---------

# The file: this magic line, then sections, each a 2-byte little-endian length and its bytes,
# in this order (referee/boardfile.py ``load_log_tables`` reads them back):
#   the firmware version the file was written for (the device refuses another one),
#   the session header's template (``header_template``), then the tables of ``line_tables``:
#   text, at (16-bit little-endian), the scalars (rank, joker, card_key, uid_key, start_text:
#   a byte each), suits, vhead, vkey, vkind, vbase, ehead, ekey, ekind, not_card (a byte each).
TABLES_MAGIC = b"spit log tables 1\n"
TABLES_SECTIONS = const(14)


def header_template():
    """``spit.notation.header_line``'s text with each value read at boot a ``%s`` (filled with
    JSON text in this order: ruleset, options, counts, board, firmware; referee/startup.py)."""
    from spit.notation import LOG_VERSION
    keys = ("ruleset", "options", "counts", "board", "firmware")
    return '{"spitlog": %d' % LOG_VERSION + "".join(', "%s": %%s' % k for k in keys) + "}"


def tables_file(version):
    """The bytes of ``logtables.bin`` for firmware ``version`` (``spit.__version__``)."""
    (text, at, rank, suits, joker, card_key, uid_key, start_text, vhead, vkey, vkind, vbase,
     ehead, ekey, ekind, not_card) = line_tables()
    at_bytes = bytearray(2 * len(at))
    for k in range(len(at)):
        at_bytes[2 * k] = at[k] & 255
        at_bytes[2 * k + 1] = at[k] >> 8
    sections = (version.encode(), header_template().encode(), text, at_bytes,
                bytes((rank, joker, card_key, uid_key, start_text)), suits, vhead, vkey, vkind,
                vbase, ehead, ekey, ekind, bytes(not_card))
    out = bytearray(TABLES_MAGIC)
    for s in sections:
        out.append(len(s) & 255)
        out.append(len(s) >> 8)
        out.extend(s)
    return bytes(out)
