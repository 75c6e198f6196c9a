"""Issue 25 item 6: restores that refuse leave nothing.

A SQLite target is built in a file beside it and moved into place only once verified; a PostgreSQL
target is migrated, loaded and verified in one transaction committed at the end. Duplicate member
names are refused; the manifest and the signature are read with a size cap (a zip bomb is refused
fast and small, measured in a child process); a `motodesk restore` killed midway (SIGKILL) leaves no
usable unverified database, and the next run removes what it left and says so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from backup_tools import empty_database_fixture, read_members, write_zip  # type: ignore[import-not-found]  # noqa: F401
from sqlalchemy import text
from tests_helpers import names_in, raises_code  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.services import backup as backups
from motodesk.services import backup_keys, backup_restore
from motodesk.services.context import AppContext
from motodesk.services.demo import seed_demo

MakeDb = Callable[..., Database]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if backups.RESTORE_FILE_TAG in p.name)


def test_a_restore_refused_after_the_copy_leaves_no_target(ctx: AppContext, backend: str, empty_database: MakeDb,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed_demo(ctx, 5)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")

    refusal = backups.RestoreError("conferência recusada (teste)")

    def refuse(*args: object) -> None:
        raise refusal

    monkeypatch.setattr(backup_restore, "_verify_on", refuse)  # the last check, after the rows are in
    target = empty_database()
    with pytest.raises(backups.RestoreError) as refused:
        backups.restore_backup(good.path, target)
    assert refused.value is refusal, "the last check's own refusal reaches the caller"
    if backend == "sqlite":
        assert target.sqlite_path is not None
        assert not target.sqlite_path.exists(), "no target file"
        assert _leftovers(target.sqlite_path.parent) == []
    else:
        assert target.is_empty(), "the whole load is rolled back"
    monkeypatch.undo()
    restored = backups.restore_backup(good.path, target)  # and the same target still takes the restore
    assert restored.snapshot.counts["people"] == 5


def test_a_refused_sqlite_restore_creates_no_file(ctx: AppContext, tmp_path: Path, backend: str) -> None:
    if backend != "sqlite":
        pytest.skip("the SQLite target file")
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    members = read_members(good.path)
    members[backups.MANIFEST] = members[backups.MANIFEST].replace(b'"sqlite"', b'"sqlite" ', 1)  # signature breaks
    forged = write_zip(tmp_path / "forjada.zip", members)
    target = Database.open(f"sqlite:///{tmp_path / 'novo.sqlite3'}")
    with raises_code(backups.RestoreError, "restore.bad_signature"):
        backups.restore_backup(forged, target)
    target.dispose()
    assert not (tmp_path / "novo.sqlite3").exists()


def test_duplicate_member_names_are_refused(ctx: AppContext, tmp_path: Path, backend: str) -> None:
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    members = read_members(good.path)
    doubled = tmp_path / "dupla.zip"
    with zipfile.ZipFile(doubled, "w") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(backups.SCHEMA_MEMBER, b"{}")  # a second schema.json: which one would be read?
    with raises_code(backups.RestoreError, "restore.duplicate_members") as twice:
        backups.read_manifest(doubled)
    names_in(twice.value, backups.SCHEMA_MEMBER)


_BOMB_CHILD = r"""
import resource, sys, time
from motodesk.services import backup as backups
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
start = time.perf_counter()
try:
    backups.read_manifest(sys.argv[1])
    verdict = "aceita"
except backups.RestoreError as exc:
    verdict = str(exc)
elapsed = time.perf_counter() - start
print(f"{elapsed:.3f}")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024 - base)
print(verdict)
"""


@pytest.mark.parametrize("backend", ["sqlite"])
@pytest.mark.parametrize("member", [backups.MANIFEST, backups.SIGNATURE])
def test_a_bombed_manifest_or_signature_is_refused_fast_and_small(tmp_path: Path, member: str, backend: str) -> None:
    bomb = tmp_path / "bomba.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        if member == backups.SIGNATURE:
            zf.writestr(backups.MANIFEST, json.dumps({"format": backups.FORMAT, "format_version": 2}))
        chunk = b" " * (1 << 20)
        with zf.open(member, "w", force_zip64=True) as dst:
            for _ in range(1024):  # 1 GiB of spaces: valid JSON whitespace
                dst.write(chunk)
    assert bomb.stat().st_size < 1_200_000, bomb.stat().st_size
    out = subprocess.run([sys.executable, "-c", _BOMB_CHILD, str(bomb)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.returncode == 0, out.stderr
    elapsed, rss_mb, verdict = out.stdout.strip().split("\n", 2)
    assert "descompactado" in verdict and member in verdict, verdict
    assert float(elapsed) < 1.0, elapsed
    assert int(rss_mb) < 200, rss_mb  # what reading the bomb added to the peak, above the program's imports


def _child_restore(archive: Path, url: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "motodesk", "restore", str(archive), "--database", url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait_for(condition: Callable[[], bool], child: subprocess.Popen[str], limit: float = 120) -> None:
    end = time.monotonic() + limit
    while not condition():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < end, "the restore never reached the point"
        time.sleep(0.005)


def test_a_restore_killed_midway_leaves_no_usable_database(ctx: AppContext, backend: str, empty_database: MakeDb,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(tmp_path / "chaves"))
    seed_demo(ctx, 150)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), backup_keys.KEY_DIR_ENV: str(tmp_path / "chaves"),
           "MOTODESK_LOG_DIR": str(tmp_path / "log"), "PYTHONPATH": os.getcwd()}
    env.pop("MOTODESK_DATABASE_URL", None)
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    target = empty_database()
    url = target.url.render_as_string(hide_password=False)
    child = _child_restore(good.path, url, env)
    if backend == "sqlite":
        assert target.sqlite_path is not None
        folder = target.sqlite_path.parent
        _wait_for(lambda: bool(_leftovers(folder)), child)  # the unverified copy beside the target
    else:
        def migrating() -> bool:  # the restore's transaction holds its locks: the migrations are running
            with ctx.db.engine.connect() as conn:
                return bool(conn.execute(text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                    "WHERE d.datname = :n AND l.mode = 'AccessExclusiveLock'"), {"n": target.url.database}).scalar())
        _wait_for(migrating, child)
        time.sleep(0.5)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=30)  # reaps it and closes its pipes
    assert child.returncode == -signal.SIGKILL
    extracted = [p.name for p in temp.iterdir() if p.name.startswith(backups.RESTORE_DIR_PREFIX)]
    assert extracted, "the killed restore had its extraction folder"
    if backend == "sqlite":
        assert target.sqlite_path is not None and not target.sqlite_path.exists(), "no target file"
        assert _leftovers(folder), "the unverified copy is only beside it, under a name no one opens"
    else:
        time.sleep(0.5)  # the server notices the dead client and rolls its transaction back
        target.dispose()
        assert target.is_empty(), "nothing of the killed restore is visible"
    again = _child_restore(good.path, url, env)
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr
    said = (stdout + stderr).lower()
    assert "restauração interrompida" in said and "apagad" in said, (stdout, stderr)
    assert "Restauração concluída e conferida" in stdout
    assert not [p for p in temp.iterdir() if p.name.startswith(backups.RESTORE_DIR_PREFIX)]
    if backend == "sqlite":
        assert _leftovers(folder) == []
