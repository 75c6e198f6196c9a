"""Rewriting backup files as an attacker (or a broken disk) would, for the backup and fault tests."""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, make_url, text

from motodesk.models.db import Database
from motodesk.services import backup as backups
from motodesk.services import backup_keys

Members = dict[str, bytes]
PG_ADMIN_URL = os.environ.get("MOTODESK_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(name="empty_database")
def empty_database_fixture(backend: str, tmp_path: Path) -> Iterator[Callable[[], Database]]:
    """Makes new, empty databases of the test's kind (PostgreSQL ones are dropped afterwards)."""
    made: list[tuple[Database, str | None]] = []
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT") if backend == "postgresql" else None

    def make(kind: str = backend) -> Database:
        if kind == "sqlite":
            db = Database.open(f"sqlite:///{tmp_path / f'vazio-{uuid.uuid4().hex[:6]}.sqlite3'}")
            made.append((db, None))
            return db
        nonlocal admin
        admin = admin or create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        name = f"motodesk_restore_{uuid.uuid4().hex[:8]}"
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        db = Database.open(make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False))
        made.append((db, name))
        return db

    yield make
    for db, name in made:
        db.dispose()
        if name and admin is not None:
            with admin.connect() as conn:
                conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n "
                                  "AND pid <> pg_backend_pid()"), {"n": name})
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
    if admin is not None:
        admin.dispose()



def read_members(archive: Path) -> Members:
    with zipfile.ZipFile(archive) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def write_zip(target: Path, members: Members) -> Path:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return target


def rewrite(source: Path, target: Path, edit: Callable[[dict[str, Any], Members], None], *,
            resign: bool = True) -> Path:
    """Copy a backup through `edit(manifest, members)`; the member hashes are recomputed and, with
    `resign`, the manifest is signed again with this installation's key (a validly signed forgery)."""
    members = read_members(source)
    manifest = json.loads(members[backups.MANIFEST])
    edit(manifest, members)
    for name in list(manifest["members"]):
        if name in members:
            data = members[name]
            manifest["members"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    data = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True).encode()
    members[backups.MANIFEST] = data
    if resign:
        key, signature = backup_keys.sign(data)
        members[backups.SIGNATURE] = json.dumps({"algorithm": "Ed25519", "key": key, "signature": signature}).encode()
    return write_zip(target, members)


def add_member(manifest: dict[str, Any], members: Members, name: str, data: bytes) -> None:
    members[name] = data
    manifest["members"][name] = {}
