"""The table around an emulated Pico, at the pins: PN532 readers, sensors, buttons, LEDs, buzzer.

Each part of a board file (``boards/*.json``) is modelled at the level the chip sees it:

* one ``PN532Emulator`` per pile (the same frame-level model the virtual board uses,
  ``host_tools/vboard/pn532_emulator.py``) behind its chip-select on the SPI bus: every byte
  the firmware clocks reaches it at its emulated time, and it pulls its IRQ pin low when a
  reply is ready (after its RF timing model: activation attempts, anticollision, ACK);
* touch sensors as clean edges (a capacitive sensor's output does not bounce), STUCK buttons
  and slap pads as edges with contact bounce;
* the WS2812 data pin decoded into frames with the emulated time each frame started;
* the buzzer pin's PWM as tone events.

Pulled-up inputs are driven high at start: the emulator does not model pad pull-ups.
Times here are emulated microseconds since the chip powered on (``now_us``).
"""

import json
import os
import time

from host_tools.vboard.pn532_emulator import PN532Emulator
from host_tools.vboard.runner import next_world_us

BOUNCE_US = (0, 150, 400, 550, 700)  # a contact bounces: edges until it settles (odd count)
US = 1000                            # ns per us


class _EmuClock:
    """The emulated chip's time, for the PN532 models (``now_us``)."""

    def __init__(self, emu):
        self.emu = emu

    @property
    def now_us(self):
        return self.emu.now_ns // US


class _IrqLine:
    """A PN532 IRQ output wired to a GPIO input of the emulated chip."""

    def __init__(self, emu, pin):
        self.emu = emu
        self.pin = pin
        self.level = None

    def drive(self, level):
        if level != self.level:
            self.level = level
            self.emu.gpio(self.pin, level)


def load_board_file(board):
    """A board definition: a name in boards/ or a path to a .json file, or a dict."""
    if isinstance(board, dict):
        return board
    from host_tools.rp2emu.emulator import REPO
    path = board if board.endswith(".json") else os.path.join(REPO, "boards", board + ".json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Rp2Table:
    """``faults``: wiring faults of the table, each what a builder's first board may have (tests of
    `spit doctor`; docs/hardware.md, bring-up):

    * ``missing_readers``: piles whose PN532 is absent: nothing answers on its CS (MISO reads 0xFF),
      its IRQ line stays high;
    * ``swapped_irqs``: True: the IRQ wires of readers 0 and 1 are swapped;
    * ``floating_cs``: piles whose CS line floats low (its pull-up missing, its wire off): that
      reader is selected whenever another one is, hears its commands and answers too (both drive
      MISO: the line reads the AND of the two);
    * ``stuck_pins``: GPIOs of buttons or pads held pressed (a stuck button or a short);
    * ``dark_strip``: True: the LED strip shows nothing (its data line cut: no frame arrives).
    """

    def __init__(self, emu, board, emulator=None, seed=1, faults=None):
        self.emu = emu
        faults = faults or {}
        self.faults = faults
        self.board = board = load_board_file(board)
        self.clock = _EmuClock(emu)
        self._agenda = []
        self._seq = 0
        self.frames = []                 # WS2812 frames: dicts with t_us, end_us, rgb bytes, masked
        self.tones = []                  # buzzer: (t_us, freq_hz, duty)
        self.flash_ops = []              # (t_us, op, bytes, us)
        self.masked = []                 # (t_us, us, cause): interrupts masked for > 20 us
        self.pin_edges = []              # (pin, level, t_us) of watched outputs
        self.input_edges = []            # (pin, level, t_us): every level change the table drove
        self._input_level = {}
        self.emulators = []
        nfc = board["nfc"]
        if nfc["bus"] != "spi":
            raise ValueError("the emulated table models PN532 readers on SPI only (board %s uses %s)"
                             % (board.get("name"), nfc["bus"]))
        self._cs = {}
        self._floating = []              # readers selected along with any other (faults)
        self._also = []
        readers = nfc["readers"]
        for p, r in enumerate(readers):
            opts = emulator[p] if isinstance(emulator, list) else (emulator or {})
            irq = r["irq"]
            if faults.get("swapped_irqs") and p < 2 and len(readers) >= 2:
                irq = readers[1 - p]["irq"]
            em = PN532Emulator(self.clock, irq=_IrqLine(emu, irq), seed=seed + p, **opts)
            self.emulators.append(em)
            em.irq.drive(1)
            if p in faults.get("missing_readers", ()):
                em.irq = None            # no chip: the line stays pulled up, nobody answers
                self._cs[r["cs"]] = None
            else:
                self._cs[r["cs"]] = em
            if p in faults.get("floating_cs", ()):
                self._floating.append(em)
                emu.gpio(r["cs"], 1)
                continue
            emu.gpio(r["cs"], 1)         # CS pull-up (docs/hardware.md) until the firmware drives it
        emu.attach_spi(nfc["spi"]["id"], list(self._cs), self._spi_byte)
        emu.next_stop_ns = self._next_device_ns
        self._selected = None
        emu.on_pin = self._pin
        self._stuck = dict((spec["pin"], self._level(spec, True)) for spec in self._inputs()
                           if spec["pin"] in faults.get("stuck_pins", ()))
        for spec in self._inputs():
            self._release(spec)
        leds = board.get("leds")
        if leds and leds.get("type") == "neopixel" and not faults.get("dark_strip"):
            emu.decode_ws2812(leds["pin"])
            emu.on_ws2812 = self._frame
        buzzer = board.get("buzzer")
        if buzzer:
            emu.watch_pwm(buzzer["pin"])
            emu.on_pwm = lambda ev: self.tones.append((ev["t"] // US, ev["freq"], ev["duty"]))
        emu.on_flash = lambda ev: self.flash_ops.append((ev["t"] // US, ev["op"], ev["len"], ev["ns"] // US))
        emu.on_reset = lambda ev: self.at(self.now_us, self._after_reset)
        emu.on_mask = lambda ev: self.masked.append((ev["t"] // US, ev["ns"] / 1000.0, ev["cause"]))

    # ---- pins ---------------------------------------------------------------------------------
    def _inputs(self):
        b = self.board
        out = [t for t in b.get("touch", []) if t]
        for pl in b.get("players", []):
            out.append(self._spec(pl.get("stuck")))
            for s in pl.get("slap", []):
                out.append(self._spec(s))
        return [s for s in out if s is not None]

    @staticmethod
    def _spec(x):
        if x is None:
            return None
        if isinstance(x, int):
            return {"pin": x, "active": "low", "pull": "up"}
        return x

    def _level(self, spec, active):
        low = spec.get("active", "low") == "low"
        return (0 if low else 1) if active else (1 if low else 0)

    def _release(self, spec):
        self.set_input(spec["pin"], self._level(spec, False))

    def _after_reset(self):
        """The chip restarted (a watchdog or ``machine.reset()``, e.g. at the end of `spit flash`):
        its GPIO inputs read 0 again, but the table's lines keep their levels (pull-ups, buttons
        not pressed, the readers' IRQ and CS pull-ups): drive them again."""
        for pin, level in self._input_level.items():
            self.emu.gpio(pin, level)
        for cs in self._cs:
            self.emu.gpio(cs, 1)
        for em in self.emulators:
            if em.irq is not None:
                level = em.irq.level
                em.irq.level = None
                em.irq.drive(1 if level is None else level)

    def set_input(self, pin, level):
        """Drive GPIO input ``pin`` now (edges are recorded in ``input_edges``)."""
        level = self._stuck.get(pin, level)
        if self._input_level.get(pin) != level:
            self._input_level[pin] = level
            self.input_edges.append((pin, level, self.now_us))
            self.emu.gpio(pin, level)

    def _pin(self, pin, level, t_ns):
        em = self._cs.get(pin)
        if em is None:
            self.pin_edges.append((pin, level, t_ns // US))
            return
        if level == 0:
            self._selected = em
            em.spi_select()
            self._also = [f for f in self._floating if f is not em]
            for f in self._also:
                f.spi_select()
        elif em is self._selected:
            em.spi_deselect()
            self._selected = None
            for f in self._also:
                f.spi_deselect()
            self._also = []

    def _spi_byte(self, tx, t_ns):
        em = self._selected
        if em is None:
            return 0xFF
        rx = em.spi_exchange(tx)
        for f in self._also:             # a floating CS: that reader drives MISO too
            rx &= f.spi_exchange(tx)
        return rx

    def _next_device_ns(self):
        times = [e for e in (em.next_event_us() for em in self.emulators) if e is not None]
        return min(times) * US if times else None

    def _frame(self, ev):
        self.frames.append({"t_us": ev["t"] // US, "end_us": ev["end"] // US, "rgb": bytes.fromhex(ev["rgb"]),
                            "masked": ev["masked"]})

    # ---- time -------------------------------------------------------------------------------
    @property
    def now_us(self):
        return self.emu.now_ns // US

    def at(self, t_us, fn):
        """Run ``fn()`` at emulated time ``t_us`` (while ``run_until`` runs the chip)."""
        self._seq += 1
        item = (t_us, self._seq, fn)
        agenda = self._agenda
        i = len(agenda)
        while i > 0 and agenda[i - 1][:2] > item[:2]:
            i -= 1
        agenda.insert(i, item)

    def run_until(self, t_us, wall_ms=None):
        """Run the chip to ``t_us``, applying the world's actions and the readers' replies on
        time (or for at most ``wall_ms`` of wall time: `spit emu` follows the wall clock)."""
        deadline = time.monotonic() + wall_ms / 1000.0 if wall_ms else None
        while True:
            nxt = next_world_us(self._agenda, self.emulators, t_us)
            if nxt > self.now_us:
                left = None
                if deadline is not None:
                    left = max(1, int((deadline - time.monotonic()) * 1000))
                self.emu.run_until(nxt * US, wall_ms=left)
            for em in self.emulators:
                em.update()
            while self._agenda and self._agenda[0][0] <= self.now_us:
                self._agenda.pop(0)[2]()
            if self.now_us >= t_us or (deadline is not None and time.monotonic() >= deadline):
                return

    def run_until_ns(self, t_ns, wall_ms=None):
        """``run_until`` in nanoseconds (the runner `SerialPty` takes)."""
        self.run_until(-(-t_ns // US), wall_ms)

    # ---- the world ---------------------------------------------------------------------------
    def drive(self, spec, active, at_us, bounce=False):
        """The input ``spec`` (a board entry) goes active/inactive at ``at_us``; a mechanical
        contact bounces for about 0.7 ms before it settles."""
        final = self._level(spec, active)
        if bounce:
            for i, dt in enumerate(BOUNCE_US):
                level = final if i % 2 == 0 else 1 - final
                self.at(at_us + dt, lambda v=level: self.set_input(spec["pin"], v))
        else:
            self.at(at_us, lambda: self.set_input(spec["pin"], final))

    def touch(self, pile, at_us, touch_us=2000):
        spec = self.board.get("touch", [None] * (pile + 1))[pile]
        if spec is None:
            return
        self.drive(spec, True, at_us)
        self.drive(spec, False, at_us + touch_us)

    def land_card(self, pile, uid, at_us, touch=True, tag_delay_us=0, touch_us=2000):
        """A card lands: the touch sensor's edge at ``at_us``, its tag in the field
        ``tag_delay_us`` later."""
        if touch:
            self.touch(pile, at_us, touch_us)
        em = self.emulators[pile]
        self.at(at_us + tag_delay_us, lambda: em.place_tag(uid))

    def lift_card(self, pile, uid, at_us):
        em = self.emulators[pile]
        self.at(at_us, lambda: em.remove_tag(uid))

    def press(self, player, what, at_us, hold_us=100000):
        """Press and release ``"stuck"`` or ``("slap", pile)`` (with contact bounce)."""
        pl = self.board["players"][player]
        spec = self._spec(pl["stuck"] if what == "stuck" else pl["slap"][what[1]])
        if spec is None:
            raise ValueError("player %d has no %r" % (player, what))
        self.drive(spec, True, at_us, bounce=True)
        self.drive(spec, False, at_us + hold_us, bounce=True)

    # ---- observation --------------------------------------------------------------------------
    def zone_colours(self, rgb):
        """``{zone: colour name}`` shown by one frame's pixels ("off" = dark)."""
        from host_tools.rp2emu.leds import zone_colours
        return zone_colours(self.board, rgb)
