"""Fees of the counter's acts (Art. 6º, § 6º) on SQLite and PostgreSQL.

Every paid act — application, issue, renewal, extension, second copy of a badge, inspection — passes
with a zero fee, refuses without the guia/DAM and leaves nothing changed, passes with it, and uses a
DAM once. The certificates and the spreadsheets show what was paid.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from pypdf import PdfReader
from sqlalchemy import func, select
from tests_helpers import raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Application, AuditEvent, FeePayment, Inspection, Permit, PermitEvent
from motodesk.rules.checklist import ItemResult
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.fees import DEFAULT_LEGAL_BASIS, FeeAct
from motodesk.services import applications, badges, fees, inspections, permits
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    PermissionDeniedError,
)
from motodesk.services.inspections import ItemAnswer
from motodesk.services.reports import export
from motodesk.services.settings import law_settings

TODAY = local_today()  # the secretariat's day: a payment dated after it is refused
BASIS = "Lei Complementar municipal nº 100/2025, anexo III"


def pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def _issued(ctx: AppContext, supervisor: AppContext, **kw: object) -> permits.IssuedPermit:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, **kw)
    permits.approve(supervisor, dossier.application_id, "1.234/2026", TODAY - timedelta(days=1))
    return permits.issue(supervisor, dossier.application_id)


# --- each act: how to set it up, run it, and see whether it happened --------------------------------


@dataclass
class Act:
    act: FeeAct
    prepare: Callable[[AppContext], int]  # -> the subject id the payment is for
    run: Callable[[AppContext, int], object]
    state: Callable[[AppContext, int], object]  # what the act changes, read back


def _prepare_application(ctx: AppContext) -> int:
    return make_dossier(ctx, state=PermitState.REFUSED).person_id


def _open_application(ctx: AppContext, person_id: int) -> object:
    return applications.open_application(_as(ctx, Role.CLERK), person_id, ServiceType.MOTOBOY)


def _applications(ctx: AppContext, person_id: int) -> object:
    with ctx.read() as s:
        return s.scalar(select(func.count(Application.id)).where(Application.person_id == person_id))


def _prepare_issue(ctx: AppContext) -> int:
    dossier = make_dossier(ctx)
    permits.approve(_as(ctx, Role.SUPERVISOR), dossier.application_id, "77/2026", TODAY - timedelta(days=1))
    return dossier.application_id


def _issue(ctx: AppContext, application_id: int) -> object:
    return permits.issue(_as(ctx, Role.SUPERVISOR), application_id)


def _issue_state(ctx: AppContext, application_id: int) -> object:
    with ctx.read() as s:
        permit = s.scalar(select(Permit.id).where(Permit.application_id == application_id))
        return s.get(Application, application_id).state, permit  # type: ignore[union-attr]


def _prepare_permit(ctx: AppContext) -> int:
    return _issued(ctx, _as(ctx, Role.SUPERVISOR)).id


def _permit_state(ctx: AppContext, permit_id: int) -> object:
    with ctx.read() as s:
        p = s.get(Permit, permit_id)
        assert p is not None
        events = s.scalar(select(func.count(PermitEvent.id)).where(PermitEvent.permit_id == permit_id))
        return p.certificate_valid_until, p.term_end, p.extended, p.badge_issue_no, events


def _prepare_reprint(ctx: AppContext) -> int:
    permit_id = _prepare_permit(ctx)
    badges.print_badges(_as(ctx, Role.CLERK), [permit_id])  # the first copy is never charged
    return permit_id


def _prepare_inspection(ctx: AppContext) -> int:
    vehicle_id: int = make_dossier(ctx, inspection=None).vehicle_id
    inspections.start_inspection(_as(ctx, Role.INSPECTOR), vehicle_id=vehicle_id)  # the draft being filled
    return vehicle_id


def _inspect(ctx: AppContext, vehicle_id: int) -> object:
    inspector = _as(ctx, Role.INSPECTOR)
    with ctx.read() as s:
        draft = s.scalar(select(Inspection.id).where(Inspection.vehicle_id == vehicle_id,
                                                     Inspection.status == "draft"))
    assert draft is not None
    iid = draft
    view = inspections.get_inspection(inspector, iid)
    return inspections.conclude_inspection(inspector, iid, [ItemAnswer(i.code, ItemResult.OK) for i in view.items])


def _inspections(ctx: AppContext, vehicle_id: int) -> object:
    with ctx.read() as s:
        return sorted(s.scalars(select(Inspection.status).where(Inspection.vehicle_id == vehicle_id)))


ACTS = {
    "application": Act(FeeAct.APPLICATION, _prepare_application, _open_application, _applications),
    "issue": Act(FeeAct.ISSUE, _prepare_issue, _issue, _issue_state),
    "renewal": Act(FeeAct.RENEWAL, _prepare_permit,
                   lambda ctx, pid: permits.renew_registration(_as(ctx, Role.CLERK), pid), _permit_state),
    "extension": Act(FeeAct.EXTENSION, _prepare_permit,
                     lambda ctx, pid: permits.extend(_as(ctx, Role.SUPERVISOR), pid), _permit_state),
    "badge_copy": Act(FeeAct.BADGE_COPY, _prepare_reprint,
                      lambda ctx, pid: badges.print_badges(_as(ctx, Role.CLERK), [pid], reason="Perda"),
                      _permit_state),
    "inspection": Act(FeeAct.INSPECTION, _prepare_inspection, _inspect, _inspections),
}


def _as(ctx: AppContext, role: Role) -> AppContext:
    from conftest import user_ctx  # type: ignore[import-not-found]

    result: AppContext = user_ctx(ctx, role)
    return result


@pytest.mark.parametrize("name", sorted(ACTS))
def test_a_zero_fee_act_needs_no_payment(ctx: AppContext, name: str) -> None:
    act = ACTS[name]
    assert law_settings(ctx).fee(act.act).amount == 0  # the default
    subject = act.prepare(ctx)
    before = act.state(ctx, subject)
    act.run(ctx, subject)
    assert act.state(ctx, subject) != before
    with ctx.read() as s:
        assert s.scalar(select(func.count(FeePayment.id))) == 0


@pytest.mark.parametrize("name", sorted(ACTS))
def test_a_paid_act_refuses_without_the_dam_and_completes_with_it(ctx: AppContext, clerk: AppContext,
                                                                  supervisor: AppContext, name: str) -> None:
    act = ACTS[name]
    subject = act.prepare(ctx)
    fees.set_fee(supervisor, act.act, "45,90", BASIS)
    before = act.state(ctx, subject)

    with raises_rule(f"fee_{act.act.value}") as refused:
        act.run(ctx, subject)
    assert len(refused.value.verdicts) == 1 and "45,90" in str(refused.value)  # the fee due, in reais
    assert refused.value.verdicts[0].article == "Art. 6º, § 6º"
    assert act.state(ctx, subject) == before  # nothing of the act was written

    paid = fees.record_payment(clerk, act.act, subject, " dam 2026/0001 ", TODAY - timedelta(days=1), "45,90")
    assert (paid.number, paid.amount, paid.legal_basis, paid.used) == ("DAM2026/0001", Decimal("45.90"), BASIS, False)
    act.run(ctx, subject)
    assert act.state(ctx, subject) != before
    [used] = fees.payments_for(clerk, act.act, subject)
    assert used.used and used.used_at is not None

    # The payment paid for one act: the same act again needs a new guia, and the DAM cannot be reused.
    with raises_code(InvalidInputError, "invalid_input", fields=("number",)) as reused:
        fees.record_payment(clerk, act.act, subject, "DAM2026/0001", TODAY, "45,90")
    assert "number" in reused.value.fields


def test_a_dam_number_is_used_once_across_acts_and_subjects(ctx: AppContext, clerk: AppContext,
                                                            supervisor: AppContext) -> None:
    fees.set_fee(supervisor, FeeAct.RENEWAL, Decimal("30"), BASIS)
    fees.set_fee(supervisor, FeeAct.EXTENSION, Decimal("80"), BASIS)
    first, second = _prepare_permit(ctx), _prepare_permit(ctx)
    fees.record_payment(clerk, FeeAct.RENEWAL, first, "123456", TODAY, "30,00")
    for act, subject, amount in ((FeeAct.RENEWAL, second, "30"), (FeeAct.EXTENSION, first, "80")):
        with raises_code(InvalidInputError, "invalid_input", fields=("number",)):
            fees.record_payment(clerk, act, subject, "123 456", TODAY, amount)
    with ctx.read() as s:
        assert s.scalar(select(func.count(FeePayment.id))) == 1


def test_a_payment_must_be_the_fee_in_force(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    permit_id = _prepare_permit(ctx)
    fees.set_fee(supervisor, FeeAct.RENEWAL, "30,00", BASIS)
    with pytest.raises(InvalidInputError) as wrong:
        fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "9001", TODAY, "25,00")
    assert "difere da taxa de renovação do registro em vigor (R$ 30,00" in wrong.value.fields["amount"]
    with pytest.raises(InvalidInputError) as future:
        fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "9001", TODAY + timedelta(days=2), "30,00")
    assert "não pode ser futura" in future.value.fields["paid_on"]
    with raises_code(InvalidInputError, "invalid_input", fields=("number",)):
        fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "  ", TODAY, "30,00")

    # Paid at the old value, then the fee went up: the renewal is refused until the right amount is paid.
    fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "9001", TODAY, "30,00")
    fees.set_fee(supervisor, FeeAct.RENEWAL, "35,00", BASIS)
    with raises_rule("fee_renewal"):
        permits.renew_registration(clerk, permit_id)
    fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "9002", TODAY, "35,00")
    permits.renew_registration(clerk, permit_id)
    by_number = {p.number: p.used for p in fees.payments_for(clerk, FeeAct.RENEWAL, permit_id)}
    assert by_number == {"9001": False, "9002": True}


def test_no_payment_to_record_for_a_zero_fee_nor_for_a_missing_subject(ctx: AppContext, clerk: AppContext,
                                                                        supervisor: AppContext) -> None:
    with raises_code(InvalidInputError, "invalid_input", fields=("act",)):
        fees.record_payment(clerk, FeeAct.INSPECTION, 1, "1", TODAY, "0")
    fees.set_fee(supervisor, FeeAct.INSPECTION, "20", BASIS)
    with raises_code(NotFoundError, "not_found"):
        fees.record_payment(clerk, FeeAct.INSPECTION, 999_999, "1", TODAY, "20")


def test_set_fee_is_for_administrators_and_supervisors_validated_and_audited(ctx: AppContext, clerk: AppContext,
                                                                             supervisor: AppContext) -> None:
    with pytest.raises(PermissionDeniedError):
        fees.set_fee(clerk, FeeAct.ISSUE, "50", BASIS)
    cases = {
        ("-1", BASIS): ("amount", "não pode ser negativa"),
        ("100000", BASIS): ("amount", "passa do limite de R$ 10.000,00"),
        ("10,555", BASIS): ("amount", "no máximo dois decimais"),
        ("abc", BASIS): ("amount", "Informe um valor em reais"),
        ("50", "   "): ("legal_basis", "Informe a base legal"),
    }
    for (amount, basis), (key, fragment) in cases.items():
        with pytest.raises(InvalidInputError) as refused:
            fees.set_fee(supervisor, FeeAct.ISSUE, amount, basis)
        assert fragment in refused.value.fields[key], (amount, basis)
    assert law_settings(ctx).fee(FeeAct.ISSUE).amount == 0  # nothing stored by the refusals

    fee = fees.set_fee(supervisor, FeeAct.ISSUE, "1.234,5", BASIS)
    assert (fee.amount, fee.legal_basis) == (Decimal("1234.50"), BASIS)
    assert fees.fee_table(clerk)[FeeAct.ISSUE] == fee
    fees.set_fee(ctx, FeeAct.ISSUE, "0", "")  # an administrator may zero it again, basis then optional
    assert law_settings(ctx).fee(FeeAct.ISSUE).amount == 0
    with ctx.read() as s:
        trail = list(s.scalars(select(AuditEvent).where(AuditEvent.table_name == "settings",
                                                        AuditEvent.row_key == "fee_issue_brl")))
    assert [e.user_login for e in trail][-2:] == ["supervisor", "sistema"]
    assert '1234.50' in trail[-2].changes


def test_default_fee_table_is_zero_with_its_documented_basis(ctx: AppContext) -> None:
    table = fees.fee_table(ctx)
    assert set(table) == set(FeeAct)
    assert all(f.amount == 0 and f.legal_basis == DEFAULT_LEGAL_BASIS for f in table.values())


def test_certificate_and_authorization_show_the_fee_paid(ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext) -> None:
    application_id = _prepare_issue(ctx)
    fees.set_fee(supervisor, FeeAct.ISSUE, "120,00", BASIS)
    fees.record_payment(clerk, FeeAct.ISSUE, application_id, "DAM-555", TODAY - timedelta(days=2), "120")
    permit_id = permits.issue(supervisor, application_id).id
    paid_on = (TODAY - timedelta(days=2)).strftime("%d/%m/%Y")
    for pdf in (permits.registration_certificate_pdf(clerk, permit_id),
                permits.transit_authorization_pdf(clerk, permit_id)):
        text = pdf_text(pdf)
        assert "R$ 120,00" in text and "DAM-555" in text and paid_on in text, text

    # A renewal with a fee prints its own payment; one without a fee prints none.
    fees.set_fee(supervisor, FeeAct.RENEWAL, "40,00", BASIS)
    fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "DAM-556", TODAY, "40")
    permits.renew_registration(clerk, permit_id)
    text = pdf_text(permits.registration_certificate_pdf(clerk, permit_id))
    assert "R$ 40,00" in text and "DAM-556" in text and "DAM-555" not in text
    fees.set_fee(supervisor, FeeAct.RENEWAL, "0", "")
    permits.renew_registration(clerk, permit_id)
    text = pdf_text(permits.registration_certificate_pdf(clerk, permit_id))
    assert "DAM-55" not in text and "TAXA PAGA" not in text.upper()


def test_a_certificate_without_fee_prints_no_fee_line(ctx: AppContext, clerk: AppContext,
                                                     supervisor: AppContext) -> None:
    permit_id = _prepare_permit(ctx)
    text = pdf_text(permits.registration_certificate_pdf(clerk, permit_id))
    assert "Certificado de Registro Cadastral" in text and "guia/DAM" not in text


def test_exports_show_the_payments(ctx: AppContext, clerk: AppContext, supervisor: AppContext,
                                   tmp_path: Path) -> None:
    application_id = _prepare_issue(ctx)
    fees.set_fee(supervisor, FeeAct.ISSUE, "120,00", BASIS)
    fees.set_fee(supervisor, FeeAct.RENEWAL, "40,00", BASIS)
    fees.record_payment(clerk, FeeAct.ISSUE, application_id, "DAM-700", TODAY - timedelta(days=3), "120")
    issued = permits.issue(supervisor, application_id)
    fees.record_payment(clerk, FeeAct.RENEWAL, issued.id, "DAM-701", TODAY - timedelta(days=1), "40")
    permits.renew_registration(clerk, issued.id)
    free = _prepare_permit_free(ctx)

    out = tmp_path / "permissoes.xlsx"
    export(supervisor, "permits", out)
    ws = openpyxl.load_workbook(out).worksheets[0]
    headers = [c.value for c in ws[2]]
    rows = {r[0]: dict(zip(headers, r, strict=True)) for r in ws.iter_rows(min_row=3, values_only=True)}
    paid = rows[issued.number]
    assert paid["Taxa de emissão (R$)"] == 120 and paid["Guia/DAM da emissão"] == "DAM-700"
    assert paid["Emissão paga em"].date() == TODAY - timedelta(days=3)
    assert paid["Última taxa de renovação (R$)"] == 40 and paid["Guia/DAM da renovação"] == "DAM-701"
    assert paid["Renovação paga em"].date() == TODAY - timedelta(days=1)
    assert rows[free]["Taxa de emissão (R$)"] is None and rows[free]["Guia/DAM da renovação"] is None

    # "Taxas arrecadadas" in a period: the payments made then, with what each paid for.
    fees.record_payment(clerk, FeeAct.RENEWAL, issued.id, "DAM-702", TODAY, "40")  # paid, act not yet done
    out = tmp_path / "taxas.xlsx"
    assert export(supervisor, "fees", out, period=(TODAY - timedelta(days=1), TODAY)) == 2
    ws = openpyxl.load_workbook(out).worksheets[0]
    assert ws["A1"].value.startswith("Taxas arrecadadas (Art. 6º, § 6º) — exportado em ")
    values = [list(r) for r in ws.iter_rows(min_row=3, values_only=True)]
    assert [r[1] for r in values] == ["DAM-701", "DAM-702"]
    first = values[0]
    assert first[2] == "Renovação do registro" and first[3].startswith(issued.number) and first[4] == 40
    assert first[5] == BASIS and first[6] == "clerk" and first[7].date() == TODAY
    assert values[1][7] is None
    assert export(supervisor, "fees", tmp_path / "todas.xlsx") == 3


def _prepare_permit_free(ctx: AppContext) -> str:
    dossier = make_dossier(ctx, name="Maria Souza Lima")
    supervisor = _as(ctx, Role.SUPERVISOR)
    permits.approve(supervisor, dossier.application_id, "78/2026", TODAY - timedelta(days=1))
    fees.set_fee(supervisor, FeeAct.ISSUE, "0", "")
    return permits.issue(supervisor, dossier.application_id).number


def test_two_workstations_recording_the_same_dam_store_it_once(db_url: str, ctx: AppContext,
                                                               supervisor: AppContext) -> None:
    from tests_helpers import race  # type: ignore[import-not-found]

    fees.set_fee(supervisor, FeeAct.RENEWAL, "30", BASIS)
    first, second = _prepare_permit(ctx), _prepare_permit(ctx)
    won, lost = race(db_url, [
        lambda c: fees.record_payment(c, FeeAct.RENEWAL, first, "DAM-RACE", TODAY, "30"),
        lambda c: fees.record_payment(c, FeeAct.RENEWAL, second, "DAM-RACE", TODAY, "30"),
    ])
    assert len(won) == 1 and len(lost) == 1
    assert getattr(lost[0], "code", None) in ("constraint", "invalid_input")  # the index, or the check after it
    assert str(lost[0]) == fees._dam_used("DAM-RACE")
    with ctx.read() as s:
        assert s.scalar(select(func.count(FeePayment.id)).where(FeePayment.number == "DAM-RACE")) == 1


def test_two_workstations_cannot_spend_one_payment_twice(db_url: str, ctx: AppContext, clerk: AppContext,
                                                         supervisor: AppContext) -> None:
    from tests_helpers import race  # type: ignore[import-not-found]

    permit_id = _prepare_permit(ctx)
    fees.set_fee(supervisor, FeeAct.RENEWAL, "30", BASIS)
    fees.record_payment(clerk, FeeAct.RENEWAL, permit_id, "DAM-ONE", TODAY, "30")
    won, lost = race(db_url, [lambda c: permits.renew_registration(c, permit_id)] * 2)
    assert len(won) == 1 and len(lost) == 1, lost
    assert isinstance(lost[0], MotodeskError)  # the payment is used, or the permit changed meanwhile
    with ctx.read() as s:
        renewals = s.scalar(select(func.count(PermitEvent.id)).where(PermitEvent.permit_id == permit_id,
                                                                     PermitEvent.transition == "renew_registration"))
    assert renewals == 1
    assert [p.used for p in fees.payments_for(clerk, FeeAct.RENEWAL, permit_id)] == [True]
