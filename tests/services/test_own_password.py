"""A password an administrator chose is temporary: its owner replaces it before anything else runs
(services and the command line, on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from motodesk.models import AuditEvent, User
from motodesk.rules.common import Role
from motodesk.services import auth, users
from motodesk.services.context import SYSTEM, AppContext
from motodesk.services.errors import AuthenticationError, InvalidInputError, PermissionDeniedError


@pytest.fixture
def admin(ctx: AppContext) -> AppContext:
    users.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-forte-1")
    return ctx.as_user(auth.authenticate(ctx, "chefe", "senha-forte-1"))


def test_a_reset_password_is_temporary_until_its_owner_changes_it(admin: AppContext) -> None:
    users.create_user(admin, "maria", "Maria", Role.CLERK, "primeira-1")
    assert auth.authenticate(admin, "maria", "primeira-1").must_change_password is False
    row = users.reset_password(admin, "maria", "provisoria-1")
    assert row.must_change_password and row.status == "Ativo · senha provisória"
    maria = auth.authenticate(admin, "maria", "provisoria-1")
    assert maria.must_change_password is True
    as_maria = admin.as_user(maria)

    with pytest.raises(InvalidInputError) as same:
        auth.change_own_password(as_maria, "provisoria-1", "provisoria-1")
    assert same.value.fields == {"new": auth.SAME_PASSWORD}
    with pytest.raises(InvalidInputError) as short:
        auth.change_own_password(as_maria, "provisoria-1", "curta")
    assert "pelo menos" in short.value.fields["new"]
    with pytest.raises(InvalidInputError) as wrong:
        auth.change_own_password(as_maria, "errada-123", "minha-senha-1")
    assert wrong.value.fields == {"current": "Senha atual incorreta."}
    assert next(u for u in users.list_users(admin) if u.login == "maria").failed_logins == 1  # counts as a try

    changed = auth.change_own_password(as_maria, "provisoria-1", "minha-senha-1")
    assert changed.login == "maria" and changed.must_change_password is False
    row = next(u for u in users.list_users(admin) if u.login == "maria")
    assert row.status == "Ativo" and row.failed_logins == 0
    with pytest.raises(AuthenticationError):
        auth.authenticate(admin, "maria", "provisoria-1")
    assert auth.authenticate(admin, "maria", "minha-senha-1").must_change_password is False

    with admin.read() as s:
        key = str(s.scalar(select(User.id).where(User.login == "maria")))
        trail = json.dumps([e.changes for e in s.scalars(
            select(AuditEvent).where(AuditEvent.table_name == "users", AuditEvent.row_key == key))],
            default=str)
    assert "must_change_password" in trail  # the reset and the change are in the audit trail
    assert "minha-senha-1" not in trail and "provisoria-1" not in trail and "$argon2" not in trail


def test_a_new_user_may_get_a_temporary_password_and_an_admin_may_set_a_final_one(admin: AppContext) -> None:
    assert users.create_user(admin, "joao", "João", Role.INSPECTOR, "inicial-12", temporary=True).must_change_password
    assert auth.authenticate(admin, "joao", "inicial-12").must_change_password
    assert not users.reset_password(admin, "joao", "definitiva-1", temporary=False).must_change_password
    assert not auth.authenticate(admin, "joao", "definitiva-1").must_change_password


def test_only_a_logged_in_user_changes_a_password_and_only_his_own(admin: AppContext) -> None:
    with pytest.raises(PermissionDeniedError):
        auth.change_own_password(admin.as_user(SYSTEM), "x", "nova-senha-1")
    users.create_user(admin, "ana", "Ana", Role.CLERK, "senha-da-ana")
    ana = admin.as_user(auth.authenticate(admin, "ana", "senha-da-ana"))
    auth.change_own_password(ana, "senha-da-ana", "outra-da-ana")
    assert auth.authenticate(admin, "chefe", "senha-forte-1").login == "chefe"  # nobody else's changed


def test_five_wrong_current_passwords_lock_the_account(admin: AppContext) -> None:
    users.create_user(admin, "rui", "Rui", Role.CLERK, "senha-do-rui")
    rui = admin.as_user(auth.authenticate(admin, "rui", "senha-do-rui"))
    for _ in range(auth.MAX_FAILED_LOGINS):
        with pytest.raises(InvalidInputError):
            auth.change_own_password(rui, "chute-errado", "nova-senha-1")
    with pytest.raises(AuthenticationError, match=auth.WRONG_CREDENTIALS):  # locked: like a wrong password
        auth.change_own_password(rui, "senha-do-rui", "nova-senha-1")


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MOTODESK_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


def test_the_command_line_refuses_a_temporary_password_until_it_is_changed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert _run("init-db", "--database", url).returncode == 0
    assert _run("create-user", "chefe", "--role", "admin", "--database", url, stdin="senha-do-chefe\n").returncode == 0
    out = _run("create-user", "maria", "--role", "clerk", "--temporary", "--database", url, "--user", "chefe",
               stdin="senha-do-chefe\nprovisoria-1\n")
    assert out.returncode == 0 and "senha provisória" in out.stdout, out.stderr
    out = _run("seed-demo", "--people", "0", "--database", url, "--user", "maria", stdin="provisoria-1\n")
    assert out.returncode != 0 and "provisória" in out.stderr and "change-password --user maria" in out.stderr
    assert "Traceback" not in out.stderr
    out = _run("change-password", "--database", url, "--user", "maria", stdin="provisoria-1\nprovisoria-1\n")
    assert out.returncode != 0 and "diferente da senha atual" in out.stderr
    out = _run("change-password", "--database", url, "--user", "maria", stdin="provisoria-1\nda-maria-123\n")
    assert out.returncode == 0 and "Senha de 'maria' trocada" in out.stdout, out.stderr
    out = _run("change-password", "--database", url, "--user", "maria", stdin="provisoria-1\nqualquer-123\n")
    assert out.returncode != 0 and "incorretos" in out.stderr  # the old password is gone
