"""Backups of the whole database (attachments and photos included: they are rows of `blobs`).

One file format for both databases: a zip ("motodesk-backup") holding `manifest.json` (program
version, schema revision, kind, row counts per table, bytes of stored files, the audit trail's last
entry) and either a SQLite copy made with the online backup API or a `pg_dump` custom-format
archive. The manifest describes exactly the copied data: for SQLite it is read from the copy, for
PostgreSQL inside the transaction whose snapshot `pg_dump` exports.

A restore goes only into an empty database and is verified against the manifest (counts, stored
bytes, the audit trail's last entry) before it is reported as done.
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from glob import glob
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, MetaData, create_engine, func, inspect, select, text
from sqlalchemy.exc import DBAPIError

from motodesk import __version__
from motodesk.models import AuditEvent, Setting
from motodesk.models.audit import without_triggers
from motodesk.models.db import Database, DatabaseError, explain_error, shipped_revisions
from motodesk.rules.common import Role
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger(__name__)

FORMAT = "motodesk-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SQLITE_MEMBER = "database.sqlite3"
PG_MEMBER = "database.pgdump"
SUFFIX = ".zip"

SETTING_LAST = "backup_last"
SETTING_REMINDER_DAYS = "backup_reminder_days"
DEFAULT_REMINDER_DAYS = 7
PG_TOOLS_ENV = "MOTODESK_PG_BIN"

Progress = Callable[[int, int], None]


class BackupError(MotodeskError):
    title = "Cópia de segurança"


class RestoreError(MotodeskError):
    title = "Restauração"


@dataclass(frozen=True)
class Snapshot:
    """What a backup holds: rows per table, bytes of stored files, the audit trail's last entry."""

    revision: str | None
    counts: dict[str, int]
    blob_bytes: int
    audit_last: dict[str, Any] | None


@dataclass(frozen=True)
class Manifest:
    format: str
    format_version: int
    program_version: str
    kind: str  # sqlite / postgresql
    revision: str | None
    created_at: str  # ISO UTC
    created_by: str
    counts: dict[str, int]
    blob_bytes: int
    audit_last: dict[str, Any] | None
    server_version: str | None = None

    @property
    def snapshot(self) -> Snapshot:
        return Snapshot(self.revision, dict(self.counts), self.blob_bytes, self.audit_last)

    @property
    def created(self) -> datetime:
        return datetime.fromisoformat(self.created_at)


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int
    manifest: Manifest


@dataclass(frozen=True)
class RestoreResult:
    manifest: Manifest
    snapshot: Snapshot


@dataclass(frozen=True)
class BackupRecord:
    """The last backup, as remembered in the settings table (its history is in the audit trail)."""

    at: datetime
    by: str
    file: str
    size: int
    kind: str


# --- reading the state of a database ----------------------------------------------------------

def take_snapshot(conn: Connection) -> Snapshot:
    """Counts of every table, stored bytes and the last audit entry, on this connection's view."""
    names = sorted(n for n in inspect(conn).get_table_names() if n != "alembic_version")
    counts = {n: int(conn.execute(text(f'SELECT count(*) FROM "{n}"')).scalar_one()) for n in names}
    blob_bytes = 0
    if "blobs" in names:
        blob_bytes = int(conn.execute(text("SELECT coalesce(sum(length(data)), 0) FROM blobs")).scalar_one())
    audit_last = None
    if "audit_events" in names:
        t = AuditEvent.__table__
        row = conn.execute(
            select(t.c.id, t.c.at, t.c.user_login, t.c.table_name, t.c.row_key, t.c.action)
            .order_by(t.c.id.desc()).limit(1)
        ).first()
        if row is not None:
            audit_last = {"id": row.id, "at": row.at.isoformat() if row.at else None, "user": row.user_login,
                          "table": row.table_name, "key": row.row_key, "action": row.action}
    revision = None
    if inspect(conn).has_table("alembic_version"):
        revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return Snapshot(revision, counts, blob_bytes, audit_last)


def compare(expected: Snapshot, found: Snapshot) -> list[str]:
    """pt_BR differences between what a backup says and what a database holds (empty: identical)."""
    problems = []
    if expected.revision != found.revision:
        problems.append(f"revisão do esquema {found.revision} em vez de {expected.revision}")
    for table in sorted(set(expected.counts) | set(found.counts)):
        want, got = expected.counts.get(table), found.counts.get(table)
        if want != got:
            problems.append(f"tabela {table}: {got if got is not None else 'ausente'} linha(s) "
                            f"em vez de {want if want is not None else 'nenhuma'}")
    if expected.blob_bytes != found.blob_bytes:
        problems.append(f"arquivos e fotos: {found.blob_bytes} bytes em vez de {expected.blob_bytes}")
    if expected.audit_last != found.audit_last:
        problems.append(f"última entrada da trilha de auditoria: {found.audit_last} em vez de {expected.audit_last}")
    return problems


# --- PostgreSQL client programs -----------------------------------------------------------------

def _tool_version(path: str) -> int | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\(PostgreSQL\)\s+(\d+)", out) or re.search(r"(\d+)\.\d+", out)
    return int(match.group(1)) if match else None


def _tool_candidates(name: str) -> list[str]:
    exe = name + (".exe" if sys.platform == "win32" else "")
    found: list[str] = []
    if os.environ.get(PG_TOOLS_ENV):
        found.append(str(Path(os.environ[PG_TOOLS_ENV]) / exe))
    on_path = shutil.which(name)
    if on_path:
        found.append(on_path)
    patterns = [f"/usr/lib/postgresql/*/bin/{exe}", f"/usr/pgsql-*/bin/{exe}",
                f"/opt/homebrew/opt/postgresql@*/bin/{exe}", f"/Applications/Postgres.app/Contents/Versions/*/bin/{exe}"]
    for base in (os.environ.get("ProgramFiles"), os.environ.get("ProgramW6432"), r"C:\Program Files"):
        if base:
            patterns.append(str(Path(base) / "PostgreSQL" / "*" / "bin" / exe))
    for pattern in patterns:
        found.extend(sorted(glob(pattern)))
    unique: list[str] = []
    for path in found:
        if path not in unique and Path(path).is_file():
            unique.append(path)
    return unique


def find_pg_tool(name: str, server_major: int) -> str:
    """The newest `pg_dump`/`pg_restore` at least as new as the server, or a clear pt_BR refusal."""
    versions = [(v, p) for p in _tool_candidates(name) if (v := _tool_version(p)) is not None]
    usable = sorted((vp for vp in versions if vp[0] >= server_major), reverse=True)
    if usable:
        return usable[0][1]
    seen = ", ".join(f"{Path(p).name} {v} em {Path(p).parent}" for v, p in versions)
    raise BackupError(
        f"O programa {name} do PostgreSQL {server_major} (ou mais novo) não foi encontrado neste computador"
        + (f" (encontrado apenas: {seen})" if seen else "") + ". "
        "Instale as ferramentas de cliente do PostgreSQL — no Debian/Ubuntu: "
        f"'apt install postgresql-client-{server_major}'; no Windows: o instalador do PostgreSQL com a opção "
        f"'Command Line Tools' — ou indique a pasta dos programas na variável {PG_TOOLS_ENV}. "
        "Outra opção é fazer a cópia no próprio servidor."
    )


def _pg_env_and_dsn(db: Database) -> tuple[dict[str, str], str]:
    from psycopg.conninfo import make_conninfo

    url = db.url
    params: dict[str, Any] = {"dbname": url.database}
    if url.host:
        params["host"] = url.host
    if url.port:
        params["port"] = str(url.port)
    if url.username:
        params["user"] = url.username
    for key, value in url.query.items():
        params[key] = value if isinstance(value, str) else value[-1]
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)  # never on the command line, where others can read it
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    return env, make_conninfo("", **params)


def _run_pg_tool(args: list[str], env: dict[str, str], what: str) -> None:
    try:
        proc = subprocess.run(args, env=env, capture_output=True, text=True)
    except OSError as exc:
        raise BackupError(f"Não foi possível executar {Path(args[0]).name}: {exc}.") from exc
    if proc.returncode != 0:
        detail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])[:500]
        raise BackupError(f"{what} falhou ({Path(args[0]).name}, código {proc.returncode}): {detail}")


# --- backup --------------------------------------------------------------------------------------

def _who(ctx: AppContext) -> str:
    if ctx.user.id is not None:
        return ctx.user.login
    try:
        return f"{ctx.user.login} ({getpass.getuser()})"
    except Exception:  # noqa: BLE001 - no OS user name on some systems
        return ctx.user.login


@contextmanager
def _temp_dir(near: Path) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix=".motodesk-copia-", dir=near if near.is_dir() else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check_output_path(out: Path) -> Path:
    out = Path(out).expanduser()
    if out.is_dir():
        stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")
        out = out / f"motodesk-copia-{stamp}{SUFFIX}"
    if not out.parent.is_dir():
        raise InvalidInputError(f"A pasta de destino da cópia não existe: {out.parent}.")
    if out.exists():
        raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome (uma cópia nunca sobrescreve outra).")
    return out.resolve()


@requires(Role.ADMIN)
def create_backup(ctx: AppContext, out: Path | str, *, progress: Progress | None = None) -> BackupResult:
    """Write a backup of the whole database to `out` (a file name, or a folder for a dated name).

    Works while other workstations keep writing, and on a database of an older version (an
    administrator backs up before `motodesk db-upgrade`). The backup is remembered for the reminder.
    """
    report = progress or (lambda done, total: None)
    db = ctx.db
    out = _check_output_path(Path(out))
    db.check_connection()
    state = db.check_version()  # refuses a database newer than this program
    report(0, 4)
    try:
        return _write_backup(ctx, out, state, report)
    except OSError as exc:
        raise BackupError(f"Não foi possível gravar a cópia de segurança em {out.parent}: "
                          f"{exc.strerror or exc}.") from exc


def _write_backup(ctx: AppContext, out: Path, state: str, report: Progress) -> BackupResult:
    db = ctx.db
    with _temp_dir(out.parent) as work:
        if db.is_sqlite:
            member, snapshot, server = SQLITE_MEMBER, _backup_sqlite(db, work / SQLITE_MEMBER), None
        else:
            member = PG_MEMBER
            snapshot, server = _backup_postgresql(db, work / PG_MEMBER)
        report(2, 4)
        manifest = Manifest(
            format=FORMAT, format_version=FORMAT_VERSION, program_version=__version__,
            kind="sqlite" if db.is_sqlite else "postgresql", revision=snapshot.revision,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"), created_by=_who(ctx),
            counts=snapshot.counts, blob_bytes=snapshot.blob_bytes, audit_last=snapshot.audit_last,
            server_version=server,
        )
        partial = work / "copia.zip"
        compression = zipfile.ZIP_DEFLATED if member == SQLITE_MEMBER else zipfile.ZIP_STORED
        with zipfile.ZipFile(partial, "w", compression=compression, compresslevel=6, allowZip64=True) as zf:
            zf.writestr(MANIFEST, json.dumps(asdict(manifest), ensure_ascii=False, indent=2, sort_keys=True))
            zf.write(work / member, member)
        report(3, 4)
        if out.exists():
            raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome.")
        shutil.move(str(partial), out)
    result = BackupResult(out, out.stat().st_size, manifest)
    if state == "current":
        _remember(ctx, result)
    report(4, 4)
    log.info("backup written: %s (%d bytes)", out, result.size)
    return result


def _backup_sqlite(db: Database, target: Path) -> Snapshot:
    if db.sqlite_path is None:
        raise BackupError("Um banco de dados em memória não tem cópia de segurança.")
    try:
        db.backup_sqlite(target)  # SQLite's online backup API: a consistent copy while others write
    except sqlite3.Error as exc:
        raise BackupError(explain_error(exc, db.url)) from exc
    engine = create_engine(f"sqlite:///{target}")
    try:
        with engine.connect() as conn:
            return take_snapshot(conn)
    finally:
        engine.dispose()


def _backup_postgresql(db: Database, target: Path) -> tuple[Snapshot, str]:
    try:
        with db.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                server = str(conn.exec_driver_sql("SHOW server_version").scalar_one())
                major = int(conn.exec_driver_sql("SHOW server_version_num").scalar_one()) // 10000
                pg_dump = find_pg_tool("pg_dump", major)
                snapshot_id = conn.exec_driver_sql("SELECT pg_export_snapshot()").scalar_one()
                snapshot = take_snapshot(conn)
                env, dsn = _pg_env_and_dsn(db)
                # pg_dump reads exactly what this transaction sees, while it stays open.
                _run_pg_tool([pg_dump, "--format=custom", f"--snapshot={snapshot_id}", f"--file={target}",
                              f"--dbname={dsn}"], env, "A cópia do PostgreSQL (pg_dump)")
    except DBAPIError as exc:
        raise BackupError(explain_error(exc, db.url)) from exc
    return snapshot, server


# --- reading a backup ----------------------------------------------------------------------------

def read_manifest(archive: Path | str) -> Manifest:
    archive = Path(archive)
    if not archive.is_file():
        raise InvalidInputError(f"Arquivo de cópia de segurança não encontrado: {archive}.")
    try:
        with zipfile.ZipFile(archive) as zf:
            raw = json.loads(zf.read(MANIFEST).decode("utf-8"))
            names = set(zf.namelist())
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise RestoreError(f"{archive.name} não é uma cópia de segurança do MotoDesk (arquivo danificado ou de outro "
                           "programa).") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RestoreError(f"{archive.name} não é uma cópia de segurança do MotoDesk.")
    if int(raw.get("format_version", 0)) > FORMAT_VERSION:
        raise RestoreError(f"{archive.name} foi feita por uma versão mais nova do MotoDesk "
                           f"({raw.get('program_version')}): restaure-a com essa versão ou mais nova.")
    try:
        manifest = Manifest(**{k: raw[k] for k in Manifest.__dataclass_fields__ if k in raw})
    except TypeError:
        raise RestoreError(f"O manifesto de {archive.name} está incompleto.") from None
    member = SQLITE_MEMBER if manifest.kind == "sqlite" else PG_MEMBER
    if member not in names:
        raise RestoreError(f"{archive.name} está incompleta: falta {member}.")
    return manifest


# --- restore -------------------------------------------------------------------------------------

def restore_backup(archive: Path | str, db: Database, *, progress: Progress | None = None) -> RestoreResult:
    """Restore `archive` into the EMPTY database `db`, then verify it against the manifest."""
    report = progress or (lambda done, total: None)
    archive = Path(archive)
    manifest = read_manifest(archive)
    report(0, 3)
    target_kind = "sqlite" if db.is_sqlite else "postgresql"
    if manifest.kind == "postgresql" and target_kind == "sqlite":
        raise RestoreError(
            "Uma cópia de um servidor PostgreSQL só pode ser restaurada em outro banco PostgreSQL "
            "(restaure-a em um banco vazio do servidor)."
        )
    db.check_connection()
    if not db.is_empty():
        tables = inspect(db.engine).get_table_names()
        raise RestoreError(
            f"O banco de dados de destino não está vazio ({len(tables)} tabela(s)): a restauração só é feita "
            "em um banco vazio, para nunca misturar nem sobrescrever dados. Indique um arquivo novo (SQLite) "
            "ou um banco recém-criado no servidor (PostgreSQL: createdb)."
        )
    if manifest.revision is not None and manifest.revision not in shipped_revisions():
        raise RestoreError(
            f"A cópia é de uma versão mais nova do MotoDesk ({manifest.program_version}, revisão "
            f"{manifest.revision}): instale essa versão ou uma mais nova para restaurá-la."
        )
    with _temp_dir(Path(tempfile.gettempdir())) as work, zipfile.ZipFile(archive) as zf:
        if manifest.kind == "sqlite":
            source = Path(zf.extract(SQLITE_MEMBER, work))
            report(1, 3)
            if target_kind == "sqlite":
                _restore_sqlite(source, db)
            else:
                _copy_tables(source, db, manifest.revision)
        else:
            source = Path(zf.extract(PG_MEMBER, work))
            report(1, 3)
            _restore_postgresql(source, db)
    report(2, 3)
    with db.engine.connect() as conn:
        found = take_snapshot(conn)
    expected = manifest.snapshot
    if manifest.kind != target_kind:
        # SQLite-only tables (the full-text search index of people) do not exist on PostgreSQL,
        # whose migrations build their own index at the same revision.
        expected = Snapshot(expected.revision, {t: n for t, n in expected.counts.items() if t in found.counts},
                            expected.blob_bytes, expected.audit_last)
    problems = compare(expected, found)
    if problems:
        raise RestoreError(
            "A restauração não confere com a cópia de segurança; não use este banco e restaure de novo em um banco "
            "vazio. Diferenças: " + "; ".join(problems[:8]) + "."
        )
    report(3, 3)
    return RestoreResult(manifest, found)


def _restore_sqlite(source: Path, db: Database) -> None:
    target = db.sqlite_path
    if target is None:
        raise RestoreError("Não é possível restaurar em um banco de dados em memória.")
    db.dispose()
    src = sqlite3.connect(source)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise RestoreError(explain_error(exc, db.url)) from exc
    finally:
        src.close()


def _restore_postgresql(source: Path, db: Database) -> None:
    with db.engine.connect() as conn:
        major = int(conn.exec_driver_sql("SHOW server_version_num").scalar_one()) // 10000
    pg_restore = find_pg_tool("pg_restore", major)
    env, dsn = _pg_env_and_dsn(db)
    db.dispose()
    # One transaction: on any error nothing is left behind and the database stays empty.
    _run_pg_tool([pg_restore, "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
                  f"--dbname={dsn}", str(source)], env, "A restauração do PostgreSQL (pg_restore)")


def _copy_tables(source: Path, db: Database, revision: str | None) -> None:
    """A SQLite backup into an empty PostgreSQL database: same schema revision, then the rows."""
    db.upgrade(revision or "head")
    src_engine = create_engine(f"sqlite:///{source}")
    try:
        src_meta, dst_meta = MetaData(), MetaData()
        src_meta.reflect(src_engine)
        dst_meta.reflect(db.engine)
        with src_engine.connect() as src, db.engine.begin() as dst:
            without_triggers(dst)  # the rows bring their own audit trail, already chained
            for table in dst_meta.sorted_tables:
                if table.name == "alembic_version" or table.name not in src_meta.tables:
                    continue
                source_table = src_meta.tables[table.name]
                columns = [c.name for c in table.columns if c.name in source_table.c]
                pk = list(source_table.primary_key.columns)
                query = select(*(source_table.c[c] for c in columns)).order_by(*pk)
                batch: list[dict[str, Any]] = []
                for row in src.execution_options(yield_per=2000).execute(query).mappings():
                    batch.append(dict(row))
                    if len(batch) >= 2000:
                        dst.execute(table.insert(), batch)
                        batch.clear()
                if batch:
                    dst.execute(table.insert(), batch)
            for table in dst_meta.sorted_tables:
                for column in table.primary_key.columns:
                    seq = dst.execute(text("SELECT pg_get_serial_sequence(:t, :c)"),
                                      {"t": table.name, "c": column.name}).scalar()
                    if seq:
                        dst.execute(text(f'SELECT setval(:s, coalesce((SELECT max("{column.name}") FROM '
                                         f'"{table.name}"), 0) + 1, false)'), {"s": seq})
    except DBAPIError as exc:
        raise RestoreError("A cópia das tabelas para o PostgreSQL falhou: " + explain_error(exc, db.url)) from exc
    finally:
        src_engine.dispose()


# --- the reminder --------------------------------------------------------------------------------

def _remember(ctx: AppContext, result: BackupResult) -> None:
    record = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "by": result.manifest.created_by,
              "file": str(result.path), "size": result.size, "kind": result.manifest.kind}
    try:
        with ctx.write() as s:
            row = s.get(Setting, SETTING_LAST)
            value = json.dumps(record, ensure_ascii=False)
            if row is None:
                s.add(Setting(key=SETTING_LAST, value=value))
            else:
                row.value = value
    except (MotodeskError, DatabaseError) as exc:  # the copy exists; only the reminder misses it
        log.warning("backup written but not recorded: %s", exc)


def last_backup(ctx: AppContext) -> BackupRecord | None:
    with ctx.read() as s:
        row = s.get(Setting, SETTING_LAST)
        raw = row.value if row is not None else None
    if not raw:
        return None
    try:
        data = json.loads(raw)
        return BackupRecord(at=datetime.fromisoformat(data["at"]), by=str(data.get("by", "")),
                            file=str(data.get("file", "")), size=int(data.get("size", 0)),
                            kind=str(data.get("kind", "")))
    except (ValueError, KeyError, TypeError):
        return None


def reminder_days(ctx: AppContext) -> int:
    """Days after which the administrator is reminded to back up (0: never remind)."""
    with ctx.read() as s:
        row = s.get(Setting, SETTING_REMINDER_DAYS)
        raw = row.value if row is not None else None
    try:
        return max(0, int(json.loads(raw))) if raw else DEFAULT_REMINDER_DAYS
    except (ValueError, TypeError):
        return DEFAULT_REMINDER_DAYS


@requires(Role.ADMIN)
def set_reminder_days(ctx: AppContext, days: int) -> None:
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= 365:
        raise InvalidInputError("O lembrete de cópia de segurança deve ser de 0 (nunca) a 365 dias.",
                                {"days": "Valor inválido."})
    with ctx.write() as s:
        row = s.get(Setting, SETTING_REMINDER_DAYS)
        if row is None:
            s.add(Setting(key=SETTING_REMINDER_DAYS, value=str(days)))
        else:
            row.value = str(days)


def backup_reminder(ctx: AppContext, now: datetime | None = None) -> str | None:
    """The pt_BR reminder for an administrator when the last backup is too old, else None."""
    if ctx.user.role is not Role.ADMIN:
        return None
    days = reminder_days(ctx)
    if days == 0:
        return None
    now = now or datetime.now(UTC)
    last = last_backup(ctx)
    if last is None:
        return ("Nenhuma cópia de segurança deste banco de dados foi registrada. "
                "Faça uma pelo menu Arquivo › Cópia de segurança…")
    age = (now - last.at).days
    if age < days:
        return None
    from babel.dates import format_date

    when = format_date(last.at.date(), "dd/MM/yyyy", locale="pt_BR")
    return (f"A última cópia de segurança é de {when} (há {age} dias; o lembrete é a cada {days}). "
            "Faça uma nova pelo menu Arquivo › Cópia de segurança…")


def blob_totals(ctx: AppContext) -> tuple[int, int]:
    """(count, bytes) of the stored attachments and photos, for the backup dialog."""
    from motodesk.models import Blob

    with ctx.read() as s:
        count, size = s.execute(select(func.count(Blob.sha256), func.coalesce(func.sum(Blob.size), 0))).one()
    return int(count), int(size)
