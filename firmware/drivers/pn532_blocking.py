"""More blocking PN532 calls, for tests and bring-up on a PC or the unix port: not installed on
the board (every byte of .mpy counts there; firmware/manifest.py).  ``add_to(PN532)`` makes them
methods of the driver class, as they were.
"""

_TIMEOUT_MS = 100
_VERSION_STEP = 6   # drivers/pn532.py _SETUP: GetFirmwareVersion is the last set-up step


def firmware_version(pn, timeout_ms=_TIMEOUT_MS):
    """GetFirmwareVersion -> (ic, version, revision, support)."""
    return pn._blocking_step(_VERSION_STEP, 0, timeout_ms)


def set_passive_retries(pn, retries, timeout_ms=_TIMEOUT_MS):
    """RFConfiguration item 5 (MxRtyPassiveActivation): InListPassiveTarget tries
    ``retries + 1`` times and then answers "no target".  0xFF retries forever."""
    pn._blocking_step(1, retries, timeout_ms)


def set_field(pn, on, timeout_ms=_TIMEOUT_MS):
    """RFConfiguration item 1: the field on or off (off then on resets every tag)."""
    pn.start_field(on)
    pn._wait_ready(timeout_ms)
    pn.finish_field()


def halt(pn, timeout_ms=_TIMEOUT_MS):
    """Our HLTA to the listed tag."""
    pn.start_halt()
    pn._wait_ready(timeout_ms)
    pn.finish_halt()


def add_to(cls):
    """Make these methods of ``cls`` (the PN532 driver class)."""
    cls.firmware_version = firmware_version
    cls.set_passive_retries = set_passive_retries
    cls.set_field = set_field
    cls.halt = halt
    return cls
