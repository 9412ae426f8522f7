"""The PN532's contactless interface unit (CIU) as a register file, and frames on air through it.

Registers (PN532 user manual UM0701 8.6; the CIU is the PN512's, whose datasheet gives the bit
layout and reset values) are reset by power-up and by RSTPD_N.  What a raw exchange
(InCommunicateThru) does depends on them:

* the field: CIU_TxControl Tx1RFEn/Tx2RFEn (bits 0-1), off after reset; RFConfiguration item 1
  and the chip's own activation commands switch it on.  Switching it off resets every tag;
* the modulation: type A at 106 kbps needs CIU_TxAuto Force100ASK (bit 6), CIU_Control
  Initiator (bit 4) and CIU_TxMode / CIU_RxMode speed 106 kbps + ISO 14443A framing (bits 6-4,
  1-0 all 0).  libnfc sets each of them before raw exchanges (pn53x.c pn53x_initiator_init,
  nfc.c nfc_initiator_init).  Without them a frame reaches no tag: the exchange times out;
* CRC (reset: off): TxCRCEn (TxMode bit 7) appends CRC_A, RxCRCEn (RxMode bit 7) checks and strips it (an
  answer without a CRC_A gives status 0x02);
* CIU_BitFraming (0x633D): TxLastBits (bits 2-0: bits of the last byte sent, 0 = 8) and
  RxAlign (bits 6-4: where the first bit received goes in the first byte).  Whether the
  PN532's firmware honours RxAlign in InCommunicateThru is not documented (libnfc never sets
  it): option ``rx_align``; when not honoured the bits land from bit 0: the data is shifted,
  the tag is never silenced;
* parity: CIU_ManualRCV ParityDisable (bit 4): without parity no tag understands a frame.

Several answers that differ collide: the status is option ``collision_status`` (0x06, 0x03 or
0x02: UM0701 lists all three as errors of a frame).  Option ``coll_readable``: after it
CIU_Coll (0x633E) holds CollPos (bits 4-0, position of the first colliding bit counted from
bit 0 of the first byte received, RxAlign included, 1-based, 32 = 0) with CollPosNotValid
(bit 5) clear, and the FIFO (CIU_FIFOLevel 0x633A / CIU_FIFOData 0x6339) the bytes received up
to it; otherwise both read as after the PN532's firmware cleans up (CIU_Coll = reset value).

MicroPython-compatible.
"""

from . import iso14443a

TX_MODE = 0x6302
RX_MODE = 0x6303
TX_CONTROL = 0x6304
TX_AUTO = 0x6305
MANUAL_RCV = 0x630D
FIFO_DATA = 0x6339
FIFO_LEVEL = 0x633A
CONTROL = 0x633C
BIT_FRAMING = 0x633D
COLL = 0x633E

_CRC_EN = 0x80
_SPEED_FRAMING = 0x73
_FORCE_100ASK = 0x40
_INITIATOR = 0x10
_PARITY_DISABLE = 0x10
_RF_EN = 0x03
COLL_RESET = 0xA0          # ValuesAfterColl | CollPosNotValid

# Reset values (PN512 datasheet register tables; the registers the models read or clients touch).
RESET = {
    0x6301: 0x3F,          # CIU_Mode
    TX_MODE: 0x00,
    RX_MODE: 0x00,
    TX_CONTROL: 0x80,      # InvTx2RFOn, field off
    TX_AUTO: 0x00,
    0x6306: 0x10,          # CIU_TxSel
    0x6307: 0x84,          # CIU_RxSel
    0x6308: 0x84,          # CIU_RxThreshold
    0x6309: 0x4D,          # CIU_Demod
    MANUAL_RCV: 0x00,
    FIFO_LEVEL: 0x00,
    CONTROL: 0x00,
    BIT_FRAMING: 0x00,
    COLL: COLL_RESET,
}


class Ciu:
    def __init__(self, tags, rx_align=True, collision_status=iso14443a.STATUS_COLLISION,
                 coll_readable=True):
        self.tags = tags
        self.rx_align = rx_align
        self.collision_status = collision_status
        self.coll_readable = coll_readable
        self.regs = {}
        self.fifo = b""
        self.collisions = 0   # exchanges answered with collision_status (for the benches)
        self.reset()

    def reset(self):
        """Power-up / RSTPD_N: every register to its reset value; the field is off."""
        self.regs = dict(RESET)
        self.fifo = b""
        self._field_lost()

    def _field_lost(self):
        for tag in self.tags:
            tag.power_up()

    # ---- registers ---------------------------------------------------------------------
    def read(self, addr):
        if addr == FIFO_DATA:
            if not self.fifo:
                return 0
            byte = self.fifo[0]
            self.fifo = self.fifo[1:]
            self.regs[FIFO_LEVEL] = len(self.fifo)
            return byte
        return self.regs.get(addr, 0)

    def write(self, addr, value):
        if addr == TX_CONTROL:
            self.set_field(bool(value & _RF_EN), value)
            return
        if addr == FIFO_LEVEL and value & 0x80:
            self.fifo = b""       # FlushBuffer
            value = 0
        self.regs[addr] = value & 0xFF

    @property
    def field_on(self):
        return bool(self.regs[TX_CONTROL] & _RF_EN)

    def set_field(self, on, value=None):
        was = self.field_on
        if value is None:
            value = (self.regs[TX_CONTROL] | _RF_EN) if on else (self.regs[TX_CONTROL] & ~_RF_EN)
        self.regs[TX_CONTROL] = value & 0xFF
        if was and not on:
            self._field_lost()

    def type_a_ready(self):
        """Field, 100 % ASK, initiator and 106 kbps type A framing: frames reach the tags."""
        r = self.regs
        return (self.field_on and r[TX_AUTO] & _FORCE_100ASK and r[CONTROL] & _INITIATOR
                and not r[TX_MODE] & _SPEED_FRAMING and not r[RX_MODE] & _SPEED_FRAMING
                and not r[MANUAL_RCV] & _PARITY_DISABLE)

    def prepare_type_a(self):
        """What the chip's own 106 kbps type A commands set up for themselves."""
        r = self.regs
        self.set_field(True)
        r[TX_AUTO] |= _FORCE_100ASK
        r[CONTROL] |= _INITIATOR
        r[TX_MODE] = (r[TX_MODE] & ~_SPEED_FRAMING & 0xFF) | _CRC_EN
        r[RX_MODE] = (r[RX_MODE] & ~_SPEED_FRAMING & 0xFF) | _CRC_EN

    def set_speed_framing(self, bits):
        """The chip's own listing of another modulation (BrTy 1-4) leaves its speed/framing."""
        r = self.regs
        self.set_field(True)
        r[TX_MODE] = (r[TX_MODE] & ~_SPEED_FRAMING & 0xFF) | bits
        r[RX_MODE] = (r[RX_MODE] & ~_SPEED_FRAMING & 0xFF) | bits

    def chip_frames_ok(self):
        """Can the chip's own type A commands (listing, InDataExchange, InRelease's HLTA) run?
        They work from power-up, so they set the field, modulation, framing and CRC they need
        themselves (``prepare_type_a``; after them TxCRCEn and RxCRCEn are on, as for their
        last frame).  What they do with a CIU_BitFraming or parity a host left in raw mode is
        not documented: the strict model takes it that they run with them as they are, and
        then hear nothing -- libnfc restores them before handing back (pn53x.c
        pn53x_reset_settings: TxLastBits 0, CRC and parity on)."""
        r = self.regs
        return r[BIT_FRAMING] & 0x77 == 0 and not r[MANUAL_RCV] & _PARITY_DISABLE

    # ---- frames ------------------------------------------------------------------------
    def transceive(self, data):
        """InCommunicateThru: ``data`` goes out as the registers say.  Returns (status, bytes)."""
        r = self.regs
        self.regs[COLL] = COLL_RESET
        if not data or not self.type_a_ready():
            return iso14443a.STATUS_TIMEOUT, b""
        framing = r[BIT_FRAMING]
        last = framing & 0x07
        body = bytes(data)
        if r[TX_MODE] & _CRC_EN:
            body = body + iso14443a.crc_a(body)
            last = 0
        nbits = 8 * len(body) - (8 - last if last else 0)
        answers = []
        for tag in self.tags:
            bits = tag.hear(body, nbits)
            if bits is not None:
                answers.append(bits)
        return self.receive(answers, (framing >> 4) & 0x07 if self.rx_align else 0,
                            bool(r[RX_MODE] & _CRC_EN))

    def receive(self, answers, align, rx_crc):
        """The answers on air into bytes (``align``: RxAlign applied).  (status, bytes)."""
        if not answers:
            return iso14443a.STATUS_TIMEOUT, b""
        first = answers[0]
        n = len(first)
        collision = -1
        for other in answers[1:]:
            m = min(n, len(other))
            k = 0
            while k < m and other[k] == first[k]:
                k += 1
            if k < max(n, len(other)) and (collision < 0 or k < collision):
                collision = k
        if collision >= 0:
            if self.coll_readable:
                pos = (align + collision + 1) & 0x1F
                self.regs[COLL] = pos
                self.fifo = _pack(first[:collision], align)
                self.regs[FIFO_LEVEL] = len(self.fifo)
            self.collisions += 1
            return self.collision_status, b""
        out = _pack(first, align)
        if rx_crc:
            if align or n & 7 or n < 24 or iso14443a.crc_a(out[:-2]) != out[-2:]:
                return iso14443a.STATUS_CRC, b""
            out = out[:-2]
        return iso14443a.STATUS_OK, out


def _pack(bits, align):
    out = bytearray((align + len(bits) + 7) // 8)
    for k in range(len(bits)):
        if bits[k]:
            pos = align + k
            out[pos >> 3] |= 1 << (pos & 7)
    return bytes(out)
