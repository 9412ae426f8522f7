"""PC-side tools for the Spit referee: the ``spit`` command (``cli/``), re-judging and showing
logs (``replay/``), talking to a board (``device/``), the live page (``watch/``), the simulated
table (``sim/``), the virtual board (``vboard/``) and the emulated Pico (``rp2emu/``).

``REPO`` is the checkout these tools run from; in a checkout the engine (``spit``) is imported from
``firmware/lib``, where it lives (an installed wheel carries it).  Also imported by the virtual
board under the MicroPython unix port, so plain string work, no ``os.path``.
"""

import sys

_here = __file__.replace("\\", "/")
REPO = _here.rsplit("/", 2)[0] if _here.count("/") >= 2 else "."

try:
    import spit  # noqa: F401  (installed with the wheel)
except ImportError:  # a checkout: the engine lives in firmware/lib
    sys.path.insert(0, REPO + "/firmware/lib")
