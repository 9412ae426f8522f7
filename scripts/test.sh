#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   1. the shared engine tests under the real MicroPython unix port with the engine's heap cap
#      (70k on this 64-bit port stands for the RP2040's 48 KB; the test code is measured and added),
#      plus the hardware-facing MicroPython checks (IRQ handlers under heap_lock, PN532 driver);
#   2. mpy-cross -march=armv6m over every file under firmware/;
#   3. ruff over the whole tree, and pyright against the RP2040 stubs for firmware/;
#   4. pytest on CPython (last, so its summary closes the output), then what it skipped and why
#      (scripts/skip_summary.py: e.g. the emulated-Pico tests without a firmware image).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"

# Heap cap for the engine in its tests on the 64-bit unix port: 48 KB on the 32-bit RP2040 is about
# 70 KB here; tests/micropython/mp_runner.py adds what the test code itself takes (bench/README.md).
ENGINE_HEAP=${ENGINE_HEAP:-70k}
echo "== engine tests under MicroPython (.mpy, -X heapsize=$ENGINE_HEAP, one interpreter per file)"
bash scripts/build_mpy.sh
MICROPYPATH=".frozen:build/mp:build/mp/tests" micropython -X heapsize=$ENGINE_HEAP -m mp_runner build/mp/tests --heap $ENGINE_HEAP

echo "== mpy-cross -march=armv6m over firmware/"
python scripts/compile_firmware.py

echo "== ruff (pyproject.toml: MicroPython's idioms written in)"
ruff check .

echo "== pyright (rp2 stubs) over firmware/"
pyright -p pyrightconfig.json

echo "== pytest (CPython)"
# What was skipped and why comes last (scripts/skip_summary.py), whether pytest passed or not.
mkdir -p build
rm -f build/pytest-junit.xml
status=0
python -m pytest -q -o junit_family=xunit1 --junitxml=build/pytest-junit.xml "$@" || status=$?
echo
python scripts/skip_summary.py build/pytest-junit.xml
exit $status
