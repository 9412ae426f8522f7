"""The PN532 behaviours no document settles: named options of the strict model.

Each is a keyword of ``PN532Emulator`` (and of the pty emulator of ``spit enroll``); the first
value is the default.  ``firmware/referee/nfc_probe.py`` answers them on a real board.

* ``list_uses_wupa``: InListPassiveTarget sends WUPA (wakes halted tags) rather than REQA;
* ``release_halts`` / ``deselect_halts``: InRelease / InDeselect send HLTA to a type A target;
* ``rx_align``: InCommunicateThru honours CIU_BitFraming RxAlign;
* ``collision_status``: the status of an exchange whose answers collide (0x06, 0x03, 0x02);
* ``coll_readable``: CIU_Coll and the FIFO can be read after a collision;
* ``list_order``: which of several answering tags the listing returns first ("high" / "low"
  UID, i.e. which way the chip's own anticollision goes).

``combinations()`` gives a covering set (every value of every option, and every pair of
values of the options the firmware's paths depend on together) small enough for whole games;
``all_combinations()`` the full product, for the quick reader tests.
"""

OPTIONS = (
    ("list_uses_wupa", (False, True)),
    ("release_halts", (True, False)),
    ("deselect_halts", (True, False)),
    ("rx_align", (True, False)),
    ("collision_status", (0x06, 0x03, 0x02)),
    ("coll_readable", (True, False)),
    ("list_order", ("high", "low")),
)

DEFAULTS = dict((name, values[0]) for name, values in OPTIONS)


def all_combinations():
    combos = [{}]
    for name, values in OPTIONS:
        combos = [dict(c, **{name: v}) for c in combos for v in values]
    return combos


def combinations():
    """A covering array of strength 2 over OPTIONS (greedy: each row covers the most pairs
    not covered yet), deterministic."""
    names = [name for name, _ in OPTIONS]
    values = dict(OPTIONS)
    todo = set()
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for va in values[a]:
                for vb in values[b]:
                    todo.add((a, va, b, vb))
    rows = []
    candidates = all_combinations()
    while todo:
        best = None
        best_n = -1
        for c in candidates:
            n = 0
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    if (a, c[a], b, c[b]) in todo:
                        n += 1
            if n > best_n:
                best, best_n = c, n
        rows.append(best)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                todo.discard((a, best[a], b, best[b]))
    return rows


def label(combo):
    """A short id for test names and bench tables."""
    parts = []
    for name, values in OPTIONS:
        v = combo.get(name, values[0])
        if v == values[0]:
            continue
        parts.append("%s=%s" % (name, ("0x%02x" % v) if isinstance(v, int) and not isinstance(v, bool) else v))
    return ",".join(parts) or "defaults"
