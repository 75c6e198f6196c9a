"""Art. 25: the employer or contractor of a moto-frete service (an organisation) as the offender of a notice,
on SQLite and PostgreSQL."""

from __future__ import annotations

import io
from datetime import timedelta

from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
from pypdf import PdfReader
from sqlalchemy import select
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
from motodesk.services.organisations import OrganisationInput, OrganisationKind
from motodesk.services.settings import law_settings

EMPLOYER_CNPJ = "11.222.333/0001-81"


def _employer(supervisor: AppContext) -> int:
    return organisations.save_organisation(supervisor, OrganisationInput(
        kind=OrganisationKind.OPERATOR, name="Entregas Rápidas Patrocínio Ltda", cnpj=EMPLOYER_CNPJ,
        address="Avenida Faria Pereira, 1200, Centro", phone="(34) 3831-4040", email="contato@entregas.com.br",
        contact_name="Ana Paula Souza")).id


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
    after = created.defence_due + timedelta(days=1)
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
