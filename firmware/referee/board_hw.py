"""Build the machine objects of a validated board (see ``referee/board.py``).

This is the only place that constructs ``machine.Pin``/``SPI``/``I2C``/``PWM`` and
``neopixel.NeoPixel``; the drivers get them passed in.  Call with the dict returned by
``load_board()``.  Under the virtual board the same code builds the fakes.
"""

from micropython import const

# The input source ids (their layout: referee/sources.py, which the PC and the tests use; the
# board needs only these copies).
# generated from referee.sources by scripts/gen_consts.py: do not edit
_TOUCH0 = const(0)      # touch sensor of pile p: _TOUCH0 + p
_READER0 = const(4)     # PN532 IRQ line of pile p: _READER0 + p
_STUCK0 = const(8)      # STUCK button of player q: _STUCK0 + q
_SLAP0 = const(16)      # referee.sources _SLAP_BASE: slap pad of player q on pile p: _SLAP_BASE + 4 * q + p
_N_SOURCES = const(24)  # size for per-source tables (Debouncer)
# end generated

_SPI_POLARITY = const(0)  # PN532: SPI mode 0
_SPI_PHASE = const(0)


def _input_pin(spec):
    from machine import Pin

    pull = spec["pull"]
    if pull == "up":
        return Pin(spec["pin"], Pin.IN, Pin.PULL_UP)
    if pull == "down":
        return Pin(spec["pin"], Pin.IN, Pin.PULL_DOWN)
    return Pin(spec["pin"], Pin.IN)


def _specs(board):
    """``(source, spec, both_edges)`` of every touch sensor, STUCK button and slap pad (STUCK
    buttons report both edges: their releases carry ``referee.sources.RELEASE``)."""
    out = []
    for p in range(board["piles"]):
        t = board["touch"][p]
        if t is not None:
            out.append((_TOUCH0 + p, t, False))
    for q in range(2):
        pl = board["players"][q]
        out.append((_STUCK0 + q, pl["stuck"], True))
        for p in range(board["piles"]):
            s = pl["slap"][p]
            if s is not None:
                out.append((_SLAP0 + 4 * q + p, s, False))
    return out


def build_inputs(board, ring, reader_irqs=None):
    """EdgeInputs for every touch sensor, STUCK button, slap pad (and PN532 IRQ line).

    Keep the returned list alive for as long as the IRQs should fire.  Touch sensors and slap
    pads trigger on their active edge only; STUCK buttons on both edges (releases carry
    ``referee.sources.RELEASE``) for the long-press correction gesture.  ``reader_irqs``: the PN532
    IRQ lines are timestamped too, on their falling edge (``referee.sources.reader(pile)``): None (or
    True) for the board's IRQ pins made here, or the pins by pile (``build_nfc``'s, shared with
    the drivers), or False for none; the PN532 drivers then only read ``irq.value()`` and must not attach
    their own handler.
    """
    from machine import Pin
    from drivers.edge_input import EdgeInput

    out = []
    for source, spec, both in _specs(board):
        low = spec["active"] == "low"
        if both:
            trig = Pin.IRQ_FALLING | Pin.IRQ_RISING
        else:
            trig = Pin.IRQ_FALLING if low else Pin.IRQ_RISING
        out.append(EdgeInput(_input_pin(spec), source, ring, trig, active_low=low, mark_release=both))
    if reader_irqs is None or reader_irqs is True:
        reader_irqs = [Pin(r["irq"], Pin.IN, Pin.PULL_UP) for r in board["nfc"]["readers"]]
    for p, pin in enumerate(reader_irqs or ()):
        out.append(EdgeInput(pin, _READER0 + p, ring, Pin.IRQ_FALLING))
    return out


def build_debouncer(board, inputs=()):
    """A Debouncer with the board's windows (reader IRQ lines are clean: window 0) and, for
    the STUCK buttons and slap pads among ``inputs`` (from ``build_inputs``), the stable
    level they must hold (``stable_ms``; touch sensors report their first edge)."""
    from drivers.debouncer import Debouncer

    deb = Debouncer(_N_SOURCES, board["debounce_ms"] * 1000)
    for p in range(board["piles"]):
        deb.set_window(_READER0 + p, 0)
    stable = {}
    for source, spec, _ in _specs(board):
        if spec["debounce_ms"] is not None:
            deb.set_window(source, spec["debounce_ms"] * 1000)
        if spec.get("stable_ms"):
            stable[source] = spec["stable_ms"] * 1000
    for e in inputs:
        if e.source in stable:
            deb.set_stable(e.source, stable[e.source], e.is_active)
    return deb


def build_pn532(board, pile, bus, cs, irq):
    """The PN532 driver of ``pile`` on what ``build_nfc`` built: SPI with the board's CS
    set-up delay, I2C with its bus pins (for a bus clear); RSTPD_N pin when wired."""
    from machine import Pin

    nfc = board["nfc"]
    r = nfc["readers"][pile]
    reset = None if r["reset"] is None else Pin(r["reset"], Pin.OUT, value=1)
    if cs is not None:
        from drivers.pn532_spi import PN532_SPI
        pn = PN532_SPI(bus, cs, irq=irq, cs_setup_us=nfc["spi"]["cs_setup_us"], reset=reset)
    else:
        from drivers.pn532_i2c import PN532_I2C
        c = nfc["i2c"][r["i2c"]]
        pn = PN532_I2C(bus, irq=irq, addr=r["addr"], reset=reset,
                       bus_pins=(c["id"], Pin(c["scl"]), Pin(c["sda"]), c["freq"]))
    c = r.get("chip")   # the probe's answers (checked by spit flash); not a dict: the defaults
    if type(c) is dict:
        pn.wupa = c.get("list_uses_wupa")
        pn.coll = c.get("coll_readable")
    return pn


def build_nfc(board):
    """One ``(bus, cs_pin, irq_pin)`` per pile for the PN532 drivers.

    SPI: one shared ``machine.SPI`` (mode 0, MSB-first: the driver reverses bits), a CS pin
    per reader (output, idle high).  I2C: the reader's ``machine.I2C``, ``cs_pin`` None; the
    address is ``board["nfc"]["readers"][pile]["addr"]``.  IRQ pins: input with pull-up.
    """
    from machine import Pin

    nfc = board["nfc"]
    spi = nfc["bus"] == "spi"
    buses = []   # SPI: the one shared bus; I2C: by the reader's "i2c" index
    if spi:
        from machine import SPI

        c = nfc["spi"]
        buses.append(SPI(c["id"], baudrate=c["baudrate"], polarity=_SPI_POLARITY, phase=_SPI_PHASE,
                         bits=8, firstbit=SPI.MSB, sck=Pin(c["sck"]), mosi=Pin(c["mosi"]),
                         miso=Pin(c["miso"])))
    else:
        from machine import I2C

        for c in nfc["i2c"]:
            buses.append(I2C(c["id"], sda=Pin(c["sda"]), scl=Pin(c["scl"]), freq=c["freq"]))
    out = []
    for r in nfc["readers"]:
        cs = Pin(r["cs"], Pin.OUT, value=1) if spi else None
        out.append((buses[0 if spi else r["i2c"]], cs, Pin(r["irq"], Pin.IN, Pin.PULL_UP)))
    return out


def build_leds(board):
    """LedStrip (neopixel boards), GpioLeds (plain LED boards) or None."""
    leds = board["leds"]
    if leds is None:
        return None
    from machine import Pin

    if leds["type"] == "neopixel":
        # A WS2812 strip, sent by a PIO state machine (not neopixel/bitstream: no IRQ masking).
        from drivers.ws2812_pio import Ws2812Pio
        from drivers.led_strip import LedStrip

        strip = Ws2812Pio(Pin(leds["pin"], Pin.OUT), leds["count"])
        return LedStrip(strip, leds["zones"], brightness=leds["brightness"])
    from drivers.gpio_leds import GpioLeds

    zones = []
    for z in leds["zones"]:
        zones.append([(cid, Pin(g, Pin.OUT, value=0)) for cid, g in z])
    return GpioLeds(zones, active_high=leds["active_high"])


def build_buzzer(board):
    """Buzzer on a PWM pin, or None."""
    bz = board["buzzer"]
    if bz is None:
        return None
    from machine import Pin, PWM
    from drivers.buzzer import Buzzer

    return Buzzer(PWM(Pin(bz["pin"], Pin.OUT), freq=1000, duty_u16=0), volume=bz["volume"])


def status_led(board=None):
    """The board's status LED pin (default: the Pico's on-board LED, GPIO 25), as output."""
    from machine import Pin

    gpio = 25 if board is None or board.get("status_led") is None else board["status_led"]
    try:
        return Pin(gpio, Pin.OUT, value=0)
    except (ValueError, TypeError):  # e.g. Pico W, where the LED hangs off the radio chip
        return None


def loop_pin(board):
    """The board's optional ``loop_pin`` (high while a loop step runs), or None."""
    gpio = board.get("loop_pin")
    if gpio is None:
        return None
    from machine import Pin
    return Pin(gpio, Pin.OUT, value=0)
