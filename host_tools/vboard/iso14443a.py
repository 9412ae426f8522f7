"""ISO/IEC 14443-3 type A tags (NTAG21x) as they are: the one tag model of every PN532 emulator.

Tag states (ISO 14443-3 6.3; NTAG213F datasheet 8.4.4 / NTAG203 8.2): IDLE, READY (after
REQA/WUPA, in anticollision at a cascade level), ACTIVE (selected), HALT (after HLTA).
REQA wakes IDLE tags only; WUPA wakes HALT tags too.  A READY or ACTIVE tag that gets a frame
it does not expect (REQA and WUPA included, a SELECT for another UID, a bad CRC) goes back to
IDLE without an answer -- to HALT if WUPA had woken it from HALT.  IDLE and HALT tags hear only
REQA / WUPA.  A field reset (RF off) or leaving the field sends a tag back to IDLE.

``Tag.hear(data, nbits)`` takes a frame as it is on air (the CRC_A in it when one was sent)
and returns the tag's answer as a list of bits, LSB of each byte first, or None (silence).
Anticollision answers start at the first bit of CLn the reader did not send; the reader's CIU
puts them where CIU_BitFraming's RxAlign says (``pn532_ciu.py``).

An NTAG21x answers READ (0x30, 16 bytes), WRITE (0xA2, 4-bit ACK) and GET_VERSION (0x60) when
ACTIVE, with the memory of a factory-fresh NXP tag (``ntag_memory``; NTAG213 45 pages, NTAG215
135, NTAG216 231; NTAG213/215/216 datasheets 8.5, 10.1).  A page address past the end gets a
4-bit NAK and the tag goes back to IDLE.

MicroPython-compatible.
"""

IDLE = 0
READY = 1
ACTIVE = 2
HALT = 3

STATUS_OK = 0x00
STATUS_TIMEOUT = 0x01
STATUS_CRC = 0x02
STATUS_PARITY = 0x03
STATUS_COLLISION = 0x06   # "abnormal bit-collision during bit wise anticollision at 106 kbps"

REQA = 0x26
WUPA = 0x52
HLTA = 0x50
READ = 0x30
WRITE = 0xA2
GET_VERSION = 0x60
CASCADE_TAG = 0x88
SEL_CODES = (0x93, 0x95, 0x97)
ACK_4BIT = 0x0A
NAK_4BIT = 0x00

# model: (pages, capability-container size byte, last user page, GET_VERSION storage size)
NTAG_MODELS = {
    "NTAG213": (45, 0x12, 39, 0x0F),
    "NTAG215": (135, 0x3E, 129, 0x11),
    "NTAG216": (231, 0x6D, 225, 0x13),
}


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


def bits_of(data, nbits=None):
    """Bits of ``data``, LSB of each byte first (the order on air)."""
    if nbits is None:
        nbits = 8 * len(data)
    return [(data[k >> 3] >> (k & 7)) & 1 for k in range(nbits)]


def ntag_memory(uid, model="NTAG213"):
    """The pages of a factory-fresh NTAG21x with this 7-byte UID (datasheet 8.5)."""
    pages, cc_size, last_user, _ = NTAG_MODELS[model]
    mem = bytearray(pages * 4)
    u = bytes(uid) + bytes(7)

    def page(p, data):
        for i in range(4):
            mem[4 * p + i] = data[i]
    page(0, [u[0], u[1], u[2], CASCADE_TAG ^ u[0] ^ u[1] ^ u[2]])
    page(1, u[3:7])
    page(2, [u[3] ^ u[4] ^ u[5] ^ u[6], 0x48, 0x00, 0x00])
    page(3, [0xE1, 0x10, cc_size, 0x00])
    page(4, [0x03, 0x00, 0xFE, 0x00])               # empty NDEF message TLV + terminator
    page(last_user + 1, [0x00, 0x00, 0x00, 0xBD])   # dynamic lock bytes
    page(last_user + 2, [0x04, 0x00, 0x00, 0xFF])   # CFG0: AUTH0 = FF (no password)
    page(last_user + 3, [0x00, 0x05, 0x00, 0x00])   # CFG1
    return mem


class Tag:
    def __init__(self, uid, placed_us, misses=0, unreadable=False, sel_res=0x00, model="NTAG213"):
        self.uid = bytes(uid)
        self.placed_us = placed_us
        self.misses = misses          # activation attempts it will not answer (detuning)
        self.unreadable = unreadable  # never answers (badly stacked)
        self.state = IDLE
        self.halted = False           # woken from HALT by WUPA: an unexpected frame -> HALT
        self.level = 0                # cascade level while READY
        self.unexpected = 0           # REQA / WUPA heard while READY or ACTIVE (for tests)
        self.sel_res = sel_res
        self.model = model
        self.levels = cascade_levels(self.uid)
        n = len(self.uid)
        self.sens_res = 0x0004 if n == 4 else (0x0044 if n == 7 else 0x0084)
        self._memory = None

    # ---- state ----------------------------------------------------------------------------
    def power_up(self):
        """Field reset or the tag lost power: IDLE, HALT forgotten."""
        self.state = IDLE
        self.halted = False
        self.level = 0

    def halt(self):
        self.state = HALT
        self.halted = True

    def leave(self):
        """An unexpected frame in READY / ACTIVE: back to IDLE, or to HALT if woken from it."""
        if self.state == READY or self.state == ACTIVE:
            self.state = HALT if self.halted else IDLE
            self.level = 0

    leave_ready = leave

    def answers(self, wakeup):
        """Would the tag answer a listing attempt's REQA (``wakeup`` False) or WUPA now?
        (Consumes one of its ``misses``.)"""
        if self.unreadable:
            return False
        if self.state == HALT and not wakeup:
            return False
        if self.misses:
            self.misses -= 1
            return False
        return True

    def sak(self):
        more = self.level + 1 < len(self.levels)
        return (0x04 if more else self.sel_res & ~0x04) & 0xFF

    @property
    def memory(self):
        if self._memory is None:
            self._memory = ntag_memory(self.uid, self.model)
        return self._memory

    def version(self):
        """GET_VERSION: vendor NXP, type NTAG, subtype 50 pF, major/minor, storage size, protocol."""
        return bytes([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, NTAG_MODELS[self.model][3], 0x03])

    # ---- one frame on air ----------------------------------------------------------------
    def hear(self, data, nbits):
        """A frame on air (``nbits`` bits of ``data``).  Returns the answer's bits or None."""
        if self.unreadable or nbits == 0:
            return None
        state = self.state
        if nbits == 7:
            cmd = data[0] & 0x7F
            if state == READY or state == ACTIVE:
                self.unexpected += 1
                self.leave()   # REQA / WUPA included: no answer (NTAG213F 8.4.4)
                return None
            if cmd == REQA and state == IDLE or cmd == WUPA and state != READY:
                if self.misses:
                    self.misses -= 1
                    return None
                self.halted = state == HALT
                self.state = READY
                self.level = 0
                return bits_of(bytes([self.sens_res & 0xFF, self.sens_res >> 8]))
            return None
        if state == IDLE or state == HALT:
            return None
        first = data[0]
        if state == READY and first in SEL_CODES and nbits >= 16:
            return self._level_frame(SEL_CODES.index(first), data, nbits)
        whole = nbits & 7 == 0 and nbits >= 24 and crc_a(data[:nbits // 8 - 2]) == bytes(data[nbits // 8 - 2:nbits // 8])
        if state == ACTIVE and whole:
            n = nbits // 8 - 2
            if first == HLTA and n == 2 and data[1] == 0x00:
                self.halt()
                return None
            if first == READ and n == 2:
                return self._read(data[1])
            if first == GET_VERSION and n == 1:
                v = self.version()
                return bits_of(v + crc_a(v))
            if first == WRITE and n == 6:
                return self._write(data[1], data[2:6])
        self.leave()
        return None

    def _level_frame(self, level, data, nbits):
        if level != self.level:
            self.leave()
            return None
        cl = self.levels[level]
        nvb = data[1]
        if nvb == 0x70:
            if nbits != 72 or crc_a(data[:7]) != bytes(data[7:9]) or bytes(data[2:7]) != cl:
                self.leave()   # a SELECT of another tag (or garbled)
                return None
            sak = self.sak()
            if sak & 0x04:
                self.level += 1
            else:
                self.state = ACTIVE
            return bits_of(bytes([sak]) + crc_a(bytes([sak])))
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known < 40 or nbits != 16 + known:
            self.leave()
            return None
        sent = bits_of(data[2:], known)
        if bits_of(cl, known) != sent:
            return None   # another tag's UID: stays READY, silent
        return bits_of(cl)[known:]

    def read(self, page):
        """READ: 16 bytes from ``page`` on (rolling over to page 0), or None (NAK)."""
        mem = self.memory
        if not 0 <= page < len(mem) // 4:
            return None
        return bytes(mem[(4 * page + i) % len(mem)] for i in range(16))

    def write(self, page, data):
        """WRITE of one page; pages 0-3 (UID, lock, CC) are read-only here.  False: NAK."""
        mem = self.memory
        if len(data) != 4 or not 4 <= page < len(mem) // 4:
            return False
        for i in range(4):
            mem[4 * page + i] = data[i]
        return True

    def _read(self, page):
        out = self.read(page)
        if out is None:
            self.leave()
            return bits_of(bytes([NAK_4BIT]), 4)
        return bits_of(out + crc_a(out))

    def _write(self, page, data):
        if not self.write(page, bytes(data)):
            self.leave()
            return bits_of(bytes([NAK_4BIT]), 4)
        return bits_of(bytes([ACK_4BIT]), 4)
