"""ISO/IEC 14443-3 type A tags as a PN532 sees them: shared by both PN532 emulators.

Tag states (ISO 14443-3, 6.3): IDLE, READY (after REQA/WUPA, in anticollision at a cascade
level), ACTIVE (selected), HALT (after HLTA).  REQA wakes IDLE tags only; WUPA wakes HALT
tags too (a halted tag woken by WUPA goes back to HALT, not IDLE, when it is not selected).
A field reset (RF off) sends every tag back to IDLE.

``RawField`` answers the frames a PN532 sends through InCommunicateThru with CRC off:
REQA/WUPA as 7-bit frames (CIU_BitFraming TxLastBits = 7), anticollision ``SEL NVB bits...``
with TxLastBits/RxAlign for a partial last byte, SELECT and HLTA with the CRC_A appended by
the host.  Several tags answering with different bits collide (``STATUS_COLLISION``).

MicroPython-compatible.
"""

IDLE = 0
READY = 1
ACTIVE = 2
HALT = 3

STATUS_OK = 0x00
STATUS_TIMEOUT = 0x01
STATUS_COLLISION = 0x06   # "abnormal bit-collision during bit wise anticollision at 106 kbps"

REQA = 0x26
WUPA = 0x52
HLTA = 0x50
CASCADE_TAG = 0x88
SEL_CODES = (0x93, 0x95, 0x97)


def crc_a(data):
    """CRC_A of ISO 14443-3 (CRC-16, polynomial 0x1021 reflected, initial value 0x6363)."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes([crc & 0xFF, (crc >> 8) & 0xFF])


def cascade_levels(uid):
    """The 5-byte CLn (4 UID bytes or CT + 3, then BCC) of each cascade level."""
    levels = []
    rest = bytes(uid)
    while True:
        if len(rest) > 4:
            part = bytes([CASCADE_TAG]) + rest[:3]
            rest = rest[3:]
        else:
            part = rest
            rest = b""
        bcc = part[0] ^ part[1] ^ part[2] ^ part[3]
        levels.append(part + bytes([bcc]))
        if not rest:
            return levels


class Tag:
    def __init__(self, uid, placed_us, misses=0, unreadable=False, sel_res=0x00):
        self.uid = bytes(uid)
        self.placed_us = placed_us
        self.misses = misses          # activation attempts it will not answer (detuning)
        self.unreadable = unreadable  # never answers (badly stacked)
        self.state = IDLE
        self.halted = False           # went through HLTA since it was last powered up
        self.level = 0                # cascade level while READY
        self.sel_res = sel_res
        self.levels = cascade_levels(self.uid)
        n = len(self.uid)
        self.sens_res = 0x0004 if n == 4 else (0x0044 if n == 7 else 0x0084)

    def power_up(self):
        """Field reset or the tag lost power: IDLE, HALT forgotten."""
        self.state = IDLE
        self.halted = False
        self.level = 0

    def halt(self):
        self.state = HALT
        self.halted = True

    def answers(self, wakeup):
        """Does the tag answer this REQA (``wakeup`` False) or WUPA?"""
        if self.unreadable:
            return False
        if self.halted and not wakeup:
            return False
        if self.misses:
            self.misses -= 1
            return False
        return True

    def leave_ready(self):
        """An unexpected frame: back to IDLE, or to HALT if it had been halted."""
        self.state = HALT if self.halted else IDLE

    def sak(self):
        more = self.level + 1 < len(self.levels)
        return (0x04 if more else self.sel_res & ~0x04) & 0xFF


def _bit(data, k):
    return (data[k >> 3] >> (k & 7)) & 1


class RawField:
    """Tags in one PN532's field, answering raw InCommunicateThru frames."""

    def __init__(self, tags):
        self.tags = tags

    def exchange(self, data, tx_last_bits, rx_align, tx_crc, rx_crc):
        """One frame from the PN532.  Returns (status, reply bytes)."""
        if not data:
            return STATUS_TIMEOUT, b""
        first = data[0]
        if len(data) == 1 and tx_last_bits == 7 and not tx_crc and first in (REQA, WUPA):
            return self._request(first == WUPA)
        body = bytes(data)
        if tx_crc:
            body = body + crc_a(body)
        if first == HLTA and len(body) == 4 and body[1] == 0x00 and body[2:] == crc_a(body[:2]):
            for tag in self.tags:
                if tag.state == ACTIVE:
                    tag.halt()
            return STATUS_TIMEOUT, b""   # HLTA is never answered
        if first in SEL_CODES and len(data) >= 2:
            level = SEL_CODES.index(first)
            nvb = data[1]
            if nvb == 0x70 and len(body) == 9 and body[7:] == crc_a(body[:7]):
                return self._select(level, body[2:7], rx_crc)
            if tx_crc or nvb == 0x70:
                return self._others_leave()
            return self._anticollision(level, data, nvb, tx_last_bits, rx_align)
        return self._others_leave()

    def _others_leave(self):
        for tag in self.tags:
            if tag.state == READY:
                tag.leave_ready()
        return STATUS_TIMEOUT, b""

    def _request(self, wakeup):
        answering = []
        for tag in self.tags:
            if tag.state == ACTIVE:
                tag.leave_ready()
            if tag.state in (IDLE, HALT, READY) and tag.answers(wakeup):
                tag.state = READY
                tag.level = 0
                answering.append(tag)
            elif tag.state == READY:
                tag.leave_ready()
        if not answering:
            return STATUS_TIMEOUT, b""
        atqa = answering[0].sens_res
        for tag in answering[1:]:
            if tag.sens_res != atqa:
                return STATUS_COLLISION, b""
        return STATUS_OK, bytes([atqa & 0xFF, atqa >> 8])   # LSB first on air

    def _anticollision(self, level, data, nvb, tx_last_bits, rx_align):
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known < 40 or (nvb & 0x0F) != tx_last_bits or rx_align != (known & 7):
            return self._others_leave()
        if len(data) != 2 + (known + 7) // 8:
            return self._others_leave()
        prefix = data[2:]
        matching = []
        for tag in self.tags:
            if tag.state != READY or tag.level != level:
                continue
            cl = tag.levels[level]
            # A READY tag whose UID does not match the bits sent stays READY, silent.
            if all(_bit(cl, k) == _bit(prefix, k) for k in range(known)):
                matching.append(cl)
        if not matching:
            return STATUS_TIMEOUT, b""
        for k in range(known, 40):
            bit = _bit(matching[0], k)
            for cl in matching[1:]:
                if _bit(cl, k) != bit:
                    return STATUS_COLLISION, b""
        reply = bytearray(matching[0][known >> 3:])
        reply[0] &= (0xFF << (known & 7)) & 0xFF   # bits before RxAlign are not received
        return STATUS_OK, bytes(reply)

    def _select(self, level, cl, rx_crc):
        chosen = []
        for tag in self.tags:
            if tag.state != READY or tag.level != level:
                continue
            if tag.levels[level] == bytes(cl):
                chosen.append(tag)   # tags sharing this CLn all answer, identically
            else:
                tag.leave_ready()
        if not chosen:
            return STATUS_TIMEOUT, b""
        sak = chosen[0].sak()
        for tag in chosen:
            if tag.sak() != sak:
                return STATUS_COLLISION, b""
        for tag in chosen:
            if sak & 0x04:
                tag.level += 1
            else:
                tag.state = ACTIVE
        reply = bytes([sak])
        return STATUS_OK, reply if rx_crc else reply + crc_a(reply)
