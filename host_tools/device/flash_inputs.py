"""The inputs of ``spit flash``, found and checked on the PC before anything is built: the firmware
tree and its version, the board file, the ruleset and the card map, and the files the device reads
instead of running host-only code (``board.json`` checked by ``referee/board.py``, ``ruleset.json``
resolved by ``spit.rules``, ``cards.bin`` packed by ``spit.cardfile``, ``logtables.bin`` built by
``spit.logtables``).  host_tools/device/flash.py writes them into the build dir.
"""

import json
import os
import re
import sys

from host_tools.device.manifest import FlashError, module_name

# The firmware's full checks, run here on the PC (not installed: firmware/manifest.py).
BOARD_VALIDATOR = "referee/board.py"
RULESET_CHECKS = "lib/spit/rules.py"

from host_tools import REPO as REPO_ROOT  # noqa: E402


def default_firmware_dir():
    """The checkout's ``firmware/`` (the firmware is not part of the installed package)."""
    return os.path.join(REPO_ROOT, "firmware")


def default_boards_dir():
    return os.path.join(REPO_ROOT, "boards")


def resolve_board_file(board, boards_dir):
    """``--board pico`` -> boards/pico.json; a path to a .json file is taken as is."""
    if board.endswith(".json") or os.sep in board:
        path = board
    else:
        path = os.path.join(boards_dir, board + ".json")
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(boards_dir) if f.endswith(".json")) \
            if os.path.isdir(boards_dir) else []
        hint = " (known boards: %s)" % ", ".join(known) if known else ""
        raise FlashError("board file not found: %s%s" % (path, hint))
    return path


def read_json(path, what):
    def unique(pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen:    # json would keep the last silently: a card, a pin or an option lost
                raise FlashError("%s %s: key %r appears twice in one object (keep one)" % (what, path, key))
            seen.add(key)
        return dict(pairs)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise FlashError("cannot read %s %s: %s" % (what, path, e.strerror or e))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise FlashError("%s %s is not UTF-8 text (byte 0x%02x at offset %d): is it the right file?"
                         % (what, path, raw[e.start], e.start))
    if not text.strip():
        raise FlashError("%s %s is empty" % (what, path))
    try:
        return json.loads(text, object_pairs_hook=unique)
    except ValueError as e:
        raise FlashError("%s %s is not valid JSON: %s" % (what, path, e))


def board_name(board_path, board_data):
    """The board's name: its ``name`` field if it has one, else the file name."""
    name = board_data.get("name") if isinstance(board_data, dict) else None
    return str(name) if name else os.path.splitext(os.path.basename(board_path))[0]


# Keys of a ruleset file: the two a user writes, and the two spit flash adds to the board's copy.
RULESET_KEYS = ("ruleset", "options", "checked", "values")


def ruleset_config(ruleset):
    """``--ruleset NAME`` -> ``{"ruleset": NAME, "options": {}}``; ``--ruleset file.json`` -> its content."""
    if ruleset.endswith(".json") or os.sep in ruleset:
        data = read_json(ruleset, "ruleset file")
        if not isinstance(data, dict) or not isinstance(data.get("ruleset"), str):
            raise FlashError('ruleset file %s: expected {"ruleset": NAME, "options": {...}}' % ruleset)
        unknown = sorted(k for k in data if k not in RULESET_KEYS and not k.startswith("_"))
        if unknown:
            raise FlashError('ruleset file %s: unknown key %s (a ruleset file has "ruleset" and "options"; '
                             'keys starting with _ are comments)' % (ruleset, ", ".join(map(repr, unknown))))
        data.setdefault("options", {})
        return data
    if not re.match(r"^[A-Za-z0-9_-]+$", ruleset):
        raise FlashError("bad ruleset name %r (use a name like 'classic' or a path to a .json file)" % ruleset)
    return {"ruleset": ruleset, "options": {}}


def packed_card_map(firmware_dir, path):
    """``cards.bin`` for the card map file ``path``: checked in full on the PC by ``spit.cardfile`` (not
    installed on the board; a bad entry is a FlashError naming the UID) and packed as the device's map
    keeps it (``spit.cardfile.pack``), so the board reads it at boot without parsing JSON."""
    data = read_json(path, "card map")
    if not isinstance(data, dict) or data.get("cardmap") != 1 or not isinstance(data.get("cards"), dict):
        raise FlashError('card map %s: expected {"cardmap": 1, "cards": {UID: CARD, ...}}' % path)
    cardfile = _pc_checker(firmware_dir, "lib/spit/cardfile.py")
    if cardfile is None:
        return None   # (a firmware tree without it: cards.json is copied as it is)
    try:
        return cardfile.pack(cardfile.load_cardmap(data))
    except cardfile.CardMapError as e:
        raise FlashError("card map %s: %s" % (path, e))


def card_map_warnings(path):
    """What is legal in a card map but likely a mistake, one line each: no cards at all, or one card
    (of one deck owner) on two tags, e.g. a replacement tag enrolled while the old one is still in
    the map (both would play as that card: the referee flags the second in the center as a
    duplicate)."""
    data = read_json(path, "card map")
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, dict):
        return []
    if not cards:
        return ["card map %s has no cards: every tag will be an unknown tag (enroll them: spit enroll)" % path]
    tags = {}
    for uid, code in cards.items():
        if isinstance(code, str):
            tags.setdefault(code.upper(), []).append(uid)
    return ["card map %s: %s is on %d tags (%s): remove the ones not in the deck"
            % (path, code, len(uids), ", ".join(uids)) for code, uids in sorted(tags.items()) if len(uids) > 1]


def _pc_checker(firmware_dir, rel):
    """The firmware module ``rel`` (BOARD_VALIDATOR or RULESET_CHECKS) imported from ``firmware_dir``, or None for a
    firmware tree without it."""
    import importlib
    if not os.path.isfile(os.path.join(firmware_dir, *rel.split("/"))):
        return None
    root = os.path.join(firmware_dir, "lib") if rel.startswith("lib/") else firmware_dir
    sys.path.insert(0, root)
    try:
        return importlib.import_module(module_name(rel))
    finally:
        sys.path.remove(root)


def merge_answers(old, new):
    """A reader's probe answers ``old`` (its board file's ``chip``) updated with a new probe's ``new``:
    a clear answer replaces the old one, an unclear one (None) only fills a gap (a one-card probe
    leaves the two-card answers as they were)."""
    out = dict(old or {})
    for k in new:
        if new[k] is not None or k not in out:
            out[k] = new[k]
    return out


def probe_answers(path):
    """``{pile: answers}`` from ``path``: the file ``spit doctor`` keeps beside its report
    (``doctor-<board>-<date>.json``, its ``probe`` list) or a list of ``{"pile": P, "answers": {...}}``."""
    data = read_json(path, "probe file")
    entries = data.get("probe") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise FlashError('probe file %s: expected spit doctor\'s file (its "probe" list) or a list of '
                         '{"pile": P, "answers": {...}}' % path)
    out = {}
    for e in entries:
        pile = e.get("pile") if isinstance(e, dict) else None
        if type(pile) is not int or pile < 0 or not isinstance(e.get("answers"), dict):
            raise FlashError('probe file %s: entry %s: expected {"pile": P, "answers": {...}}' % (path, json.dumps(e)))
        out[pile] = merge_answers(out.get(pile), e["answers"])
    return out


def with_probe_answers(board_data, path):
    """The board file's data with the probe's answers in ``path`` written into its readers' ``chip``
    (checked with the rest of the board by the validator); a pile the board has no reader for is a
    FlashError."""
    answers = probe_answers(path)
    readers = board_data.get("nfc", {}).get("readers") if isinstance(board_data, dict) else None
    if not isinstance(readers, list):
        raise FlashError("probe file %s: the board file has no nfc.readers to write the answers into" % path)
    board = json.loads(json.dumps(board_data))
    readers = board["nfc"]["readers"]
    for pile in sorted(answers):
        if pile >= len(readers) or not isinstance(readers[pile], dict):
            raise FlashError("probe file %s: answers for pile %d, but the board has %d readers"
                             % (path, pile, len(readers)))
        readers[pile]["chip"] = merge_answers(readers[pile].get("chip"), answers[pile])
    return board


def checked_board(firmware_dir, board_path, board_data):
    """The board file checked by the firmware's full validator (``referee/board.py``, run here on the
    PC: the device does not get it) and normalised, marked ``"checked": 1`` for the device's short
    check (``referee/boardfile.py``).  A bad board is a FlashError naming the file and the key.  None
    (the file is copied as it is) for a firmware tree without the validator."""
    board = _pc_checker(firmware_dir, BOARD_VALIDATOR)
    if board is None:
        return None
    try:
        checked = board.validate(board_data, os.path.basename(board_path))
    except board.BoardError as e:
        raise FlashError("board file %s" % e)
    checked["checked"] = 1
    return checked


def checked_ruleset(firmware_dir, ruleset, board):
    """``ruleset.json`` resolved on the PC by ``spit.rules`` (not installed on the board) with the
    board's ``reorder_us`` (unless the options set it), as ``spit.rules.checked_config`` writes it
    for the device's short check (``referee/boardfile.py`` ``load_ruleset``).  A bad ruleset is a
    FlashError naming the option; the config as it is for a firmware tree without ``spit.rules``."""
    rules = _pc_checker(firmware_dir, RULESET_CHECKS)
    if rules is None:
        return ruleset
    try:
        rs = rules.from_config(ruleset, board.get("reorder_us") if isinstance(board, dict) else None)
    except rules.RulesetError as e:
        raise FlashError("ruleset %s: %s" % (ruleset.get("ruleset"), e))
    return rules.checked_config(rs)


def log_tables_file(firmware_dir, version):
    """The bytes of ``logtables.bin`` (``spit.logtables.tables_file``, run here on the PC: the log line
    tables and the session header's template, which the device reads at boot instead of building them
    from ``spit.notation``); None for a firmware tree without ``spit.logtables``."""
    tables = _pc_checker(firmware_dir, "lib/spit/logtables.py")
    return None if tables is None else tables.tables_file(version)


def firmware_version(firmware_dir):
    """``__version__`` from lib/spit/__init__.py, read as text (no import)."""
    path = os.path.join(firmware_dir, "lib", "spit", "__init__.py")
    try:
        with open(path, encoding="utf-8") as f:
            match = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", f.read(), re.M)
    except OSError:
        raise FlashError("firmware engine not found: %s" % path)
    if not match:
        raise FlashError("no __version__ = \"...\" line in %s" % path)
    return match.group(1)
