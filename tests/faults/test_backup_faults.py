"""Fault suite, backups: damaged sources, forged and corrupted files, planted code, a full disk.

Issue 17, items 3 to 6 and the backup part of 13. Each test is a guarantee of the fault table in
bench/results.md (see bench/bench_faults.py).
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import sqlite3
import stat
import subprocess
import sys
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from backup_tools import add_member, empty_database_fixture, read_members, rewrite  # type: ignore[import-not-found]  # noqa: F401
from sqlalchemy import text
from tests_helpers import names_in, raises_code  # type: ignore[import-not-found]

from motodesk.models import Setting
from motodesk.models.db import Database
from motodesk.services import backup as backups
from motodesk.services import backup_keys, backup_restore, backup_write
from motodesk.services.backup_schema import describe_schema
from motodesk.services.context import AppContext
from motodesk.services.demo import seed_demo

MakeDb = Callable[..., Database]


def _insert_person_sql(suffix: str, cpf: str) -> str:
    return ("INSERT INTO people (full_name, name_search, cpf, version, created_at, updated_at) "
            f"SELECT full_name || ' {suffix}', name_search || ' {suffix.lower()}', '{cpf}', 1, created_at, updated_at "
            "FROM people LIMIT 1")


def _prepared(make: MakeDb, kind: str | None = None) -> AppContext:
    from motodesk.services.settings import ensure_defaults

    db = make(kind) if kind else make()
    db.prepare(allow_upgrade_shared=True)
    ctx = AppContext(db)
    ensure_defaults(ctx)
    return ctx


# --- item 3: a damaged database is not backed up --------------------------------------------------

def _corrupt_index_page(path: Path) -> None:
    """Overwrite the cells of an index's root page: the table is intact, the index now lies."""
    con = sqlite3.connect(path)
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'people' "
                       "AND sql IS NOT NULL ORDER BY name LIMIT 1").fetchone()[0]
    con.close()
    with path.open("r+b") as fh:
        fh.seek((root - 1) * page_size + page_size - 600)
        fh.write(os.urandom(500))


@pytest.mark.parametrize("backend", ["sqlite"])  # PostgreSQL: test_a_damaged_postgresql_database_is_not_backed_up
def test_a_damaged_sqlite_database_is_not_backed_up(ctx: AppContext, tmp_path: Path, backend: str) -> None:
    seed_demo(ctx, 40)
    path = ctx.db.sqlite_path
    assert path is not None
    out = tmp_path / "copias"
    out.mkdir()
    # A row pointing at a missing parent (written with foreign keys off, as another tool could).
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys = OFF")
    con.execute("INSERT INTO attachments (owner_table, owner_id, blob_sha256, filename, media_type, size, added_by, "
                "added_at) VALUES ('people', 1, 'ff00', 'x.pdf', 'application/pdf', 1, 'x', '2026-01-01 00:00:00')")
    con.commit()
    con.close()
    with raises_code(backups.BackupError, "backup.broken_references") as broken:
        backups.create_backup(ctx, out / "a.zip")
    names_in(broken.value, "foreign_key_check", "attachments")
    con = sqlite3.connect(path)
    con.execute("DELETE FROM attachments WHERE blob_sha256 = 'ff00'")
    con.commit()
    con.close()
    ctx.db.dispose()
    # A damaged page.
    _corrupt_index_page(path)
    with raises_code(backups.BackupError, "backup.damaged_database") as damaged:
        backups.create_backup(ctx, out / "b.zip")
    names_in(damaged.value, path)
    assert list(out.iterdir()) == [], "nothing is written for a damaged database"


def test_a_copy_damaged_on_the_way_is_not_kept(ctx: AppContext, tmp_path: Path, backend: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite: the copy is checked too; PostgreSQL: the written file is read back and every table rehashed."""
    seed_demo(ctx, 20)
    out = tmp_path / "copias"
    out.mkdir()
    if backend == "sqlite":
        real = Database.backup_sqlite

        def damaging(self: Database, target: Path | None = None) -> Path | None:
            made = real(self, target)
            assert made is not None
            _corrupt_index_page(made)
            return made

        monkeypatch.setattr(Database, "backup_sqlite", damaging)
        expected = "backup.damaged_database"
    else:
        real_line = backup_write._file_line

        def lossy(encoded: list[Any]) -> bytes:  # a writer that loses the seconds of every datetime
            return real_line([["t", v[1][:16]] if isinstance(v, list) and v[0] == "t" else v for v in encoded])

        monkeypatch.setattr(backup_write, "_file_line", lossy)
        expected = "backup.read_back_differs"
    with raises_code(backups.BackupError, expected):
        backups.create_backup(ctx, out / "c.zip")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_damaged_postgresql_database_is_not_backed_up(empty_database: MakeDb, tmp_path: Path,
                                                        backend: str) -> None:
    ctx = _prepared(empty_database)
    seed_demo(ctx, 10)
    with ctx.db.engine.begin() as conn:  # what a superuser with replication role can leave behind
        conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        conn.exec_driver_sql("INSERT INTO attachments (owner_table, owner_id, blob_sha256, filename, media_type, "
                             "size, added_by, added_at) VALUES ('people', 1, 'ff00', 'x.pdf', 'application/pdf', 1, "
                             "'x', now())")
    with raises_code(backups.BackupError, "backup.broken_references") as broken:
        backups.create_backup(ctx, tmp_path / "x.zip")
    names_in(broken.value, "attachments", "blobs")
    assert not (tmp_path / "x.zip").exists()


# --- item 4: signature, hashes, schema ------------------------------------------------------------

def test_forged_unsigned_or_foreign_backups_are_refused(ctx: AppContext, empty_database: MakeDb, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seed_demo(ctx, 8)
    here, there = tmp_path / "chaves-daqui", tmp_path / "chaves-de-la"
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(there))
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    assert good.key_id and backup_keys.PRIVATE_FILE not in read_members(good.path), "the key is not in the backup"
    assert not any(b"PRIVATE KEY" in data for data in read_members(good.path).values())

    def one_more(manifest: dict, members: dict) -> None:
        manifest["counts"]["people"] += 1

    edited = rewrite(good.path, tmp_path / "editada.zip", one_more, resign=False)
    with raises_code(backups.RestoreError, "restore.bad_signature"):
        backups.restore_backup(edited, empty_database())

    def no_signature(manifest: dict, members: dict) -> None:
        members.pop(backups.SIGNATURE)

    with raises_code(backups.RestoreError, "restore.unsigned"):
        backups.restore_backup(rewrite(good.path, tmp_path / "sem.zip", no_signature, resign=False), empty_database())

    data_member = next(n for n in good.manifest.members if n != backups.SCHEMA_MEMBER)
    members = read_members(good.path)
    members[data_member] = members[data_member][:-50] + bytes(50)  # the data changed, the manifest did not
    with zipfile.ZipFile(tmp_path / "dados.zip", "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with raises_code(backups.RestoreError, "restore.member_differs") as differs:
        backups.restore_backup(tmp_path / "dados.zip", empty_database())
    names_in(differs.value, data_member)

    def extra(manifest: dict, members: dict) -> None:
        members["leia-me.sql"] = b"DROP TABLE people;"

    with raises_code(backups.RestoreError, "restore.unlisted_members") as unlisted:
        backups.restore_backup(rewrite(good.path, tmp_path / "extra.zip", extra, resign=False), empty_database())
    names_in(unlisted.value, "leia-me.sql")

    # Another installation does not know the key until its administrator trusts the exported public part.
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(here))
    with raises_code(backups.RestoreError, "restore.unknown_key") as unknown:
        backups.restore_backup(good.path, empty_database())
    names_in(unknown.value, good.key_id)
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(there))
    exported = tmp_path / "chave-publica.pem"
    assert backup_keys.export_public_key(exported) == good.key_id
    assert b"PUBLIC KEY" in exported.read_bytes() and b"PRIVATE" not in exported.read_bytes()
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(here))
    private = there / backup_keys.PRIVATE_FILE
    with raises_code(backups.InvalidInputError, "backup_key.private"):
        backup_keys.trust_key(private)
    restored = backups.restore_backup(good.path, empty_database(), trust_key=exported)
    assert restored.key_id == good.key_id and restored.snapshot.counts["people"] == 8
    backups.restore_backup(good.path, empty_database())  # trusted from now on


def _plant_sqlite(statement: str) -> Callable[[dict, dict], None]:
    def edit(manifest: dict, members: dict) -> None:
        with_file = Path(f"/tmp/motodesk-plant-{uuid.uuid4().hex}.sqlite3")
        try:
            with_file.write_bytes(members[backups.SQLITE_MEMBER])
            con = sqlite3.connect(with_file)
            con.executescript(statement)
            con.commit()
            con.close()
            members[backups.SQLITE_MEMBER] = with_file.read_bytes()
        finally:
            with_file.unlink(missing_ok=True)
    return edit


def _plant_schema(change: Callable[[dict], None]) -> Callable[[dict, dict], None]:
    def edit(manifest: dict, members: dict) -> None:
        schema = json.loads(members[backups.SCHEMA_MEMBER])
        change(schema)
        members[backups.SCHEMA_MEMBER] = json.dumps(schema).encode()
    return edit


def test_a_schema_other_than_the_migrations_is_refused(ctx: AppContext, backend: str, empty_database: MakeDb,
                                                       tmp_path: Path) -> None:
    """Validly signed files whose schema has an extra trigger, an extra table or a missing index."""
    seed_demo(ctx, 5)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    schema = json.loads(read_members(good.path)[backups.SCHEMA_MEMBER])
    index = next(k for k in schema if k.startswith("index ") and "people" in k)
    constraint = next((k for k in schema if k.startswith("constraint ")), "")
    if backend == "sqlite":
        cases = {
            "gatilho": (_plant_sqlite("CREATE TRIGGER plantado AFTER INSERT ON people BEGIN "
                                      "DELETE FROM audit_events; END;"), "plantado"),
            "tabela": (_plant_sqlite("CREATE TABLE plantada (x TEXT);"), "plantada"),
            "índice": (_plant_sqlite(f"DROP INDEX {index.split(' ', 1)[1]};"), index.split(' ', 1)[1]),
        }
    else:
        trigger = ("trigger public.people.plantado", "CREATE TRIGGER plantado AFTER INSERT ON public.people FOR EACH "
                   "ROW EXECUTE FUNCTION plantada() enabled=O")
        cases = {
            "gatilho": (_plant_schema(lambda s: s.__setitem__(*trigger)), "public.people.plantado"),
            "função": (_plant_schema(lambda s: s.__setitem__("function public.plantada()", "CREATE FUNCTION …")),
                       "public.plantada()"),
            "restrição": (_plant_schema(lambda s: s.pop(constraint)), constraint.split(" ", 1)[1]),
            "índice": (_plant_schema(lambda s: s.pop(index)), index.split(' ', 1)[1]),
        }
    for label, (edit, named) in cases.items():
        forged = rewrite(good.path, tmp_path / f"{label}.zip", edit)
        target = empty_database()
        with raises_code(backups.RestoreError, "restore.schema_differs") as refused:
            backups.restore_backup(forged, target)
        names_in(refused.value, forged, named)
        assert target.is_empty(), f"{label}: nothing is left in the target"


def test_table_contents_that_do_not_match_their_hash_are_refused(ctx: AppContext, backend: str,
                                                                 empty_database: MakeDb, tmp_path: Path) -> None:
    seed_demo(ctx, 5)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    if backend == "sqlite":
        edit = _plant_sqlite("UPDATE people SET full_name = 'Outro Nome' WHERE id = (SELECT min(id) FROM people);")
    else:
        def edit(manifest: dict, members: dict) -> None:
            lines = members["tables/people.jsonl"].decode().splitlines(keepends=True)
            header = json.loads(lines[0])[0]["columns"]
            row = json.loads(lines[1])
            row[header.index("full_name")] = "Outro Nome"
            lines[1] = json.dumps(row) + "\n"
            members["tables/people.jsonl"] = "".join(lines).encode()
    forged = rewrite(good.path, tmp_path / "outra.zip", edit)  # member hashes and signature redone
    target = empty_database()
    with raises_code(backups.RestoreError, "restore.data_differs") as differs:
        backups.restore_backup(forged, target)
    names_in(differs.value, "people", "SHA-256")
    assert target.is_empty()


@pytest.mark.parametrize("backend", ["postgresql"])
def test_table_hashes_are_the_same_on_both_databases(tmp_path: Path, empty_database: MakeDb, backend: str) -> None:
    """The per-table hash of a SQLite database and of the PostgreSQL database it was restored into."""
    source = _prepared(empty_database, "sqlite")
    seed_demo(source, 12)
    with source.db.engine.connect() as conn:
        before = backups.content_hashes(conn)
    backup = backups.create_backup(source, tmp_path / "balcao.zip")
    target = empty_database("postgresql")
    backups.restore_backup(backup.path, target)
    with target.engine.connect() as conn:
        assert backups.content_hashes(conn) == backup.manifest.tables == before
    assert before["people"]["rows"] == 12 and before["audit_events"]["rows"] > 12


# --- item 5: restoring never runs code from the file ----------------------------------------------

@pytest.mark.parametrize("backend", ["postgresql"])
def test_code_planted_in_a_postgresql_backup_does_not_run(empty_database: MakeDb, tmp_path: Path,
                                                          backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = Path(f"/tmp/motodesk-plantado-{uuid.uuid4().hex}")
    ctx = _prepared(empty_database)
    seed_demo(ctx, 4)
    planted = (f"CREATE FUNCTION plantada() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
               f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'; RETURN NEW; END $$")
    payload = f"x'); COPY (SELECT 1) TO PROGRAM 'touch {marker}'; --"
    with ctx.db.engine.begin() as conn:
        conn.exec_driver_sql(planted)
        conn.exec_driver_sql("CREATE TRIGGER plantado AFTER INSERT ON people FOR EACH ROW EXECUTE FUNCTION plantada()")
        conn.execute(text("INSERT INTO settings (key, value, version) VALUES ('plantado', :v, 1)"), {"v": payload})
    # Issue 31: the backup itself refuses a database whose schema the migrations did not build...
    with raises_code(backups.BackupError, "backup.schema_differs") as refused:
        backups.create_backup(ctx, tmp_path / "recusada.zip")
    names_in(refused.value, "public.plantada()")
    # ...so the file below is one made without that check (an older version, or forged and re-signed).
    with monkeypatch.context() as unchecked:
        unchecked.setattr(backup_write, "_schema_damage", lambda *args: None)
        backup = backups.create_backup(ctx, tmp_path / "plantada.zip")
    try:
        # The plant is real: on the source it runs a program on the server.
        with ctx.db.engine.begin() as conn:
            conn.exec_driver_sql(_insert_person_sql("B", "00000000191"))
        assert marker.exists()
        marker.unlink()
        # 1. As made, the backup says its schema has a function and a trigger the migrations do not build.
        target = empty_database()
        with raises_code(backups.RestoreError, "restore.schema_differs") as refused:
            backups.restore_backup(backup.path, target)
        names_in(refused.value, "public.plantada()", "public.people.plantado")
        assert target.is_empty() and not marker.exists()

        # 2. Validly signed, with the plant hidden from the schema description and a table name that is SQL:
        #    the data go into the migrations' schema as data, the trigger and the function never exist.
        def hide(manifest: dict, members: dict) -> None:
            schema = json.loads(members[backups.SCHEMA_MEMBER])
            for key in [k for k in schema if "plantad" in k]:
                del schema[key]
            members[backups.SCHEMA_MEMBER] = json.dumps(schema).encode()

        hidden = rewrite(backup.path, tmp_path / "escondida.zip", hide)
        target = empty_database()
        restored = backups.restore_backup(hidden, target)
        assert restored.snapshot.counts["people"] == 4 and not marker.exists()
        with target.engine.begin() as conn:
            assert conn.execute(text("SELECT value FROM settings WHERE key = 'plantado'")).scalar() == payload
            assert conn.exec_driver_sql("SELECT count(*) FROM pg_proc WHERE proname = 'plantada'").scalar() == 0
            assert conn.exec_driver_sql("SELECT count(*) FROM pg_trigger WHERE tgname = 'plantado'").scalar() == 0
            conn.exec_driver_sql(_insert_person_sql("C", "00000000272"))
        assert not marker.exists()

        def sql_table_name(manifest: dict, members: dict) -> None:
            evil = f'settings" (key) FROM STDIN; COPY (SELECT 1) TO PROGRAM \'touch {marker}\'; --'
            add_member(manifest, members, f"tables/{evil}.jsonl",
                       (json.dumps([{"table": evil, "columns": ["key"]}]) + "\n").encode())
            manifest["tables"][evil] = {"rows": 0, "sha256": backups.TableHash(["key"]).hexdigest()}
            manifest["counts"][evil] = 0
            hide(manifest, members)

        target = empty_database()
        with raises_code(backups.RestoreError, "restore.unknown_tables"):
            backups.restore_backup(rewrite(backup.path, tmp_path / "nome.zip", sql_table_name), target)
        assert target.is_empty() and not marker.exists()
    finally:
        marker.unlink(missing_ok=True)


def test_the_format_that_ran_pg_restore_is_refused(empty_database: MakeDb, tmp_path: Path) -> None:
    """A backup of the old format (a pg_dump archive, restored with pg_restore) is not restored at all."""
    old = tmp_path / "antiga.zip"
    manifest = {"format": "motodesk-backup", "format_version": 1, "program_version": "0.9", "kind": "postgresql",
                "revision": "0002", "created_at": "2026-11-01T10:00:00+00:00", "created_by": "admin", "counts": {},
                "blob_bytes": 0, "audit_last": None}
    with zipfile.ZipFile(old, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr("database.pgdump", b"PGDMP COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'")
    with raises_code(backups.RestoreError, "restore.unsigned"):
        backups.restore_backup(old, empty_database())


AUDIT_TRIGGER = """
CREATE FUNCTION motodesk_test_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes)
  VALUES (now(), current_user, TG_TABLE_NAME, NEW.id::text, 'insert', '{}');
  RETURN NEW; END $$;
CREATE TRIGGER people_audit_test AFTER INSERT ON people FOR EACH ROW EXECUTE FUNCTION motodesk_test_audit();
"""


def test_audit_rows_are_restored_verbatim_with_the_triggers_back(ctx: AppContext, backend: str,
                                                                 empty_database: MakeDb, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    seed_demo(ctx, 6)
    backup = backups.create_backup(ctx, tmp_path / "auditoria.zip")
    target = empty_database()
    backups.restore_backup(backup.path, target)
    query = "SELECT id, at, user_login, table_name, row_key, action, changes FROM audit_events ORDER BY id"
    with ctx.db.engine.connect() as a, target.engine.connect() as b:
        rows = b.exec_driver_sql(query).all()
        assert rows == a.exec_driver_sql(query).all()[: len(rows)] and len(rows) == backup.manifest.counts[
            "audit_events"]
    with pytest.raises(Exception, match="append-only"), target.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE audit_events SET user_login = 'outro'")
    if backend == "sqlite":
        return
    with target.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT tgenabled FROM pg_trigger WHERE tgname = 'audit_events_append_only'"
                                    ).scalar() == "O"

    # A database-side audit trigger (as a later migration adds): it must not write rows for restored data,
    # and must be working again afterwards.
    source = _prepared(empty_database)
    seed_demo(source, 3)
    with source.db.engine.begin() as conn:
        conn.exec_driver_sql(AUDIT_TRIGGER)
    upgrade_on = Database.upgrade_on

    def migrations_with_the_trigger(self: Database, conn: Any, revision: str, **options: Any) -> None:
        upgrade_on(self, conn, revision, **options)
        conn.exec_driver_sql(AUDIT_TRIGGER)

    # The migrations (the backup's reference and the restore's target) build the trigger too.
    monkeypatch.setattr(Database, "upgrade_on", migrations_with_the_trigger)
    backup = backups.create_backup(source, tmp_path / "gatilho.zip")
    target = empty_database()
    restored = backups.restore_backup(backup.path, target)  # raises if any audit row were added or changed
    assert restored.snapshot.counts["audit_events"] == backup.manifest.counts["audit_events"]
    with target.engine.begin() as conn:
        conn.exec_driver_sql(_insert_person_sql("D", "00000000353"))
        assert conn.exec_driver_sql("SELECT count(*) FROM audit_events").scalar() == (
            backup.manifest.counts["audit_events"] + 1)


# --- item 6: truncated and corrupted files, a full disk --------------------------------------------

ADMIN = ("--user", "admin")
ADMIN_PASSWORD = "senha-da-copia\n"


def _cli(env: dict[str, str], *args: str, limit: int | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        assert limit is not None
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "motodesk", *args], capture_output=True, text=True, timeout=180,
                          env=env, input=stdin, preexec_fn=small_files if limit else None)


def _seeded(env: dict[str, str], source: str, people: int) -> None:
    """A demo register made from the terminal: init-db, the first administrator, seed-demo as that user."""
    assert _cli(env, "init-db", "--database", source).returncode == 0
    assert _cli(env, "create-user", "admin", "--role", "admin", "--database", source,
                stdin=ADMIN_PASSWORD).returncode == 0
    out = _cli(env, "seed-demo", "--people", str(people), "--database", source, *ADMIN, stdin=ADMIN_PASSWORD)
    assert out.returncode == 0, out.stderr


def _cli_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           backup_keys.KEY_DIR_ENV: str(tmp_path / "chaves"), "MOTODESK_LOG_DIR": str(tmp_path / "log")}
    env.pop("MOTODESK_DATABASE_URL", None)
    return env


def _stored_zip(source: Path, target: Path) -> Path:
    """The same backup, members stored uncompressed (so that one flipped byte reaches the CRC check)."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    return target


def _flip_inside(archive: Path, member: str) -> None:
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo(member)
    with archive.open("r+b") as fh:
        fh.seek(info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2)
        byte = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([byte[0] ^ 0xFF]))


def test_truncated_and_corrupted_files_are_named_from_the_command_line(tmp_path: Path) -> None:
    env = _cli_env(tmp_path)
    source = f"sqlite:///{tmp_path / 'origem.sqlite3'}"
    _seeded(env, source, 30)
    good = tmp_path / "boa.zip"
    out = _cli(env, "backup", str(good), "--database", source, *ADMIN, stdin=ADMIN_PASSWORD)
    assert out.returncode == 0, out.stderr
    truncated = tmp_path / "truncada.zip"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    bad_crc = _stored_zip(good, tmp_path / "crc.zip")
    _flip_inside(bad_crc, backups.SQLITE_MEMBER)
    for archive, said in ((truncated, "incompleto ou corrompido"), (bad_crc, "conteúdo de database.sqlite3 está "
                                                                             "corrompido")):
        out = _cli(env, "restore", str(archive), "--database", f"sqlite:///{tmp_path / f'{archive.stem}.sqlite3'}")
        assert out.returncode == 1, (archive, out.returncode, out.stderr)
        assert str(archive) in out.stderr and said in out.stderr and "Traceback" not in out.stderr


def test_truncated_and_corrupted_files_are_refused(ctx: AppContext, empty_database: MakeDb, tmp_path: Path) -> None:
    seed_demo(ctx, 10)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    for cut in (100, good.size // 2, good.size - 10):
        truncated = tmp_path / f"truncada-{cut}.zip"
        truncated.write_bytes(good.path.read_bytes()[:cut])
        with raises_code(backups.RestoreError, "restore.damaged_archive") as damaged:
            backups.restore_backup(truncated, empty_database())
        names_in(damaged.value, truncated)
    member = max(good.manifest.members, key=lambda n: good.manifest.members[n]["size"])
    bad = _stored_zip(good.path, tmp_path / "crc.zip")
    _flip_inside(bad, member)
    target = empty_database()
    with raises_code(backups.RestoreError, "restore.damaged_archive") as damaged:
        backups.restore_backup(bad, target)
    names_in(damaged.value, bad, member)
    assert target.is_empty()


class _DiskFillsUp:
    """A file whose writes fail with ENOSPC once `room` bytes were written, as on a full disk."""

    def __init__(self, real: Any, room: int) -> None:
        self.real, self.room = real, room

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return int(self.real.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def __enter__(self) -> _DiskFillsUp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.real.close()


def test_a_full_disk_is_named_and_leaves_nothing_behind(ctx: AppContext, empty_database: MakeDb, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seed_demo(ctx, 30)
    good = backups.create_backup(ctx, tmp_path / "boa.zip")
    folder = tmp_path / "pendrive"
    folder.mkdir()
    real = backup_write._create_private
    monkeypatch.setattr(backup_write, "_create_private", lambda path: _DiskFillsUp(real(path), 20_000))
    with raises_code(backups.BackupError, "backup.disk_refused") as full:
        backups.create_backup(ctx, folder / "copia.zip")
    names_in(full.value, folder)
    assert isinstance(full.value.__cause__, OSError) and full.value.__cause__.errno == errno.ENOSPC
    assert list(folder.iterdir()) == [], "no partial file"
    monkeypatch.setattr(backup_restore, "_create_private", lambda path: _DiskFillsUp(real(path), 1_000))
    with raises_code(backups.RestoreError, "restore.disk_refused") as full:
        backups.restore_backup(good.path, target := empty_database())
    names_in(full.value, "boa.zip")
    assert target.is_empty()


def test_a_file_size_limit_during_a_command_line_backup(tmp_path: Path) -> None:
    """A real limit (RLIMIT_FSIZE) in the backup process: the write fails with EFBIG, named in pt_BR."""
    env = _cli_env(tmp_path)
    source = f"sqlite:///{tmp_path / 'origem.sqlite3'}"
    _seeded(env, source, 300)
    folder = tmp_path / "destino"
    folder.mkdir()
    size = (tmp_path / "origem.sqlite3").stat().st_size
    out = _cli(env, "backup", str(folder / "copia.zip"), "--database", source, *ADMIN, limit=size // 3,
               stdin=ADMIN_PASSWORD)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert str(folder) in out.stderr and ("maior do que o permitido" in out.stderr or "cheio" in out.stderr)
    assert "Traceback" not in out.stderr and list(folder.iterdir()) == []


# --- item 13 (part): owner-only files --------------------------------------------------------------

@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_backups_and_key_files_are_readable_by_their_owner_only(ctx: AppContext, backend: str,
                                                                empty_database: MakeDb, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(tmp_path / "chaves"))
    old = os.umask(0)  # the most permissive umask: the modes must not depend on it
    try:
        result = backups.create_backup(ctx, tmp_path / "copia.zip")
        exported = tmp_path / "publica.pem"
        backup_keys.export_public_key(exported)
        monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(tmp_path / "outra"))
        backup_keys.trust_key(exported)
        trusted = next((tmp_path / "outra" / backup_keys.TRUSTED_DIR).glob("*.pem"))
        target = empty_database("sqlite")
        if backend == "sqlite":
            monkeypatch.setenv(backup_keys.KEY_DIR_ENV, str(tmp_path / "chaves"))
            backups.restore_backup(result.path, target)
    finally:
        os.umask(old)
    files = [result.path, tmp_path / "chaves" / backup_keys.PRIVATE_FILE, exported, trusted]
    if backend == "sqlite":
        assert target.sqlite_path is not None
        files.append(target.sqlite_path)
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    with zipfile.ZipFile(result.path) as zf:
        assert all((info.external_attr >> 16) & 0o777 == 0o600 for info in zf.infolist())


def test_describe_schema_sees_what_the_migrations_build(ctx: AppContext, backend: str) -> None:
    """The comparison names no table: every table of the models, its columns and the audit triggers are
    in the description, and an object nobody told it about shows up as a difference."""
    from motodesk.models import Base
    from motodesk.services.backup_schema import differences

    with ctx.db.engine.connect() as conn:
        before = describe_schema(conn)
    for table in Base.metadata.sorted_tables:
        assert any(k.split(" ", 1)[1].split(".")[-1] == table.name and k.startswith(("table ", "relation "))
                   for k in before), table.name
    assert any(k.startswith("trigger ") and "audit_events" in k for k in before)
    with ctx.db.engine.begin() as conn:
        conn.exec_driver_sql("CREATE INDEX ix_um_novo ON settings (value)")
    try:
        with ctx.db.engine.connect() as conn:
            after = describe_schema(conn)
        assert [p for p in differences(before, after) if "ix_um_novo" in p and "a mais" in p]
    finally:  # the PostgreSQL test database is shared by the tests of this process
        with ctx.db.engine.begin() as conn:
            conn.exec_driver_sql("DROP INDEX ix_um_novo")
    assert Setting.__tablename__ in {k.split(" ", 1)[1].split(".")[-1] for k in before}
