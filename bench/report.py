"""The targets (bench/targets.json) beside the figures: each bench's report prints a figure with
its target and ``met`` or ``MISSED`` through ``check`` (or ``row``), so no target is written
anywhere else.

    .venv/bin/python -m bench.report              # every target, one a line
    .venv/bin/python -m bench.report --markdown   # bench/README.md's target table

A target has a short ``what`` (the label a report prints), maybe a ``note``, one of ``max`` (at
most), ``min`` (at least) or ``below`` (under), a ``unit``, ``from`` (what set it) and
``benches`` (which print it).  Plain json and
string work: the MicroPython unix port imports it too (mp_session_heap).
"""

import json

_here = __file__.replace("\\", "/")
PATH = (_here.rsplit("/", 1)[0] if "/" in _here else ".") + "/targets.json"


def load(path=PATH):
    """``{name: target}`` from bench/targets.json."""
    with open(path) as f:
        return json.load(f)["targets"]


TARGETS = load()


def fmt(x, unit=""):
    """A figure as the tables print it: None as "-", floats with two decimals."""
    if x is None:
        return "-"
    return ("%.2f" % x if isinstance(x, float) else "%s" % x) + unit


def limit(name):
    """The target as text: "<= 10 ms", ">= 200000 events/CPU s", "< 100 ms"."""
    t = TARGETS[name]
    if t.get("max") == 0:
        return ("0 %s" % t["unit"]).rstrip()
    for key, sign in (("max", "<="), ("min", ">="), ("below", "<")):
        if key in t:
            return ("%s %s %s" % (sign, t[key], t["unit"])).rstrip()
    raise ValueError("target %s has no max, min or below" % name)


def met(name, value):
    """True if ``value`` meets target ``name``, False if not, None if there is no figure."""
    t = TARGETS[name]
    if value is None:
        return None
    if "max" in t:
        return value <= t["max"]
    if "min" in t:
        return value >= t["min"]
    return value < t["below"]


def word(ok):
    return "-" if ok is None else ("met" if ok else "MISSED")


def row(name, value, shown=None, label=None):
    """One line: the figure's label, its value (``shown``: the value as text), the target, met or
    MISSED."""
    return "%-44s %-20s %-18s %s" % (label or TARGETS[name]["what"], fmt(value) if shown is None else shown,
                                     limit(name), word(met(name, value)))


def check(name, value, shown=None, label=None):
    """Print ``row`` and return whether the target is met (None: no figure)."""
    print(row(name, value, shown, label))
    return met(name, value)


def check_all(name, values, label=None):
    """The worst of ``values`` (several games, boards or cells) against target ``name``."""
    values = [v for v in values if v is not None]
    if not values:
        return check(name, None, label=label)
    t = TARGETS[name]
    worst = min(values) if "min" in t else max(values)
    return check(name, worst, label=label)


def header(title):
    print()
    print("== targets of %s (bench/targets.json), met or MISSED" % title)


def markdown():
    """bench/README.md's table of the targets (tests/guards/test_bench_package.py keeps it current)."""
    lines = ["| target | figure | limit | printed by | set by |", "|---|---|---|---|---|"]
    for name in sorted(TARGETS):
        t = TARGETS[name]
        what = t["what"] + (": " + t["note"] if t.get("note") else "")
        lines.append("| `%s` | %s | %s | %s | %s |" % (name, what, limit(name), ", ".join(t["benches"]), t["from"]))
    return "\n".join(lines)


def main(argv):
    if "--markdown" in argv:
        print(markdown())
        return 0
    for name in sorted(TARGETS):
        print("%-40s %-22s %s" % (name, limit(name), TARGETS[name]["what"]))
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
