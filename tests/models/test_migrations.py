"""Migrations: empty → head → base on both databases, no drift, and the version guards."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text
from tests_helpers import check_wording  # type: ignore[import-not-found]

from motodesk.models import Base
from motodesk.models.db import Database, DatabaseOutdatedError, DatabaseTooNewError


def test_upgrade_to_head_and_down_again(fresh_db: Database) -> None:
    db = fresh_db
    assert db.check_version() == "empty"
    assert db.prepare(allow_upgrade_shared=True) == "created"
    tables = set(inspect(db.engine).get_table_names())
    assert set(Base.metadata.tables) <= tables
    assert db.check_version() == "current"
    command.check(db.alembic_config())  # raises when the models drift from the migrations
    db.downgrade("base")
    assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}


def test_newer_database_is_refused(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'n.sqlite3'}")
    db.prepare()
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    with pytest.raises(DatabaseTooNewError) as refused:
        db.prepare()
    check_wording("database", str(refused.value))


def test_older_sqlite_is_backed_up_before_upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.sqlite3"
    db = Database.open(f"sqlite:///{path}")
    db.prepare()
    with db.engine.begin() as conn:
        conn.execute(text("CREATE TABLE marker (v TEXT)"))
        conn.execute(text("INSERT INTO marker VALUES ('dados de antes')"))
    seen: list[list[Path]] = []
    monkeypatch.setattr(Database, "check_version", lambda self: "outdated")
    monkeypatch.setattr(Database, "upgrade", lambda self, rev="head": seen.append(
        sorted(tmp_path.glob("old.antes-atualizacao-*.sqlite3"))))
    assert db.prepare() == "upgraded"
    assert len(seen) == 1 and len(seen[0]) == 1, "the copy must exist before the upgrade runs"
    copy = sqlite3.connect(seen[0][0])
    assert copy.execute("SELECT v FROM marker").fetchone() == ("dados de antes",)
    copy.close()


def test_outdated_shared_postgresql_asks_for_db_upgrade(request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("pg_migrated")
    db = Database.open(url)
    try:
        with db.engine.begin() as conn:
            conn.execute(text("DELETE FROM alembic_version"))
        with pytest.raises(DatabaseOutdatedError) as refused:
            db.prepare()
        check_wording("database", str(refused.value))
    finally:
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO alembic_version VALUES (:v)"), {"v": db.head_revision()})
        db.dispose()


# --- upgrading a database of the last landed revision, with its data -----------------------------

LANDED = "0015"  # f27d021, the last landed revision every installation may have; whatever came after must upgrade it
LANDED_LAST = "0023"  # 772287f, stop 36: the revision the last landed version made
EARLIER = ("0002", "0009")  # installations of earlier waves upgrade too

_OLD_ROWS = [
    "INSERT INTO people (id, full_name, name_search, cpf, phone, version, created_at, updated_at) VALUES "
    "(1, 'Maria das Dores Araújo', 'maria das dores araujo', '52998224725', '(34) 3831-0000', 1, "
    "'2026-01-10 12:00:00', '2026-01-10 12:00:00')",
    "INSERT INTO vehicles (id, plate, holder_id, active, version, created_at, updated_at) VALUES "
    "(1, 'ABC1D23', 1, TRUE, 1, '2026-01-10 12:00:00', '2026-01-10 12:00:00')",
    "INSERT INTO applications (id, person_id, service_type, state, opened_on, opened_by, version, created_at, "
    "updated_at) VALUES (1, 1, 'mototaxi', 'active', '2026-01-10', 'joana', 1, '2026-01-10 12:00:00', "
    "'2026-01-10 12:00:00')",
    "INSERT INTO permits (id, number, service_type, year, seq, person_id, application_id, vehicle_id, state, "
    "issued_on, "
    "term_end, extended, certificate_valid_until, badge_issue_no, version, created_at, updated_at) VALUES "
    "(1, 'MT-0001/2026', 'mototaxi', 2026, 1, 1, 1, 1, 'active', '2026-01-20', '2031-01-20', FALSE, '2027-01-20', "
    "1, 1, '2026-01-20 12:00:00', '2026-01-20 12:00:00')",
    "INSERT INTO audit_events (id, at, user_login, table_name, row_key, action, changes) VALUES "
    "(1, '2026-01-10 12:00:00.250000', 'joana', 'people', '1', 'insert', "
    "'{\"full_name\": [null, \"Maria das Dores Araújo\"]}'), "
    "(2, '2026-01-20 12:00:00', 'carlos', 'permits', '1', 'insert', '{\"number\": [null, \"MT-0001/2026\"]}')",
]


@pytest.mark.parametrize("landed", [LANDED, LANDED_LAST, *EARLIER])
def test_a_database_of_the_last_landed_revision_upgrades_with_its_data(
        fresh_db: Database, landed: str) -> None:
    from motodesk.models.audit import verify_chain
    from motodesk.models.db import shipped_head
    from motodesk.rules.common import PermitState, Role
    from motodesk.services import audit, people, permits
    from motodesk.services.context import AppContext, CurrentUser

    db = fresh_db
    db.upgrade(EARLIER[0])  # the rows as the first wave wrote them; 0003–0009 sealed and extended them
    with db.engine.begin() as conn:
        for statement in _OLD_ROWS:
            conn.exec_driver_sql(statement)
    db.upgrade(landed)
    assert db.current_revision() == landed
    if landed != shipped_head():
        assert db.check_version() == "outdated"
        assert db.prepare(allow_upgrade_shared=True) == "upgraded"

    assert db.current_revision() == shipped_head()  # whatever the head is after the integrator's chain
    ctx = AppContext(db, CurrentUser(None, "admin", "Administração", Role.ADMIN))
    person = people.get_person(ctx, 1)
    assert (person.full_name, person.cpf, person.phone) == ("Maria das Dores Araújo", "52998224725",
                                                            "(34) 3831-0000")
    rows = permits.list_permits(ctx)
    assert [(r.kind, r.number, r.holder, r.plate, r.state) for r in rows] == [
        ("permit", "MT-0001/2026", "Maria das Dores Araújo", "ABC1D23", PermitState.ACTIVE)]
    with db.engine.connect() as conn:
        old = conn.execute(text("SELECT id, user_login, changes FROM audit_events ORDER BY id")).all()
        assert [tuple(r) for r in old] == [(1, "joana", '{"full_name": [null, "Maria das Dores Araújo"]}'),
                                           (2, "carlos", '{"number": [null, "MT-0001/2026"]}')]
        assert verify_chain(conn).broken is None  # the old rows were sealed into the chain
    # The upgraded database works: a change is audited after the old rows, and the chain holds.
    clerk = AppContext(db, CurrentUser(None, "joana", "Joana", Role.CLERK))
    people.save_person(clerk, people.PersonInput(full_name=person.full_name, cpf=person.cpf,
                                               phone="(34) 3831-9999", birth_date=person.birth_date),
                       person_id=1, expected_version=person.version)
    verification = audit.verify_audit_trail(ctx)
    assert verification.intact and verification.rows == 3
    command.check(db.alembic_config())


def test_upgrading_a_0009_sqlite_database_with_people_fills_the_trigram_table(tmp_path: Path) -> None:
    """Revision 0012 (issue 20): the names already in the register are indexed by the upgrade."""
    from motodesk.services import search
    from motodesk.services.context import AppContext

    db = Database.open(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    try:
        db.upgrade("0009")
        with db.engine.begin() as conn:
            for i, name in enumerate(("Maria das Dores Araújo", "Josué Araujo Lima", "Ana Zabulon"), start=1):
                conn.execute(text("INSERT INTO people (id, full_name, name_search, cpf, version, created_at, updated_at) "
                                  "VALUES (:id, :n, :s, :c, 1, '2026-01-10 12:00:00', '2026-01-10 12:00:00')"),
                             {"id": i, "n": name, "s": name.lower().replace("ú", "u").replace("é", "e"),
                              "c": f"0000000000{i}"})
        db.upgrade("0012")
        with db.engine.connect() as conn:
            indexed = conn.exec_driver_sql("SELECT rowid FROM people_fts WHERE people_fts MATCH '\"araujo\"' "
                                           "ORDER BY rowid").scalars().all()
            assert indexed == [1, 2]
            conn.exec_driver_sql("INSERT INTO people_fts(people_fts, rank) VALUES ('integrity-check', 1)")
        db.upgrade()
        assert [h.full_name for h in search.search_people(AppContext(db), "araujo").hits] == [
            "Josué Araujo Lima", "Maria das Dores Araújo"]  # in the middle of both names: in name order
        db.downgrade("0009")
        assert not {"people_fts", "people_fts_data"} & set(inspect(db.engine).get_table_names())
        db.upgrade()
        command.check(db.alembic_config())
    finally:
        db.dispose()
