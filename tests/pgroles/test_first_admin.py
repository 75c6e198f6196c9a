"""The first administrator of a new PostgreSQL installation with per-user roles (issue 25, item 1):
the DBA gives the database owner CREATEROLE once and runs `init-db --per-user-roles`; the first
administrator is then created from a workstation that has only the pre-login role (the set-up
wizard's step, or `create-user` through the workstation's URL), as his own role."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import make_url

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import auth, people, users
from motodesk.services.context import AppContext
from motodesk.services.errors import PermissionDeniedError
from motodesk.services.people import PersonInput
from tests.pgroles.conftest import Cluster
from tests.tests_helpers import raises_code, valid_cpf

OWNER_PASSWORD = "dono-senha-123"
GATE_PASSWORD = "entrada-senha-1"


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MOTODESK_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True,
                          text=True, timeout=240, env=env)


def _psql(url: str, **kwargs: Any) -> psycopg.Connection[Any]:
    return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5, **kwargs)


@pytest.fixture
def fresh(pg_cluster: Cluster, scratch_db: str) -> Iterator[tuple[str, str]]:
    """(database name, the workstations' pre-login URL) of a new installation set up by its owner."""
    name = make_url(scratch_db).database or ""
    owner = f"dono_{name}"
    with _psql(pg_cluster.url(), autocommit=True) as conn:  # the DBA, once
        conn.execute(f"CREATE ROLE {owner} LOGIN CREATEROLE PASSWORD '{OWNER_PASSWORD}'")
        conn.execute(f'ALTER DATABASE "{name}" OWNER TO {owner}')
    gate = f"estacao_{name}"
    out = _cli("init-db", "--per-user-roles", "--login-role", gate, "--database",
               pg_cluster.url(name, user=owner, password=OWNER_PASSWORD), stdin=GATE_PASSWORD + "\n")
    assert out.returncode == 0, out.stderr
    assert "Senhas provisórias" not in out.stdout  # nobody yet
    yield name, pg_cluster.url(name, user=gate, password=GATE_PASSWORD)


def test_the_wizards_step_creates_the_first_administrator_as_his_own_role(fresh: tuple[str, str]) -> None:
    name, gate_url = fresh
    gate_db = Database.open(gate_url)
    gate = AppContext(gate_db)
    opened: list[Database] = []
    try:
        assert gate_db.is_gate and auth.count_users(gate) == 0
        # What the wizard's "first administrator" page calls (motodesk.ui.wizard).
        chefe = auth.create_user(gate, "chefe", "Chefe do Setor", Role.ADMIN, "chefe-senha-123")
        assert chefe.role is Role.ADMIN and chefe.database is not None
        opened.append(chefe.database)
        admin = gate.as_user(chefe)
        with admin.db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT session_user").scalar() == f"md_{name}_u_chefe"
        assert auth.count_users(gate) == 1
        with raises_code(PermissionDeniedError, "user.already_has_users"):
            auth.create_user(gate, "outro", "Outro Chefe", Role.ADMIN, "outro-senha-123")
        # The administrator works as himself: creates a clerk, who works as herself.
        users.create_user(admin, "rosa", "Rosa Lima", Role.CLERK, "senha-da-rosa-1")
        rosa = auth.authenticate(gate, "rosa", "senha-da-rosa-1")
        assert rosa.database is not None
        opened.append(rosa.database)
        people.save_person(gate.as_user(rosa), PersonInput(full_name="Primeira Pessoa Souza", cpf=valid_cpf()))
    finally:
        for db in opened:
            db.dispose()
        gate_db.dispose()
    with _psql(gate_url) as conn:  # the pre-login role can do nothing else with the owner's functions
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT motodesk_create_first_admin('intruso', 'Intruso', 'SCRAM-SHA-256$4096:YQ==$YQ==:YQ==')")
        conn.rollback()
        for statement in ("SELECT motodesk_apply_role('intruso', NULL)", "SELECT motodesk_sync_role('chefe', NULL)",
                          "SELECT * FROM users"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


def test_create_user_through_the_workstations_url_makes_the_first_administrator(pg_cluster: Cluster,
                                                                                fresh: tuple[str, str]) -> None:
    name, gate_url = fresh
    out = _cli("create-user", "chefe", "--role", "admin", "--name", "Chefe do Setor", "--database", gate_url,
               stdin="chefe-senha-123\n")
    assert out.returncode == 0, out.stderr
    assert "Primeiro usuário 'chefe'" in out.stdout
    with _psql(pg_cluster.url(name, user=f"md_{name}_u_chefe", password="chefe-senha-123")) as conn:
        assert conn.execute("SELECT role, must_change_password FROM users WHERE login = 'chefe'").fetchone() == (
            "admin", False)
    again = _cli("create-user", "outro", "--role", "admin", "--database", gate_url, stdin="outro-senha-123\n")
    assert again.returncode == 1 and "--user" in again.stderr, again.stderr  # then an administrator logs in


def test_the_set_up_wizard_creates_the_first_administrator_through_the_pre_login_role(
        qtbot: Any, fresh: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWizard

    import motodesk.ui.wizard as wizard_module
    from motodesk.ui.app import create_application
    from motodesk.ui.guard import Answer
    from motodesk.ui.wizard import FirstRunWizard

    name, gate_url = fresh
    create_application()
    monkeypatch.setattr(wizard_module, "ask_unsaved", lambda *a, **k: Answer.DISCARD)
    gate_db = Database.open(gate_url)
    gate = AppContext(gate_db)
    opened: list[Database] = []
    try:
        assert auth.count_users(gate) == 0  # what open_configured_context asks before the wizard
        wizard = FirstRunWizard(ctx=gate)
        qtbot.addWidget(wizard)
        wizard.show()
        qtbot.waitExposed(wizard)
        assert wizard.currentId() == FirstRunWizard.PAGE_ADMIN and wizard.admin_page.form_widget.isVisible()
        page = wizard.admin_page
        for field in (page.full_name, page.login, page.password, page.repeat):
            field.clear()
        page.full_name.insert("Rita de Cássia Nogueira")
        qtbot.keyClicks(page.login, "rita")
        qtbot.keyClicks(page.password, "senha-do-admin")
        qtbot.keyClicks(page.repeat, "senha-do-admin")
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.FinishButton), Qt.MouseButton.LeftButton)
        assert wizard.result() == QWizard.DialogCode.Accepted, page.message.text()
        assert wizard.admin_login == "rita"
        rita = auth.authenticate(gate, "rita", "senha-do-admin")
        assert rita.role is Role.ADMIN and rita.database is not None
        opened.append(rita.database)
        with rita.database.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT session_user").scalar() == f"md_{name}_u_rita"
    finally:
        for db in opened:
            db.dispose()
        gate_db.dispose()
