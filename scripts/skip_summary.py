"""What the test run skipped and why, grouped, for the end of scripts/test.sh.

    python scripts/skip_summary.py build/pytest.xml

Reads pytest's JUnit XML (``--junitxml``) and prints one line per reason group, so a run that
skipped the emulated-Pico tests says so last, where people look (a bare "14 skipped" reads as
"tested").  Exit code 0 always: skips are not failures; this only reports them.
"""

import os
import sys
import xml.etree.ElementTree as ET

# (what the reason says, the group's name, what to tell the reader)
GROUPS = (
    ("firmware image is missing", "emulated-Pico tests",
     "firmware image not found; see README (The firmware on an emulated Pico)"),
    ("bootrom is missing", "emulated-Pico tests",
     "RP2040 bootrom not found; see README (The firmware on an emulated Pico)"),
    ("needs node and rp2040js", "emulated-Pico tests",
     "node or rp2040js missing; run bash scripts/bootstrap.sh"),
    ("micropython unix port", "MicroPython unix-port tests",
     "the micropython executable is missing; run bash scripts/bootstrap.sh"),
    ("chromium", "HTML render tests", "chromium not installed (CI installs Debian chromium)"),
    ("libnfc", "libnfc client tests", "libnfc tools not installed (Debian libnfc-bin, libnfc-examples)"),
)


def group_of(reason):
    low = reason.lower()
    for needle, name, why in GROUPS:
        if needle in low:
            return name, why
    return "other tests", reason.strip()


def skips(path):
    """``[(test file, reason)]`` for every skipped test case in the JUnit XML at ``path``."""
    out = []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        for sk in case.findall("skipped"):
            reason = sk.get("message") or sk.text or "no reason given"
            if reason.startswith("Skipped: "):
                reason = reason[len("Skipped: "):]
            where = case.get("file")
            name = os.path.basename(where) if where else (case.get("classname") or "?")
            out.append((name, reason))
    return out


def summary(items):
    """The report's lines for ``items`` from :func:`skips`."""
    if not items:
        return ["skipped: nothing (every test ran)"]
    groups = {}
    order = []
    for name, reason in items:
        key = group_of(reason)
        if key not in groups:
            groups[key] = [0, set()]
            order.append(key)
        groups[key][0] += 1
        groups[key][1].add(name)
    lines = ["skipped: %d test(s), so these were NOT tested here:" % len(items)]
    for key in order:
        n, names = groups[key]
        lines.append("  %s skipped (%d: %s): %s" % (key[0], n, ", ".join(sorted(names)), key[1]))
    return lines


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python scripts/skip_summary.py PYTEST_JUNIT.xml\n")
        return 2
    if not os.path.isfile(argv[1]):
        print("skipped: unknown (no %s: pytest did not get far enough to write it)" % argv[1])
        return 0
    print("\n".join(summary(skips(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
