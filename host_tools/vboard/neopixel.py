"""Fake ``neopixel.NeoPixel`` for the virtual board (MicroPython-compatible).

``pixels`` is what the firmware has set (``np[i] = (r, g, b)``); ``shown`` is what the strip
physically displays, i.e. a copy of ``pixels`` taken at the last ``write()``.  ``writes``
counts ``write()`` calls, so tests can check the firmware only writes on change.
"""


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        blank = (0, 0, 0) if bpp == 3 else (0, 0, 0, 0)
        self._blank = blank
        self.pixels = [blank] * n
        self.shown = [blank] * n
        self.writes = 0
        self.sets = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        if len(v) != self.bpp:
            raise ValueError("pixel needs %d components" % self.bpp)
        for c in v:
            if not 0 <= c <= 255:
                raise ValueError("pixel component out of range: %r" % (v,))
        self.pixels[i] = tuple(v)
        self.sets += 1

    def __getitem__(self, i):
        return self.pixels[i]

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        self.shown = list(self.pixels)
        self.writes += 1

    # --- test helpers ---
    def lit(self):
        """Indices of pixels that are shown non-black."""
        return [i for i in range(self.n) if self.shown[i] != self._blank]
