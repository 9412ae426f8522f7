"""A person at the emulated Pico's table for `spit doctor`: reads its prompts on the board's USB
serial and acts at the pins (places a card, presses the named button, answers "lit?" by looking
at the WS2812 frames and "heard?" by the buzzer's PWM), while `spit doctor --port PTY` runs.

    with DoctorTable(faults={"missing_readers": [1]}) as t:
        rc, output, report = t.run_doctor(["--steps", "readers"])
"""

import os
import subprocess
import sys

MS = 1000
RANGE_CARDS = ("2C", "3D", "4H", "5S", "6C", "7D", "8S", "9H", "TC", "JD", "QS", "KH")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REACT_US = 300 * MS


class Person:
    def __init__(self, table, board, range_cards=99):
        self.table = table
        self.board = board
        self.partial = b""
        self.prompts = []
        self.stuck = set(table.faults.get("stuck_pins", ()))
        self.placed = {}               # pile -> [uid] of the cards put there
        self.range_cards = range_cards   # cards at hand for the range step (then: STUCK)
        self.second_card = True          # a second card at hand for the probe's two-card questions

    def feed(self, data):
        buf = self.partial + data
        *lines, self.partial = buf.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").strip()
            if line.startswith(">> "):
                self.prompts.append(line)
                self.act(line[3:])

    def _free_button(self, want_stuck):
        """(player, what) of a button that is not stuck: a STUCK for yes, a pad for no."""
        for q in range(2):
            pl = self.board["players"][q]
            if want_stuck and pl["stuck"] not in self.stuck:
                return q, "stuck"
            if not want_stuck:
                for p, pin in enumerate(pl["slap"]):
                    if pin not in self.stuck:
                        return q, ("slap", p)
        return None

    def _land(self, pile, name, at):
        """A card lands on ``pile``: as the table's faults say, its touch sensor's wire off
        (``dead_touch``: no edge) or its reader unable to read it (``unreadable_piles``: the tag
        never answers, as one out of the antenna's range)."""
        from host_tools.vboard.board_files import default_uid
        from host_tools.vboard.iso14443a import Tag
        from spit.cards import parse_card
        uid = default_uid(parse_card(name))
        faults = self.table.faults
        tag = Tag(uid, 0, unreadable=True) if pile in faults.get("unreadable_piles", ()) else uid
        self.table.land_card(pile, tag, at, touch=pile not in faults.get("dead_touch", ()))
        self.placed.setdefault(pile, []).append(uid)

    def act(self, text):
        t = self.table
        at = t.now_us + REACT_US
        if text.startswith("place a card on pile "):
            self._land(int(text.split("pile ")[1].split()[0]), "7H", at)
        elif text.startswith("put a second card on pile "):
            if self.second_card:
                self._land(int(text.split("pile ")[1].split(",")[0]), "QD", at)
            else:
                self._answer(True, at)    # no second card at hand: a STUCK button skips it
        elif text.startswith("add card "):
            k = int(text.split()[2])
            if k <= self.range_cards:
                self._land(int(text.split("pile ")[1].split()[0]), RANGE_CARDS[k - 1], at)
            else:
                self._answer(True, at)    # the pile is done: a STUCK button
        elif text.startswith("take the card"):
            pile = int(text.split("pile ")[1].split()[0])
            for uid in self.placed.pop(pile, []):
                t.lift_card(pile, uid, at)
        elif text.startswith("press player "):
            q = int(text[len("press player ")])
            if "STUCK" in text:
                t.press(q, "stuck", at)
            else:
                pile = int(text.split("pile ")[1].split()[0])
                t.press(q, ("slap", pile), at)
        elif text.startswith("is zone "):
            zone = text.split()[2].lower()
            t.at(t.now_us + 100 * MS, lambda: self._answer(self._lit(zone), at))
        elif text.startswith("did you hear"):
            since = t.now_us - 3000 * MS
            heard = any(tt >= since and duty > 0 for tt, _f, duty in t.tones)
            self._answer(heard, at)

    def _lit(self, zone):
        from host_tools.rp2emu.leds import zone_colours
        if not self.table.frames:
            return False
        colours = zone_colours(self.board, self.table.frames[-1]["rgb"])
        return colours.get(zone) == "white" and all(c == "off" for z, c in colours.items() if z != zone)

    def _answer(self, yes, at):
        b = self._free_button(yes)
        if b is not None:
            self.table.press(b[0], b[1], max(at, self.table.now_us + 50 * MS))


class DoctorTable:
    def __init__(self, board="pico", faults=None, range_cards=99, emulator=None):
        """``emulator``: the PN532 model's options per pile (host_tools/vboard/pn532_options.py),
        as ``Rp2Table`` takes them."""
        from host_tools.rp2emu.emulator import Rp2Emulator
        from host_tools.rp2emu.install import flashed_image
        from host_tools.rp2emu.serial_pty import SerialPty
        from host_tools.rp2emu.table import Rp2Table, load_board_file
        image = flashed_image(board, "classic", None)
        self.emu = Rp2Emulator(fs_image=image)
        self.table = Rp2Table(self.emu, board, faults=faults, emulator=emulator)
        self.person = Person(self.table, load_board_file(board), range_cards)
        self.emu.on_serial = self.person.feed
        self.link = SerialPty(self.emu, runner=self.table.run_until_ns)

    def run_doctor(self, argv, report, timeout_s=900):
        env = dict(os.environ, SPIT_BOARD_WAIT_S="5")
        proc = subprocess.Popen([sys.executable, "-m", "host_tools", "doctor", "--port", self.link.path,
                                 "--report", report] + argv, cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.link.serve(stop=lambda: proc.poll() is not None, seconds=timeout_s)
        if proc.poll() is None:
            proc.kill()
        output = proc.communicate()[0].decode(errors="replace")
        with open(report, encoding="utf-8") as f:
            text = f.read()
        return proc.returncode, output, text

    def close(self):
        self.link.close()
        self.emu.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
