"""Write the device modules' copies of other modules' constants from their one source.

MicroPython's compiler inlines ``const()`` within one module only: a name imported from another
module is a global and attribute lookup per use, and a name in the module's table.  So the firmware
keeps private copies (``_V_ACCEPT = const(1)``) of the codes other modules define (spit.verdicts'
``V_ACCEPT``).  This script writes them, one marked block per module:

    # generated from spit.verdicts, spit.intake by scripts/gen_consts.py: do not edit
    _V_ACCEPT = const(1)
    ...
    # end generated

Which names a module's block holds is read from the module itself: every ``_NAME`` its code uses
(and every public ``NAME`` it defines) whose ``NAME`` a source below defines, or that ``ALIASES``
names.  A new verdict: add it to firmware/lib/spit/verdicts.py, use ``_V_NEW`` where it is needed,
run ``python scripts/gen_consts.py``.

    python scripts/gen_consts.py            # rewrite the stale blocks (and move hand-kept copies in)
    python scripts/gen_consts.py --check    # exit 1 and list the stale blocks and hand-kept copies

Host-side, standard library only: the sources are read as text (their ``NAME = const(value)``
lines and plain ``NAME = literal`` ones), never imported.
"""

import ast
import io
import os
import re
import sys
import tokenize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")

# The modules that define facts, first the one that wins when two define the same public name
# (the later one then holds a generated copy).
SOURCES = (
    "spit.verdicts",
    "spit.intake",
    "spit.referee",
    "spit.intents",
    "spit.legal",
    "spit.rules",
    "spit.cards",
    "spit.timebase",
    "spit.logtables",
    "referee.boardfile",
    "drivers.edge_input",
    "referee.sources",
    "drivers.pn532",
    "drivers.tag_scan",
    "drivers.led_patterns",
    "drivers.led_effects",
)

# Sources that are not one module's definitions: {module: function(facts so far) -> {name: Fact}}.
# drivers.led_effects: the LED effects' folder, one module per pattern (see effect_names).
DERIVED = {}

# The one table of copies whose name is not the source's name without its underscore:
# NAME -> (source module, source name[, only in these modules]).  A module's ``_NAME`` or public
# ``NAME`` is a copy of it.
ALIASES = {
    # the drivers' names of spit.intents' colour and zone ids
    "C_OFF": ("spit.intents", "OFF"), "C_GREEN": ("spit.intents", "GREEN"), "C_RED": ("spit.intents", "RED"),
    "C_ORANGE": ("spit.intents", "ORANGE"), "C_PURPLE": ("spit.intents", "PURPLE"),
    "C_BLUE": ("spit.intents", "BLUE"), "C_WHITE": ("spit.intents", "WHITE"),
    "C_YELLOW": ("spit.intents", "YELLOW"), "C_CYAN": ("spit.intents", "CYAN"),
    "C_MAGENTA": ("spit.intents", "MAGENTA"),
    "Z_PILE0": ("spit.intents", "ZONE_PILE0"), "Z_PILE1": ("spit.intents", "ZONE_PILE1"),
    "Z_PILE2": ("spit.intents", "ZONE_PILE2"), "Z_SPIT": ("spit.intents", "ZONE_SPIT"),
    "Z_PLAYER0": ("spit.intents", "ZONE_PLAYER0"), "Z_PLAYER1": ("spit.intents", "ZONE_PLAYER1"),
    "Z_RESULT": ("spit.intents", "ZONE_RESULT"),
    # spit.intake's private kinds and flags, shared with spit.referee
    "EV_NO_READ": ("spit.intake", "_EV_NO_READ"), "EV_OFF_TABLE": ("spit.intake", "_EV_OFF_TABLE"),
    "F_LATE": ("spit.intake", "_F_LATE"), "F_TIED": ("spit.intake", "_F_TIED"),
    "F_ORDERED": ("spit.intake", "_F_ORDERED"),
    "NEVER_T": ("spit.intake", "_FLOOR"),
    # spit.referee's undo history, shared with spit.corrections
    "HIST": ("spit.referee", "_HIST"), "SPIT_BIT": ("spit.referee", "_SPIT_BIT"),
    "RANK_SHIFT": ("spit.referee", "_RANK_SHIFT"),
    "SAT_MS": ("spit.timebase", "_SAT_MS"),
    # the log line field kinds spit.logtables writes and referee/logline.py reads
    "INT": ("spit.logtables", "_LINE_INT", ("referee.logline",)),
    "CARD": ("spit.logtables", "_LINE_CARD", ("referee.logline",)),
    "NAME": ("spit.logtables", "_LINE_NAME", ("referee.logline",)),
    "ERR_VALUE": ("spit.logtables", "_LINE_ERR_VALUE", ("referee.logline",)),
    "KEEP": ("spit.logtables", "_LINE_KEEP", ("referee.logline",)),
    "OPTIONAL": ("spit.logtables", "_LINE_OPTIONAL", ("referee.logline",)),
    # the input source layout of referee/sources.py
    "TOUCH0": ("referee.sources", "_TOUCH0"), "READER0": ("referee.sources", "_READER0"),
    "STUCK0": ("referee.sources", "_STUCK0"), "SLAP0": ("referee.sources", "_SLAP_BASE"),
    "SLAP_END": ("referee.sources", "N_SOURCES"),
    # the PN532 frame sizes and setup steps its transports and setup share
    "HEADER_SIZE": ("drivers.pn532", "_HEADER_SIZE"), "RX_SIZE": ("drivers.pn532", "_RX_SIZE"),
    "TX_SIZE": ("drivers.pn532", "_TX_SIZE"), "MAX_UID": ("drivers.pn532", "MAX_UID_LEN", ("drivers.uid_memory",)),
    "SETUP_STEPS": ("drivers.pn532", "_SETUP_STEPS"),
    # the LED renderers' and effects' limits
    "N_COLORS": ("drivers.led_patterns", "_N_COLORS"), "FRAME_MS": ("drivers.led_patterns", "_FRAME_MS"),
    "NEVER_MS": ("drivers.led_patterns", "_NEVER_MS"),
}

BEGIN = "# generated from %s by scripts/gen_consts.py: do not edit"
END = "# end generated"
_WIDTH = 110   # the header's lines are wrapped here (its sources named across lines)
_UPPER = re.compile(r"^_?[A-Z][A-Z0-9_]*$")


def module_path(module):
    package, name = module.split(".")
    base = os.path.join(FIRMWARE, "lib") if package == "spit" else FIRMWARE
    return os.path.join(base, package, name + ".py")


def module_name(path):
    rel = os.path.relpath(path, FIRMWARE).replace(os.sep, "/")
    if rel.startswith("lib/"):
        rel = rel[4:]
    return rel[:-3].replace("/", ".")


class Fact:
    __slots__ = ("module", "name", "text", "value", "comment", "node")

    def __init__(self, module, name, text, value, comment, node=None):
        self.module, self.name, self.text, self.value, self.comment = module, name, text, value, comment
        self.node = node


def _top_level_definitions(lines):
    """{name: (value text, comment, first line, last line, value node)} of the top-level
    ``NAME = const(v)`` and ``NAME = literal`` definitions in ``lines`` (indexes into them)."""
    text = "\n".join(lines)
    out = {}
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0] - 1] = tok.string
    for node in ast.parse(text).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "const":
            if len(value.args) != 1:
                continue
            value = value.args[0]
        elif not isinstance(value, (ast.Constant, ast.Tuple, ast.UnaryOp, ast.BinOp, ast.Dict)):
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        segment = ast.get_source_segment(text, value)
        if "\n" in segment and isinstance(value, ast.Tuple):   # one line: its items' own text
            segment = "(%s%s)" % (", ".join(ast.get_source_segment(text, e) for e in value.elts),
                                  "," if len(value.elts) == 1 else "")
        out[node.targets[0].id] = (segment, comments.get(last, ""), first, last, value)
    return out


def _evaluate(node, known):
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - {"len"}
    if not names <= set(known):
        return None
    return eval(compile(ast.Expression(node), "<const>", "eval"), {"__builtins__": {"len": len}},
                {n: known[n] for n in names})


def read_sources():
    """{module: {name: Fact}} of every module in SOURCES."""
    facts = {}
    for module in SOURCES:
        if module in DERIVED:
            facts[module] = DERIVED[module](facts)
            continue
        known, mod = {}, {}
        with open(module_path(module)) as f:
            lines = f.read().split("\n")
        for name, (text, comment, _, _, node) in _top_level_definitions(lines).items():
            value = _evaluate(node, known)
            if isinstance(value, dict):
                known[name] = value   # (a table a fact may count: ``len(_INTS)``; not a fact itself)
                continue
            if value is None or not isinstance(value, (int, str, bytes, tuple)):
                continue
            known[name] = value
            try:
                ast.literal_eval(node)
            except ValueError:   # an expression of the source's other names: its value
                text, node = repr(value), ast.parse(repr(value), mode="eval").body
            mod[name] = Fact(module, name, text, value, comment, node)
        facts[module] = mod
    return facts


def effect_names(facts):
    """drivers.led_effects' one fact, ``EFFECTS``: the name of each LED effect module
    (``firmware/drivers/led_effects/<name>.py``) at its ``spit.intents`` id (``BLINK`` for
    ``blink.py``), None where no module is (SOLID, id 0: the plain colour).  The renderers import
    them by these names (drivers/led_patterns.py ``load_effects``)."""
    folder = os.path.join(FIRMWARE, "drivers", "led_effects")
    ids = facts["spit.intents"]
    by_id = {}
    for file in sorted(os.listdir(folder)):
        if not file.endswith(".py") or file.startswith("_"):
            continue
        name = file[:-3]
        fact = ids.get(name.upper())
        if fact is None or not isinstance(fact.value, int) or not 0 <= fact.value < 30:
            # (0..29: the renderers keep a bit per id in a small int)
            raise SystemExit("firmware/drivers/led_effects/%s: spit.intents has no pattern id %s (0..29) for it"
                             % (file, name.upper()))
        if fact.value in by_id:
            raise SystemExit("firmware/drivers/led_effects: %s and %s have the same id, %d"
                             % (by_id[fact.value], name, fact.value))
        by_id[fact.value] = name
    value = tuple(by_id.get(k) for k in range(max(by_id, default=-1) + 1))
    text = "(%s)" % ", ".join("None" if v is None else '"%s"' % v for v in value)
    return {"EFFECTS": Fact("drivers.led_effects", "EFFECTS", text, value,
                            "# drivers/led_effects/<name>.py by spit.intents pattern id",
                            ast.parse(text, mode="eval").body)}


DERIVED["drivers.led_effects"] = effect_names


def resolve(facts, module, name):
    """The Fact a module's constant ``name`` copies, or None (its own)."""
    bare = name.lstrip("_")
    if not _UPPER.match(name) or name.startswith("__"):
        return None
    alias = ALIASES.get(bare)
    if alias is not None:
        if len(alias) > 2 and module not in alias[2]:
            return None
        if alias[0] == module and alias[1] == name:
            return None
        return facts[alias[0]].get(alias[1])
    for src in SOURCES:
        if src == module:
            if not name.startswith("_"):
                return None   # (a public name of a source: its own, unless a module before it has it)
            continue
        fact = facts[src].get(bare)
        if fact is not None:
            return fact
    return None


def _find_block(path, lines):
    """(begin, end) line indexes of the generated block (end: the END line), or None."""
    found = None
    for i, line in enumerate(lines):
        if line.startswith("# generated from "):
            if found is not None:
                raise SystemExit("%s: a second generated block at line %d (one per module)" % (path, i + 1))
            for j in range(i + 1, len(lines)):
                if lines[j] == END:
                    found = i, j
                    break
            else:
                raise SystemExit("%s: no %r after line %d" % (path, END, i + 1))
    return found


def _header(sources):
    """BEGIN naming ``sources``, wrapped into comment lines of at most _WIDTH characters."""
    words = (BEGIN % ", ".join(sources)).split(" ")
    out = [words[0]]
    for word in words[1:]:
        if len(out[-1]) + 1 + len(word) > _WIDTH:
            out.append("#  ")
        out[-1] += " " + word
    return out


def _used_names(text):
    """The upper-case names a module's code uses (not after a dot, not in comments or strings)."""
    used = set()
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and _UPPER.match(tok.string) and not (prev and prev.string == "."):
            used.add(tok.string)
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    return used


def _line(name, fact):
    """(code lines, comment) of one copy: ``name = const(<the source's text>)``, a long tuple
    wrapped at _WIDTH after its items."""
    comment = fact.comment
    if fact.name.lstrip("_") != name.lstrip("_"):
        where = "%s %s" % (fact.module, fact.name)
        comment = "# %s%s" % (where, (": " + comment[1:].strip()) if comment else "")
    code = ["%s = const(%s)" % (name, fact.text)]
    if len(code[0]) > _WIDTH and isinstance(fact.node, ast.Tuple) and fact.text.startswith("("):
        items = [ast.unparse(e) if not isinstance(e, ast.Constant) or not isinstance(e.value, str)
                 else '"%s"' % e.value for e in fact.node.elts]
        head = "%s = const((" % name
        code = [head]
        for k, item in enumerate(items):
            piece = item + (", " if k < len(items) - 1 else "))")
            if len(code[-1]) + len(piece.rstrip()) > _WIDTH:
                code[-1] = code[-1].rstrip()
                code.append(" " * len(head))
            code[-1] += piece
    return code, comment


def render_block(names, facts, module):
    chosen = [(name, resolve(facts, module, name)) for name in names]
    order = {m: i for i, m in enumerate(SOURCES)}
    src_lines = {}
    for m in SOURCES:
        src_lines[m] = {n: i for i, n in enumerate(facts[m])}
    chosen.sort(key=lambda nf: (order[nf[1].module], src_lines[nf[1].module][nf[1].name]))
    used_sources = []
    for _, fact in chosen:
        if fact.module not in used_sources:
            used_sources.append(fact.module)
    rows = [_line(name, fact) for name, fact in chosen]
    width = min(max([len(code[-1]) for code, comment in rows if comment] or [0]), 40)
    out = _header(used_sources)
    for code, comment in rows:
        out.extend(code[:-1])
        out.append(code[-1] + (" " * max(2, width - len(code[-1]) + 2) + comment if comment else ""))
    out.append(END)
    return out


def plan(path, facts):
    """(new text, problems) for one device module: problems name what --check reports."""
    with open(path) as f:
        return plan_text(module_name(path), f.read(), facts)


def plan_text(module, text, facts):
    """(new text, problems) for the text of device module ``module`` (``referee.app``)."""
    lines = text.split("\n")
    block = _find_block(module, lines)
    if block is None:
        body_lines = lines
        old_block = None
    else:
        body_lines = lines[:block[0]] + lines[block[1] + 1:]
        old_block = lines[block[0]:block[1] + 1]
    # Hand-kept copies: top-level one-line definitions outside the block of a name that resolves.
    defs = _top_level_definitions(body_lines)
    hand_kept = {}
    conflicts = []
    for name, (_, _, first, last, node) in defs.items():
        fact = resolve(facts, module, name)
        if fact is not None:
            hand_kept[name] = (first, last)
            try:
                value = ast.literal_eval(node)
            except ValueError:
                continue   # (an expression of other names: the block's value replaces it)
            if value != fact.value:
                conflicts.append("%s = %r is not %s %s = %r" % (name, value, fact.module, fact.name, fact.value))
    if conflicts:
        # Not a copy after all, or a stale one: a person decides (rename it, or take the source's value).
        return text, ["a name of another module's constant with another value (rename it, or use the "
                      "source's value): " + "; ".join(sorted(conflicts))]
    drop = set(k for first, last in hand_kept.values() for k in range(first, last + 1))
    used = _used_names("\n".join(line for k, line in enumerate(body_lines) if k not in drop))
    wanted = set()
    for name in used:
        if name.startswith("_") and resolve(facts, module, name) is not None:
            wanted.add(name)
    # Public copies are part of the module's interface: kept whether used here or not.
    for name in hand_kept:
        if not name.startswith("_"):
            wanted.add(name)
    if old_block is not None:
        for name in _top_level_definitions(old_block):
            if not name.startswith("_") and resolve(facts, module, name) is not None:
                wanted.add(name)
    problems = []
    if hand_kept:
        problems.append("copies kept by hand outside a generated block: %s" % ", ".join(sorted(hand_kept)))
    if not wanted and old_block is None:
        return text, problems
    new_block = render_block(sorted(wanted), facts, module) if wanted else []
    if old_block is not None and new_block == old_block and not hand_kept:
        return text, problems
    if old_block is not None:
        problems.append("stale generated block")
        at = block[0]
    elif hand_kept:
        at = min(first for first, _ in hand_kept.values())
    else:
        problems.append("uses %s but has no generated block (add the %r and %r lines where it goes)"
                        % (", ".join(sorted(wanted)), BEGIN % "...", END))
        return text, problems
    # Drop the hand-kept lines, then put the block at the first of them (or where the old one was).
    out = []
    for k, line in enumerate(body_lines):
        if k == at:
            out.extend(new_block)
        if k not in drop:
            out.append(line)
    if at >= len(body_lines):
        out.extend(new_block)
    return "\n".join(out), problems


def device_modules():
    for base, dirs, files in os.walk(FIRMWARE):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py") and name != "manifest.py":
                yield os.path.join(base, name)


def main(argv):
    check = "--check" in argv
    facts = read_sources()
    stale = []
    for path in device_modules():
        new, problems = plan(path, facts)
        if not problems:
            continue
        rel = os.path.relpath(path, ROOT)
        with open(path) as f:
            changed = f.read() != new
        if check or not changed:
            stale.append("%s: %s" % (rel, "; ".join(problems)))
        else:
            with open(path, "w") as f:
                f.write(new)
            print("wrote %s (%s)" % (rel, "; ".join(problems)))
    if stale:
        print("\n".join(stale))
        if check:
            print("run `python scripts/gen_consts.py` to rewrite them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
