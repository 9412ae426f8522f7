"""Peak live heap of the referee over a whole game (run under the micropython unix port).

    micropython -X heapsize=48k bench/mp_game_heap.py EVENTS_FILE     (bench_engine runs it)

EVENTS_FILE holds one pre-parsed event per line: ``kind ms us a b c [ruleset header on line 1]``,
written by bench_engine.py.  After every event the heap is collected and measured, so the number
is what the referee keeps alive (modules + state), not transient garbage.  The LED intents on,
as on the device, and spit.rules kept loaded: the device no longer has it (spit flash resolves
the ruleset on the PC), so the figure errs on the high side by that module.  Prints
``peak <bytes> base <bytes> events <n> verdicts <n>``.
"""

import gc
import sys

gc.collect()
BASE = gc.mem_alloc() if sys.implementation.name == "micropython" else 0   # (CPython imports it, never runs it)



def _make_rules(name, options):
    # spit.rules stays loaded (the device does without it: a conservative figure).
    from spit.rules import make_ruleset
    return make_ruleset(name, options)


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self, code, ms, us, a, b, c, d):
        self.n += 1


def main(path):
    f = open(path)
    head = f.readline().split()
    name = head[0]
    options = {}
    for kv in head[3:]:
        k, v = kv.split("=")
        options[k] = int(v) if v.lstrip("-").isdigit() else v
    rules = _make_rules(name, options)
    from spit.intents import LedIntents
    from spit.referee import Referee
    gc.collect()   # loading leaves holes: compact what can be before the referee's state
    sink = Counter()
    ref = Referee(rules, [int(head[1]), int(head[2])], sink, LedIntents())   # intents on, as on the device
    del head, options
    peak = 0
    n = 0
    while True:
        line = f.readline()
        if not line:
            break
        p = line.split()
        kind = int(p[0])
        if kind == 9:
            ref.advance(int(p[1]), int(p[2]))
        else:
            ref.feed(kind, int(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5]))
        p = None
        line = None
        n += 1
        gc.collect()
        used = gc.mem_alloc() - BASE
        if used > peak:
            peak = used
    ref.flush()
    f.close()
    gc.collect()
    print("peak %d events %d verdicts %d over %s" % (peak, n, sink.n, "yes" if ref.phase == 5 else "no"))


if __name__ == "__main__":
    main(sys.argv[1])
