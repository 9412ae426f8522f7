"""The benchmarks: each prints tables and asserts nothing (bench/README.md says how to run each,
what it prints and how long it takes).  Every target a bench compares a figure with lives in
bench/targets.json and is printed by bench/report.py beside the figure, met or MISSED.

Run a bench from the checkout's root as ``.venv/bin/python -m bench.NAME`` or
``.venv/bin/python bench/NAME.py``; ``bench._paths`` is the one place that sets sys.path.
"""

from bench import _paths  # noqa: F401
