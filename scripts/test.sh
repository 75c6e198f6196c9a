#!/usr/bin/env bash
# Sets everything up, lints and type-checks, then runs the whole test suite on SQLite and PostgreSQL.
# PostgreSQL is required: a local server is used, or Debian's postgresql is installed and started.
set -euo pipefail
cd "$(dirname "$0")/.."
WITH_TEST=1 bash scripts/setup.sh
source scripts/postgres.sh
export QT_QPA_PLATFORM=offscreen
export MOTODESK_REQUIRE_PG=${MOTODESK_REQUIRE_PG:-1}
.venv/bin/ruff check motodesk tests bench
.venv/bin/mypy motodesk
.venv/bin/python -m pytest -n "${MOTODESK_TEST_WORKERS:-2}" "$@"
