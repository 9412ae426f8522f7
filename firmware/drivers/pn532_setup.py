"""ChipSetup: (re-)configure a PN532 in non-blocking steps, for the firmware loop.

Sequence: a pulse on RSTPD_N when the board wires it (``pn532.reset_pin``: low for
``reset_low_us``, then ``reset_boot_us`` to boot), an I2C bus clear when asked (the last
errors were bus errors), the wake-up (SPI: CS held low ~2 ms, the only blocking part: the
shared bus must not see another chip selected meanwhile), ~2 ms to settle, then
SAMConfiguration, MxRtyPassiveActivation, the InCommunicateThru timeout, the field off and on,
chip mode with CIU_TxAuto Force100ASK and CIU_Control Initiator (the chip in a known state for
raw exchanges: after a reset the field is off and nothing else sets those two; CRC on and
BitFraming 0, which raw exchanges before a re-setup without a reset pulse may have left) and
GetFirmwareVersion, one command
per step.  ``step()`` raises the driver's errors (no ACK,
NACK ...) like any other command; the caller backs off and begins again.
"""

from micropython import const
import time

from drivers.pn532 import PN532Timeout

# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_SETUP_STEPS = const(7)  # start_setup_step / finish_setup_step 0..6
# end generated
_RESET_LOW = const(1)
_RESET_BOOT = const(2)
_WAKE_SETTLE = const(3)
_COMMAND = const(4)
_WAKE_SETTLE_US = const(2000)


class ChipSetup:
    def __init__(self, pn532, passive_retries, reset_low_us, reset_boot_us, reply_timeout_us):
        # (The times' defaults are NfcReader's, the only user.)
        self.pn532 = pn532
        self.passive_retries = passive_retries
        self.reset_low_us = reset_low_us
        self.reset_boot_us = reset_boot_us
        self.reply_timeout_us = reply_timeout_us
        self.version = None
        self.resets = 0
        self._state = 0
        self._since_us = 0
        self._step = 0
        self._clear_bus = False

    def begin(self, now_us, clear_bus=False):
        self._since_us = now_us
        self._clear_bus = clear_bus
        pin = self.pn532.reset_pin
        if pin is not None:
            pin.value(0)
            self.resets += 1
            self._state = _RESET_LOW
        else:
            self._wake(now_us)

    def _wake(self, now_us):
        if self._clear_bus:
            self.pn532.bus_clear()
        self.pn532.wake(False)
        self._state = _WAKE_SETTLE
        self._since_us = now_us

    def step(self, now_us):
        """Advance; True once the chip is set up (``version`` holds its firmware version)."""
        waited = time.ticks_diff(now_us, self._since_us)
        state = self._state
        pn = self.pn532
        if state == _RESET_LOW:
            if waited >= self.reset_low_us:
                pn.reset_pin.value(1)
                self._state = _RESET_BOOT
                self._since_us = now_us
            return False
        if state == _RESET_BOOT:
            if waited >= self.reset_boot_us:
                self._wake(now_us)
            return False
        if state == _WAKE_SETTLE:
            if waited < _WAKE_SETTLE_US:
                return False
            self._step = 0
        elif state == _COMMAND:
            if not pn.reply_ready():
                if waited > self.reply_timeout_us:
                    raise PN532Timeout("setup reply timeout")
                return False
            result = pn.finish_setup_step(self._step)
            self._step += 1
            if self._step >= _SETUP_STEPS:
                self.version = result
                self._state = 0
                return True
        else:
            return False
        # The next setup command (the first once the chip has settled).
        pn.start_setup_step(self._step, self.passive_retries)
        self._state = _COMMAND
        self._since_us = now_us
        return False
