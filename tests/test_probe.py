"""The start-up's probe (issue 28): the driver alone says whether the database is open and of this
version, before SQLAlchemy loads; anything else is "no", and the full open explains it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from motodesk.models.db import shipped_head
from motodesk.probe import database_is_current

ROOT = Path(__file__).resolve().parent.parent


def test_a_current_database_is_ready(db_url: str) -> None:
    assert database_is_current(db_url)


def test_an_older_revision_a_missing_file_and_a_foreign_file_are_not(tmp_path: Path, sqlite_template: Path) -> None:
    older = tmp_path / "older.sqlite3"
    older.write_bytes(sqlite_template.read_bytes())
    conn = sqlite3.connect(older)
    conn.execute("UPDATE alembic_version SET version_num = '0001'")
    conn.commit()
    conn.close()
    assert shipped_head() != "0001"
    assert not database_is_current(f"sqlite:///{older}")

    missing = tmp_path / "novo.sqlite3"
    assert not database_is_current(f"sqlite:///{missing}")
    assert not missing.exists()  # the probe creates nothing: the full open creates and migrates it

    foreign = tmp_path / "planilha.sqlite3"
    foreign.write_bytes(b"isto nao e um banco de dados" * 100)
    assert not database_is_current(f"sqlite:///{foreign}")
    empty = tmp_path / "vazio.sqlite3"
    sqlite3.connect(empty).close()
    assert not database_is_current(f"sqlite:///{empty}")  # no alembic_version: the full open prepares it


def test_an_unreachable_server_or_an_unknown_url_is_not_ready() -> None:
    assert not database_is_current("postgresql+psycopg://ninguem@127.0.0.1:1/motodesk")
    assert not database_is_current("mysql://root@localhost/motodesk")
    assert not database_is_current("sqlite:///:memory:")


def test_the_probe_writes_nothing(tmp_path: Path, sqlite_template: Path) -> None:
    path = tmp_path / "m.sqlite3"
    path.write_bytes(sqlite_template.read_bytes())
    before = path.read_bytes()
    assert database_is_current(f"sqlite:///{path}")
    assert path.read_bytes() == before


@pytest.mark.parametrize("backend", ["sqlite"])
def test_the_probe_loads_no_sqlalchemy(db_url: str) -> None:
    code = ("import json, sys\nfrom motodesk.probe import database_is_current\n"
            f"ok = database_is_current({db_url!r})\n"
            "print(json.dumps([ok, sorted(m for m in ('sqlalchemy', 'motodesk.models', 'PySide6') if m in sys.modules)]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, []]
