"""PostgreSQL's staged audit (issue 28, revision 0023): statements stage their audit rows without a lock,
one deferred trigger seals them into the chain at commit (motodesk.models.audit_pg)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import Connection, text

from motodesk.models.audit import APPEND_ONLY_TABLES, verify_chain
from motodesk.models.audit_pg import STAGING_TABLES, audit_trigger_statements
from motodesk.models.roles import table_privileges
from motodesk.rules.common import Role
from motodesk.services.context import AppContext

PEOPLE = ("INSERT INTO people (full_name, name_search, cpf, version, created_at, updated_at) VALUES "
          "(:n1, :s1, :c1, 1, now(), now()), (:n2, :s2, :c2, 1, now(), now()), "
          "(:n3, :s3, :c3, 1, now(), now()) RETURNING id")


def _people(prefix: str, first_cpf: int) -> dict[str, str]:
    return {**{f"n{i}": f"{prefix} Pessoa {i}" for i in (1, 2, 3)}, **{f"s{i}": f"{prefix} pessoa {i}".lower() for i in (1, 2, 3)},
            **{f"c{i}": f"{first_cpf + i:011d}" for i in (1, 2, 3)}}


def _trail(conn: Connection, after: int = 0) -> list[Any]:
    return list(conn.execute(text("SELECT id, user_login, table_name, row_key, action, changes FROM audit_events "
                                  "WHERE id > :a ORDER BY id"), {"a": after}))


def _last_id(conn: Connection) -> int:
    return int(conn.execute(text("SELECT coalesce(max(id), 0) FROM audit_events")).scalar_one())


def _staging_empty(conn: Connection) -> bool:
    return conn.execute(text("SELECT (SELECT count(*) FROM audit_staging) + (SELECT count(*) FROM audit_seal_marks)"
                             )).scalar_one() == 0


def test_a_multi_row_plain_sql_insert_gets_an_audit_row_each_sealed_into_the_chain(pg_ctx: AppContext) -> None:
    engine = pg_ctx.db.engine
    with engine.connect() as conn:
        before = _last_id(conn)
    with engine.begin() as conn:
        conn.execute(text("SELECT set_config('motodesk.user', 'script-da-ti', true)"))
        ids = list(conn.execute(text(PEOPLE), _people("Lote", 52000000000)).scalars())
        # Staged, not yet in the trail: nothing is chained (nor locked) before the commit.
        assert _last_id(conn) == before
        assert conn.execute(text("SELECT count(*) FROM audit_staging")).scalar_one() == 3
    with engine.connect() as conn:
        trail = _trail(conn, before)
        assert [(r.user_login, r.table_name, r.row_key, r.action) for r in trail] == [
            ("script-da-ti", "people", str(i), "insert") for i in ids]
        assert verify_chain(conn).broken is None
        assert _staging_empty(conn)


def test_two_concurrent_writers_both_commit_without_a_deadlock_and_the_chain_verifies(pg_ctx: AppContext) -> None:
    """T1 stages rows, T2 locks a row T1 then waits for and stages rows of its own: had a statement taken the
    chain's lock (the statement-level trigger that was not merged), T2 would wait on T1's lock while T1 waits
    on T2's row: a deadlock. The lock is taken at commit only, so T2 commits and then T1 does."""
    engine = pg_ctx.db.engine
    with engine.connect() as conn:
        before = _last_id(conn)
    with engine.begin() as conn:
        shared = conn.execute(text("INSERT INTO people (full_name, name_search, cpf, version, created_at, "
                                   "updated_at) VALUES ('Comum', 'comum', '00000000191', 1, now(), now()) "
                                   "RETURNING id")).scalar_one()
    t1_staged, t2_staged = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def t1() -> None:
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql("SET LOCAL lock_timeout = '30s'")
                conn.execute(text(PEOPLE), _people("Estação Um", 53000000000))
                t1_staged.set()
                assert t2_staged.wait(30)
                conn.execute(text("UPDATE people SET phone = '(34) 3831-0001' WHERE id = :i"), {"i": shared})
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            t1_staged.set()

    def t2() -> None:
        try:
            assert t1_staged.wait(30)
            with engine.begin() as conn:
                conn.exec_driver_sql("SET LOCAL lock_timeout = '30s'")
                conn.execute(text("UPDATE people SET phone = '(34) 3831-0002' WHERE id = :i"), {"i": shared})
                conn.execute(text(PEOPLE), _people("Estação Dois", 54000000000))
                t2_staged.set()
                threading.Event().wait(0.5)  # T1 is now waiting for this row
        except BaseException as exc:
            errors.append(exc)
            t2_staged.set()

    threads = [threading.Thread(target=t1), threading.Thread(target=t2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    with engine.connect() as conn:
        trail = _trail(conn, before)
        assert sorted((r.action, r.table_name) for r in trail) == [("insert", "people")] * 7 + [("update", "people")] * 2
        assert [r.changes for r in trail if r.action == "update"][-1] == (
            '{"phone": ["(34) 3831-0002", "(34) 3831-0001"]}')  # T1's update, after T2's: sealed last
        assert verify_chain(conn).broken is None
        assert _staging_empty(conn)


def test_the_audit_rows_of_a_rolled_back_transaction_or_savepoint_vanish(pg_ctx: AppContext) -> None:
    engine = pg_ctx.db.engine
    with engine.connect() as conn:
        before = _last_id(conn)
        conn.commit()
        with conn.begin():
            conn.execute(text(PEOPLE), _people("Desfeita", 55000000000))
            conn.rollback()
        with conn.begin():
            kept = list(conn.execute(text(PEOPLE), _people("Mantida", 56000000000)).scalars())
            savepoint = conn.begin_nested()
            conn.execute(text(PEOPLE), _people("Desfeita Depois", 57000000000))
            savepoint.rollback()
        trail = _trail(conn, before)
        assert [(r.row_key, r.action) for r in trail] == [(str(i), "insert") for i in kept]
        assert verify_chain(conn).broken is None
        assert _staging_empty(conn)


PROBE = ("CREATE TABLE audit_probe (id integer PRIMARY KEY, label text, note varchar(40), flag boolean, born date, "
         "seen_at timestamp, amount numeric(10, 2), ratio double precision, photo bytea, password_hash varchar(100), "
         "version integer, created_at timestamp)")
PROBE_ROWS = ("INSERT INTO audit_probe VALUES ({a}, 'Ação \"citada\" \\ barra', NULL, true, '1990-01-02', "
              "'2026-01-10 12:00:00.25', 12.50, 0.1, '\\x000102', 'segredo', 1, now()), "
              "({b}, 'só isto', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL)")
#: The row-level function's text of the first probe row (keys by length, then bytes, as jsonb prints them).
EXPECTED_INSERT = ('{"id": [null, 1], "born": [null, "1990-01-02"], "flag": [null, true], '
                   '"label": [null, "Ação \\"citada\\" \\\\ barra"], "photo": [null, "<3 bytes>"], "ratio": [null, 0.1], '
                   '"amount": [null, "12.50"], "seen_at": [null, "2026-01-10T12:00:00.25+00:00"], '
                   '"password_hash": ["***", "***"]}')


def _probe_round(conn: Connection, a: int, b: int) -> list[tuple[str, str, str]]:
    """Insert, update and delete probe rows ``a`` and ``b``; their audit rows, sealed now."""
    before = _last_id(conn)
    conn.exec_driver_sql(PROBE_ROWS.format(a=a, b=b))
    conn.exec_driver_sql(f"UPDATE audit_probe SET label = 'outro', amount = 13, photo = NULL WHERE id = {a}")
    conn.exec_driver_sql(f"DELETE FROM audit_probe WHERE id = {b}")
    conn.exec_driver_sql("SET CONSTRAINTS ALL IMMEDIATE")  # the deferred triggers fire now (either kind)
    conn.exec_driver_sql("SET CONSTRAINTS ALL DEFERRED")
    rows = [(r.action, r.row_key, r.changes) for r in _trail(conn, before)]
    return [(action, key.replace(str(a), "A").replace(str(b), "B"),
             changes.replace(f"[null, {a}]", "[null, A]").replace(f"[{b}, null]", "[B, null]")
             .replace(f"[null, {b}]", "[null, B]")) for action, key, changes in rows]


def test_a_staged_statement_writes_the_changes_text_the_row_level_trigger_wrote(pg_ctx: AppContext) -> None:
    """Every kind of value (text to escape, boolean, date, timestamp, numeric, float, bytea, a secret column,
    noise columns, NULLs): the staged statements (the table's own and, after a column is added, the generic
    one) and the row-level triggers before revision 0023 write the same text. All rolled back."""
    with pg_ctx.db.engine.connect() as conn, conn.begin():
        conn.exec_driver_sql(PROBE)
        for statement in audit_trigger_statements(conn, "audit_probe", staged=True):
            conn.exec_driver_sql(statement)
        staged = _probe_round(conn, 1, 2)
        assert staged[0] == ("insert", "A", EXPECTED_INSERT.replace("[null, 1]", "[null, A]"))
        assert [(action, key) for action, key, _ in staged] == [("insert", "A"), ("insert", "B"), ("update", "A"),
                                                                ("delete", "B")]
        assert staged[1][2] == '{"id": [null, B], "label": [null, "só isto"]}'
        for statement in audit_trigger_statements(conn, "audit_probe", staged=False):
            conn.exec_driver_sql(statement)
        assert _probe_round(conn, 11, 12) == staged
        # A column added since the triggers were written: the generic statement, the same text.
        for statement in audit_trigger_statements(conn, "audit_probe", staged=True):
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql("ALTER TABLE audit_probe ADD COLUMN extra integer")
        assert _probe_round(conn, 21, 22) == staged
        # Redacted (LGPD anonymisation): the keys only, on both statements.
        conn.exec_driver_sql("SELECT set_config('motodesk.redact', 'on', true)")
        redacted = _probe_round(conn, 31, 32)
        for statement in audit_trigger_statements(conn, "audit_probe", staged=True):
            conn.exec_driver_sql(statement)
        assert _probe_round(conn, 41, 42) == redacted
        assert redacted[1][2] == '{"id": ["***", "***"], "label": ["***", "***"]}'
        assert verify_chain(conn).broken is None
        conn.rollback()


def test_a_direct_insert_into_the_trail_is_chained_whatever_hashes_it_brings(pg_ctx: AppContext) -> None:
    """Only the seal's own insert (from inside its trigger) keeps the hashes it computed; the owner's plain
    INSERT, with hashes or a setting of its choosing, is sealed by the chain trigger."""
    with pg_ctx.db.engine.begin() as conn:
        conn.execute(text("SELECT set_config('motodesk.sealing', 'on', true)"))
        conn.execute(text("INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes, "
                          "prev_hash, row_hash) VALUES (now(), 'x', 'people', '1', 'insert', '{}', 'forjado', "
                          "'forjado')"))
    with pg_ctx.db.engine.connect() as conn:
        last = conn.execute(text("SELECT prev_hash, row_hash FROM audit_events ORDER BY id DESC LIMIT 1")).one()
        assert "forjado" not in tuple(last)
        assert verify_chain(conn).broken is None


@pytest.mark.parametrize("profile", list(Role))
def test_no_profile_may_touch_the_staging_tables(profile: Role) -> None:
    assert {table_privileges(profile, table, APPEND_ONLY_TABLES) for table in STAGING_TABLES} == {""}
