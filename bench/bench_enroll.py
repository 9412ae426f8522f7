"""`spit enroll` with a USB PN532: what the tool itself adds per card, on the PN532 HSU emulator.

    .venv/bin/python -m bench.bench_enroll [--runs N]

The emulator (tests/fakes/pn532_hsu_emulator.py, the same one the enrollment tests use) answers
each InListPassiveTarget the tool sends with the next scripted tag at once, so the time per card
here is the tool's own: the listing round trip through a pty at 115200 baud, the checks, the
prompt and saving the card map after every card.  A person's taps (a card every 2-3 s) come on
top of it: docs/getting-started.md's "how long it takes" rests on this figure.  Prints a table;
asserts nothing.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import argparse
import importlib.util
import os
import tempfile
import time

from bench._paths import ROOT


def _emulator_class():
    """The tests' PN532 HSU emulator (a test double: it lives beside the tests, not in host_tools)."""
    path = os.path.join(ROOT, "tests", "fakes", "pn532_hsu_emulator.py")
    spec = importlib.util.spec_from_file_location("pn532_hsu_emulator", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PN532HsuEmulator


def _tags(count):
    from host_tools.vboard.ntag21x_tag import NtagTag
    return [NtagTag(bytes([0x04, 0x5A, 0, 0, 0, (0x10 + i) >> 8 & 0xFF, (0x10 + i) & 0xFF])) for i in range(count)]


def enroll_once(cards=52):
    """Wall seconds of `spit enroll --port EMULATOR` for a whole deck (``cards``: the tags the
    emulator has ready; the tool asks for 52), each tapped as soon as it is asked for."""
    import argparse as ap
    from host_tools.cli import enroll as cli_enroll
    emulator_cls = _emulator_class()
    with tempfile.TemporaryDirectory() as tmp, emulator_cls() as emulator:
        emulator.script_taps(_tags(cards))
        out = os.path.join(tmp, "cards.json")
        parser = ap.ArgumentParser(prog="spit")
        cli_enroll.add_subcommands(parser.add_subparsers(dest="command"))
        args = parser.parse_args(["enroll", "--port", emulator.port, "--out", out, "--timeout", "5"])
        lines = []
        started = time.monotonic()
        code = args.func(args, commands=lambda: None, echo=lines.append)
        elapsed = time.monotonic() - started
        if code != 0:
            raise SystemExit("bench_enroll: spit enroll failed (%s): %s" % (code, lines[-3:]))
    return elapsed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    cards = 52
    times = [enroll_once(cards) for _ in range(args.runs)]
    best = min(times)
    print("== spit enroll --port (USB PN532 over HSU, the tests' emulator): a deck of %d cards, taps at once" % cards)
    print("%-28s %s" % ("runs (s)", "  ".join("%.2f" % t for t in times)))
    print("%-28s %.2f s" % ("best, whole deck", best))
    print("%-28s %.0f ms" % ("the tool's time per card", best / cards * 1000))
    for pace in (2.0, 3.0):
        print("%-28s %.1f min" % ("a deck at one tap / %.0f s" % pace, (best + cards * pace) / 60))


if __name__ == "__main__":
    main()
