"""Each profile's everyday work runs under its own role's privileges (the grants are not too tight),
and what a profile's services refuse the server refuses as well (not too loose)."""

from __future__ import annotations

from datetime import date, timedelta

import psycopg
import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]

from motodesk.rules.common import Role, ServiceType
from motodesk.services import badges, people, permits, users
from motodesk.services.people import PersonInput
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite
from tests.tests_helpers import valid_cpf


def test_a_permit_is_approved_issued_and_printed_by_the_profiles_own_roles(roles_site: RolesSite) -> None:
    admin = roles_site.login("chefe", CHEFE_PASSWORD)
    users.create_user(admin, "sara", "Sara Supervisora", Role.SUPERVISOR, "senha-da-sara-1")
    users.create_user(admin, "caio", "Caio Atendente", Role.CLERK, "senha-do-caio-1")
    supervisor = roles_site.login("sara", "senha-da-sara-1")
    clerk = roles_site.login("caio", "senha-do-caio-1")
    people.save_person(clerk, PersonInput(full_name="Clara Cadastrada Souza", cpf=valid_cpf()))
    dossier = make_dossier(roles_site.owner, ServiceType.MOTOBOY)
    permits.approve(supervisor, dossier.application_id, "1.234/2026", date.today() - timedelta(days=1))
    issued = permits.issue(supervisor, dossier.application_id)
    printed = badges.print_badges(clerk, [issued.id])
    assert printed.pdf
    with roles_site.owner.db.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT table_name, action, user_login FROM audit_events WHERE table_name IN ('permits', 'badge_prints') "
            "ORDER BY id").all()
    assert ("permits", "insert", "sara") in rows  # issued by the supervisor's role
    assert ("badge_prints", "insert", "caio") in rows  # printed by the clerk's role
    assert {who for _t, _a, who in rows} == {"sara", "caio"}


@pytest.mark.parametrize("profile", [Role.CLERK, Role.INSPECTOR])
def test_only_a_supervisor_role_writes_decisions(roles_site: RolesSite, profile: Role) -> None:
    admin = roles_site.login("chefe", CHEFE_PASSWORD)
    users.create_user(admin, "alguem", "Alguém", profile, "senha-de-alguem-1")
    url = roles_site.url_as(roles_site.role_of("alguem"), "senha-de-alguem-1")
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        for statement in ("DELETE FROM decisions", "UPDATE criminal_judgments SET id = id",
                          "UPDATE settings SET value = value"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


