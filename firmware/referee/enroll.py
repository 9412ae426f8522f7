"""Enrollment mode on the board: tap the cards on pile 0's reader to build ``/cards.json``.

A bring-up script, not installed by ``spit flash`` (it costs the board no flash): ``spit enroll
--board-port PORT`` sends it with ``mpremote run`` followed by its call, then copies
``/cards.json`` to the PC, checks and packs it there and writes the packed map to the board's
``/cards.bin``, the file the referee reads at boot (docs/architecture.md, "Card map"):

    run()                                             # the 52 cards
    run(deck=1)                                       # a second deck for own-deck games: "QH@1"
    run(jokers=True)                                  # 54 cards

Cards are prompted in a fixed order (clubs, diamonds, hearts, spades; A 2 .. 10 J Q K, then
the jokers), one serial line each: ``Tap the Queen of Hearts (38/52)``.  Only a new tag
counts: a tag still lying on the reader is read once, a UID already in the map is rejected
with the card it belongs to (``Tag 04.. is already enrolled as QH``).  Two tags lying there
answer in turn (ISO 14443-3: the one just listed goes back to IDLE and lets the next REQA
pass, so the other answers it), so the last two tags read count as lying: each is named once,
not again and again.  The file is saved
after every card (written to a temporary file, then renamed), so running again resumes at
the first missing card of this deck.  LEDs: pile 0 blinks cyan while waiting, flashes green
for an accepted card and red for a rejected one; the RESULT zone pulses green when done.
"""

import json
import os
import time

from micropython import const

from spit.intents import LedIntents, ZONE_PILE0, ZONE_RESULT, GREEN, RED, CYAN, BLINK, SOLID, FAST, PULSE

# spit.cards' tables (spit.cards is not on the board; its card_name is the one this mirrors).
# generated from spit.cards by scripts/gen_consts.py: do not edit
_RANK_CODES = const(("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))
_SUIT_CODES = const("CDHS")
_RANK_NAMES = const(("", "Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
                     "Jack", "Queen", "King"))
_SUIT_NAMES = const(("Clubs", "Diamonds", "Hearts", "Spades"))
# end generated
_POLL_MS = const(20)


def card_order(jokers=False):
    codes = []
    for s in _SUIT_CODES:
        for r in range(1, 14):
            codes.append(_RANK_CODES[r] + s)
    if jokers:
        codes.append("JK")
        codes.append("JK")
    return codes


def card_name(code, nth_joker=1):
    if code == "JK":
        return "first Joker" if nth_joker == 1 else "second Joker"
    return "%s of %s" % (_RANK_NAMES[_RANK_CODES.index(code[:-1])], _SUIT_NAMES[_SUIT_CODES.index(code[-1])])


def _split(value):
    at = value.find("@")
    return (value, "") if at < 0 else (value[:at], value[at:])


def next_missing(cards, order, suffix):
    """Index in ``order`` of the first card this deck still lacks, or -1 when complete."""
    have = []
    for uid in cards:
        code, sfx = _split(cards[uid])
        if sfx == suffix:
            have.append(code)
    for i in range(len(order)):
        if order[i] in have:
            have.remove(order[i])
        else:
            return i
    return -1


def load_cards(path):
    try:
        f = open(path)
    except OSError:
        return {}
    try:
        d = json.load(f)
    finally:
        f.close()
    if type(d) is not dict or d.get("cardmap") != 1 or type(d.get("cards")) is not dict:
        raise ValueError("%s is not a card map" % path)
    return d["cards"]


def save_cards(path, cards):
    tmp = path + ".tmp"
    f = open(tmp, "w")
    try:
        f.write(json.dumps({"cardmap": 1, "cards": cards}))
    finally:
        f.close()
    try:
        os.remove(path)
    except OSError:
        pass
    os.rename(tmp, path)


class _Reader:
    """Pile 0's PN532, read with blocking short listings (nothing else runs meanwhile)."""

    def __init__(self, board):
        from referee import board_hw
        bus, cs, irq = board_hw.build_nfc(board)[0]
        self.pn = board_hw.build_pn532(board, 0, bus, cs, irq)   # the board's CS set-up, reset
        self.version = self.pn.setup()
        self.buf = bytearray(10)

    def poll(self):
        """Hex UID of the tag on the reader, or None."""
        n = self.pn.read_uid(self.buf)
        if not n:
            return None
        return "".join("%02X" % self.buf[i] for i in range(n))


def run(deck=None, jokers=False, root="", timeout_s=0, out=print, reader=None):
    """Prompt until every card of the deck is enrolled; returns how many were added now."""
    from referee.boardfile import load as load_board
    from referee import board_hw
    board = load_board(root + "board.json", "board.json")
    if reader is None:
        reader = _Reader(board)
    leds = board_hw.build_leds(board)
    intents = LedIntents()
    path = root + "cards.json"
    cards = load_cards(path)
    suffix = "" if deck is None else "@%s" % deck
    order = card_order(jokers)
    total = len(order)
    enrolled = 0
    lying = [None, None]   # the last two tags read since the field was empty
    start = time.ticks_ms()

    def show(zone, color, pattern, ms):
        now = time.ticks_diff(time.ticks_ms(), start)
        intents.show(zone, color, pattern, now + ms if ms >= 0 else -1)

    def render():
        if leds is not None:
            leds.render(intents, time.ticks_diff(time.ticks_ms(), start))

    out("spit-referee enrollment: %s, deck %s, tap each card on pile 0's reader" % (path, deck if deck is not None else "-"))
    while True:
        i = next_missing(cards, order, suffix)
        if i < 0:
            out("All %d cards enrolled in %s." % (total, path))
            show(ZONE_RESULT, GREEN, PULSE, -1)
            render()
            return enrolled
        code = order[i]
        name = card_name(code, 2 if code == "JK" and i > 0 and order[i - 1] == "JK" else 1)
        out("Tap the %s (%d/%d)" % (name, i + 1, total))
        show(ZONE_PILE0, CYAN, BLINK, -1)
        waited = time.ticks_ms()
        while True:
            render()
            if timeout_s and time.ticks_diff(time.ticks_ms(), waited) > timeout_s * 1000:
                out("No tag for the %s within %d s; progress is saved in %s." % (name, timeout_s, path))
                return enrolled
            try:
                uid = reader.poll()
            except Exception as e:  # noqa: BLE001 - a reader hiccup: try again
                out("  reader error (%s), retrying" % getattr(e, "kind", type(e).__name__))
                time.sleep_ms(100)
                continue
            if uid is None:
                lying = [None, None]
                time.sleep_ms(_POLL_MS)
                continue
            if uid in lying:
                time.sleep_ms(_POLL_MS)
                continue
            lying = [lying[1], uid]
            if uid in cards:
                out("  Tag %s is already enrolled as %s; tap the %s." % (uid, cards[uid], name))
                show(ZONE_PILE0, RED, FAST, 1000)
                continue
            cards[uid] = code + suffix
            save_cards(path, cards)
            enrolled += 1
            out("  %s = %s" % (uid, code + suffix))
            show(ZONE_PILE0, GREEN, SOLID, 400)
            render()
            break
