"""The virtual board's step heap lock, and the gate fakes of C code open while they run.

On the chip, SPI/I2C transfers, PIO FIFO puts and sleeps are C code and allocate nothing;
their fakes here are Python (they record, emulate devices, print).  ``VirtualTable`` can run
every firmware step under ``micropython.heap_lock()`` (``lock_step()``), and the firmware
locks the heap itself around code that allocates nothing (``fw_lock()``, given to the App
as its ``heap_lock``); a fake entered from firmware code calls ``enter_c()`` / ``exit_c()``
around its own work, which releases and re-takes those locks, so only the firmware's own
allocations raise MemoryError.
Nothing here allocates.  On CPython (no heap lock) every call is a no-op.
"""

try:
    import micropython as _mp
    _lock = _mp.heap_lock
    _unlock = _mp.heap_unlock
except (ImportError, AttributeError):
    _lock = None
    _unlock = None

_state = bytearray(2)   # [0]: heap-lock levels held (the runner's step lock, the firmware's
#                          own: App.heap_lock); [1]: depth of open gates (the heap is unlocked)


def _take(levels):
    for _ in range(levels):
        _lock()


def _release(levels):
    for _ in range(levels):
        _unlock()


def lock_step():
    """The runner takes the step lock (only if the real heap lock exists)."""
    if _lock is not None:
        if _state[1] == 0:
            _lock()
        _state[0] += 1


def unlock_step():
    if _state[0]:
        _state[0] -= 1
        if _state[1] == 0:
            _unlock()


# The firmware's own locks (App.heap_lock / heap_unlock) on the virtual board: the same
# levels, so a gate opened inside them releases them all while a fake runs.
fw_lock = lock_step
fw_unlock = unlock_step


def enter_c():
    if _state[0]:
        if _state[1] == 0:
            _release(_state[0])
        _state[1] += 1


def exit_c():
    if _state[0]:
        _state[1] -= 1
        if _state[1] == 0:
            _take(_state[0])
