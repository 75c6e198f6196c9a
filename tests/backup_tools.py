"""Rewriting backup files as an attacker (or a broken disk) would, for the backup and fault tests."""

from __future__ import annotations

import hashlib
import json
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from pg_scratch import PG_ADMIN_URL, scratch_database  # type: ignore[import-not-found]  # noqa: F401  (PG_ADMIN_URL: for the importers)

from motodesk.models.db import Database
from motodesk.services import backup as backups
from motodesk.services import backup_keys

Members = dict[str, bytes]


@pytest.fixture(name="empty_database")
def empty_database_fixture(backend: str, tmp_path: Path) -> Iterator[Callable[[], Database]]:
    """Makes new, empty databases of the test's kind (PostgreSQL ones are dropped afterwards)."""
    made: list[Database] = []
    with ExitStack() as scratch:
        def make(kind: str = backend) -> Database:
            if kind == "sqlite":
                db = Database.open(f"sqlite:///{tmp_path / f'vazio-{uuid.uuid4().hex[:6]}.sqlite3'}")
            else:
                db = Database.open(scratch.enter_context(scratch_database("motodesk_restore")))
            made.append(db)
            return db

        yield make
        for db in made:
            db.dispose()


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
