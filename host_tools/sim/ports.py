"""Where the simulated table's physical events go: the rules engine directly (fast mode).

A port takes the physical events (a card lands on a pile, a button is pressed) at simulated
times, turns them into what the referee senses, and hands back the verdicts as the engine's
small-int tuples ``(code, t_ms, t_us, a, b, c, d)``.  It also keeps the session log
(docs/log-format.md): the header, every input event, and each verdict after the event that
produced it, as the device writes them.

Sensor model (fast mode): the touch sensor under a pile stamps the landing with a little jitter;
the pile's NFC reader reports the card 10-40 ms later; the readers share one bus and are
serviced one after the other, so a read can wait for the other pile's read.  Optionally a read
fails (the referee then sees a touch with no card: ``no_read``).

Plain Python, MicroPython-compatible.
"""

from spit.intake import EV_TOUCH, EV_CARD, EV_TICK
from spit.log import event_items, header_line
from spit.words import items_json, verdict_items
from spit.referee import Referee
from spit.rules import MODE_OWN_DECK

MS = 1000


class SensorModel:
    """Timing of the touch sensors and NFC readers (integer microseconds / per mille)."""

    def __init__(self, touch_jitter_us=300, detect_ms=(4, 12), read_ms=(6, 24), misread_pm=0):
        self.touch_jitter_us = touch_jitter_us
        self.detect_ms = detect_ms
        self.read_ms = read_ms
        self.misread_pm = misread_pm


class FastPort:
    """Feeds the engine (``spit.referee.Referee``) straight from the simulation."""

    mode = "fast"

    def __init__(self, rules, counts, rng, sensors=None, keep_log=True, extra=None):
        self.rules = rules
        self.rng = rng
        self.sensors = sensors or SensorModel()
        self.lines = [header_line(rules, counts, extra)] if keep_log else None
        self.out = []
        self.verdicts = 0   # emitted in the whole game (take() empties ``out``)
        self.bus_free = 0
        self.last_t = 0
        self.ref = Referee(rules, counts, self._sink)

    def _sink(self, code, ms, us, a, b, c, d):
        self.verdicts += 1
        self.out.append((code, ms, us, a, b, c, d))
        if self.lines is not None:
            self.lines.append(items_json(verdict_items(code, ms, us, a, b, c, d)))

    def take(self):
        """The verdicts emitted since the last call."""
        out = self.out
        self.out = []
        return out

    # --- the physical world ---
    def land(self, sim, t, pile, card, player):
        """A card touched ``pile`` at ``t``: schedule the touch edge and the NFC read.
        Returns False when the read will fail (the referee will see ``no_read``)."""
        s = self.sensors
        rng = self.rng
        sim.at(t + rng.below(s.touch_jitter_us + 1), sim.feed, (EV_TOUCH, pile, 0, 0))
        if s.misread_pm and rng.chance(s.misread_pm):
            return False
        start = t + rng.between(s.detect_ms[0], s.detect_ms[1]) * MS
        if start < self.bus_free:
            start = self.bus_free   # the other reader is being serviced
        done = start + rng.between(s.read_ms[0], s.read_ms[1]) * MS + rng.below(MS)
        self.bus_free = done
        who = player if self.rules.mode == MODE_OWN_DECK else -1
        sim.at(done, sim.feed, (EV_CARD, pile, card, who))
        return True

    def lift(self, t, pile, card, player):
        """A card leaves a pile (taken back, handed out): nothing to sense in fast mode."""

    def feed(self, kind, t, a, b, c):
        """One input event at session time ``t`` (us), in time order."""
        if self.lines is not None:
            self.lines.append(items_json(event_items(kind, t, a, b, c)))
        self.last_t = t
        self.ref.feed(kind, t // 1000, t % 1000, a, b, c)

    def advance(self, t):
        """The device loop: time has reached ``t``."""
        self.ref.advance(t // 1000, t % 1000)

    def close(self, t):
        """End of the session: a ``tick`` line, then everything still buffered is judged."""
        if self.lines is not None:
            self.lines.append(items_json(event_items(EV_TICK, t, 0, 0, 0)))
        self.ref.advance(t // 1000, t % 1000)
        self.ref.flush()

    def log_lines(self):
        return self.lines or []
