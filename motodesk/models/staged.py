"""SQLite: prepared bulk inserts staged in the write connection's TEMP schema before the write lock
(issue 28).

A 50,000-line import held SQLite's write lock for its whole executemany work: the driver binding
~600,000 rows of parameters one statement at a time, inside ``BEGIN IMMEDIATE``. The same rows copied
by SQLite alone (``INSERT INTO t SELECT … FROM other.t``, every index, constraint and trigger) take
less than half of that (``bench/bench_import.py`` prints this floor). So the rows are written first,
on the same connection and before its transaction begins (:func:`motodesk.models.db._sqlite_begin`),
into unindexed tables of that connection's TEMP schema: writing TEMP takes no lock on the database
and no other connection sees it. Inside the write transaction each table is then filled by one
``INSERT … SELECT`` from its staged rows, in the order of the foreign keys, and the audit rows with
the chain's hashes computed ahead (:func:`motodesk.models.audit.chain_prepared`) likewise, but only
when the chain's tip is still the one they were hashed from: otherwise :meth:`StagedInserts.run`
says so and the caller writes the prepared inserts the ordinary way (:func:`run_prepared`), which
hashes again. Either way the staged tables are dropped before the transaction ends, and before any
new staging (a failed import leaves none behind on the pooled connection).

Everything that judges the rows is unchanged: the guard of legal state is asked for every table and
column list staged (:func:`motodesk.models.guarded.check_core_write`), the same as
:func:`run_prepared` asks, and SQLite checks every constraint as the rows arrive in ``main``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from motodesk.models.audit import AUDIT_COLUMNS, SYSTEM_USER, PreparedInsert, audit_records, chain_tip
from motodesk.models.base import Base

_PREFIX = "motodesk_stage_"


class StagedInserts:
    """The prepared inserts of ``parts`` (a callable giving them again, part by part), staged by :meth:`stage`
    before ``BEGIN IMMEDIATE`` and written by :meth:`run` inside the transaction."""

    def __init__(self, parts: Callable[[], Iterable[Sequence[PreparedInsert]]], user: str) -> None:
        self.parts = parts
        self.user = user
        self.tables: list[tuple[str, tuple[str, ...], str]] = []  # (table, columns, staged table), first seen first
        self.tip: tuple[int, str] | None = None  # the chain's tip the staged audit rows continue
        self.staged = False
        self.staged_at: float | None = None  # when staging ended: the write lock is taken right after

    def stage(self, conn: Connection) -> None:
        """Write every prepared row into TEMP tables (no transaction open yet: only TEMP is written)."""
        self.drop(conn)
        self.tables, self.tip, self.staged = [], None, False
        index: dict[tuple[str, tuple[str, ...]], str] = {}
        audit_made = False
        expected_id: int | None = None
        for part in self.parts():
            for p in part:
                if not p.values:
                    continue
                if p.audit is None or p.chained is None or p.chained[3] != self.user:
                    self.drop(conn)  # not hashed ahead (or for another user): the ordinary way
                    return
                key = (p.table.name, tuple(p.columns))
                name = index.get(key)
                if name is None:
                    name = index[key] = f"{_PREFIX}{len(index)}"
                    self.tables.append((p.table.name, key[1], name))
                    quote = conn.dialect.identifier_preparer.quote
                    conn.exec_driver_sql(f"CREATE TEMP TABLE {name} ({', '.join(quote(c) for c in key[1])})")
                width = len(p.columns)
                conn.exec_driver_sql(f"INSERT INTO temp.{name} VALUES ({', '.join('?' * width)})",
                                     p.values)  # type: ignore[arg-type]
                first_id, prev, at, _user, digests = p.chained
                if expected_id is None:
                    self.tip = (first_id, prev)
                elif first_id != expected_id:
                    self.drop(conn)
                    return
                expected_id = first_id + len(p.audit)
                if not audit_made:
                    conn.exec_driver_sql(f"CREATE TEMP TABLE {_PREFIX}audit ({', '.join(AUDIT_COLUMNS)})")
                    audit_made = True
                conn.exec_driver_sql(f"INSERT INTO temp.{_PREFIX}audit VALUES ({', '.join('?' * len(AUDIT_COLUMNS))})",
                                     audit_records(conn, first_id, prev, at, self.user, p.table.name, p.audit,
                                                   digests))  # type: ignore[arg-type]
        self.staged = bool(self.tables)
        self.staged_at = time.perf_counter()

    def run(self, session: Session) -> bool:
        """Inside the write transaction: write the staged rows, or False (nothing written) when they were not
        staged or the chain's tip moved since they were hashed."""
        from motodesk.models.guarded import check_core_write

        conn = session.connection()
        user = str(session.info.get("user_login", SYSTEM_USER))
        if not self.staged or user != self.user or chain_tip(conn) != self.tip:
            return False
        for table, columns, _name in self.tables:
            check_core_write(session, table, columns, inserting=True)  # the guard of legal state (issue #24)
        # In the order of the foreign keys (a decree new only in a later part before the permits naming it),
        # each table's rows in the order they were prepared.
        order = {t.name: i for i, t in enumerate(Base.metadata.sorted_tables)}
        quote = conn.dialect.identifier_preparer.quote
        for table, columns, name in sorted(self.tables, key=lambda staged: order.get(staged[0], len(order))):
            listed = ", ".join(quote(c) for c in columns)
            conn.exec_driver_sql(f"INSERT INTO main.{quote(table)} ({listed}) SELECT {listed} FROM temp.{name} "
                                 "ORDER BY rowid")
        listed = ", ".join(AUDIT_COLUMNS)
        conn.exec_driver_sql(f"INSERT INTO main.audit_events ({listed}) SELECT {listed} FROM temp.{_PREFIX}audit "
                             "ORDER BY id")
        return True

    def drop(self, conn: Connection) -> None:
        """Drop every staged table of this connection (TEMP only)."""
        names = [row[0] for row in conn.exec_driver_sql(
            "SELECT name FROM temp.sqlite_master WHERE type = 'table' AND name LIKE ?", (_PREFIX + "%",))]
        for name in names:
            conn.exec_driver_sql(f"DROP TABLE temp.{name}")
        self.staged = False

