"""What the board shows the players: its LED zones as colour names and its buzzer's sounds as words.

Read at the pins' level from either table: the virtual board (``VirtualTable``: the WS2812 state
machine's last frame, the fake PWM's history) or the emulated Pico (``Rp2Table``: the WS2812 frames
decoded from the data pin, the PWM tone events).  The sounds are named after the firmware's own
canned sequences (``firmware/drivers/buzzer.py``, read from its source, so a changed sound is
still named), by their first tone.
"""

import ast
import os

from host_tools.vboard.board_files import REPO

BUZZER_SOURCE = os.path.join(REPO, "firmware", "drivers", "buzzer.py")
# What each canned sound means to the players (docs/hardware.md, LED legend and sounds).
SOUND_WORDS = {"ACCEPT": "blip (a card counts)", "ILLEGAL": "buzz-buzz (illegal card)",
               "LATE": "bee-boo (late card)", "TIE": "beep-beep (tie)", "SPIT": "ding-ding (spit!)",
               "ERROR": "low buzz (error: see the referee's words)", "READY": "rising chirp (ready)"}


def canned_sounds(path=BUZZER_SOURCE):
    """``{first tone Hz: name}`` of the ``Buzzer`` class's sound tuples in the firmware source."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Buzzer":
            for st in node.body:
                if (isinstance(st, ast.Assign) and isinstance(st.value, ast.Tuple) and st.value.elts
                        and isinstance(st.value.elts[0], ast.Constant)):
                    out.setdefault(st.value.elts[0].value, st.targets[0].id)
    return out


def nearest_sound(freq, sounds):
    """The canned first tone within 2 % of ``freq`` (a PWM's divider rounds the frequency), or None."""
    for f in sounds:
        if abs(freq - f) <= f * 0.02:
            return f
    return None


def sound_word(freq, sounds):
    """The word for a sound starting with a ``freq`` Hz tone."""
    name = sounds.get(nearest_sound(freq, sounds))
    if name is None:
        return "tone %d Hz" % freq
    return SOUND_WORDS.get(name, name.lower())

SOUND_US = 350000    # the longest canned sound lasts 280 ms: tones starting within this are one sound


class BoardView:
    """LEDs and sounds of the table a ``PlayTable`` runs on (``port``: its firmware port)."""

    def __init__(self, port):
        self.port = port
        self.sounds = canned_sounds()
        self.heard = []          # (table t_us, word)
        self._seen = 0
        self._sounding = False
        self._onset = -SOUND_US - 1
        self._freq = 0
        self._first = 0
        self.rp2 = hasattr(port, "pico")
        if self.rp2:
            self._seen = len(port.table.tones)   # (sounds from before this view: not this game's)

    def leds(self):
        """``{zone: colour name}`` ("off" = dark), zones in the board file's order."""
        if self.rp2:
            from host_tools.rp2emu.leds import zone_colours
            table = self.port.table
            if not table.frames:
                return dict((z.lower(), "off") for z in table.board["leds"]["zones"])
            return zone_colours(table.board, table.frames[-1]["rgb"])
        vt = self.port.vt
        if vt.app is None:
            return {}
        colours = vt.led_state()
        return dict((z.lower(), c) for z, c in colours.items())

    def listen(self, now_us):
        """Turn the buzzer's new tones into words (each sound once, by its first tone)."""
        if self.rp2:
            tones = self.port.table.tones
            new = tones[self._seen:]
            self._seen = len(tones)
            steps = [(t, f, d) for (t, f, d) in new]
        else:
            from host_tools.vboard.pins import PWM
            pwm = None
            board = self.port.vt.board
            if board and board.get("buzzer"):
                pwm = PWM.registry.get(board["buzzer"]["pin"])
            hist = pwm.history if pwm is not None else []
            steps = [(None, f, d) for (f, d) in hist[self._seen:]]
            self._seen = len(hist)
        for t, freq, duty in steps:
            on = duty > 0 and freq > 0
            if t is not None:
                t -= self.port.t0        # the emulated Pico's time -> table time
            else:
                t = now_us
            start = on and (not self._sounding or freq != self._freq)
            self._sounding = on
            self._freq = freq if on else 0
            if not start or nearest_sound(freq, self.sounds) is None:
                continue                 # a later tone of a sound (a canned sound is named by its first)
            if freq == self._first and t - self._onset <= SOUND_US:
                continue                 # the same sound's repeated tone (buzz-buzz, beep-beep)
            self._onset = t
            self._first = freq
            self.heard.append((t, sound_word(freq, self.sounds)))
        if len(self.heard) > 40:
            del self.heard[:10]
