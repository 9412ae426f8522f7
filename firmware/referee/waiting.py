"""Before a game: the referee waits for both players' READY (docs/rules.md, round start).

After boot (and after a loop error's new game) no session runs yet: ``App.referee`` is a
``Waiting``, which the loop drives like an engine after its game (phase ``over``: no card,
slap or press is judged, the log work of a pause runs), and both READY presses (a short STUCK
press each, ``App._short_stuck``) start the session: its log file, session time 0, round 1's
countdown.  The LEDs show the READY pattern: each player's lamp blinks yellow until that
player has pressed READY, then stays lit; the rest is dark.
"""

from micropython import const

from spit.intents import LedIntents

# generated from spit.referee, spit.intents by scripts/gen_consts.py: do not edit
_PH_OVER = const(5)
_ZONE_PLAYER0 = const(4)
_YELLOW = const(7)  # stuck, or a question to the players
_SOLID = const(0)
_BLINK = const(1)   # 2 Hz
# end generated


class Waiting:
    """An engine stand-in with no session: every input is ignored (``App.feed`` drops them)."""

    def __init__(self, piles):
        self.phase = _PH_OVER
        self.round = 0
        self.top = [-1] * piles

    def advance(self, ms, us):
        pass

    def feed(self, kind, ms, us, a, b, c, d=0):
        pass

    def report(self, ms, us, reason, pile, value):
        pass

    def quiet(self, pile):
        return False


def ready_intents(ready):
    """The READY pattern for ``ready`` ([player 0 pressed, player 1 pressed])."""
    it = LedIntents()
    for p in range(2):
        it.show(_ZONE_PLAYER0 + p, _YELLOW, _SOLID if ready[p] else _BLINK, -1)
    return it


# ---- methods of referee.app.App (bound in its class body) ----------------------------------
def wait_ready(self):
    """No session: wait for both READY (after boot; ``App.boot``), READY pattern on the LEDs."""
    self.waiting = True
    self._over_ready[0] = self._over_ready[1] = False
    self.referee = Waiting(len(self.readers) or self.rules.piles)
    self.corr.attach(self.referee)
    self.intents = ready_intents(self._over_ready)
    self.clock.start()
    if self.live is not None:
        self.live.status(self)


def ready_pressed(self, player):
    """A READY press while waiting: that player's lamp stays lit."""
    if self.waiting:
        self.intents.show(_ZONE_PLAYER0 + player, _YELLOW, _SOLID, -1)


def session_number(self):
    """The session being refereed, or (waiting) the next one's number."""
    book = self.book
    if not self.waiting and book is not None and book.number >= 0:
        return book.number
    if book is None:
        return self.sessions + (1 if self.waiting else 0)
    from referee.logfiles import list_sessions
    s = list_sessions(book.directory)
    return s[-1][0] + 1 if s else 1
