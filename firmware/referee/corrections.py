"""STUCK presses, the correction gesture and the correction menu (docs/hardware.md).

A STUCK button counts when it is *released* after a short press (< 2 s): the loop then feeds
``stuck`` at the release time.  Holding is kept free for the gesture: **both players hold STUCK
for 2 s** (the holds overlapping for 2 s) to open the correction menu; neither hold is then a
STUCK.  In the menu (all zones pulse yellow, play is paused for the players; the engine keeps
judging whatever the sensors report):

* either STUCK, short press: undo the last card that landed (``undo`` on its pile; again for
  the one before ...);
* the slap pad of pile p: re-sync that pile's top card: the pile zone blinks cyan and the next
  card read on pile p becomes a ``top`` event (no verdict but ``resync``);
* both STUCK held 2 s again, or 10 s without input: close the menu.

Questions (verdict ``question``, player zone + RESULT blinking yellow) are answered with the
pads, menu or not: each slap-pad press counts one, a short STUCK press sends ``answer``.

Every correction goes through ``feed(kind, ms, us, a, b, c)``, which logs and feeds the
engine, so a re-judge of the log sees it.
"""

from micropython import const

from spit.intents import LedIntents

# Copies of other modules' codes: const() is inlined per module only, so a use costs no global
# and attribute lookup (and spit.verdicts, for one, need not be on the board).
# generated from spit.verdicts, spit.intake, spit.referee, spit.intents by scripts/gen_consts.py: do not edit
_V_ACCEPT = const(1)
_V_SPIT = const(7)
_V_ERROR = const(11)
_V_QUESTION = const(13)
_V_ROUND_START = const(15)
_V_RECYCLE = const(16)
_V_RESYNC = const(19)
_E_UNDO_LIMIT = const(14)  # an undo past the cards the referee remembers on that pile
_EV_UNDO = const(6)        # a: pile                 (correction: take back the last card)
_EV_ANSWER = const(8)      # a: player, b: value     (answer to the referee's question)
_PH_QUESTION = const(3)    # waiting for the players' answer
_N_ZONES = const(7)
_YELLOW = const(7)         # stuck, or a question to the players
_CYAN = const(8)           # countdown
_BLINK = const(1)          # 2 Hz
_PULSE = const(3)          # breathing
# end generated

_HOLD_MS = const(2000)
# A button seen up with no release edge yet: its edge may still wait in the input ring (it
# came after the loop drained it; a step can take milliseconds, a log flush tens of them).
# Only a release missing this long was lost (ring overflow).
_LOST_RELEASE_MS = const(250)
_IDLE_CLOSE_MS = const(10000)
_STACK = const(32)


class Corrections:
    def __init__(self, feed, is_held, on_short, beep=None):
        self.feed = feed              # feed(kind, ms, us, a, b, c): log + engine
        self.is_held = is_held        # is_held(player): the STUCK button is down right now
        self.on_short = on_short      # on_short(player, ms, us): a STUCK press outside the menu
        self.beep = beep              # beep(kind) with kind "open"/"close"/"count"/"undo"
        self.referee = None
        self.down = [False, False]
        self.down_ms = [0, 0]
        self.up_ms = [-1, -1]          # session ms a held button was first seen up (-1: not)
        self.gesture = [False, False]  # this hold took part in the gesture: not a STUCK
        self._armed = True             # both released since the last gesture
        self.menu = False
        self.menu_input_ms = 0
        self.resync = -1               # pile whose next read is its true top card
        self.count = 0                 # pad presses towards an answer
        self._stack = bytearray(_STACK)  # piles of the cards that landed, newest last
        self._n = 0
        self.intents = LedIntents()    # what the strip shows while the menu is open

    def attach(self, referee):
        """A new session: forget the landing stack, close the menu."""
        self.referee = referee
        self._n = 0
        self.count = 0
        self.resync = -1
        self.menu = False

    # ---- verdicts (to know what "the last card" is) -----------------------------------
    def on_verdict(self, code, a, b=-1):
        if code == _V_ACCEPT or code == _V_SPIT or code == _V_RESYNC or (
                code == _V_ERROR and a == _E_UNDO_LIMIT and b >= 0):
            # (An undo the engine refused, undo_limit on pile b: its landing is still there.)
            if code == _V_ERROR:
                a = b
            if self._n == _STACK:
                for i in range(_STACK - 1):
                    self._stack[i] = self._stack[i + 1]
                self._n -= 1
            self._stack[self._n] = a
            self._n += 1
        elif code == _V_ROUND_START:
            self._n = 0
        elif code == _V_RECYCLE:
            # R-SPEED-1: only each pile's top is left to take back: the newest landing of
            # each pile stays on the stack, in its order.
            stack = self._stack
            n = self._n
            w = n
            kept = 0
            for i in range(n - 1, -1, -1):
                p = stack[i]
                if not kept & (1 << p):
                    kept |= 1 << p
                    w -= 1
                    stack[w] = p
            for i in range(n - w):
                stack[i] = stack[w + i]
            self._n = n - w
        elif code == _V_QUESTION:
            self.count = 0

    # ---- inputs -------------------------------------------------------------------------
    def stuck_edge(self, player, pressed, ms, us):
        if pressed:
            self.down[player] = True
            self.down_ms[player] = ms
            self.up_ms[player] = -1
            self.gesture[player] = False
            return
        if not self.down[player]:
            return
        self.down[player] = False
        if not self.down[1 - player]:
            self._armed = True
        if self.gesture[player] or ms - self.down_ms[player] >= _HOLD_MS:
            return                                 # part of the gesture, or a lone long hold
        self._short(player, ms, us)

    def _short(self, player, ms, us):
        ref = self.referee
        if ref is not None and ref.phase == _PH_QUESTION:
            self.feed(_EV_ANSWER, ms, us, ref.question_player, self.count, 0)
            self.count = 0
            self.menu_input_ms = ms
            return
        if self.menu:
            self.menu_input_ms = ms
            if self._n:
                self._n -= 1
                self.feed(_EV_UNDO, ms, us, self._stack[self._n], 0, 0)
                self._beep("undo")
            return
        self.on_short(player, ms, us)

    def slap(self, player, pile, ms, us):
        """True if the press was used here (question or menu), False: feed it as a slap."""
        ref = self.referee
        if ref is not None and ref.phase == _PH_QUESTION:
            self.count += 1
            self.menu_input_ms = ms
            self._beep("count")
            return True
        if not self.menu:
            return False
        self.menu_input_ms = ms
        self.resync = pile
        self._show_menu()
        self.intents.show(pile, _CYAN, _BLINK, -1)
        return True

    def take_resync(self, pile):
        """True (once) if the card just read on ``pile`` is the re-synced top card."""
        if self.resync == pile:
            self.resync = -1
            self._show_menu()
            return True
        return False

    # ---- time ---------------------------------------------------------------------------
    def tick(self, ms):
        """Gesture and menu timeout; call every loop iteration with the session ms."""
        down = self.down
        if not (down[0] or down[1] or self.menu):
            return   # the usual case in play: nothing held, no menu
        for p in range(2):
            if not down[p]:
                continue
            if self.is_held(p):
                self.up_ms[p] = -1
            elif self.up_ms[p] < 0:
                self.up_ms[p] = ms             # its release edge should follow soon
            elif ms - self.up_ms[p] >= _LOST_RELEASE_MS:
                # The release edge was lost: the hold ends here, and it was no STUCK.
                down[p] = False
                self.gesture[p] = True
                if not down[1 - p]:
                    self._armed = True
        if self._armed and down[0] and down[1]:
            start = self.down_ms[0] if self.down_ms[0] > self.down_ms[1] else self.down_ms[1]
            if ms - start >= _HOLD_MS:
                self._armed = False
                self.gesture[0] = True
                self.gesture[1] = True
                if self.menu:
                    self.close()
                else:   # open the menu
                    self.menu = True
                    self.menu_input_ms = ms
                    self.resync = -1
                    self._show_menu()
                    self._beep("open")
        if self.menu and ms - self.menu_input_ms >= _IDLE_CLOSE_MS and not (down[0] or down[1]):
            self.close()

    def close(self):
        self.menu = False
        self.resync = -1
        self._beep("close")

    def _show_menu(self):
        for z in range(_N_ZONES):
            self.intents.show(z, _YELLOW, _PULSE, -1)

    def _beep(self, kind):
        if self.beep is not None:
            self.beep(kind)
