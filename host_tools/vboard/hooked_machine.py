"""The ``machine`` module a ``VirtualTable`` gives the firmware: the vboard fakes, with hooks that
tell the table each pin and bus the firmware builds (so it attaches its PN532 emulators to them).
Bus transfers are C code on the chip, so they run outside the step's heap lock (``heapgate``).
"""

import sys

from . import heapgate
from .pins import Pin
from .buses import SPI, I2C

_TABLE = [None]   # the VirtualTable whose hardware is being built


class _HookedPin(Pin):
    def __init__(self, id, *args, **kw):
        Pin.__init__(self, id, *args, **kw)
        t = _TABLE[0]
        if t is not None:
            t._pin_built(self)


class _HookedSPI(SPI):
    """The fake SPI; transfers are C code on the chip, so they run outside the step lock."""

    def __init__(self, id=0, *args, **kw):
        SPI.__init__(self, id, *args, **kw)
        t = _TABLE[0]
        if t is not None:
            t.spis[id] = self

    def write(self, buf):
        heapgate.enter_c()
        try:
            return SPI.write(self, buf)
        finally:
            heapgate.exit_c()

    def readinto(self, buf, write=0x00):
        heapgate.enter_c()
        try:
            return SPI.readinto(self, buf, write)
        finally:
            heapgate.exit_c()

    def write_readinto(self, write_buf, read_buf):
        heapgate.enter_c()
        try:
            return SPI.write_readinto(self, write_buf, read_buf)
        finally:
            heapgate.exit_c()


class _HookedI2C(I2C):
    """The fake I2C; transfers run outside the step lock (C code on the chip)."""

    def __init__(self, id=0, *args, **kw):
        I2C.__init__(self, id, *args, **kw)
        t = _TABLE[0]
        if t is not None:
            t._i2c_built(id, self)

    def writeto(self, addr, buf, stop=True):
        heapgate.enter_c()
        try:
            return I2C.writeto(self, addr, buf, stop)
        finally:
            heapgate.exit_c()

    def readfrom_into(self, addr, buf, stop=True):
        heapgate.enter_c()
        try:
            return I2C.readfrom_into(self, addr, buf, stop)
        finally:
            heapgate.exit_c()


class _Machine:
    """A per-table ``machine`` module: the vboard fakes with construction hooks."""


def install_hooked_machine(table):
    """Put a per-table ``machine`` (the installed fake's names, with hooked ``Pin``, ``SPI`` and
    ``I2C``) in ``sys.modules``: hardware the firmware builds from now on is told to ``table``."""
    fake = sys.modules["machine"]
    ns = _Machine()
    for name in dir(fake):
        if not name.startswith("__"):
            setattr(ns, name, getattr(fake, name))
    ns.Pin = _HookedPin
    ns.SPI = _HookedSPI
    ns.I2C = _HookedI2C
    sys.modules["machine"] = ns
    _TABLE[0] = table


def release_hooked_machine():
    """Hardware built from now on is told to no table."""
    _TABLE[0] = None
