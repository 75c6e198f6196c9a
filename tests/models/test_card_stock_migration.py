"""Revision 0010 (card stock) upgrades a 0009 database with its badge prints, on both databases, and the
card tables then work and are audited; down to 0009 and up again leaves the old data alone."""

from __future__ import annotations

from sqlalchemy import inspect, text

from motodesk.models.db import Database

_ROWS_0009 = [
    "INSERT INTO people (id, full_name, name_search, cpf, phone, version, created_at, updated_at) VALUES "
    "(1, 'Maria das Dores Araújo', 'maria das dores araujo', '52998224725', NULL, 1, "
    "'2026-01-10 12:00:00', '2026-01-10 12:00:00')",
    "INSERT INTO applications (id, person_id, service_type, state, opened_on, opened_by, version, created_at, "
    "updated_at) VALUES (1, 1, 'motoboy', 'active', '2026-01-10', 'joana', 1, '2026-01-10 12:00:00', "
    "'2026-01-10 12:00:00')",
    "INSERT INTO permits (id, number, service_type, year, seq, person_id, application_id, state, issued_on, "
    "term_end, extended, certificate_valid_until, badge_issue_no, version, created_at, updated_at) VALUES "
    "(1, 'MB-0001/2026', 'motoboy', 2026, 1, 1, 1, 'active', '2026-01-20', '2031-01-20', FALSE, '2027-01-20', "
    "1, 1, '2026-01-20 12:00:00', '2026-01-20 12:00:00')",
    "INSERT INTO badge_prints (id, permit_id, issue_no, printed_at, printed_by, reason, layout) VALUES "
    "(1, 1, 1, '2026-01-20 13:00:00', 'joana', 'Primeira via', 'card')",
]



def test_a_0009_database_upgrades_and_its_old_prints_have_no_card(fresh_db: Database) -> None:
    db = fresh_db
    db.upgrade("0009")
    with db.engine.begin() as conn:
        for statement in _ROWS_0009:
            conn.exec_driver_sql(statement)
    assert db.prepare(allow_upgrade_shared=True) == "upgraded"
    tables = set(inspect(db.engine).get_table_names())
    assert {"card_batches", "card_uses", "spoiled_cards"} <= tables
    from motodesk.rules.common import Role
    from motodesk.services import badges, card_stock
    from motodesk.services.context import AppContext, CurrentUser

    admin = AppContext(db, CurrentUser(None, "admin", "Administração", Role.ADMIN))
    supervisor = admin.as_user(CurrentUser(None, "chefe", "Chefe", Role.SUPERVISOR))
    log = badges.print_log(admin, 1)
    assert [(r.issue_no, r.printed_by, r.card_serial) for r in log] == [(1, "joana", None)]
    card_stock.record_batch(supervisor, "000001", "000010")
    card_stock.spoil_card(supervisor, "000001", "Cartão danificado")
    with db.engine.connect() as conn:
        audited = conn.execute(text("SELECT table_name, user_login FROM audit_events "
                                    "WHERE table_name IN ('card_batches', 'spoiled_cards') ORDER BY id")).all()
    assert [tuple(r) for r in audited] == [("card_batches", "chefe"), ("spoiled_cards", "chefe")]
    report = card_stock.stock_report(admin, log[0].printed_at.date(), log[0].printed_at.date())
    assert report.printed_without_card == 1  # the old print, made before cards were counted

    db.downgrade("0009")
    assert not {"card_batches", "card_uses", "spoiled_cards"} & set(inspect(db.engine).get_table_names())
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM badge_prints")).scalar() == 1
    db.upgrade()
    assert {"card_batches", "card_uses", "spoiled_cards"} <= set(inspect(db.engine).get_table_names())
