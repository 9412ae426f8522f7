"""TagScan: ISO/IEC 14443-3 type A activation driven by the host, one PN532 command a step.

Why: a tag sent HLTA stays silent to REQA but answers WUPA.  Whether the PN532's own
InListPassiveTarget sends REQA or WUPA is not documented, and a chip that sends WUPA wakes
every halted card on the pile, so the newest card is found only if it wins anticollision.
TagScan sends the frames itself through InCommunicateThru, with the CIU's CRC off and the bit
framing set by WriteRegister:

    REQA  26 (7 bits)                         -> ATQA, or silence: no awake tag
    anticollision  SEL NVB [known UID bits]   -> the rest of CLn + BCC, or a collision
    SELECT  SEL 70 CLn BCC CRC_A              -> SAK (+CRC_A); SAK bit 2: next cascade level
    HLTA  50 00 CRC_A                         -> no answer: the tag is HALTed

Halted tags never answer REQA (ISO 14443-3, 6.3), so each scan hears only tags that were not
read yet, whatever the chip's listing does.  A partial last byte is sent with TxLastBits =
known bits mod 8 and received with RxAlign 0 (whether the PN532 honours RxAlign in
InCommunicateThru is not documented; libnfc never sets it): the answer's first bit is bit 0 of
the reply, shifted into place here.  A collision (two new cards answer at once): the chip's
CIU_Coll says where (CollPos) and its FIFO holds the bits before it, read in one ReadRegister;
the colliding bit is taken as 1 and the anticollision goes on from there (three commands per
collision).  Where the chip does not give CollPos (CollPosNotValid) the scan learns that and
walks bit by bit: extend the known prefix with a 1; silence means every answering tag has a 0
there, and the walk goes on with the next bit (a framing write and one exchange per UID bit
the tags share).  All the tags are found, one after the other, in the same scan.

A REQA goes only to IDLE tags: an activation that failed half way may leave tags READY, which
take a REQA as an unexpected frame and go back to IDLE without an answer (NTAG213F 8.4.4), so
after such a restart a silent REQA is sent once more before the scan counts as quiet.  The
scan leaves the CIU in raw mode (``raw``): the reader puts chip mode back
(``PN532.start_chip_mode``) before the chip's own commands.

``start(hand_off)`` sends the first command; then call ``step()`` each time
``pn532.reply_ready()``.  ``step()`` returns ``FOUND`` (``uid``/``uid_len``/``sak`` hold the
tag, selected, its HLTA sent; ``found_collided`` says whether another tag answered its REQA
too; the scan goes on by itself), ``QUIET`` (a REQA went unanswered: the scan is over), ``ANSWERED``
(with ``hand_off``: a REQA was answered and nothing more is sent: the chip's own listing,
one command, then reads what answered; ``collided`` says whether two kinds of tag did) or
``BUSY``.
Nothing is allocated after ``__init__``.
"""

from micropython import const

from drivers.pn532 import PN532Error

BUSY = const(0)
FOUND = const(1)
QUIET = const(2)
ANSWERED = const(3)

# generated from drivers.pn532 by scripts/gen_consts.py: do not edit
_MAX_UID_LEN = const(10)
# end generated
# InCommunicateThru status (pn532's thru_status): the tag answered / stayed silent.
_THRU_OK = const(0x00)
_THRU_TIMEOUT = const(0x01)

_REQA = const(b"\x26")                 # 7 bits
_HLTA = const(b"\x50\x00\x57\xcd")     # 50 00 and its CRC_A (0xCD57, low byte first)
_CASCADE_TAG = const(0x88)
_SAK_CASCADE = const(0x04)
_FRAMING_REQA = const(0x07)     # TxLastBits = 7
_COLL_NOT_VALID = const(0x20)   # CIU_Coll CollPosNotValid

_MAX_RESTARTS = const(4)   # garbled or vanished activations per scan before giving up

_S_IDLE = const(0)
_S_REGS = const(1)      # WriteRegister before REQA
_S_REQA = const(2)
_S_FRAMING = const(3)   # WriteRegister CIU_BitFraming before an anticollision/select frame
_S_ANTICOLL = const(4)
_S_SELECT = const(5)
_S_HLTA = const(6)
_S_COLL = const(7)      # ReadRegister CIU_Coll + FIFO after a collision


# Frame and reply buffers shared by every scan (each is used within one step: a frame is
# copied into the command as it is sent, a reply is parsed as it is read).
_FRAME = bytearray(9)
_REPLY = bytearray(8)


def crc_a(buf, n):
    """CRC_A (ISO 14443-3 annex B) of ``buf[:n]``: low byte first on air."""
    crc = 0x6363
    for i in range(n):
        b = (buf[i] ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return crc & 0xFFFF


class TagScan:
    def __init__(self, pn532):
        self.pn532 = pn532
        self.uid = bytearray(_MAX_UID_LEN)
        self.uid_len = 0
        self.sak = 0
        self.probes = 0          # anticollision frames sent (collision resolution cost)
        self.collisions = 0
        self.lost = 0            # tags that vanished mid-activation
        self._cl = bytearray(5)
        self._state = _S_IDLE
        self._restarts = 0
        self.collided = False    # two tags answered the current activation's REQA
        self.found_collided = False   # ... the activation of the tag just FOUND
        self._framing = -1       # CIU_BitFraming as last written, -1 unknown
        self._level = 0
        self._known = 0          # UID bits of this cascade level already known
        self._complete = False   # CLn known from a clean answer: SELECT next
        self.hand_off = False    # stop at an answered REQA (ANSWERED)
        self.raw = True          # the CIU may be in raw mode (or unknown): restore first
        self.use_coll = True     # the chip gives CIU_Coll (learned False once it does not)
        self._requery = False    # a silent REQA after a restart is sent once more

    @property
    def awaiting_reqa(self):
        """The next reply is a REQA's: an answer starts a tag's activation."""
        return self._state == _S_REQA

    def start(self, hand_off=False):
        """Begin a scan (CRC off, REQA framing); ``hand_off``: end it at an answered REQA."""
        self.hand_off = hand_off
        self._restarts = 0
        self._requery = False
        self._next_reqa()

    def _restart(self):
        """The activation failed half way (tag gone, garbled answer): REQA again, or end."""
        self.lost += 1
        self._restarts += 1
        if self._restarts > _MAX_RESTARTS:
            self._state = _S_IDLE
            return QUIET
        self._requery = True   # tags left READY take this REQA as unexpected (to IDLE)
        self._next_reqa()
        return BUSY

    def invalidate(self):
        """The CIU's state is unknown (a failure, a set-up): chip mode must be put back
        before the chip's own commands, raw mode before raw exchanges."""
        self._framing = -1
        self.raw = True

    def _next_reqa(self):
        """REQA, once the registers are set for it (then REQA at once, as when they still
        are from the last scan)."""
        self.collided = False
        if self._framing != _FRAMING_REQA:
            self.pn532.start_raw_mode(_FRAMING_REQA)
            self._framing = _FRAMING_REQA
            self.raw = True
            self._state = _S_REGS
            return
        self.pn532.start_thru(_REQA, 1)
        self._state = _S_REQA

    def stop(self):
        """End the scan; a command of it may still be pending (abort it before reuse)."""
        if self._state != _S_IDLE and self._state != _S_REQA:
            self._framing = -1
        self._state = _S_IDLE

    def step(self):
        """Read the reply to the scan's last command (REQA, anticollision, SELECT, HLTA)
        and send the next one."""
        # (Kept small, as _next_frame is: a function whose locals and stack pass 11 words
        # gets its frame from the heap at every call; the level replies and the frame
        # building have theirs.)
        state = self._state
        pn = self.pn532
        if state == _S_REGS:
            pn.finish_write_register()
            self._next_reqa()
            return BUSY
        if state == _S_FRAMING:
            pn.finish_write_register()
            self._send_level_frame()
            return BUSY
        if state == _S_COLL:
            self._coll_read()
            return BUSY
        n = pn.finish_thru(_REPLY)
        status = pn.thru_status
        if state == _S_REQA:
            if status == _THRU_TIMEOUT:
                if self._requery:
                    self._requery = False
                    pn.start_thru(_REQA, 1)
                    return BUSY
                self._state = _S_IDLE
                return QUIET
            self._requery = False
            if status != _THRU_OK:
                self.collided = True   # different ATQAs: two kinds of tag at once
            if self.hand_off:
                self._state = _S_IDLE
                return ANSWERED
            self._level = 0
            self.uid_len = 0
            self._known = 0   # cascade level 1: no UID bit known yet
            self._complete = False
            self._next_frame()
            return BUSY
        if state == _S_HLTA:
            # HLTA is never answered: silence is success.  Go on with the next REQA.
            self._next_reqa()
            return BUSY
        if state == _S_IDLE:
            raise PN532Error("scan not started")
        return self._level_reply(state, status, n)   # _S_ANTICOLL, _S_SELECT

    def _level_reply(self, state, status, n):
        """An anticollision or SELECT reply (``n`` bytes in ``_REPLY``)."""
        reply = _REPLY
        cl = self._cl
        if state == _S_ANTICOLL:
            known = self._known
            if status == _THRU_OK:
                if n != (47 - known) >> 3:
                    return self._restart()
                self._merge_from(reply, 0, n)
                if cl[0] ^ cl[1] ^ cl[2] ^ cl[3] != cl[4]:
                    return self._restart()
                self._complete = True
            else:
                if status == _THRU_TIMEOUT:
                    if known == 0 or known >= 32:
                        # Every tag that answered has gone: start again with a REQA.
                        return self._restart()
                    # Nobody has a 1 there, so every answering tag has a 0; they still
                    # collide further on (unless they left: then silence goes on to bit 32
                    # and restarts), so go straight on with a 1 in the next bit.
                    k = known - 1
                    cl[k >> 3] &= ~(1 << (k & 7)) & 0xFF
                else:
                    # Two or more tags differ in a bit after the known ones: where, the
                    # chip may say; else try a 1 next.
                    self.collisions += 1
                    self.collided = True
                    if self.use_coll:
                        self.pn532.start_coll()
                        self._state = _S_COLL
                        return BUSY
                cl[known >> 3] |= 1 << (known & 7)
                self._known = known + 1
            self._next_frame()
            return BUSY
        # SELECT: the SAK and its CRC_A.
        if status != _THRU_OK or n != 3 or crc_a(reply, 1) != (reply[1] | (reply[2] << 8)):
            # The tag went away (or a garbled SAK): start again with a REQA.
            return self._restart()
        sak = reply[0]
        first = 1 if (sak & _SAK_CASCADE and cl[0] == _CASCADE_TAG) else 0
        for i in range(first, 4):
            if self.uid_len < _MAX_UID_LEN:
                self.uid[self.uid_len] = cl[i]
                self.uid_len += 1
        if sak & _SAK_CASCADE and self._level < 2:
            self._level += 1   # the next cascade level: no bit of it known yet
            self._known = 0
            self._complete = False
            self._next_frame()
            return BUSY
        self.sak = sak
        # Identified: FOUND now, while its HLTA goes out (the next step reads that).
        self.found_collided = self.collided
        self.pn532.start_thru(_HLTA, 4)
        self._state = _S_HLTA
        return FOUND

    def _coll_read(self):
        """CIU_Coll and the FIFO (read into ``_REPLY``): the bits before the collision are
        every answering tag's; the colliding one is taken as 1."""
        n = self.pn532.finish_coll(_REPLY)
        coll = _REPLY[0]
        known = self._known
        pos = known + ((coll & 0x1F) or 32) - 1   # CollPos: 1-based, from the first bit received
        if coll & _COLL_NOT_VALID or pos >= 32:
            self.use_coll = False   # this chip does not tell: walk bit by bit from now on
            pos = known
        else:
            self._merge_from(_REPLY, 1, n - 1)
        self._cl[pos >> 3] |= 1 << (pos & 7)
        self._known = pos + 1
        self._next_frame()

    def _merge_from(self, src, at, n):
        """The bits received (``src[at:at + n]``, the first at bit 0) into CLn from bit
        ``_known`` on; bits past them are left as garbage the frames mask off."""
        cl = self._cl
        known = self._known
        j = known >> 3
        nb = known & 7
        acc = cl[j] & ((1 << nb) - 1)
        end = at + n
        while j < 5:
            if at < end:
                acc |= src[at] << nb
                at += 1
                nb += 8
            cl[j] = acc & 0xFF
            acc >>= 8
            nb -= 8   # (negative once the bits ran out: no byte is shifted in after that)
            j += 1

    # ---- frames ----------------------------------------------------------------------
    def _next_frame(self):
        """Anticollision (or SELECT once every bit is known), writing the framing first
        (TxLastBits only: RxAlign stays 0)."""
        want = 0 if self._complete else self._known & 7
        if want != self._framing:
            self.pn532.start_bit_framing(want)
            self._framing = want
            self._state = _S_FRAMING
        else:
            self._send_level_frame()

    def _send_level_frame(self):
        frame = _FRAME
        cl = self._cl
        complete = self._complete
        frame[0] = 0x93 + 2 * self._level
        # SELECT sends all 40 bits of CLn: its NVB (bytes sent << 4 | bits) is 0x70.
        known = 40 if complete else self._known
        whole = known >> 3
        bits = known & 7
        frame[1] = ((2 + whole) << 4) | bits
        nbytes = whole + (1 if bits else 0)
        for i in range(nbytes):
            frame[2 + i] = cl[i]
        if bits:
            frame[1 + nbytes] &= (1 << bits) - 1
        if complete:
            crc = crc_a(frame, 7)
            frame[7] = crc & 0xFF
            frame[8] = crc >> 8
            self.pn532.start_thru(frame, 9)
            self._state = _S_SELECT
        else:
            self.pn532.start_thru(frame, 2 + nbytes)
            self.probes += 1
            self._state = _S_ANTICOLL
