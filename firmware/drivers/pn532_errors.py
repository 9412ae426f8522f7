"""PN532 driver errors, the frame-size rule the transports use to read length first, and
``prefix_views`` for transfers that allocate nothing."""

from micropython import const

HEADER_SIZE = const(6)   # 00 00 FF LEN LCS + one byte: a whole ACK/NACK, or TFI of a frame


class PN532Error(Exception):
    """Anything the PN532 said (or did not say) that the caller should handle and carry on."""
    kind = "error"


class PN532Timeout(PN532Error):
    kind = "timeout"


class PN532Nack(PN532Error):
    kind = "nack"


class PN532ChecksumError(PN532Error):
    kind = "checksum"


class PN532ErrorFrame(PN532Error):
    kind = "error-frame"


class PN532StatusError(PN532Error):
    kind = "status"


class PN532BusError(PN532Error):
    kind = "bus"


def frame_size(header):
    """Total size of the frame whose first 5 bytes are in ``header`` (0 = not a frame)."""
    if header[0] != 0x00 or header[1] != 0x00 or header[2] != 0xFF:
        return 0
    length = header[3]
    lcs = header[4]
    if (length == 0x00 and lcs == 0xFF) or (length == 0xFF and lcs == 0x00):
        return HEADER_SIZE   # ACK / NACK
    if (length + lcs) & 0xFF:
        return HEADER_SIZE   # bad length checksum: _finish reports it
    return length + 7


def prefix_views(buf):
    """``views[k]`` is ``memoryview(buf)[:k]`` for every k, made once: a slice made per
    transfer would allocate (``machine.SPI``/``I2C`` always send or fill a whole buffer)."""
    view = memoryview(buf)
    return tuple(view[:k] for k in range(len(buf) + 1))
