"""Firmware-mode sweep: the real firmware on the virtual board refereeing simulated games.

    .venv/bin/python -m bench.bench_sim_sweep [--seeds N] [--misread PERMILLE]

Every preset x 2 and 3 center piles (3 piles only where the ruleset allows them) x N seeds
(default 20) through ``spit sim --mode firmware``'s machinery, with no faults injected: the
table prints per preset and pile count the games played, referee errors and table/referee
disagreements (both must be 0; any game with either is listed).  With ``--misread`` the
emulated PN532s lose that share of the tags for good (a card the reader never sees): every
referee error must then be the ``no_read`` of an injected misread.
tests/host/test_sim_sweep.py runs a short part of this in CI.
"""

try:
    from bench import _paths  # noqa: F401  (python -m bench.NAME)
except ImportError:
    import _paths  # noqa: F401  (python bench/NAME.py: bench/ is on sys.path, the checkout's root not yet)

import sys
import time


def combos():
    """(preset, piles) pairs: every preset with 2 piles, and with 3 where the mode allows it."""
    from spit.rules import PRESETS, make_ruleset, RulesetError
    out = []
    for name in sorted(PRESETS):
        for piles in (2, 3):
            try:
                make_ruleset(name, {"piles": piles})
            except RulesetError:
                continue
            out.append((name, piles))
    return out


def play(name, piles, seed, misread_pm=0):
    """One firmware-mode game; returns (errors by reason, disagreements, injected misreads,
    finished)."""
    import contextlib
    import io
    from host_tools.sim.firmware import FirmwarePort
    from host_tools.sim.run import run_game

    injected = [0]

    def factory(sim, counts, rng, extra, board=None):
        port = FirmwarePort(sim, sim.rules, counts, board)
        if misread_pm:
            port.misread(rng, misread_pm, injected)
        return port

    with contextlib.redirect_stdout(io.StringIO()):   # the firmware's boot lines
        r = run_game(name, {"piles": piles} if piles != 2 else None, seed=seed, port_factory=factory,
                     keep_log=False)
    return dict(r.errors), list(r.notes), injected[0], r.finished


def main():
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 20
    misread = int(sys.argv[sys.argv.index("--misread") + 1]) if "--misread" in sys.argv else 0
    print("== Firmware-mode sweep: %d seeds per preset and pile count, misreads %d per mille" % (seeds, misread))
    print("| preset | piles | games | referee errors | errors not injected | disagreements | unfinished | s/game |")
    print("|---|---|---|---|---|---|---|---|")
    bad = []
    total_other = total_notes = total_unfinished = 0
    for name, piles in combos():
        t0 = time.time()
        errors = other = notes = unfinished = 0
        for seed in range(1, seeds + 1):
            errs, dis, injected, finished = play(name, piles, seed, misread)
            n = sum(errs.values())
            not_injected = n - min(errs.get("no_read", 0), injected)
            errors += n
            other += not_injected
            notes += len(dis)
            unfinished += 0 if finished else 1
            if not_injected or dis or not finished:
                bad.append((name, piles, seed, errs, injected, dis[:2]))
        total_other += other
        total_notes += notes
        total_unfinished += unfinished
        print("| %s | %d | %d | %d | %d | %d | %d | %.2f |" % (name, piles, seeds, errors, other, notes, unfinished,
                                                               (time.time() - t0) / seeds))
    print("(errors not injected = referee errors other than the no_read of a misread the sweep injected)")
    for item in bad:
        print("  %s piles=%d seed=%d: errors %s, injected %d, disagreements %s" % item)
    from bench import report
    report.check("referee_errors_not_injected", total_other)
    report.check("table_disagreements", total_notes)
    report.check("unfinished_games", total_unfinished)


if __name__ == "__main__":
    main()
