"""The virtual board's step heap lock, and the gate fakes of C code open while they run.

On the chip, SPI/I2C transfers, PIO FIFO puts and sleeps are C code and allocate nothing;
their fakes here are Python (they record, emulate devices, print).  ``VirtualTable`` can run
every firmware step under ``micropython.heap_lock()`` (``lock_steps()``); a fake entered from
firmware code calls ``enter_c()`` / ``exit_c()`` around its own work, which releases and
re-takes that one lock, so only the firmware's own allocations raise MemoryError.
Nothing here allocates.  On CPython (no heap lock) every call is a no-op.
"""

try:
    import micropython as _mp
    _lock = _mp.heap_lock
    _unlock = _mp.heap_unlock
except (ImportError, AttributeError):
    _lock = None
    _unlock = None

_state = bytearray(2)   # [0]: the runner holds the step lock; [1]: depth of open gates


def lock_step():
    """The runner takes the step lock (only if the real heap lock exists)."""
    if _lock is not None:
        _lock()
        _state[0] = 1


def unlock_step():
    if _state[0]:
        _state[0] = 0
        _unlock()


def enter_c():
    if _state[0]:
        if _state[1] == 0:
            _unlock()
        _state[1] += 1


def exit_c():
    if _state[0]:
        _state[1] -= 1
        if _state[1] == 0:
            _lock()


import gc

try:
    _mem_current = _mp.mem_current   # (unix port: bytes in use)
except (NameError, AttributeError):
    _mem_current = None

gated_bytes = [0]   # bytes allocated inside gated calls


def gate_reader(reader):
    """Run ``reader.service`` and ``reader.forget`` outside the step lock and count what it allocates in
    ``gated_bytes``; its ``on_card`` callback (the firmware's landing path) runs locked again.
    For driver code whose allocations are measured, not proved absent."""
    service = reader.service
    on_card = reader.on_card

    def gated_service(now_us):
        enter_c()
        gc.disable()   # no collection inside: the difference is what the call allocated
        before = _mem_current() if _mem_current is not None else 0
        try:
            return service(now_us)
        finally:
            if _mem_current is not None:
                gated_bytes[0] += _mem_current() - before
            gc.enable()
            exit_c()

    def locked_on_card(pile, uid, ticks):
        exit_c()   # the firmware's landing path: under the lock again
        try:
            on_card(pile, uid, ticks)
        finally:
            enter_c()

    forget = reader.forget

    def gated_forget(uid):
        enter_c()
        gc.disable()
        before = _mem_current() if _mem_current is not None else 0
        try:
            return forget(uid)
        finally:
            if _mem_current is not None:
                gated_bytes[0] += _mem_current() - before
            gc.enable()
            exit_c()

    reader.service = gated_service
    reader.forget = gated_forget
    if on_card is not None:
        reader.on_card = locked_on_card
