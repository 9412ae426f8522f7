"""`spit logs pull` (copy the session logs off the board) and `spit console` (the board's REPL), via mpremote.

Session logs live in ``/logs/`` on the board (JSON Lines, docs/log-format.md). ``logs pull`` lists that
directory with one ``exec`` and copies every file in a single mpremote session (``fs cp :logs/a DEST/a + ...``),
showing ``[k/N]`` progress on stderr. Remote paths are relative, as in ``spit flash``.
"""

import json
import os
import sys

from host_tools.board_mpremote import detect_port, run_mpremote, show_command
from host_tools.flash import FlashError, Progress

LOGS_DIR = "logs"
LIST_MARK = "SPIT-LOGS "
# Regular files only (ilistdir type 0x8000); prints null when there is no logs/ directory yet.
LIST_SCRIPT = (
    "import os,json\n"
    "try:\n"
    " n=[e[0] for e in os.ilistdir(%r) if e[1]==0x8000]\n"
    "except OSError:\n"
    " n=None\n"
    "print(%r+json.dumps(n))" % (LOGS_DIR, LIST_MARK))


def resolve_port(port):
    """``None`` or ``auto`` -> the detected board's device path."""
    return detect_port() if port in (None, "auto") else port


def list_logs(port):
    """Names of the files in the board's logs/ directory, sorted; ``None`` if there is no such directory."""
    output = run_mpremote(port, ["exec", LIST_SCRIPT])
    for line in output.splitlines():
        if line.startswith(LIST_MARK):
            names = json.loads(line[len(LIST_MARK):])
            return None if names is None else sorted(names)
    raise FlashError("unexpected answer listing logs/ on %s: %r" % (port, output.strip()[-200:]))


def pull_logs(port, dest, err=None):
    """Copy every file of the board's logs/ into ``dest``. Returns the local paths written."""
    err = err or sys.stderr
    port = resolve_port(port)
    names = list_logs(port)
    if not names:
        err.write("no session logs on the board at %s\n" % port)
        return []
    os.makedirs(dest, exist_ok=True)
    actions = []
    local_paths = []
    for name in names:
        local = os.path.join(dest, name)
        local_paths.append(local)
        if actions:
            actions.append("+")
        actions += ["fs", "cp", ":%s/%s" % (LOGS_DIR, name), local]
    progress = Progress(err)
    count = [0]

    def on_line(line):
        if line.startswith("cp "):
            count[0] += 1
            progress.step(count[0], len(names), line.split()[1])

    run_mpremote(port, actions, on_line)
    progress.done("pulled %d log file%s into %s" % (len(names), "" if len(names) == 1 else "s", dest))
    return local_paths


def console(port):
    """Replace this process with ``mpremote connect PORT repl`` (Ctrl-] or Ctrl-X leaves)."""
    port = resolve_port(port)
    argv = [sys.executable, "-m", "mpremote", "connect", port, "repl"]
    sys.stderr.write("%s  (Ctrl-] to quit)\n" % show_command(port, ["repl"]))
    sys.stderr.flush()
    sys.stdout.flush()
    os.execv(sys.executable, argv)
