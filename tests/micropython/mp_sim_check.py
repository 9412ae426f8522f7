"""Simulated players against the firmware on the real MicroPython (unix port, virtual board).

Run from the repository root:
    MICROPYPATH=firmware:firmware/lib:. .venv/bin/micropython -X heapsize=8m tests/micropython/mp_sim_check.py
Plays one classic game (seed 1) with ``spit sim --mode firmware``'s port and prints one JSON
line: finished, winner, the game's length, the session log's line count and the allocations
the firmware's heap lock caught (0: the harness's own records are kept outside the lock).
"""

import json

from host_tools.sim.firmware import FirmwarePort
from host_tools.sim.run import run_game

ports = []


def port(sim, counts, rng, extra):
    p = FirmwarePort(sim, sim.rules, counts)
    ports.append(p)
    return p


res = run_game("classic", seed=1, port_factory=port)
print(json.dumps({"finished": res.finished, "winner": res.winner, "length_us": res.length_us,
                  "lines": len(res.lines), "lock_failures": ports[0].vt.app.lock_failures
                  if ports[0].vt.app is not None else -1}))
