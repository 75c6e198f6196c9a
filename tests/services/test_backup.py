"""Backups: a verified round trip on both databases, while another process writes; clear refusals."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from backup_tools import empty_database_fixture, rewrite  # type: ignore[import-not-found]  # noqa: F401
from sqlalchemy import select, text
from tests_helpers import raises_code  # type: ignore[import-not-found]

from motodesk.models import Attachment, Blob, Setting
from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import backup as backups
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.demo import seed_demo
from motodesk.services.errors import InvalidInputError, PermissionDeniedError

WRITER = r'''
import sys, pathlib
from motodesk.models import Setting
from motodesk.models.db import Database
from motodesk.services.context import AppContext
db = Database.open(sys.argv[1])
ctx = AppContext(db)
stop, progress = pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
i = 0
while not stop.exists() and i < 20000:
    with ctx.write() as s:
        s.add(Setting(key=f"escrita-{i:05d}", value=str(i)))
    i += 1
    progress.write_text(str(i))
db.dispose()
'''


def _add_files(ctx: AppContext) -> dict[str, bytes]:
    """Two stored files (a scan and a photo-sized JPEG stand-in) attached to a record."""
    files = {}
    with ctx.write() as s:
        for i, size in enumerate((70_000, 12_345)):
            data = os.urandom(size)
            sha = hashlib.sha256(data).hexdigest()
            files[sha] = data
            s.add(Blob(sha256=sha, size=size, data=data))
            s.flush()
            s.add(Attachment(owner_table="people", owner_id=1, blob_sha256=sha, filename=f"doc-{i}.pdf",
                             media_type="application/pdf", size=size, added_by="admin"))
    return files


def _blobs(db: Database) -> dict[str, bytes]:
    with db.session() as s:
        return {b.sha256: bytes(b.data) for b in s.scalars(select(Blob))}


def test_round_trip_is_verified_and_keeps_the_files(ctx: AppContext, empty_database, tmp_path: Path) -> None:
    seed_demo(ctx, 25)
    files = _add_files(ctx)
    result = backups.create_backup(ctx, tmp_path)  # a folder: a dated name inside it
    assert result.path.parent == tmp_path and result.path.name.startswith("motodesk-copia-")
    assert result.path.suffix == ".zip" and result.size == result.path.stat().st_size
    m = result.manifest
    assert m.format == "motodesk-backup" and m.revision == ctx.db.head_revision()
    assert m.counts["people"] == 25 and m.counts["blobs"] == 2 and m.counts["attachments"] == 2
    assert m.blob_bytes == 70_000 + 12_345
    assert m.audit_last is not None and m.audit_last["table"]

    target = empty_database()
    restored = backups.restore_backup(result.path, target)
    assert restored.snapshot == m.snapshot
    assert _blobs(target) == files
    assert target.check_version() == "current"

    record = backups.last_backup(ctx)
    assert record is not None and record.file == str(result.path) and record.size == result.size
    assert backups.backup_reminder(ctx) is None


def test_restore_refuses_a_database_that_is_not_empty(ctx: AppContext, tmp_path: Path) -> None:
    result = backups.create_backup(ctx, tmp_path / "copia.zip")
    with raises_code(backups.RestoreError, "restore"):
        backups.restore_backup(result.path, ctx.db)
    with raises_code(InvalidInputError, "backup.file_exists"):
        backups.create_backup(ctx, tmp_path / "copia.zip")


def test_other_files_and_tampered_backups_are_refused(ctx: AppContext, empty_database, tmp_path: Path) -> None:
    text_file = tmp_path / "notas.zip"
    text_file.write_text("não é zip")
    with raises_code(backups.RestoreError, "restore.damaged_archive"):
        backups.restore_backup(text_file, empty_database())
    with raises_code(InvalidInputError, "backup.file_missing"):
        backups.restore_backup(tmp_path / "sumiu.zip", empty_database())

    seed_demo(ctx, 5)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    bad = tmp_path / "adulterada.zip"
    with zipfile.ZipFile(good.path) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == backups.MANIFEST:
                manifest = json.loads(data)
                manifest["counts"]["people"] += 1
                data = json.dumps(manifest).encode()
            dst.writestr(item, data)
    # The manifest is signed: an edited one is refused before anything is restored.
    with raises_code(backups.RestoreError, "restore.bad_signature"):
        backups.restore_backup(bad, empty_database())

    def one_more_person(manifest: dict, members: dict) -> None:
        manifest["counts"]["people"] += 1

    # Even signed again (with this installation's key), a manifest that lies is caught by the verification.
    resigned = rewrite(good.path, tmp_path / "reassinada.zip", one_more_person)
    with raises_code(backups.RestoreError, "restore.data_differs"):
        backups.restore_backup(resigned, empty_database())


def test_backup_while_another_process_writes(ctx: AppContext, db_url: str, empty_database,
                                             tmp_path: Path) -> None:
    seed_demo(ctx, 10)
    stop, progress = tmp_path / "parar", tmp_path / "progresso"
    errors = tmp_path / "erros.txt"
    with errors.open("w") as err:
        writer = subprocess.Popen([sys.executable, "-c", WRITER, db_url, str(stop), str(progress)], stderr=err)

    def written() -> int:
        try:
            return int(progress.read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    def wait_for(count: int) -> None:
        deadline = time.monotonic() + 90
        while written() < count:
            assert writer.poll() is None, errors.read_text()
            assert time.monotonic() < deadline, f"the writer wrote only {written()} rows"
            time.sleep(0.05)

    try:
        wait_for(30)
        result = backups.create_backup(ctx, tmp_path / "durante.zip")
        wait_for(written() + 30)
    finally:
        stop.touch()
        writer.wait(timeout=60)
    assert writer.returncode == 0, errors.read_text()

    target = empty_database()
    backups.restore_backup(result.path, target)  # raises unless counts and the audit trail's last entry match

    def rows(db: Database) -> dict[str, str]:
        with db.session() as s:
            return {r.key: r.value for r in s.scalars(select(Setting).where(Setting.key.like("escrita-%")))}

    live, copy = rows(ctx.db), rows(target)
    assert 30 <= len(copy) < len(live)
    assert all(live[k] == v for k, v in copy.items()), "the copy holds exactly rows that were written"
    assert sorted(copy) == sorted(live)[: len(copy)], "a consistent moment: no gap in the writer's sequence"
    with ctx.db.engine.connect() as a, target.engine.connect() as b:
        last = result.manifest.audit_last["id"]
        query = text("SELECT id, table_name, row_key, action, changes FROM audit_events WHERE id <= :last ORDER BY id")
        assert a.execute(query, {"last": last}).all() == b.execute(query, {"last": last}).all()
        assert b.execute(text("SELECT max(id) FROM audit_events")).scalar() == last


@pytest.mark.parametrize("backend", ["postgresql"])
def test_sqlite_backup_restores_into_an_empty_postgresql(tmp_path: Path, empty_database, backend: str) -> None:
    from motodesk.services.settings import ensure_defaults

    source = Database.open(f"sqlite:///{tmp_path / 'balcao.sqlite3'}")
    source.prepare()
    ctx = AppContext(source)
    ensure_defaults(ctx)
    seed_demo(ctx, 15)
    files = _add_files(ctx)
    result = backups.create_backup(ctx, tmp_path / "balcao.zip")
    source.dispose()
    target = empty_database("postgresql")
    restored = backups.restore_backup(result.path, target)
    shared = {t: n for t, n in result.manifest.counts.items() if t in restored.snapshot.counts}
    assert restored.snapshot.counts == shared and shared["people"] == 15 and _blobs(target) == files
    assert restored.snapshot.audit_last == result.manifest.audit_last
    # The sequences continue after the copied rows: a new row gets a new id.
    with AppContext(target).write() as s:
        s.add(Setting(key="depois-da-restauracao", value="1"))
    with raises_code(backups.RestoreError, "restore.postgresql_only"):
        pg_backup = backups.create_backup(AppContext(target), tmp_path / "servidor.zip")
        backups.restore_backup(pg_backup.path, empty_database("sqlite"))


def test_a_postgresql_backup_holds_data_only(pg_ctx: AppContext, tmp_path: Path) -> None:
    """No pg_dump archive, no SQL: a manifest, its signature, the schema's description and one data file
    per table, whose first line names the columns."""
    seed_demo(pg_ctx, 3)
    result = backups.create_backup(pg_ctx, tmp_path / "servidor.zip")
    with zipfile.ZipFile(result.path) as zf:
        names = set(zf.namelist())
        people = zf.read("tables/people.jsonl").decode().splitlines()
    assert {backups.MANIFEST, backups.SIGNATURE, backups.SCHEMA_MEMBER, "tables/people.jsonl",
            "tables/audit_events.jsonl"} <= names
    assert all(n.startswith("tables/") or n in (backups.MANIFEST, backups.SIGNATURE, backups.SCHEMA_MEMBER)
               for n in names)
    header = json.loads(people[0])[0]
    assert header["table"] == "people" and "cpf" in header["columns"] and len(people) == 1 + 3
    assert result.manifest.tables["people"]["rows"] == 3


def test_only_an_administrator_backs_up(ctx: AppContext, tmp_path: Path) -> None:
    clerk = ctx.as_user(CurrentUser(id=7, login="ana", full_name="Ana", role=Role.CLERK))
    with pytest.raises(PermissionDeniedError):
        backups.create_backup(clerk, tmp_path / "x.zip")
    with pytest.raises(PermissionDeniedError):
        backups.set_reminder_days(clerk, 3)


def test_the_reminder_follows_the_last_backup_and_the_setting(ctx: AppContext, tmp_path: Path) -> None:
    admin = ctx.as_user(CurrentUser(id=1, login="admin", full_name="Admin", role=Role.ADMIN))
    clerk = ctx.as_user(CurrentUser(id=2, login="ana", full_name="Ana", role=Role.CLERK))
    assert backups.reminder_days(ctx) == backups.DEFAULT_REMINDER_DAYS
    assert "Nenhuma cópia de segurança" in backups.backup_reminder(admin)
    assert backups.backup_reminder(clerk) is None
    result = backups.create_backup(admin, tmp_path / "c.zip")
    record = backups.last_backup(ctx)
    assert record is not None and record.by == "admin" and record.kind == result.manifest.kind
    assert backups.backup_reminder(admin) is None
    later = datetime.now(UTC) + timedelta(days=8, hours=1)
    message = backups.backup_reminder(admin, now=later)
    assert message and "há 8 dias" in message and "a cada 7" in message
    backups.set_reminder_days(admin, 10)
    assert backups.backup_reminder(admin, now=later) is None
    backups.set_reminder_days(admin, 0)
    assert backups.backup_reminder(admin, now=later + timedelta(days=400)) is None
    with raises_code(InvalidInputError, "invalid_input", fields=("days",)):
        backups.set_reminder_days(admin, 400)


def test_command_line_backup_and_restore(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("MOTODESK_DATABASE_URL", None)
    source = f"sqlite:///{tmp_path / 'origem.sqlite3'}"

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "motodesk", *args], capture_output=True, text=True,
                              timeout=180, env=env, input=stdin)

    from motodesk.services.demo import DEMO_PASSWORD

    assert run("init-db", "--database", source).returncode == 0
    assert run("create-user", "admin", "--role", "admin", "--database", source, stdin=DEMO_PASSWORD).returncode == 0
    assert run("seed-demo", "--people", "12", "--database", source, "--user", "admin",
               stdin=DEMO_PASSWORD).returncode == 0
    out = run("backup", str(tmp_path / "cli.zip"), "--database", source, "--user", "admin", stdin=DEMO_PASSWORD)
    assert out.returncode == 0, out.stderr
    assert "Cópia de segurança gravada" in out.stdout
    out = run("restore", str(tmp_path / "cli.zip"), "--database", f"sqlite:///{tmp_path / 'novo.sqlite3'}")
    assert out.returncode == 0, out.stderr
    assert "Restauração concluída e conferida" in out.stdout and "Última entrada da trilha de auditoria" in out.stdout
    out = run("restore", str(tmp_path / "cli.zip"), "--database", source)
    assert out.returncode == 1 and "não está vazio" in out.stderr and "Traceback" not in out.stderr


def test_command_line_key_export_and_trust_on_another_machine(tmp_path: Path) -> None:
    """`export-backup-key` on the machine that backs up, `restore --trust-key` on the one that restores."""
    here = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "MOTODESK_KEY_DIR": str(tmp_path / "balcao")}
    there = {**here, "MOTODESK_KEY_DIR": str(tmp_path / "outra-estacao")}
    here.pop("MOTODESK_DATABASE_URL", None)
    there.pop("MOTODESK_DATABASE_URL", None)
    source = f"sqlite:///{tmp_path / 'origem.sqlite3'}"

    def run(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "motodesk", *args], capture_output=True, text=True,
                              timeout=180, env=env, input=stdin)

    assert run(here, "init-db", "--database", source).returncode == 0
    assert run(here, "create-user", "admin", "--role", "admin", "--database", source, stdin="senha-da-copia\n"
               ).returncode == 0
    assert run(here, "seed-demo", "--people", "3", "--database", source, "--user", "admin",
               stdin="senha-da-copia\n").returncode == 0
    out = run(here, "backup", str(tmp_path / "c.zip"), "--database", source, "--user", "admin",
              stdin="senha-da-copia\n")
    assert out.returncode == 0, out.stderr
    key = out.stdout.split("assinada pela chave ")[1].split(".")[0]
    out = run(there, "restore", str(tmp_path / "c.zip"), "--database", f"sqlite:///{tmp_path / 'a.sqlite3'}")
    assert out.returncode == 1 and f"chave {key}, que esta instalação não conhece" in out.stderr
    out = run(here, "export-backup-key", str(tmp_path / "chave.pem"))
    assert out.returncode == 0 and key in out.stdout, out.stderr
    out = run(there, "restore", "--trust-key", str(tmp_path / "chave.pem"), str(tmp_path / "c.zip"),
              "--database", f"sqlite:///{tmp_path / 'b.sqlite3'}")
    assert out.returncode == 0 and "Restauração concluída e conferida" in out.stdout, out.stderr
    assert f"assinada pela chave {key}" in out.stdout
