#!/usr/bin/env bash
# Sourced by test.sh: makes sure a PostgreSQL server answers and exports MOTODESK_TEST_PG_URL.
# Uses the server on 127.0.0.1:5432 when it accepts us; otherwise installs Debian's postgresql,
# starts its cluster and gives the postgres user a password for TCP connections.
pg_try() { .venv/bin/python - "$1" <<'PY' >/dev/null 2>&1
import sys, psycopg
u = sys.argv[1].replace("postgresql+psycopg://", "postgresql://")
psycopg.connect(u, connect_timeout=3).close()
PY
}
export MOTODESK_TEST_PG_URL=${MOTODESK_TEST_PG_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}
if ! pg_try "$MOTODESK_TEST_PG_URL"; then
  echo "[motodesk] PostgreSQL não respondeu em $MOTODESK_TEST_PG_URL; preparando o servidor local" >&2
  SUDO=""; AS_PG="runuser -u postgres --"
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; AS_PG="sudo -u postgres"; fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  fi
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main start 2>/dev/null || true
  for _ in $(seq 1 30); do
    $AS_PG psql -qAtc "select 1" >/dev/null 2>&1 && break
    sleep 1
  done
  $AS_PG psql -qc "ALTER USER postgres PASSWORD 'motodesk'" >/dev/null
  $AS_PG psql -qAtc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
    || $AS_PG createdb test
  export MOTODESK_TEST_PG_URL=postgresql+psycopg://postgres:motodesk@127.0.0.1:5432/test
  pg_try "$MOTODESK_TEST_PG_URL" || { echo "[motodesk] PostgreSQL continua inacessível" >&2; exit 1; }
fi
