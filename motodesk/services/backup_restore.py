"""Reading and restoring a backup: the manifest and its signature checked (:func:`read_manifest`), the
members extracted and hashed, the schema compared, then the rows put into an EMPTY database
(:func:`restore_backup`): a SQLite file moved into place once verified, a PostgreSQL target loaded
and verified in one transaction. :func:`clean_interrupted` removes what a killed restore left."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from motodesk.models import Base
from motodesk.models.db import Database, copy_sqlite, explain_error, shipped_revisions
from motodesk.services import backup_keys
from motodesk.services.backup_format import (
    FORMAT,
    FORMAT_VERSION,
    HASH_METHOD,
    MANIFEST,
    MANIFEST_LIMIT,
    PRIVATE_MODE,
    RESTORE_DIR_PREFIX,
    RESTORE_FILE_TAG,
    SCHEMA_MEMBER,
    SIGNATURE,
    SIGNATURE_LIMIT,
    SQLITE_MEMBER,
    TABLE_SUFFIX,
    TABLES_PREFIX,
    ZIP_DAMAGE,
    BackupError,
    Manifest,
    Progress,
    RestoreError,
    RestoreResult,
    Snapshot,
    _create_private,
    _damaged,
    _data_tables,
    _disk_message,
    _hash_member,
    _hash_problems,
    _Opened,
    _rows,
    _sqlite_full,
    _sqlite_health,
    _temp_dir,
    compare,
    content_hashes,
    decode_value,
    take_snapshot,
)
from motodesk.services.backup_schema import (
    SchemaDescription,
    describe_schema,
    differences,
    sqlite_reference,
)
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger("motodesk.services.backup")  # one logger for backups, as before the split


def _open_backup(archive: Path, *, verify: bool = True) -> _Opened:
    if not archive.is_file():
        raise InvalidInputError(f"Arquivo de cópia de segurança não encontrado: {archive}.",
                                code="backup.file_missing")
    try:
        with zipfile.ZipFile(archive) as zf:
            listed = zf.namelist()
            names = set(listed)
            if len(names) != len(listed):
                twice = sorted({n for n in listed if listed.count(n) > 1})
                raise RestoreError(f"{archive} traz mais de um arquivo com o mesmo nome ({', '.join(twice[:5])}): "
                                   "a cópia foi alterada. Não restaure este arquivo.", code="restore.duplicate_members")
            if MANIFEST not in names:
                raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk (falta {MANIFEST}).")
            manifest_bytes = _read_capped(archive, zf, MANIFEST, MANIFEST_LIMIT)
            signature_bytes = _read_capped(archive, zf, SIGNATURE, SIGNATURE_LIMIT) if SIGNATURE in names else None
    except ZIP_DAMAGE:
        raise RestoreError(f"{archive} não é uma cópia de segurança do MotoDesk íntegra: o arquivo zip está "
                           "incompleto ou corrompido (arquivo truncado, CRC errado ou de outro programa).",
                           code="restore.damaged_archive") from None
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
            "fez e faça uma nova cópia de segurança com esta versão.", code="restore.unsigned")
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
                           "a cópia foi alterada.", code="restore.unlisted_members")
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
            "aqui com 'motodesk restore --trust-key ARQUIVO …'.", code="restore.unknown_key")
    if verdict is False:
        raise RestoreError(f"A assinatura de {archive} não confere (chave {signer}): o manifesto foi alterado depois "
                           "da cópia. Não restaure este arquivo.", code="restore.bad_signature")
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
                                       "(SHA-256): a cópia foi alterada ou danificada. Não restaure este arquivo.",
                                       code="restore.member_differs")
    except ZIP_DAMAGE:
        raise _damaged(archive) from None
    except OSError as exc:
        raise RestoreError(_disk_message(exc, work.parent) + f": não foi possível extrair {archive.name} "
                           "para a restauração.", code="restore.disk_refused") from exc


def _member_path(work: Path, name: str) -> Path:
    return work / hashlib.sha256(name.encode()).hexdigest()


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
            "(restaure-a em um banco vazio do servidor).", code="restore.postgresql_only"
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
            + "; ".join(problems[:8]) + ".", code="restore.data_differs"
        )


def _schema_refusal(archive: Path, problems: list[str]) -> RestoreError:
    return RestoreError(
        f"O esquema de {archive} difere do que as migrações do MotoDesk constroem, e nada foi restaurado: "
        + "; ".join(problems[:8]) + (f"; e mais {len(problems) - 8}" if len(problems) > 8 else "") + ".",
        code="restore.schema_differs")


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
            copy_sqlite(source, partial)
        except sqlite3.Error as exc:
            if _sqlite_full(exc):
                raise RestoreError(f"O disco de {target.parent} está cheio: nada foi restaurado; libere espaço e "
                                   "restaure de novo.", code="restore.disk_refused") from exc
            raise RestoreError(explain_error(exc, db.url)) from exc
        except OSError as exc:
            raise RestoreError(_disk_message(exc, target.parent) + ": nada foi restaurado.", code="restore.disk_refused") from exc
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
            raise RestoreError(f"A cópia traz tabelas que as migrações do MotoDesk não criam: {', '.join(unknown)}.",
                                   code="restore.unknown_tables")
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
