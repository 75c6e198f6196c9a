"""The deadlines view (Prazos): what falls due in 30/60/90 days and what is overdue, filtered by kind,
service and person; and the renewal letters for the filtered rows."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from pypdf import PdfReader
from reports_factory import holder, inspection, notice  # type: ignore[import-not-found]
from tests_helpers import existing_register, raises_code  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.services import deadlines as svc
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.deadlines import Campaign, DeadlineFilter
from motodesk.services.errors import InvalidInputError, PermissionDeniedError

K = DeadlineKind


def _kinds(rows, person_id: int) -> dict[DeadlineKind, int]:  # noqa: ANN001
    return {r.kind: r.days_left for r in rows if r.person_id == person_id}


def test_a_medical_certificate_due_in_10_days_is_listed_with_10_days_left(clerk: AppContext) -> None:
    today = local_today()
    r = holder(clerk, "Maria Aparecida Silva", medical_issued=today + timedelta(days=10) - timedelta(days=365))
    rows = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    medical = [row for row in rows if row.person_id == r.holder.person_id and row.kind is K.MEDICAL]
    assert len(medical) == 1
    row = medical[0]
    assert row.days_left == 10 and not row.overdue
    assert row.deadline.due == today + timedelta(days=10)
    assert row.deadline.article == "Art. 5º, VII e § 2º"
    assert row.person_name == "Maria Aparecida Silva" and row.cpf == r.holder.cpf
    assert row.permit_number == r.holder.permit_number and row.service is ServiceType.MOTOBOY
    assert row.phone == "34999990000"
    # Not overdue: the "Vencidos" button leaves it out; the 60 and 90 day windows keep it.
    assert not [x for x in svc.deadlines(clerk, DeadlineFilter(overdue_only=True), today=today)
                if x.person_id == r.holder.person_id]
    for days in (60, 90):
        assert K.MEDICAL in _kinds(svc.deadlines(clerk, DeadlineFilter(horizon_days=days), today=today),
                                   r.holder.person_id)


def test_windows_overdue_and_kinds(clerk: AppContext) -> None:
    today = local_today()
    soon = holder(clerk, "Ana Beatriz Costa", medical_issued=today - timedelta(days=300))  # due in 65 days
    late = holder(clerk, "Bruno Henrique Dias", medical_issued=today - timedelta(days=400),  # overdue 35 days
                  cnh_valid_until=today + timedelta(days=20))
    in30 = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    assert K.MEDICAL not in _kinds(in30, soon.holder.person_id)
    assert _kinds(in30, late.holder.person_id) == {K.MEDICAL: -35, K.CNH: 20}
    in90 = svc.deadlines(clerk, DeadlineFilter(horizon_days=90), today=today)
    assert _kinds(in90, soon.holder.person_id) == {K.MEDICAL: 65}
    # Soonest first: the overdue row comes before everything else.
    assert in90[0].days_left == -35
    overdue = svc.deadlines(clerk, DeadlineFilter(horizon_days=90, overdue_only=True), today=today)
    assert [(r.person_name, r.kind) for r in overdue] == [("Bruno Henrique Dias", K.MEDICAL)]
    not_overdue = svc.deadlines(clerk, DeadlineFilter(horizon_days=90, include_overdue=False), today=today)
    assert all(r.days_left >= 0 for r in not_overdue) and not_overdue
    only_cnh = svc.deadlines(clerk, DeadlineFilter(horizon_days=90, kinds=frozenset({K.CNH})), today=today)
    assert [(r.person_name, r.kind) for r in only_cnh] == [("Bruno Henrique Dias", K.CNH)]


def test_filters_by_service_and_person(clerk: AppContext) -> None:
    today = local_today()
    due = today - timedelta(days=360)
    taxi = holder(clerk, "Carlos Eduardo Moreira", ServiceType.MOTOTAXI, medical_issued=due)
    boy = holder(clerk, "Daniela Souza Lima", ServiceType.MOTOBOY, medical_issued=due)
    holder(clerk, "Eduardo Souza Prado", ServiceType.MOTOFRETE, medical_issued=due)

    def names(flt: DeadlineFilter) -> set[str]:
        return {r.person_name for r in svc.deadlines(clerk, flt, today=today)}

    assert names(DeadlineFilter(service=ServiceType.MOTOTAXI)) == {"Carlos Eduardo Moreira"}
    assert names(DeadlineFilter(person="souza")) == {"Daniela Souza Lima", "Eduardo Souza Prado"}
    assert names(DeadlineFilter(person="DANIELA")) == {"Daniela Souza Lima"}
    cpf = boy.holder.cpf
    assert names(DeadlineFilter(person=f"{cpf[:3]}.{cpf[3:6]}")) == {"Daniela Souza Lima"}
    assert names(DeadlineFilter(person_id=taxi.holder.person_id)) == {"Carlos Eduardo Moreira"}
    assert names(DeadlineFilter(service=ServiceType.MOTOBOY, person="carlos")) == set()


def test_a_defence_period_appears_with_the_offenders_permit(clerk: AppContext) -> None:
    today = local_today()
    r = holder(clerk, "Fernando Alves Rocha", ServiceType.MOTOTAXI)
    notice(clerk, r.holder, 1, decided=False, notified_on=today - timedelta(days=10),
           defence_due=today + timedelta(days=5))
    rows = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    defence = [x for x in rows if x.kind is K.DEFENCE_PERIOD]
    assert len(defence) == 1
    row = defence[0]
    assert row.days_left == 5 and row.person_id == r.holder.person_id
    assert row.detail.startswith("auto AI-0001/")
    assert row.service is ServiceType.MOTOTAXI and row.permit_number == r.holder.permit_number
    assert row.deadline.article == "Art. 29, § 3º"
    # the service filter keeps it (the offender's permit is mototáxi) and drops it for another service
    assert any(x.kind is K.DEFENCE_PERIOD
               for x in svc.deadlines(clerk, DeadlineFilter(service=ServiceType.MOTOTAXI), today=today))
    assert not any(x.kind is K.DEFENCE_PERIOD
                   for x in svc.deadlines(clerk, DeadlineFilter(service=ServiceType.MOTOBOY), today=today))


def test_inspections_and_ended_permits(clerk: AppContext) -> None:
    today = local_today()
    r = holder(clerk, "Gabriela Martins Teixeira", ServiceType.MOTOFRETE)
    inspection(clerk, r.holder, status="failed", next_due=today + timedelta(days=12))
    gone = holder(clerk, "Hugo Ferreira Campos", medical_issued=today - timedelta(days=400),
                  state=PermitState.REVOKED)
    rows = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    insp = [x for x in rows if x.kind is K.INSPECTION]
    assert [(x.person_id, x.days_left) for x in insp] == [(r.holder.person_id, 12)]
    assert insp[0].detail == f"placa {r.holder.plate}"
    assert gone.holder.person_id not in {x.person_id for x in rows}  # no permit in force: nothing to renew


def test_every_role_may_look(inspector: AppContext, supervisor: AppContext, ctx: AppContext) -> None:
    today = local_today()
    holder(supervisor, "Igor Nascimento Luz", medical_issued=today - timedelta(days=360))
    for who in (inspector, supervisor, ctx):
        assert any(r.person_name == "Igor Nascimento Luz" for r in svc.deadlines(who, today=today))
    assert svc.person_deadlines(ctx, svc.deadlines(ctx, today=today)[0].person_id, today=today)


def test_renewal_letters_one_per_holder(clerk: AppContext, inspector: AppContext) -> None:
    today = local_today()
    a = holder(clerk, "Juliana Ribeiro Alves", medical_issued=today - timedelta(days=360),
               cnh_valid_until=today + timedelta(days=25))
    holder(clerk, "Lucas Gomes Pereira", ServiceType.MOTOTAXI, medical_issued=today - timedelta(days=370))
    rows = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    assert len(rows) == 3
    campaign = Campaign(deadline=today + timedelta(days=30), portaria="Portaria SESTRAN nº 12/2026")
    result = svc.renewal_letters(clerk, rows, campaign, today=today)
    assert result.letters == 2 and result.skipped == ()
    reader = PdfReader(io.BytesIO(result.pdf))
    texts = [" ".join(p.extract_text().split()) for p in reader.pages]
    assert len(texts) == 2  # one A4 page per letter
    assert abs(float(reader.pages[0].mediabox.width) - 595.28) < 1
    first = next(t for t in texts if "Juliana Ribeiro Alves" in t)
    assert a.holder.permit_number in first
    assert "Renovação do atestado médico" in first and "Validade da CNH" in first
    assert "Portaria SESTRAN nº 12/2026" in first
    assert (today + timedelta(days=30)).strftime("%d/%m/%Y") in first
    assert "Lucas Gomes Pereira" in next(t for t in texts if "Mototáxi" in t)

    with pytest.raises(PermissionDeniedError):
        svc.renewal_letters(inspector, rows, campaign, today=today)
    with raises_code(InvalidInputError, "invalid_input", fields=("deadline",)):
        svc.renewal_letters(clerk, rows, Campaign(deadline=today - timedelta(days=1)), today=today)
    with raises_code(InvalidInputError, "deadline.no_permit_in_force"):
        svc.renewal_letters(clerk, [], campaign, today=today)


def test_a_deputys_documents_fall_due_on_the_holders_permit(clerk: AppContext) -> None:
    """Art. 14, § 2º: the deputy meets the same requirements; while the link lasts, their CNH and
    medical certificate are the holder's deadlines too, named in the detail (and gone once it ends)."""
    from enforcement_factory import add_person  # type: ignore[import-not-found]

    from motodesk.models import DeputyLink, PersonDocument
    from motodesk.rules.dossier import DocumentKind

    today = local_today()
    r = holder(clerk, "Helena Moura Prado")
    deputy_id, _cpf = add_person(clerk, "Otávio Prado Lemos")
    with clerk.write() as s:
        existing_register(s)
        s.add(PersonDocument(person_id=deputy_id, kind=DocumentKind.CNH, number="34046871254", categories="A",
                             valid_until=today + timedelta(days=12)))
        s.add(PersonDocument(person_id=deputy_id, kind=DocumentKind.MEDICAL, issue_date=today - timedelta(days=370)))
        link = DeputyLink(permit_id=r.holder.permit_id, deputy_person_id=deputy_id, start_on=today - timedelta(days=60))
        s.add(link)
        s.flush()
        link_id = link.id
    rows = [x for x in svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
            if x.person_id == r.holder.person_id and x.detail == "preposto Otávio Prado Lemos"]
    assert {(x.kind, x.days_left) for x in rows} == {(K.CNH, 12), (K.MEDICAL, -5)}
    assert all(x.permit_number == r.holder.permit_number for x in rows)
    assert not [x for x in svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
                if x.person_id == deputy_id]  # listed under the permit, not as a holder of their own

    with clerk.write() as s:  # the link ended yesterday: the deputy's documents are no longer the holder's
        existing_register(s)
        s.get(DeputyLink, link_id).end_on = today - timedelta(days=1)
    rows = svc.deadlines(clerk, DeadlineFilter(horizon_days=30), today=today)
    details = {x.detail for x in rows if x.person_id == r.holder.person_id}
    assert "preposto Otávio Prado Lemos" in details  # the deregistration notice (Art. 31) still is
    assert {x.kind for x in rows if x.person_id == r.holder.person_id and x.detail.startswith("preposto")} == {
        K.DEPUTY_DEREGISTRATION}
