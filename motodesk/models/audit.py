"""The audit trail: every insert, update and delete of business data writes one append-only row.

Who writes the rows:

* SQLite: this module's session listeners — the ORM flush (``before_flush``/``after_flush``) and,
  for Core and bulk INSERT/UPDATE/DELETE statements run through a Session, ``do_orm_execute``.
* PostgreSQL: database triggers (installed by :func:`install_guards`), so a change made with plain
  SQL is recorded too. The author is ``motodesk_actor()`` (:mod:`motodesk.models.roles`): with
  per-user roles, the login the server authenticated (``session_user``), whatever the session sets;
  only the database owner, and databases without per-user roles, still name the MotoDesk user with
  ``set_config('motodesk.user', …, true)`` once per transaction (else the database role is
  recorded). The Python listeners write nothing there (no double rows).

Both write the same JSON diff ``{column: [old, new]}`` and chain every row to the previous one:
``row_hash = SHA-256(canonical(row) + prev_hash)`` (:func:`chain_hash`), checked by
:func:`verify_chain` (``motodesk audit-verify``). On PostgreSQL the statements stage their audit
rows and one deferred trigger seals them at commit under an advisory transaction lock
(:mod:`motodesk.models.audit_pg`), so concurrent workstations never fork the chain and no row lock
is ever awaited while holding it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import Connection, Table, event, func, insert, inspect, select, text, tuple_
from sqlalchemy import types as sqltypes
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction, UOWTransaction

from motodesk.models.admin import AuditEvent
from motodesk.models.base import Base, utcnow
from motodesk.models.checkpoints import AuditCheckpoint

_AUDIT = typing.cast(Table, AuditEvent.__table__)
_SEALED = typing.cast(Table, AuditCheckpoint.__table__)
_to_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode  # json.dumps' text, one encoder for all rows

# Columns whose values never go into the trail (only the fact that they changed).
SECRET_COLUMNS = frozenset({"password_hash"})
# Rows whose every value is a secret, by table and row key: the badges' private signing key.
SECRET_ROWS: dict[str, frozenset[str]] = {"settings": frozenset({"badge_signing_key"})}
# Columns that change on every save and say nothing.
NOISE_COLUMNS = frozenset({"version", "updated_at", "created_at"})
#: Append-only tables, the one place that declares them: nobody may UPDATE, DELETE or TRUNCATE
#: their rows (triggers on both databases; privileges withheld from PostgreSQL's login role).
#: The value says whether the workstations' login role may INSERT rows itself: the audit trail is
#: written by the database's own triggers on PostgreSQL, so the login role cannot forge a row.
APPEND_ONLY_TABLES: dict[str, bool] = {"audit_events": False, "access_log": True, "audit_checkpoints": True}
UNAUDITED_TABLES = frozenset({"blobs", "alembic_version", *APPEND_ONLY_TABLES})
SYSTEM_USER = "sistema"
#: The PostgreSQL setting that carries the MotoDesk user of a transaction to the triggers.
USER_SETTING = "motodesk.user"
#: A session whose ``info`` has this key set writes audit rows without old or new values (LGPD
#: anonymisation, :mod:`motodesk.services.retention`); on PostgreSQL the same flag reaches the
#: triggers as the transaction setting :data:`REDACT_SETTING`. Set both with :func:`redact_values`.
REDACT_VALUES = "audit_redact_values"
REDACT_SETTING = "motodesk.redact"
#: Keys of the advisory lock that serialises appends to the chain on PostgreSQL.
CHAIN_LOCK = (4883, 17)
AUDIT_TRIGGER = "motodesk_audit"


# --- the chain ----------------------------------------------------------------------------------

def format_at(at: datetime) -> str:
    """The instant as the chain hashes it: naive UTC with microseconds (PostgreSQL's to_char alike)."""
    if at.tzinfo is not None:
        at = at.astimezone(UTC).replace(tzinfo=None)
    return at.strftime("%Y-%m-%d %H:%M:%S.%f")


def canonical(row_id: int, at: datetime, user_login: str, table_name: str, row_key: str, action: str,
              changes: str, prev_hash: str) -> bytes:
    """Length-prefixed fields: no two different rows read the same (the SQL function says the same)."""
    return _canonical_text(row_id, format_at(at), user_login, table_name, row_key, action, changes, prev_hash)


def _canonical_text(row_id: int, at_text: str, user_login: str, table_name: str, row_key: str, action: str,
                    changes: str, prev_hash: str) -> bytes:
    fields = (str(row_id), at_text, user_login, table_name, row_key, action, changes, prev_hash)
    return "".join(f"{len(value)}:{value};" for value in fields).encode("utf-8")


def chain_hash(row_id: int, at: datetime, user_login: str, table_name: str, row_key: str, action: str,
               changes: str, prev_hash: str) -> str:
    return hashlib.sha256(canonical(row_id, at, user_login, table_name, row_key, action, changes,
                                    prev_hash)).hexdigest()


@dataclass(frozen=True)
class ChainBreak:
    """The first audit row that does not follow from the one before it."""

    row_id: int
    at: datetime | None
    reason: str  # pt_BR


@dataclass(frozen=True)
class ChainReport:
    rows: int
    broken: ChainBreak | None


def verify_chain(conn: Connection) -> ChainReport:
    """Walk the trail in id order and recompute every link; the first mismatch is reported.

    An edited row fails its own hash; a deleted, reordered or inserted row breaks the link of the row
    that follows it (its ``prev_hash`` no longer names the row before it) or fails its own hash.
    """
    t = _AUDIT
    query = select(t.c.id, t.c.at, t.c.user_login, t.c.table_name, t.c.row_key, t.c.action, t.c.changes,
                   t.c.prev_hash, t.c.row_hash).order_by(t.c.id)
    prev = ""
    count = 0
    with conn.execution_options(yield_per=5000).execute(query) as result:
        for row in result:
            count += 1
            broken = _link_break(row, prev)
            if broken is not None:
                return ChainReport(count, broken)
            prev = row.row_hash
    return ChainReport(count, None)


def _link_break(row: Any, prev: str) -> ChainBreak | None:
    if row.row_hash is None or row.prev_hash is None:
        return ChainBreak(row.id, row.at, "o registro não tem o selo (hash) da cadeia")
    if row.prev_hash != prev:
        return ChainBreak(row.id, row.at, "o elo com o registro anterior não confere (registro anterior "
                          "apagado, inserido ou fora de ordem)")
    expected = chain_hash(row.id, row.at, row.user_login, row.table_name, row.row_key, row.action,
                          row.changes, row.prev_hash)
    if row.row_hash != expected:
        return ChainBreak(row.id, row.at, "o conteúdo do registro foi alterado depois de gravado")
    return None


def rehash_all(conn: Connection) -> int:
    """Seal every row anew, in id order (migration of rows written before the chain existed)."""
    t = _AUDIT
    prev = ""
    rows = conn.execute(select(t.c.id, t.c.at, t.c.user_login, t.c.table_name, t.c.row_key, t.c.action,
                               t.c.changes).order_by(t.c.id)).all()
    for row in rows:
        digest = chain_hash(row.id, row.at, row.user_login, row.table_name, row.row_key, row.action,
                            row.changes, prev)
        conn.execute(t.update().where(t.c.id == row.id).values(prev_hash=prev, row_hash=digest))
        prev = digest
    return len(rows)


def chain_tip(conn: Connection) -> tuple[int, str]:
    """SQLite: the id and ``prev_hash`` the next audit row takes (the last row's id + 1 and hash)."""
    t = _AUDIT
    last = conn.execute(select(t.c.id, t.c.row_hash).order_by(t.c.id.desc()).limit(1)).first()
    next_id, prev = (int(last.id) + 1, last.row_hash or "") if last else (1, "")
    # Never reuse an id a checkpoint sealed (rows deleted past the triggers): ids go on, as PostgreSQL's sequence does.
    next_id = max(next_id, int(conn.execute(select(func.max(_SEALED.c.last_id))).scalar() or 0) + 1)
    return next_id, prev


def _append(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """SQLite: insert audit rows sealed into the chain. The flush or statement that produced them
    already holds SQLite's write lock, so no other writer can append in between."""
    if not rows:
        return
    next_id, prev = chain_tip(conn)
    for row in rows:
        row["changes"] = _to_json(row["changes"])
        row["id"] = next_id
        row["prev_hash"] = prev
        row["row_hash"] = prev = chain_hash(next_id, row["at"], row["user_login"], row["table_name"],
                                            row["row_key"], row["action"], row["changes"], prev)
        next_id += 1
    conn.execute(insert(AuditEvent), rows)


# --- the diff, in Python (SQLite) -------------------------------------------------------------------

def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    return str(value)


def _row_key(obj: Any) -> str:
    # Right after the flush a new row has its primary key but not yet its identity key.
    key = inspect(obj).mapper.primary_key_from_instance(obj)
    return ",".join(str(part) for part in key)


def _masked(table: str, row_key: str, column: str) -> bool:
    return column in SECRET_COLUMNS or row_key in SECRET_ROWS.get(table, ())


def _changes(obj: Any, action: str) -> dict[str, list[Any]]:
    state = inspect(obj)
    diff: dict[str, list[Any]] = {}
    for attr in state.mapper.column_attrs:
        key = attr.key
        if key in NOISE_COLUMNS:
            continue
        if action == "insert":
            value = state.dict.get(key)
            if value is None:
                continue
            old, new = None, value
        elif action == "delete":
            old, new = state.attrs[key].value, None  # may load an expired value: deletes are rare
            if old is None:
                continue
        else:
            hist = state.attrs[key].history
            if not hist.has_changes():
                continue
            old = hist.deleted[0] if hist.deleted else None
            new = hist.added[0] if hist.added else None
            if old == new:
                continue
        diff[key] = [_plain(old), _plain(new)]
    return diff


def _mask(table: str, row_key: str, diff: dict[str, list[Any]]) -> dict[str, list[Any]]:
    if row_key in SECRET_ROWS.get(table, ()):
        return {k: ["***", "***"] for k in diff}
    if SECRET_COLUMNS.isdisjoint(diff):
        return diff  # the common case, and a bulk insert's thousands of rows: nothing to hide
    return {k: (["***", "***"] if k in SECRET_COLUMNS else v) for k, v in diff.items()}


def _audit_row(session: Session, table: str, row_key: str, action: str, diff: dict[str, list[Any]]) -> dict[str, Any]:
    return {"at": utcnow(), "user_login": session.info.get("user_login", SYSTEM_USER), "table_name": table,
            "row_key": row_key, "action": action, "changes": _mask(table, row_key, diff)}


def _writes_in_python(session: Session, conn: Connection | None = None) -> bool:
    dialect = conn.dialect if conn is not None else session.get_bind().dialect
    return dialect.name != "postgresql"


def _collect(session: Session) -> list[dict[str, Any]]:
    rows = []
    for action, objects in (("insert", session.new), ("update", session.dirty), ("delete", session.deleted)):
        for obj in objects:
            table = getattr(obj, "__tablename__", None)
            if table is None or table in UNAUDITED_TABLES:
                continue
            if action == "update" and not session.is_modified(obj, include_collections=False):
                continue
            diff = _changes(obj, action)
            if action == "update" and not diff:
                continue
            if session.info.get(REDACT_VALUES):
                diff = {key: ["***", "***"] for key in diff}
            rows.append({"action": action, "table": table, "changes": diff, "obj": obj})
    return rows


def redact_values(session: Session) -> None:
    """From now on in this transaction, audit rows say which fields changed, never their values."""
    session.info[REDACT_VALUES] = True
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT set_config(:name, 'on', true)"), {"name": REDACT_SETTING})


@event.listens_for(Session, "after_begin")
def _after_begin(session: Session, transaction: SessionTransaction, connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SELECT set_config(%s, %s, true)",
                                   (USER_SETTING, str(session.info.get("user_login", SYSTEM_USER))))


@event.listens_for(Session, "before_flush")
def _before_flush(session: Session, flush_context: UOWTransaction, instances: Any) -> None:
    # Attribute history is read before the flush resets it; keys of new rows are known only after.
    if _writes_in_python(session):
        session.info.setdefault("_audit_pending", []).extend(_collect(session))


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, flush_context: UOWTransaction) -> None:
    pending = session.info.pop("_audit_pending", [])
    if not pending:
        return
    rows = [_audit_row(session, p["table"], _row_key(p["obj"]), p["action"], p["changes"]) for p in pending]
    _append(session.connection(), rows)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop("_audit_pending", None)


# --- Core and bulk statements through a Session (SQLite) -------------------------------------------

def _column_diff(table: Table, old: Mapping[Any, Any] | None, new: Mapping[Any, Any] | None) -> dict[str, list[Any]]:
    if old is None and new is not None:  # an insert (a bulk one writes thousands): every value that is set
        return {name: [None, _plain(value)] for name, value in new.items()
                if value is not None and name not in NOISE_COLUMNS}
    diff: dict[str, list[Any]] = {}
    for column in table.columns:
        name = column.name
        if name in NOISE_COLUMNS:
            continue
        before = old.get(name) if old is not None else None
        after = new.get(name) if new is not None else None
        if before == after or (old is None and after is None) or (new is None and before is None):
            continue
        diff[name] = [_plain(before), _plain(after)]
    return diff


def _key_of(table: Table, row: Mapping[Any, Any]) -> str:
    return ",".join(str(row[c.name]) for c in table.primary_key.columns)


def _rows_by_key(conn: Connection, table: Table, keys: Sequence[tuple[Any, ...]]) -> list[Mapping[Any, Any]]:
    pk = list(table.primary_key.columns)
    found: list[Mapping[Any, Any]] = []
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        clause = pk[0].in_([k[0] for k in chunk]) if len(pk) == 1 else tuple_(*pk).in_(chunk)
        found += conn.execute(select(table).where(clause)).mappings().all()
    return found


def _single_integer_key(table: Table) -> bool:
    pk = list(table.primary_key.columns)
    return len(pk) == 1 and isinstance(pk[0].type, sqltypes.Integer)


def _keys(conn: Connection, table: Table) -> set[tuple[Any, ...]]:
    return {tuple(r) for r in conn.execute(select(*table.primary_key.columns))}


@event.listens_for(Session, "do_orm_execute")
def _core_dml(state: ORMExecuteState) -> Any:
    """A Core or bulk INSERT/UPDATE/DELETE run with ``session.execute`` never passes through the
    flush: read the rows it touches before and after, and audit each one like the flush does."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return None
    statement: Any = state.statement
    name = getattr(getattr(statement, "table", None), "name", None)
    table = Base.metadata.tables.get(name) if isinstance(name, str) else None
    if table is None or table.name in UNAUDITED_TABLES or not table.primary_key.columns:
        return None
    session = state.session
    conn = session.connection(bind_arguments=state.bind_arguments)
    if not _writes_in_python(session, conn):
        return None  # PostgreSQL: the triggers audit
    audit: list[dict[str, Any]] = []
    if state.is_insert:
        if _single_integer_key(table):
            pk = next(iter(table.primary_key.columns))
            before_max = conn.execute(select(func.max(pk))).scalar() or 0
            result = state.invoke_statement()
            fetched = conn.execute(select(table).where(pk > before_max).order_by(pk))
            names = list(fetched.keys())  # plain dicts: a RowMapping rebuilds its keys on every row
            new_rows: Iterable[Mapping[Any, Any]] = [dict(zip(names, row, strict=True)) for row in fetched]
        else:
            before_keys = _keys(conn, table)
            result = state.invoke_statement()
            new_rows = _rows_by_key(conn, table, sorted(_keys(conn, table) - before_keys))
        for row in new_rows:
            audit.append(_audit_row(session, table.name, _key_of(table, row), "insert", _column_diff(table, None, row)))
    else:
        where = statement.whereclause
        query = select(table) if where is None else select(table).where(where)
        old_rows = conn.execute(query).mappings().all()
        result = state.invoke_statement()
        if state.is_update:
            pk_names = [c.name for c in table.primary_key.columns]
            new_by_key = {_key_of(table, r): r for r in _rows_by_key(
                conn, table, [tuple(r[n] for n in pk_names) for r in old_rows])}
            for old in old_rows:
                key = _key_of(table, old)
                new = new_by_key.get(key)
                diff = _column_diff(table, old, new) if new is not None else {}
                if diff:
                    audit.append(_audit_row(session, table.name, key, "update", diff))
        else:
            gone = {tuple(r) for r in conn.execute(select(*table.primary_key.columns).where(
                tuple_(*table.primary_key.columns).in_([tuple(r[c.name] for c in table.primary_key.columns)
                                                        for r in old_rows])))} if old_rows else set()
            for old in old_rows:
                if tuple(old[c.name] for c in table.primary_key.columns) in gone:
                    continue  # still there: the DELETE's condition no longer held
                audit.append(_audit_row(session, table.name, _key_of(table, old), "delete",
                                        _column_diff(table, old, None)))
    _append(conn, audit)
    return result


# --- bulk inserts (an import of thousands of rows) ---------------------------------------------------

def _defaults(table: Table) -> dict[str, Any]:
    """The Python-side defaults of ``table``'s columns (what Core would fill in), as callables."""
    found: dict[str, Any] = {}
    for column in table.columns:
        default = column.default
        if default is None or getattr(default, "is_sequence", False):
            continue
        arg = getattr(default, "arg", None)
        if getattr(default, "is_callable", False):
            found[column.name] = lambda fn=arg: fn(None)
        elif getattr(default, "is_scalar", False):
            found[column.name] = lambda value=arg: value
    return found


def _insert_values(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]
                   ) -> tuple[Sequence[dict[str, Any]], list[str], list[tuple[Any, ...]], str, str]:
    """What one bulk insert of ``rows`` sends (shared by :func:`bulk_insert` and :func:`prepare_bulk_insert`):
    the rows completed with the columns' Python defaults, the column names, the driver's value tuples
    (bind processors applied), the quoted column list and the quoted table name."""
    dialect = conn.dialect
    defaults = _defaults(table)
    missing = [n for n in defaults if n not in rows[0]]
    complete = rows if not missing else [{**row, **{n: defaults[n]() for n in missing}} for row in rows]
    columns = list(rows[0]) + missing
    processors = [table.c[n].type._cached_bind_processor(dialect) for n in columns]
    values = [tuple([v if f is None or v is None else f(v)  # a list per row: no generator per value
                     for f, v in zip(processors, [row[n] for n in columns], strict=True)]) for row in complete]
    quoted = ", ".join(dialect.identifier_preparer.quote(n) for n in columns)
    return complete, columns, values, quoted, dialect.identifier_preparer.format_table(table)


def _insert_diff(row: Mapping[str, Any], redact: bool) -> dict[str, list[Any]]:
    """The audit ``changes`` of an inserted row, before :func:`_mask` (bulk and prepared inserts alike)."""
    diff = {n: [None, _plain(v)] for n, v in row.items() if v is not None and n not in NOISE_COLUMNS}
    return {k: ["***", "***"] for k in diff} if redact else diff


def reserve_ids(s: Session, table: Table, n: int) -> list[int]:
    """``n`` fresh primary keys of ``table``: from its sequence on PostgreSQL (one round trip); on SQLite
    the next ``n`` after the largest (the write transaction holds the database's only write lock)."""
    if n <= 0:
        return []
    if s.get_bind().dialect.name == "postgresql":
        return list(s.scalars(text("SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
                              {"t": table.name, "n": n}))
    start = int(s.scalar(select(func.max(table.c.id))) or 0) + 1
    return list(range(start, start + n))


#: SQLite: rows per multi-row INSERT of a bulk insert into a table with an FTS5 index (within the
#: driver's limit on bound variables); other tables take one statement per row (executemany).
SQLITE_ROWS_PER_INSERT = 1000
#: SQLite tables whose insert trigger feeds an FTS5 index (revision 0012).
SQLITE_FTS_TABLES = frozenset({"people"})


def _sqlite_insert_many(conn: Connection, name: str, quoted: str, values: Sequence[tuple[Any, ...]]) -> None:
    """Bulk insert on SQLite: executemany, or for a table of :data:`SQLITE_FTS_TABLES`
    ``INSERT INTO name (quoted) VALUES (…), (…), …`` with up to :data:`SQLITE_ROWS_PER_INSERT` rows a statement.

    An FTS5 index flushes its pending terms at every statement of the transaction that writes it
    (the statement's savepoint): 50,000 people one statement each took 2.9 s, 1.1 s in statements of
    1,000 rows. Elsewhere a multi-row statement gains little and its compiled program (kept in the
    driver's statement cache) costs megabytes. Every row is still inserted, checked and indexed by SQLite."""
    if not values:
        return
    if name.strip('"') not in SQLITE_FTS_TABLES:
        conn.exec_driver_sql(f"INSERT INTO {name} ({quoted}) VALUES ({', '.join('?' * len(values[0]))})",
                             values)  # type: ignore[arg-type]
        return
    width = len(values[0])
    getlimit = getattr(conn.connection.dbapi_connection, "getlimit", None)
    limit = getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) if getlimit is not None else 999
    per = max(1, min(SQLITE_ROWS_PER_INSERT, limit // max(1, width)))
    one = "(" + ", ".join("?" * width) + ")"
    head = f"INSERT INTO {name} ({quoted}) VALUES "
    full = head + ", ".join([one] * per)
    for start in range(0, len(values), per):
        chunk = values[start:start + per]
        statement = full if len(chunk) == per else head + ", ".join([one] * len(chunk))
        conn.exec_driver_sql(statement, tuple(v for row in chunk for v in row))


def bulk_insert(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert many complete rows (explicit primary keys) with one driver-level executemany, and audit them.

    The rows skip SQLAlchemy's per-row statement machinery (its parameter building costs more than
    SQLite's own insert) but not the audit: on SQLite the audit rows are built here from the very
    values inserted — the same ``insert`` diff as the flush writes — and appended to the chain in bulk
    (:func:`_append`, under the write lock the transaction holds); on PostgreSQL COPY fires the
    audit triggers for every row like any INSERT does. Every row must have the same keys."""
    if not rows:
        return
    if table.name in UNAUDITED_TABLES:
        raise ValueError(f"bulk_insert is for audited business tables, not {table.name}")
    from motodesk.models.guarded import check_core_write

    check_core_write(session, table.name, rows[0], inserting=True)  # the guard of legal state (issue #24)
    conn = session.connection()
    dialect = conn.dialect
    pk = [c.name for c in table.primary_key.columns]
    if len(pk) == 1 and pk[0] not in rows[0] and _single_integer_key(table):
        rows = [{**row, pk[0]: new_id} for row, new_id in zip(rows, reserve_ids(session, table, len(rows)),
                                                              strict=True)]
    complete, columns, values, quoted, name = _insert_values(conn, table, rows)
    if dialect.name == "postgresql":
        statement = f"COPY {name} ({quoted}) FROM STDIN"
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            with cursor.copy(statement) as copy:
                for record in values:
                    copy.write_row(record)
        except dialect.loaded_dbapi.Error as exc:  # as SQLAlchemy raises it: the services map constraints
            raise DBAPIError.instance(statement, None, exc, dialect.loaded_dbapi.Error,
                                      dialect=dialect) from exc
        finally:
            cursor.close()
    else:
        _sqlite_insert_many(conn, name, quoted, values)
    if not _writes_in_python(session, conn):
        return  # PostgreSQL: the triggers audited every row
    redact = bool(session.info.get(REDACT_VALUES))
    _append(conn, [_audit_row(session, table.name, _key_of(table, row), "insert", _insert_diff(row, redact))
                   for row in complete])


# --- the database side: triggers and guards (motodesk.models.audit_pg) ---------------------------

# Imported last: it reads this module's names when it runs.
from motodesk.models.audit_pg import install_guards as install_guards  # noqa: E402
from motodesk.models.audit_pg import remove_guards as remove_guards  # noqa: E402
from motodesk.models.audit_pg import without_triggers as without_triggers  # noqa: E402

# --- bulk inserts prepared before the write lock (issue 28) ------------------------------------------


@dataclass
class PreparedInsert:
    """A :func:`bulk_insert` built ahead: the driver's statement and value tuples, and (SQLite) each
    row's audit key and ``changes`` JSON, so that inside the write transaction only the insert and the
    chain's hashes run (:func:`run_prepared`). Built from the same values, with the same diff and mask,
    as :func:`bulk_insert` builds them; ``redact`` is the session's :data:`REDACT_VALUES` it was built for."""

    table: Table
    columns: list[str]
    statement: str
    values: list[tuple[Any, ...]]
    audit: list[tuple[str, str]] | None
    redact: bool
    #: SQLite: the audit rows' hashes computed ahead (:func:`chain_prepared`): (first id, the hash
    #: before it, instant, user, the rows' digests end to end). Used only if the chain's tip is still
    #: that id and hash.
    chained: tuple[int, str, datetime, str, bytes] | None = None


def prepare_bulk_insert(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> PreparedInsert:
    """What :func:`bulk_insert` would execute for ``rows`` (explicit primary keys required)."""
    if table.name in UNAUDITED_TABLES:
        raise ValueError(f"bulk_insert is for audited business tables, not {table.name}")
    conn = session.connection()
    dialect = conn.dialect
    pk = [c.name for c in table.primary_key.columns]
    if any(n not in rows[0] for n in pk):
        raise ValueError("a prepared insert carries its primary keys (reserve_ids)")
    complete, columns, values, quoted, name = _insert_values(conn, table, rows)
    redact = bool(session.info.get(REDACT_VALUES))
    if dialect.name == "postgresql":
        return PreparedInsert(table, columns, f"COPY {name} ({quoted}) FROM STDIN", values, None, redact)
    audit = []
    for row in complete:
        key = _key_of(table, row)
        diff = _insert_diff(row, redact)
        audit.append((key, _to_json(_mask(table.name, key, diff))))
    marks = ", ".join("?" for _ in columns)
    return PreparedInsert(table, columns, f"INSERT INTO {name} ({quoted}) VALUES ({marks})", values, audit, redact)


def run_prepared(session: Session, prepared: Sequence[PreparedInsert]) -> None:
    """Execute prepared inserts in the session's (write) transaction: the guard of legal state first, then
    each insert and, on SQLite, its audit rows sealed into the chain (on PostgreSQL the triggers audit)."""
    from motodesk.models.guarded import check_core_write

    redact = bool(session.info.get(REDACT_VALUES))
    for p in prepared:
        if p.redact != redact:
            raise ValueError("prepared for another audit mode")
        check_core_write(session, p.table.name, p.columns, inserting=True)  # the guard of legal state (issue #24)
    conn = session.connection()
    dialect = conn.dialect
    for p in prepared:
        if not p.values:
            continue
        if dialect.name == "postgresql":
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                with cursor.copy(p.statement) as copy:
                    for record in p.values:
                        copy.write_row(record)
            except dialect.loaded_dbapi.Error as exc:
                raise DBAPIError.instance(p.statement, None, exc, dialect.loaded_dbapi.Error,
                                          dialect=dialect) from exc
            finally:
                cursor.close()
            continue
        _sqlite_insert_many(conn, dialect.identifier_preparer.format_table(p.table),
                            ", ".join(dialect.identifier_preparer.quote(n) for n in p.columns), p.values)
        assert p.audit is not None
        _append_prepared(conn, str(session.info.get("user_login", SYSTEM_USER)), p.table.name, p.audit, p.chained)


def _insert_hashes(next_id: int, prev: str, at_text: str, user: str, table_name: str,
                   items: Sequence[tuple[str, str]]) -> bytes:
    """The chain hashes of insert audit rows ``items`` (row key, changes JSON) from id ``next_id`` on, as
    their 32-byte digests end to end (one object: 300,000 hex strings held until the write cost the
    50,000-line import 16 MB of its memory)."""
    sha = hashlib.sha256
    digests = bytearray()
    for key, changes in items:
        digest = sha(_canonical_text(next_id, at_text, user, table_name, key, "insert", changes, prev)).digest()
        digests += digest
        prev = digest.hex()
        next_id += 1
    return bytes(digests)


def chain_prepared(prepared: Sequence[PreparedInsert], tip: tuple[int, str], user: str, at: datetime
                   ) -> tuple[int, str]:
    """SQLite, before the write lock: hash the audit rows of ``prepared`` as if the chain's tip were
    ``tip`` (the next id and hash) and the rows were written by ``user`` at ``at``; the tip after them.
    :func:`run_prepared` keeps these hashes only when the chain's tip is still ``tip`` under the lock
    (else it hashes the rows again there), so the chain never holds a hash of another place in it."""
    next_id, prev = tip
    at_text = format_at(at)
    for p in prepared:
        if not p.values or p.audit is None:
            continue
        digests = _insert_hashes(next_id, prev, at_text, user, p.table.name, p.audit)
        p.chained = (next_id, prev, at, user, digests)
        next_id, prev = next_id + len(p.audit), (digests[-32:].hex() if digests else prev)
    return next_id, prev


def _append_prepared(conn: Connection, user: str, table_name: str, items: Sequence[tuple[str, str]],
                     chained: tuple[int, str, datetime, str, bytes] | None = None) -> None:
    """:func:`_append` for prepared ``(row key, changes JSON)`` insert rows: one instant, one driver call;
    with the hashes computed ahead when they were computed for this very place in the chain."""
    next_id, prev = chain_tip(conn)
    if chained is not None and chained[:2] == (next_id, prev) and chained[3] == user and len(chained[4]) == 32 * len(items):
        at, digests = chained[2], chained[4]
    else:
        at = utcnow()
        digests = _insert_hashes(next_id, prev, format_at(at), user, table_name, items)
    _sqlite_insert_many(conn, "audit_events", ", ".join(AUDIT_COLUMNS),
                        audit_records(conn, next_id, prev, at, user, table_name, items, digests))


#: The columns of an audit row, in the order :func:`audit_records` gives them.
AUDIT_COLUMNS = ("id", "at", "user_login", "table_name", "row_key", "action", "changes", "prev_hash", "row_hash")


def audit_records(conn: Connection, next_id: int, prev: str, at: datetime, user: str, table_name: str,
                  items: Sequence[tuple[str, str]], digests: bytes) -> list[tuple[Any, ...]]:
    """The driver's value tuples (:data:`AUDIT_COLUMNS`) of insert audit rows ``items`` chained from id
    ``next_id`` after ``prev``, with their ``digests`` (:func:`_insert_hashes`).

    The table's name is passed as a plain str: SQLAlchemy's quoted_name made the driver ask each
    parameter for __conform__ (its __getattr__ cost 0.15 s per 60,000 audit rows, under the lock)."""
    at_process = _AUDIT.c.at.type._cached_bind_processor(conn.dialect)
    at_db = at_process(at) if at_process is not None else at
    table_name = str(table_name)
    records = []
    for i, (key, changes) in enumerate(items):
        row_hash = digests[32 * i:32 * i + 32].hex()
        records.append((next_id + i, at_db, user, table_name, key, "insert", changes, prev, row_hash))
        prev = row_hash
    return records
