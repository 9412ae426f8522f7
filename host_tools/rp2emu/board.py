"""A flashed emulated Pico at the table: the referee installed by `spit flash`, booted from its
saved file system, its pins driven by an ``Rp2Table`` and its USB console read line by line.

    pico = FlashedPico("pico", "classic")          # boots until the first session's first verdict
                                                    # (ready=False: until it waits for READY)
    pico.land(0, "5S", 2600 * MS)                  # session-relative times (us since the session began)
    pico.run_to(3000 * MS)
    pico.since(0)                                   # the verdicts the board printed (log objects)
    lines = pico.pull_log()                         # the session log, by `spit logs pull`
    pico.close()

The firmware prints every session log line on its console (``referee.boot.run`` echoes the
log); ``verdicts`` / ``events`` keep them with the emulated time they arrived, ``console`` the
other lines (boot banner, reader self-test, errors).  ``t0`` is the emulated time the first
verdict arrived: the session's start as seen from the table.
"""

import os
import signal
import subprocess
import sys
import tempfile

MS = 1000
BOOT_LIMIT_US = 15 * 1000 * MS


class BootFailed(RuntimeError):
    """The referee did not start a session on the emulated Pico."""


class FlashedPico:
    def __init__(self, board="pico", ruleset="classic", options=None, firmware=None, bootrom=None,
                 emulator=None, progress=None, ready=True):
        from host_tools.rp2emu.emulator import Rp2Emulator
        from host_tools.rp2emu.install import flashed_image
        from host_tools.rp2emu.table import Rp2Table
        self.image = flashed_image(board, ruleset, options, firmware, bootrom, progress=progress)
        self.emu = Rp2Emulator(firmware, bootrom, fs_image=self.image)
        self.table = Rp2Table(self.emu, board, emulator)
        from host_tools.device.live import LiveReader
        self.live = LiveReader()   # the stream (docs/live-protocol.md): seq gaps, status
        self.console = []
        self.statuses = []       # (emulated us, status line's object)
        self.verdicts = []       # (emulated us when it came over the console, log object)
        self.events = []
        self.on_verdict = None   # on_verdict(obj) as each verdict line arrives
        self._partial = b""
        self.emu.on_serial = self._serial
        self.t0 = 0
        # The referee waits for both READY after boot (docs/rules.md): the players press it
        # once it says so (its first status line, "waiting").
        while not self.statuses and self.table.now_us < BOOT_LIMIT_US:
            self.table.run_until(self.table.now_us + 10 * MS)
        if not ready:   # (booted, waiting for READY: ``t0`` is now)
            if not self.statuses:
                self.emu.close()
                raise BootFailed("the referee did not start on the emulated Pico: %s"
                                 % (" | ".join(self.console[-6:]) or "no output"))
            self.t0 = self.table.now_us
            return
        if self.statuses:
            self.press_ready()
        while not self.verdicts and self.table.now_us < BOOT_LIMIT_US:
            self.table.run_until(self.table.now_us + 10 * MS)
        if not self.verdicts:
            self.emu.close()
            raise BootFailed("the referee did not start on the emulated Pico: %s"
                             % (" | ".join(self.console[-6:]) or "no output"))
        self.t0 = self.table.now_us

    def _serial(self, data):
        buf = self._partial + data
        *lines, self._partial = buf.split(b"\n")
        for raw in lines:
            for kind, obj, body, _ in self.live.feed(raw.decode(errors="replace").strip()):
                if kind == "log":   # (the log line without the stream's seq and dev)
                    if "verdict" in obj:
                        self.verdicts.append((self.table.now_us, obj))
                        if self.on_verdict is not None:
                            self.on_verdict(obj)
                    else:
                        self.events.append((self.table.now_us, obj))
                elif kind == "status":
                    self.statuses.append((self.table.now_us, obj))
                elif kind == "text":
                    self.console.append(body)

    def press_ready(self, hold_us=60 * MS):
        """Both players press READY (a short STUCK press each) now."""
        t = self.table.now_us
        self.table.press(0, "stuck", t, hold_us=hold_us)
        self.table.press(1, "stuck", t, hold_us=hold_us)

    # ---- session-relative driving ------------------------------------------------------------
    def run_to(self, t_us):
        self.table.run_until(self.t0 + t_us)

    def land(self, pile, card, t_us, **kw):
        """``card``: a code ("5S"), or a UID (bytes) for a tag that is not in the card map."""
        if not isinstance(card, bytes):
            from host_tools.vboard.board_files import default_uid
            from spit.cards import parse_card
            card = default_uid(parse_card(card))
        self.table.land_card(pile, card, self.t0 + t_us, **kw)

    def since(self, i):
        return [v for _, v in self.verdicts[i:]]

    # ---- the log, as a user gets it ----------------------------------------------------------
    def spit(self, *argv, timeout_s=600):
        """Run a `spit` command against this board over a pty (the emulator runs meanwhile):
        ``(exit code, output)``.  Waits are stretched for the emulator (SPIT_BOARD_WAIT_S).
        Its output goes to a file while it runs: a pipe read only at the end fills up (64 KiB),
        the command and its mpremote block on it and stop reading the board, whose lines
        (the end of an `mpremote run` among them) are then lost, and nothing ends."""
        from host_tools.rp2emu.serial_pty import SerialPty
        link = SerialPty(self.emu, runner=self.table.run_until_ns)
        env = dict(os.environ, SPIT_BOARD_WAIT_S=os.environ.get("SPIT_BOARD_WAIT_S", "8"))
        try:
            argv = [a.replace("{port}", link.path) for a in argv]
            with tempfile.TemporaryFile() as out:
                proc = subprocess.Popen([sys.executable, "-m", "host_tools"] + argv, stdout=out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                        start_new_session=True)
                link.serve(stop=lambda: proc.poll() is not None, seconds=timeout_s)
                killed = proc.poll() is None
                if killed:   # (its mpremote too)
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                out.seek(0)
                output = out.read().decode(errors="replace")
        finally:
            link.close()
        if killed:
            output += "\n(killed after %d s of wall time)" % timeout_s
        return proc.returncode, output

    def pull_log(self, timeout_s=300, force=True):
        """The board's newest session log (its lines), copied by `spit logs pull` over the pty
        (``force``: even in the middle of a game, which it then ends)."""
        from referee.logread import read_log
        dest = tempfile.mkdtemp(prefix="spit-rp2-logs-")
        code, output = self.spit("logs", "pull", "--port", "{port}", "--dest", dest,
                                 *(["--force"] if force else []), timeout_s=timeout_s)
        names = sorted(n for n in os.listdir(dest) if n.endswith(".spitlog"))
        if code != 0 or not names:
            raise RuntimeError("spit logs pull failed on the emulated Pico: %s" % output.strip()[-500:])
        return read_log(os.path.join(dest, names[-1]))[0]

    def close(self):
        self.emu.close()


def run_script(script, board="pico", ruleset="classic", schedule=None, seconds=900):
    """Boot the flashed referee on an emulated Pico, let ``schedule(table)`` put what the table
    should do on its timeline, then run ``script`` on the chip by `mpremote run` (which stops
    the referee first) and return what it printed."""
    from host_tools.rp2emu.emulator import Rp2Emulator
    from host_tools.rp2emu.install import flashed_image
    from host_tools.rp2emu.serial_pty import SerialPty
    from host_tools.rp2emu.table import Rp2Table
    with Rp2Emulator(fs_image=flashed_image(board, ruleset)) as emu:
        table = Rp2Table(emu, board)
        link = SerialPty(emu, runner=table.run_until_ns)
        try:
            table.run_until(1500 * MS)
            if schedule is not None:
                schedule(table)
            proc = subprocess.Popen([sys.executable, "-m", "mpremote", "connect", link.path, "run", script],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            link.serve(stop=lambda: proc.poll() is not None, seconds=seconds)
            return proc.communicate()[0].decode(errors="replace")
        finally:
            link.close()
