"""Run the engine test files under the MicroPython unix port (no pytest or unittest there).

    MICROPYPATH=.frozen:firmware/lib:tests/engine micropython -X heapsize=48k tests/mp_runner.py tests/engine [-k NAME]

Imports every ``test_*.py`` in the directory, calls each ``test_*`` function, prints failures
with their exception, and exits non-zero if any failed.  The same files run under pytest.
"""

import gc
import os
import sys


def run(directory, keyword=None):
    names = []
    for n in os.listdir(directory):
        if n.startswith("test_") and (n.endswith(".py") or n.endswith(".mpy")):
            names.append(n[:n.rindex(".")])
    names.sort()
    passed = 0
    failed = 0
    for modname in names:
        gc.collect()
        mod = __import__(modname)
        tests = [n for n in dir(mod) if n.startswith("test_")]
        tests.sort()
        for tname in tests:
            if keyword and keyword not in tname:
                continue
            fn = getattr(mod, tname)
            try:
                fn()
                passed += 1
            except Exception as e:  # noqa: BLE001 - report every failure, keep going
                failed += 1
                print("FAIL %s.%s: %s: %s" % (modname, tname, type(e).__name__, e))
                sys.print_exception(e) if hasattr(sys, "print_exception") else None
            gc.collect()
        del sys.modules[modname]
        mod = None
    print("micropython: %d passed, %d failed" % (passed, failed))
    return failed


def main():
    args = sys.argv[1:]
    keyword = None
    if "-k" in args:
        i = args.index("-k")
        keyword = args[i + 1]
        args = args[:i] + args[i + 2:]
    directory = args[0] if args else "tests/engine"
    sys.exit(1 if run(directory, keyword) else 0)


main()
