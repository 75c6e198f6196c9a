"""Fault suite: other workstations, killed processes and a database server that goes away."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import func, select
from tcp_proxy import TcpProxy  # type: ignore[import-not-found]
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Person, PersonDocument
from motodesk.models.db import Database
from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.errors import DatabaseUnavailableError
from motodesk.services.people import PersonInput

WORKER = str(Path(__file__).with_name("worker.py"))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, WORKER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)


def _person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Rosa Maria Guimarães", cpf=valid_cpf(),
                                                 birth_date=date(1985, 3, 9), phone="(34) 3000-0000")).id


@pytest.mark.slow
def test_two_processes_edit_the_same_dossier_one_after_the_other(clerk: AppContext, db_url: str) -> None:
    pid = _person(clerk)
    a, b = _spawn(db_url, "edit", str(pid), "(34) 91111-1111"), _spawn(db_url, "edit", str(pid), "(34) 92222-2222")
    try:
        assert a.stdout.readline().strip() == "READY" and b.stdout.readline().strip() == "READY"
        a.stdin.write("GO\n")
        a.stdin.flush()
        assert a.stdout.readline().strip() == "OK"
        b.stdin.write("GO\n")
        b.stdin.flush()
        assert b.stdout.readline().strip() == "CONFLICT"
    finally:
        for p in (a, b):
            p.communicate(timeout=60)
    assert people.get_person(clerk, pid).phone == "(34) 91111-1111"  # no lost update


@pytest.mark.slow
def test_two_processes_save_the_same_dossier_at_once(clerk: AppContext, db_url: str) -> None:
    pid = _person(clerk)
    workers = [_spawn(db_url, "edit", str(pid), f"(34) 9{n}{n}{n}{n}-{n}{n}{n}{n}") for n in (3, 4)]
    try:
        for w in workers:
            assert w.stdout.readline().strip() == "READY"
        for w in workers:
            w.stdin.write("GO\n")
            w.stdin.flush()
        results = sorted(w.stdout.readline().strip() for w in workers)
    finally:
        for w in workers:
            w.communicate(timeout=60)
    assert results == ["CONFLICT", "OK"]
    phone = people.get_person(clerk, pid).phone
    assert phone in ("(34) 93333-3333", "(34) 94444-4444")


@pytest.mark.slow
def test_killed_in_the_middle_of_a_large_save_keeps_exactly_the_committed_data(
        ctx: AppContext, db_url: str, backend: str) -> None:
    worker = _spawn(db_url, "seed", "40000")
    batches = 0
    try:
        while batches < 2:
            line = worker.stdout.readline()
            assert line, worker.stderr.read()
            if line.startswith("BATCH"):
                batches += 1
        worker.send_signal(signal.SIGKILL)  # in the middle of the third batch's transaction
    finally:
        worker.communicate(timeout=60)
    if backend == "sqlite":
        path = ctx.db.sqlite_path
        assert path is not None
        con = sqlite3.connect(path)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        con.close()
    reopened = Database.open(db_url)
    assert reopened.prepare() == "current"
    with reopened.session() as s:
        n_people = s.scalar(select(func.count(Person.id)))
        n_men = s.scalar(select(func.count(Person.id)).where(Person.sex == "M"))
        n_docs = s.scalar(select(func.count(PersonDocument.id)))
        orphans = s.scalar(select(func.count(PersonDocument.id)).where(PersonDocument.person_id.not_in(select(Person.id))))
    reopened.dispose()
    assert n_people >= 10000 and n_people % 5000 == 0  # whole batches only
    # every committed person has all of its documents, nothing more: six, and the military certificate for men
    assert 0 < n_men < n_people
    assert n_docs == 6 * n_people + n_men
    assert orphans == 0


@pytest.mark.slow
def test_postgresql_going_away_is_explained_and_recovered(request: pytest.FixtureRequest) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    from motodesk.rules.common import Role

    base = Database.open(request.getfixturevalue("pg_migrated"))
    proxy = TcpProxy(base.url.host or "127.0.0.1", base.url.port or 5432)
    db = Database.open(base.url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    clerk = user_ctx(AppContext(db), Role.CLERK)
    try:
        pid = _person(clerk)
        before = people.get_person(clerk, pid)
        proxy.cut()
        with raises_code(DatabaseUnavailableError, "database_unavailable"):
            people.save_person(clerk, PersonInput(full_name="Rosa Maria Guimarães", cpf=before.cpf,
                                                  phone="(34) 95555-5555"),
                               person_id=pid, expected_version=before.version)
        proxy.restore()
        after = people.get_person(clerk, pid)
        assert after.phone == "(34) 3000-0000" and after.version == before.version  # nothing half-saved
        people.save_person(clerk, PersonInput(full_name="Rosa Maria Guimarães", cpf=before.cpf,
                                              phone="(34) 95555-5555"),
                           person_id=pid, expected_version=after.version)
        assert people.get_person(clerk, pid).phone == "(34) 95555-5555"
    finally:
        proxy.cut()
        db.dispose()
        base.dispose()


@pytest.mark.slow
def test_a_server_lost_between_the_decision_and_the_suspension_leaves_neither(
        request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16: the decision is flushed, the connection dies before the permit change commits."""
    from datetime import timedelta

    from conftest import _truncate_all, user_ctx  # type: ignore[import-not-found]
    from enforcement_factory import GRAVE, add_holder, an_hour_ago  # type: ignore[import-not-found]

    from motodesk.models import Decision, Permit
    from motodesk.rules.common import PermitState, Role
    from motodesk.rules.infractions import Penalty
    from motodesk.services import enforcement
    from motodesk.services.enforcement import DecisionInput, NoticeInput, NoticeStatus, OffenderKind, Outcome

    base = Database.open(request.getfixturevalue("pg_migrated"))
    _truncate_all(base)  # the worker's database is shared with the tests it ran before (permit numbers)
    proxy = TcpProxy(base.url.host or "127.0.0.1", base.url.port or 5432)
    db = Database.open(base.url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    admin, supervisor = user_ctx(AppContext(db), Role.ADMIN), user_ctx(AppContext(db), Role.SUPERVISOR)
    try:
        holder = add_holder(admin)
        created = enforcement.create_notice(supervisor, NoticeInput(
            GRAVE, an_hour_ago(), "Praça Honorato Borges", OffenderKind.HOLDER, person_id=holder.person_id,
            description="Desacato."))
        real = enforcement.decisions.permits.apply_suspend

        def server_lost(s, user, permit, until, **kwargs) -> None:  # noqa: ANN001
            real(s, user, permit, until, **kwargs)
            proxy.cut()  # the decision is flushed and the permit changed in the session: now the server goes

        monkeypatch.setattr(enforcement.decisions.permits, "apply_suspend", server_lost)
        with pytest.raises(DatabaseUnavailableError):
            enforcement.decide(supervisor, created.id, DecisionInput(
                Outcome.UPHELD, "Desacato.", Penalty.SUSPENSION, suspension_days=5),
                today=created.defence_due + timedelta(days=1))
        proxy.restore()
        with db.session() as s:
            assert s.scalars(select(Decision).where(Decision.notice_id == created.id)).all() == []
            permit = s.get(Permit, holder.permit_id)
            assert permit.state is PermitState.ACTIVE and permit.suspended_until is None
        assert enforcement.get_notice(supervisor, created.id).status is NoticeStatus.OPEN
    finally:
        proxy.cut()
        db.dispose()
        base.dispose()
