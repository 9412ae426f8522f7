"""The keyboard of the emulated table: two players at one keyboard (docs/getting-started.md).

Each player has keys for their face-up cards (pick one, then the pile to land it on), their STUCK
button (also READY, and the end of an answer) and their slap pads (a slap, or one unit of an
answer).  ``/`` opens a line to land a card by name: ``/0 7H 1`` lands player 0's 7H on pile 1.
Between games on `spit emu --table` the same line puts any card of the deck on a pile, and
``/off PILE`` takes the cards off it.  ``Q`` or Ctrl-C ends the session (the log is kept).
"""

PLAYER_KEYS = (
    {"pick": "12345", "land": "qwe", "stuck": "a", "pads": "zxc", "gap": "f"},
    {"pick": "67890", "land": "uio", "stuck": "j", "pads": "m,.", "gap": "k"},
)
QUIT = "Q"
COMMAND = "/"


def help_lines(piles):
    """The key legend, one line per player and one for the rest."""
    out = []
    for p, k in enumerate(PLAYER_KEYS):
        out.append("player %d: %s pick a card, then %s lands it on pile %s | %s STUCK/READY | %s pad of pile %s"
                   " | %s fill a gap" % (p, "-".join((k["pick"][0], k["pick"][-1])), "/".join(k["land"][:piles]),
                                         "/".join(str(i) for i in range(piles)), k["stuck"],
                                         "/".join(k["pads"][:piles]), "/".join(str(i) for i in range(piles)),
                                         k["gap"]))
    out.append("/P CARD PILE lands a card by name (/0 7H 1) | answer a question: pad presses, then STUCK"
               " | Q quit (the log is kept)")
    return out


class Keyboard:
    """Turns keys into ``PlayTable`` actions; ``line`` is the ``/`` command being typed (or None)."""

    def __init__(self, table):
        self.table = table
        self.line = None
        self.quit = False

    def key(self, ch):
        """Handle one key (a one-character str)."""
        t = self.table
        if self.line is not None:
            if ch in ("\r", "\n"):
                text, self.line = self.line, None
                self.command(text)
            elif ch in ("\x7f", "\b"):
                self.line = self.line[:-1]
            elif ch == "\x1b":
                self.line = None
            elif ch.isprintable():
                self.line += ch
            return
        if ch == COMMAND:
            self.line = ""
            return
        if ch == QUIT or ch == "\x03":
            self.quit = True
            return
        piles = t.piles()
        for p, k in enumerate(PLAYER_KEYS):
            if ch in k["pick"]:
                t.pick(p, k["pick"].index(ch))
            elif ch in k["land"][:piles]:
                t.land_picked(p, k["land"].index(ch))
            elif ch == k["stuck"]:
                t.stuck(p)
            elif ch in k["pads"][:piles]:
                t.pad(p, k["pads"].index(ch))
            elif ch == k["gap"]:
                t.fill_gap(p)
            else:
                continue
            return

    def command(self, text):
        """``P CARD PILE``: player P lands the face-up card CARD on pile PILE."""
        parts = text.split()
        if len(parts) == 2 and parts[0] == "off" and parts[1].isdigit() and hasattr(self.table, "take_off"):
            self.table.take_off(int(parts[1]))
            return
        if len(parts) != 3 or parts[0] not in ("0", "1") or not parts[2].isdigit():
            self.table.note("type /PLAYER CARD PILE, e.g. /0 7H 1 (got %r)" % text)
            return
        self.table.land_by_name(int(parts[0]), parts[1], int(parts[2]))
