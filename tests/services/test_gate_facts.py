"""Issue 24, "documents that do not tell the whole truth", on SQLite and PostgreSQL: the document gate, issue
and renewal judge the holder's CNH (validity, category A), the Art. 19 passenger policy, every vehicle
characteristic (engine size, category, colour, owner) and the state of the deputy named on the holder's
documents, from the facts loaded once; each missing or expired fact is refused with its article."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from permit_factory import add_person, make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import existing_register  # type: ignore[import-not-found]

from motodesk.models import DeputyLink, Permit, PersonDocument, Vehicle
from motodesk.rules.common import ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services import badges, permits
from motodesk.services.badges import BadgeRequest
from motodesk.services.context import AppContext
from motodesk.services.errors import RuleViolationError

TODAY = date.today()
YESTERDAY = TODAY - timedelta(days=1)
DOCUMENTS = ("registration_certificate_pdf", "transit_authorization_pdf")
DEPUTY_NAME = "Preposto Paulo Nunes"


def _issued(supervisor: AppContext, ctx: AppContext, service: ServiceType = ServiceType.MOTOTAXI):  # noqa: ANN202
    dossier = make_dossier(ctx, service)
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    return dossier, permits.issue(supervisor, dossier.application_id)


def _articles(exc: pytest.ExceptionInfo[RuleViolationError]) -> set[str]:
    return {v.article for v in exc.value.verdicts}


def _change_cnh(ctx: AppContext, person_id: int, **values: Any) -> None:
    with ctx.write() as s:
        existing_register(s)
        cnh = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == DocumentKind.CNH))
        assert cnh is not None
        for key, value in values.items():
            setattr(cnh, key, value)


def _change_vehicle(ctx: AppContext, permit_id: int, **values: Any) -> None:
    with ctx.write() as s:
        existing_register(s)  # the register as it stands (the edit's own door is tests/services/test_law_door.py)
        permit = s.get(Permit, permit_id)
        assert permit is not None
        vehicle = s.get(Vehicle, permit.vehicle_id)
        assert vehicle is not None
        for key, value in values.items():
            setattr(vehicle, key, value)


def _every_document_refuses(clerk: AppContext, permit_id: int, article: str, *, badge: bool = True) -> None:
    for name in DOCUMENTS:
        with pytest.raises(RuleViolationError) as refused:
            getattr(permits, name)(clerk, permit_id)
        assert article in _articles(refused), (name, str(refused.value))
    if badge:
        with pytest.raises(RuleViolationError) as refused:
            badges.print_badges(clerk, [permit_id])
        assert article in _articles(refused)


# --- the holder's CNH (Art. 5º, II) ------------------------------------------------------------------


@pytest.mark.parametrize("change", [{"valid_until": YESTERDAY}, {"categories": "B"}, {"valid_until": None}],
                         ids=["expired", "no-category-A", "validity-missing"])
def test_documents_and_renewal_refuse_a_cnh_that_is_not_valid_for_category_a(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext, change: dict[str, Any]) -> None:
    dossier, issued = _issued(supervisor, ctx)
    assert permits.transit_authorization_pdf(clerk, issued.id).startswith(b"%PDF")
    _change_cnh(ctx, dossier.person_id, **change)
    _every_document_refuses(clerk, issued.id, "Art. 5º, II")
    with pytest.raises(RuleViolationError) as refused:
        permits.renew_registration(clerk, issued.id)
    assert "Art. 5º, II" in _articles(refused)


def test_issue_refuses_a_cnh_expired_since_approval(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    _change_cnh(ctx, dossier.person_id, valid_until=YESTERDAY)
    with pytest.raises(RuleViolationError) as refused:
        permits.issue(supervisor, dossier.application_id)
    assert "Art. 5º, II" in _articles(refused)


# --- the vehicle: Art. 19 passenger policy and every characteristic ----------------------------------


VEHICLE_FACTS: list[tuple[str, dict[str, Any], str]] = [
    ("passenger-policy-expired", {"passenger_insurance_valid_until": YESTERDAY}, "Art. 19, §§ 1º e 2º"),
    ("passenger-policy-missing", {"passenger_insurance_valid_until": None}, "Art. 19, §§ 1º e 2º"),
    ("engine-over-250cc", {"engine_cc": 300}, "Art. 3º, I"),
    ("private-category", {"category": "particular"}, "Art. 3º, parágrafo único; Art. 5º, § 1º, V"),
    ("colour-not-yellow", {"colour": "PRETA"}, "Art. 5º, § 1º, IV"),
    ("owner-someone-else", {"owner_cpf": "11144477735", "owner_name": "Outra Pessoa"}, "Art. 5º, § 5º"),
]


@pytest.mark.parametrize(("change", "article"), [(c, a) for _id, c, a in VEHICLE_FACTS],
                         ids=[i for i, _c, _a in VEHICLE_FACTS])
def test_documents_and_renewal_refuse_a_vehicle_fact_that_fails(ctx: AppContext, clerk: AppContext,
                                                                 supervisor: AppContext, change: dict[str, Any],
                                                                 article: str) -> None:
    _dossier, issued = _issued(supervisor, ctx)
    _change_vehicle(ctx, issued.id, **change)
    _every_document_refuses(clerk, issued.id, article)
    with pytest.raises(RuleViolationError) as refused:
        permits.renew_registration(clerk, issued.id)
    assert article in _articles(refused)


def test_issue_refuses_an_expired_passenger_policy(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    with ctx.write() as s:
        existing_register(s)
        vehicle = s.get(Vehicle, dossier.vehicle_id)
        assert vehicle is not None
        vehicle.passenger_insurance_valid_until = YESTERDAY
    with pytest.raises(RuleViolationError) as refused:
        permits.issue(supervisor, dossier.application_id)
    assert "Art. 19, §§ 1º e 2º" in _articles(refused)


# --- the deputy named on the holder's documents ------------------------------------------------------


def _link(ctx: AppContext, permit_id: int, **link: Any) -> int:
    with ctx.write() as s:
        existing_register(s)
        deputy, _photo = add_person(s, TODAY, name=DEPUTY_NAME,
                                    medical=link.pop("medical", TODAY - timedelta(days=30)))
        s.add(DeputyLink(permit_id=permit_id, deputy_person_id=deputy.id, start_on=TODAY, **link))
        return deputy.id


DEPUTY_STATES: list[tuple[str, Callable[[AppContext, int], object], str]] = [
    ("suspended", lambda ctx, pid: _link(ctx, pid, suspended_until=TODAY + timedelta(days=5)), "Art. 34, III"),
    ("cassado", lambda ctx, pid: _link(ctx, pid, revoked=True), "Art. 34, IV"),
    ("medical-expired", lambda ctx, pid: _link(ctx, pid, medical=TODAY - timedelta(days=400)), "Art. 5º, VII e § 2º"),
    ("cnh-expired", lambda ctx, pid: _change_cnh(ctx, _link(ctx, pid), valid_until=YESTERDAY), "Art. 5º, II"),
]


@pytest.mark.parametrize(("make", "article"), [(m, a) for _i, m, a in DEPUTY_STATES],
                         ids=[i for i, _m, _a in DEPUTY_STATES])
def test_the_certificate_and_the_authorization_vouch_for_the_deputy_they_name(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext,
        make: Callable[[AppContext, int], object], article: str) -> None:
    _dossier, issued = _issued(supervisor, ctx)
    make(ctx, issued.id)
    for name in DOCUMENTS:
        with pytest.raises(RuleViolationError) as refused:
            getattr(permits, name)(clerk, issued.id)
        assert article in _articles(refused), str(refused.value)
        assert DEPUTY_NAME in str(refused.value)
    with pytest.raises(RuleViolationError) as refused:
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])
    assert article in _articles(refused)
    # the holder's own badge does not name the deputy: it still prints
    assert [b.holder_kind for b in badges.print_badges(clerk, [issued.id]).badges] == ["titular"]


def test_renewal_refuses_while_a_cassado_deputy_stays_linked(ctx: AppContext, clerk: AppContext,
                                                             supervisor: AppContext) -> None:
    _dossier, issued = _issued(supervisor, ctx)
    _link(ctx, issued.id, revoked=True)
    with pytest.raises(RuleViolationError) as refused:
        permits.renew_registration(clerk, issued.id)
    assert "Art. 34, IV" in _articles(refused)
