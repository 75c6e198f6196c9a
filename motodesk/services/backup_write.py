"""Writing a backup (:func:`create_backup`): the source checked first (SQLite's integrity and foreign
keys on the source and the copy; PostgreSQL's foreign keys and every row read), the members written
into a private partial file, the zip read back and hashed, and only then moved into place."""

from __future__ import annotations

import getpass
import hashlib
import io
import json
import logging
import os
import shutil
import sqlite3
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine
from sqlalchemy.exc import DBAPIError

from motodesk import __version__
from motodesk.models.db import Database, explain_error, loggable, shipped_revisions
from motodesk.rules.common import Role
from motodesk.services import backup_keys
from motodesk.services.backup_format import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    PRIVATE_MODE,
    SCHEMA_MEMBER,
    SIGNATURE,
    SQLITE_MEMBER,
    SUFFIX,
    TABLE_SUFFIX,
    TABLES_PREFIX,
    ZIP_DAMAGE,
    BackupError,
    BackupResult,
    Manifest,
    Progress,
    Snapshot,
    TableHash,
    _create_private,
    _data_tables,
    _disk_message,
    _hash_member,
    _HashingWriter,
    _manifest_bytes,
    _member_info,
    _rows,
    _sqlite_full,
    _sqlite_health,
    _temp_dir,
    canonical_line,
    content_hashes,
    encode_value,
    take_snapshot,
)
from motodesk.services.backup_reminder import _remember
from motodesk.services.backup_schema import (
    SchemaDescription,
    describe_schema,
    differences,
    postgresql_reference,
    sqlite_reference,
)
from motodesk.services.clock import local_now
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError

log = logging.getLogger("motodesk.services.backup")  # one logger for backups, as before the split


def _place(partial: Path, out: Path) -> None:
    """Move the finished file into place, never over an existing file, mode 0600."""
    try:
        os.link(partial, out)  # fails if `out` exists: no overwrite even in a race
        partial.unlink()
    except FileExistsError:
        raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome.", code="backup.file_exists") from None
    except OSError:  # a file system without hard links
        if out.exists():
            raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome.", code="backup.file_exists") from None
        shutil.move(str(partial), out)
    os.chmod(out, PRIVATE_MODE)


def _who(ctx: AppContext) -> str:
    if ctx.user.id is not None:
        return ctx.user.login
    try:
        return f"{ctx.user.login} ({getpass.getuser()})"
    except Exception:  # noqa: BLE001 - no OS user name on some systems
        return ctx.user.login


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
        raise InvalidInputError(f"O arquivo {out} já existe: escolha outro nome (uma cópia nunca sobrescreve outra).", code="backup.file_exists")
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
        raise BackupError(_disk_message(exc, out.parent) + ": a cópia de segurança não foi gravada.", code="backup.disk_refused") from exc


def _reference_schema(db: Database) -> SchemaDescription:
    """What the shipped migrations build at the database's revision: a backup of a database whose
    schema differs would be refused by every restore, so it is refused here, before any file."""
    revision = db.current_revision()
    if revision is None or revision not in shipped_revisions():
        raise BackupError(
            "O banco de dados não tem a revisão do esquema (a tabela alembic_version está vazia ou faltando): "
            "ele foi alterado fora do MotoDesk e uma cópia dele não poderia ser restaurada. Nenhuma cópia foi "
            "gravada: restaure a última cópia boa ou corrija o banco antes de fazer uma nova.",
            code="backup.no_revision")
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
            "nova.", code="backup.schema_differs")


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
            raise BackupError(f"O disco de {folder} está cheio: a cópia de segurança não foi gravada.", code="backup.disk_refused") from exc
        if "disk i/o error" in str(exc).lower():
            raise BackupError(f"O disco de {folder} recusou a gravação (disco cheio, arquivo maior do que o permitido "
                              "ou falha do disco): a cópia de segurança não foi gravada.", code="backup.disk_refused") from exc
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
                                      + "). Nenhuma cópia foi gravada: corrija o banco antes de fazer uma nova.",
                                      code="backup.broken_references")
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
                                "lida de volta do arquivo difere do que o banco contém. A cópia foi descartada.",
                                code="backup.read_back_differs")
                    else:
                        writer = _HashingWriter(io.BytesIO())
                        for chunk in iter(lambda m=member: m.read(1 << 20), b""):  # type: ignore[misc]
                            writer.sha.update(chunk)
                            writer.size += len(chunk)
                        summary = writer.summary()
                if summary != expected:
                    raise BackupError(f"A cópia gravada em {out.parent} não confere ao ser lida de volta ({name}): "
                                      "o disco pode estar com defeito. A cópia foi descartada.", code="backup.read_back_differs")
    except (*ZIP_DAMAGE, ValueError, KeyError) as exc:
        raise BackupError(f"A cópia gravada em {out.parent} não pôde ser lida de volta ({exc}): o disco pode estar "
                          "com defeito. A cópia foi descartada.") from exc
