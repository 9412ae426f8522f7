"""The engine alone on the emulated Pico (part of bench/bench_rp2.py): bench/engine_workload.py
run on the flashed board by `mpremote run`, heap locked as the firmware runs the engine and
unlocked.
"""

import os

from bench.rp2_bench_setup import REPO


def engine_on_chip(say):
    """bench/engine_workload.py run on the emulated Pico by `mpremote run` (engine modules from
    the flashed board): ``(ms per landing, bytes allocated per landing, ms per landing with the
    heap unlocked)``, the first two with the heap locked (unlocked if only that ran); Nones if
    the workload failed."""
    from host_tools.rp2emu.board import run_script
    out = run_script(os.path.join(REPO, "bench", "engine_workload.py"))
    found = {}
    for line in out.splitlines():
        words = line.split()
        if words[:1] in (["steady"], ["locked"]):
            med_ns, alloc, events = (int(x) for x in words[1:4])
            found[words[0]] = (med_ns / 1e6, alloc / float(max(1, events)))
            say("engine on the chip, heap %s: %.3f ms per landing, %d B allocated over %d landings"
                % ("locked (as the firmware runs it)" if words[0] == "locked" else "unlocked",
                   med_ns / 1e6, alloc, events))
    if "locked" in found:
        return found["locked"] + (found.get("steady", (None,))[0],)
    if "steady" in found:
        return found["steady"] + (None,)
    say("engine workload failed on the chip: %s" % out.strip()[-300:])
    return None, None, None
