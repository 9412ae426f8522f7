"""Session time without big ints.

Session time is a pair ``(ms, us)``: whole milliseconds since the session start (a small
int for 12 days) and the microseconds within that millisecond (0..999).  Pairs compare
lexicographically and their differences are computed in microseconds, saturated at
``SATURATED_US`` so that a difference never leaves the 31-bit small-int range.

``spit.clock.SessionClock`` turns the RP2040's wrapping ticks into that pair.
"""

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython
    def const(x):
        return x

SATURATED_US = const(500000000)   # 500 s: |differences| are clamped here
_SAT_MS = const(500000)


def diff_us(a_ms, a_us, b_ms, b_us):
    """``a - b`` in microseconds, clamped to +-SATURATED_US (no big ints)."""
    dm = a_ms - b_ms
    if dm >= _SAT_MS:
        return SATURATED_US
    if dm <= -_SAT_MS:
        return -SATURATED_US
    return dm * 1000 + (a_us - b_us)


def before(a_ms, a_us, b_ms, b_us):
    """True when time a is strictly earlier than time b."""
    return a_ms < b_ms or (a_ms == b_ms and a_us < b_us)
