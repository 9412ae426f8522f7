"""The emulated table in a terminal: one frame of text (ANSI colours for the LED strip).

Each frame starts with ``CLEAR`` (cursor home, clear screen), so a reader of the terminal's output
(a person, or a test through a pty) takes the text after the last ``CLEAR`` as what is on screen.
Plain lines, the same words as `spit replay`'s timeline; colours only on the LED zones.
"""

from spit.cards import format_card
from host_tools.replay.text import describe, fmt_time
from host_tools.play.keys import PLAYER_KEYS, help_lines

CLEAR = "\x1b[H\x1b[2J"
ANSI = {"green": 42, "red": 41, "orange": 43, "purple": 45, "blue": 44, "white": 47, "yellow": 103,
        "cyan": 46, "magenta": 105}
PHASE_WORDS = {"countdown": "countdown: the spit cards come when it ends", "play": "play",
               "slap": "the round is over: slap", "question": "the referee asks: answer with the pads, then STUCK",
               "between": "next round laid out: both press READY (STUCK)", "over": "game over"}


def card_text(card):
    return "--" if card < 0 else format_card(card)


def led_line(leds, colour=True):
    """``LEDs  PLAYER0 [off] PILE0 [green] ...`` (a coloured block per lit zone)."""
    parts = []
    for zone, name in leds.items():
        mark = "[%-7s]" % name
        if colour and name in ANSI:
            mark = "\x1b[30;%dm%s\x1b[0m" % (ANSI[name], mark)
        parts.append("%s %s" % (zone.upper(), mark))
    return "LEDs   " + " ".join(parts)


def render(table, view, keyboard, width=110, colour=True, board_lines=()):
    """The frame for ``table`` (``PlayTable``), ``view`` (``BoardView``) and ``keyboard``."""
    sim = table.sim
    t = table.now
    rules = table.rules
    kind = "emulated Pico (real MicroPython)" if table.board_kind == "rp2" else "virtual board"
    lines = ["Spit referee  %s on the %s   t %s   %s" % (rules.name, kind, fmt_time(t),
                                                        PHASE_WORDS.get(table.phase(), table.phase()))]
    lines.append(led_line(view.leds(), colour))
    heard = view.heard[-3:]
    lines.append("Sound  " + ("   ".join("%s %s" % (fmt_time(ts), w) for ts, w in heard) if heard else "(quiet)"))
    lines.append("")
    tops = table.tops()
    lines.append("Center " + "   ".join("pile %d: %-3s (%d)" % (p, card_text(tops[p][0]), len(sim.table.piles[p]))
                                        for p in range(len(tops))))
    for p in range(2):
        seat = sim.table.seats[p]
        srcs = table.sources(p)
        picks = PLAYER_KEYS[p]["pick"]
        shown = []
        for i, c in enumerate(srcs):
            key = picks[i] if i < len(picks) else " "
            mark = "*" if table.picked[p] == i else " "
            shown.append("%s:%s%-3s" % (key, mark, card_text(c)))
        lines.append("Player %d  cards %s   spit pile %d   holds %d   cards left %d" % (
            p, " ".join(shown), len(seat.spit), seat.held(), seat.stock_count()))
    lines.append("")
    q = table.question()
    if q is not None:
        lines.append(">> " + describe("question", q))
    lines.append("Referee:")
    for ts, name, f in table.said[-8:]:
        lines.append("  %s  %s" % (fmt_time(ts), describe(name, f)[:width - 12]))
    for ts, text in table.notes[-2:]:
        if t - ts < 5000000:
            lines.append("  (%s  %s)" % (fmt_time(ts), text))
    for text in board_lines:
        lines.append("Board: " + text[:width - 8])
    if keyboard.line is not None:
        lines.append("land by name: /" + keyboard.line)
    lines.append("")
    lines.extend(help_lines(sim.table.npiles))
    return CLEAR + "\n".join(lines) + "\n"


def render_idle(linked, view, keyboard, width=110, colour=True):
    """The emulated Pico's table between games (`spit emu --table`): LEDs, sounds, what the board
    printed, the cards placed by hand."""
    from host_tools.play.linked import WAITING
    status = linked.status or {}
    what = status.get("status") or "no referee stream yet (flash it: spit flash --port PTY)"
    phase = WAITING if what == "waiting" else what
    lines = ["Spit referee  the emulated Pico (real MicroPython)   t %s   %s"
             % (fmt_time(linked.rtable.now_us), phase)]
    lines.append(led_line(view.leds(), colour))
    heard = view.heard[-3:]
    lines.append("Sound  " + ("   ".join("%s %s" % (fmt_time(ts), w) for ts, w in heard) if heard else "(quiet)"))
    lines.append("")
    placed = linked.idle.placed
    lines.append("Center " + "   ".join("pile %d: %d card(s) placed by hand" % (p, len(placed.get(p, ())))
                                        for p in range(len(linked.rtable.emulators))))
    lines.append("")
    lines.append("Board:")
    for text in linked.text[-6:]:
        lines.append("  " + text[:width - 4])
    for _ts, text in linked.idle.notes[-2:]:
        lines.append("  (%s)" % text)
    if keyboard.line is not None:
        lines.append("card by name: /" + keyboard.line)
    lines.append("")
    lines.extend(help_lines(len(linked.rtable.emulators)))
    lines.append("between games: /P CARD PILE puts a card on a pile (/0 7H 0), /off PILE takes them off")
    return CLEAR + "\n".join(lines) + "\n"
