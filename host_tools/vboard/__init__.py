"""Virtual board: fakes of machine/rp2/time used by tests and the simulator.

Everything here must stay MicroPython-compatible (the virtual board also runs under the
unix port), so no dataclasses, typing, f-string-only tricks that the port lacks, etc.
"""
