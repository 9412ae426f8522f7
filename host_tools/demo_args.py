"""scripts/demo.sh with a Pico plugged in: which of its arguments go to `spit flash`.

The demo takes `spit sim`'s options (``--ruleset tableau --seed 7``).  With a board attached it
flashes instead, and `spit flash` knows only some of them: the ruleset (with its ``--option``s,
written as a ruleset file), the board, the port and the card map.  The simulator's own options
(seed, bots' skills, games, log/html, mode ...) are left out with one line saying so, never passed
on (`spit flash` would stop with "unrecognized arguments").

    python -m host_tools.demo_args ARGS...   # prints the flash arguments, NUL-separated; notes on stderr
"""

import json
import os
import sys

# `spit flash` options that `spit sim` shares, or that the demo passes through, with their arity.
FLASH_VALUE_OPTIONS = ("--port", "--board", "--ruleset", "--cards")
FLASH_FLAGS = ("--source", "--lines", "--dry-run")
# `spit sim` options that take a value (so the value is skipped along with them).
SIM_VALUE_OPTIONS = ("--games", "--option", "--seed", "--log", "--html", "--mode", "--seconds", "--skills",
                     "--misread")


def split(argv):
    """``(flash_argv, options, ignored)``: the arguments for `spit flash`, the ruleset options
    (``--option k=v`` as a dict) and the simulator-only arguments left out."""
    flash, ignored, options = [], [], {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        takes = name in FLASH_VALUE_OPTIONS or name in SIM_VALUE_OPTIONS
        if takes and not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
            i += 1
        i += 1
        if name in FLASH_VALUE_OPTIONS:
            flash += [name, value]
        elif name in FLASH_FLAGS:
            flash.append(name)
        elif name == "--option":
            key, _, val = value.partition("=")
            options[key] = val
        elif takes:
            ignored += [name, value]
        else:
            ignored.append(arg)
    return flash, options, ignored


def _option_value(text):
    """A ``--option`` value as the ruleset file holds it (a number, true/false, else the text)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def flash_argv(argv, out_dir="out"):
    """The `spit flash` arguments for the demo's ``argv`` and the note for what was left out.
    ``--option``s become a ruleset file in ``out_dir`` (`spit flash --ruleset FILE`)."""
    flash, options, ignored = split(argv)
    notes = []
    if options:
        ruleset = "classic"
        if "--ruleset" in flash:
            ruleset = flash[flash.index("--ruleset") + 1]
            k = flash.index("--ruleset")
            del flash[k:k + 2]
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "demo-ruleset.json")
        with open(path, "w") as f:
            json.dump({"ruleset": ruleset, "options": dict((k, _option_value(v)) for k, v in options.items())}, f)
        flash += ["--ruleset", path]
        notes.append("ruleset %s with its options written to %s" % (ruleset, path))
    if ignored:
        notes.append("simulator options not used on a real board: %s" % " ".join(ignored))
    return flash, notes


def main(argv):
    flash, notes = flash_argv(argv)
    for n in notes:
        sys.stderr.write("demo: %s\n" % n)
    sys.stdout.write("".join(a + "\0" for a in flash))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
