"""The replay page's timeline: one SVG per ``ROW_S`` seconds of a round, every mark labelled.

Layout, top to bottom: an event band (spit calls, countdowns, round ends), one lane per pile,
a players' lane (STUCK presses, errors without a pile), the time axis.  Marks sit on their
lane's line in time order; a mark that would cover the one before moves right by the least
that separates them (order is kept; the hover title has the exact time).  Labels are packed
on levels above the line (card labels) and below it (race delta t labels, linked to the race's
zoom): each label takes the lowest level where its box clears the labels already there, shifted
sideways only as far as it still spans its mark.  A lane grows by as many levels as it needs,
so no two labels overlap at any game length.  Labels have an opaque backing, so the dashed
spit-call and round-end lines pass behind them.
"""

from html import escape

from host_tools.replay.text import describe, fmt_time, fmt_dt, REASON_WORDS

ROW_S = 30                 # seconds per row
PX_PER_S = 36
LEFT = 70                  # room for the lane names
RIGHT = 30
R = 5                      # mark radius
MARK_GAP = 2 * R + 2       # least distance between two marks' centres in a lane
CHAR_W = 6.4               # label font: 10 px monospace (measured 6.0 px a character)
LABEL_H = 13
LEVEL_H = 15
GAP = 3
AXIS_H = 24

COLOURS = {"accept": "#2e9d4a", "illegal": "#d7263d", "late": "#f08c00", "tie": "#7b2cbf",
           "early": "#2f6fde", "spit": "#ffffff", "resync": "#6b7280", "undo": "#6b7280", "error": "#7c2d12",
           "stuck": "#475569", "mismatch": "#facc15"}
TEXT_COLOURS = {"accept": "#1f6e34", "illegal": "#b3261e", "late": "#a85f00", "tie": "#5b1f90",
                "early": "#1f4fae", "spit": "#1d2330", "error": "#7c2d12", "mismatch": "#713f12"}
CARD_VERDICTS = ("spit", "accept", "illegal", "late", "early", "undo", "resync")


def mark_svg(kind, x, y, tip=""):
    """One verdict mark as an SVG element (``tip``: its <title>).  Every kind has its own shape
    and colour (the page's legend has one entry per mark)."""
    fill = COLOURS.get(kind, "#555")
    if kind == "spit":
        return '<circle cx="%.1f" cy="%.1f" r="%d" fill="#fff" stroke="#6b7280" stroke-width="2">%s</circle>' % (
            x, y, R, tip)
    if kind == "illegal":
        d = R - 0.5
        return ('<path d="M%.1f %.1fl%.1f %.1fm0 %.1fl%.1f %.1f" stroke="%s" stroke-width="3" '
                'stroke-linecap="round" fill="none">%s</path>' % (x - d, y - d, 2 * d, 2 * d, -2 * d, -2 * d, 2 * d,
                                                                  fill, tip))
    if kind == "error":   # an outlined triangle with a bar: "!"
        return ('<path d="M%.1f %.1fl%.1f %.1fh%.1fz M%.1f %.1fv3" stroke="%s" stroke-width="1.6" fill="#fff" '
                'stroke-linejoin="round">%s</path>' % (x, y - R - 1, R + 1, 2 * R + 1, -2 * R - 2, x, y - 2, fill, tip))
    if kind == "mismatch":   # the device said otherwise here
        return ('<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="%s" stroke="#1d2330" stroke-width="1.5" '
                'transform="rotate(45 %.1f %.1f)">%s</rect>' % (x - R + 1, y - R + 1, 2 * R - 2, 2 * R - 2, fill,
                                                                 x, y, tip))
    if kind == "early":
        return '<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="%s">%s</rect>' % (
            x - R + 1, y - R + 1, 2 * R - 2, 2 * R - 2, fill, tip)
    if kind == "tie":
        return '<path d="M%.1f %.1fl%d %dl%d %dl%d %dz" fill="%s">%s</path>' % (
            x, y - R - 1, R + 1, R + 1, -R - 1, R + 1, -R - 1, -R - 1, fill, tip)
    if kind == "stuck":
        return '<path d="M%.1f %.1fl5 9h-10z" fill="%s">%s</path>' % (x, y - 5, fill, tip)
    if kind == "undo":   # a hollow circle: the card was taken back
        return '<circle cx="%.1f" cy="%.1f" r="%d" fill="none" stroke="%s" stroke-width="2" ' \
               'stroke-dasharray="2 2">%s</circle>' % (x, y, R - 1, fill, tip)
    return '<circle cx="%.1f" cy="%.1f" r="%d" fill="%s">%s</circle>' % (x, y, R, fill, tip)


def label_width(text):
    return len(text) * CHAR_W + 6


class Packer:
    """Label boxes on levels (level 0 nearest the line)."""

    def __init__(self, min_left):
        self.right = []
        self.min_left = min_left

    def place(self, x, w):
        """``(level, left)`` for a box of width ``w`` that must span ``x``."""
        left = max(x - w / 2, self.min_left)
        for level, edge in enumerate(self.right):
            at = max(left, edge + GAP)
            if at <= x - 1:
                self.right[level] = at + w
                return level, at
        self.right.append(left + w)
        return len(self.right) - 1, left


class Label:
    def __init__(self, ident, x, text, colour, up, href=None, cls="label"):
        self.ident = ident
        self.x = x
        self.text = text
        self.colour = colour
        self.up = up
        self.href = href
        self.cls = cls
        self.level = 0
        self.left = 0.0


class Lane:
    """One lane (a pile, the players or the event band): marks on a line, labels on levels."""

    def __init__(self, name):
        self.name = name
        self.marks = []      # (x, kind, tip, label or None)
        self.labels = []
        self.brackets = []   # (x0, x1, colour, tip)
        self.last_x = -99.0
        self.top = 0
        self.line_y = 0
        self.height = 0

    def mark_x(self, x):
        x = max(x, self.last_x + MARK_GAP)
        self.last_x = x
        return x

    def layout(self, top):
        ups = Packer(LEFT - 2)
        downs = Packer(LEFT - 2)
        for lab in sorted(self.labels, key=lambda lb: lb.x):
            packer = ups if lab.up else downs
            lab.level, lab.left = packer.place(lab.x, label_width(lab.text))
        self.top = top
        self.line_y = top + 4 + len(ups.right) * LEVEL_H + R + 3
        self.height = (self.line_y - top) + R + 5 + len(downs.right) * LEVEL_H + 4
        return top + self.height

    def label_box_top(self, lab):
        if lab.up:
            return self.line_y - R - 3 - (lab.level + 1) * LEVEL_H + (LEVEL_H - LABEL_H)
        return self.line_y + R + 5 + lab.level * LEVEL_H

    def right_edge(self):
        edges = [lab.left + label_width(lab.text) for lab in self.labels] + [m[0] + R for m in self.marks]
        return max(edges) if edges else 0


class Row:
    """``[start, end)`` of one round: an event band, the pile lanes, the players' lane."""

    def __init__(self, start, end, npiles):
        self.start = start
        self.end = end
        self.events = Lane("")
        self.piles = [Lane("pile %d" % p) for p in range(npiles)]
        self.players = Lane("players")
        self.bands = []       # countdowns: (x, width, tip), grey behind the lanes
        self.vlines = []      # (x, colour, dashed, tip)

    def x(self, t):
        return LEFT + (t - self.start) * PX_PER_S / 1e6

    def lanes(self):
        return [self.events] + self.piles + [self.players]

    def svg(self):
        y = 0
        for lane in self.lanes():
            y = lane.layout(y)
        height = y + AXIS_H
        width = int(max(self.x(self.end) + RIGHT, max(lane.right_edge() for lane in self.lanes()) + 6))
        out = ['<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="%d" height="%d" '
               'viewBox="0 0 %d %d">' % (width, height, width, height)]
        lanes_top = self.piles[0].top
        lanes_bottom = self.players.top + self.players.height
        for p, lane in enumerate(self.piles + [self.players]):
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
                LEFT, lane.top, width - LEFT - RIGHT // 2, lane.height,
                "#f4f6fa" if p % 2 == 0 else "#eceff5"))
            out.append('<text x="8" y="%.1f" font-size="12" fill="#3a4252" dominant-baseline="middle">%s</text>'
                       % (lane.line_y, escape(lane.name)))
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#cfd5df"/>' % (
                LEFT, lane.line_y, width - RIGHT // 2, lane.line_y))
        first = -(-self.start // 1000000)
        for s in range(first, self.end // 1000000 + 1):
            x = self.x(s * 1000000)
            major = s % 5 == 0
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>' % (
                x, lanes_top, x, lanes_bottom + (5 if major else 3), "#c9d0dc" if major else "#e1e5ec"))
            if major:
                out.append('<text x="%.1f" y="%d" font-size="11" fill="#5b6475" text-anchor="middle">%d:%02d</text>'
                           % (x, lanes_bottom + 17, s // 60, s % 60))
        for x, w, tip in self.bands:
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#dfe3ea" opacity="0.7">%s</rect>'
                       % (x, 0, w, lanes_bottom, tip))
        for x, colour, dashed, tip in self.vlines:
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%s"%s>%s</line>' % (
                x, 2, x, lanes_bottom, colour, "1.5" if dashed else "2.5",
                ' stroke-dasharray="4 3"' if dashed else "", tip))
        for lane in self.lanes():
            self._lane_svg(lane, out)
        out.append("</svg>")
        return "\n".join(out)

    def _lane_svg(self, lane, out):
        for x0, x1, colour, tip in lane.brackets:
            y = lane.line_y + R + 2
            out.append('<path d="M%.1f %.1fv3H%.1fv-3" fill="none" stroke="%s" stroke-width="1.5">%s</path>' % (
                x0, y, x1, colour, tip))
        for lab in lane.labels:   # leaders from far labels to their marks, behind everything else
            if lab.level:
                top = lane.label_box_top(lab)
                y0 = top + LABEL_H if lab.up else top
                y1 = lane.line_y - R if lab.up else lane.line_y + R + 5
                out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#b8c0cc" stroke-width="0.8"/>'
                           % (lab.x, y0, lab.x, y1))
        for x, kind, tip, lab in lane.marks:
            attrs = ' data-label="%s"' % lab.ident if lab is not None else ""
            out.append('<g class="mark mark-%s"%s>%s</g>' % (kind, attrs, mark_svg(kind, x, lane.line_y, tip)))
        for lab in lane.labels:
            top = lane.label_box_top(lab)
            w = label_width(lab.text)
            body = ('<rect x="%.1f" y="%.1f" width="%.1f" height="%d" rx="2" fill="#ffffff" fill-opacity="0.92"/>'
                    '<text x="%.1f" y="%.1f" font-size="10" fill="%s" text-anchor="middle">%s</text>'
                    % (lab.left, top, w, LABEL_H, lab.left + w / 2, top + 10, lab.colour, escape(lab.text)))
            if lab.href:
                body = '<a href="%s">%s</a>' % (lab.href, body)
            out.append('<g class="%s" id="%s">%s</g>' % (lab.cls, lab.ident, body))


def _title(t, kind, f, who=None, rules=None):
    text = "%s  %s" % (fmt_time(t), describe(kind, f, rules))
    if who is not None and "player" not in f:
        text += "  (played by player %d)" % who
    return "<title>%s</title>" % escape(text)


class Drawer:
    """Draws one round's verdicts onto its rows.  ``owners``: record index -> player;
    ``races``: record index -> race (host_tools.replay.page_races.Race); ``numbers``: ids for labels."""

    def __init__(self, rows, npiles, owners, races, numbers, questions=None, rules=None, winners=None):
        self.questions = questions or {}   # t -> host_tools.replay.facts.Question
        self.rules = rules
        self.winners = winners or {}       # round number -> (player, how) where the log tells
        self.rows = rows
        self.npiles = npiles
        self.owners = owners
        self.races = races
        self.numbers = numbers   # an itertools.count shared by the page: element ids are unique
        self.last_mark = [None] * npiles   # (row, x) of the card on top of each pile

    def ident(self, prefix):
        return "%s%d" % (prefix, next(self.numbers))

    def row_of(self, t):
        for row in self.rows:
            if t < row.end:
                return row
        return self.rows[-1]

    def draw(self, index, t, kind, f):
        row = self.row_of(t)
        x = row.x(t)
        who = self.owners.get(index)
        tip = _title(t, kind, f, who, self.rules)
        pile = f.get("pile", -1)
        lane = row.piles[pile] if isinstance(pile, int) and 0 <= pile < self.npiles else None
        if kind in CARD_VERDICTS and lane is not None:
            self._card(row, lane, index, x, kind, f, who, tip)
        elif kind == "tie" and lane is not None:
            self._race(row, lane, index, x, tip)
        elif kind == "error":
            target = lane or row.players
            mx = target.mark_x(x)
            lab = Label(self.ident("L"), mx, f.get("reason", "error").replace("_", " "), TEXT_COLOURS["error"], True)
            target.marks.append((mx, "error", tip, lab))
            target.labels.append(lab)
        elif kind == "stuck":
            mx = row.players.mark_x(x)
            lab = Label(self.ident("L"), mx, "STUCK P%d" % f["player"], "#334155", True)
            row.players.marks.append((mx, "stuck", tip, lab))
            row.players.labels.append(lab)
        elif kind == "pile_won" and lane is not None:
            size = "empty" if f["size"] == 0 else "%d" % f["size"]
            lane.labels.append(Label(self.ident("E"), lane.mark_x(x + 8), "P%d takes (%s)" % (f["player"], size),
                                     "#0f766e", True, cls="label event"))
        else:
            self._event(row, x, t, kind, f, tip)

    def mismatch(self, t, text):
        """A verdict the device gave differently, marked at its time in the players' lane."""
        row = self.row_of(t)
        mx = row.players.mark_x(row.x(t))
        lab = Label(self.ident("L"), mx, "device differs", TEXT_COLOURS["mismatch"], True)
        row.players.marks.append((mx, "mismatch", "<title>%s</title>" % escape(text), lab))
        row.players.labels.append(lab)

    def _card(self, row, lane, index, x, kind, f, who, tip):
        mx = lane.mark_x(x)
        text = f.get("card", "?")
        if kind == "undo":
            text = "undo " + text
        elif kind == "resync":
            text = "top " + text
        if who is not None:
            text += "\u00b7P%d" % who
        lab = Label(self.ident("L"), mx, text, TEXT_COLOURS.get(kind, "#3a4252"), True)
        lane.marks.append((mx, kind, tip, lab))
        lane.labels.append(lab)
        race = self.races.get(index)
        if race is not None:
            self._bracket(row, lane, race, mx, tip)
        if kind in ("spit", "accept", "resync"):
            self.last_mark[int(f["pile"])] = (row, mx)

    def _race(self, row, lane, index, x, tip):
        race = self.races.get(index)
        if race is not None:
            self._bracket(row, lane, race, lane.last_x if lane.last_x > 0 else x, tip)

    def _bracket(self, row, lane, race, x1, tip=""):
        prev = self.last_mark[race.pile]
        x0 = prev[1] if prev is not None and prev[0] is row else max(x1 - MARK_GAP, row.x(row.start))
        colour = TEXT_COLOURS.get(race.kind, "#555")
        lane.brackets.append((min(x0, x1), max(x0, x1), COLOURS.get(race.kind, "#555"), tip))
        ident = self.ident("D")
        lab = Label(ident, (x0 + x1) / 2, "%s%s" % ("tie " if race.kind == "tie" else "+", fmt_dt(race.dt_us)),
                    colour, False, href="#race-%d" % race.number, cls="label dt")
        lane.labels.append(lab)
        race.timeline_label = ident

    def _event(self, row, x, t, kind, f, tip):
        band = row.events
        if kind == "countdown":
            x2 = min(row.x(t + f["ms"] * 1000), row.x(row.end))
            row.bands.append((x, max(1.0, x2 - x), tip))
            text, colour, line = "countdown %.1f s" % (f["ms"] / 1000.0), "#5b6475", None
        elif kind == "spit_call":
            text, colour, line = "SPIT CALL", "#1d2330", ("#1d2330", True)
        elif kind == "round_end":
            won = self.winners.get(f.get("round"))
            if "player" in f:
                who = "player %d went out" % f["player"]
            elif won is not None and won[0] is not None and won[0] >= 0:
                who = "%s; player %d won it" % (REASON_WORDS.get(f["reason"], f["reason"]), won[0])
            elif f["reason"] == "out":
                who = "a player went out (who: %s)" % "not known from the log"
            else:
                who = REASON_WORDS.get(f["reason"], f["reason"])
            text = "round %s ends: %s" % (f.get("round", "?"), who)
            colour, line = "#0f766e", ("#0f766e", False)
        elif kind == "game_over":
            who = "a draw" if f["winner"] < 0 else "player %d wins" % f["winner"]
            text, colour, line = "GAME OVER: %s" % who, "#b3261e", ("#b3261e", False)
        elif kind == "question":
            q = self.questions.get(t)
            if q is not None:
                text = "question %s \u2192 answer %s" % (q.words(), q.answer_words())
            else:
                text = "question to player %d" % f["player"]
            colour, line = "#0f766e", ("#0f766e", True)
        elif kind == "score":
            text, colour, line = "P%d score %d" % (f["player"], f["score"]), "#3a4252", None
        elif kind == "recycle":
            text, colour, line = "recycle %d cards" % f["cards"], "#3a4252", None
        else:
            return   # round_start: the round's heading says it
        if line is not None:
            row.vlines.append((x, line[0], line[1], tip))
        band.labels.append(Label(self.ident("E"), band.mark_x(x), text, colour, True, cls="label event"))
