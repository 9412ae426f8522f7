"""The referee App's shape: its state declared in one place, the boot steps returning what they
build, and no import circle among the modules installed on the board (docs/architecture.md, the
card path).  Read from the source (ast), as a newcomer reads it."""
import ast
import json
import os

from host_tools.device import manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "firmware")
REFEREE = os.path.join(FIRMWARE, "referee")
# The modules whose functions take the App as their first parameter (``self``): the App's methods
# written in other files, bound in its class body.
APP_FUNCTIONS = ("loop.py", "waiting.py")


def _tree(name):
    with open(os.path.join(REFEREE, name), encoding="utf-8") as f:
        return ast.parse(f.read(), name)


def _app_class():
    return next(n for n in _tree("app.py").body if isinstance(n, ast.ClassDef) and n.name == "App")


def _stores(fn, who):
    """Attribute names that ``fn`` assigns on the name ``who`` (``self.x = ...``, ``self.x += ...``,
    ``self.x: T`` and the targets of tuple assignments)."""
    names = set()
    for node in ast.walk(fn):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == who:
                names.add(t.attr)
    return names


def _declared():
    init = next(n for n in _app_class().body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return _stores(init, "self")


def test_every_attribute_the_app_sets_is_declared_in_its_init():
    declared = _declared()
    undeclared = []
    for fn in _app_class().body:
        if isinstance(fn, ast.FunctionDef) and fn.name != "__init__":
            undeclared += ["app.py %s: self.%s" % (fn.name, a) for a in sorted(_stores(fn, "self") - declared)]
    for name in APP_FUNCTIONS:
        for fn in _tree(name).body:
            if isinstance(fn, ast.FunctionDef) and fn.args.args and fn.args.args[0].arg == "self":
                undeclared += ["%s %s: self.%s" % (name, fn.name, a)
                               for a in sorted(_stores(fn, "self") - declared)]
    assert not undeclared, "App state set outside App.__init__ without being declared there:\n" + "\n".join(undeclared)


def test_the_boot_steps_return_what_they_build_and_assign_nothing_to_the_app():
    tree = _tree("startup.py")
    stores = set()
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef):
            for arg in fn.args.args:
                stores |= {"%s: %s.%s" % (fn.name, arg.arg, a) for a in _stores(fn, arg.arg)}
    assert not stores, "referee/startup.py assigns to its arguments: %s" % sorted(stores)
    steps = {fn.name for fn in tree.body if isinstance(fn, ast.FunctionDef)
             and any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))}
    assert {"load_configs", "build", "selftest"} <= steps


def test_no_import_circle_among_the_installed_modules():
    with open(os.path.join(ROOT, "boards", "pico.json")) as f:
        files, _ = manifest.board_manifest(FIRMWARE, json.load(f))
    modules = {manifest.module_name(rel): rel for rel in files if rel.endswith(".py") and manifest.module_name(rel)}
    graph = {}
    for module, rel in modules.items():
        # (``from referee import startup`` names ``referee`` and ``referee.startup``: the package
        # itself is no edge)
        graph[module] = {m for m, _ in manifest.module_imports(os.path.join(FIRMWARE, rel))
                         if m in modules and m != module and not modules[m].endswith("__init__.py")}
    circles = []
    state = {}

    def visit(m, path):
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append(" -> ".join(path[path.index(n):] + [n]))
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "import circles (lazy imports too):\n" + "\n".join(circles)


# MicroPython's hash table sizes (py/map.c hash_allocation_sizes) from 17 on: an instance's
# attribute table grows to the next one only when it is full.
TABLE_SIZES = (17, 23, 29, 37, 47, 59, 71, 89, 107, 131)


def test_the_apps_attribute_table_is_never_full():
    # A method called on the App is looked for among its attributes first, slot by slot up to an
    # empty one: in a full table, every slot.  (59 attributes in 59 slots made read -> LED 0.2 ms
    # slower on the emulated Pico.)
    from host_tools.vboard.runner import VirtualTable
    with VirtualTable() as t:
        counts = {len(vars(t.app))}
        t.land_card(0, "5S", 6_000_000)
        t.run_until(7_000_000)
        counts.add(len(vars(t.app)))
    full = counts & set(TABLE_SIZES)
    assert not full, "the App has exactly %s attributes: its table is full" % sorted(full)
