"""The one place bench/ puts directories on sys.path: the checkout's root (``bench``,
``host_tools``), firmware/lib (the engine, ``spit``) and firmware/ (``referee``, ``drivers``: the
device's modules as the board has them).

``bench/__init__.py`` imports it, so ``python -m bench.NAME`` (from the root) and ``from bench.x
import y`` get the paths; a bench run as a file (``python bench/NAME.py``, where bench/ itself is
on sys.path and the root is not) imports it first, by its short name::

    try:
        from bench import _paths  # noqa: F401  (python -m bench.NAME)
    except ImportError:
        import _paths  # noqa: F401  (python bench/NAME.py)

Plain string work, no ``os.path``: the MicroPython unix port imports it too (bench_firmware's
unix-port part, bench_logbook).  ``use_checkout`` puts another checkout first (trace_landing's
instrumented copy).
"""

import sys

_here = __file__.replace("\\", "/")
ROOT = _here.rsplit("/", 2)[0] if _here.count("/") >= 2 else "."


def use_checkout(root):
    """Put ``root``, its firmware/lib and its firmware/ first on sys.path (before any module of
    them is imported: modules already imported stay as they are)."""
    for p in (root + "/firmware", root + "/firmware/lib", root):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)


for _p in (ROOT + "/firmware", ROOT + "/firmware/lib", ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)
