"""Art. 25: the employer or contractor of a moto-frete service (an organisation) as the offender of a notice,
on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json
from datetime import date, timedelta

import pytest
from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
from pypdf import PdfReader
from sqlalchemy import select, text
from tests_helpers import raises_rule  # type: ignore[import-not-found]

from motodesk.models import Decision, InfractionNotice
from motodesk.rules.common import ServiceType
from motodesk.rules.infractions import Penalty
from motodesk.services import enforcement, organisations
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    DecisionInput,
    NoticeInput,
    NoticeStatus,
    OffenderKind,
    Outcome,
)
from motodesk.services.errors import InvalidInputError, RuleViolationError
from motodesk.services.organisations import OrganisationInput, OrganisationKind
from motodesk.services.settings import law_settings

EMPLOYER_CNPJ = "11.222.333/0001-81"


def _employer(supervisor: AppContext) -> int:
    return organisations.save_organisation(supervisor, OrganisationInput(
        kind=OrganisationKind.OPERATOR, name="Entregas Rápidas Patrocínio Ltda", cnpj=EMPLOYER_CNPJ,
        address="Avenida Faria Pereira, 1200, Centro", phone="(34) 3831-4040", email="contato@entregas.com.br",
        contact_name="Ana Paula Souza")).id


def _after(created: enforcement.NoticeCreated) -> date:
    """The day after the defence period of a notice signed on the spot."""
    assert created.defence_due is not None
    return created.defence_due + timedelta(days=1)


def _input(code: str, organisation_id: int | None, kind: OffenderKind = OffenderKind.ORGANISATION,
           person_id: int | None = None) -> NoticeInput:
    return NoticeInput(
        infraction_code=code, occurred_at=an_hour_ago(), place="Rua Presidente Vargas, 300, Centro",
        offender_kind=kind, organisation_id=organisation_id, person_id=person_id,
        description="Condutor de moto-frete a serviço da empresa sem habilitação na categoria A.")


def test_an_employer_notice_is_recorded_and_decided_with_a_fine(ctx: AppContext, inspector: AppContext,
                                                                supervisor: AppContext) -> None:
    employer = _employer(supervisor)
    created = enforcement.create_notice(inspector, _input("25.I", employer))
    with ctx.read() as s:
        row = s.get(InfractionNotice, created.id)
        assert row is not None
        assert row.offender_kind == "organisation" and row.article == "Art. 25, I"
        assert row.offender_name == "Entregas Rápidas Patrocínio Ltda (CNPJ 11.222.333/0001-81)"
        assert row.person_id is None and row.permit_id is None
        assert row.organisation_id == employer
    view = enforcement.get_notice(inspector, created.id)
    assert view.offender_kind is OffenderKind.ORGANISATION and view.status is NoticeStatus.OPEN
    # The copy handed to the offender (Art. 29, § 2º) names the company, its CNPJ and the article.
    reader = PdfReader(io.BytesIO(enforcement.notice_pdf(inspector, created.id)))
    printed = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    assert "Entregas Rápidas Patrocínio Ltda" in printed and "11.222.333/0001-81" in printed
    assert "Art. 25, I" in printed

    # Suspension and cassação reach a permit or a deputy's link; the company has neither.
    options = enforcement.decision_options(supervisor, created.id)
    assert options.allowed == [Penalty.FINE] and not options.permit_affected
    after = _after(created)
    with raises_rule("enforcement_organisation_penalty"):
        enforcement.decide(supervisor, created.id, DecisionInput(
            Outcome.UPHELD, "Condutor inabilitado comprovado.", penalty=Penalty.SUSPENSION, suspension_days=30),
            today=after)
    with ctx.read() as s:
        assert s.scalars(select(Decision).where(Decision.notice_id == created.id)).first() is None

    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Condutor inabilitado comprovado.", penalty=Penalty.FINE), today=after)
    settings = law_settings(ctx)
    assert result.penalty is Penalty.FINE and result.status is NoticeStatus.DECIDED
    assert result.severity is not None and result.fine_ufm == settings.fine_ufm(result.severity)
    assert result.fine_brl is not None and result.fine_ufm is not None
    assert result.fine_brl == (result.fine_ufm * settings.ufm_value_brl).quantize(result.fine_brl)
    assert result.permit_effect is None  # a fine changes no permit and no deputy link


def test_art25_is_only_for_an_organisation_and_an_organisation_only_for_art25(
        ctx: AppContext, inspector: AppContext, supervisor: AppContext) -> None:
    employer = _employer(supervisor)
    with raises_rule("enforcement_organisation_kind"):
        enforcement.create_notice(inspector, _input("30.2.VI", employer))
    holder = add_holder(ctx, service=ServiceType.MOTOFRETE)
    with raises_rule("enforcement_employer_only"):
        enforcement.create_notice(inspector, _input("25.II", None, OffenderKind.HOLDER, holder.person_id))
    with ctx.read() as s:
        assert s.scalars(select(InfractionNotice)).first() is None


def _rule_ids(exc: pytest.ExceptionInfo[RuleViolationError]) -> list[tuple[str, str]]:
    return [(v.rule_id, v.article) for v in exc.value.verdicts]


def test_the_notice_names_the_organisation_is_audited_and_listed(ctx: AppContext, inspector: AppContext,
                                                                  supervisor: AppContext) -> None:
    employer = _employer(supervisor)
    first = _input("25.II", employer)
    assert first.occurred_at is not None
    first.occurred_at -= timedelta(days=3)  # a repeat offence is of an earlier day
    created = enforcement.create_notice(inspector, first)
    assert enforcement.get_notice(inspector, created.id).organisation_id == employer
    with ctx.db.engine.connect() as conn:
        changes = conn.execute(text("SELECT changes FROM audit_events WHERE table_name = 'infraction_notices' "
                                    "AND action = 'insert' AND row_key = :k"), {"k": str(created.id)}).scalar()
    assert changes is not None and json.loads(changes)["organisation_id"][1] == employer
    rows = enforcement.list_notices(inspector)
    assert [(r.number, r.organisation_id, r.offender_label) for r in rows] == [
        (created.number, employer, "Empresa (Art. 25): Entregas Rápidas Patrocínio Ltda (CNPJ 11.222.333/0001-81)")]
    # The organisation's CNPJ finds its notices.
    assert [r.id for r in enforcement.list_notices(inspector, "11222333")] == [created.id]
    # A second notice of the same employer is a repeat offence once the first was upheld.
    after = _after(created)
    enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "Veículo sem baú certificado.",
                                                             penalty=Penalty.FINE), today=after)
    again = enforcement.create_notice(inspector, _input("25.I", employer))
    repeat = enforcement.get_notice(inspector, again.id).repeat
    assert [r.number for r in repeat.previous] == [created.number]
    # The organisation's record: both notices, newest first, the second a repeat offence.
    record = enforcement.offender_history(inspector, organisation_id=employer)
    assert [(r.number, r.repeat) for r in record] == [(again.number, True), (created.number, False)]


def test_an_unknown_organisation_is_refused_with_art25(ctx: AppContext, inspector: AppContext,
                                                       supervisor: AppContext) -> None:
    employer = _employer(supervisor)
    with raises_rule("enforcement_organisation_unknown") as refused:
        enforcement.create_notice(inspector, _input("25.I", employer + 1000))
    assert _rule_ids(refused) == [("enforcement_organisation_unknown", "Art. 25, parágrafo único")]
    with pytest.raises(InvalidInputError) as missing:
        enforcement.create_notice(inspector, _input("25.I", None))
    assert "organisation" in missing.value.fields
    with ctx.read() as s:
        assert s.scalars(select(InfractionNotice)).first() is None


def test_each_refusal_names_its_rule_and_article(ctx: AppContext, inspector: AppContext,
                                                 supervisor: AppContext) -> None:
    employer = _employer(supervisor)
    # An infraction the law addresses to the holder or his deputy (Art. 30): never the organisation.
    with pytest.raises(RuleViolationError) as refused:
        enforcement.create_notice(inspector, _input("30.3.I", employer))
    assert _rule_ids(refused) == [("enforcement_organisation_kind", "Art. 25, parágrafo único")]
    # Art. 25 answers the employer, never the rider.
    holder = add_holder(ctx, service=ServiceType.MOTOFRETE)
    with pytest.raises(RuleViolationError) as refused:
        enforcement.create_notice(inspector, _input("25.I", None, OffenderKind.HOLDER, holder.person_id))
    assert _rule_ids(refused) == [("enforcement_employer_only", "Art. 25, parágrafo único")]
    # A holder's notice names no organisation besides.
    with raises_rule("enforcement_organisation_for_person") as refused:
        enforcement.create_notice(inspector, _input("30.2.VI", employer, OffenderKind.HOLDER, holder.person_id))
    assert _rule_ids(refused) == [("enforcement_organisation_for_person", "Art. 25, parágrafo único")]
    with ctx.read() as s:
        assert s.scalars(select(InfractionNotice)).first() is None

    # Penalties against a permit never reach the organisation: suspension and cassação are refused.
    created = enforcement.create_notice(inspector, _input("25.I", employer))
    after = _after(created)
    for penalty, article in ((Penalty.SUSPENSION, "Art. 34, III"), (Penalty.REVOCATION, "Art. 34, IV")):
        with raises_rule("enforcement_organisation_penalty") as refused:
            enforcement.decide(supervisor, created.id, DecisionInput(
                Outcome.UPHELD, "Condutor inabilitado comprovado.", penalty=penalty, suspension_days=30),
                today=after)
        assert _rule_ids(refused) == [("enforcement_organisation_penalty", article)]
    assert enforcement.get_notice(inspector, created.id).status is NoticeStatus.OPEN
    with ctx.read() as s:
        assert s.scalars(select(Decision).where(Decision.notice_id == created.id)).first() is None
