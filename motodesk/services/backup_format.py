"""The backup file's format (see :mod:`motodesk.services.backup`): its members and limits, the errors and
records of a backup and a restore, the tagged encoding of values, the content hash of a table, the row
counts, and the small file helpers (private files, zip members, disk-full messages) writing and
restoring share."""

from __future__ import annotations

import base64
import errno
import hashlib
import io
import json
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

from sqlalchemy import Column, Connection, MetaData, Table, inspect, select, text

from motodesk.models import AuditEvent
from motodesk.models.db import explain_error
from motodesk.services.clock import local_now
from motodesk.services.errors import MotodeskError

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
SKIPPED_TABLES = frozenset({"alembic_version", "role_password_marks", "audit_staging", "audit_seal_marks"})


#: SQLite full-text index of names (revision 0012) and its shadow tables: derived from `people`, rebuilt there.
SKIPPED_PREFIXES = ("people_fts",)


#: Caps for the members read into memory before the signature is checked (a zip bomb is refused).
MANIFEST_LIMIT = 4 << 20
SIGNATURE_LIMIT = 64 << 10


#: What an interrupted restore can leave: its extraction folder (in the temporary folder) and its
#: SQLite file beside the target, both named with the restoring process's id.
RESTORE_DIR_PREFIX = ".motodesk-restauracao-"
RESTORE_FILE_TAG = ".restauracao-"


Progress = Callable[[int, int], None]


class BackupError(MotodeskError):
    title = "Cópia de segurança"
    code = "backup"


class RestoreError(MotodeskError):
    title = "Restauração"
    code = "restore"


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
                        "errado). Use outra cópia.", code="restore.damaged_archive")


@contextmanager
def _temp_dir(near: Path, prefix: str = ".motodesk-copia-") -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=near if near.is_dir() else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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
                          "(ou restaure a última cópia boa) antes de fazer uma nova.", code="backup.damaged_database") from exc
    finally:
        con.close()
    if problems != ["ok"]:
        raise BackupError(f"{what} está danificado (PRAGMA integrity_check: {'; '.join(problems[:5])}). Nenhuma "
                          "cópia foi gravada: recupere o banco (ou restaure a última cópia boa) antes de fazer uma "
                          "nova.", code="backup.damaged_database")
    if orphans:
        listed = "; ".join(f"{t} linha {rowid} aponta para {parent} inexistente" for t, rowid, parent, _ in orphans[:5])
        raise BackupError(f"{what} tem referências quebradas (PRAGMA foreign_key_check: {listed}). Nenhuma cópia "
                          "foi gravada: corrija o banco antes de fazer uma nova.", code="backup.broken_references")


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


@dataclass(frozen=True)
class _Opened:
    manifest: Manifest
    key_id: str
