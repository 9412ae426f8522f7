"""bench/ is a package that holds together: every bench module imports as ``bench.NAME`` without
running, sys.path is set in one place (bench/_paths.py), a bench runs as ``python -m bench.NAME``
and as ``python bench/NAME.py``, every target of bench/targets.json is printed by some bench (and
every target a bench prints is there), and bench/README.md lists every module and the targets as
they are.  Imports only: no bench is run here but long_session, for a few hundred events.
"""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
MODULES = sorted(n[:-3] for n in os.listdir(BENCH) if n.endswith(".py") and n != "__init__.py")
PATHS_MODULE = "_paths"


def _source(name):
    with open(os.path.join(BENCH, name + ".py"), encoding="utf-8") as f:
        return f.read()


def _targets():
    with open(os.path.join(BENCH, "targets.json"), encoding="utf-8") as f:
        return json.load(f)["targets"]


def _readme():
    with open(os.path.join(BENCH, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_every_bench_module_imports_as_part_of_the_package_without_running():
    # In a fresh interpreter (some benches load the virtual board's modules), from the root.
    code = ("import importlib, io, json, sys\n"
            "failed = {}\n"
            "for name in " + repr(MODULES) + ":\n"
            "    out, sys.stdout = sys.stdout, io.StringIO()\n"
            "    try:\n"
            "        importlib.import_module('bench.' + name)\n"
            "        printed = sys.stdout.getvalue()\n"
            "    except BaseException as e:\n"
            "        printed = None\n"
            "        failed[name] = type(e).__name__ + ': ' + str(e)\n"
            "    finally:\n"
            "        sys.stdout = out\n"
            "    if printed:\n"
            "        failed[name] = 'printed on import: ' + repr(printed[:200])\n"
            "print(json.dumps(failed))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == {}


_SYS_PATH_EDIT = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend|remove|pop|clear)\b|\[[^\]]*\]\s*=|\+=|=(?!=))")


def test_only_bench_paths_edits_sys_path():
    offenders = [name for name in MODULES if name != PATHS_MODULE and _SYS_PATH_EDIT.search(_source(name))]
    assert offenders == []
    assert _SYS_PATH_EDIT.search(_source(PATHS_MODULE))   # (the pattern does find an edit)


def test_every_bench_with_a_main_can_run_as_a_file_too():
    # Run as a file, bench/ is on sys.path and the root is not: a bench that imports bench.* needs
    # the shim that imports _paths by its short name first.
    missing = []
    for name in MODULES:
        text = _source(name)
        if '__name__ == "__main__"' in text and re.search(r"^\s*from bench[. ]", text, re.M):
            if not re.search(r"except ImportError:\n\s+import _paths\b", text):
                missing.append(name)
    assert missing == []


@pytest.mark.parametrize("how", [["-m", "bench.long_session"], [os.path.join(BENCH, "long_session.py")]])
def test_a_bench_runs_as_a_module_and_as_a_file(tmp_path, how):
    # As a module from the root; as a file from anywhere (here: another directory).
    out = str(tmp_path / "s.spitlog")
    r = subprocess.run([sys.executable] + how + ["300", out], cwd=ROOT if how[0] == "-m" else str(tmp_path),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    with open(out, encoding="utf-8") as f:
        assert f.readline().startswith("{")


def test_every_target_is_well_formed():
    for name, t in _targets().items():
        assert re.match(r"^[a-z0-9_]+$", name), name
        assert sum(k in t for k in ("max", "min", "below")) == 1, name
        assert 0 < len(t["what"]) <= 44 and t["from"] and "unit" in t, name   # (what: a report's label)
        for bench in t["benches"]:
            assert bench in MODULES, (name, bench)


def test_every_target_is_printed_by_some_bench_and_every_printed_target_exists():
    targets = _targets()
    sources = {name: _source(name) for name in MODULES if name != "report"}
    unused = [t for t in targets if not any('"%s"' % t in text for text in sources.values())]
    assert unused == []
    named = set()
    for text in sources.values():
        named.update(re.findall(r"report\.(?:check|check_all|met|limit|row)\(\s*\"([a-z0-9_]+)\"", text))
    assert named and sorted(named - set(targets)) == []


def test_the_mpy_target_is_the_size_checks_limit():
    from host_tools.device.manifest import MPY_LIMIT_BYTES
    assert _targets()["mpy_bytes_per_board"]["max"] == MPY_LIMIT_BYTES


def test_the_readme_lists_every_bench_module():
    table_rows = "\n".join(line for line in _readme().splitlines() if line.startswith("|"))
    missing = [name for name in MODULES if not re.search(r"(bench\.|bench/|`)%s(\.py)?\b" % re.escape(name),
                                                         table_rows)]
    assert missing == []


def test_the_readmes_target_table_is_generated_from_targets_json():
    from bench import report
    text = _readme()
    start = text.index("<!-- targets: generated")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end of targets -->")
    assert text[start:end].strip() == report.markdown(), \
        "bench/README.md's target table is stale: paste `.venv/bin/python -m bench.report --markdown`"
