#!/usr/bin/env bash
# Sets everything up and opens MotoDesk on a demo SQLite database (created and filled on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
WITH_DEMO=1 bash scripts/setup.sh
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "[motodesk] sem tela gráfica: abrindo numa tela virtual (xvfb-run)" >&2
  exec xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/motodesk --demo "$@"
fi
exec .venv/bin/motodesk --demo "$@"
