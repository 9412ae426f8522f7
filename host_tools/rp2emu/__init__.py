"""The real MicroPython rp2 firmware on an emulated RP2040 (rp2040js on node), with the table
around it modelled at the pins: ``emulator`` (the chip), ``serial_pty`` (its USB serial as a
pty for mpremote), ``table`` (readers, sensors, buttons, LEDs, buzzer), ``install`` (our
firmware put on it with `spit flash`)."""

import os
import sys

from host_tools import REPO as _REPO
firmware_path = [os.path.join(_REPO, "firmware", "lib"), os.path.join(_REPO, "firmware")]
for _p in firmware_path:
    if _p not in sys.path:
        sys.path.insert(0, _p)
