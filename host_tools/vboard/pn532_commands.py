"""The PN532 emulator's commands (a mixin of ``PN532Emulator``; PN532 user manual UM0701 ch. 7).

Every command a client here sends: Diagnose (0x00: communication line test echoes, the other
tests pass), GetFirmwareVersion, GetGeneralStatus, ReadRegister / WriteRegister (the CIU
register file, ``pn532_ciu.py``), SetParameters, SAMConfiguration, PowerDown, RFConfiguration
(items 1, 2, 5), InDataExchange (NTAG READ / WRITE / GET_VERSION to the listed tag),
InCommunicateThru (a raw frame as the CIU registers say; an empty one times out),
InDeselect / InRelease (HLTA to a type A target if option ``deselect_halts`` /
``release_halts``), InSelect, InListPassiveTarget (every BrTy: 0 type A, 1/2 FeliCa, 3 type B,
4 Jewel; only type A tags exist here) and InAutoPoll (type A entries).  Anything else gets the
application-level error frame.  MicroPython-compatible.
"""

from . import iso14443a
from host_tools.vboard.pn532_frames import ERROR_FRAME

_FIRMWARE = b"\x32\x01\x06\x07"  # IC PN532, version 1.6, supports ISO14443A/B + FeliCa
_THRU_FRAME_US = 400      # a raw exchange with an answering tag
_DATA_US = 1500           # InDataExchange with an answering tag
# BrTy -> (TxMode/RxMode speed|framing it leaves, InitiatorData bytes it needs)
_BRTY = {0: (0x00, 0), 1: (0x22, 5), 2: (0x32, 5), 3: (0x03, 1), 4: (0x00, 0)}
_POLL_A_TYPES = (0x00, 0x10, 0x20)   # InAutoPoll: generic / MIFARE / ISO 14443-4 at 106 kbps A
STATUS_NO_TARGET = 0x27   # "this command is not acceptable in the current context"
STATUS_TAG_NAK = 0x14


class Commands:
    def _execute(self, command, params, now):
        done = now + self.command_us
        handler = self._HANDLERS.get(command)
        if handler is None or handler(self, params, now, done) is False:
            self._queue(ERROR_FRAME, done)

    def _diagnose(self, params, now, done):
        if not params:
            return False
        if params[0] == 0x00:
            self._queue_reply(b"\x01" + params, done)   # communication line test: echo
        else:
            self._queue_reply(b"\x01\x00", done)        # ROM / RAM / antenna tests pass
        return None

    def _firmware_version(self, params, now, done):
        self._queue_reply(b"\x03" + _FIRMWARE, done)

    def _general_status(self, params, now, done):
        tg = bytes([len(self._selected)])
        for n in range(len(self._selected)):
            tg += bytes([n + 1, 0, 0, 0])
        self._queue_reply(b"\x05\x00" + bytes([1 if self.ciu.field_on else 0]) + tg + b"\x00", done)

    def _read_register(self, params, now, done):
        if len(params) % 2:
            return False
        self._queue_reply(b"\x07" + bytes(self.ciu.read((params[i] << 8) | params[i + 1])
                                          for i in range(0, len(params), 2)), done)
        return None

    def _write_register(self, params, now, done):
        if len(params) % 3:
            return False
        for i in range(0, len(params), 3):
            self.ciu.write((params[i] << 8) | params[i + 1], params[i + 2])
        self._queue_reply(b"\x09", done)
        return None

    def _set_parameters(self, params, now, done):
        if len(params) != 1:
            return False
        self.parameters = params[0]
        self._queue_reply(b"\x13", done)
        return None

    def _sam_configuration(self, params, now, done):
        if not params or params[0] not in (1, 2, 3, 4):
            return False
        self.irq_enabled = len(params) < 3 or params[2] != 0
        self._queue_reply(b"\x15", done)
        return None

    def _power_down(self, params, now, done):
        if not params:
            return False
        self._queue_reply(b"\x17\x00", done)
        self.ciu.set_field(False)
        self._selected = []
        self.powered_down = True   # (the SPI / HSU side wakes it as it woke it at first)
        return None

    def _rf_configuration(self, params, now, done):
        if len(params) < 2:
            return False
        item = params[0]
        if item == 0x01:
            if not params[1] & 0x01:
                self._selected = []
            self.ciu.set_field(bool(params[1] & 0x01))
        elif item == 0x02 and len(params) >= 4:   # RFU, fATR_RES_Timeout, fRetryTimeout
            self.thru_timeout_code = params[3] & 0x0F
        elif item == 0x05 and len(params) >= 4:
            self.passive_retries = params[3]
        self._queue_reply(b"\x33", done)
        return None

    def _list_passive(self, params, now, done):
        if len(params) < 2 or params[0] not in (1, 2) or params[1] not in _BRTY:
            return False
        framing, need = _BRTY[params[1]]
        if len(params) < 2 + need:
            return False
        self._max_targets = params[0]
        self._begin_listing(now, params[1], framing)
        return None

    def _auto_poll(self, params, now, done):
        if len(params) < 3:
            return False
        types = params[2:]
        a_types = [t for t in types if t in _POLL_A_TYPES]
        self._max_targets = 1
        self._poll_types = a_types
        self._begin_listing(now, 0 if a_types else -1, 0x00,
                            None if params[0] == 0xFF else params[0] * len(types))
        return None

    def _data_exchange(self, params, now, done):
        if not params:
            return False
        tg = params[0] & 0x0F
        target = self._selected[tg - 1] if 1 <= tg <= len(self._selected) else None
        if target is None:
            self._queue_reply(bytes([0x41, STATUS_NO_TARGET]), done)
            return None
        ciu = self.ciu
        status, data = iso14443a.STATUS_TIMEOUT, b""
        if (target in self.tags or target in self.held) and ciu.chip_frames_ok():
            ciu.prepare_type_a()
            body = bytes(params[1:])
            body += iso14443a.crc_a(body)
            bits = target.hear(body, 8 * len(body))
            if bits is not None and len(bits) == 4:
                nibble = sum(bits[k] << k for k in range(4))
                status = iso14443a.STATUS_OK if nibble == iso14443a.ACK_4BIT else STATUS_TAG_NAK
            elif bits is not None:
                status, data = ciu.receive([bits], 0, True)
        at = now + (_DATA_US if status != iso14443a.STATUS_TIMEOUT else self._thru_timeout_us() + 100)
        self._queue_reply(bytes([0x41, status]) + data, at)
        return None

    def _communicate_thru(self, params, now, done):
        status, data = self.ciu.transceive(params)
        self.raw_frames.append((params[0] if params else -1, status))
        if status == iso14443a.STATUS_TIMEOUT:
            at = now + self._thru_timeout_us() + 100
        else:
            at = now + _THRU_FRAME_US
        self._queue_reply(bytes([0x43, status]) + data, at)
        return None

    def _deselect_or_release(self, params, now, done):
        if not params:
            return False
        command = 0x44 if self._command == 0x44 else 0x52
        halts = self.deselect_halts if command == 0x44 else self.release_halts
        tg = params[0]
        chosen = self._selected if tg == 0 else self._selected[tg - 1:tg]
        if halts:
            ok = self.ciu.chip_frames_ok()
            if ok:
                self.ciu.prepare_type_a()
            for tag in chosen:
                if tag.state == iso14443a.ACTIVE and tag in self.tags:
                    if ok:
                        tag.halt()
                    else:
                        tag.leave()   # a garbled HLTA: an unexpected frame
        self._selected = [t for t in self._selected if t not in chosen]
        self._queue_reply(bytes([command + 1, 0x00]), done)
        return None

    def _in_select(self, params, now, done):
        if not params:
            return False
        ok = 1 <= params[0] <= len(self._selected)
        self._queue_reply(bytes([0x55, 0x00 if ok else STATUS_NO_TARGET]), done)
        return None

    _HANDLERS = {
        0x00: _diagnose, 0x02: _firmware_version, 0x04: _general_status,
        0x06: _read_register, 0x08: _write_register, 0x12: _set_parameters,
        0x14: _sam_configuration, 0x16: _power_down, 0x32: _rf_configuration,
        0x40: _data_exchange, 0x42: _communicate_thru, 0x44: _deselect_or_release,
        0x4A: _list_passive, 0x52: _deselect_or_release, 0x54: _in_select, 0x60: _auto_poll,
    }

