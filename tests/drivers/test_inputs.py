"""Input ring, EdgeInput and Debouncer on CPython (the heap-lock proof is mp_irq_heap_check.py)."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


WRAP = 1 << 30


# ---------------------------------------------------------------- InputRing
# The ring filled by its real producer, EdgeInput's hard IRQ handler, on virtual pins; read with
# the tests' double (support/ring.py), which pops as App.poll does.

def _edges(vb, pin, n, step_us=100):
    """n falling edges on ``pin`` (each released again), ``step_us`` apart; their times."""
    times = []
    for _ in range(n):
        times.append(vb.clock.ticks_us())
        pin.drive(0)
        vb.clock.advance_us(step_us // 2)
        pin.drive(1)
        vb.clock.advance_us(step_us - step_us // 2)
    return times


def _inputs(ring, *gpio_source):
    from machine import Pin
    from drivers.edge_input import EdgeInput
    pins = []
    for gpio, source in gpio_source:
        pin = Pin(gpio, Pin.IN, Pin.PULL_UP)
        EdgeInput(pin, source, ring, Pin.IRQ_FALLING)
        pins.append(pin)
    return pins


def test_edges_reach_the_ring_in_order_with_their_ticks(vb):
    from support.ring import InputRing

    r = InputRing(4)
    a, b = _inputs(r, (3, 3), (4, 0x0009))
    assert r.pop() == -1 and len(r) == 0
    (ta,) = _edges(vb, a, 1)
    (tb,) = _edges(vb, b, 1)
    assert len(r) == 2
    assert r.pop() == 3 and r.ticks == ta
    assert r.pop() == 9 and r.ticks == tb
    assert r.pop() == -1
    assert r.overflows == 0


def test_a_full_ring_keeps_the_oldest_edges_and_counts_the_dropped_ones(vb):
    from support.ring import InputRing

    r = InputRing(4)
    (pin,) = _inputs(r, (3, 5))
    times = _edges(vb, pin, 6)
    assert len(r) == 4 and r.overflows == 2
    got = []
    while True:
        s = r.pop()
        if s < 0:
            break
        got.append(r.ticks)
    assert got == times[:4]          # the new edges were dropped, never the unread ones
    _edges(vb, pin, 1)
    assert r.pop() == 5              # space again once read


def test_ring_indexes_wrap_around_over_many_cycles(vb):
    from support.ring import InputRing

    r = InputRing(5)
    (pin,) = _inputs(r, (3, 7))
    expect, got, dropped = [], [], 0
    for cycle in range(50):
        before = r.overflows
        times = _edges(vb, pin, cycle % 6)
        kept = len(times) - (r.overflows - before)
        expect.extend(times[:kept])
        dropped += len(times) - kept
        for _ in range(cycle % 4):
            if r.pop() >= 0:
                got.append(r.ticks)
    while r.pop() >= 0:
        got.append(r.ticks)
    assert got == expect
    assert r.overflows == dropped > 0


def test_clear_discards_what_is_waiting(vb):
    from support.ring import InputRing

    r = InputRing(8)
    (pin,) = _inputs(r, (3, 1))
    _edges(vb, pin, 3)
    r.clear()
    assert len(r) == 0 and r.pop() == -1


def test_ring_ticks_up_to_2_30_fit(vb):
    from support.ring import InputRing

    r = InputRing(2)
    (pin,) = _inputs(r, (3, 1))
    vb.clock.advance_us(WRAP - 1 - vb.clock.ticks_us())
    (t,) = _edges(vb, pin, 1)
    assert t == WRAP - 1
    assert r.pop() == 1 and r.ticks == WRAP - 1


# ---------------------------------------------------------------- EdgeInput
def test_edge_input_stores_source_and_ticks_on_active_edge(vb):
    from machine import Pin
    from support.ring import InputRing
    from drivers.edge_input import EdgeInput

    ring = InputRing(8)
    pin = Pin(3, Pin.IN, Pin.PULL_UP)
    EdgeInput(pin, 17, ring, Pin.IRQ_FALLING)
    t0 = vb.clock.ticks_us()
    pin.drive(0)
    vb.clock.advance_us(3000)
    pin.drive(1)  # rising edge: not registered
    assert ring.pop() == 17 and ring.ticks == t0
    assert ring.pop() == -1
    assert Pin.irq_errors == []


def test_edge_input_marks_releases_and_reports_level(vb):
    from machine import Pin
    from support.ring import InputRing
    from drivers.edge_input import EdgeInput, RELEASE

    ring = InputRing(8)
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    inp = EdgeInput(pin, 8, ring, Pin.IRQ_FALLING | Pin.IRQ_RISING, mark_release=True)
    assert not inp.is_active()
    pin.drive(0)
    assert inp.is_active()
    vb.clock.advance_us(2000000)
    pin.drive(1)
    assert ring.pop() == 8
    t_press = ring.ticks
    assert ring.pop() == 8 | RELEASE
    # The press straddles the 2**30 wrap: ticks_diff still gives the hold time.
    assert vb.clock.ticks_diff(ring.ticks, t_press) == 2000000
    inp.disable()
    pin.drive(0)
    assert ring.pop() == -1


def test_edge_input_active_high(vb):
    from machine import Pin
    from support.ring import InputRing
    from drivers.edge_input import EdgeInput

    ring = InputRing(8)
    pin = Pin(26, Pin.IN, Pin.PULL_DOWN)
    inp = EdgeInput(pin, 0, ring, Pin.IRQ_RISING, active_low=False)
    pin.drive(1)
    assert inp.is_active() and ring.pop() == 0


# ---------------------------------------------------------------- Debouncer
def test_debounce_drops_bounces_within_window(vb):
    from drivers.debouncer import Debouncer

    d = Debouncer(24, window_us=20000)
    assert d.accept(3, 1000)
    assert not d.accept(3, 1050)
    assert not d.accept(3 | 0x8000, 19999)  # release flag shares the source's window
    assert d.accept(3, 21000)  # 20 ms after the last *accepted* event
    assert d.accept(4, 21001)  # other sources are independent
    assert d.dropped == 2


def test_debounce_per_source_window_and_unknown_source(vb):
    from drivers.debouncer import Debouncer

    d = Debouncer(8, window_us=20000)
    d.set_window(5, 0)
    assert d.accept(5, 100) and d.accept(5, 100) and d.accept(5, 101)
    d.set_window(6, 5000)
    assert d.accept(6, 0) and not d.accept(6, 4999) and d.accept(6, 5000)
    assert not d.accept(30, 0) and d.unknown == 1


def test_debounce_wrap_safe_across_2_30(vb):
    from drivers.debouncer import Debouncer

    d = Debouncer(24, window_us=20000)
    last = WRAP - 5000
    assert d.accept(2, last)
    # 3 ms later the ticks have wrapped to a small number: still a bounce.
    assert not d.accept(2, (last + 3000) % WRAP)
    assert not d.accept(2, (last + 19999) % WRAP)
    # 25 ms later: a real press, although the raw value is far smaller than `last`.
    assert d.accept(2, (last + 25000) % WRAP)


def test_debounce_long_idle_gaps(vb):
    from drivers.debouncer import Debouncer

    d = Debouncer(24, window_us=20000)
    assert d.accept(9, 1000)
    # A gap between 2**29 and 2**30 us aliases to a negative ticks_diff: treated as long ago.
    assert d.accept(9, (1000 + (1 << 29) + 10) % WRAP)
    # After a full wrap the difference would alias to a tiny positive value; expire() (called
    # periodically by the main loop) forgets idle sources so the press is not lost.
    t = (1000 + (1 << 29) + 10) % WRAP
    d.expire((t + (1 << 28)) % WRAP)
    assert d.accept(9, (t + WRAP + 5) % WRAP)


def test_pipeline_bouncy_button_through_ring_and_debouncer(vb):
    """A press with contact bounce on both edges, straddling the ticks wrap."""
    from machine import Pin
    from support.ring import InputRing
    from drivers.edge_input import EdgeInput, RELEASE
    from drivers.debouncer import Debouncer
    from referee import sources

    ring = InputRing(32)
    pin = Pin(2, Pin.IN, Pin.PULL_UP)
    EdgeInput(pin, sources.stuck(0), ring, Pin.IRQ_FALLING | Pin.IRQ_RISING, mark_release=True)
    deb = Debouncer(sources.N_SOURCES, 20000)
    press_t = vb.clock.ticks_us()
    for level in (0, 1, 0, 1, 0):  # bouncy press
        pin.drive(level)
        vb.clock.advance_us(300)
    vb.clock.advance_us(200000)
    release_t = vb.clock.ticks_us()
    for level in (1, 0, 1):  # bouncy release
        pin.drive(level)
        vb.clock.advance_us(400)
    accepted = []
    while True:
        s = ring.pop()
        if s < 0:
            break
        if deb.accept(s, ring.ticks):
            accepted.append((s, ring.ticks))
    assert accepted == [(sources.stuck(0), press_t), (sources.stuck(0) | RELEASE, release_t)]
    assert release_t < press_t  # the clock wrapped in between
    assert deb.dropped == 6


def test_source_ids_are_distinct_and_decodable():
    from referee import sources as S

    ids = [S.touch(p) for p in range(3)] + [S.reader(p) for p in range(3)]
    ids += [S.stuck(q) for q in range(2)] + [S.slap(q, p) for q in range(2) for p in range(3)]
    assert len(set(ids)) == len(ids) and max(ids) < S.N_SOURCES
    assert (S.touch(1), S.reader(2), S.stuck(1), S.slap(0, 0), S.slap(1, 2)) == (1, 6, 9, 16, 22)   # the layout
    assert S.kind(S.slap(1, 2)) == S.KIND_SLAP
    assert S.player_of(S.slap(1, 2)) == 1 and S.pile_of(S.slap(1, 2)) == 2
    assert S.kind(S.stuck(1) | S.RELEASE) == S.KIND_STUCK and S.is_release(S.stuck(1) | S.RELEASE)
    assert S.player_of(S.stuck(1)) == 1 and S.pile_of(S.stuck(1)) == -1
    assert S.kind(S.reader(2)) == S.KIND_READER and S.pile_of(S.reader(2)) == 2
    assert S.kind(S.touch(1)) == S.KIND_TOUCH and S.kind(12) == S.KIND_UNKNOWN


def test_irq_heap_check_under_micropython():
    """Runs tests/micropython/mp_irq_heap_check.py on the unix port: no hard handler allocates."""
    res = _run_mp("tests/micropython/mp_irq_heap_check.py")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "OK: no hard IRQ handler allocated" in res.stdout


def test_irq_heap_check_catches_allocating_handler():
    """Negative control: the same harness fails on a handler that allocates."""
    res = _run_mp("tests/micropython/mp_irq_heap_check.py", "--bad")
    assert res.returncode != 0
    assert "MemoryError" in res.stdout


def _run_mp(*args):
    import subprocess

    exe = os.path.join(ROOT, ".venv", "bin", "micropython")
    if not os.path.exists(exe):
        import shutil

        exe = shutil.which("micropython")
        if exe is None:
            pytest.skip("micropython unix port not installed")
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:firmware:firmware/lib:."
    return subprocess.run([exe] + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------- the stable level after an edge
class _Level:
    def __init__(self):
        self.active = False

    def __call__(self):
        return self.active


def test_stable_level_glitch_is_dropped_and_bouncy_press_keeps_its_first_edge(vb):
    from drivers.debouncer import Debouncer

    level = _Level()
    d = Debouncer(8, window_us=20000)
    d.set_stable(3, 3000, level)
    # A 0.4 ms spike: the level is back to inactive when the 3 ms have passed.
    level.active = True
    assert not d.accept(3, 1000)
    level.active = False
    assert d.pop_due(3999) == -1 and d.pop_due(4000) == -1 and d.glitches == 1
    # A press bouncing for 1.2 ms: one press, stamped at the first edge.
    level.active = True
    for t in (10000, 10400, 10800, 11200):
        assert not d.accept(3, t)
    assert d.pop_due(14000) == -1          # 3 ms after the *last* edge, not the first
    assert d.pop_due(14200) == 3 and d.ticks == 10000
    assert d.pop_due(20000) == -1
    # Its release, 200 ms later, confirmed the same way.
    level.active = False
    assert not d.accept(3 | 0x8000, 210000)
    assert d.pop_due(213000) == 3 | 0x8000 and d.ticks == 210000


def test_stable_level_is_wrap_safe(vb):
    from drivers.debouncer import Debouncer

    level = _Level()
    level.active = True
    d = Debouncer(8, window_us=20000)
    d.set_stable(1, 3000, level)
    edge = WRAP - 1000
    assert not d.accept(1, edge)
    assert d.pop_due((edge + 2500) % WRAP) == -1
    assert d.pop_due((edge + 3000) % WRAP) == 1 and d.ticks == edge


def _table_log_events(t, kind):
    return [o for o in t.log_objects() if o.get("ev") == kind]


def test_r_play_glitches_on_button_and_pad_wires_are_not_presses():
    # Long wires pick up spikes: sub-millisecond pulses must not count as STUCK or slap.
    from host_tools.vboard.runner import VirtualTable
    from host_tools.vboard.pins import Pin

    t = VirtualTable()
    try:
        t.run_until(1_000_000)
        stuck0 = Pin.registry[t.board["players"][0]["stuck"]["pin"]]
        pad = Pin.registry[t.board["players"][1]["slap"][0]["pin"]]
        for at in (1_200_000, 1_300_000):
            for pin in (stuck0, pad):
                t.at(at, lambda p=pin: p.drive(0))
                t.at(at + 400, lambda p=pin: p.drive(1))
        t.press(1, ("slap", 0), 1_500_000, hold_us=50_000)
        t.press(0, "stuck", 1_700_000)
        t.run_until(2_000_000)
        assert [o["t"] for o in _table_log_events(t, "slap")] == [1_500_000]
        assert [o["t"] for o in _table_log_events(t, "stuck")] == [1_800_000]
        assert t.app.deb.glitches == 4
    finally:
        t.close()
