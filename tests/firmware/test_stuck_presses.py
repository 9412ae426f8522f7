"""STUCK presses reach the referee whenever their edges arrive in the firmware loop.

The loop drains the input ring, then services the readers (SPI, up to milliseconds), then
ticks ``Corrections``.  A release edge that arrives after the drain is still in the ring
when ``Corrections.tick`` sees the button up: it must not be taken for a lost release
(which drops the press), since the next step delivers it (seen on the emulated Pico:
STUCK presses lost after some play, tests/rp2emu/test_rp2emu_inputs.py).
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Button:
    def __init__(self):
        self.down = [False, False]

    def held(self, player):
        return self.down[player]


def _corrections(button, shorts):
    from referee.corrections import Corrections
    return Corrections(lambda *a: None, button.held, lambda p, ms, us: shorts.append((p, ms)))


def test_r_stall_release_edge_still_in_the_ring_is_not_a_lost_release(vb):
    button = _Button()
    shorts = []
    corr = _corrections(button, shorts)
    button.down[0] = True
    corr.stuck_edge(0, True, 1000, 1000000)
    corr.tick(1010)
    button.down[0] = False          # released; its edge waits in the ring for the next step
    corr.tick(1061)
    corr.stuck_edge(0, False, 1060, 1060000)
    corr.tick(1065)
    assert shorts == [(0, 1060)]


def test_r_stall_a_release_edge_that_never_comes_ends_the_hold_without_a_stuck(vb):
    button = _Button()
    shorts = []
    corr = _corrections(button, shorts)
    button.down[1] = True
    corr.stuck_edge(1, True, 1000, 1000000)
    button.down[1] = False          # its release edge was lost (ring overflow)
    for ms in range(1001, 3000, 5):
        corr.tick(ms)
    assert not corr.down[1]
    corr.stuck_edge(1, False, 3000, 3000000)   # a stray release later counts for nothing
    assert shorts == []


def test_r_stall_stuck_released_while_the_loop_services_the_readers():
    """On the virtual board: both STUCK releases arrive in the middle of a loop step."""
    from host_tools.vboard.runner import VirtualTable
    from host_tools.vboard.pins import Pin

    t = VirtualTable()
    try:
        t.land_card(0, "5S", 2_100_000)
        t.land_card(1, "9H", 2_150_000)
        t.run_until(2_500_000)
        reader = t.app.readers[0]
        service = reader.service
        releases = []                   # (table us, player): released during reader.service
        released = []                   # (player, table us) it happened

        def service_then_release(now_us):
            n = service(now_us)
            while releases and t.now_us >= releases[0][0]:
                player = releases.pop(0)[1]
                Pin.registry[t.board["players"][player]["stuck"]["pin"]].drive(1)
                released.append((player, t.now_us))
            return n

        reader.service = service_then_release
        for player, at in ((0, 3_000_000), (1, 3_100_000)):
            t.at(at, lambda p=player: Pin.registry[t.board["players"][p]["stuck"]["pin"]].drive(0))
            releases.append((at + 60_000, player))
        t.run_until(3_500_000)
        stucks = [o for o in t.log_objects() if o.get("ev") == "stuck"]
        assert [p for p, _ in released] == [0, 1]
        assert [(o["player"], o["t"]) for o in stucks] == released
        assert [o["verdict"] for o in t.log_objects() if "verdict" in o][-2:] == ["spit_call", "countdown"]
    finally:
        t.close()


# ---- the IRQ handler ran late (interrupts masked), mid-bounce: its level sample is wrong
class _Level:
    def __init__(self):
        self.active = False

    def __call__(self):
        return self.active


def test_debouncer_settled_level_overrides_a_level_sampled_mid_bounce(vb):
    from drivers.debouncer import Debouncer
    level = _Level()
    d = Debouncer(8, window_us=20000)
    d.set_stable(3, 3000, level)
    level.active = True                  # pressed; the late handler saw a bounce (released)
    assert not d.accept(3 | 0x8000, 1000)
    assert not d.accept(3, 1400)
    assert d.pop_due(4400) == 3 and d.ticks == 1000
    level.active = False                 # released; the late handler saw a bounce (pressed)
    assert not d.accept(3, 100000)
    assert not d.accept(3 | 0x8000, 100700)
    assert d.pop_due(103700) == 3 | 0x8000 and d.ticks == 100000
    level.active = True
    assert not d.accept(3, 250000)       # a spike the late handler saw active ...
    level.active = False
    assert d.pop_due(253000) == -1 and d.glitches == 1   # ... back at released: no press


BOUNCE_US = (0, 150, 400, 550, 700)     # as host_tools/rp2emu/table.py


def _bounce_with_late_irq(t, pin, at_us, final, irq_at_us=200):
    """The contact bounces to ``final``; interrupts are masked from before the first edge
    until ``irq_at_us`` after it (a WS2812 frame), so the handler runs then, mid-bounce."""
    held = []

    def mask_and_drive(level):
        held.append(pin._handler)
        pin._handler = None
        pin.drive(level)

    def unmask():
        pin._handler = held.pop()
        pin._handler(pin)               # the latched edge, handled late

    for k, dt in enumerate(BOUNCE_US):
        level = final if k % 2 == 0 else 1 - final
        if k == 0:
            t.at(at_us, lambda v=level: mask_and_drive(v))
        else:
            t.at(at_us + dt, lambda v=level: pin.drive(v))
    t.at(at_us + irq_at_us, unmask)


def test_r_stall_stuck_edges_handled_late_mid_bounce_still_count():
    from host_tools.vboard.runner import VirtualTable
    from host_tools.vboard.pins import Pin

    t = VirtualTable()
    try:
        t.land_card(0, "5S", 2_100_000)
        t.land_card(1, "9H", 2_150_000)
        stuck = [Pin.registry[t.board["players"][p]["stuck"]["pin"]] for p in (0, 1)]
        _bounce_with_late_irq(t, stuck[0], 3_000_000, 0)         # press seen mid-bounce
        _bounce_with_late_irq(t, stuck[0], 3_060_000, 1, irq_at_us=500)
        _bounce_with_late_irq(t, stuck[1], 3_100_000, 0, irq_at_us=600)
        _bounce_with_late_irq(t, stuck[1], 3_160_000, 1)         # release seen mid-bounce
        t.run_until(3_800_000)
        stucks = [o for o in t.log_objects() if o.get("ev") == "stuck"]
        # A STUCK counts at its release, stamped when the (late) handler ran.
        assert [(o["player"], o["t"]) for o in stucks] == [(0, 3_060_500), (1, 3_160_200)]
        assert t.app.deb.glitches == 0
    finally:
        t.close()


def test_r_stall_both_stuck_released_together_on_a_slow_loop_are_not_late():
    """Both players release STUCK 60 us apart while each loop step takes 7 ms (the emulated
    Pico's pace; R-SPIT-1 needs both presses).  The debouncer hands out one settled edge a
    step, so the second is fed a step after the first: the engine must not have been
    advanced past it meanwhile (the device said ``late_event`` and the game never got its
    spit call on the emulated Pico).  The log re-judges to the device's verdicts."""
    from host_tools.vboard.runner import VirtualTable
    from host_tools import replay

    t = VirtualTable(loop_us=7000)
    try:
        t.land_card(0, "5S", 2_100_000)
        t.land_card(1, "9H", 2_150_000)
        t.press(0, "stuck", 3_000_000, hold_us=99_000)
        t.press(1, "stuck", 3_000_000, hold_us=99_060)
        t.run_until(3_600_000)
        verdicts = [o for o in t.log_objects() if "verdict" in o]
        assert [o for o in verdicts if o.get("reason") == "late_event"] == []
        assert [o["verdict"] for o in verdicts][-4:] == ["stuck", "stuck", "spit_call", "countdown"]
        rep = replay.rejudge_lines(t.log_lines())
        assert rep.n_mismatches == 0, rep.mismatches[:3]
    finally:
        t.close()


def test_r_stall_a_touch_fed_before_an_earlier_held_release_rejudges_as_the_device_judged():
    """A STUCK release waits in the debouncer (its level must prove stable) while a touch edge
    6 ms later goes to the engine at once: the release is fed after the touch.  The engine's
    horizon moved with the touch, but the loop had not advanced to it; the session log wrote a
    tick there all the same, and the re-judge judged the STUCK late_event where the device did
    not (seen once in CI on the emulated Pico).  At every step phase the log re-judges to the
    device's verdicts."""
    from host_tools.vboard.runner import VirtualTable
    from host_tools import replay

    for offset in range(0, 7000, 500):
        t = VirtualTable(loop_us=7000)
        try:
            t.land_card(0, "5S", 2_100_000)
            t.land_card(1, "9H", 2_150_000)
            release = 3_000_000 + offset
            t.press(0, "stuck", release - 100_000, hold_us=100_000)
            t.land_card(0, "6D", release + 6_000)
            t.run_until(3_400_000)
            lines = t.log_lines()
        finally:
            t.close()
        rep = replay.rejudge_lines(lines)
        assert rep.n_mismatches == 0, (offset, rep.mismatches[:3])
