"""Bring-up probe of one PN532: does its listing wake halted tags, and do our own REQA scans
work?  (docs/hardware.md, bring-up step "Reader go/no-go").

    mpremote run firmware/referee/nfc_probe.py        # one tagged card on pile 0's reader
    mpremote cp firmware/referee/nfc_probe.py :nfc_probe.py    # or copy it, then on the REPL:
    import nfc_probe as p; p.run(pile=0, cards=2)     # two cards on it (mpremote rm it after)

A bring-up script, not installed by ``spit flash`` (it costs the board no flash).

1. List the card (InListPassiveTarget), halt it (InRelease: HLTA), list again with a few
   retries.  Silence: the chip's listing sends REQA.  The same card again: it sends WUPA and
   wakes halted tags (the referee learns this by itself and then polls with its own REQA).
2. Field off/on (every tag wakes), then ``TagScan``: our own REQA, anticollision, SELECT,
   HLTA through InCommunicateThru.  It must read every card on the reader (with two, the bit
   collisions of their UIDs are resolved by partial-byte frames: TxLastBits/RxAlign), and a
   second scan must hear nothing (halted cards stay silent to REQA).

Verdict: GO when step 2 passes (newest-card detection does not depend on the listing);
GO (limited) when step 2 fails but the listing sends REQA (two cards landing in one listing
then rely on MaxTg=2); NO-GO when both fail.  Blocking: for the REPL only, never in a game.
"""

import time

from micropython import const

_RETRIES = const(3)
_TIMEOUT_MS = const(200)


def _uid_hex(buf, n):
    return "".join("%02X" % buf[i] for i in range(n))


def _scan(pn, scan, tag_scan):
    """One blocking TagScan; the UIDs it found (hex)."""
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
            found.append(_uid_hex(scan.uid, scan.uid_len))
        elif result == tag_scan.QUIET:
            return found


def probe(pn, out=print, cards=1):
    """Run both checks on a set-up driver with ``cards`` cards on it; returns "GO",
    "GO (limited)" or "NO-GO"."""
    from drivers import tag_scan

    buf = bytearray(10)
    pn.set_passive_retries(_RETRIES)
    pn.set_field(False)        # wake whatever an earlier run halted
    pn.set_field(True)
    n = pn.read_uid(buf)
    if not n:
        out("nfc probe: no card on the reader: put one tagged card on it and run again")
        return "NO-GO"
    uid = _uid_hex(buf, n)
    pn.halt()
    again = pn.read_uid(buf)
    wakes = bool(again) and _uid_hex(buf, again) == uid
    if again:
        pn.halt()
    out("nfc probe: card %s; after HLTA the chip's listing %s" % (
        uid, "lists it again: it sends WUPA (the referee will poll with its own REQA)"
        if wakes else "hears nothing: it sends REQA"))
    pn.set_field(False)
    pn.set_field(True)
    scan = tag_scan.TagScan(pn)
    first = _scan(pn, scan, tag_scan)
    second = _scan(pn, scan, tag_scan)
    raw_ok = len(first) == cards and uid in first and second == []
    out("nfc probe: own REQA scan read %s (%d of %d cards), then %s" % (
        " ".join(first) or "nothing", len(first), cards,
        "silence (halted cards stay quiet)" if not second else " ".join(second)))
    if raw_ok:
        verdict = "GO"
    elif not wakes:
        verdict = "GO (limited)"
    else:
        verdict = "NO-GO"
    out("nfc probe: %s" % verdict)
    return verdict


def run(pile=0, cards=1, root="", out=print):
    """Build pile ``pile``'s reader from ``board.json`` and probe it (``cards`` on it)."""
    from referee import board_hw
    from referee.boardfile import load as load_board

    board = load_board(root + "board.json", "board.json")
    bus, cs, irq = board_hw.build_nfc(board)[pile]
    pn = board_hw.build_pn532(board, pile, bus, cs, irq)
    version = pn.setup(_RETRIES) or (0, 0, 0, 0)
    out("nfc probe: pile %d: PN532 IC 0x%02X firmware %d.%d" % (pile, version[0], version[1], version[2]))
    try:
        return probe(pn, out, cards)
    finally:
        pn.set_passive_retries(0xFF)


if __name__ == "__main__":   # mpremote run: pile 0, one card
    run()
