"""An emulated Raspberry Pi Pico running the real MicroPython rp2 firmware (``emu.js`` on node).

    from host_tools.rp2emu.emulator import Rp2Emulator, find_images
    firmware, bootrom = find_images()              # options > env > ../shared/rp2 > a clear error
    with Rp2Emulator(firmware, bootrom, fs_image="pico.fs") as emu:
        emu.on_serial = lambda data: ...           # bytes the board prints on its USB serial
        emu.run_for_ms(1500)                        # boots MicroPython in about a second
        emu.serial_write(b"\\r\\nprint(1+2)\\r\\n")
        emu.run_for_ms(200)
        emu.save_fs("pico.fs")                      # the flash file system, to boot again later

Time is the chip's own: ``now_ns`` is emulated nanoseconds since power-on (8 ns a cycle at
125 MHz), and the emulator moves only inside ``run_until``.  A device model attached with
``attach_spi(bus, cs_pins, exchange)`` gets every byte clocked on that bus while one of its
chip-select pins is low, at its exact emulated time, and answers the byte for MISO; its
``gpio()`` calls (an IRQ line, say) take effect at that instant.  Other events arrive through
callbacks: ``on_pin(pin, level, t_ns)``, ``on_ws2812(frame)``, ``on_pwm(event)``,
``on_flash(event)``, ``on_mask(event)``, ``on_reset(event)``, ``on_log(event)``.
"""

import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED_RP2 = os.path.join(os.path.dirname(REPO), "shared", "rp2")
FIRMWARE_NAME = "RPI_PICO-v1.26.1.uf2"
BOOTROM_NAME = "rp2040-bootrom-b1.bin"

MISSING_FIRMWARE = (
    "the MicroPython rp2 firmware image is missing: download RPI_PICO v1.26.1 (.uf2) from "
    "https://micropython.org/download/RPI_PICO/ and pass it with --firmware or "
    "SPIT_RP2_FIRMWARE=PATH")
MISSING_BOOTROM = (
    "the RP2040 bootrom is missing: take the B1 mask ROM (16 KiB) from the rp2040js repository "
    "(demo/bootrom.ts) or Raspberry Pi's pico-bootrom, and pass it with --bootrom or "
    "SPIT_RP2_BOOTROM=PATH")
MISSING_NODE = ("the emulator needs node and rp2040js: install node, then run "
                "`bash scripts/bootstrap.sh` (it runs `npm ci` in host_tools/rp2emu)")


class EmulatorError(Exception):
    """The emulated Pico cannot start or stopped answering (one clear message)."""


def find_images(firmware=None, bootrom=None):
    """``(firmware_uf2, bootrom_bin)`` from the arguments, ``$SPIT_RP2_FIRMWARE`` /
    ``$SPIT_RP2_BOOTROM``, or ``../shared/rp2/`` beside the project; raises EmulatorError
    saying where to get a missing one."""
    fw = firmware or os.environ.get("SPIT_RP2_FIRMWARE") or os.path.join(SHARED_RP2, FIRMWARE_NAME)
    rom = bootrom or os.environ.get("SPIT_RP2_BOOTROM") or os.path.join(SHARED_RP2, BOOTROM_NAME)
    if not os.path.isfile(fw):
        raise EmulatorError("%s (looked for %s)" % (MISSING_FIRMWARE, fw))
    if not os.path.isfile(rom):
        raise EmulatorError("%s (looked for %s)" % (MISSING_BOOTROM, rom))
    return fw, rom


def find_node():
    """The node executable, if node and the pinned rp2040js are installed; else EmulatorError."""
    node = os.environ.get("SPIT_NODE") or shutil.which("node")
    if not node or not os.path.isdir(os.path.join(HERE, "node_modules", "rp2040js")):
        raise EmulatorError(MISSING_NODE)
    return node


def why_unavailable():
    """None when the emulated Pico can run here, else the reason (for skipping tests)."""
    try:
        find_images()
        find_node()
    except EmulatorError as e:
        return str(e)
    return None


class Rp2Emulator:
    def __init__(self, firmware=None, bootrom=None, fs_image=None, erase_ms=45.0, program_ms=0.4):
        firmware, bootrom = find_images(firmware, bootrom)
        argv = [find_node(), os.path.join(HERE, "emu.js"), "--firmware", firmware, "--bootrom", bootrom,
                "--erase-ms", str(erase_ms), "--program-ms", str(program_ms)]
        if fs_image:
            argv += ["--fs", fs_image]
        # stderr to a file, not a pipe: nobody drains it while the chip runs.
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, bufsize=0)
        self._out = self.proc.stdout
        self._pending_cmds = []
        self.now_ns = 0
        self.halted = False
        self.usb_connected = False
        self._spi = {}
        self.on_serial = None
        self.on_pin = None
        self.on_ws2812 = None
        self.on_pwm = None
        self.on_flash = None
        self.on_mask = None
        self.on_reset = None
        self.on_log = None
        self.next_stop_ns = None         # () -> ns or None: when a device model next needs to act
        self._target = 0
        first = self._event()
        if first.get("e") != "ready":
            raise EmulatorError(first.get("msg") or "the emulator did not start: %r" % first)

    # ---- the channel ------------------------------------------------------------------------
    def _send(self, **cmd):
        self._pending_cmds.append(json.dumps(cmd))

    def _flush(self):
        if self._pending_cmds:
            data = ("\n".join(self._pending_cmds) + "\n").encode()
            self._pending_cmds = []
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except BrokenPipeError:
                raise EmulatorError(self._died())

    def _died(self):
        err = b""
        try:
            self.proc.wait(timeout=5)
            self._stderr.seek(0)
            err = self._stderr.read() or b""
        except Exception:  # noqa: BLE001 - only for the message
            pass
        return "the emulator stopped: %s" % (err.decode(errors="replace").strip()[-800:] or "no message")

    def _event(self):
        line = self._out.readline()
        if not line:
            raise EmulatorError(self._died())
        return json.loads(line)

    # ---- commands ---------------------------------------------------------------------------
    def gpio(self, pin, level):
        """Drive input ``pin`` (takes effect now, or at this instant inside an SPI exchange)."""
        self._send(c="gpio", pin=pin, v=1 if level else 0)

    def serial_write(self, data):
        """Bytes from the USB host to the board's serial port."""
        if data:
            self._send(c="serial", hex=bytes(data).hex())

    def stall_host(self, until_ns):
        """The USB host holds the port open and stops reading until emulated time ``until_ns``:
        it NAKs the CDC data IN transfers (the board's writes then fill its buffers)."""
        self._send(c="usb_stall", until=int(until_ns))

    def watch_pins(self, pins):
        self._send(c="watch", pins=list(pins))

    def attach_spi(self, bus, cs_pins, exchange):
        """``exchange(tx_byte, t_ns) -> rx_byte`` for every byte on ``bus`` while one of
        ``cs_pins`` is low (their edges come to ``on_pin``, so watch them too)."""
        self._spi[bus] = exchange
        self._send(c="spi_device", bus=bus, cs=list(cs_pins))
        self.watch_pins(cs_pins)

    def decode_ws2812(self, pin):
        self._send(c="ws2812", pin=pin)

    def watch_pwm(self, pin):
        self._send(c="pwm", pin=pin)

    def save_fs(self, path):
        """Write the flash file system (littlefs region) to ``path``: ``fs_image=`` boots it again."""
        return self._save("save_fs", path)

    def save_ram(self, path):
        """Write the chip's SRAM (264 KB from 0x20000000) to ``path``: heap dumps
        (``bench/heap_holders.py``)."""
        return self._save("save_ram", path)

    def _save(self, command, path):
        self._send(c=command, path=os.path.abspath(path))
        self._flush()
        while True:
            ev = self._event()
            if ev["e"] == "saved":
                return path
            self._dispatch(ev)

    def heap_probe(self, atb, blocks, every_us=100, step_pin=None):
        """Sample MicroPython's heap in use every ``every_us`` of emulated time from its
        allocation table at ``atb`` (``blocks`` 16-byte blocks): see ``heap()``.  With
        ``step_pin`` (a watched pin the firmware drives high during each loop step), the heap is
        also read each time it falls: ``heap()["step_allocated"]`` sums the rises from one step's
        end to the next (what the loop keeps, call frames freed on return not counted)."""
        cmd = dict(c="heap_probe", atb=atb, blocks=blocks, every_ns=every_us * 1000)
        if step_pin is not None:
            cmd["step_pin"] = step_pin
        self._send(**cmd)

    def heap(self, reset=False):
        """``{"now", "peak", "peak_ns", "allocated", "samples", "floors", "step_allocated", "step_rises",
        "steps"}``:
        bytes in use now, the high-water mark (and the emulated time it was reached) and the sum of the increases (bytes allocated, call frames
        included) since the probe started or was reset, the same summed from loop step end to
        loop step end (see ``heap_probe``), each such rise as ``[t_ns, bytes]`` (the first
        100,000) and the number of steps,
        and ``[second, lowest bytes in use]`` for each whole emulated second sampled (the live
        heap once garbage is collected: its trend is growth)."""
        self._send(c="heap", reset=bool(reset))
        self._flush()
        while True:
            ev = self._event()
            if ev["e"] == "heap":
                return ev
            self._dispatch(ev)

    def stats(self):
        self._send(c="stats")
        self._flush()
        while True:
            ev = self._event()
            if ev["e"] == "stats":
                return ev
            self._dispatch(ev)

    def run_until(self, t_ns, wall_ms=None):
        """Run the chip to emulated time ``t_ns`` (or for at most ``wall_ms`` of wall time)."""
        if t_ns <= self.now_ns:
            self._flush()
            return self.now_ns
        self._target = int(t_ns)
        cmd = {"c": "run", "until": int(t_ns)}
        if wall_ms:
            cmd["wall_ms"] = int(wall_ms)
        self._pending_cmds.append(json.dumps(cmd))
        self._flush()
        while True:
            ev = self._event()
            if ev["e"] == "done":
                self.now_ns = ev["t"]
                self.halted = ev.get("halted", False)
                return self.now_ns
            self._dispatch(ev)

    def run_for_ms(self, ms):
        return self.run_until(self.now_ns + int(ms * 1e6))

    def _dispatch(self, ev):
        kind = ev["e"]
        if kind == "spi":
            self.now_ns = ev["t"]
            fn = self._spi.get(ev["bus"])
            rx = fn(ev["tx"], ev["t"]) if fn is not None else 0xFF
            self._stop_early()
            self._send(c="rx", v=rx & 0xFF)
            self._flush()
        elif kind == "ser":
            if self.on_serial is not None:
                self.on_serial(bytes.fromhex(ev["hex"]))
        elif kind == "pin":
            self.now_ns = ev["t"]       # device models look at the time of the edge
            if self.on_pin is not None:
                self.on_pin(ev["p"], ev["v"], ev["t"])
            if ev.get("sync"):
                self._stop_early()
                self._send(c="go")
                self._flush()
        elif kind == "ws":
            if self.on_ws2812 is not None:
                self.on_ws2812(ev)
        elif kind == "pwm":
            if self.on_pwm is not None:
                self.on_pwm(ev)
        elif kind == "flash":
            if self.on_flash is not None:
                self.on_flash(ev)
        elif kind == "mask":
            if self.on_mask is not None:
                self.on_mask(ev)
        elif kind == "reset":
            if self.on_reset is not None:
                self.on_reset(ev)
        elif kind == "usb":
            self.usb_connected = ev.get("connected", False)
        elif kind == "log":
            if self.on_log is not None:
                self.on_log(ev)
        elif kind == "error":
            raise EmulatorError(ev.get("msg", "emulator error"))

    def _stop_early(self):
        # A device model scheduled something before the end of this run: stop there.
        if self.next_stop_ns is not None:
            t = self.next_stop_ns()
            if t is not None and t < self._target:
                self._target = int(t)
                self._send(c="until", t=int(t))

    def close(self):
        if self.proc.poll() is None:
            try:
                self._send(c="quit")
                self._flush()
                self.proc.wait(timeout=5)
            except (EmulatorError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self._stderr):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
