"""The firmware's own state follows every engine verdict (issue 25, item 3).

Every verdict kind of ``spit.verdicts`` is run through the real firmware on the virtual board
(simulated games in firmware mode, plus a scripted table for what the players' bots never do:
a tie, errors, the correction menu's undo and resync).  After each step of the firmware that
brought a verdict, once the engine holds no event back, it is checked against the engine:

- the readers' memory: every UID a pile's reader remembers (and will not report again) is a
  card the engine has in the center, unless it waits to be forgotten (``RejectedUids``
  pending); each pile's top card is remembered (it lies there: it must not be read again);
- the LEDs: what the strip physically shows in every lit, steady zone is the colour of the
  engine's intents;
- the log: the device's verdict lines are what a re-judge of its log gives.

Speed's recycle (R-SPEED-1) used to leave the recycled cards in the readers' memory: a card
flipped back onto its pile was never reported and the game stalled
(``spit sim --mode firmware --ruleset speed --seed 204``); an undo left the taken-back card
there too (played again, it was never read).
"""

import json
import os

from spit import verdicts as V

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


ALL_KINDS = {getattr(V, k) for k in dir(V) if k.startswith("V_")}
NAMES = {getattr(V, k): k[2:].lower() for k in dir(V) if k.startswith("V_")}


class FollowChecker:
    """Wraps a ``VirtualTable``'s step: after a step with new verdicts, checks the firmware."""

    def __init__(self, vt):
        self.vt = vt
        self.kinds = set()
        self.checked = 0
        self.failures = []
        self._n = 0
        self.verdicts = []
        ref = vt.app.referee
        self._sink = ref.sink
        ref.sink = self._record
        self._step = vt._step
        vt._step = self._checked_step

    def _record(self, code, ms, us, a, b, c, d):
        from host_tools.vboard import heapgate
        heapgate.enter_c()
        try:
            self.verdicts.append((code, ms, a, b, c, d))
        finally:
            heapgate.exit_c()
        if self._sink is not None:
            self._sink(code, ms, us, a, b, c, d)

    def _checked_step(self):
        self._step()
        if len(self.verdicts) != self._n:
            new = self.verdicts[self._n:]
            self._n = len(self.verdicts)
            for v in new:
                self.kinds.add(v[0])
            self.pending = getattr(self, "pending", []) + new
        if getattr(self, "pending", None) and self.vt.app.referee._qn == 0 and not self.vt.app._judge:
            self.check(self.pending)
            self.pending = []

    def fail(self, text):
        if len(self.failures) < 20:
            self.failures.append("t=%d us: %s" % (self.vt.now_us, text))

    def check(self, new):
        vt = self.vt
        app = vt.app
        ref = app.referee
        self.checked += 1
        after = ",".join(NAMES.get(v[0], "?") for v in new)
        own = app.own_deck
        rejected = app.rejected
        for r in app.readers:
            p = r.pile
            waiting = set()
            mem = rejected._mem[p]
            for s in range(8):
                if rejected.pending[p] & (1 << s):
                    n = mem[s * 12 + 1]
                    waiting.add(bytes(mem[s * 12 + 2:s * 12 + 2 + n]))
            remembered = set()
            buf = bytearray(10)
            for slot in range(r.memory.count):
                n = r.memory.uid_into(slot, buf)
                if n == 0:
                    continue
                uid = bytes(buf[:n])
                if not app.cards.lookup(uid, n):
                    continue   # (an unknown tag: no card)
                card, owner = app.cards.card, app.cards.owner
                remembered.add((card, owner if own else -1))
                if uid in waiting:
                    continue
                i = card + 64 * owner if own and owner >= 0 else card
                if not ref._seen[i]:
                    self.fail("after %s: reader %d remembers %s, which the engine has not in the center"
                              % (after, p, _card(card)))
            top = ref.top[p]
            if 0 <= p < ref.npiles and top >= 0 and ref.size[p] > 0 and ref.phase <= 1:
                if not any(c == top for c, _o in remembered):
                    self.fail("after %s: reader %d does not remember the pile's top %s (it would be "
                              "reported again)" % (after, p, _card(top)))
        if not app.corr.menu and app.leds is not None and not app.leds.pending:
            shown = vt.led_state()
            intents = vt.led_intents()
            now_ms = app.clock.ms
            for z, (colour, pattern) in intents.items():
                zi = list(intents).index(z)
                until = app.intents.until_ms[zi]
                if pattern != "solid" or colour == "off" or (0 <= until <= now_ms + 5):
                    continue
                if z in shown and shown[z] != colour:
                    self.fail("after %s: zone %s shows %s, the engine's intent is %s" % (after, z, shown[z], colour))


def _card(card):
    from spit.cards import format_card
    return format_card(card)


def _check_log(lines):
    from host_tools import replay
    rep = replay.rejudge_lines(lines)
    assert rep.device_verdicts > 0
    assert rep.n_mismatches == 0, rep.mismatches[:3]


def _sim_game(ruleset, options, seed, minutes):
    """A simulated game on the virtual board, checked after every verdict."""
    from host_tools.sim.firmware import FirmwarePort
    from host_tools.sim.run import run_game
    checkers = []

    def port(sim, counts, rng, extra):
        p = FirmwarePort(sim, sim.rules, counts)
        checkers.append(FollowChecker(p.vt))
        return p

    result = run_game(ruleset, options, seed=seed, port_factory=port, max_minutes=minutes)
    return result, checkers[0]


def test_r_speed_1_recycled_cards_are_read_again_when_flipped_back():
    # Seed 204 recycles the center piles (R-SPEED-1) and flips recycled cards back onto the
    # piles they were read on.
    result, chk = _sim_game("speed", None, 204, 3)
    assert V.V_RECYCLE in chk.kinds
    assert chk.failures == [], chk.failures
    errors = [json.loads(x) for x in result.lines if '"error"' in x]
    assert not [e for e in errors if e.get("reason") == "no_read"], errors
    assert result.finished, result.notes
    assert [n for n in result.notes if "disagree" in n or "recycle" in n] == []
    _check_log(result.lines)


def _scripted_table():
    """A classic game with what the bots never do: a tie, errors, undo and resync."""
    from host_tools.vboard.runner import VirtualTable
    from host_tools.vboard.board_files import default_card_map
    from spit.rules import make_ruleset
    cards = dict(default_card_map(make_ruleset("classic")))
    cards["04DD0000000001"] = "9H"     # a second tag for 9H: a duplicate card
    vt = VirtualTable(cards=cards)
    return vt


def test_every_verdict_kind_leaves_the_firmware_following_the_engine():
    kinds = set()
    # Simulated games: play, spit calls, rounds, questions, scores, the game's end, recycles.
    for ruleset, options, seed in (("speed", None, 204), ("classic", {"points_target": 30}, 1)):
        result, chk = _sim_game(ruleset, options, seed, 3)
        assert chk.failures == [], (ruleset, chk.failures)
        assert chk.checked > 10
        _check_log(result.lines)
        kinds |= chk.kinds
    # The scripted table.
    vt = _scripted_table()
    try:
        chk = FollowChecker(vt)
        s = 1_000_000
        vt.land_card(0, "7H", 2 * s + 100_000)          # spit cards
        vt.land_card(1, "KS", 2 * s + 150_000)
        vt.land_card(0, "8H", 3 * s)                    # accept
        vt.land_card(0, "8C", 3 * s + 300)              # tie, then late (R-PLAY-5)
        vt.lift_card(0, "8C", 3 * s + 400_000)
        vt.land_card(0, "9H", 4 * s)                    # accept
        vt.land_card(1, "04DD0000000001", 5 * s)        # a second 9H: error duplicate_card
        vt.lift_card(1, "04DD0000000001", 5 * s + 400_000)
        vt.land_card(1, "2C", 6 * s)                    # illegal on KS
        vt.lift_card(1, "2C", 6 * s + 400_000)
        vt.touch(1, 6 * s + 700_000)                    # a touch with no read: error no_read
        # The correction menu: both hold STUCK 2 s; a short STUCK undoes the last card (9H)...
        vt.press(0, "stuck", 8 * s, hold_us=2_300_000)
        vt.press(1, "stuck", 8 * s, hold_us=2_300_000)
        vt.press(0, "stuck", 11 * s)
        vt.lift_card(0, "9H", 11 * s + 500_000)
        # ... and pile 1's pad re-syncs its top: the next card read there is the true top.
        vt.press(0, ("slap", 1), 12 * s)
        vt.land_card(1, "AD", 12 * s + 500_000)
        # The menu closes after 10 s without input; 9H is played again and must be read.
        vt.land_card(0, "9H", 24 * s)
        vt.run_until(25 * s)
        objs = vt.log_objects()
        verdicts = [o for o in objs if "verdict" in o]
        names = [o["verdict"] for o in verdicts]
        for want in ("tie", "late", "illegal", "undo", "resync"):
            assert want in names, (want, names)
        errors = {o["reason"] for o in verdicts if o["verdict"] == "error"}
        assert {"duplicate_card", "no_read"} <= errors, errors
        accepts = [o["card"] for o in verdicts if o["verdict"] == "accept" and o["pile"] == 0]
        assert accepts == ["8H", "9H", "9H"], accepts   # 9H read again after its undo
        assert chk.failures == [], chk.failures
        kinds |= chk.kinds
        _check_log(vt.log_lines())
    finally:
        vt.close()
    missing = sorted(NAMES[k] for k in ALL_KINDS - kinds)
    assert missing == [], "verdict kinds never run through the firmware: %s" % missing


def test_r_speed_1_after_a_recycle_the_menu_undoes_only_the_piles_tops():
    # The correction menu's landing stack follows the recycle: the cards under the tops left
    # the table, so an undo can take back only a pile's top (the newest landing of each pile).
    from referee.corrections import Corrections
    fed = []
    corr = Corrections(lambda *a: fed.append(a), lambda p: False, lambda *a: None)
    for pile in (0, 1, 0, 0, 1, 0):
        corr.on_verdict(V.V_ACCEPT, pile)
    corr.on_verdict(V.V_RECYCLE, 8)
    corr.menu = True
    for _ in range(3):
        corr._short(0, 1000, 0)
    assert [f[3] for f in fed if f[0] == 6] == [0, 1]   # (EV_UNDO) pile 0's top, then pile 1's


def test_r_play_4_an_undo_the_engine_refuses_leaves_its_landing_on_the_menus_stack():
    # undo_limit: the card is still on its pile, so the menu's next undo is that pile again.
    from referee.corrections import Corrections
    fed = []
    corr = Corrections(lambda *a: fed.append(a), lambda p: False, lambda *a: None)
    for pile in (1, 0):
        corr.on_verdict(V.V_ACCEPT, pile)
    corr.menu = True
    corr._short(0, 1000, 0)                           # undo pile 0 ...
    corr.on_verdict(V.V_ERROR, V.E_UNDO_LIMIT, 0)     # ... refused
    corr._short(0, 1100, 0)
    assert [f[3] for f in fed if f[0] == 6] == [0, 0]   # (EV_UNDO) pile 0 again, not pile 1
