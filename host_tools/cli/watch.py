"""``spit watch``: serve a live page of the game for the room (see :mod:`host_tools.watch`).

Sources: ``--port P`` the board's serial port (or the emulated Pico's pty: ``spit emu --pty
/tmp/pico`` then ``--port /tmp/pico``; ``--emu`` is that default path), ``--sim`` a simulated game
(the rules engine, or the real firmware on the virtual board with ``--mode firmware``) played out
in real time, ``--log FILE`` a session log played back in real time.  The page is at
http://HOST:HTTP/ (``--host 0.0.0.0`` for the LAN); ``/replay`` is the full replay of the session
so far; ``/state`` the current state as JSON.
"""

import argparse
import json
import os
import queue
import sys
import threading
import time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs

from host_tools.watch import Watch, Hub
from host_tools.watch.page import PAGE

DESCRIPTION = """Serve a live page of the game for the room: each pile's top card, a flash per verdict
(TIE, LATE, ILLEGAL and why, a race's delta t in large type), the spit-call countdown, round ends,
the referee's questions and answers, game over with a link to the full replay. Several viewers;
one that joins late gets the current state at once. It reads the referee's live stream
(docs/live-protocol.md) and never interrupts the referee (it only sends the '?' status request)."""

EPILOG = """examples:
  spit watch --port /dev/ttyACM0               the board
  spit watch --port /dev/ttyACM0 --host 0.0.0.0   ... for every screen on the LAN
  spit watch --sim --ruleset tableau --seed 4  a simulated game, in real time
  spit watch --emu                             the emulated Pico of `spit emu --pty /tmp/pico`
  spit watch --log game.spitlog --speed 4      a session log played back 4x faster"""

EMU_PTY = "/tmp/pico"


class WatchServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, watch, hub):
        ThreadingHTTPServer.__init__(self, address, Handler)
        self.watch = watch
        self.hub = hub
        self.acks = []            # (monotonic time, query dict): pages that said they drew an event
        self.acks_lock = threading.Lock()
        self.closing = threading.Event()


class Handler(BaseHTTPRequestHandler):
    server: WatchServer

    def log_message(self, *_args):
        pass

    def _send(self, code, body, ctype):
        data = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif url.path == "/state":
            self._send(200, json.dumps(self.server.watch.state()), "application/json")
        elif url.path == "/events":
            self._events()
        elif url.path == "/ack":
            with self.server.acks_lock:
                self.server.acks.append((time.monotonic(), {k: v[0] for k, v in parse_qs(url.query).items()}))
            self._send(204, "", "text/plain")
        elif url.path == "/replay":
            self._send(200, self._replay(), "text/html; charset=utf-8")
        else:
            self._send(404, "not found\n", "text/plain")

    def _replay(self):
        from host_tools import replay
        from host_tools.replay import page as replay_html
        lines = list(self.server.watch.log_lines)
        if not lines:
            return "<!DOCTYPE html><p>No session yet.</p>"
        return replay_html.render(replay.rejudge_lines(lines), title="live session")

    def _events(self):
        hub = self.server.hub
        q = hub.join()   # before the state: nothing between is lost (the page skips what it has)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(("event: state\ndata: %s\n\n" % json.dumps(self.server.watch.state())).encode())
            self.wfile.flush()
            while not self.server.closing.is_set():
                try:
                    ev = q.get(timeout=15)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                self.wfile.write(("data: %s\n\n" % json.dumps(ev)).encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            hub.leave(q)


def pump(lines, watch, hub, stop=None):
    """Feed each line of ``lines`` (an iterable of text lines) to the page."""
    for line in lines:
        if stop is not None and stop.is_set():
            return
        hub.publish(watch.feed(line))


def paced(lines, speed=1.0, stop=None, clock=time.monotonic, sleep=time.sleep):
    """A session log's lines, each given when its time comes (the newest ``t`` so far, divided by
    ``speed``), as the device prints them during a game."""
    start = clock()
    newest = 0
    for line in lines:
        try:
            t = json.loads(line).get("t")
        except (ValueError, AttributeError):
            t = None
        if isinstance(t, int) and t > newest:
            newest = t
            wait = start + newest / 1e6 / speed - clock()
            while wait > 0:
                if stop is not None and stop.is_set():
                    return
                sleep(min(wait, 0.2))
                wait = start + newest / 1e6 / speed - clock()
        yield line


def serial_lines(port, stop):
    """The lines of the live stream on a serial port; sends '?' once (the current state)."""
    import serial
    ser = serial.serial_for_url(port, 115200, timeout=0.2)
    try:
        ser.write(b"?")
        buf = b""
        while not stop.is_set():
            chunk = ser.read(max(1, ser.in_waiting))   # what is there now (read(4096) would wait the timeout)
            if not chunk:
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                yield line.decode("utf-8", "replace")
    finally:
        ser.close()


def sim_lines(args):
    """A simulated game's stream: with ``--mode firmware`` the live stream the firmware printed on
    the virtual board's console (docs/live-protocol.md, seq and dev on every line), else the
    rules engine's session log."""
    from host_tools.cli.sim import parse_options
    from host_tools.sim.run import run_game
    from spit.rules import make_ruleset
    rules = make_ruleset(args.ruleset, parse_options(args.option))
    minutes = args.seconds / 60.0 if args.seconds else 90
    if args.mode != "firmware":
        return run_game(rules, seed=args.seed, max_minutes=minutes).lines
    consoles = []
    run_game(rules, seed=args.seed, max_minutes=minutes, port_factory=lambda sim, counts, rng, extra, board=None:
             _console_port(sim, consoles))
    return bytes(consoles[0]).decode("utf-8", "replace").splitlines()


def _console_port(sim, consoles):
    """The firmware on the virtual board (spit sim --mode firmware) with its console kept."""
    from host_tools.sim.firmware import FirmwarePort
    from host_tools.vboard.runner import VirtualTable
    from spit.rules import make_ruleset
    rules = sim.rules
    defaults = make_ruleset(rules.name).options
    options = {k: v for k, v in rules.options.items() if v != defaults[k]}
    port = FirmwarePort.__new__(FirmwarePort)
    port.sim = sim
    port.rules = rules
    vt = VirtualTable(board="pico_3pile" if rules.piles == 3 else "pico", ruleset=rules.name, options=options,
                      console=True)
    consoles.append(vt.console)
    port.join(sim, vt)
    return port


def run(args, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    sources = [bool(args.port), bool(args.sim), bool(args.log), bool(args.emu)]
    if sum(sources) != 1:
        err.write("spit watch: give one source: --port P, --emu, --sim or --log FILE\n")
        return 2
    port = args.port or (EMU_PTY if args.emu else None)
    if port and port.startswith("/") and not os.path.exists(port):
        err.write("spit watch: %s: no such port%s\n" % (port, " (start the emulated Pico with spit emu --pty %s)"
                                                          % EMU_PTY if args.emu else ""))
        return 1
    watch, hub = Watch(), Hub()
    try:
        server = WatchServer((args.host, args.http), watch, hub)
    except OSError as e:
        err.write("spit watch: cannot serve on %s:%d: %s\n" % (args.host, args.http, e.strerror or e))
        return 1
    stop = server.closing
    if args.sim:
        try:
            lines = paced(sim_lines(args), args.speed, stop)
        except (ValueError, ImportError) as e:
            err.write("spit watch: --sim: %s\n" % e)
            return 2
    elif args.log:
        try:
            with open(args.log, encoding="utf-8", errors="replace") as f:
                lines = paced(f.read().splitlines(), args.speed, stop)
        except OSError as e:
            err.write("spit watch: %s: %s\n" % (args.log, e.strerror or e))
            return 1
    else:
        lines = serial_lines(port, stop)
    host, port = server.server_address[:2]
    if host in ("0.0.0.0", "::"):   # every address of this machine: name the one a TV across the room can use
        host = lan_address() or host
    out.write("spit watch: http://%s:%d/  (Ctrl-C to stop)\n" % ("localhost" if host in ("127.0.0.1", "") else host,
                                                                port))
    out.flush()
    reader = threading.Thread(target=_read, args=(lines, watch, hub, stop, err), daemon=True)
    reader.start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
    return 0


def lan_address():
    """This machine's address on its network (the interface a packet out would take; a UDP
    socket's connect sends nothing), or None."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def _read(lines, watch, hub, stop, err):
    try:
        pump(lines, watch, hub, stop)
    except (OSError, ValueError, ImportError) as e:   # the source failed (a port unplugged, no pyserial):
        # the page keeps the last state
        err.write("spit watch: the source stopped: %s\n" % e)
        hub.publish(watch.feed("spit watch: the source stopped: %s" % e))


def add_subcommands(subparsers):
    p = subparsers.add_parser("watch", help="a live page of the game for the room (TV, phones)",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_argument_group("source (one of)")
    src.add_argument("--port", metavar="P", help="the referee's serial port (the board, or a pty)")
    src.add_argument("--emu", action="store_true", help="the emulated Pico's pty (%s, from spit emu --pty)" % EMU_PTY)
    src.add_argument("--sim", action="store_true", help="a simulated game, played out in real time")
    src.add_argument("--log", metavar="FILE", help="a session log, played back in real time")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (0.0.0.0: the LAN; default localhost)")
    p.add_argument("--http", type=int, default=8030, metavar="PORT", help="HTTP port (default 8030; 0: any free)")
    p.add_argument("--speed", type=float, default=1.0, help="--sim/--log: play back this many times faster")
    sim = p.add_argument_group("--sim options")
    sim.add_argument("--ruleset", default="classic", help="preset (default classic)")
    sim.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="ruleset option")
    sim.add_argument("--seed", type=int, default=1, help="deal and bots (default 1)")
    sim.add_argument("--mode", choices=("fast", "firmware"), default="fast",
                     help="fast: the rules engine; firmware: the real firmware on the virtual board")
    sim.add_argument("--seconds", type=float, default=None, help="stop the game after N seconds of play")
    p.set_defaults(func=run)
    return p
