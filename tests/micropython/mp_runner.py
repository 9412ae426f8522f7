"""Run the engine test files under the MicroPython unix port (no pytest or unittest there).

    bash scripts/build_mpy.sh
    MICROPYPATH=.frozen:build/mp:build/mp/tests micropython -X heapsize=70k -m mp_runner build/mp/tests --heap 70k [-k NAME]

Every ``test_*`` module runs in its own interpreter (started with ``os.system``), because
interned names are never freed and would otherwise add up across files.  ``--heap`` is the
engine's cap: the engine modules as the firmware loads them (``ENGINE``), the referee and the
game.  The test code shares the heap but never runs on the chip (the test module, ``table.py``,
``spit.words`` for the verdict dicts of the assertions), so a first interpreter with a large
heap measures what importing it takes on top of the engine, and the test interpreter gets
``--heap`` plus that (bench/README.md, "Heap caps on the unix port").
``test_host_*`` modules test host-side jobs (re-judging logs with ``spit.log``, which keeps
every verdict): they run with ``--host-heap`` (default 1m) instead of the engine's cap.
Each child imports one module, calls each ``test_*`` function, prints failures, and writes
its counts to a file; the parent prints ``micropython: N passed, M failed`` and exits non-zero
on any failure.  The same files run under pytest on CPython.
"""

import gc
import os
import sys


def run_module(modname, keyword, result_path):
    gc.collect()
    mod = __import__(modname)
    tests = [n for n in dir(mod) if n.startswith("test_")]
    tests.sort()
    gc.collect()   # loading leaves holes (as the firmware does after its imports)
    passed = 0
    failed = 0
    for tname in tests:
        if keyword and keyword not in tname:
            continue
        try:
            getattr(mod, tname)()
            passed += 1
        except Exception as e:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            print("FAIL %s.%s: %s: %s" % (modname, tname, type(e).__name__, e))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e)
        gc.collect()
    with open(result_path, "w") as f:
        f.write("%d %d" % (passed, failed))


# The engine as the firmware loads it: the Ruleset class (spit.legal: spit flash resolves the
# ruleset on the PC, spit.rules is not on the board), the LED intents, the referee.
ENGINE = ("spit.legal", "spit.intents", "spit.referee")


def measure_test_code(modname, result_path):
    """Write ``engine_bytes test_code_bytes``: the live heap the engine modules take, and what
    importing the test module (with its helpers) adds on top of them."""
    gc.collect()
    base = gc.mem_alloc()
    for name in ENGINE:
        __import__(name)
    gc.collect()
    engine = gc.mem_alloc()
    __import__(modname)
    gc.collect()
    with open(result_path, "w") as f:
        f.write("%d %d" % (engine - base, gc.mem_alloc() - engine))


def _kib(size):
    """``"70k"`` or ``"1m"`` or a byte count -> KiB."""
    size = size.lower()
    if size.endswith("k"):
        return int(size[:-1])
    if size.endswith("m"):
        return int(size[:-1]) * 1024
    return (int(size) + 1023) // 1024


def _test_code_kib(modname, result_path, host_heap):
    """KiB of test code to add to the engine's cap for ``modname`` (measured in a child)."""
    cmd = "%s -X heapsize=%s -m mp_runner --measure %s --result %s" % (
        sys.executable, host_heap, modname, result_path)
    if os.system(cmd) != 0:
        return None
    with open(result_path) as f:
        return (int(f.read().split()[1]) + 1023) // 1024


def run_all(directory, keyword, heap, host_heap="1m"):
    names = []
    for n in os.listdir(directory):
        if n.startswith("test_") and (n.endswith(".py") or n.endswith(".mpy")):
            names.append(n[:n.rindex(".")])
    names.sort()
    passed = 0
    failed = 0
    if hasattr(os, "getpid"):
        result_path = "/tmp/mp_runner_%d.txt" % os.getpid()
    else:   # (the unix port has no getpid: a random name, so runs at the same time do not share it)
        import random
        result_path = "/tmp/mp_runner_r%d.txt" % random.getrandbits(30)
    for modname in names:
        try:
            os.remove(result_path)
        except OSError:
            pass
        # MICROPYPATH is inherited, so the child finds this runner as a module too.
        if modname.startswith("test_host_"):
            cap = host_heap
            note = "heap %s (host job)" % host_heap
        else:
            extra = _test_code_kib(modname, result_path, host_heap)
            if extra is None:
                failed += 1
                print("  %-28s CRASHED measuring its test code: import error" % modname)
                continue
            cap = "%dk" % (_kib(heap) + extra)
            note = "heap %s = engine %s + test code %dk" % (cap, heap, extra)
        cmd = "%s -X heapsize=%s -m mp_runner --module %s --result %s" % (
            sys.executable, cap, modname, result_path)
        if keyword:
            cmd += " -k " + keyword
        status = os.system(cmd)
        try:
            with open(result_path) as f:
                p, fl = f.read().split()
            passed += int(p)
            failed += int(fl)
            print("  %-28s %s passed, %s failed  (%s)" % (modname, p, fl, note))
        except OSError:
            failed += 1
            print("  %-28s CRASHED (exit status %d): out of memory or import error  (%s)" % (
                modname, status, note))
    try:
        os.remove(result_path)
    except OSError:
        pass
    print("micropython: %d passed, %d failed" % (passed, failed))
    return failed


def main():
    args = sys.argv[1:]
    opts = {"-k": None, "--module": None, "--measure": None, "--result": None, "--heap": "70k",
            "--host-heap": "1m"}
    rest = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if opts["--measure"]:
        measure_test_code(opts["--measure"], opts["--result"])
        return
    if opts["--module"]:
        run_module(opts["--module"], opts["-k"], opts["--result"])
        return
    directory = rest[0] if rest else "build/mp/tests"
    sys.exit(1 if run_all(directory, opts["-k"], opts["--heap"], opts["--host-heap"]) else 0)


main()
