"""Spit referee rules engine.

Pure Python shared unchanged by the RP2040 firmware (MicroPython) and the PC tools (CPython).
It imports nothing from the firmware, drivers or host tools.
"""

__version__ = "0.1.0"
