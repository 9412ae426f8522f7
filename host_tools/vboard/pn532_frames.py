"""The PN532's frames (user manual UM0701, section 6.2): the same on HSU (UART), SPI and I2C, as the
emulators speak them (the pty's HSU one, the virtual board's SPI/I2C one).

Fixed frames (ACK, NACK, the application-level error frame), the frame identifiers, the HSU wake-up byte,
:func:`build_frame` for a normal information frame and :class:`FrameParser`, which splits the byte stream
a host writes into ACKs, NACKs, frames and bad frames. What the chip does with a frame is
:mod:`fakes.pn532_hsu_emulator`'s concern.
"""

ACK_FRAME = b"\x00\x00\xff\x00\xff\x00"
NACK_FRAME = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
WAKEUP_BYTE = 0x55


def build_frame(payload):
    """Wrap ``payload`` (TFI + command + data) in a normal information frame."""
    length = len(payload)
    checksum = (-sum(payload)) & 0xFF
    return bytes([0x00, 0x00, 0xFF, length, (-length) & 0xFF]) + bytes(payload) + bytes([checksum, 0x00])


class FrameParser:
    """Splits the host byte stream into frames. Yields ('ack'|'nack'|'frame'|'bad', payload) events."""

    def __init__(self):
        self.buffer = bytearray()

    def feed(self, data):
        self.buffer += data
        events = []
        while True:
            event = self._next_event()
            if event is None:
                return events
            events.append(event)

    def _next_event(self):
        buf = self.buffer
        start = buf.find(b"\x00\xff")
        if start < 0:
            # keep a trailing 0x00 that may begin a start code; drop the rest (preamble, wake-up bytes)
            del buf[:max(0, len(buf) - 1)]
            return None
        del buf[:start]
        if len(buf) < 4:
            return None
        if buf[2:4] == b"\x00\xff":
            del buf[:4]
            return ("ack", b"")
        if buf[2:4] == b"\xff\x00":
            del buf[:4]
            return ("nack", b"")
        if buf[2:4] == b"\xff\xff":          # extended frame: 00 FF FF FF LENM LENL LCS
            if len(buf) < 7:
                return None
            length = (buf[4] << 8) | buf[5]
            length_ok = (buf[4] + buf[5] + buf[6]) & 0xFF == 0
            header = 7
        else:
            length = buf[2]
            length_ok = (buf[2] + buf[3]) & 0xFF == 0
            header = 4
        if not length_ok:
            del buf[:2]
            return ("bad", b"")
        if len(buf) < header + length + 1:
            return None
        payload = bytes(buf[header:header + length])
        checksum = buf[header + length]
        del buf[:header + length + 1]
        if (sum(payload) + checksum) & 0xFF != 0:
            return ("bad", b"")
        return ("frame", payload)
