"""Bring-up probe of one PN532: the answers no document gives, and whether our own REQA scans
work (docs/hardware.md, bring-up step "Reader go/no-go").

    mpremote run firmware/referee/nfc_probe.py        # one tagged card on pile 0's reader
    mpremote cp firmware/referee/nfc_probe.py :nfc_probe.py    # or copy it, then on the REPL:
    import nfc_probe as p; p.run(pile=0, cards=2)     # two cards on it (mpremote rm it after)

A bring-up script, not installed by ``spit flash`` (it costs the board no flash).

1. List the card (InListPassiveTarget), halt it (our HLTA), list again with a few retries.
   Silence: the chip's listing sends REQA.  The same card again: it sends WUPA and wakes
   halted tags (the referee learns this by itself and then polls with its own REQA).
2. Field off/on (every tag wakes), then ``TagScan``: our own REQA, anticollision, SELECT,
   HLTA through InCommunicateThru.  It must read every card on the reader (with two, their
   UIDs' collision is resolved: CIU_Coll, or bit by bit), and a second scan must hear nothing
   (halted cards stay silent to REQA).
3. The open questions, each a named option of the model (host_tools/vboard/pn532_options.py):
   with one card, whether InRelease / InDeselect send HLTA (``release_halts``,
   ``deselect_halts``: list the card, send the command, then REQA twice: a halted tag is silent
   to both, an ACTIVE one takes the first as an unexpected frame and answers the second) and
   whether InCommunicateThru honours RxAlign (``rx_align``: an anticollision with 3 bits known
   and RxAlign 3; the answer's bits at bit 3, or shifted to bit 0); with two, the status of a
   colliding exchange (``collision_status``), whether CIU_Coll and the FIFO say where it was
   (``coll_readable``: CollPos at the UIDs' first differing bit) and which card the listing
   returns (``list_order``); always, the time of a listing with a card present, of a raw
   exchange a tag answers and of a WriteRegister.  ``None``: the chip's answers were unclear.

4. Unless NO-GO, the answers go into ``board.json`` as the reader's ``chip`` (``save_answers``;
   ``run(..., save=False)`` leaves it alone): the referee's reader takes them at its next start
   (referee/board_hw.py: a listing known to send WUPA is polled from the start, one known to send
   REQA needs no scan after it, CIU_Coll known unreadable is not read).  ``spit flash --probe``
   writes the answers ``spit doctor`` keeps on the PC the same way.

Verdict: GO when step 2 passes (newest-card detection does not depend on the listing);
GO (limited) when step 2 fails but the listing sends REQA (two cards landing in one listing
then rely on MaxTg=2); NO-GO when both fail.  Blocking: for the REPL only, never in a game.
"""

import time

from micropython import const

from drivers.pn532 import RX
from drivers.tag_scan import crc_a

_RETRIES = const(3)
_TIMEOUT_MS = const(200)

_RAW = b"\x63\x02\x00\x63\x03\x00\x63\x3d"
_CHIP = b"\x63\x02\x80\x63\x03\x80\x63\x3d\x00\x63\x05\x40\x63\x3c\x10"
_COLL = b"\x63\x3e\x63\x39\x63\x39\x63\x39\x63\x39\x63\x39"


def command(pn, code, params):
    """One command, blocking: (its reply's data, microseconds from sending to the reply)."""
    t0 = time.ticks_us()
    pn._send(code, params, len(params))
    pn._wait_ready(_TIMEOUT_MS)
    n = pn._finish(code)
    return bytes(RX[7:7 + n]), time.ticks_diff(time.ticks_us(), t0)


def thru(pn, data, framing=0):
    """WriteRegister raw mode (CRC off, CIU_BitFraming ``framing``), then InCommunicateThru:
    (status, bytes)."""
    command(pn, 0x08, _RAW + bytes([framing]))
    reply, _ = command(pn, 0x42, data)
    return reply[0] & 0x3F, reply[1:]


def fresh(pn):
    """Chip mode, field off and on: every tag IDLE."""
    command(pn, 0x08, _CHIP)
    command(pn, 0x32, b"\x01\x00")   # the field off, then on
    command(pn, 0x32, b"\x01\x01")


def cascade(uid):
    """The CLn (5 bytes) of each cascade level of ``uid``."""
    levels = []
    rest = bytes(uid)
    while True:
        part = (b"\x88" + rest[:3]) if len(rest) > 4 else rest
        rest = rest[3:] if len(rest) > 4 else b""
        levels.append(part + bytes([part[0] ^ part[1] ^ part[2] ^ part[3]]))
        if not rest:
            return levels


def halts(pn, code):
    """Does InRelease (0x52) / InDeselect (0x44) halt the listed tag?  None: unclear."""
    fresh(pn)
    listed, _ = command(pn, 0x4A, b"\x01\x00")
    if not listed or listed[0] == 0:
        return None
    command(pn, 0x08, _CHIP)
    command(pn, code, b"\x00")
    first = thru(pn, b"\x26", 0x07)[0]
    second = thru(pn, b"\x26", 0x07)[0]
    if first == 1 and second == 1:
        return True
    if first == 1 and second == 0:
        return False
    return None


def rx_align(pn):
    """Does InCommunicateThru honour RxAlign?  None: unclear."""
    fresh(pn)
    if thru(pn, b"\x26", 0x07)[0] != 0:
        return None
    status, cl = thru(pn, b"\x93\x20")
    if status or len(cl) != 5:
        return None
    thru(pn, b"\x26", 0x07)              # READY -> IDLE, unanswered
    if thru(pn, b"\x26", 0x07)[0] != 0:
        return None
    status, r = thru(pn, bytes([0x93, 0x23, cl[0] & 0x07]), 0x33)
    if status or not r:
        return None
    if r[0] & 0xF8 == cl[0] & 0xF8 and r[1:5] == cl[1:5]:
        return True
    if r[0] == ((cl[0] >> 3) | (cl[1] << 5)) & 0xFF:
        return False
    return None


def collision(pn, uid_a, uid_b):
    """(status of the colliding anticollision, CIU_Coll and FIFO readable) for two cards."""
    la, lb = cascade(uid_a), cascade(uid_b)
    level = 0
    while level < len(la) - 1 and level < len(lb) and la[level] == lb[level]:
        level += 1
    first = 0
    while first < 32 and (la[level][first >> 3] >> (first & 7)) & 1 == (lb[level][first >> 3] >> (first & 7)) & 1:
        first += 1
    fresh(pn)
    if thru(pn, b"\x26", 0x07)[0] == 1:
        return None, None
    for k in range(level):    # the shared cascade levels: select them
        sel = bytes([0x93 + 2 * k, 0x70]) + la[k]
        thru(pn, sel + bytes([crc_a(sel, 7) & 0xFF, crc_a(sel, 7) >> 8]))
    status, _ = thru(pn, bytes([0x93 + 2 * level, 0x20]))
    regs, _ = command(pn, 0x06, _COLL)
    readable = bool(regs) and not regs[0] & 0x20 and ((regs[0] & 0x1F) or 32) == first + 1
    if readable:
        whole = first >> 3
        readable = regs[1:1 + whole] == la[level][:whole]
    return status, readable


def times(pn, out):
    """A listing with a card present, a raw exchange a tag answers, a WriteRegister (µs)."""
    fresh(pn)
    listed, t_list = command(pn, 0x4A, b"\x01\x00")
    _, t_write = command(pn, 0x08, _RAW + b"\x07")
    fresh(pn)
    command(pn, 0x08, _RAW + b"\x07")
    _, t_thru = command(pn, 0x42, b"\x26")
    out["listing_us"] = t_list
    out["exchange_us"] = t_thru
    out["write_register_us"] = t_write


def _hex(uid):
    return "".join("%02X" % b for b in uid)


def _scan(pn, scan, tag_scan):
    """One blocking TagScan; the UIDs it found."""
    found = []
    scan.invalidate()
    scan.start()
    while True:
        start = time.ticks_ms()
        while not pn.reply_ready():
            if time.ticks_diff(time.ticks_ms(), start) > _TIMEOUT_MS:
                scan.stop()
                pn.abort()
                return found
            time.sleep_ms(1)
        result = scan.step()
        if result == tag_scan.FOUND:
            found.append(bytes(scan.uid[:scan.uid_len]))
        elif result == tag_scan.QUIET:
            return found


def probe(pn, out=print, cards=1, answers=None):
    """Run the checks on a set-up driver with ``cards`` cards on it; returns "GO",
    "GO (limited)" or "NO-GO".  ``answers`` (a dict) gets the answers."""
    from drivers import tag_scan

    buf = bytearray(10)
    command(pn, 0x32, b"\x05\xff\x01" + bytes([_RETRIES]))   # MxRtyPassiveActivation
    fresh(pn)                  # wake whatever an earlier run halted
    n = pn.read_uid(buf)
    if not n:
        out("nfc probe: no card on the reader: put one tagged card on it and run again")
        return "NO-GO"
    uid = bytes(buf[:n])
    command(pn, 0x42, b"\x50\x00")   # our HLTA
    again = pn.read_uid(buf)
    wakes = bool(again) and bytes(buf[:again]) == uid
    if again:
        command(pn, 0x42, b"\x50\x00")
    out("nfc probe: card %s; after HLTA the chip's listing %s" % (
        _hex(uid), "lists it again: it sends WUPA (the referee will poll with its own REQA)"
        if wakes else "hears nothing: it sends REQA"))
    fresh(pn)
    scan = tag_scan.TagScan(pn)
    first = _scan(pn, scan, tag_scan)
    second = _scan(pn, scan, tag_scan)
    raw_ok = len(first) == cards and uid in first and second == []
    out("nfc probe: own REQA scan read %s (%d of %d cards), then %s" % (
        " ".join(_hex(u) for u in first) or "nothing", len(first), cards,
        "silence (halted cards stay quiet)" if not second else " ".join(_hex(u) for u in second)))
    got = {} if answers is None else answers
    got["list_uses_wupa"] = wakes
    _questions(pn, cards, first, got)
    for key in sorted(got):
        value = got[key]
        out("nfc probe: %s = %s" % (key, ("0x%02x" % value) if key == "collision_status" and value is not None
                                      else value))
    if raw_ok:
        verdict = "GO"
    elif not wakes:
        verdict = "GO (limited)"
    else:
        verdict = "NO-GO"
    out("nfc probe: %s" % verdict)
    return verdict


def _questions(pn, cards, found, got):
    if cards == 1:
        got["release_halts"] = halts(pn, 0x52)
        got["deselect_halts"] = halts(pn, 0x44)
        got["rx_align"] = rx_align(pn)
    elif len(found) >= 2:
        a, b = found[0], found[1]
        got["collision_status"], got["coll_readable"] = collision(pn, a, b)
        fresh(pn)
        listed, _ = command(pn, 0x4A, b"\x01\x00")
        first = listed[6:6 + listed[5]] if len(listed) > 5 and listed[0] else b""
        got["list_order"] = None if first not in (a, b) else ("high" if first == max(a, b) else "low")
    times(pn, got)
    fresh(pn)


def save_answers(path, pile, answers):
    """Write ``answers`` into the board file at ``path`` as reader ``pile``'s ``chip``: the referee's
    reader takes them at its next start (referee/board_hw.py).  A clear answer replaces the one
    there, an unclear one (None) only fills a gap, so a one-card run keeps a two-card run's
    answers (``spit flash --probe`` merges the same way).  Written beside it, then renamed over it:
    a reset half way leaves the old file."""
    import json
    import os

    with open(path) as f:
        board = json.load(f)
    reader = board["nfc"]["readers"][pile]
    chip = reader.get("chip") or {}
    for key in answers:
        if answers[key] is not None or key not in chip:
            chip[key] = answers[key]
    reader["chip"] = chip
    with open(path + ".new", "w") as f:
        json.dump(board, f)
    os.rename(path + ".new", path)


def run(pile=0, cards=1, root="", out=print, answers=None, save=True):
    """Build pile ``pile``'s reader from ``board.json`` and probe it (``cards`` on it); with
    ``save``, a GO or GO (limited) writes the answers into ``board.json`` (``save_answers``)."""
    from referee import board_hw
    from referee.boardfile import load as load_board

    board = load_board(root + "board.json", "board.json")
    bus, cs, irq = board_hw.build_nfc(board)[pile]
    pn = board_hw.build_pn532(board, pile, bus, cs, irq)
    version = pn.setup(_RETRIES) or (0, 0, 0, 0)
    out("nfc probe: pile %d: PN532 IC 0x%02X firmware %d.%d" % (pile, version[0], version[1], version[2]))
    got = {} if answers is None else answers
    try:
        verdict = probe(pn, out, cards, got)
    finally:
        command(pn, 0x32, b"\x05\xff\x01\xff")
    if save and verdict != "NO-GO":
        save_answers(root + "board.json", pile, got)
        out("nfc probe: answers written to board.json (reader %d); the referee takes them at its next start"
            % pile)
    return verdict


if __name__ == "__main__":   # mpremote run: pile 0, one card
    run()
