"""The board side of ``spit flash`` and ``spit logs``/``spit console``: finding the board's serial port,
running mpremote on it, and the one-line MicroPython scripts ``spit flash`` sends (``prepare_script``
makes the directories and removes old modules; ``verify_script`` imports the engine and prints the
version line that ``VERSION_LINE`` reads).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import threading

from host_tools.device.manifest import FlashError

RASPBERRY_PI_VID = 0x2E8A
MPREMOTE_TIMEOUT_S = 300
VERSION_LINE = re.compile(r"^spit-referee (\S+) board=(.*) platform=(\S+)\s*$", re.M)


def remote_dirs(remote_paths):
    """Every directory the remote files need, parents first."""
    dirs = set()
    for path in remote_paths:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    dirs.add("logs")
    return sorted(dirs, key=lambda d: (d.count("/"), d))


def _py_list(strings):
    """A MicroPython list literal in double quotes, so shell quoting in --dry-run output stays readable."""
    return json.dumps(list(strings))


def prepare_script(dirs, clean_dirs):
    """One line of MicroPython: mkdir -p ``dirs``, then delete .py/.mpy modules in ``clean_dirs``."""
    return ('import os;L=lambda p:os.listdir(p) if p else os.listdir();'
            '[os.mkdir(d) for d in %s if d.rpartition("/")[2] not in L(d.rpartition("/")[0])];'
            '[os.remove(d+"/"+f) for d in %s for f in L(d) if f[-3:]==".py" or f[-4:]==".mpy"]'
            % (_py_list(dirs), _py_list(clean_dirs)))


def verify_script(modules, name):
    """One line of MicroPython that imports the engine and prints the version line."""
    return ('import sys,json,spit;[__import__(m) for m in %s];b=json.load(open("board.json"));'
            'print("spit-referee",spit.__version__,"board="+str(b.get("name") or %s),"platform="+sys.platform)'
            % (_py_list(modules), json.dumps(name)))


def detect_port():
    """Like mpremote's ``auto``: a Raspberry Pi USB device first, else the first USB serial port."""
    from serial.tools import list_ports
    ports = [p for p in list_ports.comports() if p.vid is not None]
    if not ports:
        raise FlashError("no board found: no USB serial device is connected (plug in the Pico or pass --port)")
    ports.sort(key=lambda p: (p.vid != RASPBERRY_PI_VID, p.device))
    return ports[0].device


def check_port(port):
    """FlashError if ``port`` is a device path that does not exist (mpremote would only say it "may be
    in use by another program"); ``None``/``auto``, names such as COM5 and URLs pass."""
    if port and os.sep in port and "://" not in port and not os.path.exists(port):   # (URLs: rfc2217://)
        raise FlashError("no device at %s: is the board plugged in? (without --port, spit finds a connected "
                         "Pico by itself)" % port)


def mpremote_argv(port, actions):
    return [sys.executable, "-u", "-m", "mpremote", "connect", port] + actions


def show_command(port, actions):
    return shlex.join(["mpremote", "connect", port] + actions)


def run_mpremote(port, actions, on_line=None, timeout=MPREMOTE_TIMEOUT_S):
    """Run mpremote, feeding each output line to ``on_line``; return the output. FlashError on failure."""
    proc = subprocess.Popen(mpremote_argv(port, actions), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace")
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    lines = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line)
            if on_line:
                on_line(line)
        proc.wait()
    finally:
        timer.cancel()
        proc.stdout.close()
    output = "".join(lines)
    if proc.returncode != 0:
        if timed_out.is_set():
            raise FlashError("mpremote on %s timed out after %d s" % (port, timeout))
        last = [ln.strip() for ln in lines if ln.strip()]
        reason = last[-1] if last else "exit code %d" % proc.returncode
        raise FlashError("mpremote on %s failed: %s" % (port, reason.replace("mpremote: ", "")))
    return output


def run_relayed(argv, idle_s=None, out=None):
    """Run ``argv`` (an mpremote command), its output passed on to ``out`` (our stdout) as it
    comes.  Returns its exit code, or None when it said nothing for ``idle_s`` seconds (None: no
    limit) and was stopped: a board that stopped answering is an error, never an endless wait."""
    import time
    out = out or sys.stdout
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    last = [time.monotonic()]

    def relay():
        for data in iter(lambda: os.read(proc.stdout.fileno(), 4096), b""):
            last[0] = time.monotonic()
            out.write(data.decode(errors="replace"))
            out.flush()
    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    try:
        while proc.poll() is None:
            if idle_s is not None and time.monotonic() - last[0] > idle_s:
                proc.kill()
                proc.wait()
                return None
            time.sleep(0.05)
        reader.join(5)
        return proc.returncode
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(1)
        proc.stdout.close()
