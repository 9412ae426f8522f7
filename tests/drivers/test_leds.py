"""LED strip / GPIO LED renderers and the buzzer, on the virtual board (CPython)."""

N_ZONES = 7
ZONES = [[2, 3, 4, 5], [8, 9, 10, 11], [], [6, 7], [0, 1], [12, 13], [14, 15]]


class FakeIntents:
    """The engine's LED intent contract: color/pattern/until_ms per zone + a changes counter."""

    def __init__(self):
        self.color = [0] * N_ZONES
        self.pattern = [0] * N_ZONES
        self.until_ms = [-1] * N_ZONES
        self.changes = 0

    def set(self, zone, color, pattern=0, until_ms=-1):
        self.color[zone] = color
        self.pattern[zone] = pattern
        self.until_ms[zone] = until_ms
        self.changes += 1


def make_strip(vb, brightness=255, zones=ZONES):
    """A LedStrip on the PIO driver; returns (what the strip shows, the LedStrip)."""
    from machine import Pin
    from rp2 import Ws2812View
    from drivers.led_strip import LedStrip
    from drivers.ws2812_pio import Ws2812Pio

    class ClockedStrip(LedStrip):
        """Renders at session ms ``now_ms`` with the virtual clock moved there (the strip's
        latch gap is timed by the clock)."""

        def render(self, intents, now_ms):
            vb.clock.advance_to_us(max(vb.clock.now_us, t0 + now_ms * 1000))
            return LedStrip.render(self, intents, now_ms)

    t0 = vb.clock.now_us + 1000
    out = Ws2812Pio(Pin(28, Pin.OUT), 16)
    return Ws2812View(out.sm, 16), ClockedStrip(out, zones, brightness=brightness)


def test_palette_has_a_colour_per_engine_colour_id(vb):
    from spit import intents
    from drivers import led_patterns as L

    assert L._N_COLORS == intents.MAGENTA + 1 and len(L.DEFAULT_PALETTE) == 3 * L._N_COLORS
    rgb = [tuple(L.DEFAULT_PALETTE[3 * c:3 * c + 3]) for c in range(L._N_COLORS)]
    assert rgb[intents.OFF] == (0, 0, 0) and rgb[intents.GREEN] == (0, 255, 0) and rgb[intents.RED] == (255, 0, 0)
    assert rgb[intents.WHITE] == (255, 255, 255) and rgb[intents.BLUE] == (0, 0, 255)


def test_renderers_private_copies_match_their_sources(vb):
    """led_strip (and gpio_leds) keep spit.intents' and led_patterns' ids as private consts: same values."""
    from spit import intents
    from drivers import gpio_leds as G
    from drivers import led_patterns as L
    from drivers import led_strip as S

    for M in (S, G):
        assert M._C_OFF == intents.OFF and M._N_ZONES == intents.N_ZONES and M._NEVER_MS == L._NEVER_MS
    assert S._N_COLORS == L._N_COLORS and S._ALL_ZONES == intents.ALL_ZONES and G._FRAME_MS == L._FRAME_MS


def test_ws2812_private_pio_options_match_rp2(vb):
    """ws2812_pio keeps the rp2.PIO option values it uses as private consts: same values."""
    from rp2 import PIO
    from drivers import ws2812_pio as W

    for name in ("OUT_LOW", "SHIFT_RIGHT", "JOIN_TX"):
        assert getattr(W, "_" + name) == getattr(PIO, name), name


def test_solid_zone_and_write_only_on_change(vb):
    from spit.intents import GREEN, RED

    np, strip = make_strip(vb)
    it = FakeIntents()
    assert strip.render(it, 0)  # first render clears the strip once
    assert np.writes == 1 and np.lit() == []
    it.set(0, GREEN)
    assert strip.render(it, 10)
    assert np.lit() == [2, 3, 4, 5] and np.shown[2] == (0, 255, 0)
    for t in range(11, 2000, 7):  # nothing changes: no writes, no pixel sets
        assert not strip.render(it, t)
    assert np.writes == 2
    it.set(1, RED)
    assert strip.render(it, 2000)
    assert np.lit() == [2, 3, 4, 5, 8, 9, 10, 11] and np.shown[8] == (255, 0, 0)
    assert np.shown[2] == (0, 255, 0)
    assert np.writes == 3


def test_changes_counter_is_the_trigger(vb):
    from spit.intents import GREEN

    np, strip = make_strip(vb)
    it = FakeIntents()
    strip.render(it, 0)
    it.color[0] = GREEN  # mutated without bumping `changes`: contract says not re-read
    assert not strip.render(it, 5)
    it.changes += 1
    assert strip.render(it, 6) and np.lit() == [2, 3, 4, 5]


def test_blink_2hz_timing_and_writes(vb):
    from spit.intents import RED, BLINK

    np, strip = make_strip(vb)
    it = FakeIntents()
    strip.render(it, 0)
    base = np.writes
    it.set(3, RED, BLINK)
    start = 1000
    on = []
    for t in range(start, start + 1000):
        strip.render(it, t)
        on.append(bool(np.lit()))
    # Starts on at the moment of the change, 250 ms on / 250 ms off.
    assert all(on[0:250]) and not any(on[250:500]) and all(on[500:750]) and not any(on[750:1000])
    assert np.writes - base == 4  # one write per transition, none in between


def test_fast_blink_8hz(vb):
    from spit.intents import WHITE, FAST

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(3, WHITE, FAST)
    toggles = 0
    prev = None
    for t in range(0, 1000):
        strip.render(it, t)
        cur = bool(np.lit())
        if cur != prev:
            toggles += 1
            prev = cur
    assert toggles == 16  # 8 on + 8 off phases in one second
    assert np.writes == 16


def test_until_ms_expiry_turns_zone_off_then_idle(vb):
    from spit.intents import ORANGE

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(1, ORANGE, 0, until_ms=1500)
    strip.render(it, 1000)
    assert np.lit() == [8, 9, 10, 11]
    strip.render(it, 1499)
    assert np.lit() == [8, 9, 10, 11]
    strip.render(it, 1500)
    assert np.lit() == []
    w = np.writes
    for t in range(1501, 3000, 10):
        strip.render(it, t)
    assert np.writes == w


def test_countdown_bar_shrinks_until_expiry(vb):
    from spit.intents import CYAN, COUNTDOWN

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(0, CYAN, COUNTDOWN, until_ms=5000)
    seen = {}
    for t in range(4000, 5001, 50):
        strip.render(it, t)
        seen[t] = np.lit()
    assert seen[4000] == [2, 3, 4, 5]
    assert seen[4250] == [2, 3, 4]  # 750 of 1000 ms left -> 3 of 4 pixels
    assert seen[4500] == [2, 3]
    assert seen[4950] == [2]
    assert seen[5000] == []
    assert np.writes == 4 + 1  # initial + one per pixel going out (incl. the last)


def test_pulse_breathes_within_bounds_with_few_writes(vb):
    from spit.intents import PURPLE, PULSE

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(6, PURPLE, PULSE)
    reds = set()
    for t in range(0, 1600):
        strip.render(it, t)
        reds.add(np.shown[14][0])
    assert max(reds) == 160 and 0 < min(reds) < 40
    assert len(reds) == 16
    assert np.writes <= 32  # quantised: not one write per millisecond


def test_brightness_scales_palette_and_fill(vb):
    from spit.intents import WHITE, MAGENTA

    np, strip = make_strip(vb, brightness=64)
    it = FakeIntents()
    it.set(4, WHITE)
    strip.render(it, 0)
    assert np.shown[0] == (64, 64, 64)
    strip.fill(MAGENTA)
    assert len(np.lit()) == 16 and np.shown[15] == (64, 0, 40)
    strip.render(it, 5)  # fill forces a full redraw from the intents
    assert np.lit() == [0, 1]
    strip.off()
    assert np.lit() == []


def test_phase_restarts_when_a_zone_intent_changes(vb):
    from spit.intents import RED, GREEN, BLINK

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(0, RED, BLINK)
    strip.render(it, 0)
    strip.render(it, 300)
    assert np.lit() == []  # off phase
    it.set(0, GREEN, BLINK)
    strip.render(it, 310)
    assert np.lit() == [2, 3, 4, 5] and np.shown[2] == (0, 255, 0)


# ---------------------------------------------------------------- GpioLeds
def make_gpio(vb):
    from machine import Pin
    from drivers.gpio_leds import GpioLeds, _ANY as ANY
    from spit.intents import GREEN, RED

    pins = {n: Pin(n, Pin.OUT) for n in (16, 17, 18, 22)}
    zones = [[(GREEN, pins[16]), (RED, pins[17]), (ANY, pins[18])], [], [], [(ANY, pins[22])], [], [], []]
    return pins, GpioLeds(zones)


def test_gpio_leds_colour_pins_and_any_fallback(vb):
    from spit.intents import GREEN, RED, ORANGE, WHITE

    pins, leds = make_gpio(vb)
    it = FakeIntents()
    it.set(0, GREEN)
    it.set(3, WHITE)
    leds.render(it, 0)
    assert [pins[n].value() for n in (16, 17, 18, 22)] == [1, 0, 0, 1]
    it.set(0, RED)
    leds.render(it, 1)
    assert [pins[n].value() for n in (16, 17, 18)] == [0, 1, 0]
    it.set(0, ORANGE)  # no orange LED: the zone's "any" LED
    leds.render(it, 2)
    assert [pins[n].value() for n in (16, 17, 18)] == [0, 0, 1]


def test_gpio_leds_blink_and_writes_only_on_change(vb):
    from spit.intents import GREEN, BLINK

    pins, leds = make_gpio(vb)
    it = FakeIntents()
    it.set(0, GREEN, BLINK, until_ms=1000)
    states = []
    for t in range(0, 1200):
        leds.render(it, t)
        states.append(pins[16].value())
    assert states[0] == 1 and states[249] == 1 and states[250] == 0 and states[500] == 1
    assert states[999] == 0 and states[1000:] == [0] * 200
    assert leds.writes == 4  # on, off, on, off (the expiry at 1000 ms is already off)
    leds.fill(GREEN)
    assert pins[16].value() == 1 and pins[18].value() == 1 and pins[17].value() == 0
    leds.off()
    assert all(p.value() == 0 for p in pins.values())


# ---------------------------------------------------------------- Buzzer
def test_buzzer_plays_queue_without_blocking(vb):
    from machine import Pin, PWM
    from drivers.buzzer import Buzzer

    pwm = PWM(Pin(15))
    bz = Buzzer(pwm, volume=1000)
    assert not bz.update(0) and not pwm.sounding()
    bz.play(Buzzer.ILLEGAL)  # 330 Hz 120 ms, rest 40 ms, 330 Hz 120 ms
    timeline = []
    for t in range(0, 400, 10):
        bz.update(t)
        timeline.append(pwm.freq() if pwm.sounding() else 0)
    assert timeline[:12] == [330] * 12 and timeline[12:16] == [0] * 4 and timeline[16:28] == [330] * 12
    assert timeline[28:] == [0] * 12 and not bz.busy()


def test_buzzer_queue_full_and_stop(vb):
    from machine import Pin, PWM
    from drivers.buzzer import Buzzer

    pwm = PWM(Pin(15))
    bz = Buzzer(pwm)
    for _ in range(20):
        bz.tone(1000, 10)
    assert bz.dropped == 4
    bz.update(0)
    assert pwm.sounding()
    bz.stop()
    assert not pwm.sounding() and not bz.busy()
    bz.enabled = False
    assert not bz.tone(1000, 10)


def test_the_engine_intents_render_as_they_are(vb):
    """spit.intents' LedIntents (ids, the dirty mask) is what the strip draws, unchanged."""
    from spit import intents

    np, strip = make_strip(vb)
    li = intents.LedIntents()
    li.show(intents.ZONE_PILE1, intents.RED, intents.FAST, 2000)
    strip.render(li, 0)
    assert np.lit() == [8, 9, 10, 11] and np.shown[8] == (255, 0, 0)
    strip.render(li, 2000)
    assert np.lit() == []


def test_a_frame_changed_during_the_latch_gap_waits_for_the_next_render(vb):
    """A frame put before the previous one latched would be lost: render keeps it (pending)
    and the next render after the gap sends it, without waiting in between."""
    from spit.intents import GREEN, RED

    np, strip = make_strip(vb)
    it = FakeIntents()
    it.set(0, GREEN)
    assert strip.render(it, 0) and np.writes == 1
    it.set(1, RED)
    t = vb.clock.now_us
    assert not LedStripRender(strip, it, 0) and strip.pending   # 16 x 30 + 300 us not yet over
    assert vb.clock.now_us == t and np.writes == 1                # did not wait
    assert strip.render(it, 1) and not strip.pending
    assert np.lit() == [2, 3, 4, 5, 8, 9, 10, 11]


def LedStripRender(strip, intents, now_ms):
    from drivers.led_strip import LedStrip
    return LedStrip.render(strip, intents, now_ms)   # without moving the clock


# ---------------------------------------------------------------- PIO WS2812 program
def test_ws2812_pio_program_bit_timing(vb):
    """The PIO program's waveform: 10 cycles per bit at 8 MHz (1.25 us), a 0 is 0.375 us high,
    a 1 is 0.875 us high (WS2812B: T0H 0.4 +- 0.15 us, T1H 0.8 +- 0.15 us); the line rests low."""
    import rp2
    from drivers.ws2812_pio import ws2812_program, _SM_FREQ

    assert _SM_FREQ == 8_000_000
    opts = ws2812_program.options
    assert opts["autopull"] and opts["pull_thresh"] == 24 and opts["out_shiftdir"] == rp2.PIO.SHIFT_RIGHT
    assert opts["sideset_init"] == rp2.PIO.OUT_LOW
    ns = 1e9 / _SM_FREQ

    def runs(levels):
        out = []
        for lv in levels:
            if out and out[-1][0] == lv:
                out[-1][1] += 1
            else:
                out.append([lv, 1])
        return out

    for bits in ([0], [1], [1, 0, 1, 1, 0, 0], [0, 1] * 12):
        levels = rp2.run_bits(ws2812_program, bits)
        # The first 3 cycles are the low tail after the previous bit; then bit after bit.
        per_bit = levels[3:] + [0, 0]   # the rest cycle is the next tail's first
        assert len(per_bit) == 10 * len(bits)
        for i, b in enumerate(bits):
            cyc = per_bit[10 * i:10 * i + 10]
            high = runs(cyc)
            assert high[0][0] == 1 and len(high) == 2, cyc   # high, then low
            t_high = high[0][1] * ns
            assert (650 <= t_high <= 950) if b else (250 <= t_high <= 550), (bits, i, t_high)
        assert levels[-1] == 0   # waits with the line low (the latch gap)


def test_ws2812_pio_words_dma_and_latch(vb):
    """One word per pixel, G7..B0 least significant bit first (the machine shifts right), so
    every word is a small int; a DMA channel paced by the machine's TX DREQ feeds the FIFO;
    a frame waits for the previous frame's latch (n x 30 us + 300 us); no bitstream."""
    import machine
    from machine import Pin
    from rp2 import Ws2812View
    from drivers.ws2812_pio import Ws2812Pio
    from array import array

    calls = []
    machine.bitstream = lambda *a: calls.append(a)   # must never be used
    try:
        out = Ws2812Pio(Pin(28, Pin.OUT), 4)
        assert out.sm.active() and out.dma is not None
        red, green, blue = out.word(255, 0, 0), out.word(0, 255, 0), out.word(0, 0, 1)
        assert green == 0xFF and red == 0xFF00 and blue == 0x800000   # B0 is the last bit out
        assert max(out.word(255, 255, 255), red, green, blue) < 1 << 24
        from host_tools.vboard.pn532_wire import reverse_bits   # an independent reversal
        for v in range(256):
            rv = reverse_bits(v)
            assert out.word(v, 0, 0) == rv << 8 and out.word(0, v, 0) == rv and out.word(0, 0, v) == rv << 16
        assert out.word(0x12, 0x34, 0x56) == reverse_bits(0x56) << 16 | reverse_bits(0x12) << 8 | reverse_bits(0x34)
        assert out.dma.configs == 1 and out.sm.puts == 0   # target, count, control: set once
        t0 = vb.clock.now_us
        out.write(array("I", [red, green, blue, 0]))
        assert out.dma.configs == 2 and out.sm.puts == 1   # a frame: its read address + trigger
        assert Ws2812View(out.sm, 4).shown == [(255, 0, 0), (0, 255, 0), (0, 0, 1), (0, 0, 0)]
        assert vb.clock.now_us == t0 and not out.ready()   # the first frame goes at once
        out.write(array("I", [0, 0, blue, 0]))
        assert vb.clock.now_us - t0 == 4 * 30 + 300
        assert out.dma.configs == 3 and Ws2812View(out.sm, 4).shown == [(0, 0, 0), (0, 0, 0), (0, 0, 1), (0, 0, 0)]
    finally:
        del machine.bitstream
    assert calls == []


def test_due_ms_is_the_next_blink_edge_or_expiry(vb):
    """The strip says when it must be drawn again: an animated zone's next change, not every
    frame; a caller rendering only then shows every edge and the expiry."""
    from spit.intents import GREEN, ORANGE, BLINK
    from drivers.led_patterns import _NEVER_MS as NEVER_MS

    np, strip = make_strip(vb)
    it = FakeIntents()
    strip.render(it, 0)
    assert strip.due_ms == NEVER_MS          # nothing animated
    it.set(0, GREEN, until_ms=600)         # an accept: solid, off at 600
    strip.render(it, 10)
    assert strip.due_ms == 600
    it.set(1, ORANGE, BLINK, 2100)       # a late card: 2 Hz blink from 100, off at 2100
    strip.render(it, 100)
    assert strip.due_ms == 350                # its first edge (250 ms on)
    shown = []
    t = 100
    while strip.due_ms != NEVER_MS:
        t = strip.due_ms
        strip.render(it, t)
        shown.append((t, 8 in np.lit(), 2 in np.lit()))
    assert shown[0] == (350, False, True)
    assert (600, True, False) in shown       # the accept went out on time
    assert [x[0] for x in shown if x[0] > 600] == list(range(850, 2100, 250)) + [2100]
    assert shown[-1] == (2100, False, False) and np.lit() == []


def test_engine_intents_mark_the_zones_they_set(vb):
    """``LedIntents.dirty`` names the zones set since the renderer's last sync (which resets
    it): the tracker compares those only; an intents object without the mask gets every zone
    compared (FakeIntents above)."""
    from spit.intents import LedIntents, ALL_ZONES, RED, FAST
    from drivers.led_patterns import IntentTracker

    it = LedIntents()
    tr = IntentTracker()
    it.on_accept(1, 100)
    assert it.dirty == 1 << 1
    assert tr.sync(it, 100) == 1 << 1 and it.dirty == 0
    it.show(0, RED, FAST, 900)
    it.show(0, RED, FAST, 900)      # the same twice: one change
    it.show(2, 0, 0, -1)            # set, but to what it already was: no change
    assert it.dirty == 0b101
    assert tr.sync(it, 200) == 0b001
    assert tr.start[0] == 200 and tr.start[1] == 100
    it.clear()
    assert it.dirty == ALL_ZONES
    assert tr.sync(it, 300) == 0b011   # the zones that were lit go out
    np, strip = make_strip(vb)
    strip.render(it, 300)
    it.on_accept(0, 400)
    assert strip.render(it, 400) and np.lit() == [2, 3, 4, 5] and np.shown[2] == (0, 255, 0)
