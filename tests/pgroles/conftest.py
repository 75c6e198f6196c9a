"""A scratch PostgreSQL cluster of this test session, with password (SCRAM-SHA-256) authentication.

The shared test server on 5432 trusts every connection and its roles are cluster-wide, so the tests
of logins, per-user roles and privileges start their own cluster: ``initdb --auth=scram-sha-256``
in a temporary folder, on a free port of 127.0.0.1, its superuser's password given with --pwfile.
As root the server runs as the ``postgres`` OS user (``runuser``). Without PostgreSQL's binaries the
fixture installs them as scripts/postgres.sh does (apt-get, as root); when that is impossible the
tests are skipped — or fail, with MOTODESK_REQUIRE_PG=1.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, make_url

REQUIRE_PG = os.environ.get("MOTODESK_REQUIRE_PG") == "1"


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    return Path(found[-1]).parent if found else None


def _install_postgresql() -> None:
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, capture_output=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "postgresql"], env=env, check=False, capture_output=True)


def _unavailable(reason: str) -> None:
    if REQUIRE_PG:
        pytest.fail(f"PostgreSQL required: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    """The scratch cluster: its superuser's URL builder and where it lives."""

    port: int
    password: str
    root: Path

    def url(self, database: str = "postgres", user: str = "postgres", password: str | None = None) -> str:
        pw = self.password if password is None and user == "postgres" else password
        return make_url(f"postgresql+psycopg://127.0.0.1:{self.port}/{database}").set(
            username=user, password=pw).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    bindir = _bin_dir()
    if bindir is None:
        _install_postgresql()
        bindir = _bin_dir()
    if bindir is None:
        _unavailable("binários do PostgreSQL (initdb) não encontrados em /usr/lib/postgresql/*/bin")
        return
    as_root = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="motodesk-pgroles-"))
    password = secrets.token_urlsafe(18)
    pwfile = root / "pwfile"
    pwfile.write_text(password + "\n", encoding="utf-8")
    os.chmod(pwfile, 0o600)
    data, sockets = root / "data", root / "sock"
    sockets.mkdir()
    prefix: list[str] = []
    if as_root:
        import pwd

        pg = pwd.getpwnam("postgres")
        for path in (root, pwfile, sockets):
            os.chown(path, pg.pw_uid, pg.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    init = subprocess.run(prefix + [str(bindir / "initdb"), "-D", str(data), "--auth=scram-sha-256", "-U", "postgres",
                                    f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C", "--no-sync"],
                          capture_output=True, text=True)
    if init.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        _unavailable(f"initdb falhou: {init.stderr.strip()[:500]}")
        return
    port = _free_port()
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
    start = subprocess.run(prefix + [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-t", "60",
                                     "-l", str(root / "server.log"), "start"], capture_output=True, text=True)
    if start.returncode != 0:
        log = (root / "server.log").read_text(errors="replace")[-800:] if (root / "server.log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        _unavailable(f"pg_ctl start falhou: {start.stderr.strip()[:300]} {log}")
        return
    try:
        yield Cluster(port, password, root)
    finally:
        subprocess.run(prefix + [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def migrated_template(pg_cluster: Cluster) -> str:
    """A database migrated to the head once per session, copied by :func:`migrated_db`."""
    from motodesk.models.db import Database

    name = f"md_template_{uuid.uuid4().hex[:6]}"
    admin = create_engine(pg_cluster.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    db = Database.open(pg_cluster.url(name))
    db.prepare()
    db.dispose()
    return name


def _new_database(pg_cluster: Cluster, template: str | None) -> Iterator[str]:
    name = f"md_{uuid.uuid4().hex[:8]}"
    admin = create_engine(pg_cluster.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    yield pg_cluster.url(name)
    with admin.connect() as conn:
        conn.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                             "AND pid <> pg_backend_pid()", (name,))
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        # Roles are the cluster's: drop those this database's set-up created (md_<name>_…).
        for (role,) in conn.exec_driver_sql("SELECT rolname FROM pg_roles WHERE rolname LIKE %s OR rolname LIKE %s",
                                            (f"md\\_{name}\\_%", f"%\\_{name}")).all():
            conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{role}"')
    admin.dispose()


@pytest.fixture
def scratch_db(pg_cluster: Cluster) -> Iterator[str]:
    """The superuser's URL of a new, empty database on the scratch cluster (dropped after the test)."""
    yield from _new_database(pg_cluster, None)


@pytest.fixture
def migrated_db(pg_cluster: Cluster, migrated_template: str) -> Iterator[str]:
    """The superuser's URL of a new database already at the head (a copy of the session's template)."""
    yield from _new_database(pg_cluster, migrated_template)


GATE = "estacao"
GATE_PASSWORD = "estacao-senha-1"
CHEFE_PASSWORD = "chefe-senha-123"


@dataclass
class RolesSite:
    """A MotoDesk database with per-user roles on the scratch cluster."""

    cluster: Cluster
    name: str
    owner: Any  # AppContext of the owner (the cluster's superuser)
    gate: Any  # AppContext of a workstation before anyone logs in
    gate_role: str
    opened: list[Any] = field(default_factory=list)

    def url_as(self, user: str, password: str) -> str:
        return self.cluster.url(self.name, user=user, password=password)

    def connect(self, role: str, password: str, **kwargs: Any) -> Any:
        """A plain psycopg connection as ``role``: no MotoDesk code between the test and the server."""
        import psycopg

        url = self.url_as(role, password).replace("postgresql+psycopg://", "postgresql://")
        return psycopg.connect(url, connect_timeout=5, **kwargs)

    def login(self, login: str, password: str) -> Any:
        from motodesk.services.auth import authenticate

        ctx = self.gate.as_user(authenticate(self.gate, login, password))
        self.opened.append(ctx.db)
        return ctx

    def role_of(self, login: str) -> str:
        return f"md_{self.name}_u_{login}"


@pytest.fixture
def roles_site(pg_cluster: Cluster, migrated_db: str) -> Iterator[RolesSite]:
    """Set up as the README says: init-db as the owner, per-user roles with the gate role, the
    first administrator ``chefe`` created by the owner; a workstation's context on the gate role."""
    from motodesk.models.db import Database
    from motodesk.services.auth import create_first_admin
    from motodesk.services.context import AppContext
    from motodesk.services.settings import ensure_defaults

    owner_db = Database.open(migrated_db)
    owner_db.prepare()
    owner = AppContext(owner_db)
    ensure_defaults(owner)
    name = make_url(migrated_db).database or ""
    gate_role = f"{GATE}_{name}"
    assert owner_db.setup_per_user_roles(gate_role, GATE_PASSWORD) == []  # no users yet
    create_first_admin(owner, "chefe", "Chefe do Setor", CHEFE_PASSWORD)
    from motodesk.services.badges import register_printing_station

    register_printing_station(owner)  # as `init-db --per-user-roles` does when there is no key yet
    gate_db = Database.open(pg_cluster.url(name, user=gate_role, password=GATE_PASSWORD))
    gate_db.prepare()
    gate = AppContext(gate_db)
    ensure_defaults(gate)
    site = RolesSite(pg_cluster, name, owner, gate, gate_role)
    yield site
    for opened in site.opened:
        opened.dispose()
    gate_db.dispose()
    owner_db.dispose()
