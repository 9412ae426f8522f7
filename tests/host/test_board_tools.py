"""The PC side of the live stream (docs/live-protocol.md): `spit console`'s readable view, and
how every board command finds out whether the referee runs and is in a game
(host_tools/device/referee.py), without a board: a virtual board's stream, a scripted port."""

import pytest

from host_tools.device import referee as board_referee
from host_tools.board_console import ConsoleView
from host_tools.device.manifest import FlashError
from host_tools.vboard.runner import VirtualTable

MS = 1000


def test_console_view_prints_the_replay_timeline_and_a_status_line():
    from host_tools.replay.text import Timeline
    with VirtualTable(console=True, ready=False) as t:
        t.press_ready()
        t.land_card(0, "5S", 2600 * MS)
        t.land_card(1, "9H", 2650 * MS)
        t.land_card(0, "6S", 3200 * MS)
        t.run_until(3600 * MS)
        raw = bytes(t.console).decode().splitlines()
        objs = t.log_objects()
    view = ConsoleView()
    out = []
    for line in raw:
        out.extend(view.feed(line))
    text = "\n".join(out)
    assert "[waiting] round 0" in text         # the status line after boot
    assert "[countdown] round 1" in text       # at the session start
    assert "[play] round 1" in text            # the phase changed with the spit cards
    assert not any(x.startswith('{"seq"') for x in out)   # no raw JSON
    # The verdict lines are `spit replay`'s timeline lines, word for word.
    tl = Timeline()
    want = [tl.line(list(o.items())) for o in objs if "verdict" in o]
    got = [x for x in out if x in want]
    assert got == want


class ScriptedPort:
    """A serial port whose board answers the probe's bytes (``answer(sent) -> bytes``)."""

    def __init__(self, answer):
        self.answer = answer
        self.sent = b""
        self.pending = b""

    def reset_input_buffer(self):
        self.pending = b""

    def write(self, data):
        self.sent += data
        self.pending += self.answer(data)

    def read(self, n):
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def close(self):
        pass


def referee_in(status, rnd):
    line = ('{"seq": 7, "dev": 123, "status": "%s", "session": 4, "round": %d, "tops": ["5S", null], '
            '"cards": [26, 26], "ready": [false, false]}\n' % (status, rnd))
    return lambda sent: line.encode() if b"?" in sent else b""


def test_probe_reads_the_referees_status_and_a_game_in_progress_is_refused(monkeypatch):
    port = ScriptedPort(referee_in("play", 2))
    state = board_referee.probe("P", seconds=0.5, ser=port)
    assert state.what == "running" and state.in_game and state.status["round"] == 2
    assert b"\x03" not in port.sent             # never Ctrl-C
    monkeypatch.setattr(board_referee, "open_port", lambda p: ScriptedPort(referee_in("play", 2)))
    with pytest.raises(FlashError) as e:
        board_referee.guard("P")
    assert str(e.value) == "a game is in progress (round 2): run this after the game, or pass --force"
    assert board_referee.guard("P", force=True).in_game   # --force: allowed
    for between in ("waiting", "over"):
        monkeypatch.setattr(board_referee, "open_port", lambda p, s=between: ScriptedPort(referee_in(s, 1)))
        assert not board_referee.guard("P").in_game


def test_a_board_left_at_the_prompt_is_noticed_and_restarted(monkeypatch):
    booted = []

    def micropython(sent):
        if sent == b"\x04":   # soft reset: the referee boots
            booted.append(1)
            return (b"MPY: soft reboot\r\nspit-referee 0.1.0 board=pico\r\n"
                    b'{"seq": 0, "dev": 900, "live": 1, "firmware": "0.1.0", "board": "pico", "session": 5}\n')
        if b"?" in sent:
            return b"\r\nMicroPython v1.26.1\r\n>>> ?\r\nSyntaxError: invalid syntax\r\n>>> "
        return b""
    monkeypatch.setattr(board_referee, "open_port", lambda p: ScriptedPort(micropython))
    import io
    out = io.StringIO()
    state = board_referee.notice("P", out)
    assert state.what == "prompt" and booted
    assert "is at the MicroPython prompt" in out.getvalue()
    assert "the referee is running again (session 5)" in out.getvalue()


# -- every board command: refused during a game, the referee started again after it ------------------------

class Referee:
    """A board running the referee, in ``phase``: it answers ``?`` with its status line, and a
    soft reset (Ctrl-D) with its boot line and ``hello``; ``events`` is what happened, in order."""

    def __init__(self, phase):
        self.phase = phase
        self.events = []
        self.sent = b""

    def port(self, _path):
        return ScriptedPort(self.answer)

    def answer(self, sent):
        self.sent += sent
        if b"?" in sent:
            self.events.append("probe")
            return ('{"seq": 7, "dev": 123, "status": "%s", "session": 4, "round": 2, "tops": ["5S", null], '
                    '"cards": [26, 26], "ready": [false, false]}\n' % self.phase).encode()
        if sent == b"\x04":
            self.events.append("restart")
            return (b"MPY: soft reboot\r\nspit-referee 0.1.0 board=pico\r\n"
                    b'{"seq": 0, "dev": 900, "live": 1, "firmware": "0.1.0", "board": "pico", "session": 5}\n')
        return b""


def board_commands(tmp_path):
    return {
        "logs pull": ["logs", "pull", "--port", "P", "--dest", str(tmp_path / "pulled")],
        "logs list": ["logs", "list", "--port", "P"],
        "logs clear": ["logs", "clear", "--port", "P"],
        "players": ["players", "Ana", "Ben", "--port", "P"],
        "enroll --board-port": ["enroll", "--board-port", "P", "--out", str(tmp_path / "cards.json")],
    }


def fake_mpremote(board, tmp_path, monkeypatch):
    """mpremote stand-ins: each call is an event (a board with no session logs)."""
    from host_tools.device import logs as board_logs
    from host_tools.device import mpremote as board_mpremote
    from host_tools import enroll

    def run_mpremote(port, actions, on_line=None, timeout=None):
        board.events.append("mpremote")
        return ""

    def run_relayed(argv, idle_s=None, out=None):
        board.events.append("mpremote")
        if argv[-2] == ":cards.json":
            enroll.save_card_map(argv[-1], {"04A1B2C3D4E5F6": "QH"})
        return 0
    monkeypatch.setattr(board_logs, "run_mpremote", run_mpremote)
    monkeypatch.setattr(board_mpremote, "run_mpremote", run_mpremote)
    monkeypatch.setattr(board_mpremote, "run_relayed", run_relayed)
    monkeypatch.setattr(board_referee, "open_port", board.port)


@pytest.mark.parametrize("name", ["logs pull", "logs list", "logs clear", "players", "enroll --board-port"])
def test_a_board_command_between_games_starts_the_referee_again(name, tmp_path, monkeypatch):
    """Issue 28: `spit logs pull` left the board at the >>> prompt, and the next game was not
    refereed.  Between games each command that stops the referee starts it again itself."""
    from support.cli import run
    board = Referee("over")
    fake_mpremote(board, tmp_path, monkeypatch)
    code, out, err = run(board_commands(tmp_path)[name])
    assert code == 0, err
    assert board.events[0] == "probe" and "mpremote" in board.events, board.events
    assert board.events[-1] == "restart", board.events   # after the last mpremote step
    assert "the referee is running again (session 5)" in out + err


@pytest.mark.parametrize("name", ["logs pull", "logs list", "logs clear", "players", "enroll --board-port"])
def test_a_board_command_during_a_game_refuses_and_leaves_the_game_alone(name, tmp_path, monkeypatch):
    from support.cli import run
    board = Referee("play")
    fake_mpremote(board, tmp_path, monkeypatch)
    code, out, err = run(board_commands(tmp_path)[name])
    assert code == 1
    assert "a game is in progress (round 2): run this after the game, or pass --force" in err
    assert board.events == ["probe"] and b"\x03" not in board.sent and b"\x04" not in board.sent


def test_console_ctrl_c_quits_the_console_and_never_reaches_the_board(monkeypatch):
    """Issue 28: Ctrl-C in `spit console` stopped the referee (KeyboardInterrupt on the board).
    Now the console only reads: Ctrl-C ends it here, the board got nothing but ``?``."""
    import io
    from host_tools import board_console
    lines = [b'{"seq": 3, "dev": 10, "status": "play", "session": 4, "round": 1, "tops": ["5S", "9H"]}\n',
             b'{"seq": 4, "dev": 11, "t": 3200000, "verdict": "accept", "pile": 0, "card": "6S"}\n']

    class Port(ScriptedPort):
        def read(self, n):
            if not lines:
                raise KeyboardInterrupt   # (Ctrl-C in the terminal while it reads)
            return lines.pop(0)
    port = Port(lambda sent: b"")
    out = io.StringIO()
    monkeypatch.setattr(board_referee, "open_port", lambda p: port)
    assert board_console.run("P", out=out) == 0
    text = out.getvalue()
    assert "[play] round 1" in text and "6S" in text and "closed (the referee goes on)" in text
    assert port.sent == b"?"


def test_board_scripts_sent_at_the_prompt_set_the_clock_first():
    """Issue 28, logs that last: every command that reaches the board's prompt sets its clock
    (the sessions' headers carry the date; the referee restarts by a soft reset, which keeps it):
    `spit enroll --board-port` and `spit doctor` too, not only flash, logs and players."""
    from host_tools.doctor import doctor_script
    from host_tools.enroll import board_enrollment_script
    for text in (board_enrollment_script(), doctor_script()):
        assert text.index("machine.RTC().datetime(") < text.index("\nrun(")
        compile(text, "<board script>", "exec")
