"""The routines run under the per-user role of whoever runs them (issue 25, item 1): `motodesk daily`
(any profile: here a clerk, from the command line through the workstation's pre-login role), the
register import (clerk) and the LGPD retention (administrator). Each succeeds with its profile's
grants, and the trail names that user."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from enforcement_factory import add_holder  # type: ignore[import-not-found]
from sqlalchemy import update

from motodesk.models import Permit
from motodesk.rules.common import PermitState, Role
from motodesk.services import retention, users
from motodesk.services.imports import Outcome, apply_import, preview_import
from tests.pgroles.conftest import CHEFE_PASSWORD, GATE_PASSWORD, RolesSite
from tests.tests_helpers import valid_cpf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "services"))
from test_imports import register, row  # type: ignore[import-not-found]  # noqa: E402


def _audit_authors(site: RolesSite, since: int) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    with site.owner.db.engine.connect() as conn:
        for table, who in conn.exec_driver_sql("SELECT table_name, user_login FROM audit_events WHERE id > %s",
                                               (since,)).all():
            found.setdefault(str(table), set()).add(str(who))
    return found


def _max(site: RolesSite, table: str) -> int:
    with site.owner.db.engine.connect() as conn:
        return int(conn.exec_driver_sql(f"SELECT coalesce(max(id), 0) FROM {table}").scalar_one())


@pytest.fixture
def admin(roles_site: RolesSite) -> Any:
    return roles_site.login("chefe", CHEFE_PASSWORD)


def test_daily_from_the_command_line_runs_as_the_clerks_own_role(roles_site: RolesSite, admin: Any) -> None:
    users.create_user(admin, "caio", "Caio Atendente", Role.CLERK, "senha-do-caio-1")
    suspended = add_holder(roles_site.owner, "Rui Suspenso Pereira", state=PermitState.SUSPENDED)
    ended = add_holder(roles_site.owner, "Eva Vencida Pereira", issued_on=date.today() - timedelta(days=12 * 365))
    with roles_site.owner.db.engine.begin() as conn:  # its days are over (the owner, past the app's guard)
        conn.exec_driver_sql("UPDATE permits SET suspended_until = %s WHERE id = %s",
                             (date.today() - timedelta(days=1), suspended.permit_id))
    audit_before, checkpoints_before = _max(roles_site, "audit_events"), _max(roles_site, "audit_checkpoints")
    env = {k: v for k, v in os.environ.items() if k != "MOTODESK_DATABASE_URL"}
    out = subprocess.run([sys.executable, "-m", "motodesk", "daily", "--user", "caio", "--password-stdin",
                          "--database", roles_site.url_as(roles_site.gate_role, GATE_PASSWORD)],
                         input="senha-do-caio-1\n", capture_output=True, text=True, timeout=240, env=env)
    assert out.returncode == 0, out.stderr
    assert suspended.permit_number in out.stdout and ended.permit_number in out.stdout
    with roles_site.owner.db.engine.connect() as conn:
        states = dict(conn.exec_driver_sql("SELECT id, state FROM permits WHERE id IN (%s, %s)",
                                           (suspended.permit_id, ended.permit_id)).all())
    assert states == {suspended.permit_id: PermitState.ACTIVE.value, ended.permit_id: PermitState.EXPIRED.value}
    authors = _audit_authors(roles_site, audit_before)
    assert authors["permits"] == {"caio"} and authors["permit_events"] == {"caio"}
    assert _max(roles_site, "audit_checkpoints") == checkpoints_before + 1  # the day's trail sealed


def test_the_register_import_runs_as_the_clerks_own_role(roles_site: RolesSite, admin: Any, tmp_path: Path) -> None:
    users.create_user(admin, "caio", "Caio Atendente", Role.CLERK, "senha-do-caio-1")
    clerk = roles_site.login("caio", "senha-do-caio-1")
    issued = date.today() - timedelta(days=100)
    rows = [row(valid_cpf(), f"Pessoa Importada Número {i}", f"IMP{i}A1{i}",
                permit_number=f"MB-{i + 1:04d}/{issued.year}", issued_on=issued, decree=f"Decreto 77/{issued.year}")
            for i in range(3)]
    path = register(tmp_path / "cadastro.xlsx", rows)
    since = _max(roles_site, "audit_events")
    preview = preview_import(clerk, path)
    assert [line.outcome for line in preview.lines] == [Outcome.NEW] * 3
    summary = apply_import(clerk, preview)
    assert (summary.created, summary.vehicles, summary.permits) == (3, 3, 3)
    authors = _audit_authors(roles_site, since)
    for table in ("people", "person_documents", "vehicles", "permits", "permit_events", "decrees"):
        assert authors.get(table) == {"caio"}, (table, authors.get(table))


def test_retention_runs_as_the_administrators_own_role(roles_site: RolesSite, admin: Any) -> None:
    from motodesk.models import Attachment, Person, Photo
    from tests.faults.test_lgpd_retention import LONG_AGO, _permit, _person
    from tests.tests_helpers import existing_register

    with roles_site.owner.write() as s:
        existing_register(s)
        old = _person(s, "Velho Sem Vínculo Algum")
        _permit(s, old, PermitState.EXPIRED, date(2010, 3, 1), date(2015, 3, 1))
        kept = _person(s, "Titular Em Vigor")
        _permit(s, kept, PermitState.ACTIVE, date.today() - timedelta(days=300), None)
        old_id, kept_id = old.id, kept.id
    with roles_site.owner.write() as s:
        existing_register(s)
        for model in (Person, Permit):
            s.execute(update(model).values(created_at=LONG_AGO, updated_at=LONG_AGO))
        s.execute(update(Photo).values(captured_at=LONG_AGO))
        s.execute(update(Attachment).values(added_at=LONG_AGO))
    since = _max(roles_site, "audit_events")
    dry = retention.anonymise_inactive(admin, dry_run=True)
    assert old_id in dry.anonymised and kept_id not in dry.anonymised
    report = retention.anonymise_inactive(admin)
    assert old_id in report.anonymised and kept_id not in report.anonymised
    with roles_site.owner.db.engine.connect() as conn:
        name = conn.exec_driver_sql("SELECT full_name FROM people WHERE id = %s", (old_id,)).scalar()
        kept_name = conn.exec_driver_sql("SELECT full_name FROM people WHERE id = %s", (kept_id,)).scalar()
    assert name != "Velho Sem Vínculo Algum" and kept_name == "Titular Em Vigor"
    authors = _audit_authors(roles_site, since)
    assert authors.get("people") == {"chefe"}
