#!/usr/bin/env bash
# The main job. With a Raspberry Pi Pico on USB: flash the referee and watch it referee live.
# With no board: a refereed game on the simulated table (two bots, the real firmware loop on a
# virtual board), then its replay timeline and an HTML page (out/demo.html).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"
mkdir -p out
# SPIT_DEMO_BOARD=1 takes a board as attached, SPIT_DEMO_SPIT runs another `spit` (the tests use both).
SPIT="${SPIT_DEMO_SPIT:-spit}"
if [ -z "${SPIT_SIMULATE:-}" ] && { [ -n "${SPIT_DEMO_BOARD:-}" ] || python - <<'PY'
import sys
from serial.tools import list_ports
sys.exit(0 if any(p.vid == 0x2E8A for p in list_ports.comports()) else 1)
PY
}
then
  echo "A Raspberry Pi Pico is attached: flashing the referee (set SPIT_SIMULATE=1 to simulate instead)."
  # Only what `spit flash` understands goes to it (host_tools/demo_args.py): --seed and the other
  # simulator options are left out, with a note, instead of failing as unrecognized arguments.
  mapfile -d '' FLASH_ARGS < <(python -m host_tools.demo_args "$@")
  "$SPIT" flash "${FLASH_ARGS[@]}"
  exec "$SPIT" console
fi
spit sim --mode firmware --log out/demo.spitlog --html out/demo.html "$@"
