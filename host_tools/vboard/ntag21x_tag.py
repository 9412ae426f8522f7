"""An emulated NTAG21x tag (NTAG213/215/216) for the pty PN532 emulator: the virtual board's tag
model (``host_tools/vboard/iso14443a.py``: ISO 14443-3 states, READ, WRITE, GET_VERSION, the
memory of a factory-fresh NXP tag) with the conveniences ``spit enroll``'s tests use.
"""

from host_tools.vboard import iso14443a

NTAG_READ = iso14443a.READ
NTAG_WRITE = iso14443a.WRITE
NTAG_MODELS = dict((name, value[:3]) for name, value in iso14443a.NTAG_MODELS.items())


class NtagTag(iso14443a.Tag):
    """An NTAG21x tag: 7-byte UID and page memory laid out like a factory-fresh NXP tag."""

    def __init__(self, uid, model="NTAG213"):
        if isinstance(uid, str):
            uid = bytes.fromhex(uid)
        if len(uid) != 7:
            raise ValueError("NTAG UIDs are 7 bytes, got %d" % len(uid))
        if model not in NTAG_MODELS:
            raise ValueError("unknown NTAG model %r" % model)
        super().__init__(uid, 0, model=model)
        total_pages, _, last_user_page = NTAG_MODELS[model]
        self.total_pages = total_pages
        self.user_pages = range(4, last_user_page + 1)

    @property
    def iso(self):
        """The ISO 14443-3 state (the tag itself; kept for older callers)."""
        return self

    @property
    def uid_hex(self):
        """The UID as upper-case hex, the card-map key format."""
        return self.uid.hex().upper()
