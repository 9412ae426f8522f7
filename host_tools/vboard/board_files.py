"""The virtual board's file system: a directory holding the files ``spit flash`` puts on a board
(``board.json``, ``ruleset.json``, ``cards.json`` and ``cards.bin``, ``logtables.bin``), and the
virtual decks' card map (by default one tag per card, ``default_uid``).  Works under CPython and
the MicroPython unix port.
"""

import json
import os
import sys

_IS_MP = sys.implementation.name == "micropython"


def _dirname(path):
    i = path.rfind("/")
    return path[:i] if i > 0 else "."


REPO = _dirname(_dirname(_dirname(__file__.replace("\\", "/"))))
if REPO.endswith("/."):
    REPO = REPO[:-2]


def _write(path, text):
    f = open(path, "wb" if isinstance(text, bytes) else "w")
    try:
        f.write(text)
    finally:
        f.close()


def _read(path):
    f = open(path)
    try:
        return f.read()
    finally:
        f.close()


def _packed_cards(text):
    """The board's cards.bin for the cards.json ``text`` as ``spit flash --cards`` packs it, or None
    (no cards.bin: the board then reports its card map missing) for no file or one it refuses."""
    from spit.cardfile import CardMapError, load_cardmap, pack
    if text is None:
        return None
    try:
        return pack(load_cardmap(text))
    except CardMapError:
        return None


def make_root():
    """A new temporary directory for the board's files (ending in "/"), and True (the table owns it)."""
    if not _IS_MP:
        import tempfile
        return tempfile.mkdtemp(prefix="spit-vboard-") + "/", True
    import time
    base = "/tmp/spit-vboard-%d" % (time.ticks_us() & 0x3FFFFFF)
    n = 0
    while True:
        try:
            os.mkdir("%s-%d" % (base, n))
            return "%s-%d/" % (base, n), True
        except OSError:
            n += 1


def remove_root(root):
    """Remove a directory ``make_root`` made (under CPython; the MicroPython port leaves it)."""
    if not _IS_MP:
        import shutil
        shutil.rmtree(root, ignore_errors=True)


def board_json_text(board):
    """``board.json``'s text: a name in boards/ ("pico", ...) read from the checkout, or a dict."""
    if isinstance(board, dict):
        return json.dumps(board)
    return _read("%s/boards/%s.json" % (REPO, board))


def default_uid(card, owner=-1):
    """The tag UID the default card map gives an encoded card (7 bytes)."""
    return bytes([0x04, 0x53, 0x50, (owner + 1) & 0xFF, card & 0xFF, 0x00, 0x01])


def default_card_map(rules):
    """``{uid_hex: "QH"}``: one tag per card of the ruleset's deck (two decks, "QH@0" and "QH@1",
    in own-deck games)."""
    from spit.cards import full_deck, format_card
    owners = (0, 1) if rules.mode == 1 else (-1,)
    cards = {}
    for owner in owners:
        for card in full_deck(rules.jokers):
            uid = default_uid(card, owner)
            cards["".join("%02X" % b for b in uid)] = format_card(card) + (
                "@%d" % owner if owner >= 0 else "")
    return cards


def card_uids(cards):
    """``{(card, owner): uid bytes}`` for a ``{uid_hex: "QH" or "QH@1"}`` card map (owner -1: none)."""
    from spit.cards import parse_card
    uids = {}
    for hexuid in cards:
        code = cards[hexuid]
        owner = -1
        if "@" in code:
            owner = int(code[code.index("@") + 1:])
            code = code[:code.index("@")]
        uids[(parse_card(code), owner)] = bytes(int(hexuid[i:i + 2], 16)
                                                for i in range(0, len(hexuid), 2))
    return uids


def checked_board(board_text):
    """``board.json`` as ``spit flash`` writes it: validated in full on the PC side
    (``referee/board.py``, not installed on a board) and marked ``"checked": 1``; a bad board
    raises the validator's BoardError naming the key."""
    from referee.board import validate
    board = validate(json.loads(board_text), "board.json")
    board["checked"] = 1
    return board


def checked_ruleset(ruleset, options, reorder_us):
    """``ruleset.json`` as ``spit flash`` writes it (``spit.rules``, not installed on a board)."""
    from spit.rules import checked_config, from_config
    return checked_config(from_config({"ruleset": ruleset, "options": options or {}}, reorder_us))


def write_board_files(root, board_text, ruleset, options, cards, files=None):
    """Write the board's files into ``root`` (ending in "/") as ``spit flash`` does (checked on
    this side, so the firmware runs its board's path: ``referee/boardfile.py``); ``files``
    (``{"board.json": text-or-None, ...}``) overrides them as they are, unchecked, like a file
    copied by hand (None: the file is left out)."""
    from spit import __version__
    from spit.logtables import tables_file
    board = checked_board(board_text)
    contents = {"board.json": json.dumps(board),
                "ruleset.json": json.dumps(checked_ruleset(ruleset, options, board["reorder_us"])),
                "cards.json": json.dumps({"cardmap": 1, "cards": cards}),
                "logtables.bin": tables_file(__version__)}   # (as spit flash writes it)
    for name in (files or {}):
        contents[name] = files[name]
    if "cards.bin" not in contents:   # (unless given: packed from cards.json, as spit flash does)
        contents["cards.bin"] = _packed_cards(contents["cards.json"])
    for name in contents:
        path = root + name
        if contents[name] is None:
            try:
                os.remove(path)
            except OSError:
                pass
        else:
            _write(path, contents[name])
