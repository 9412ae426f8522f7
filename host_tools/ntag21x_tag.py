"""An emulated NTAG21x tag (NTAG213/215/216) for the pty PN532 emulator: UID, page memory and the READ and
WRITE commands a host sends it through InDataExchange.

The tag's ISO 14443-3 state (HALT) is the virtual board's shared model (``host_tools/vboard/iso14443a.py``).
"""

from host_tools.vboard import iso14443a

NTAG_READ = 0x30
NTAG_WRITE = 0xA2

# model: (total pages, capability-container size byte, last user page)
NTAG_MODELS = {
    "NTAG213": (45, 0x12, 39),
    "NTAG215": (135, 0x3E, 129),
    "NTAG216": (231, 0x6D, 225),
}


class NtagTag:
    """An NTAG21x tag: 7-byte UID and page memory laid out like a factory-fresh NXP tag."""

    sens_res = b"\x00\x44"   # ATQA of NTAG21x as the PN532 reports it
    sel_res = 0x00           # SAK

    def __init__(self, uid, model="NTAG213"):
        if isinstance(uid, str):
            uid = bytes.fromhex(uid)
        if len(uid) != 7:
            raise ValueError("NTAG UIDs are 7 bytes, got %d" % len(uid))
        if model not in NTAG_MODELS:
            raise ValueError("unknown NTAG model %r" % model)
        self.uid = bytes(uid)
        self.model = model
        self.iso = iso14443a.Tag(self.uid, 0)   # ISO 14443-3 state (HALT), shared model
        total_pages, cc_size, last_user_page = NTAG_MODELS[model]
        self.total_pages = total_pages
        self.user_pages = range(4, last_user_page + 1)
        self.memory = bytearray(total_pages * 4)
        u = self.uid
        self._set_page(0, [u[0], u[1], u[2], 0x88 ^ u[0] ^ u[1] ^ u[2]])
        self._set_page(1, u[3:7])
        self._set_page(2, [u[3] ^ u[4] ^ u[5] ^ u[6], 0x48, 0x00, 0x00])
        self._set_page(3, [0xE1, 0x10, cc_size, 0x00])
        self._set_page(4, [0x03, 0x00, 0xFE, 0x00])  # empty NDEF message TLV + terminator
        self._set_page(last_user_page + 1, [0x00, 0x00, 0x00, 0xBD])  # dynamic lock bytes
        self._set_page(last_user_page + 2, [0x04, 0x00, 0x00, 0xFF])  # CFG0: AUTH0 = FF (no password)
        self._set_page(last_user_page + 3, [0x00, 0x05, 0x00, 0x00])  # CFG1
        # PWD and PACK read back as zeros

    @property
    def uid_hex(self):
        """The UID as upper-case hex, the card-map key format."""
        return self.uid.hex().upper()

    def _set_page(self, page, data):
        self.memory[page * 4:page * 4 + 4] = bytes(data)

    def read(self, page):
        """NTAG READ: 16 bytes from ``page`` on (rolling over to page 0), or None for a NAK."""
        if not 0 <= page < self.total_pages:
            return None
        out = bytearray()
        for i in range(4):
            p = (page + i) % self.total_pages
            out += self.memory[p * 4:p * 4 + 4]
        return bytes(out)

    def write(self, page, data):
        """NTAG WRITE of one page. Pages 0-3 (UID, lock, CC) are treated as read-only. False means NAK."""
        if len(data) != 4 or not 4 <= page < self.total_pages:
            return False
        self._set_page(page, data)
        return True
