"""Administração: users and the law's settings, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from sqlalchemy import select
from tests_helpers import raises_code  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, QuotaCounter, Setting, User
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.infractions import Penalty
from motodesk.services import administration, auth, users
from motodesk.services.context import SYSTEM, AppContext
from motodesk.services.errors import (
    AuthenticationError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from motodesk.services.settings import law_settings
from tests.conftest import user_ctx


def _as(ctx: AppContext, login: str) -> AppContext:
    with ctx.read() as s:
        user = s.scalar(select(User).where(User.login == login))
        assert user is not None
        return ctx.as_user(auth._current(user))


@pytest.fixture
def admin(ctx: AppContext) -> AppContext:
    users.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-forte-1")
    return _as(ctx, "chefe")


def _audit(ctx: AppContext, table: str, key: str) -> list[dict[str, list[object]]]:
    with ctx.read() as s:
        rows = s.scalars(select(AuditEvent).where(AuditEvent.table_name == table, AuditEvent.row_key == key)
                         .order_by(AuditEvent.id))
        return [json.loads(r.changes) for r in rows]


def test_create_list_and_login(admin: AppContext) -> None:
    row = users.create_user(admin, " Maria.Silva ", "Maria da Silva", "clerk", "abcdefgh")
    assert (row.login, row.role, row.active, row.locked) == ("maria.silva", Role.CLERK, True, False)
    assert [u.login for u in users.list_users(admin)] == ["chefe", "maria.silva"]
    assert auth.authenticate(admin, "maria.silva", "abcdefgh").role is Role.CLERK
    with pytest.raises(InvalidInputError) as short:
        users.create_user(admin, "joao", "João", Role.CLERK, "curta")
    assert short.value.fields == {"password": "Senha curta demais."}
    with pytest.raises(InvalidInputError) as alike:
        users.create_user(admin, "maria_silva", "Outra Maria", Role.CLERK, "abcdefgh")
    assert "login" in alike.value.fields
    with pytest.raises(InvalidInputError) as nameless:
        users.create_user(admin, "joao", "  ", Role.CLERK, "abcdefgh")
    assert nameless.value.fields == {"full_name": "Informe o nome."}


def test_only_administrators(admin: AppContext) -> None:
    users.create_user(admin, "ana", "Ana", Role.SUPERVISOR, "abcdefgh")
    supervisor = _as(admin, "ana")
    for call in (lambda: users.list_users(supervisor),
                 lambda: users.create_user(supervisor, "x1", "X", Role.ADMIN, "abcdefgh"),
                 lambda: users.set_active(supervisor, "chefe", False),
                 lambda: users.change_role(supervisor, "ana", Role.ADMIN),
                 lambda: users.reset_password(supervisor, "chefe", "abcdefgh"),
                 lambda: users.unlock(supervisor, "chefe"),
                 lambda: administration.settings_form(supervisor),
                 lambda: administration.save_law_settings(supervisor, {"population": 1})):
        with raises_code(PermissionDeniedError, "permission_denied"):
            call()
    assert law_settings(admin).population == 89_826


def test_disable_enable_and_audit(admin: AppContext) -> None:
    users.create_user(admin, "maria", "Maria", Role.CLERK, "abcdefgh")
    row = users.set_active(admin, "maria", False)
    assert row.active is False and row.status == "Desativado"
    with pytest.raises(AuthenticationError):
        auth.authenticate(admin, "maria", "abcdefgh")
    users.set_active(admin, "maria", True)
    assert auth.authenticate(admin, "maria", "abcdefgh").login == "maria"
    with admin.read() as s:
        key = str(s.scalar(select(User.id).where(User.login == "maria")))
    diffs = _audit(admin, "users", key)
    # (PostgreSQL's trigger also lists every column of the insert: only the last two changes matter)
    assert [d["active"] for d in diffs if "active" in d][-2:] == [[True, False], [False, True]]


def test_never_without_an_administrator(admin: AppContext) -> None:
    with raises_code(PermissionDeniedError, "permission_denied"):
        users.set_active(admin, "chefe", False)
    with raises_code(PermissionDeniedError, "permission_denied"):
        users.change_role(admin, "chefe", Role.CLERK)
    users.create_user(admin, "vice", "Vice", Role.ADMIN, "abcdefgh")
    vice = _as(admin, "vice")
    # Another admin may demote the first one while a second admin remains …
    users.change_role(vice, "chefe", Role.SUPERVISOR)
    # … but then "vice" is the last active administrator and nobody can remove him.
    system = admin.as_user(SYSTEM)
    with raises_code(PermissionDeniedError, "permission_denied"):
        users.set_active(system, "vice", False)
    with raises_code(PermissionDeniedError, "permission_denied"):
        users.change_role(system, "vice", Role.CLERK)
    assert users.change_role(vice, "chefe", Role.ADMIN).role is Role.ADMIN
    users.set_active(vice, "chefe", False)
    with raises_code(PermissionDeniedError, "permission_denied"):
        users.set_active(system, "vice", False)
    # Demoting a disabled administrator is fine: he does not count.
    assert users.change_role(vice, "chefe", Role.CLERK).role is Role.CLERK


def test_reset_password_and_unlock(admin: AppContext) -> None:
    users.create_user(admin, "maria", "Maria", Role.CLERK, "abcdefgh")
    for _ in range(auth.MAX_FAILED_LOGINS):
        with pytest.raises(AuthenticationError):
            auth.authenticate(admin, "maria", "errada123")
    row = next(u for u in users.list_users(admin) if u.login == "maria")
    assert row.locked and row.status.startswith("Bloqueado")
    with pytest.raises(InvalidInputError):
        users.reset_password(admin, "maria", "curta")
    users.reset_password(admin, "maria", "nova-senha-1")
    with pytest.raises(AuthenticationError, match=auth.WRONG_CREDENTIALS):  # a reset is not a silent unlock
        auth.authenticate(admin, "maria", "nova-senha-1")
    assert users.unlock(admin, "maria").locked is False
    assert auth.authenticate(admin, "maria", "nova-senha-1").login == "maria"
    with raises_code(InvalidInputError, "user.not_locked"):
        users.unlock(admin, "maria")
    with pytest.raises(NotFoundError):
        users.reset_password(admin, "ninguem", "abcdefgh")
    with admin.read() as s:
        key = str(s.scalar(select(User.id).where(User.login == "maria")))
    trail = json.dumps(_audit(admin, "users", key))
    assert "nova-senha-1" not in trail and "$argon2" not in trail


def test_settings_form_follows_the_dataclass(admin: AppContext) -> None:
    import dataclasses

    from motodesk.rules.settings import LawSettings

    form = administration.settings_form(admin)
    assert [f.name for f in form] == [f.name for f in dataclasses.fields(LawSettings)]
    by_name = {f.name: f for f in form}
    assert by_name["population"].kind == administration.INT
    assert by_name["population"].article == "Art. 10, I"
    assert by_name["population_year"].minimum == 1900
    assert by_name["crlv_previous_year_accepted_until_month"].maximum == 12
    assert by_name["periodic_inspection_months"].kind == administration.OPTIONAL_INT
    assert by_name["ufm_value_brl"].kind == administration.MONEY and by_name["ufm_value_brl"].placeholder
    assert by_name["fine_ufm_leve"].kind == administration.DECIMAL
    assert by_name["municipal_holidays"].kind == administration.DATES
    assert by_name["penalties_grave"].kind == administration.ENUM_SET
    assert by_name["penalties_grave"].enum is Penalty
    assert by_name["business_days"].kind == administration.BOOL
    assert by_name["fee_issue_basis"].group.startswith("Tabela de taxas")
    assert by_name["ufm_value_brl"].group.startswith("UFM")  # not "uf"'s group
    # Fields other helpers added appear by themselves, with an input of their type.
    if "campaign_opening_hours" in by_name:
        assert by_name["campaign_opening_hours"].kind == administration.TEXTS
        assert by_name["campaign_slot_minutes"].maximum == 24 * 60
    if "verifier_base_url" in by_name:
        assert by_name["verifier_base_url"].kind == administration.TEXT
    assert all(f.group != administration.OTHER_GROUP for f in form), [f.name for f in form
                                                                      if f.group == administration.OTHER_GROUP]


def test_save_settings_one_transaction_audited(admin: AppContext) -> None:
    saved = administration.save_law_settings(admin, {"population": 4_000, "ufm_value_brl": Decimal("123.45"),
                                                     "fee_issue_brl": Decimal("50.00")})
    assert (saved.population, saved.ufm_value_brl) == (4_000, Decimal("123.45"))
    assert law_settings(admin).fee_issue_brl == Decimal("50.00")
    with admin.read() as s:
        assert s.get(QuotaCounter, ServiceType.MOTOTAXI).places == 2  # Art. 10, I follows
    assert _audit(admin, "settings", "population")[-1]["value"] == ["89826", "4000"]
    assert _audit(admin, "settings", "ufm_value_brl")[-1]["value"] == ['"100.00"', '"123.45"']


def test_save_settings_refused_per_field(admin: AppContext) -> None:
    with pytest.raises(InvalidInputError) as refused:
        administration.save_law_settings(admin, {"population": 5_000, "crlv_previous_year_accepted_until_month": 13,
                                                 "inspection_valid_months_motoboy": 0})
    assert set(refused.value.fields) == {"crlv_previous_year_accepted_until_month",
                                         "inspection_valid_months_motoboy"}
    assert "mês de 1 a 12" in refused.value.fields["crlv_previous_year_accepted_until_month"]
    assert str(refused.value).startswith("Configuração inválida")
    assert law_settings(admin).population == 89_826  # nothing of the refused save was written
    with pytest.raises(InvalidInputError) as typed:
        administration.save_law_settings(admin, {"population": "muitos"})
    assert set(typed.value.fields) == {"population"}
    with raises_code(InvalidInputError, "settings.unknown"):
        administration.save_law_settings(admin, {"nao_existe": 1})


def test_damaged_setting_is_shown(admin: AppContext) -> None:
    with admin.write() as s:
        s.get(Setting, "population").value = '"abc"'
    by_name = {f.name: f for f in administration.settings_form(admin)}
    assert by_name["population"].damaged and by_name["population"].value == 89_826
    assert not by_name["uf"].damaged


def test_clerk_fixture_refused(ctx: AppContext) -> None:
    with pytest.raises(PermissionDeniedError):
        users.list_users(user_ctx(ctx, Role.CLERK))
