"""Backups of the whole database (attachments and photos included: they are rows of `blobs`).

One file format for both databases: a zip ("motodesk-backup", format 2) holding

- `manifest.json`: program version, schema revision, kind, row counts, bytes of stored files, the
  audit trail's last entry, the SHA-256 of every other member and a content hash of every table;
- `manifest.sig`: an Ed25519 signature of `manifest.json` by this installation's backup key
  (`motodesk.services.backup_keys`: kept beside the app's data, never inside a backup);
- `schema.json`: the source's schema as its catalogs describe it (`backup_schema`);
- the data: for SQLite a copy made with the online backup API (`database.sqlite3`); for
  PostgreSQL one `tables/<name>.jsonl` per table, rows in a data format of our own (one JSON array
  per row, in the column order of the member's first line). No SQL, no DDL, no dump archive.

Content hash of a table ("motodesk-rows-1"): every row becomes one canonical JSON line (columns in
name order; bytes, dates, times and decimals tagged, see `encode_value`), each line is hashed with
SHA-256, and the table's hash is SHA-256 of the column names and the sorted row digests. It is the
same on SQLite and PostgreSQL for the same data, so it is computed from the live database when
backing up, from the file when it is read back, and from the restored database after a restore.

Backing up checks the source first (SQLite: `PRAGMA integrity_check` and `foreign_key_check` on
the source and on the copy; PostgreSQL: every foreign key has its row, every row is read) and
then reads the written zip back (every member's SHA-256, every table re-read from the file and
hashed) before moving it into place, mode 0600.

A restore goes only into an EMPTY database. It refuses a file whose signature, member hashes,
schema or table hashes do not match. It never runs anything taken from the file: the target's
schema is built by MotoDesk's own migrations and must be identical to the backup's; a SQLite file
is copied only when its schema is exactly what the migrations build; PostgreSQL receives the rows
with COPY … FROM STDIN into the tables its catalog has, under names from that catalog, with the
target's user triggers disabled for the load (`ALTER TABLE … DISABLE TRIGGER USER`, the owner's
right: no superuser needed) and enabled again in the same transaction, so audit rows are loaded
verbatim and no trigger writes new ones for restored data.
"""

from __future__ import annotations

import base64
import errno
import getpass
import hashlib
import io
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Column, Connection, MetaData, Table, create_engine, func, inspect, select, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from motodesk import __version__
from motodesk.models import AuditEvent, Base, Setting
from motodesk.models.db import Database, DatabaseError, explain_error, loggable, shipped_revisions
from motodesk.rules.common import Role
from motodesk.services import backup_keys
from motodesk.services.backup_schema import (
    SchemaDescription,
    describe_schema,
    differences,
    postgresql_reference,
    sqlite_reference,
)
from motodesk.services.clock import local_now
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger(__name__)

FORMAT = "motodesk-backup"
FORMAT_VERSION = 2
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
SCHEMA_MEMBER = "schema.json"
SQLITE_MEMBER = "database.sqlite3"
TABLES_PREFIX = "tables/"
TABLE_SUFFIX = ".jsonl"
HASH_METHOD = "motodesk-rows-1"
SUFFIX = ".zip"
PRIVATE_MODE = 0o600
#: The revision is in the manifest (migrations stamp it); role_password_marks (PostgreSQL, 0019) is the
#: server's state of its roles' passwords, which a backup does not carry either.
SKIPPED_TABLES = frozenset({"alembic_version", "role_password_marks"})
#: SQLite full-text index of names (revision 0012) and its shadow tables: derived from `people`, rebuilt there.
SKIPPED_PREFIXES = ("people_fts",)

#: Caps for the members read into memory before the signature is checked (a zip bomb is refused).
MANIFEST_LIMIT = 4 << 20
SIGNATURE_LIMIT = 64 << 10
#: What an interrupted restore can leave: its extraction folder (in the temporary folder) and its
#: SQLite file beside the target, both named with the restoring process's id.
RESTORE_DIR_PREFIX = ".motodesk-restauracao-"
RESTORE_FILE_TAG = ".restauracao-"

SETTING_LAST = "backup_last"
SETTING_REMINDER_DAYS = "backup_reminder_days"
DEFAULT_REMINDER_DAYS = 7

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
    hash_method: str = HASH_METHOD
    members: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {sha256, size}
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {rows, sha256}

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
    key_id: str = ""


@dataclass(frozen=True)
class RestoreResult:
    manifest: Manifest
    snapshot: Snapshot
    key_id: str = ""
    #: pt_BR notes: what an interrupted restore had left and this one removed
    cleaned: tuple[str, ...] = ()


@dataclass(frozen=True)
class BackupRecord:
    """The last backup, as remembered in the settings table (its history is in the audit trail)."""

    at: datetime
    by: str
    file: str
    size: int
    kind: str


# --- reading the state of a database ----------------------------------------------------------

def _data_tables(conn: Connection) -> list[str]:
    return sorted(n for n in inspect(conn).get_table_names()
                  if n not in SKIPPED_TABLES and not n.startswith(SKIPPED_PREFIXES))


def take_snapshot(conn: Connection) -> Snapshot:
    """Counts of every table, stored bytes and the last audit entry, on this connection's view."""
    names = _data_tables(conn)
    q = conn.dialect.identifier_preparer.quote
    counts = {n: int(conn.execute(text(f"SELECT count(*) FROM {q(n)}")).scalar_one()) for n in names}
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


# --- the canonical row format and the content hash of a table --------------------------------

def _decimal_text(value: Decimal) -> str:
    text_ = format(value.normalize(), "f")
    return "0" if text_ in ("-0", "0") else text_


def encode_value(value: Any) -> Any:
    """A value as JSON, the same on both databases: plain for null, booleans, integers and text;
    a [tag, text] pair otherwise (b bytes in base64, t datetime, d date, h time, n decimal,
    f float, j a JSON document, u uuid)."""
    if isinstance(value, Enum):
        value = value.value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        return ["f", repr(value)]
    if isinstance(value, Decimal):
        return ["n", _decimal_text(value)]
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return ["t", value.isoformat()]
    if isinstance(value, date):
        return ["d", value.isoformat()]
    if isinstance(value, time):
        return ["h", value.isoformat()]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ["b", base64.b64encode(bytes(value)).decode("ascii")]
    if isinstance(value, (dict, list)):
        return ["j", value]
    if isinstance(value, uuid.UUID):
        return ["u", str(value)]
    raise BackupError(f"Valor de um tipo que a cópia de segurança não conhece: {type(value).__name__}.")


_DECODERS: dict[str, Callable[[Any], Any]] = {
    "b": lambda v: base64.b64decode(v, validate=True), "t": datetime.fromisoformat, "d": date.fromisoformat,
    "h": time.fromisoformat, "n": Decimal, "f": float, "j": lambda v: v, "u": uuid.UUID,
}


def decode_value(encoded: Any) -> Any:
    if encoded is None or isinstance(encoded, (bool, int, str)):
        return encoded
    if isinstance(encoded, list) and len(encoded) == 2 and encoded[0] in _DECODERS:
        return _DECODERS[encoded[0]](encoded[1])
    raise ValueError(f"valor desconhecido: {str(encoded)[:40]}")


def canonical_line(values: Iterable[Any]) -> bytes:
    """One row as the canonical JSON line (encoded values, nested keys sorted), newline included."""
    return (json.dumps(list(values), ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n").encode()


class TableHash:
    """The content hash of one table, fed row by row in any order."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = columns
        self.digests: list[bytes] = []

    def add(self, line: bytes) -> None:
        self.digests.append(hashlib.sha256(line).digest())

    @property
    def rows(self) -> int:
        return len(self.digests)

    def hexdigest(self) -> str:
        h = hashlib.sha256(canonical_line(self.columns))
        for digest in sorted(self.digests):
            h.update(digest)
        return h.hexdigest()


def _light_table(conn: Connection, name: str) -> tuple[Table, list[str], list[str]]:
    """The table as this database's catalog has it: columns with their reflected types, in name order."""
    insp = inspect(conn)
    columns = insp.get_columns(name)
    table = Table(name, MetaData(), *(Column(c["name"], c["type"]) for c in columns))
    names = sorted(c["name"] for c in columns)
    pk = list(insp.get_pk_constraint(name).get("constrained_columns") or [])
    return table, names, pk


def _rows(conn: Connection, name: str) -> tuple[list[str], Iterator[list[Any]]]:
    """Column names (sorted) and the rows of a table as Python values, in primary-key order."""
    table, names, pk = _light_table(conn, name)
    query = select(*(table.c[c] for c in names)).order_by(*(table.c[c] for c in (pk or names[:1])))
    result = conn.execution_options(yield_per=1000, stream_results=True).execute(query)

    def rows() -> Iterator[list[Any]]:
        try:
            for row in result:
                yield list(row)
        finally:  # a reader that stops early (a full disk) still closes PostgreSQL's server cursor
            result.close()

    return names, rows()


def table_hash(conn: Connection, name: str) -> TableHash:
    names, rows = _rows(conn, name)
    digest = TableHash(names)
    for row in rows:
        digest.add(canonical_line(encode_value(v) for v in row))
    return digest


def content_hashes(conn: Connection) -> dict[str, dict[str, Any]]:
    """table -> {rows, sha256} for every table of this database (alembic_version aside)."""
    found = {}
    for name in _data_tables(conn):
        digest = table_hash(conn, name)
        found[name] = {"rows": digest.rows, "sha256": digest.hexdigest()}
    return found


def _hash_problems(expected: dict[str, dict[str, Any]], found: dict[str, dict[str, Any]]) -> list[str]:
    problems = []
    for name in sorted(set(expected) | set(found)):
        if name not in found:
            problems.append(f"tabela {name}: ausente")
        elif name not in expected:
            problems.append(f"tabela {name}: não consta da cópia")
        elif expected[name].get("sha256") != found[name].get("sha256"):
            problems.append(f"tabela {name}: conteúdo diferente (SHA-256)")
    return problems


# --- files, disks and zips ---------------------------------------------------------------------

def _disk_message(exc: OSError, where: Path | str) -> str:
    """pt_BR for an error writing into the folder `where`, naming it (and its disk)."""
    code = exc.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return f"O disco de {where} está cheio (sem espaço livre ou cota esgotada)"
    if code == errno.EFBIG:
        return f"O arquivo ficou maior do que o permitido no disco de {where} (limite de tamanho de arquivo)"
    if code in (errno.EACCES, errno.EPERM):
        return f"Sem permissão para gravar em {where}"
    if code == errno.EROFS:
        return f"O disco de {where} é somente leitura"
    return f"Não foi possível gravar em {where} ({exc.strerror or exc})"


def _sqlite_full(exc: BaseException) -> bool:
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc).lower()


def _create_private(path: Path) -> IO[bytes]:
    """A new file readable and writable by its owner only, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), PRIVATE_MODE)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, PRIVATE_MODE)
    return os.fdopen(fd, "w+b")


def _place(partial: Path, out: Path) -> None:
    """Move the finished file into place, never over an existing file, mode 0600."""
    try:
        os.link(partial, out)  # fails if `out` exists: no overwrite even in a race
        partial.unlink()
    except FileExistsError:
        raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome.") from None
    except OSError:  # a file system without hard links
        if out.exists():
            raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome.") from None
        shutil.move(str(partial), out)
    os.chmod(out, PRIVATE_MODE)


def _member_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=local_now().timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | PRIVATE_MODE) << 16  # unzip gives the owner alone the member
    return info


class _HashingWriter:
    """Counts and hashes what goes into a zip member."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target, self.sha, self.size = target, hashlib.sha256(), 0

    def write(self, data: bytes) -> None:
        self.target.write(data)
        self.sha.update(data)
        self.size += len(data)

    def summary(self) -> dict[str, Any]:
        return {"sha256": self.sha.hexdigest(), "size": self.size}


ZIP_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, zipfile.LargeZipFile, NotImplementedError)


def _damaged(archive: Path, member: str | None = None) -> RestoreError:
    where = f"o conteúdo de {member} está corrompido" if member else "o arquivo zip está incompleto ou corrompido"
    return RestoreError(f"A cópia de segurança {archive} está danificada: {where} (arquivo truncado ou com CRC "
                        "errado). Use outra cópia.")


# --- backup --------------------------------------------------------------------------------------

def _who(ctx: AppContext) -> str:
    if ctx.user.id is not None:
        return ctx.user.login
    try:
        return f"{ctx.user.login} ({getpass.getuser()})"
    except Exception:  # noqa: BLE001 - no OS user name on some systems
        return ctx.user.login


@contextmanager
def _temp_dir(near: Path, prefix: str = ".motodesk-copia-") -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=near if near.is_dir() else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check_output_path(out: Path) -> Path:
    out = Path(out).expanduser()
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:  # bytes that are no UTF-8 (a name from another system): cannot be shown nor recorded
        shown = str(out).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise InvalidInputError(f"O nome do arquivo da cópia tem caracteres inválidos (bytes que não são UTF-8): "
                                f"{shown}. Escolha um nome só com letras, números, espaços, pontos e hífens.") from None
    if out.is_dir():
        stamp = local_now().strftime("%Y-%m-%d-%H%M%S")
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
    if state == "current":  # the copy then carries the trail's signed head (services.audit)
        from motodesk.services.audit import checkpoint_quietly
        checkpoint_quietly(ctx, "backup")
    report(0, 4)
    reference = _reference_schema(db)
    try:
        return _write_backup(ctx, out, state, report, reference)
    except OSError as exc:
        raise BackupError(_disk_message(exc, out.parent) + ": a cópia de segurança não foi gravada.") from exc


def _reference_schema(db: Database) -> SchemaDescription:
    """What the shipped migrations build at the database's revision: a backup of a database whose
    schema differs would be refused by every restore, so it is refused here, before any file."""
    revision = db.current_revision()
    if revision is None or revision not in shipped_revisions():
        raise BackupError(
            "O banco de dados não tem a revisão do esquema (a tabela alembic_version está vazia ou faltando): "
            "ele foi alterado fora do MotoDesk e uma cópia dele não poderia ser restaurada. Nenhuma cópia foi "
            "gravada: restaure a última cópia boa ou corrija o banco antes de fazer uma nova.")
    if db.is_sqlite:
        return sqlite_reference(revision)
    try:
        return postgresql_reference(db, revision)
    except DBAPIError as exc:
        raise BackupError("Não foi possível construir o esquema de referência para conferir o banco (um esquema "
                          "temporário, desfeito em seguida; o usuário do banco precisa poder criar esquemas nele): "
                          + explain_error(exc, db.url) + " Nenhuma cópia foi gravada.") from exc


def _schema_damage(where: str, reference: SchemaDescription, found: SchemaDescription) -> None:
    problems = differences(reference, found)
    if problems:
        raise BackupError(
            f"O esquema {where} difere do que as migrações do MotoDesk constroem, e uma cópia dele não poderia ser "
            "restaurada: " + "; ".join(problems[:8]) + (f"; e mais {len(problems) - 8}" if len(problems) > 8 else "")
            + ". Nenhuma cópia foi gravada: restaure a última cópia boa (ou recrie o que falta) antes de fazer uma "
            "nova.")


def _write_backup(ctx: AppContext, out: Path, state: str, report: Progress,
                  reference: SchemaDescription) -> BackupResult:
    db = ctx.db
    with _temp_dir(out.parent) as work:
        partial = work / "copia.zip"
        with _create_private(partial) as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED,
                                                              compresslevel=6, allowZip64=True) as zf:
            if db.is_sqlite:
                snapshot, server, schema, tables, members = _backup_sqlite(db, work, zf, out.parent, reference)
            else:
                snapshot, server, schema, tables, members = _backup_postgresql(db, zf, reference)
            report(2, 4)
            schema_bytes = json.dumps(schema, ensure_ascii=False, indent=1, sort_keys=True).encode()
            zf.writestr(_member_info(SCHEMA_MEMBER), schema_bytes)
            members[SCHEMA_MEMBER] = {"sha256": hashlib.sha256(schema_bytes).hexdigest(), "size": len(schema_bytes)}
            manifest = Manifest(
                format=FORMAT, format_version=FORMAT_VERSION, program_version=__version__,
                kind="sqlite" if db.is_sqlite else "postgresql", revision=snapshot.revision,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"), created_by=_who(ctx),
                counts=snapshot.counts, blob_bytes=snapshot.blob_bytes, audit_last=snapshot.audit_last,
                server_version=server, members=members, tables=tables,
            )
            manifest_bytes = _manifest_bytes(manifest)
            signer, signature = backup_keys.sign(manifest_bytes)
            zf.writestr(_member_info(MANIFEST), manifest_bytes)
            zf.writestr(_member_info(SIGNATURE), json.dumps(
                {"algorithm": "Ed25519", "key": signer, "signature": signature}, indent=1).encode())
        report(3, 4)
        _read_back(partial, out, manifest)
        _place(partial, out)
    result = BackupResult(out, out.stat().st_size, manifest, signer)
    if state == "current":
        _remember(ctx, result)
    report(4, 4)
    log.info("backup written: %s (%d bytes, key %s)", out, result.size, signer)
    return result


def _manifest_bytes(manifest: Manifest) -> bytes:
    return json.dumps(asdict(manifest), ensure_ascii=False, indent=2, sort_keys=True).encode()


def _sqlite_health(path: Path, what: str) -> None:
    """SQLite's own checks of a file: `PRAGMA integrity_check` and `PRAGMA foreign_key_check`."""
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"{what} não pôde ser aberto para conferência: {explain_error(exc)}") from exc
    try:
        problems = [str(r[0]) for r in con.execute("PRAGMA integrity_check(10)")]
        orphans = con.execute("PRAGMA foreign_key_check").fetchmany(10)
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{what} está danificado ({exc}). Nenhuma cópia foi gravada: recupere o banco "
                          "(ou restaure a última cópia boa) antes de fazer uma nova.") from exc
    finally:
        con.close()
    if problems != ["ok"]:
        raise BackupError(f"{what} está danificado (PRAGMA integrity_check: {'; '.join(problems[:5])}). Nenhuma "
                          "cópia foi gravada: recupere o banco (ou restaure a última cópia boa) antes de fazer uma "
                          "nova.")
    if orphans:
        listed = "; ".join(f"{t} linha {rowid} aponta para {parent} inexistente" for t, rowid, parent, _ in orphans[:5])
        raise BackupError(f"{what} tem referências quebradas (PRAGMA foreign_key_check: {listed}). Nenhuma cópia "
                          "foi gravada: corrija o banco antes de fazer uma nova.")


def _backup_sqlite(db: Database, work: Path, zf: zipfile.ZipFile, folder: Path, reference: SchemaDescription
                   ) -> tuple[Snapshot, None, SchemaDescription, dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    source = db.sqlite_path
    if source is None:
        raise BackupError("Um banco de dados em memória não tem cópia de segurança.")
    _sqlite_health(source, f"O banco de dados {source}")
    target = work / SQLITE_MEMBER
    try:
        db.backup_sqlite(target)  # SQLite's online backup API: a consistent copy while others write
    except sqlite3.Error as exc:
        if _sqlite_full(exc):
            raise BackupError(f"O disco de {folder} está cheio: a cópia de segurança não foi gravada.") from exc
        if "disk i/o error" in str(exc).lower():
            raise BackupError(f"O disco de {folder} recusou a gravação (disco cheio, arquivo maior do que o permitido "
                              "ou falha do disco): a cópia de segurança não foi gravada.") from exc
        raise BackupError(explain_error(exc, db.url)) from exc
    _sqlite_health(target, f"A cópia do banco de dados {source}")
    engine = create_engine(f"sqlite:///{target}")
    try:
        with engine.connect() as conn:
            schema = describe_schema(conn)
            _schema_damage(f"do banco de dados {source}", reference, schema)
            try:
                snapshot, tables = take_snapshot(conn), content_hashes(conn)
            except DBAPIError as exc:
                raise BackupError(_unreadable(exc, source, db)) from exc
    finally:
        engine.dispose()
    with target.open("rb") as src, zf.open(_member_info(SQLITE_MEMBER), "w", force_zip64=True) as dst:
        writer = _HashingWriter(dst)  # type: ignore[arg-type]
        shutil.copyfileobj(src, writer, 1 << 20)  # type: ignore[misc]
    return snapshot, None, schema, tables, {SQLITE_MEMBER: writer.summary()}


def _unreadable(exc: DBAPIError, source: Path, db: Database) -> str:
    detail = str(exc.orig)
    if "decode" in detail.lower() and "utf-8" in detail.lower():
        column = detail.split("column '", 1)[1].split("'", 1)[0] if "column '" in detail else "?"
        log.warning("backup: text that is no UTF-8 in %s: %s", loggable(str(source)), loggable(detail))
        return (f"O banco de dados {source} tem um texto gravado com bytes que não são UTF-8 válido (coluna "
                f"{column}), escrito por outro programa: uma cópia dele não poderia ser conferida. Nenhuma cópia foi "
                "gravada: corrija esse texto (ou restaure a última cópia boa) antes de fazer uma nova.")
    return explain_error(exc, db.url) + " Nenhuma cópia foi gravada."


def _foreign_key_orphans(conn: Connection) -> list[str]:
    """PostgreSQL: foreign keys whose referenced row is missing (possible after triggers were disabled)."""
    q = conn.dialect.identifier_preparer.quote
    constraints = conn.exec_driver_sql(
        "SELECT con.conname, c.relname, array_agg(ca.attname ORDER BY k.i), p.relname, "
        "array_agg(pa.attname ORDER BY k.i) "
        "FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_class p ON p.oid = con.confrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(child, parent, i) "
        "JOIN pg_attribute ca ON ca.attrelid = c.oid AND ca.attnum = k.child "
        "JOIN pg_attribute pa ON pa.attrelid = p.oid AND pa.attnum = k.parent "
        "WHERE con.contype = 'f' AND n.nspname = current_schema() "
        "GROUP BY con.conname, c.relname, p.relname ORDER BY c.relname, con.conname"
    ).all()
    broken = []
    for name, child, child_cols, parent, parent_cols in constraints:
        present = " AND ".join(f"c.{q(col)} IS NOT NULL" for col in child_cols)
        match = " AND ".join(f"p.{q(pc)} = c.{q(cc)}" for cc, pc in zip(child_cols, parent_cols, strict=True))
        orphan = conn.exec_driver_sql(
            f"SELECT 1 FROM {q(child)} c WHERE {present} AND NOT EXISTS "
            f"(SELECT 1 FROM {q(parent)} p WHERE {match}) LIMIT 1"
        ).first()
        if orphan is not None:
            broken.append(f"{child} → {parent} ({name})")
    return broken


def _backup_postgresql(db: Database, zf: zipfile.ZipFile, reference: SchemaDescription
                       ) -> tuple[Snapshot, str, SchemaDescription, dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    members: dict[str, dict[str, Any]] = {}
    tables: dict[str, dict[str, Any]] = {}
    try:
        with db.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():  # one snapshot: every table, the counts and the schema at the same moment
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                server = str(conn.exec_driver_sql("SHOW server_version").scalar_one())
                schema = describe_schema(conn)
                _schema_damage(f"do banco de dados {db.url.database} no servidor", reference, schema)
                snapshot = take_snapshot(conn)
                broken = _foreign_key_orphans(conn)
                if broken:
                    raise BackupError("O banco de dados do servidor tem referências quebradas (" + "; ".join(broken[:5])
                                      + "). Nenhuma cópia foi gravada: corrija o banco antes de fazer uma nova.")
                for name in _data_tables(conn):
                    member = f"{TABLES_PREFIX}{name}{TABLE_SUFFIX}"
                    columns, rows = _rows(conn, name)
                    digest = TableHash(columns)
                    with zf.open(_member_info(member), "w", force_zip64=True) as dst:
                        writer = _HashingWriter(dst)  # type: ignore[arg-type]
                        writer.write(canonical_line([{"table": name, "columns": columns}]))
                        for row in rows:
                            encoded = [encode_value(v) for v in row]
                            digest.add(canonical_line(encoded))  # the hash of what the database holds
                            writer.write(_file_line(encoded))  # what the file holds, read back below
                    members[member] = writer.summary()
                    tables[name] = {"rows": digest.rows, "sha256": digest.hexdigest()}
    except DBAPIError as exc:
        raise BackupError(explain_error(exc, db.url)) from exc
    return snapshot, server, schema, tables, members


def _file_line(encoded: list[Any]) -> bytes:
    """A row as written into a table member (the canonical line; a seam for the read-back's tests)."""
    return canonical_line(encoded)


def _read_back(partial: Path, out: Path, manifest: Manifest) -> None:
    """Read the written zip back as a restore would: every member's SHA-256, every table's content."""
    try:
        with zipfile.ZipFile(partial) as zf:
            for name, expected in manifest.members.items():
                with zf.open(name) as member:
                    if name.startswith(TABLES_PREFIX):
                        table = name[len(TABLES_PREFIX):-len(TABLE_SUFFIX)]
                        found, summary = _hash_member(member)  # type: ignore[arg-type]
                        want = manifest.tables[table]
                        if found.hexdigest() != want["sha256"] or found.rows != want["rows"]:
                            raise BackupError(
                                f"A cópia gravada em {out.parent} não confere com o banco de dados: a tabela {table} "
                                "lida de volta do arquivo difere do que o banco contém. A cópia foi descartada.")
                    else:
                        writer = _HashingWriter(io.BytesIO())
                        for chunk in iter(lambda m=member: m.read(1 << 20), b""):  # type: ignore[misc]
                            writer.sha.update(chunk)
                            writer.size += len(chunk)
                        summary = writer.summary()
                if summary != expected:
                    raise BackupError(f"A cópia gravada em {out.parent} não confere ao ser lida de volta ({name}): "
                                      "o disco pode estar com defeito. A cópia foi descartada.")
    except (*ZIP_DAMAGE, ValueError, KeyError) as exc:
        raise BackupError(f"A cópia gravada em {out.parent} não pôde ser lida de volta ({exc}): o disco pode estar "
                          "com defeito. A cópia foi descartada.") from exc


def _hash_member(lines: IO[bytes]) -> tuple[TableHash, dict[str, Any]]:
    """Re-read a table member: the header, then every row decoded and encoded again, hashed."""
    whole = _HashingWriter(io.BytesIO())
    header = lines.readline()
    whole.sha.update(header)
    whole.size += len(header)
    columns = json.loads(header)[0]["columns"]
    digest = TableHash(list(columns))
    for line in lines:
        whole.sha.update(line)
        whole.size += len(line)
        values = [decode_value(v) for v in json.loads(line)]
        if len(values) != len(columns):
            raise ValueError("linha com número errado de colunas")
        digest.add(canonical_line(encode_value(v) for v in values))
    return digest, whole.summary()


# --- reading a backup ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Opened:
    manifest: Manifest
    key_id: str


def _open_backup(archive: Path, *, verify: bool = True) -> _Opened:
    if not archive.is_file():
        raise InvalidInputError(f"Arquivo de cópia de segurança não encontrado: {archive}.")
    try:
        with zipfile.ZipFile(archive) as zf:
            listed = zf.namelist()
            names = set(listed)
            if len(names) != len(listed):
                twice = sorted({n for n in listed if listed.count(n) > 1})
                raise RestoreError(f"{archive} traz mais de um arquivo com o mesmo nome ({', '.join(twice[:5])}): "
                                   "a cópia foi alterada. Não restaure este arquivo.")
            if MANIFEST not in names:
                raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk (falta {MANIFEST}).")
            manifest_bytes = _read_capped(archive, zf, MANIFEST, MANIFEST_LIMIT)
            signature_bytes = _read_capped(archive, zf, SIGNATURE, SIGNATURE_LIMIT) if SIGNATURE in names else None
    except ZIP_DAMAGE:
        raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk íntegra: o arquivo zip está "
                           "incompleto ou corrompido (arquivo truncado, CRC errado ou de outro programa).") from None
    except OSError as exc:
        raise RestoreError(f"Não foi possível ler {archive}: {exc.strerror or exc}.") from exc
    try:
        raw = json.loads(manifest_bytes.decode("utf-8"))
    except ValueError:
        raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk (manifesto ilegível).") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk.")
    version = raw.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise RestoreError(f"{archive} foi feita por uma versão mais nova do MotoDesk "
                           f"({raw.get('program_version')}): restaure-a com essa versão ou mais nova.")
    if version < FORMAT_VERSION or signature_bytes is None:
        raise RestoreError(
            f"{archive} não tem assinatura nem somas de conferência (formato {version}, MotoDesk "
            f"{raw.get('program_version')}): esta versão só restaura cópias assinadas. Restaure-a com a versão que a "
            "fez e faça uma nova cópia de segurança com esta versão.")
    signer = ""
    if verify:
        signer = _check_signature(archive, manifest_bytes, signature_bytes)
    try:
        manifest = Manifest(**{k: raw[k] for k in Manifest.__dataclass_fields__ if k in raw})
    except TypeError:
        raise RestoreError(f"O manifesto de {archive} está incompleto.") from None
    if manifest.kind not in ("sqlite", "postgresql") or manifest.hash_method != HASH_METHOD:
        raise RestoreError(f"O manifesto de {archive} descreve um tipo de cópia desconhecido.")
    needed = {SCHEMA_MEMBER} | ({SQLITE_MEMBER} if manifest.kind == "sqlite" else
                                {f"{TABLES_PREFIX}{t}{TABLE_SUFFIX}" for t in manifest.tables})
    missing = sorted(needed - set(manifest.members)) + sorted(set(manifest.members) - names)
    if missing:
        raise RestoreError(f"{archive} está incompleta: falta {', '.join(missing[:5])}.")
    extra = sorted(names - set(manifest.members) - {MANIFEST, SIGNATURE})
    if extra:
        raise RestoreError(f"{archive} traz arquivos que o manifesto não lista ({', '.join(extra[:5])}): "
                           "a cópia foi alterada.")
    return _Opened(manifest, signer)


def _read_capped(archive: Path, zf: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member read into memory, never more than `limit` bytes, whatever its header says."""
    too_big = RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk íntegra: {name} passa de "
                           f"{limit // 1024} KB descompactado (uma cópia verdadeira tem poucos KB).")
    if zf.getinfo(name).file_size > limit:
        raise too_big
    with zf.open(name) as member:
        data = member.read(limit + 1)
    if len(data) > limit:
        raise too_big
    return data


def _check_signature(archive: Path, manifest_bytes: bytes, signature_bytes: bytes) -> str:
    try:
        sig = json.loads(signature_bytes)
        signer, signature = str(sig["key"]), str(sig["signature"])
        if sig.get("algorithm") != "Ed25519":
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise RestoreError(f"A assinatura de {archive} está ilegível: a cópia foi alterada ou danificada.") from None
    verdict = backup_keys.verify(manifest_bytes, signer, signature)
    if verdict is None:
        raise RestoreError(
            f"{archive} foi assinada pela chave {signer}, que esta instalação não conhece. Se a cópia veio de outra "
            "instalação do MotoDesk, exporte lá a chave pública ('motodesk export-backup-key ARQUIVO') e restaure "
            "aqui com 'motodesk restore --trust-key ARQUIVO …'.")
    if verdict is False:
        raise RestoreError(f"A assinatura de {archive} não confere (chave {signer}): o manifesto foi alterado depois "
                           "da cópia. Não restaure este arquivo.")
    return signer


def read_manifest(archive: Path | str, *, verify: bool = True) -> Manifest:
    """The manifest of a backup, its signature checked (unless verify=False)."""
    return _open_backup(Path(archive), verify=verify).manifest


def _extract_verified(archive: Path, manifest: Manifest, work: Path) -> None:
    """Extract every listed member into `work`, checking its SHA-256 (and the zip's CRC) on the way."""
    try:
        with zipfile.ZipFile(archive) as zf:
            for name, expected in manifest.members.items():
                target = _member_path(work, name)  # never a path taken from the file
                sha, size = hashlib.sha256(), 0
                try:
                    with zf.open(name) as src, _create_private(target) as dst:
                        for chunk in iter(lambda s=src: s.read(1 << 20), b""):  # type: ignore[misc]
                            sha.update(chunk)
                            size += len(chunk)
                            if size > int(expected.get("size", 0)):
                                break  # larger than the signed size: refused below, not written out
                            dst.write(chunk)
                except ZIP_DAMAGE:
                    raise _damaged(archive, name) from None
                if sha.hexdigest() != expected.get("sha256") or size != expected.get("size"):
                    raise RestoreError(f"O conteúdo de {name} em {archive} não confere com o manifesto assinado "
                                       "(SHA-256): a cópia foi alterada ou danificada. Não restaure este arquivo.")
    except ZIP_DAMAGE:
        raise _damaged(archive) from None
    except OSError as exc:
        raise RestoreError(_disk_message(exc, work.parent) + f": não foi possível extrair {archive.name} "
                           "para a restauração.") from exc


def _member_path(work: Path, name: str) -> Path:
    return work / hashlib.sha256(name.encode()).hexdigest()


# --- restore -------------------------------------------------------------------------------------

def restore_backup(archive: Path | str, db: Database, *, progress: Progress | None = None,
                   trust_key: Path | str | None = None) -> RestoreResult:
    """Restore `archive` into the EMPTY database `db`, then verify it against the manifest.

    Nothing of a refused restore stays: a SQLite target is built in a file beside it and moved into
    place only once verified; a PostgreSQL target is migrated, loaded and verified in ONE
    transaction, committed only at the end (a killed restore is rolled back by the server).
    `trust_key`: a public key exported by the installation that made the backup, trusted from now on.
    """
    report = progress or (lambda done, total: None)
    archive = Path(archive)
    cleaned = clean_interrupted(db)
    if trust_key is not None:
        backup_keys.trust_key(trust_key)
    opened = _open_backup(archive)
    manifest = opened.manifest
    report(0, 4)
    target_kind = "sqlite" if db.is_sqlite else "postgresql"
    if manifest.kind == "postgresql" and target_kind == "sqlite":
        raise RestoreError(
            "Uma cópia de um servidor PostgreSQL só pode ser restaurada em outro banco PostgreSQL "
            "(restaure-a em um banco vazio do servidor)."
        )
    if db.is_sqlite:
        _sqlite_target(db)  # without connecting: a refused restore must not create the target file
    else:
        db.check_connection()
        if not db.is_empty():
            tables = inspect(db.engine).get_table_names()
            raise _not_empty(len(tables))
    if manifest.revision is None or manifest.revision not in shipped_revisions():
        raise RestoreError(
            f"A cópia é de uma versão mais nova do MotoDesk ({manifest.program_version}, revisão "
            f"{manifest.revision}): instale essa versão ou uma mais nova para restaurá-la."
        )
    with _temp_dir(Path(tempfile.gettempdir()), f"{RESTORE_DIR_PREFIX}{os.getpid()}-") as work:
        _extract_verified(archive, manifest, work)
        report(1, 4)
        try:
            declared = json.loads(_member_path(work, SCHEMA_MEMBER).read_bytes())
        except ValueError:
            raise RestoreError(f"O esquema descrito em {archive} está ilegível.") from None
        if manifest.kind == "sqlite":
            source = _member_path(work, SQLITE_MEMBER)
            _check_sqlite_member(archive, source, manifest.revision, declared)
        _check_contents(archive, work, manifest)
        report(2, 4)
        if manifest.kind == "sqlite" and target_kind == "sqlite":
            _restore_sqlite(source, db, manifest)
        elif manifest.kind == "sqlite":
            _restore_into_postgresql(archive, db, manifest, None, _sqlite_rows(source))
        else:
            _restore_into_postgresql(archive, db, manifest, declared, _member_rows(work, manifest))
    report(3, 4)
    with db.engine.connect() as conn:
        found = take_snapshot(conn)
    report(4, 4)
    return RestoreResult(manifest, found, opened.key_id, tuple(cleaned))


def _not_empty(tables: int) -> RestoreError:
    return RestoreError(
        f"O banco de dados de destino não está vazio ({tables} tabela(s)): a restauração só é feita "
        "em um banco vazio, para nunca misturar nem sobrescrever dados. Indique um arquivo novo (SQLite) "
        "ou um banco recém-criado no servidor (PostgreSQL: createdb)."
    )


def _sqlite_target(db: Database) -> Path:
    """The SQLite target file, which must be missing, of 0 bytes or a database without tables."""
    target = db.sqlite_path
    if target is None:
        raise RestoreError("Não é possível restaurar em um banco de dados em memória.")
    if target.exists() and target.stat().st_size > 0:
        try:
            con = sqlite3.connect(target.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                tables = int(con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
            finally:
                con.close()
        except sqlite3.DatabaseError as exc:
            raise RestoreError(f"O arquivo de destino {target} já existe e não é um banco vazio "
                               f"({explain_error(exc)}): indique um arquivo novo.") from exc
        if tables:
            raise _not_empty(tables)
    return target


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # no safe probe; see _stale
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stale(path: Path, tag: str) -> bool:
    """A leftover of a restore whose process is gone (the pid follows `tag` in the name)."""
    pid_text = path.name.split(tag, 1)[-1].split("-", 1)[0]
    if not pid_text.isdigit():
        return False
    if os.name != "posix":  # no process probe: only leftovers older than a day
        try:
            return datetime.now(UTC).timestamp() - path.stat().st_mtime > 86_400
        except OSError:
            return False
    return int(pid_text) != os.getpid() and not _pid_alive(int(pid_text))


def clean_interrupted(db: Database) -> list[str]:
    """Remove what an interrupted (killed) restore left: its extraction folder and, for a SQLite
    target, its unverified file beside the target. Returns pt_BR notes of what was removed."""
    notes: list[str] = []
    temp = Path(tempfile.gettempdir())
    for folder in sorted(temp.glob(f"{RESTORE_DIR_PREFIX}*")):
        if folder.is_dir() and _stale(folder, RESTORE_DIR_PREFIX):
            shutil.rmtree(folder, ignore_errors=True)
            notes.append(f"apagada a pasta temporária de uma restauração interrompida: {folder}")
    target = db.sqlite_path
    if target is not None and target.parent.is_dir():
        for leftover in sorted(target.parent.glob(f".{target.name}{RESTORE_FILE_TAG}*")):
            if _stale(leftover, RESTORE_FILE_TAG) and not leftover.name.endswith(("-wal", "-shm", "-journal")):
                for path in (leftover, *(leftover.with_name(leftover.name + x) for x in ("-wal", "-shm", "-journal"))):
                    path.unlink(missing_ok=True)
                notes.append(f"apagado o banco não conferido de uma restauração interrompida: {leftover}")
    for note in notes:
        log.warning("restore: %s", note)
    return notes


def _check_contents(archive: Path, work: Path, manifest: Manifest) -> None:
    """Before the target is touched: the data in the file is what the signed manifest says it is."""
    problems: list[str] = []
    try:
        if manifest.kind == "sqlite":
            engine = create_engine(f"sqlite:///{_member_path(work, SQLITE_MEMBER)}")
            try:
                with engine.connect() as conn:
                    problems = compare(manifest.snapshot, take_snapshot(conn))
                    problems += _hash_problems(manifest.tables, content_hashes(conn))
            finally:
                engine.dispose()
        else:
            found: dict[str, dict[str, Any]] = {}
            for name in manifest.tables:
                with _member_path(work, f"{TABLES_PREFIX}{name}{TABLE_SUFFIX}").open("rb") as fh:
                    digest, _summary = _hash_member(fh)
                found[name] = {"rows": digest.rows, "sha256": digest.hexdigest()}
            problems = _hash_problems(manifest.tables, found)
            counted = {t: digest_rows for t, v in found.items() if isinstance(digest_rows := v["rows"], int)}
            if counted != manifest.counts:
                problems += compare(manifest.snapshot, Snapshot(manifest.revision, counted, manifest.blob_bytes,
                                                                manifest.audit_last))
    except (SQLAlchemyError, sqlite3.Error, ValueError, KeyError, IndexError, TypeError) as exc:
        raise RestoreError(f"Os dados de {archive} estão ilegíveis ({str(exc)[:200]}): nada foi restaurado.") from exc
    if problems:
        raise RestoreError(
            f"Os dados de {archive} não conferem com o manifesto assinado, e nada foi restaurado. Diferenças: "
            + "; ".join(problems[:8]) + "."
        )


def _schema_refusal(archive: Path, problems: list[str]) -> RestoreError:
    return RestoreError(
        f"O esquema de {archive} difere do que as migrações do MotoDesk constroem, e nada foi restaurado: "
        + "; ".join(problems[:8]) + (f"; e mais {len(problems) - 8}" if len(problems) > 8 else "") + "."
    )


def _check_sqlite_member(archive: Path, source: Path, revision: str, declared: SchemaDescription) -> None:
    try:
        _sqlite_health(source, f"O banco de dados dentro de {archive}")
    except BackupError as exc:
        raise RestoreError(str(exc).split(" Nenhuma cópia")[0] + " Nada foi restaurado.") from None
    engine = create_engine(f"sqlite:///{source}")
    try:
        with engine.connect() as conn:
            actual = describe_schema(conn)
    finally:
        engine.dispose()
    reference = sqlite_reference(revision)
    problems = differences(reference, actual) or differences(reference, declared)
    if problems:
        raise _schema_refusal(archive, problems)


def _restore_sqlite(source: Path, db: Database, manifest: Manifest) -> None:
    """Copy the checked file into a file beside the target, verify it there, then move it into place."""
    target = _sqlite_target(db)
    db.dispose()
    partial = target.with_name(f".{target.name}{RESTORE_FILE_TAG}{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        try:
            _create_private(partial).close()
            src = sqlite3.connect(source)
            try:
                dst = sqlite3.connect(partial)
                try:
                    src.backup(dst)
                finally:
                    dst.close()
            finally:
                src.close()
        except sqlite3.Error as exc:
            if _sqlite_full(exc):
                raise RestoreError(f"O disco de {target.parent} está cheio: nada foi restaurado; libere espaço e "
                                   "restaure de novo.") from exc
            raise RestoreError(explain_error(exc, db.url)) from exc
        except OSError as exc:
            raise RestoreError(_disk_message(exc, target.parent) + ": nada foi restaurado.") from exc
        built = Database.open(f"sqlite:///{partial}")
        try:
            _verify_restored(built, manifest)
        finally:
            built.dispose()
        _sqlite_target(db)  # still missing or empty: nobody created the target meanwhile
        if target.exists():
            os.replace(partial, target)
        else:
            try:
                os.link(partial, target)  # fails if the target appeared meanwhile: never over a database
                partial.unlink()
            except FileExistsError:
                raise _not_empty(1) from None
            except OSError:
                os.replace(partial, target)
    finally:
        for path in (partial, *(partial.with_name(partial.name + x) for x in ("-wal", "-shm", "-journal"))):
            path.unlink(missing_ok=True)
    if os.name == "posix":
        os.chmod(target, PRIVATE_MODE)


RowSource = Callable[[str], tuple[list[str], Iterator[list[Any]]] | None]


def _sqlite_rows(source: Path) -> RowSource:
    """Rows of a SQLite copy, table by table, read with the copy's own catalog."""
    def rows(name: str) -> tuple[list[str], Iterator[list[Any]]] | None:
        engine = create_engine(f"sqlite:///{source}")
        conn = engine.connect()
        if not inspect(conn).has_table(name):
            conn.close()
            engine.dispose()
            return None
        columns, it = _rows(conn, name)

        def stream() -> Iterator[list[Any]]:
            try:
                yield from it
            finally:
                conn.close()
                engine.dispose()
        return columns, stream()
    return rows


def _member_rows(work: Path, manifest: Manifest) -> RowSource:
    """Rows of a PostgreSQL backup's table members: decoded data, never statements."""
    def rows(name: str) -> tuple[list[str], Iterator[list[Any]]] | None:
        if name not in manifest.tables:
            return None
        fh = _member_path(work, f"{TABLES_PREFIX}{name}{TABLE_SUFFIX}").open("rb")
        try:
            header = json.loads(fh.readline())[0]
            columns = header["columns"]
            if header.get("table") != name or not isinstance(columns, list):
                raise ValueError
        except (ValueError, KeyError, TypeError, IndexError):
            fh.close()
            raise RestoreError(f"O arquivo da tabela {name} na cópia está ilegível.") from None

        def stream() -> Iterator[list[Any]]:
            with fh:
                for number, line in enumerate(fh, start=2):
                    try:
                        values = [decode_value(v) for v in json.loads(line)]
                    except (ValueError, TypeError) as exc:
                        raise RestoreError(f"Tabela {name}, linha {number} da cópia: dado ilegível ({exc}).") from None
                    if len(values) != len(columns):
                        raise RestoreError(f"Tabela {name}, linha {number} da cópia: número errado de colunas.")
                    yield values
        return [str(c) for c in columns], stream()
    return rows


def _load_order(names: Iterable[str]) -> list[str]:
    """Parents before children: the models' dependency order, then any other table by name."""
    present = set(names)
    ordered = [t.name for t in Base.metadata.sorted_tables if t.name in present]
    return ordered + sorted(present - set(ordered))


def _restore_into_postgresql(archive: Path, db: Database, manifest: Manifest,
                             declared: SchemaDescription | None, source: RowSource) -> None:
    """Build the schema with the shipped migrations, compare it, COPY the rows in and verify them,
    all in ONE transaction committed only at the end: a refused, failed or killed restore leaves the
    target as empty as it was."""
    assert manifest.revision is not None
    with db.engine.connect() as conn:
        try:
            try:
                db.upgrade_on(conn, manifest.revision)
            except DBAPIError as exc:
                raise RestoreError(f"As migrações do MotoDesk falharam no banco de destino: "
                                   f"{explain_error(exc, db.url)}") from exc
            reference = describe_schema(conn)
            if declared is not None:
                problems = differences(reference, declared)
                if problems:
                    raise _schema_refusal(archive, problems)
            _copy_in(conn, db, manifest, source)
            after = describe_schema(conn)
            if after != reference:  # every trigger enabled again, nothing else changed
                raise RestoreError("Depois da carga o esquema do banco de destino não é o das migrações: "
                                   + "; ".join(differences(reference, after)[:8]) + ". Nada foi restaurado.")
            _verify_on(conn, manifest)
            conn.commit()
        except BaseException:
            try:
                conn.rollback()
            except SQLAlchemyError as exc:  # the connection is gone: the server rolls back on its own
                log.warning("rollback of a failed restore: %s", exc)
            raise


def _copy_in(conn: Connection, db: Database, manifest: Manifest, source: RowSource) -> None:
    from psycopg import sql
    from psycopg.types.json import Json

    try:
        insp = inspect(conn)
        names = _data_tables(conn)
        known = {n: {c["name"] for c in insp.get_columns(n)} for n in names}
        unknown = sorted(set(manifest.tables) - set(names))
        if unknown:
            raise RestoreError(f"A cópia traz tabelas que as migrações do MotoDesk não criam: {', '.join(unknown)}.")
        q = conn.dialect.identifier_preparer.quote
        # User triggers (the audit triggers among them) must not fire for restored rows: the audit rows
        # come verbatim from the backup. Re-enabled below, in this same transaction.
        for name in names:
            conn.exec_driver_sql(f"ALTER TABLE {q(name)} DISABLE TRIGGER USER")
        import psycopg

        raw = conn.connection.dbapi_connection
        assert isinstance(raw, psycopg.Connection)
        for name in _load_order(names):
            found = source(name)
            if found is None:
                raise RestoreError(f"A cópia não traz a tabela {name}, que as migrações criam.")
            columns, rows = found
            if set(columns) != known[name] or len(columns) != len(known[name]):
                raise RestoreError(f"As colunas da tabela {name} na cópia diferem das do banco de destino.")
            statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
                sql.Identifier(name), sql.SQL(", ").join(sql.Identifier(c) for c in columns))
            with raw.cursor() as cur, cur.copy(statement) as copy:
                for row in rows:
                    copy.write_row([Json(v) if isinstance(v, (dict, list)) else v for v in row])
        _reset_sequences(conn)
        for name in names:
            conn.exec_driver_sql(f"ALTER TABLE {q(name)} ENABLE TRIGGER USER")
    except DBAPIError as exc:
        raise RestoreError(_load_failure(exc, db)) from exc
    except Exception as exc:
        if isinstance(exc, MotodeskError):
            raise
        from psycopg import Error as PsycopgError

        if isinstance(exc, PsycopgError):
            raise RestoreError(_load_failure(exc, db)) from exc
        raise


def _load_failure(exc: BaseException, db: Database) -> str:
    detail = str(getattr(exc, "orig", exc)).lower()
    if "no space left" in detail or "could not extend file" in detail or "disk full" in detail:
        return (f"O disco do servidor PostgreSQL ({db.url.host or 'localhost'}) está cheio: a carga dos dados foi "
                "desfeita e nada foi gravado. Libere espaço no servidor e restaure de novo.")
    return "A carga dos dados no PostgreSQL falhou e nada foi gravado: " + explain_error(exc, db.url)


def _reset_sequences(conn: Connection) -> None:
    """Every serial or identity column continues after the restored rows."""
    q = conn.dialect.identifier_preparer.quote
    owned = conn.exec_driver_sql(
        "SELECT c.relname, a.attname, s.oid::regclass::text FROM pg_depend d "
        "JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' "
        "JOIN pg_class c ON c.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.refobjsubid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') "
        "AND n.nspname = current_schema()"
    ).all()
    for table, column, sequence in owned:
        conn.execute(text(f"SELECT setval(CAST(:s AS regclass), coalesce((SELECT max({q(column)}) FROM {q(table)}), "
                          "0) + 1, false)"), {"s": sequence})


def _verify_restored(db: Database, manifest: Manifest) -> None:
    with db.engine.connect() as conn:
        _verify_on(conn, manifest)


def _verify_on(conn: Connection, manifest: Manifest) -> None:
    found = take_snapshot(conn)
    hashes = content_hashes(conn)
    problems = compare(manifest.snapshot, found) + _hash_problems(manifest.tables, hashes)
    if problems:
        raise RestoreError(
            "A restauração não confere com a cópia de segurança, e nada foi restaurado. Diferenças: "
            + "; ".join(problems[:8]) + "."
        )


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
