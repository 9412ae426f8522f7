"""`spit doctor`'s device side: the bring-up checklist of docs/hardware.md, run on the board.

A bring-up script, not installed by ``spit flash`` (it costs the board no flash): ``spit doctor``
sends it with ``mpremote run`` followed by ``run()``.  Everything the people do happens at the
table: they place a card, press the button a prompt names, and answer "is it lit / did you hear
it" with a STUCK button (yes) or a slap pad (no).  Prompts are lines starting ``>> ``; each result
is one JSON line ``{"doctor": STEP, "result": "pass" | "fail" | "skip", "what": ..., "detail": ...,
"cause": ...}``, which the PC turns into the report.  The last line is ``{"doctor": "done"}``.

Steps: the readers (each one's firmware version, which IRQ line falls when it is addressed, and
whether another reader answers too), a card on pile 0 (its UID, the read time after the touch
sensor's edge), every STUCK button and slap pad (found idle first, then pressed on request,
its contact bounce counted), a card on each pile (its touch edge against its read, its reader's
first-contact probe) and cards added to pile 0 one by one (the read time as the pile grows):
``referee/doctor_pile.py``, every LED zone lit white in turn and confirmed, the buzzer.
"""

import json
import time

from micropython import const

from machine import Pin

from drivers.pn532 import PARAMS, RX
from referee import board_hw
from referee.boardfile import load as load_board

# generated from spit.intents by scripts/gen_consts.py: do not edit
_N_ZONES = const(7)
_OFF = const(0)
_WHITE = const(6)  # spit / spit call
_SOLID = const(0)
# end generated
_ZONES = ("PILE0", "PILE1", "PILE2", "SPIT", "PLAYER0", "PLAYER1", "RESULT")
_WIRING = "docs/hardware.md, Wiring of the default board"
_ANSWER_MS = 20000      # how long a person has to act on a prompt
_CARD_MS = 30000
_GET_FIRMWARE_VERSION = 0x02   # PN532 user manual (UM0701) 7.2.2


def say(step, result, what, detail="", cause="", data=None):
    obj = {"doctor": step, "result": result, "what": what, "detail": detail, "cause": cause}
    if data is not None:
        obj["data"] = data
    print(json.dumps(obj))


def prompt(text):
    print(">> " + text)


def _active(spec, level):
    return level == (0 if spec["active"] == "low" else 1)


class Inputs:
    """Every button and pad of the board: ``(name, spec, pin)``; edges stamped by soft IRQs."""

    def __init__(self, board):
        self.items = []
        for q in range(2):
            pl = board["players"][q]
            self.items.append(("player %d's STUCK" % q, pl["stuck"], q))
            for p in range(board["piles"]):
                if pl["slap"][p] is not None:
                    self.items.append(("player %d's pad of pile %d" % (q, p), pl["slap"][p], q))
        self.pins = {}
        for name, spec, _q in self.items:
            self.pins[name] = board_hw._input_pin(spec)
        self.edges = []
        self.stuck = []

    def level_active(self, name):
        spec = [s for n, s, _ in self.items if n == name][0]
        return _active(spec, self.pins[name].value())

    def watch(self, names):
        """Stamp every edge of ``names`` (ticks_us) into ``edges`` as (name, level, t)."""
        self.edges = []
        for name in names:
            pin = self.pins[name]
            pin.irq(lambda p, n=name: self.edges.append((n, p.value(), time.ticks_us())),
                    Pin.IRQ_FALLING | Pin.IRQ_RISING)

    def unwatch(self):
        for name in self.pins:
            self.pins[name].irq(None)


def check_readers(board):
    """Each reader: its version (read by polling, without its IRQ) and which IRQ lines fall."""
    nfc = board["nfc"]
    readers = nfc["readers"]
    built = board_hw.build_nfc(board)
    irqs = [b[2] for b in built]
    found = []
    moved = {}          # reader -> the other piles' IRQ lines that fell for it
    # Quiet first: the referee was running, a reader may hold a reply (its IRQ low) that would
    # look like an answer now.  An ACK frame from the host cancels what a chip was doing.
    for p in range(len(readers)):
        bus, cs, _irq = built[p]
        pn = board_hw.build_pn532(board, p, bus, cs, None)
        try:
            pn.wake()
            pn.abort()
        except Exception:  # noqa: BLE001 - an absent reader: found below
            pass
    time.sleep_ms(10)
    for p in range(len(readers)):
        bus, cs, _irq = built[p]
        pn = board_hw.build_pn532(board, p, bus, cs, None)
        where = "pile %d (CS GPIO %s, IRQ GPIO %d)" % (p, readers[p].get("cs", readers[p].get("addr")), readers[p]["irq"])
        fell = []
        low = [q for q in range(len(irqs)) if irqs[q].value() == 0]   # low before we asked: not an answer
        version = None
        error = ""
        try:
            pn.pending = 0
            pn.awaiting_ack = False
            pn.wake()
            pn._send(_GET_FIRMWARE_VERSION, PARAMS, 0)   # sent, nothing read yet
            t0 = time.ticks_ms()
            while time.ticks_diff(time.ticks_ms(), t0) < 30:
                for q in range(len(irqs)):
                    if irqs[q].value() == 0 and q not in fell and q not in low:
                        fell.append(q)
                time.sleep_us(200)
            pn._wait_ready(200)
            if pn._finish(_GET_FIRMWARE_VERSION) < 4:
                raise ValueError("short firmware version")
            version = (RX[7], RX[8], RX[9])
        except Exception as e:  # noqa: BLE001 - every failure is a finding
            error = "%s: %s" % (type(e).__name__, e)
        others = [q for q in fell if q != p]
        if others and p in fell:
            for q in others:
                say("cs", "fail", "reader %d answers when reader %d is addressed" % (q, p),
                    "its IRQ fell while only pile %d's CS was low" % p,
                    "pile %d's CS line floats: the pull-up (10 kOhm to 3.3 V) is missing or its CS wire is off (%s, "
                    "row PN532 pile %d CS)" % (q, _WIRING, q))
        if version is not None and not error and not others:
            ic, ver, rev = version[0], version[1], version[2]
            if p in fell:
                say("reader", "pass", "reader %d" % p, "PN532 IC 0x%02X firmware %d.%d, IRQ on GPIO %d"
                    % (ic, ver, rev, readers[p]["irq"]))
                found.append(p)
            else:
                say("reader", "fail", "reader %d" % p, "answers (firmware %d.%d) but its IRQ never fell" % (ver, rev),
                    "the IRQ wire of %s (%s, row PN532 pile %d IRQ)" % (where, _WIRING, p))
        elif others and p not in fell:
            moved[p] = others
        elif version is None and not fell:
            say("reader", "fail", "reader %d" % p, "no answer (%s)" % (error or "timeout"),
                "%s: check its CS wire, SCK/MOSI/MISO, 3.3 V and GND, the mode switches set to SPI "
                "(%s, row PN532 pile %d)" % (where, _WIRING, p))
        elif p in fell and others:
            pass    # said above (cs)
        else:
            say("reader", "fail", "reader %d" % p, error or "unexpected answer", "%s (%s)" % (where, _WIRING))
    for p in sorted(moved):
        qs = moved[p]
        if len(qs) == 1 and moved.get(qs[0]) == [p]:
            if p < qs[0]:
                say("irq", "fail", "IRQ lines of readers %d and %d" % (p, qs[0]),
                    "each reader's reply pulls the other's IRQ line (GPIO %d and %d)"
                    % (readers[p]["irq"], readers[qs[0]]["irq"]),
                    "the two IRQ wires are swapped (%s, rows PN532 IRQ)" % _WIRING)
            continue
        say("irq", "fail", "reader %d's IRQ arrives on pile %s's line" % (p, "/".join(str(q) for q in qs)),
            "GPIO %s fell when reader %d was addressed, its own GPIO %d did not"
            % ("/".join(str(readers[q]["irq"]) for q in qs), p, readers[p]["irq"]),
            "the IRQ wires are crossed (%s, rows PN532 IRQ)" % _WIRING)
    return found


def check_card(board, inputs):
    """A card on pile 0: its UID, and the time from the touch sensor's edge to the read."""
    if not board["nfc"]["readers"]:
        return
    bus, cs, irq = board_hw.build_nfc(board)[0]
    pn = board_hw.build_pn532(board, 0, bus, cs, irq)
    try:
        pn.setup()
    except Exception as e:  # noqa: BLE001
        say("card", "skip", "card on pile 0", "reader 0 cannot be set up (%s)" % e, "see the reader step")
        return
    touch = board["touch"][0] if board["touch"] else None
    stamp = []
    tpin = None
    if touch is not None:
        tpin = board_hw._input_pin(touch)
        tpin.irq(lambda p: stamp.append(time.ticks_us()) if _active(touch, p.value()) and not stamp else None,
                 Pin.IRQ_FALLING | Pin.IRQ_RISING)
    prompt("place a card on pile 0 now")
    buf = bytearray(10)
    t0 = time.ticks_ms()
    n = 0
    while time.ticks_diff(time.ticks_ms(), t0) < _CARD_MS:
        try:
            n = pn.read_uid(buf, 200)
        except Exception:  # noqa: BLE001 - try again
            n = 0
        if n:
            break
    done = time.ticks_us()
    if tpin is not None:
        tpin.irq(None)
    if not n:
        say("card", "skip", "card on pile 0", "no card was read within %d s" % (_CARD_MS // 1000),
            "none placed, or the tag is out of range: see docs/hardware.md step 7 (tag range)")
        return
    uid = "".join("%02X" % buf[i] for i in range(n))
    if touch is None:
        say("card", "pass", "card on pile 0", "UID %s (this board has no touch sensor)" % uid)
    elif not stamp:
        say("touch", "fail", "touch sensor of pile 0", "card %s read, but the sensor gave no edge" % uid,
            "the sensor's output wire (GPIO %d) or its power (%s, row touch pile 0)" % (touch["pin"], _WIRING))
    else:
        ms = time.ticks_diff(done, stamp[0]) / 1000
        say("card", "pass", "card on pile 0", "UID %s read %.1f ms after the touch sensor's edge" % (uid, ms))
    prompt("take the card off pile 0")
    time.sleep_ms(1500)


def check_buttons(board, inputs):
    """Idle first (a button held or shorted reads pressed), then each pressed on request."""
    for name, spec, _q in inputs.items:
        if inputs.level_active(name):
            inputs.stuck.append(name)
            say("button", "fail", name, "reads pressed before anyone touched it (GPIO %d)" % spec["pin"],
                "a stuck button or a short to %s (%s, row %s)" % ("GND" if spec["active"] == "low" else "3.3 V",
                                                                   _WIRING, name))
    for name, spec, _q in inputs.items:
        if name in inputs.stuck:
            continue
        inputs.watch([name])
        prompt("press %s now" % name)
        t0 = time.ticks_ms()
        while not inputs.edges and time.ticks_diff(time.ticks_ms(), t0) < _ANSWER_MS:
            time.sleep_ms(5)
        time.sleep_ms(400)                   # the press, its bounce and the release
        edges = list(inputs.edges)
        inputs.unwatch()
        if not edges:
            say("button", "fail", name, "no press seen on GPIO %d in %d s" % (spec["pin"], _ANSWER_MS // 1000),
                "its wire or the GND return (%s, row %s)" % (_WIRING, name))
            continue
        first = edges[0][2]
        press = [e for e in edges if time.ticks_diff(e[2], first) < 20000]
        bounce = max(0, len(press) - 1)
        span = time.ticks_diff(press[-1][2], first)
        say("button", "pass", name, "pressed; %d bounce edge%s over %d us%s" % (
            bounce, "" if bounce == 1 else "s", span, "" if span < board.get("debounce_ms", 20) * 1000 else
            " (longer than debounce_ms: raise it)"))


def ask(inputs, question):
    """A yes/no answer from the table: a STUCK button = yes, a slap pad = no; None if nobody answers."""
    names = [n for n, _s, _q in inputs.items if n not in inputs.stuck]
    inputs.watch(names)
    prompt(question + " (a STUCK button = yes, a slap pad = no)")
    t0 = time.ticks_ms()
    answer = None
    while answer is None and time.ticks_diff(time.ticks_ms(), t0) < _ANSWER_MS:
        if inputs.edges:
            answer = "STUCK" in inputs.edges[0][0]
        time.sleep_ms(5)
    time.sleep_ms(300)
    inputs.unwatch()
    return answer


def check_leds(board, inputs):
    leds = board_hw.build_leds(board)
    if leds is None:
        say("leds", "skip", "LEDs", "this board has none")
        return

    class One:
        color = [_OFF] * _N_ZONES
        pattern = [_SOLID] * _N_ZONES
        until_ms = [-1] * _N_ZONES
        changes = 0

    answers = []
    for z in range(_N_ZONES):
        if board["leds"]["type"] == "neopixel" and not board["leds"]["zones"][z]:
            continue
        One.color = [_WHITE if k == z else _OFF for k in range(_N_ZONES)]
        One.changes += 1
        leds.render(One, 0)
        yes = ask(inputs, "is zone %s lit white, and nothing else?" % _ZONES[z])
        answers.append((_ZONES[z], yes))
    seen = [a for a in answers if a[1] is not None]
    if seen and not [a for a in seen if a[1]]:
        say("leds", "fail", "LED strip", "no zone was seen lit (%d asked)" % len(seen),
            "the strip shows nothing: its data wire (GPIO %s), the 330 Ohm resistor, 5 V and a common GND "
            "(docs/hardware.md, Wiring; LED legend)" % board["leds"].get("pin"))
    else:
        for zone, yes in answers:
            if yes is None:
                say("leds", "skip", "zone %s" % zone, "nobody answered")
            elif yes:
                say("leds", "pass", "zone %s" % zone, "lit and confirmed")
            else:
                say("leds", "fail", "zone %s" % zone, "not seen lit",
                    "the zone's pixels in the board file (leds.zones) or a broken strip segment before them")
    One.color = [_OFF] * _N_ZONES
    One.changes += 1
    leds.render(One, 0)


def check_buzzer(board, inputs):
    bz = board_hw.build_buzzer(board)
    if bz is None:
        say("buzzer", "skip", "buzzer", "this board has none")
        return
    bz.play(bz.READY)
    t0 = time.ticks_ms()
    while bz.update(time.ticks_diff(time.ticks_ms(), t0)):
        time.sleep_ms(1)
    yes = ask(inputs, "did you hear a rising chirp?")
    if yes is None:
        say("buzzer", "skip", "buzzer", "nobody answered")
    elif yes:
        say("buzzer", "pass", "buzzer", "heard")
    else:
        say("buzzer", "fail", "buzzer", "not heard", "the piezo on GPIO %d and GND, buzzer.volume in the board file"
            % board["buzzer"]["pin"])


def run(steps="readers,buttons,card,touch,probe,range,leds,buzzer", cards=8, probe_src=None):
    """The checks ``steps`` names; ``cards``: how many the range step asks for; ``probe_src``: the
    text of referee/nfc_probe.py (``spit doctor`` sends it)."""
    board = load_board("board.json", "board.json")
    print("spit doctor: board %s, %d piles" % (board.get("name", "?"), board["piles"]))
    inputs = Inputs(board)
    if "readers" in steps:
        check_readers(board)
    if "buttons" in steps:
        check_buttons(board, inputs)
    if "card" in steps:
        check_card(board, inputs)
    if "touch" in steps or "probe" in steps:
        check_piles(board, steps, probe_src, inputs)
    if "range" in steps:
        check_range(board, inputs, cards)
    if "leds" in steps:
        check_leds(board, inputs)
    if "buzzer" in steps:
        check_buzzer(board, inputs)
    print(json.dumps({"doctor": "done"}))


try:   # the PC's checks; on the board spit doctor sends doctor_pile.py's text after this one
    from referee.doctor_pile import check_piles, check_range
except ImportError:
    pass
