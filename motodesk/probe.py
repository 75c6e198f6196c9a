"""Is the database there and of this version? Answered with the driver alone, before SQLAlchemy loads.

The window's start-up (issue 28) opens and checks the database first: a SQLite file (stdlib
``sqlite3``) or a PostgreSQL server (``psycopg``) is connected to and its Alembic revision compared
with the one this program ships, in a few milliseconds; SQLAlchemy, the models and the screens load
after. The probe only ever says "yes, open and current": anything else (no file yet, an older or
newer revision, a refused connection, a URL it does not understand) is ``False``, and the full open
(``motodesk.services.connection.open_context``) then runs as before and explains the problem in
pt_BR. It writes nothing: the SQLite file is opened read-only, and never created.

Nothing here imports SQLAlchemy, the models or Qt.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("models") / "migrations"

_REVISION = re.compile(r"^revision\s*(?::\s*str\s*)?=\s*[\"']([^\"']+)[\"']", re.MULTILINE)
_DOWN = re.compile(r"^down_revision\s*(?::[^=]+)?=\s*(None|[\"']([^\"']+)[\"'])", re.MULTILINE)
_REVISION_SQL = "SELECT version_num FROM alembic_version"


@functools.cache
def shipped_revisions() -> dict[str, str | None]:
    """revision -> down_revision of the migration scripts shipped with this program."""
    revisions: dict[str, str | None] = {}
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        rev, down = _REVISION.search(text), _DOWN.search(text)
        if rev and down:
            revisions[rev.group(1)] = down.group(2)
    return revisions


def shipped_heads() -> set[str]:
    revisions = shipped_revisions()
    return set(revisions) - {down for down in revisions.values() if down}


def database_is_current(url: str) -> bool:
    """True when ``url`` names an existing database this program can use as it is: connected, and
    stamped with the shipped head revision. False for anything else (the full open says why)."""
    try:
        heads = shipped_heads()
        if len(heads) != 1:
            return False
        scheme = url.split(":", 1)[0].lower()
        if scheme in ("sqlite", "sqlite+pysqlite"):
            revision = _sqlite_revision(url)
        elif scheme in ("postgresql", "postgresql+psycopg", "postgres"):
            revision = _postgresql_revision(url)
        else:
            return False
    except Exception as exc:  # noqa: BLE001 - a probe: the full open reports the real error
        log.info("database probe: %s", type(exc).__name__)
        return False
    return revision is not None and revision in heads


def _sqlite_revision(url: str) -> str | None:
    head, sep, rest = url.partition(":///")
    if not sep or "?" in rest or not rest or rest == ":memory:":
        return None  # URI options, an in-memory database: the full open handles them
    path = Path(unquote(rest))
    if not path.is_file():
        return None  # a new file is created (and migrated) by the full open
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=15)
    try:
        row = conn.execute(_REVISION_SQL).fetchone()
    finally:
        conn.close()
    return str(row[0]) if row else None


def _postgresql_revision(url: str) -> str | None:
    parts = urlsplit(url)
    options = dict(parse_qsl(parts.query))
    if set(options) - {"sslmode", "application_name", "options", "sslrootcert"}:
        return None  # what SQLAlchemy would do with other options is the full open's business
    import psycopg

    params: dict[str, str] = {key: value for key, value in {
        "host": parts.hostname, "port": str(parts.port) if parts.port else None,
        "user": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
        "dbname": unquote(parts.path.lstrip("/")) or None}.items() if value is not None}
    conn = psycopg.connect(psycopg.conninfo.make_conninfo(**params, **options), connect_timeout=5, autocommit=True)
    try:
        row = conn.execute(_REVISION_SQL).fetchone()
    finally:
        conn.close()
    return str(row[0]) if row else None
