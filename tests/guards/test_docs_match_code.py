"""The docs say what the code does: options, their values and ranges, the `spit` command's flags."""

import os
import re

from spit import rules
from support.cli import run  # (the CLI in-process: exit code, stdout, stderr)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def test_rules_doc_lists_every_option_with_its_default_values_and_range():
    text = read("docs", "rules.md")
    table = {}
    for line in text.split("## Options", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            table[cells[0].strip("`")] = cells[1]
    assert sorted(table) == sorted(list(rules._CHOICES) + list(rules._INTS))
    for key, choices in rules._CHOICES.items():
        listed = re.findall(r"`([a-z_]+)`", table[key])
        assert listed == list(choices), (key, listed)   # the default first
    for key, (default, lo, hi) in rules._INTS.items():
        assert table[key].startswith("`%d`" % default), (key, table[key])
        assert "`%s` %d..%d" % (key, lo, hi) in " ".join(text.split()), key


def test_readme_spit_command_flags_exist():
    text = read("README.md")
    block = text.split("## The `spit` command", 1)[1].split("```", 2)[1]
    commands = {}
    current = None
    for line in block.splitlines():
        line = line.split("#", 1)[0]
        m = re.match(r"spit ((?:logs )?[a-z]+)", line.strip())
        if m:
            current = m.group(1)
        if current:
            commands.setdefault(current, set()).update(re.findall(r"(--[a-z][a-z-]*)", line))
    assert {"sim", "replay", "stats", "flash", "logs pull", "console", "enroll", "emu"} <= set(commands)
    for command, flags in commands.items():
        code, out, _err = run(command.split() + ["--help"])
        assert code == 0
        for flag in flags:
            assert flag in out, (command, flag)
