"""Non-blocking piezo beeps on a ``machine.PWM`` passed in.

Tones are queued as ``(freq_hz, ms)`` in preallocated arrays (freq 0 = silence) and played
by ``update(now_ms)`` from the main loop; nothing ever sleeps.  ``now_ms`` is the same
monotonic session millisecond clock the LED renderers use.  A tone lasts at least its ms,
rounded up to the main loop period.  When the queue is full, extra tones are dropped and
counted in ``dropped``.

Canned sounds are flat tuples ``(f0, ms0, f1, ms1, ...)`` for ``play()``; tuples of
constants live in the bytecode, so ``play(Buzzer.ACCEPT)`` allocates nothing.
"""

from array import array

from micropython import const

_CAP = const(16)


class Buzzer:
    ACCEPT = (2600, 40)
    ILLEGAL = (330, 120, 0, 40, 330, 120)
    LATE = (880, 60, 0, 30, 660, 60)
    TIE = (1400, 60, 0, 30, 1400, 60)
    SPIT = (1760, 80, 2350, 80)
    ERROR = (220, 400)
    READY = (1320, 50, 0, 50, 1760, 50)

    def __init__(self, pwm, volume=8000):
        self.pwm = pwm
        self.volume = volume  # duty_u16 while a tone plays (32768 = loudest square wave)
        self.enabled = True
        self._freq = array("H", bytes(2 * _CAP))
        self._ms = array("H", bytes(2 * _CAP))
        self._head = 0
        self._len = 0
        self._playing = False
        self._end_ms = 0
        self.dropped = 0
        pwm.duty_u16(0)

    def tone(self, freq, ms):
        """Queue one tone (freq 0 = rest). Returns False if the queue was full."""
        if not self.enabled:
            return False
        if self._len >= _CAP:
            self.dropped += 1
            return False
        i = (self._head + self._len) % _CAP
        self._freq[i] = freq
        self._ms[i] = ms
        self._len += 1
        return True

    def play(self, seq):
        """Queue a flat (f0, ms0, f1, ms1, ...) sequence."""
        ok = True
        for k in range(1, len(seq), 2):
            if not self.tone(seq[k - 1], seq[k]):
                ok = False
        return ok

    def busy(self):
        return self._playing or self._len > 0

    def update(self, now_ms):
        """Advance the queue; call every loop iteration. Returns True while sounding/queued."""
        if self._playing:
            if now_ms - self._end_ms < 0:
                return True
            self._playing = False
            if self._len == 0:
                self.pwm.duty_u16(0)   # the last tone is over
        if self._len == 0:
            return False
        i = self._head
        f = self._freq[i]
        self._end_ms = now_ms + self._ms[i]
        self._head = (i + 1) % _CAP
        self._len -= 1
        self._playing = True
        if f:
            self.pwm.freq(f)
        self.pwm.duty_u16(self.volume if f else 0)   # (freq 0: a rest)
        return True

    def stop(self):
        """Silence now and drop the queue."""
        self._len = 0
        self._playing = False
        self.pwm.duty_u16(0)
