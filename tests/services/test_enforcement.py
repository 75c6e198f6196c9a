"""Notices, defence, decisions, appeals and their effects on the permit (Art. 29–35), on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import threading
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from enforcement_factory import add_deputy, add_holder, an_hour_ago  # type: ignore[import-not-found]
from pypdf import PdfReader
from sqlalchemy import select
from tests_helpers import check_wording, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Attachment, Decision, InfractionNotice, Permit, PermitEvent
from motodesk.printing.token import BadgeClaim, cpf_digest, sign_claim
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.deadlines import DeadlineKind, defence_due
from motodesk.rules.infractions import Penalty, Severity
from motodesk.services import badges, enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    DecisionInput,
    FiledDocument,
    NoticeInput,
    NoticeStatus,
    OffenderKind,
    Outcome,
    PermitEffect,
    Signature,
)
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings, update_settings

TROCO = "30.2.VI"  # Art. 30, Grupo 2, VI: sonegar troco (média)
DESACATO = "30.3.I"  # Art. 30, Grupo 3, I: desacatar a fiscalização (grave)
ARMA = "30.4.II"  # Art. 30, Grupo 4, II: arma no veículo (gravíssima)
BAIXA_PREPOSTO = "31.1.I"  # Art. 31, Grupo 1, I (leve, a duty of the holder)
A4 = (595.0, 842.0)


def _notice(inspector: AppContext, holder, code: str = TROCO, *, signature: Signature = Signature.SIGNED,  # noqa: ANN001
            occurred_at: datetime | None = None) -> enforcement.NoticeCreated:
    return enforcement.create_notice(inspector, NoticeInput(
        infraction_code=code, occurred_at=occurred_at or an_hour_ago(), place="Praça Honorato Borges, Centro",
        offender_kind=OffenderKind.HOLDER, person_id=holder.person_id,
        description="Passageiro pagou R$ 20,00 por corrida de R$ 12,00 e não recebeu o troco.",
        signature=signature))


def _after_defence(created: enforcement.NoticeCreated) -> date:
    return created.defence_due + timedelta(days=1)


def _pdf_text(pdf: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(pdf))
    return reader, " ".join(" ".join(page.extract_text() for page in reader.pages).split())


# --- the notice --------------------------------------------------------------------------------------


def test_inspector_writes_a_notice_for_sonegar_troco(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder)
    year = datetime.now(enforcement.LOCAL_TZ).year
    assert created.number == f"AI-0001/{year}"
    assert created.defence_due == defence_due(created.notified_on, law_settings(ctx)).due
    assert created.defence_due > created.notified_on
    second = _notice(inspector, holder, DESACATO)
    assert second.number == f"AI-0002/{year}"
    view = enforcement.get_notice(inspector, created.id)
    assert view.status is NoticeStatus.OPEN
    assert view.infraction.article == "Art. 30, Grupo 2, VI" and view.infraction.text == "sonegar troco"
    assert view.severity is Severity.MEDIA
    assert view.permit_number == holder.permit_number and view.plate.replace("-", "") == holder.plate
    assert view.inspector_login == "inspector" and view.signature is Signature.SIGNED
    with ctx.read() as s:
        row = s.get(InfractionNotice, created.id)
        assert row.occurred_at.tzinfo is not None and row.inspector_name == inspector.user.full_name


def test_the_notice_prints_in_two_copies_on_a4(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder)
    reader, text = _pdf_text(enforcement.notice_pdf(inspector, created.id))
    assert len(reader.pages) == 2
    assert all((round(float(p.mediabox.width)), round(float(p.mediabox.height))) == A4 for p in reader.pages)
    assert "1ª via – Autuado" in text and "2ª via – Processo" in text
    assert created.number in text and "sonegar troco" in text and "Art. 30, Grupo 2, VI" in text
    assert holder.name in text and created.defence_due.strftime("%d/%m/%Y") in text
    documents = enforcement.notice_documents(inspector, created.id)
    assert [title for title, _ in documents] == [f"Auto de Infração {created.number}"]
    with raises_rule("no_refusal"):
        enforcement.refusal_certificate_pdf(inspector, created.id)


def test_a_refusal_to_sign_prints_the_inspectors_certificate(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder, signature=Signature.REFUSED)
    assert created.refused_to_sign
    documents = enforcement.notice_documents(inspector, created.id)
    assert len(documents) == 2
    _reader, notice_text = _pdf_text(documents[0][1])
    assert "RECUSOU-SE A ASSINAR" in notice_text
    _reader, text = _pdf_text(documents[1][1])
    assert "Certidão de Recusa de Assinatura" in text and created.number in text
    assert "recusou-se a assiná-lo" in text and holder.name in text


def test_the_printed_time_is_local_time(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    occurred = datetime(2025, 3, 10, 13, 5, tzinfo=UTC)  # 10:05 in Patrocínio (UTC-3)
    created = _notice(inspector, holder, occurred_at=occurred)
    _reader, text = _pdf_text(enforcement.notice_pdf(inspector, created.id))
    assert "10/03/2025 às 10:05" in text


def test_a_notice_dated_in_the_future_is_refused(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    with pytest.raises(InvalidInputError) as info:
        _notice(inspector, holder, occurred_at=datetime.now(UTC) + timedelta(hours=2))
    assert "Art. 29, § 1º" in info.value.fields["occurred_at"] and "no futuro" in info.value.fields["occurred_at"]
    with ctx.read() as s:
        assert s.scalar(select(InfractionNotice.id)) is None


def test_bad_notice_input_names_each_field(ctx: AppContext, inspector: AppContext) -> None:
    with raises_code(InvalidInputError, "invalid_input", fields=("infraction",)):
        enforcement.create_notice(inspector, NoticeInput("99.9.IX", an_hour_ago(), "x", OffenderKind.HOLDER))
    with pytest.raises(InvalidInputError) as info:
        enforcement.create_notice(inspector, NoticeInput(TROCO, None, " ", OffenderKind.HOLDER))
    assert {"occurred_at", "place", "description", "person"} <= set(info.value.fields)


def test_only_inspectors_and_supervisors_write_notices(ctx: AppContext, clerk: AppContext,
                                                       supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    with raises_code(PermissionDeniedError, "permission_denied"):
        _notice(clerk, holder)
    assert _notice(supervisor, holder).number.startswith("AI-0001/")


def test_a_holder_without_permit_in_force_is_not_a_holder(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx, state=PermitState.REVOKED)
    with raises_rule("no_permit"):
        _notice(inspector, holder)


def test_deputy_notices_and_holder_only_duties(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    deputy_id, _cpf = add_deputy(ctx, holder)
    created = enforcement.create_notice(inspector, NoticeInput(
        TROCO, an_hour_ago(), "Av. Faria Pereira", OffenderKind.DEPUTY, person_id=deputy_id,
        description="Não devolveu o troco."))
    view = enforcement.get_notice(inspector, created.id)
    assert view.offender_kind is OffenderKind.DEPUTY and view.permit_id == holder.permit_id
    assert view.offender_name == "Marcos Antônio Ribeiro"
    with raises_rule("holder_only"):
        enforcement.create_notice(inspector, NoticeInput(
            BAIXA_PREPOSTO, an_hour_ago(), "Sede da SESTRAN", OffenderKind.DEPUTY, person_id=deputy_id,
            description="x"))
    choices = enforcement.find_offenders(inspector, "Marcos Antônio")
    assert [(c.kind, c.permit_number) for c in choices] == [(OffenderKind.DEPUTY, holder.permit_number)]
    by_plate = enforcement.find_offenders(inspector, holder.plate[:3] + "-" + holder.plate[3:])
    assert [c.person_id for c in by_plate] == [holder.person_id]


# --- numbering ------------------------------------------------------------------------------------


def test_numbering_retries_when_another_workstation_took_the_number(ctx: AppContext, inspector: AppContext,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    holder = add_holder(ctx)
    first = _notice(inspector, holder)
    real = enforcement.notices._last_seq
    calls = {"n": 0}

    def stale(s, year):  # noqa: ANN001, ANN202 - the first look misses the notice just written elsewhere
        calls["n"] += 1
        return 0 if calls["n"] == 1 else real(s, year)

    monkeypatch.setattr(enforcement.notices, "_last_seq", stale)
    second = _notice(inspector, holder)
    assert calls["n"] == 2
    assert first.number.startswith("AI-0001/") and second.number.startswith("AI-0002/")


def test_two_inspectors_at_once_get_distinct_numbers(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    other = inspector.as_user(enforcement_user("fiscal2", "Rita de Cássia Nunes"))
    barrier = threading.Barrier(2)
    results: list[str] = []
    failures: list[BaseException] = []

    def write(who: AppContext) -> None:
        try:
            for _ in range(3):
                barrier.wait(timeout=30)
                results.append(_notice(who, holder).number)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=write, args=(who,)) for who in (inspector, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert len(results) == 6 and len(set(results)) == 6
    assert sorted(int(n[3:7]) for n in results) == [1, 2, 3, 4, 5, 6]


def enforcement_user(login: str, name: str):  # noqa: ANN201
    from motodesk.rules.common import Role
    from motodesk.services.context import CurrentUser

    return CurrentUser(id=None, login=login, full_name=name, role=Role.INSPECTOR)


# --- defence and decision --------------------------------------------------------------------------


def test_decision_waits_for_the_defence_period(ctx: AppContext, inspector: AppContext, clerk: AppContext,
                                               supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder)
    decision = DecisionInput(Outcome.UPHELD, "Relato do fiscal confirmado.", Penalty.WARNING)
    with pytest.raises(RuleViolationError, match=r"Art\. 29, § 3º: o prazo de defesa .* vai até "
                                                 + created.defence_due.strftime("%d/%m/%Y")):
        enforcement.decide(supervisor, created.id, decision, today=created.notified_on)
    with pytest.raises(RuleViolationError):
        enforcement.decide(supervisor, created.id, decision, today=created.defence_due)  # its last day
    enforcement.record_defence(clerk, created.id, FiledDocument(waived=True))
    result = enforcement.decide(supervisor, created.id, decision, today=created.notified_on)
    assert result.outcome is Outcome.UPHELD and result.penalty is Penalty.WARNING
    assert result.status is NoticeStatus.DECIDED
    assert result.appeal_due is None  # the appeal period runs from the decision's notification (Art. 34, §ún.)


def test_decision_after_the_period_without_defence(ctx: AppContext, inspector: AppContext,
                                                   supervisor: AppContext) -> None:
    created = _notice(inspector, add_holder(ctx))
    result = enforcement.decide(supervisor, created.id,
                                DecisionInput(Outcome.DISMISSED, "Troco devolvido, conforme o passageiro."),
                                today=_after_defence(created))
    assert result.status is NoticeStatus.CLOSED and result.penalty is None
    assert enforcement.get_notice(supervisor, created.id).closed_by == "supervisor"
    with raises_rule("enforcement_closed"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "x"),
                           today=_after_defence(created))


def test_a_defence_with_its_scan(ctx: AppContext, inspector: AppContext, clerk: AppContext,
                                 supervisor: AppContext) -> None:
    created = _notice(inspector, add_holder(ctx))
    pdf = enforcement.notice_pdf(inspector, created.id)  # any real PDF will do as a scan
    recorded = enforcement.record_defence(clerk, created.id, FiledDocument(
        text="O passageiro recusou o troco em moedas.", files=[("defesa.pdf", pdf)]))
    assert not recorded.late and len(recorded.attachment_ids) == 1
    view = enforcement.get_notice(clerk, created.id)
    assert view.defence_on_file and view.filed[0].attachments[0].filename == "defesa.pdf"
    name, media_type, content = enforcement.defence_attachment(clerk, recorded.attachment_ids[0])
    assert (name, media_type, content) == ("defesa.pdf", "application/pdf", pdf)
    with ctx.read() as s:
        assert s.get(Attachment, recorded.attachment_ids[0]).owner_table == "defences"
    with raises_code(InvalidInputError, "attachment.bad_type"):
        enforcement.record_defence(clerk, created.id, FiledDocument(text="x", files=[("carta.pdf", b"hello")]))
    with pytest.raises(InvalidInputError) as info:
        enforcement.record_defence(clerk, created.id, FiledDocument())
    assert "text" in info.value.fields
    with raises_code(InvalidInputError, "invalid_input", fields=("received_on",)) as info:
        enforcement.record_defence(clerk, created.id, FiledDocument(
            text="x", received_on=date.today() + timedelta(days=3)))
    assert "no futuro" in info.value.fields["received_on"]
    with pytest.raises(PermissionDeniedError):
        enforcement.record_defence(inspector, created.id, FiledDocument(text="x"))
    enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "Acolhida a defesa."),
                       today=created.notified_on)
    with raises_rule("defence_after_decision"):
        enforcement.record_defence(clerk, created.id, FiledDocument(text="Mais argumentos."))


def test_upheld_with_a_fine_in_ufm_and_reais_from_the_setting(ctx: AppContext, inspector: AppContext,
                                                              supervisor: AppContext) -> None:
    update_settings(ctx, {"ufm_value_brl": Decimal("123.45")})
    created = _notice(inspector, add_holder(ctx))
    options = enforcement.decision_options(supervisor, created.id)
    assert options.allowed == [Penalty.WARNING, Penalty.FINE]
    assert (options.fine_ufm, options.fine_brl) == (Decimal("2"), Decimal("246.90"))
    result = enforcement.decide(supervisor, created.id,
                                DecisionInput(Outcome.UPHELD, "Infração comprovada.", Penalty.FINE),
                                today=_after_defence(created))
    assert (result.fine_ufm, result.ufm_value_brl, result.fine_brl) == (Decimal("2"), Decimal("123.45"),
                                                                         Decimal("246.90"))
    update_settings(ctx, {"ufm_value_brl": Decimal("200.00")})  # a new UFM value does not change the past
    view = enforcement.get_notice(supervisor, created.id)
    decision = view.final_decision
    assert decision is not None and decision.fine_brl == Decimal("246.90")
    assert decision.summary == "Multa de 2 UFM (R$ 246,90)"
    with ctx.read() as s:
        stored = s.scalar(select(Decision).where(Decision.notice_id == created.id))
        assert stored.ufm_value_brl == Decimal("123.45") and stored.decided_by == "supervisor"


def test_a_penalty_above_the_classification_is_refused_with_the_article(ctx: AppContext, inspector: AppContext,
                                                                        supervisor: AppContext) -> None:
    created = _notice(inspector, add_holder(ctx))
    day = _after_defence(created)
    with raises_rule("penalty_not_allowed"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.SUSPENSION,
                                                                 suspension_days=10), today=day)
    with raises_rule("reclassification"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.SUSPENSION,
                                                                 severity=Severity.GRAVE, suspension_days=10),
                           today=day)
    with raises_code(InvalidInputError, "invalid_input", fields=("grounds",)):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, " ", Penalty.FINE), today=day)
    with raises_code(InvalidInputError, "invalid_input", fields=("penalty",)):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x"), today=day)
    assert enforcement.get_notice(supervisor, created.id).status is NoticeStatus.OPEN


def test_an_inspector_cannot_decide(ctx: AppContext, inspector: AppContext, clerk: AppContext) -> None:
    created = _notice(inspector, add_holder(ctx))
    for who in (inspector, clerk):
        with raises_code(PermissionDeniedError, "permission_denied"):
            enforcement.decide(who, created.id, DecisionInput(Outcome.DISMISSED, "x"),
                               today=_after_defence(created))
    with pytest.raises(PermissionDeniedError):
        enforcement.close_process(inspector, created.id)


def test_reclassified_up_with_a_reason_admits_suspension(ctx: AppContext, inspector: AppContext,
                                                         supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder)
    options = enforcement.decision_options(supervisor, created.id, Severity.GRAVE)
    assert options.allowed == [Penalty.FINE, Penalty.SUSPENSION] and options.fine_ufm == Decimal("3")
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Terceira ocorrência no mesmo ponto.", Penalty.SUSPENSION, severity=Severity.GRAVE,
        reclassification_reason="Agravada: reteve o troco de passageira idosa.", suspension_days=5),
        today=_after_defence(created))
    assert result.severity is Severity.GRAVE and result.permit_effect is PermitEffect.SUSPENDED
    decision = enforcement.get_notice(supervisor, created.id).final_decision
    assert decision is not None and decision.reclassification_reason.startswith("Agravada")


def test_a_suspension_suspends_the_permit_and_its_badge(ctx: AppContext, inspector: AppContext,
                                                        supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    private, _public = badges._key_pair(ctx)
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        claim = BadgeClaim(permit.number, cpf_digest(holder.cpf), permit.certificate_valid_until, 1, "titular")
    token = sign_claim(claim, private)
    assert badges.verify_badge(inspector, token).status is badges.BadgeStatus.VALID

    created = _notice(inspector, holder, DESACATO)
    day = _after_defence(created)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Desacato presenciado por dois fiscais.", Penalty.SUSPENSION, suspension_days=10),
        today=day)
    assert (result.suspension_start, result.suspension_end) == (day, day + timedelta(days=10))
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        assert permit.state is PermitState.SUSPENDED and permit.suspended_until == day + timedelta(days=10)
        event = s.scalar(select(PermitEvent).where(PermitEvent.permit_id == holder.permit_id,
                                                   PermitEvent.transition == "suspend"))
        assert created.number in event.reason and event.by_user == "supervisor"
    verification = badges.verify_badge(inspector, token, today=day)
    assert verification.status is badges.BadgeStatus.SUSPENDED
    check_wording(verification.status.value, verification.message)


def test_a_failed_permit_step_leaves_neither_the_decision_nor_the_permit_change(
        ctx: AppContext, inspector: AppContext, supervisor: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """One transaction (issue 16): the decision is flushed, then the permit step fails — nothing stays."""
    holder = add_holder(ctx)
    created = _notice(inspector, holder, DESACATO)
    real = enforcement.decisions.permits.apply_suspend
    seen: dict[str, object] = {}

    def fails_after_the_change(s, user, permit, until, **kwargs) -> None:  # noqa: ANN001
        seen["decisions"] = len(s.scalars(select(Decision).where(Decision.notice_id == created.id)).all())
        real(s, user, permit, until, **kwargs)
        s.flush()  # the permit row is written too, in the same transaction
        raise ConflictError("Outra estação salvou este registro depois que você o abriu.")

    monkeypatch.setattr(enforcement.decisions.permits, "apply_suspend", fails_after_the_change)
    with pytest.raises(ConflictError):
        enforcement.decide(supervisor, created.id, DecisionInput(
            Outcome.UPHELD, "x", Penalty.SUSPENSION, suspension_days=3), today=_after_defence(created))
    assert seen["decisions"] == 1  # the decision had been flushed before the permit step
    view = enforcement.get_notice(supervisor, created.id)
    assert view.status is NoticeStatus.OPEN and view.decisions == []
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        assert permit.state is PermitState.ACTIVE and permit.suspended_until is None
        assert s.scalars(select(PermitEvent).where(PermitEvent.permit_id == holder.permit_id)).all() == []


def test_a_failed_revocation_at_closing_leaves_the_process_decided(
        ctx: AppContext, inspector: AppContext, supervisor: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder, ARMA)
    day = _after_defence(created)
    enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "Arma.", Penalty.REVOCATION), today=day)
    due = enforcement.record_decision_notification(
        supervisor, created.id, enforcement.NotificationInput(enforcement.NotificationMethod.IN_PERSON, day), today=day).appeal_due

    def fails(*_args, **_kwargs) -> None:  # noqa: ANN002, ANN003
        raise RuntimeError("falha injetada entre o encerramento e a cassação")

    monkeypatch.setattr(enforcement.decisions.permits, "apply_revoke", fails)
    with pytest.raises(RuntimeError):
        enforcement.close_process(supervisor, created.id, today=due + timedelta(days=1))
    view = enforcement.get_notice(supervisor, created.id)
    assert view.status is NoticeStatus.DECIDED and view.closed_at is None
    assert view.final_decision.permit_effect is PermitEffect.PENDING_REVOCATION
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE


def test_a_suspension_of_a_suspended_permit_is_refused_before_writing(ctx: AppContext, inspector: AppContext,
                                                                      supervisor: AppContext) -> None:
    holder = add_holder(ctx, state=PermitState.SUSPENDED)
    created = _notice(inspector, holder, DESACATO)
    with raises_rule("transition_state"):
        enforcement.decide(supervisor, created.id, DecisionInput(
            Outcome.UPHELD, "x", Penalty.SUSPENSION, suspension_days=3), today=_after_defence(created))
    assert enforcement.get_notice(supervisor, created.id).decisions == []


def test_a_revocation_takes_effect_when_the_decision_is_final(ctx: AppContext, inspector: AppContext,
                                                              clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder, ARMA)
    day = _after_defence(created)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Revólver encontrado sob o banco.", Penalty.REVOCATION), today=day)
    assert result.permit_effect is PermitEffect.PENDING_REVOCATION
    due = enforcement.record_decision_notification(
        clerk, created.id, enforcement.NotificationInput(enforcement.NotificationMethod.IN_PERSON, day), today=day).appeal_due
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE
    with raises_rule("enforcement_appeal_period"):
        enforcement.close_process(supervisor, created.id, today=day)
    closed = enforcement.close_process(supervisor, created.id, today=due + timedelta(days=1))
    assert closed.permit_effect is PermitEffect.REVOKED
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        assert permit.state is PermitState.REVOKED and created.number in permit.end_reason
    view = enforcement.get_notice(clerk, created.id)
    assert view.status is NoticeStatus.CLOSED and view.final_decision.permit_effect is PermitEffect.REVOKED


def test_an_appeal_against_a_suspension_granted_reinstates(ctx: AppContext, inspector: AppContext,
                                                           clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder, DESACATO)
    day = _after_defence(created)
    first = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Desacato.", Penalty.SUSPENSION, suspension_days=30), today=day)
    with raises_rule("enforcement_already_decided"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "x"), today=day)
    assert first.appeal_due is None
    due = enforcement.record_decision_notification(
        clerk, created.id, enforcement.NotificationInput(enforcement.NotificationMethod.IN_PERSON, day), today=day).appeal_due
    with raises_rule("appeal_late"):
        enforcement.record_appeal(clerk, created.id, FiledDocument(
            text="Recorro.", received_on=due + timedelta(days=1)),
            today=due + timedelta(days=2))
    enforcement.record_appeal(clerk, created.id, FiledDocument(text="Não houve desacato; há testemunhas.",
                                                              received_on=day), today=day)
    assert enforcement.get_notice(clerk, created.id).status is NoticeStatus.APPEALED
    later = day + timedelta(days=5)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.DISMISSED, "Testemunhas confirmam a versão do recorrente."), today=later)
    assert result.stage is enforcement.Stage.APPEAL and result.status is NoticeStatus.CLOSED
    assert result.permit_effect is PermitEffect.REINSTATED
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE
        transitions = list(s.scalars(select(PermitEvent.transition).where(PermitEvent.permit_id == holder.permit_id)
                                     .order_by(PermitEvent.id)))
        assert transitions == ["suspend", "reinstate"]


def test_an_appeal_reduces_a_suspension_counted_from_its_first_day(ctx: AppContext, inspector: AppContext,
                                                                   clerk: AppContext,
                                                                   supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder, DESACATO)
    day = _after_defence(created)
    enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.SUSPENSION,
                                                             suspension_days=30), today=day)
    enforcement.record_appeal(clerk, created.id, FiledDocument(text="Pena excessiva.", received_on=day), today=day)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Reduzida: primeira ocorrência.", Penalty.SUSPENSION, suspension_days=10),
        today=day + timedelta(days=3))
    assert (result.suspension_start, result.suspension_end) == (day, day + timedelta(days=10))
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).suspended_until == day + timedelta(days=10)


def test_art32_unregistered_person_and_vehicle(ctx: AppContext, inspector: AppContext,
                                               supervisor: AppContext) -> None:
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    cpf = valid_cpf()
    created = enforcement.create_notice(inspector, NoticeInput(
        "32", an_hour_ago(), "Rodoviária de Patrocínio", OffenderKind.UNREGISTERED,
        offender_name="Fulano de Tal Moreira", offender_cpf=cpf, plate="xyz-9876",
        vehicle_description="Honda CG vermelha", description="Transportava passageiro mediante pagamento."))
    assert created.vehicle_seized
    view = enforcement.get_notice(inspector, created.id)
    assert (view.person_id, view.offender_cpf, view.plate) == (None, cpf, "XYZ-9876")
    _reader, text = _pdf_text(enforcement.notice_pdf(inspector, created.id))
    assert "5 UFM e apreensão do veículo" in text and "Não permissionário" in text
    day = _after_defence(created)
    with raises_rule("penalty_fixed"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.WARNING), today=day)
    with raises_rule("reclassification"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.FINE,
                                                                 severity=Severity.LEVE,
                                                                 reclassification_reason="motivo"), today=day)
    result = enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "Flagrante.", Penalty.FINE),
                                today=day)
    assert (result.fine_ufm, result.fine_brl) == (Decimal("5"), Decimal("500.00"))
    assert [r.number for r in enforcement.offender_history(supervisor, cpf=cpf)] == [created.number]
    assert [r.number for r in enforcement.offender_history(supervisor, plate="XYZ9876")] == [created.number]


def test_art32_is_not_for_a_mototaxi_permit_holder_nor_arts_30_31_for_the_unregistered(
        ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOTAXI)
    with raises_rule("art32_has_permit"):
        enforcement.create_notice(inspector, NoticeInput(
            "32", an_hour_ago(), "Centro", OffenderKind.UNREGISTERED, offender_cpf=holder.cpf, plate="ABC1234",
            description="x"))
    with raises_rule("unregistered_kind"):
        enforcement.create_notice(inspector, NoticeInput(
            TROCO, an_hour_ago(), "Centro", OffenderKind.UNREGISTERED, offender_name="Beltrano Souza",
            plate="ABC1234", description="x"))
    with pytest.raises(InvalidInputError) as info:
        enforcement.create_notice(inspector, NoticeInput(
            "32", an_hour_ago(), "Centro", OffenderKind.UNREGISTERED, offender_name="Beltrano Souza",
            description="x"))
    assert "apreendido" in info.value.fields["plate"]


# --- history, repeat offences, deadlines, lists ------------------------------------------------------------


def test_history_highlights_repeat_offences_within_the_window(ctx: AppContext, inspector: AppContext,
                                                              supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    now = datetime.now(UTC)
    old = _notice(inspector, holder, occurred_at=now - timedelta(days=500))
    recent = _notice(inspector, holder, occurred_at=now - timedelta(days=100))
    latest = _notice(inspector, holder, DESACATO, occurred_at=now - timedelta(hours=2))
    for created in (old, recent):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.WARNING),
                           today=_after_defence(created))
    repeat = enforcement.get_notice(supervisor, latest.id).repeat
    assert repeat.is_repeat and [r.number for r in repeat.previous] == [recent.number]
    assert repeat.window_days == 365 and recent.number in repeat.message
    history = enforcement.offender_history(supervisor, person_id=holder.person_id)
    assert [(r.number, r.repeat) for r in history] == [(latest.number, True), (recent.number, False),
                                                       (old.number, False)]
    assert history[1].penalty_summary == "Advertência por escrito"
    update_settings(ctx, {"repeat_offence_window_days": 30})
    assert not enforcement.get_notice(supervisor, latest.id).repeat.is_repeat


def test_open_process_deadlines_for_the_deadlines_view(ctx: AppContext, inspector: AppContext,
                                                       supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder)
    today = created.notified_on
    found = enforcement.open_process_deadlines(supervisor, today)
    assert [(d.notice_number, d.deadline.kind, d.deadline.due, d.person_name) for d in found] == [
        (created.number, DeadlineKind.DEFENCE_PERIOD, created.defence_due, holder.name)]
    assert found[0].deadline.article == "Art. 29, § 3º" and found[0].days_left == (created.defence_due - today).days
    day = _after_defence(created)
    enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "x", Penalty.WARNING), today=day)
    assert enforcement.open_process_deadlines(supervisor, today) == []  # no period before the notification
    due = enforcement.record_decision_notification(
        supervisor, created.id, enforcement.NotificationInput(enforcement.NotificationMethod.IN_PERSON, day), today=day).appeal_due
    found = enforcement.open_process_deadlines(supervisor, today)
    assert [(d.deadline.kind, d.deadline.due) for d in found] == [(DeadlineKind.APPEAL_PERIOD, due)]
    enforcement.close_process(supervisor, created.id, today=due + timedelta(days=1))
    assert enforcement.open_process_deadlines(supervisor, today) == []


def test_the_list_searches_and_filters(ctx: AppContext, inspector: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, "Ana Lúcia Ferreira")
    other = add_holder(ctx, "Bruno Henrique Dias")
    troco = _notice(inspector, holder)
    desacato = _notice(inspector, other, DESACATO)
    enforcement.decide(supervisor, desacato.id, DecisionInput(Outcome.DISMISSED, "x"),
                       today=_after_defence(desacato))

    def numbers(text: str = "", status: str = "all") -> list[str]:
        return [r.number for r in enforcement.list_notices(supervisor, text, status=status)]

    assert numbers() == [desacato.number, troco.number]
    assert numbers("troco") == [troco.number]
    assert numbers("Art. 30, Grupo 3, I") == [desacato.number]
    assert numbers("ana lucia") == [troco.number]
    assert numbers(holder.cpf) == [troco.number]
    assert numbers(other.plate) == [desacato.number]
    assert numbers(troco.number) == [troco.number]
    assert numbers("1/" + troco.number[-4:]) == [troco.number]
    assert numbers(status="in_progress") == [troco.number]
    assert numbers(status="closed") == [desacato.number]
    rows = enforcement.list_notices(supervisor, sort_key="offender_name", descending=False)
    assert [r.offender_name for r in rows] == ["Ana Lúcia Ferreira", "Bruno Henrique Dias"]
    assert rows[0].next_due == troco.defence_due and rows[0].next_due_label == "Defesa até"
