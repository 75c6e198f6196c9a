"""The one way a test makes a PostgreSQL database of its own on the test server, and drops it.

Every fixture that needs an empty database (the session's ``pg_server``, the wizard's and the upgrade
tests' ``empty_pg``, the backup tests' ``empty_database``, the CLI's schema-less database) goes
through :func:`scratch_database`, so the reachability check (fail, not skip, when
``MOTODESK_REQUIRE_PG=1``) and the drop that first ends the database's other sessions are written once.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Engine, create_engine, make_url, text

PG_ADMIN_URL = os.environ.get("MOTODESK_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("MOTODESK_REQUIRE_PG") == "1"


def pg_problem(url: str = PG_ADMIN_URL) -> str | None:
    """None when the server answers; else the first line of why not."""
    try:
        engine = create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as exc:  # noqa: BLE001
        return str(exc).splitlines()[0]


def require_pg(url: str = PG_ADMIN_URL) -> None:
    """Skip the test when PostgreSQL does not answer, or fail it when CI requires PostgreSQL."""
    problem = pg_problem(url)
    if problem:
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL required but unreachable at {url}: {problem}")
        pytest.skip(f"PostgreSQL unreachable: {problem}")


def drop_database(admin: Engine, name: str) -> None:
    """Drop ``name`` after ending whatever sessions still use it."""
    with admin.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n "
                          "AND pid <> pg_backend_pid()"), {"n": name})
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')


@contextmanager
def scratch_database(prefix: str, *, admin_url: str = PG_ADMIN_URL, template: str | None = None) -> Iterator[str]:
    """A new PostgreSQL database (empty, or a copy of ``template``) named ``prefix_<random>``: its URL,
    dropped on leaving. Skips or fails (see :func:`require_pg`) when the server does not answer."""
    require_pg(admin_url)
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        drop_database(admin, name)
        admin.dispose()
