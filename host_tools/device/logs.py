"""`spit logs list|pull|clear` (the session logs on the board) and `spit console` (the live view).

Session logs live in ``/logs/`` on the board (JSON Lines, docs/log-format.md). Every command here
that needs mpremote stops the referee (mpremote interrupts ``main.py``), so it first asks the
referee what it is doing (host_tools/device/referee.py: never during a game, unless ``--force``),
sets the board's clock (``rtc --set``: the next sessions' headers carry the date), and starts
the referee again afterwards (``the referee is running again (session N)``).

``logs pull`` copies the sessions it does not have yet under names that tell them apart
(``<board>-<date>-<time>-session-NNNN.spitlog``: never overwriting, a file already there is
skipped), then marks them pulled on the board (``logs/pulled.txt``); ``logs clear`` removes the
pulled ones from the board; the referee's rotation drops pulled logs first.
"""

import json
import os
import sys

from host_tools.device.mpremote import detect_port, run_mpremote
from host_tools.device.flash import FlashError, Progress

LOGS_DIR = "logs"
PULLED = "pulled.txt"
LIST_MARK = "SPIT-LOG "
# One JSON line per session file: name, size, mtime (as text), header (first line), rounds
# (round_start lines, counted in chunks), pulled (named in logs/pulled.txt).
LIST_SCRIPT = """import os,json,time
try:
 P=set(open('logs/pulled.txt').read().split())
except OSError:
 P=set()
try:
 N=[e[0] for e in os.ilistdir('logs') if e[1]==0x8000 and e[0].endswith('.spitlog')]
except OSError:
 N=[]
for n in N:
 p='logs/'+n
 s=os.stat(p)
 f=open(p)
 h=f.readline()[:800].strip()
 r=0
 t=''
 while True:
  b=f.read(512)
  if not b:
   break
  b=t+b
  r+=b.count('"round_start"')
  t=b[-14:]
  r-=t.count('"round_start"')
 r+=t.count('"round_start"')
 f.close()
 m=time.localtime(s[8])
 print('MARK'+json.dumps({'name':n,'size':s[6],'mtime':'%04d-%02d-%02d %02d:%02d'%m[:5],'header':h,'rounds':r,'pulled':n in P}))
""".replace("MARK", LIST_MARK)


def resolve_port(port):
    """``None`` or ``auto`` -> the detected board's device path."""
    return detect_port() if port in (None, "auto") else port


def _with_referee(port, force, err, work):
    """``work()`` with the referee stopped: refused during a game (unless ``force``), the
    board's clock set first, the referee started again after (even if ``work`` failed)."""
    from host_tools.device import referee as board_referee
    state = board_referee.guard(port, force, err, restart_prompt=False)
    try:
        return work()
    finally:
        if state.what == "running":
            board_referee.restart(port, err)
        elif state.what == "prompt":   # (left there by something else: offered, not required)
            try:
                board_referee.restart(port, err)
            except FlashError as e:
                err.write("spit: could not start the referee: %s\n" % e)


def list_sessions(port):
    """The board's session files: [{name, size, mtime, header (a dict or None), rounds, pulled}]."""
    from host_tools.device.referee import clock_script
    output = run_mpremote(port, ["exec", clock_script() + LIST_SCRIPT])   # (the clock set on the way)
    out = []
    for line in output.splitlines():
        if line.startswith(LIST_MARK):
            d = json.loads(line[len(LIST_MARK):])
            try:
                d["header"] = json.loads(d["header"])
            except ValueError:
                d["header"] = None
            out.append(d)
    out.sort(key=lambda d: d["name"])
    return out


def _date(d):
    """The session's date and time: the header's ``started``, else the file's time on the board."""
    h = d.get("header") or {}
    started = h.get("started") if isinstance(h, dict) else None
    return started or d.get("mtime") or ""


def local_name(d):
    """``<board>-<YYYYMMDD>-<HHMMSS>-session-NNNN.spitlog``: the board and the date tell apart the
    sessions of different boards and of a board whose numbers started again."""
    h = d.get("header") if isinstance(d.get("header"), dict) else {}
    board = str(h.get("board") or "board").replace("/", "_")
    digits = "".join(c for c in _date(d) if c.isdigit())
    date = (digits[:8] + "-" + digits[8:14]) if len(digits) >= 12 else "undated"
    return "%s-%s-%s" % (board, date, d["name"])


def _players(d):
    h = d.get("header") if isinstance(d.get("header"), dict) else {}
    p = h.get("players")
    return ", ".join(p) if isinstance(p, list) else "-"


def show_list(port, force=False, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    port = resolve_port(port)
    sessions = _with_referee(port, force, err, lambda: list_sessions(port))
    if not sessions:
        out.write("no session logs on the board at %s\n" % port)
        return sessions
    out.write("%-22s %-16s %-16s %6s %8s  %s\n" % ("session", "date", "players", "rounds", "bytes", "pulled"))
    for d in sessions:
        out.write("%-22s %-16s %-16s %6d %8d  %s\n" % (d["name"], _date(d)[:16], _players(d), d["rounds"],
                                                      d["size"], "yes" if d["pulled"] else "no"))
    return sessions


def pull_logs(port, dest, err=None, force=False):
    """Copy the board's sessions not yet in ``dest`` (never overwriting), mark them pulled on the
    board. Returns the local paths written."""
    err = err or sys.stderr
    port = resolve_port(port)

    def work():
        sessions = list_sessions(port)
        if not sessions:
            err.write("no session logs on the board at %s\n" % port)
            return []
        os.makedirs(dest, exist_ok=True)
        actions, local_paths, have = [], [], []
        for d in sessions:
            local = os.path.join(dest, local_name(d))
            if os.path.exists(local):
                if os.path.getsize(local) == d["size"]:
                    have.append(d["name"])   # (pulled before: skipped)
                    continue
                base = local[:-len(".spitlog")]
                k = 2
                while os.path.exists("%s-%d.spitlog" % (base, k)):
                    k += 1
                local = "%s-%d.spitlog" % (base, k)   # (never overwrite)
            local_paths.append(local)
            if actions:
                actions.append("+")
            actions += ["fs", "cp", ":%s/%s" % (LOGS_DIR, d["name"]), local]
        names = [os.path.basename(p) for p in local_paths]
        if actions:
            progress = Progress(err)
            count = [0]

            def on_line(line):
                if line.startswith("cp "):
                    count[0] += 1
                    progress.step(count[0], len(local_paths), line.split()[1])
            run_mpremote(port, actions, on_line)
            progress.done("pulled %d log file%s into %s" % (len(names), "" if len(names) == 1 else "s", dest))
        else:
            err.write("nothing new to pull: the %d session%s on the board %s already in %s\n"
                      % (len(have), "" if len(have) == 1 else "s", "is" if len(have) == 1 else "are", dest))
        if have and actions:
            err.write("skipped %d session%s already in %s\n" % (len(have), "" if len(have) == 1 else "s", dest))
        mark = [d["name"] for d in sessions if not d["pulled"]]
        if mark:
            run_mpremote(port, ["exec", "f=open('logs/%s','a');f.write(%r);f.close()"
                                % (PULLED, "".join(n + "\n" for n in mark))])
        return local_paths
    return _with_referee(port, force, err, work)


def clear_logs(port, err=None, force=False):
    """Remove the pulled session logs from the board (never the others). Returns their names."""
    err = err or sys.stderr
    port = resolve_port(port)

    def work():
        sessions = list_sessions(port)
        gone = [d["name"] for d in sessions if d["pulled"]]
        keep = [d["name"] for d in sessions if not d["pulled"]]
        script = ("import os\nfor n in %r:\n try:\n  os.remove('logs/'+n)\n except OSError:\n  pass\n"
                  "f=open('logs/%s','w');f.close()\n" % (gone, PULLED))
        run_mpremote(port, ["exec", script])
        err.write("removed %d pulled session log%s from the board; %d not pulled yet kept\n"
                  % (len(gone), "" if len(gone) == 1 else "s", len(keep)))
        return gone
    return _with_referee(port, force, err, work)
