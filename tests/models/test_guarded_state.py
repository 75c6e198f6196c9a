"""The door of the law (issue #24): every column with legal effect is refused to a raw ORM write.

The columns are listed from the one declaration (:data:`motodesk.models.guarded.GUARDED`); for each one a
plain ``Session(engine)`` — not a service, no judged step — changes it and commits: the guard refuses,
nothing reaches the database, and the transaction is rolled back. Both databases.
"""

from __future__ import annotations

import contextlib
import enum
import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from enforcement_factory import add_deputy, add_holder  # type: ignore[import-not-found]
from sqlalchemy import Boolean, Date, Integer, String, select
from sqlalchemy.exc import PendingRollbackError
from sqlalchemy.orm import Session
from tests_helpers import existing_register, raises_code, raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import DeputyLink, Permit, PersonDocument, Tender, TenderCandidate, Vehicle
from motodesk.models.db import Database
from motodesk.models.guarded import GUARDED, GuardedStateError, guarded_columns
from motodesk.rules.common import PermitState, ServiceType, Status, Verdict
from motodesk.rules.dossier import DocumentKind
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.judged import judged

#: the declaration, as the law names it (issue #24, "The door", item 1)
EXPECTED = {
    "permits": {"state", "issued_on", "term_end", "extended", "certificate_valid_until", "suspended_until",
                "ended_on", "number", "year", "seq", "service_type", "person_id", "vehicle_id", "decree_id",
                "application_id"},
    "deputy_links": {"permit_id", "deputy_person_id", "start_on", "end_on", "suspended_until", "revoked"},
    "vehicles": {"plate", "vin", "renavam", "engine_cc", "category", "colour", "year_manufacture", "year_model",
                 "owner_name", "owner_cpf", "holder_id", "service_type", "active"},
    "tender_candidates": {"status", "person_id", "cpf", "rank", "tender_id"},
    "person_documents": {"kind", "number", "issue_date", "valid_until", "presented_on", "reference_date",
                         "categories", "flag", "result"},
}
CASES = [(g.model, column) for g in GUARDED for column in g.columns]


def test_the_declaration_names_every_column_the_law_gives_effect() -> None:
    assert {g.table: set(g.columns) for g in GUARDED} == EXPECTED
    assert len(guarded_columns()) == sum(len(c) for c in EXPECTED.values())
    for g in GUARDED:  # each name is a real column of its table
        assert set(g.columns) <= set(g.model.__table__.columns.keys()), g.table


def _other_value(model: type[Any], column: str, value: Any) -> Any:
    """A different value of the column's type (the guard refuses before any constraint is asked)."""
    col = model.__table__.columns[column]
    python_type = getattr(col.type, "enum_class", None)
    if isinstance(value, enum.Enum) or python_type is not None:
        members = list(type(value) if isinstance(value, enum.Enum) else python_type)
        return next(m for m in members if m != value)
    if isinstance(col.type, Boolean):
        return not bool(value)
    if isinstance(col.type, Date):
        return (value or date(2026, 1, 1)) + timedelta(days=1)
    if isinstance(col.type, Integer):
        return (value or 0) + 1
    if isinstance(col.type, String):
        length = col.type.length or 20
        return ("9" * length if column in ("cpf", "owner_cpf", "renavam") else ("Z" * length))[:length]
    raise AssertionError(f"no test value for {model.__name__}.{column}")


@pytest.fixture
def rows(ctx: AppContext) -> dict[type[Any], int]:
    """One row of each guarded table whose guard holds: a permit in force, its vehicle, its deputy's link, a
    certificate of its holder, a called tender candidacy."""
    holder = add_holder(ctx, "Guarda da Silva", service=ServiceType.MOTOBOY)
    add_deputy(ctx, holder, "Preposto da Guarda")
    with ctx.write() as s:
        existing_register(s)
        doc = PersonDocument(person_id=holder.person_id, kind=DocumentKind.CRIMINAL, number="123",
                             issue_date=date.today() - timedelta(days=30), valid_until=date.today(),
                             presented_on=date.today(), reference_date=date.today(), categories="A", flag=True,
                             result="negative")
        tender = Tender(number=f"G-{holder.permit_id}/2026", homologated_on=date.today())
        s.add_all([doc, tender])
        s.flush()
        candidate = TenderCandidate(tender_id=tender.id, rank=1, cpf=holder.cpf, name=holder.name,
                                    person_id=holder.person_id, status="called", called_on=date.today())
        s.add(candidate)
        s.flush()
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        assert link is not None
        return {Permit: holder.permit_id, Vehicle: holder.vehicle_id, DeputyLink: link.id,
                PersonDocument: doc.id, TenderCandidate: candidate.id}


@contextlib.contextmanager
def refused(*keys: str) -> Iterator[pytest.ExceptionInfo[GuardedStateError]]:
    """The guard refused the write, naming each of ``keys`` (``table.column`` or ``table.*insert*``)."""
    with raises_code(GuardedStateError, "guarded_state") as err:
        yield err
    named = set(re.findall(r"\b[a-z_]+\.(?:[a-z_]+|\*insert\*)", str(err.value)))  # the table.column keys
    assert set(keys) <= named, err.value


@pytest.mark.parametrize(("model", "column"), CASES, ids=[f"{m.__tablename__}.{c}" for m, c in CASES])
def test_a_raw_orm_write_of_a_guarded_column_is_refused_and_rolled_back(
        db: Database, rows: dict[type[Any], int], model: type[Any], column: str) -> None:
    with Session(db.engine) as s:
        row = s.get(model, rows[model])
        before = getattr(row, column)
        setattr(row, column, _other_value(model, column, before))
        with refused(f"{model.__tablename__}.{column}") as err:
            s.commit()
        assert isinstance(err.value, MotodeskError)
        transaction = s.get_transaction()
        assert transaction is not None and not transaction.is_active  # the flush rolled the transaction back
        with pytest.raises(PendingRollbackError):
            s.commit()  # and the session will not pretend otherwise: it asks for the rollback
        s.rollback()
        assert getattr(s.get(model, rows[model]), column) == before  # the row reads as stored
    with Session(db.engine) as fresh:
        assert getattr(fresh.get(model, rows[model]), column) == before


def test_inserting_a_permit_or_a_link_in_force_or_a_used_candidacy_is_refused(
        db: Database, rows: dict[type[Any], int]) -> None:
    with Session(db.engine) as s:
        holder = s.get(Permit, rows[Permit])
        assert holder is not None
        s.add(Permit(number="MB-9999/2026", service_type=ServiceType.MOTOBOY, year=2026, seq=9999,
                     person_id=holder.person_id, state=PermitState.ACTIVE, issued_on=date.today(),
                     term_end=date.today() + timedelta(days=1800), certificate_valid_until=date.today()))
        with refused("permits.*insert*"):
            s.commit()
    with Session(db.engine) as s:
        link = s.get(DeputyLink, rows[DeputyLink])
        assert link is not None
        s.add(DeputyLink(permit_id=link.permit_id, deputy_person_id=link.deputy_person_id, start_on=date.today()))
        with refused("deputy_links.*insert*"):
            s.commit()
    with Session(db.engine) as s:
        candidate = s.get(TenderCandidate, rows[TenderCandidate])
        assert candidate is not None
        s.add(TenderCandidate(tender_id=candidate.tender_id, rank=2, cpf=valid_cpf(), name="Outro",
                              status="accepted"))
        with refused("tender_candidates.*insert*"):
            s.commit()
    with Session(db.engine) as fresh:
        assert fresh.scalar(select(Permit).where(Permit.number == "MB-9999/2026")) is None
        assert len(list(fresh.scalars(select(DeputyLink)))) == 1
        assert len(list(fresh.scalars(select(TenderCandidate)))) == 1


def test_what_the_guard_does_not_cover_stays_free(db: Database, rows: dict[type[Any], int]) -> None:
    """A vehicle that serves no permit, a waiting candidacy being called, a permit's badge counter."""
    with Session(db.engine) as s:
        permit = s.get(Permit, rows[Permit])
        assert permit is not None
        permit.badge_issue_no += 1  # not legal state
        vehicle = Vehicle(plate="FRE1E00", holder_id=None, active=True, engine_cc=160)
        s.add(vehicle)
        s.commit()
        vehicle.colour = "PRETA"  # serves no permit
        s.commit()


def test_a_new_service_that_forgets_the_rules_fails_in_its_first_test(ctx: AppContext,
                                                                      rows: dict[type[Any], int]) -> None:
    def reopen_permit(ctx: AppContext, permit_id: int) -> None:  # a service written without the rules
        with ctx.write() as s:
            permit = s.get(Permit, permit_id)
            assert permit is not None
            permit.state = PermitState.SUSPENDED
            permit.suspended_until = date.today() + timedelta(days=10)

    with refused("permits.state"):
        reopen_permit(ctx, rows[Permit])
    with ctx.read() as s:
        assert s.get(Permit, rows[Permit]).state is PermitState.ACTIVE  # type: ignore[union-attr]


def test_the_judged_step_opens_only_on_an_accepting_verdict_and_only_for_its_columns(
        ctx: AppContext, rows: dict[type[Any], int]) -> None:
    refusal = Verdict("x", "Art. 34, III", Status.NOT_MET, "Art. 34, III: não.")
    with raises_rule("x"), ctx.write() as s:
        with judged(s, [refusal], Permit.suspended_until):
            raise AssertionError("a refused step never opens")
    with refused("permits.state"), ctx.write() as s:
        permit = s.get(Permit, rows[Permit])
        assert permit is not None
        with judged(s, [], Permit.suspended_until):  # allows the date, not the state
            permit.suspended_until = date.today() + timedelta(days=3)
            permit.state = PermitState.SUSPENDED
    with pytest.raises(TypeError, match="not a guarded column"), ctx.write() as s:
        with judged(s, [], Permit.badge_issue_no):
            pass
    with ctx.write() as s:  # after the step closes, the same column is guarded again
        permit = s.get(Permit, rows[Permit])
        assert permit is not None
        with judged(s, [], Permit.suspended_until):
            permit.suspended_until = date.today() + timedelta(days=3)
    with pytest.raises(GuardedStateError), ctx.write() as s:
        permit = s.get(Permit, rows[Permit])
        assert permit is not None
        permit.suspended_until = None


def test_a_core_statement_through_a_session_is_guarded_too(db: Database, rows: dict[type[Any], int]) -> None:
    from sqlalchemy import insert, update

    with Session(db.engine) as s:
        with refused("permits.state"):
            s.execute(update(Permit).where(Permit.id == rows[Permit]).values(state=PermitState.REVOKED))
        s.rollback()
        with refused("deputy_links.*insert*"):
            link = s.get(DeputyLink, rows[DeputyLink])
            assert link is not None
            s.execute(insert(DeputyLink), [{"permit_id": link.permit_id, "deputy_person_id": link.deputy_person_id,
                                            "start_on": date.today(), "version": 1}])
        s.rollback()
        s.execute(update(Permit).where(Permit.id == rows[Permit]).values(badge_issue_no=5))  # not legal state
        s.commit()
    with Session(db.engine) as fresh:
        permit = fresh.get(Permit, rows[Permit])
        assert permit is not None and permit.state is PermitState.ACTIVE and permit.badge_issue_no == 5
