#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   1. the shared engine tests under the real MicroPython unix port with a 48 KB heap cap,
#      plus the hardware-facing MicroPython checks (IRQ handlers under heap_lock, PN532 driver);
#   2. mpy-cross -march=armv6m over every file under firmware/;
#   3. pyright against the RP2040 stubs for firmware/;
#   4. pytest on CPython (last, so its summary closes the output).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== engine tests under MicroPython (heapsize=48k)"
MICROPYPATH=".frozen:firmware/lib:tests/engine" micropython -X heapsize=48k tests/mp_runner.py tests/engine

echo "== mpy-cross -march=armv6m over firmware/"
python scripts/compile_firmware.py

echo "== pyright (rp2 stubs) over firmware/"
pyright -p pyrightconfig.json

echo "== pytest (CPython)"
python -m pytest -q "$@"
