"""Administração > Cópias: the audit-trail check shows what `audit-verify` finds, checkpoints included
(issue 25, item 3): rows deleted after a checkpoint sealed them, and a tampered checkpoint."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models import AuditEvent
from motodesk.rules.common import Role
from motodesk.services import audit, auth, people, users
from motodesk.services.context import AppContext
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.screens import admin as admin_screen

pytestmark = pytest.mark.qt_log_ignore("Keyboard event not accepted")


@pytest.fixture
def admin_ctx(ctx: AppContext) -> AppContext:
    create_application()
    row = users.create_user(ctx, "rita", "Rita Nogueira", Role.ADMIN, "senha-forte-1")
    return ctx.as_user(auth.CurrentUser(id=row.id, login=row.login, full_name=row.full_name, role=row.role))


def _tamper(ctx: AppContext, statement: str) -> None:
    db = ctx.db
    with db.engine.begin() as conn:
        if db.is_sqlite:
            for table in ("audit_events", "audit_checkpoints"):
                for verb in ("update", "delete"):
                    conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
        else:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        conn.exec_driver_sql(statement)


def _check(qtbot, admin_ctx: AppContext, wait_ops) -> str:  # noqa: ANN001
    window = build_main_window(admin_ctx)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    page = window.show_section("admin")
    assert isinstance(page, admin_screen.AdminPage)
    wait_ops()
    page.tabs.setCurrentWidget(page.backups)
    page.backups.verify_button.click()
    qtbot.waitUntil(lambda: "Trilha de auditoria" in page.backups.message.text(), timeout=30_000)
    return page.backups.message.text()


@pytest.mark.parametrize("tampering", ["none", "rows", "checkpoint"])
def test_the_audit_check_shows_the_checkpoint_findings(qtbot, admin_ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                       wait_ops, tampering: str) -> None:  # noqa: ANN001
    for i in range(3):
        people.save_person(clerk, people.PersonInput(full_name=f"Pessoa Tela {i}", cpf=valid_cpf(),
                                                         birth_date=date(1982, 4, 1 + i)))
    sealed = audit.write_checkpoint(admin_ctx, "daily")
    with admin_ctx.read() as s:
        ids = list(s.scalars(select(AuditEvent.id).order_by(AuditEvent.id)))
    assert ids[-1] == sealed.last_id
    if tampering == "rows":
        _tamper(admin_ctx, f"DELETE FROM audit_events WHERE id > {ids[-3]}")
    elif tampering == "checkpoint":
        _tamper(admin_ctx, "UPDATE audit_checkpoints SET body = replace(body, '\"rows\":', '\"rows\":1')")
    shown = _check(qtbot, admin_ctx, wait_ops)
    expected = audit.verify_audit_trail(admin_ctx).message
    assert shown == expected
    if tampering == "none":
        assert "íntegra" in shown and "confere" in shown
    elif tampering == "rows":
        assert f"Faltam 2 registro(s) no fim da trilha: depois do registro nº {ids[-3]} até o nº " \
               f"{sealed.last_id}" in shown
    else:
        assert "O ponto de controle nº 1 da trilha foi adulterado: a assinatura não confere" in shown
