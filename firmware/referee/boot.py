"""Spit referee: boot and run (``/main.py`` on the board is a stub that calls ``run()``).

Prints ``spit-referee <version> board=<name>``, self-tests and runs the referee loop.  A
missing or bad ``board.json``, ``ruleset.json``, ``cards.bin`` or ``logtables.bin`` prints one
line naming the file and the key, then blinks the status LED (2 missing, 3 bad JSON, 4 bad
content, 5 a device failed, 6 ruleset, 7 card map, 8 firmware bug, 9 log tables) until reset:
never a traceback loop.  An error in the loop (a firmware bug) is printed with its traceback
and the same game goes on; only errors that keep coming start a new game, then stop the
referee with blink code 8 (``run``).
Ctrl-C (mpremote) stops it as usual.

Off the device (``host_tools/vboard/runner.py``) ``main.py`` is imported as a module: the
runner calls ``start()`` and steps ``App.step()`` itself.
"""

import sys
import time

from micropython import const

# A loop error (a firmware bug) is printed and the same game goes on.  Errors that follow each
# other (each within _ERROR_WINDOW_MS of the last) escalate: the _ERRORS_TO_RESTART-th starts
# a new game (the game state may be the cause), twice as many stop the referee (blink code 8).
_ERRORS_TO_RESTART = const(3)
_ERROR_WINDOW_MS = const(10000)
# generated from referee.boardfile by scripts/gen_consts.py: do not edit
_ERR_FIRMWARE = const(8)  # a firmware bug: an error at boot, or loop errors that keep coming
# end generated


def start(root="", echo=None):
    """Boot the referee and return the ``App`` (raises ``referee.startup.BootError``).
    ``echo(buf, off, n)`` also gets every session log line (the live log on the console:
    ``sys.stdout.write``, which on MicroPython writes ``n`` bytes of ``buf`` from ``off``)."""
    # The session log's RAM buffers first, while the heap is still in one piece: its records
    # (9 KB) and the Logbook's line buffer (the lines are formatted at pauses, 1 KB at a time:
    # one flash write per pause step either way, so a bigger buffer would only hold heap).
    from referee.sessionlog import make_records, LOG_BUFFER_BYTES
    log_records = make_records()
    log_buffer = bytearray(LOG_BUFFER_BYTES)
    from referee.app import App

    app = App(root, echo=echo, log_records=log_records)
    app.boot(log_buffer)
    return app


def _print_exception(e):
    if hasattr(sys, "print_exception"):
        sys.print_exception(e)  # type: ignore[attr-defined]


def _blink(led, code, cycles):
    from referee.boardfile import blink_code

    while cycles != 0:
        blink_code(led, code, 1)
        if cycles > 0:
            cycles -= 1
    return code


def run(root="", error_cycles=-1, echo=True):
    """Boot and loop forever.  On a boot error: one line, then blink its code ``error_cycles``
    times (-1: forever) and return the code.  ``echo``: the session log goes live to the
    console too (``spit console`` shows the game as it is refereed; a Pico with no USB host
    drops it at no cost).  ``echo=True``: ``sys.stdout.write``."""
    if echo is True:
        echo = sys.stdout.write
    try:
        app = start(root, echo)
    except Exception as e:  # noqa: BLE001 - top level: report once, never crash-loop (Ctrl-C, a
        # KeyboardInterrupt, is no Exception: it passes)
        if hasattr(e, "code") and hasattr(e, "led") and hasattr(e, "what"):
            print(str(e))
            return _blink(getattr(e, "led"), getattr(e, "code"), error_cycles)
        print("spit-referee: firmware error at boot (blink code 8): %s: %s" % (type(e).__name__, e))
        _print_exception(e)
        return _blink(None, _ERR_FIRMWARE, error_cycles)
    errors = 0       # loop errors, each within _ERROR_WINDOW_MS of the one before
    last_ms = 0
    while True:
        try:
            app.run_forever()
        except KeyboardInterrupt:
            app.close()
            raise
        except Exception as e:  # noqa: BLE001 - a firmware bug must not end the game
            now = time.ticks_ms()
            if errors and time.ticks_diff(now, last_ms) > _ERROR_WINDOW_MS:
                errors = 0   # (an isolated error long after the last one)
            errors += 1
            last_ms = now
            stop = errors >= 2 * _ERRORS_TO_RESTART
            restart = errors == _ERRORS_TO_RESTART
            print("spit-referee: loop error %d: %s: %s (%s)" % (errors, type(e).__name__, e, (
                "stopped: blink code 8" if stop else "a new game" if restart else "the game goes on")))
            _print_exception(e)
            try:
                if stop:
                    app.close()
                elif restart:
                    app.new_session()
            except Exception as e2:  # noqa: BLE001 - the recovery failed too: stop
                _print_exception(e2)
                stop = True
            if stop:
                return _blink(app.status, _ERR_FIRMWARE, error_cycles)
