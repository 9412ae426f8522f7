"""Board subcommands of the `spit` CLI: ``flash``, ``logs pull`` and ``console``.

The main CLI (host_tools/cli/__init__.py) calls :func:`add_subcommands` on its argparse subparsers. Each subcommand sets
``func``: call ``args.func(args)`` to run it; it returns the exit code (0 ok, 1 error, printed as one line).
``python -m host_tools.cli.device ...`` runs these subcommands on their own.
"""

import argparse
import sys

import host_tools  # noqa: F401,E402  (the engine on the path in a checkout)

from spit.rules import make_ruleset, RulesetError  # noqa: E402

PORT_HELP = "serial port of the board, e.g. /dev/ttyACM0 or COM5 (default: auto, the first Pico found)"


def _fail(command, error):
    sys.stderr.write("spit %s: error: %s\n" % (command, error))
    return 1


def check_ruleset(ruleset):
    """``--ruleset NAME|FILE`` must name a ruleset the engine knows, with valid options: else the board
    would boot into an error.  Raises FlashError."""
    from host_tools.device import flash_inputs
    config = flash_inputs.ruleset_config(ruleset)
    try:
        make_ruleset(config["ruleset"], config.get("options"))
    except RulesetError as e:
        raise flash_inputs.FlashError("--ruleset %s: %s" % (ruleset, e))


# host_tools.device.flash (with flash_inputs and board_mpremote) and board_logs are imported when a board
# command runs, so that `spit replay` and `spit sim` start without them.

def run_flash(args):
    from host_tools.device import mpremote as board_mpremote
    from host_tools.device import flash
    try:
        check_ruleset(args.ruleset)
        if not args.dry_run:
            board_mpremote.check_port(args.port)     # before the build: a wrong port is said at once
        flash.flash(args)
    except flash.FlashError as e:
        return _fail("flash", e)
    return 0


def run_logs(args):
    from host_tools.device import logs as board_logs
    from host_tools.device import mpremote as board_mpremote
    what = args.logs_command
    try:
        board_mpremote.check_port(args.port)
        if what == "pull":
            board_logs.pull_logs(args.port, args.dest, force=args.force)
        elif what == "list":
            board_logs.show_list(args.port, force=args.force)
        else:
            board_logs.clear_logs(args.port, force=args.force)
    except board_mpremote.FlashError as e:
        return _fail("logs " + what, e)
    return 0


run_logs_pull = run_logs


def run_players(args):
    from host_tools.device import logs as board_logs
    from host_tools.device import mpremote as board_mpremote
    from host_tools.device import flash
    try:
        board_mpremote.check_port(args.port)
        names = flash.checked_players(args.names)
        port = board_logs.resolve_port(args.port)
        from host_tools.device.referee import clock_script
        script = clock_script() + "f=open('players.txt','w');f.write(%r);f.close()" % "".join(n + "\n" for n in names)
        board_logs._with_referee(port, args.force, sys.stderr,
                                 lambda: board_mpremote.run_mpremote(port, ["exec", script]))
        print("players: %s (from the next game on)" % ", ".join(names))
    except board_mpremote.FlashError as e:
        return _fail("players", e)
    return 0


def _ask_restart():
    if not sys.stdin.isatty():
        return True
    answer = input("restart the referee? [Y/n] ").strip().lower()
    return answer in ("", "y", "yes")


def run_console(args):
    from host_tools import board_console
    from host_tools.device import logs as board_logs
    from host_tools.device import mpremote as board_mpremote
    from host_tools.device import referee as board_referee
    try:
        board_mpremote.check_port(args.port)
        port = board_logs.resolve_port(args.port)
        if args.repl:
            board_console.repl(port)
            return 0   # (not reached: the REPL replaces this process)
        board_referee.notice(port, sys.stderr, _ask_restart)
        return board_console.run(port)
    except board_mpremote.FlashError as e:
        return _fail("console", e)


def add_subcommands(subparsers):
    """Register ``flash``, ``logs`` (``logs pull``) and ``console`` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "flash", help="compile the firmware and copy it to a board",
        description="Compile firmware/ with mpy-cross and copy it to the board with mpremote, together with\n"
                    "the board file, the ruleset config, the log tables and the card map, each checked (and\n"
                    "the card map packed) on this PC. Then soft-reset the board, import the engine there and\n"
                    "check it reports the expected version; a real board is then reset so main.py starts\n"
                    "the referee.",
        epilog="examples:\n"
               "  spit flash                          first Pico found, boards/pico.json, classic rules\n"
               "  spit flash --port /dev/ttyACM0 --ruleset house.json --cards cards.json\n"
               "  spit flash --dry-run                print the mpremote commands only",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", help=PORT_HELP)
    p.add_argument("--board", default="pico", metavar="NAME",
                   help="board definition: NAME for boards/NAME.json, or a path to a .json file (default: pico)")
    p.add_argument("--ruleset", default="classic", metavar="NAME|FILE",
                   help="ruleset to play: a name (written as {\"ruleset\": NAME, \"options\": {}}) or a "
                        "ruleset.json file (default: classic)")
    p.add_argument("--cards", metavar="FILE", help="card map (cards.json from `spit enroll`): checked, and written to the board "
                                                   "packed (cards.bin, what the referee reads) and as it is")
    p.add_argument("--probe", metavar="FILE",
                   help="the readers' first-contact probe answers (the doctor-<board>-<date>.json `spit doctor` "
                        "keeps): checked and written into board.json, where the readers take them (which "
                        "wake-up the chip's listing sends, whether CIU_Coll is readable; none: safe defaults)")
    p.add_argument("--source", action="store_true",
                   help="copy the .py sources instead of compiling to .mpy (slower import, easier debugging)")
    p.add_argument("--lines", action="store_true",
                   help="keep source line numbers in the .mpy files (tracebacks name lines; about 7%% more "
                        "flash and heap)")
    p.add_argument("--players", metavar="A,B",
                   help="the players' names, kept on the board for the session headers (change them between "
                        "games with `spit players`)")
    p.add_argument("--force", action="store_true",
                   help="flash even during a game (the game in progress is lost); without it flash refuses then")
    p.add_argument("--dry-run", action="store_true",
                   help="print the mpremote command lines instead of running them")
    p.add_argument("--build-dir", metavar="DIR",
                   help="where the board image is built (default: build/mpy/PORT next to firmware/, one per port)")
    p.add_argument("--firmware-dir", metavar="DIR",
                   help="firmware tree to flash (default: the checkout's firmware/)")
    p.add_argument("--boards-dir", metavar="DIR", help="where --board NAME is looked up (default: boards/)")
    p.set_defaults(func=run_flash)

    logs = subparsers.add_parser(
        "logs", help="session logs on the board",
        description="Work with the session logs (JSON Lines) the referee keeps in /logs on the board.")
    logs_sub = logs.add_subparsers(dest="logs_command", metavar="ACTION")
    logs_sub.required = True
    force_help = ("stop the referee even during a game (the game in progress is lost); without it the "
                  "command refuses during a game")
    pull = logs_sub.add_parser(
        "pull", help="copy the session logs off the board",
        description="Copy the board's session logs this directory does not have yet, named "
                    "<board>-<date>-<time>-session-NNNN.spitlog (never overwriting), and mark them pulled on "
                    "the board. Stops the referee for the copy and starts it again; refuses during a game.")
    pull.add_argument("--port", help=PORT_HELP)
    pull.add_argument("--dest", default="logs", metavar="DIR", help="local directory to copy into (default: ./logs)")
    pull.add_argument("--force", action="store_true", help=force_help)
    pull.set_defaults(func=run_logs)
    lst = logs_sub.add_parser(
        "list", help="the board's sessions: date, players, rounds, size, pulled or not",
        description="List the session logs on the board (stops the referee for the listing and starts it again).")
    lst.add_argument("--port", help=PORT_HELP)
    lst.add_argument("--force", action="store_true", help=force_help)
    lst.set_defaults(func=run_logs)
    clear = logs_sub.add_parser(
        "clear", help="remove the pulled session logs from the board",
        description="Remove from the board the session logs `spit logs pull` has copied; the others stay.")
    clear.add_argument("--port", help=PORT_HELP)
    clear.add_argument("--force", action="store_true", help=force_help)
    clear.set_defaults(func=run_logs)

    pl = subparsers.add_parser(
        "players", help="name the players of the next games (kept on the board)",
        description="Write the players' names to the board (players.txt): every session header names them "
                    "from the next game on. Between games only (stops the referee and starts it again).")
    pl.add_argument("names", nargs="+", metavar="NAME")
    pl.add_argument("--port", help=PORT_HELP)
    pl.add_argument("--force", action="store_true", help=force_help)
    pl.set_defaults(func=run_players)

    con = subparsers.add_parser(
        "console", help="the live session log: the game as it is refereed (read-only)",
        description="Follow the referee's live stream (docs/live-protocol.md): the verdicts as `spit replay`'s "
                    "timeline, a status line (phase, round, tops). Read-only: Ctrl-C quits the console, "
                    "never the referee. --repl opens the MicroPython REPL instead.")
    con.add_argument("--port", help=PORT_HELP)
    con.add_argument("--repl", action="store_true",
                     help="the raw MicroPython REPL (mpremote): Ctrl-C there stops the referee, Ctrl-D restarts it")
    con.set_defaults(func=run_console)


def main(argv=None):
    """Entry point for ``python -m host_tools.cli.device``: just the board subcommands."""
    parser = argparse.ArgumentParser(prog="spit", description="Spit referee board tools")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    add_subcommands(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
