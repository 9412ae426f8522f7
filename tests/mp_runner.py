"""Run the engine test files under the MicroPython unix port (no pytest or unittest there).

    bash scripts/build_mpy.sh
    MICROPYPATH=.frozen:build/mp:build/mp/tests micropython -X heapsize=96k -m mp_runner build/mp/tests --heap 96k [-k NAME]

Every ``test_*`` module runs in its own interpreter (started with ``os.system`` and the same
heap cap), because interned names are never freed and would otherwise add up across files.
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


def run_all(directory, keyword, heap, host_heap="1m"):
    names = []
    for n in os.listdir(directory):
        if n.startswith("test_") and (n.endswith(".py") or n.endswith(".mpy")):
            names.append(n[:n.rindex(".")])
    names.sort()
    passed = 0
    failed = 0
    result_path = "/tmp/mp_runner_%d.txt" % os.getpid() if hasattr(os, "getpid") else "/tmp/mp_runner.txt"
    for modname in names:
        try:
            os.remove(result_path)
        except OSError:
            pass
        # MICROPYPATH is inherited, so the child finds this runner as a module too.
        cmd = "%s -X heapsize=%s -m mp_runner --module %s --result %s" % (
            sys.executable, host_heap if modname.startswith("test_host_") else heap, modname, result_path)
        if keyword:
            cmd += " -k " + keyword
        status = os.system(cmd)
        try:
            with open(result_path) as f:
                p, fl = f.read().split()
            passed += int(p)
            failed += int(fl)
            print("  %-28s %s passed, %s failed" % (modname, p, fl))
        except OSError:
            failed += 1
            print("  %-28s CRASHED (exit status %d): out of memory or import error" % (modname, status))
    print("micropython: %d passed, %d failed" % (passed, failed))
    return failed


def main():
    args = sys.argv[1:]
    opts = {"-k": None, "--module": None, "--result": None, "--heap": "48k", "--host-heap": "1m"}
    rest = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if opts["--module"]:
        run_module(opts["--module"], opts["-k"], opts["--result"])
        return
    directory = rest[0] if rest else "build/mp/tests"
    sys.exit(1 if run_all(directory, opts["-k"], opts["--heap"], opts["--host-heap"]) else 0)


main()
