"""`spit doctor`'s pile checks, sent with ``referee/doctor.py`` (not installed either).

``spit doctor`` sends the text of ``doctor.py``, then this one, then ``run(...)``: on the board
the names below come from the same script (the imports only serve the PC's checks).  The PN532
probe (``referee/nfc_probe.py``) comes as its source text, ``_NFC_PROBE``, run here in a
namespace of its own.

* ``touch`` / ``probe``: a card on each pile in turn.  ``touch``: the touch sensor's edge against
  the card's read, ``dt`` = read - edge, passes when the edge comes first and ``dt`` <=
  ``touch_match_us`` (ruleset.json; docs/rules.md R-PLAY-5: a read later than that is not
  matched to its touch and the referee logs ``no_read``).  ``probe``: the first-contact probe of
  that pile's reader with the card on it (its answers and GO / NO-GO); unless NO-GO, the answers
  go into the board's ``board.json`` (that reader's ``chip``, ``nfc_probe.save_answers``), where
  the referee's reader takes them when it starts again.
* ``range``: cards added to pile 0 one at a time (up to ``cards``; a STUCK button ends it), each
  read as the referee reads a pile (its own REQA scan: the cards below are halted and silent),
  its read time after its touch edge; pass when every card is read once, each within
  ``touch_match_us``.  The points go to the PC, which keeps the curve.
"""

import time

from machine import Pin

from drivers import tag_scan
from referee import board_hw

try:   # the PC's checks; on the board doctor.py's text comes first and defines them
    from referee.doctor import _WIRING, Inputs, _active, prompt, say  # noqa: F401
except ImportError:
    pass

_READ_MS = 30000        # waiting for a card nobody has touched the table with yet
_AFTER_TOUCH_MS = 2000  # waiting for the read once the touch sensor fired
_REPLY_MS = 200
_TOUCH_MATCH_US = 120000   # docs/rules.md, touch_match_us's default: when ruleset.json has none


def touch_match_us():
    """(limit, where it comes from): the board's ruleset's ``touch_match_us``."""
    try:
        from referee.boardfile import load_ruleset
        return load_ruleset("ruleset.json").touch_match_us, "ruleset.json touch_match_us, docs/rules.md R-PLAY-5"
    except Exception:  # noqa: BLE001 - no ruleset on the board: the default
        return _TOUCH_MATCH_US, "touch_match_us's default (no ruleset.json), docs/rules.md R-PLAY-5"


def _reader(board, p):
    """Pile ``p``'s PN532, set up, or None (said)."""
    bus, cs, irq = board_hw.build_nfc(board)[p]
    pn = board_hw.build_pn532(board, p, bus, cs, irq)
    try:
        pn.setup()
    except Exception as e:  # noqa: BLE001
        return None, "reader %d cannot be set up (%s: %s)" % (p, type(e).__name__, e)
    return pn, ""


class Touches:
    """Pile ``p``'s touch sensor: the ticks_us of each active edge (none if it has no sensor)."""

    def __init__(self, board, p):
        t = board["touch"]
        self.spec = t[p] if t and p < len(t) else None
        self.stamps = []
        self.pin = None
        if self.spec is not None:
            spec = self.spec
            self.pin = board_hw._input_pin(spec)
            self.pin.irq(lambda pin: self.stamps.append(time.ticks_us()) if _active(spec, pin.value()) else None,
                         Pin.IRQ_FALLING | Pin.IRQ_RISING)

    def close(self):
        if self.pin is not None:
            self.pin.irq(None)


def _wait(pn, scan):
    """The scan's reply; False (the scan stopped, the chip aborted) if none comes."""
    t = time.ticks_ms()
    while not pn.reply_ready():
        if time.ticks_diff(time.ticks_ms(), t) > _REPLY_MS:
            scan.stop()
            pn.abort()
            scan.invalidate()
            return False
    return True


def read_new(pn, scan, seen, touches, since, done=None):
    """Scan until a card not in ``seen`` answers: ``(uid hex, ticks_us)``, or ``(None, why)``:
    "done" (``done()`` said so), "timeout" (no read ``_AFTER_TOUCH_MS`` after a touch edge, or
    ``_READ_MS`` without one), or the reader's failure."""
    t0 = time.ticks_ms()
    while True:
        scan.start()
        while True:
            if not _wait(pn, scan):
                return None, "reader gave no reply in %d ms" % _REPLY_MS
            r = scan.step()
            if r == tag_scan.FOUND:
                at = time.ticks_us()
                uid = "".join("%02X" % scan.uid[i] for i in range(scan.uid_len))
                if uid not in seen:
                    seen.append(uid)
                    while _wait(pn, scan) and scan.step() != tag_scan.QUIET:   # its HLTA, the scan's end
                        pass
                    return uid, at
            elif r == tag_scan.QUIET:
                break
        edges = [s for s in touches.stamps if time.ticks_diff(s, since) >= 0]
        if edges and time.ticks_diff(time.ticks_us(), edges[0]) > _AFTER_TOUCH_MS * 1000:
            return None, "timeout"
        if time.ticks_diff(time.ticks_ms(), t0) > _READ_MS:
            return None, "timeout"
        if done is not None and done():
            return None, "done"


def _edge_before(touches, since, at):
    """The first touch edge after ``since``: its dt to the read ``at`` (us), or None."""
    edges = [s for s in touches.stamps if time.ticks_diff(s, since) >= 0]
    return time.ticks_diff(at, edges[0]) if edges else None


def check_piles(board, steps, probe_src=None, inputs=None):
    """A card on each pile: its touch edge against its read (``touch``), its reader's probe
    (``probe``), then a second card on it for the probe's two-card questions (``inputs``: a
    STUCK button skips that card)."""
    limit, source = touch_match_us()
    readers = board["nfc"]["readers"]
    for p in range(board["piles"]):
        touches = Touches(board, p)
        if "touch" in steps and touches.spec is None:
            say("touch", "skip", "touch sensor of pile %d" % p, "this board has none (boards/%s.json: touch)"
                % board.get("name", "?"))
            if "probe" not in steps:
                continue            # nothing else to check with a card on this pile
        pn, why = _reader(board, p) if p < len(readers) else (None, "no reader")
        if pn is None:
            for step in ("touch", "probe"):
                if step in steps and (step == "probe" or touches.spec is not None):
                    say(step, "skip", "%s of pile %d" % ("touch sensor" if step == "touch" else "reader probe", p),
                        why, "see the reader step")
            touches.close()
            continue
        scan = tag_scan.TagScan(pn)
        prompt("place a card on pile %d now" % p)
        since = time.ticks_us()
        uid, at = read_new(pn, scan, [], touches, since)
        touches.close()
        if "touch" in steps and touches.spec is not None:
            _say_touch(p, touches, uid, at, since, limit, source)
        if "probe" in steps:
            if uid is None:
                say("probe", "skip", "reader %d probe" % p, "no card was read on pile %d" % p,
                    "docs/hardware.md, bring-up step 7 (tag range)")
            elif run_probe(pn, p, probe_src) in ("GO", "GO (limited)"):
                second_card_probe(board, pn, p, probe_src, uid, inputs)
        prompt("take the cards off pile %d" % p)
        time.sleep_ms(1500)


def second_card_probe(board, pn, p, probe_src, uid, inputs):
    """The probe's two-card questions (which status a collision gives, whether CIU_Coll says
    where, which card the chip's listing returns first): a second card on pile ``p``, on the
    first (``uid``), then the probe with both.  Skipped by a STUCK button or no card."""
    what = "reader %d probe, two cards" % p
    names = [n for n, _s, _q in inputs.items if "STUCK" in n and n not in inputs.stuck] if inputs else []
    if inputs is not None:
        inputs.watch(names)
        inputs.edges = []
    prompt("put a second card on pile %d, on the first (a STUCK button to skip)" % p)
    touches = Touches(board, p)
    uid2, why = read_new(pn, tag_scan.TagScan(pn), [uid], touches, time.ticks_us(),
                         (lambda: bool(inputs.edges)) if inputs is not None else None)
    touches.close()
    if inputs is not None:
        inputs.unwatch()
    if uid2 is None:
        say("probe", "skip", what, "no second card (%s): collision_status, coll_readable and list_order stay "
            "unanswered; the reader keeps its safe defaults for them" % why)
        return
    run_probe(pn, p, probe_src, 2)


def _say_touch(p, touches, uid, at, since, limit, source):
    what = "touch sensor of pile %d" % p
    row = "(%s, row touch sensor pile %d)" % (_WIRING, p)
    if uid is None:
        if _edge_before(touches, since, time.ticks_us()) is not None:
            say("touch", "fail", what, "the sensor fired but no card was read (%s)" % at,
                "reader %d or the tag's range through the table top (docs/hardware.md, bring-up step 7)" % p)
        else:
            say("touch", "skip", what, "no card was placed (%s)" % at)
        return
    dt = _edge_before(touches, since, at)
    data = {"pile": p, "uid": uid, "dt_us": dt, "limit_us": limit, "limit_source": source}
    if dt is None:
        say("touch", "fail", what, "card %s read, but the sensor gave no edge" % uid,
            "the sensor's output wire (GPIO %d) or its power %s" % (touches.spec["pin"], row), data)
    elif dt < 0:
        say("touch", "fail", what, "its edge came %.1f ms after the read of %s" % (-dt / 1000, uid),
            "the sensor fires late: its sensitivity or position under the landing spot "
            "(docs/hardware.md, bring-up step 6)", data)
    elif dt > limit:
        say("touch", "fail", what, "card %s read %.1f ms after the edge, over the %.0f ms limit (%s)"
            % (uid, dt / 1000, limit / 1000, source),
            "reader %d reads too slowly: the tag's range (docs/hardware.md, bring-up step 7)" % p, data)
    else:
        say("touch", "pass", what, "edge %.1f ms before the read of %s (limit %.0f ms, %s)"
            % (dt / 1000, uid, limit / 1000, source), "", data)


def run_probe(pn, p, probe_src, cards=1):
    """The first-contact probe (referee/nfc_probe.py) of pile ``p``'s reader, ``cards`` on it;
    returns its verdict (None: not run)."""
    what = "reader %d probe" % p + (", two cards" if cards == 2 else "")
    if probe_src is None:
        say("probe", "skip", what, "spit doctor did not send referee/nfc_probe.py")
        return None
    ns = {"__name__": "nfc_probe"}   # the probe's own namespace (its `if __name__` stays off)
    exec(probe_src, ns)
    probe, command = ns["probe"], ns["command"]
    lines = []
    answers = {}
    try:
        verdict = probe(pn, lines.append, cards, answers)  # pyright: ignore[reportCallIssue]
    except Exception as e:  # noqa: BLE001 - a finding
        verdict = "NO-GO"
        lines.append("nfc probe: %s: %s" % (type(e).__name__, e))
    try:
        # MxRtyPassiveActivation back to the referee's
        command(pn, 0x32, b"\x05\xff\x01\xff")  # pyright: ignore[reportCallIssue]
    except Exception:  # noqa: BLE001
        pass
    times = ", ".join("%s %.1f ms" % (k[:-3], answers[k] / 1000) for k in sorted(answers) if k.endswith("_us")
                      and answers[k] is not None)
    data = {"pile": p, "verdict": verdict, "answers": answers, "saved": False}
    if verdict != "NO-GO":
        # Into the board's board.json (reader p's "chip"): the referee's reader takes them when it
        # starts again after the doctor (referee/board_hw.py).
        try:
            ns["save_answers"]("board.json", p, answers)  # pyright: ignore[reportCallIssue]
            data["saved"] = True
            times += "; answers written to board.json"
        except Exception as e:  # noqa: BLE001 - a finding, the probe's result stands
            times += "; board.json not updated (%s: %s)" % (type(e).__name__, e)
    if verdict == "NO-GO":
        why = [ln[11:] for ln in lines if " = " not in ln and not ln.endswith(verdict)]
        say("probe", "fail", what, "%s: %s" % (verdict, "; ".join(why)),
            "docs/hardware.md, bring-up step 'Reader go/no-go'", data)
    else:
        say("probe", "pass", what, "%s; %s" % (verdict, times), "", data)
    return verdict


def check_range(board, inputs, cards):
    """Cards added to pile 0 one at a time: each one's read time after its touch edge."""
    limit, source = touch_match_us()
    what = "tag range on pile 0"
    pn, why = _reader(board, 0)
    if pn is None:
        say("range", "fail", what, why, "reader 0: see the reader step (%s, row PN532 pile 0)" % _WIRING)
        return
    touches = Touches(board, 0)
    names = [n for n, _s, _q in inputs.items if "STUCK" in n and n not in inputs.stuck]
    inputs.watch(names)
    scan = tag_scan.TagScan(pn)
    seen = []
    points = []
    fault = ""
    for k in range(1, cards + 1):
        inputs.edges = []
        prompt("add card %d of %d to pile 0 now (a STUCK button when the pile is done)" % (k, cards))
        since = time.ticks_us()
        uid, at = read_new(pn, scan, seen, touches, since, lambda: bool(inputs.edges))
        if uid is None:
            if at == "timeout" and (touches.spec is None or _edge_before(touches, since, time.ticks_us()) is not None):
                fault = "card %d was never read" % k
            elif at != "done" and at != "timeout":
                fault = "card %d: %s" % (k, at)
            break
        dt = _edge_before(touches, since, at) if touches.spec is not None else None
        points.append({"n": k, "uid": uid, "read_us": dt})
    inputs.unwatch()
    touches.close()
    data = {"board": board.get("name", "?"), "pile": 0, "limit_us": limit, "limit_source": source,
            "touch": touches.spec is not None, "points": points}
    late = [q for q in points if q["read_us"] is not None and not 0 <= q["read_us"] <= limit]
    unstamped = [q for q in points if touches.spec is not None and q["read_us"] is None]
    times = [q["read_us"] for q in points if q["read_us"] is not None]
    summary = "%d card%s read" % (len(points), "" if len(points) == 1 else "s")
    if times:
        summary += ", read %.1f-%.1f ms after the touch (limit %.0f ms, %s)" % (
            min(times) / 1000, max(times) / 1000, limit / 1000, source)
    elif touches.spec is None:
        summary += " (no touch sensor: read times not measured)"
    if fault:
        say("range", "fail", what, "%s; %s" % (fault, summary),
            "reader 0 (%s, row PN532 pile 0) or the tag's range through the table top and the pile: the "
            "sticker stagger, foam (docs/hardware.md, bring-up steps 7 and 8)" % _WIRING, data)
    elif late:
        say("range", "fail", what, "card %d read %.1f ms after its touch; %s" % (
            late[0]["n"], late[0]["read_us"] / 1000, summary),
            "reader 0 reads too slowly as the pile grows (docs/hardware.md, bring-up step 8)", data)
    elif unstamped:
        say("range", "fail", what, "card %d read without a touch edge; %s" % (unstamped[0]["n"], summary),
            "the touch sensor of pile 0 (%s, row touch sensor pile 0)" % _WIRING, data)
    elif not points:
        say("range", "skip", what, "no card was added", "", data)
    else:
        say("range", "pass", what, summary, "", data)
    prompt("take the cards off pile 0")
    time.sleep_ms(1500)

