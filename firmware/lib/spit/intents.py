"""LED intents: what each zone of the table should show, never GPIO calls.

The referee updates a ``LedIntents`` on every verdict; the firmware's LED driver renders it
(blinking and countdown bars are computed by the driver from ``until_ms`` and the clock).
Per zone: a colour, a pattern and an expiry in session ms (-1 = until changed).
``changes`` counts updates so a renderer can skip work when nothing changed; ``dirty`` says
which zones were set since the renderer last looked.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x


ZONE_PILE0 = const(0)
ZONE_PILE1 = const(1)
ZONE_PILE2 = const(2)
ZONE_SPIT = const(3)
ZONE_PLAYER0 = const(4)
ZONE_PLAYER1 = const(5)
ZONE_RESULT = const(6)
N_ZONES = const(7)
ALL_ZONES = const(0x7F)   # a bit per zone

OFF = const(0)
GREEN = const(1)    # accept
RED = const(2)      # illegal
ORANGE = const(3)   # late
PURPLE = const(4)   # tie
BLUE = const(5)     # early
WHITE = const(6)    # spit / spit call
YELLOW = const(7)   # stuck, or a question to the players
CYAN = const(8)     # countdown
MAGENTA = const(9)  # error / flag

SOLID = const(0)
BLINK = const(1)      # 2 Hz
FAST = const(2)       # 8 Hz
PULSE = const(3)      # breathing
COUNTDOWN = const(4)  # a bar shrinking until until_ms

# Copies of spit.verdicts' codes (const() is inlined per module only: on_verdict compares
# without a lookup).
# generated from spit.verdicts by scripts/gen_consts.py: do not edit
_V_ACCEPT = const(1)
_V_ILLEGAL = const(2)
_V_LATE = const(3)
_V_TIE = const(4)
_V_EARLY = const(5)
_V_SPIT_CALL = const(6)
_V_SPIT = const(7)
_V_ROUND_END = const(8)
_V_PILE_WON = const(9)
_V_GAME_OVER = const(10)
_V_ERROR = const(11)
_V_STUCK = const(12)
_V_QUESTION = const(13)
_V_COUNTDOWN = const(14)
_V_ROUND_START = const(15)
# end generated

_FLASH_MS = const(600)     # how long a per-card verdict stays lit
_ALERT_MS = const(2000)


class LedIntents:
    def __init__(self):
        self.color = [OFF] * N_ZONES
        self.pattern = [SOLID] * N_ZONES
        self.until_ms = [-1] * N_ZONES
        self.changes = 0
        # Bit mask of the zones set since the renderer last took it (it resets it to 0):
        # a renderer compares those zones only, not all of them.
        self.dirty = 0

    def show(self, zone, color, pattern, until_ms):
        self.color[zone] = color
        self.pattern[zone] = pattern
        self.until_ms[zone] = until_ms
        self.dirty |= 1 << zone
        self.changes += 1

    def clear(self):
        for z in range(N_ZONES):
            self.color[z] = OFF
            self.pattern[z] = SOLID
            self.until_ms[z] = -1
        self.dirty = ALL_ZONES
        self.changes += 1

    def on_verdict(self, code, t_ms, a, b, c):
        """Map one verdict onto the zones (same small-int fields as the verdict sink)."""
        if code == _V_ACCEPT:   # (the referee's per-card path calls on_accept instead)
            self.show(a, GREEN, SOLID, t_ms + _FLASH_MS)
        elif code == _V_ILLEGAL:
            self.show(a, RED, FAST, t_ms + _ALERT_MS)
        elif code == _V_LATE:
            self.show(a, ORANGE, BLINK, t_ms + _ALERT_MS)
        elif code == _V_TIE:
            self.show(a, PURPLE, BLINK, t_ms + _ALERT_MS)
        elif code == _V_EARLY:
            self.show(a, BLUE, FAST, t_ms + _ALERT_MS)
        elif code == _V_SPIT:
            self.show(a, WHITE, SOLID, t_ms + _FLASH_MS)
        elif code == _V_SPIT_CALL:
            self.show(ZONE_SPIT, WHITE, FAST, t_ms + _ALERT_MS)
            self.show(ZONE_PLAYER0, OFF, SOLID, -1)
            self.show(ZONE_PLAYER1, OFF, SOLID, -1)
        elif code == _V_COUNTDOWN:
            self.show(ZONE_SPIT, CYAN, COUNTDOWN, t_ms + a)
        elif code == _V_STUCK:
            self.show(ZONE_PLAYER0 + a, YELLOW, SOLID, -1)
        elif code == _V_QUESTION:
            self.show(ZONE_PLAYER0 + b, YELLOW, BLINK, -1)
            self.show(ZONE_RESULT, YELLOW, BLINK, -1)
        elif code == _V_ROUND_END:
            self.show(ZONE_RESULT, WHITE, PULSE, -1)
            for p in range(2):
                # The round's winner when known (b); the other lamp (a STUCK press, a question
                # now answered) goes out: the round is over.
                if p == b:
                    self.show(ZONE_PLAYER0 + p, GREEN, PULSE, -1)
                else:
                    self.show(ZONE_PLAYER0 + p, OFF, SOLID, -1)
        elif code == _V_PILE_WON:
            self.show(b, GREEN if a == 0 else CYAN, BLINK, t_ms + _ALERT_MS)
        elif code == _V_GAME_OVER:
            # The winner's zone pulses green, the loser's is red.  A draw (a = -1: equal cards
            # when blocked or at the timer, R-OWN-1, R-GAME-6) has no loser: every zone of the
            # result pulses white.
            self.show(ZONE_RESULT, GREEN if a >= 0 else WHITE, PULSE, -1)
            for p in range(2):
                if a < 0:
                    self.show(ZONE_PLAYER0 + p, WHITE, PULSE, -1)
                else:
                    self.show(ZONE_PLAYER0 + p, GREEN if p == a else RED, PULSE if p == a else SOLID, -1)
        elif code == _V_ERROR:
            if 0 <= b < 3:
                self.show(b, MAGENTA, FAST, t_ms + _ALERT_MS)
            else:
                self.show(ZONE_RESULT, MAGENTA, FAST, t_ms + _ALERT_MS)
        elif code == _V_ROUND_START:
            self.clear()

    def on_accept(self, pile, t_ms):
        """An accepted play on ``pile``: play is live (``on_play``), the pile flashes green.  The
        referee's per-card path calls this instead of ``on_verdict`` (one call per landing)."""
        color = self.color
        if color[ZONE_PLAYER0] or color[ZONE_PLAYER1]:   # (OFF is 0)
            self.on_play(t_ms)
        color[pile] = GREEN
        self.pattern[pile] = SOLID
        self.until_ms[pile] = t_ms + _FLASH_MS
        self.dirty |= 1 << pile
        self.changes += 1

    def on_play(self, t_ms):
        """Play is live: the STUCK lamps go out (nothing to do when they are out already)."""
        color = self.color
        if color[ZONE_PLAYER0] or color[ZONE_PLAYER1]:   # (OFF is 0)
            self.show(ZONE_PLAYER0, OFF, SOLID, -1)
            self.show(ZONE_PLAYER1, OFF, SOLID, -1)

    def on_spit_now(self, t_ms):
        """The countdown ended: players flip their spit cards."""
        self.show(ZONE_SPIT, WHITE, SOLID, t_ms + _ALERT_MS)
