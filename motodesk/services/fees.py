"""Fees of the counter's acts (Art. 6º, § 6º): the fee table, the payments, the check inside each act.

* :func:`set_fee` — administrators and supervisors change one line of the fee table (amount in reais
  and its legal basis); it is a settings change, so it lands in the audit trail like any other.
* :func:`record_payment` — the clerk records the guia/DAM the interested party paid, for one act and
  its subject (see :mod:`motodesk.rules.fees` for what the subject of each act is). A DAM number is
  used once: the database refuses a second row with the same number.
* :func:`require_payment` — a *session step* each act calls inside its own transaction: with a fee
  above zero it takes the act's unused payment and marks it used, or raises the refusal of
  :func:`motodesk.rules.fees.check_fee_paid`; with a zero fee it does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import Application, FeePayment, Permit, PermitEvent, Person, Vehicle
from motodesk.rules.common import Role
from motodesk.rules.fees import Fee, FeeAct, PaymentFacts, check_fee_paid, fee_problems, payment_problems
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import application_number, format_date
from motodesk.rules.validators import format_plate
from motodesk.services.clock import local_today
from motodesk.services.context import READERS, AppContext, current_row, requires
from motodesk.services.errors import InvalidInputError, NotFoundError, RuleViolationError
from motodesk.services.settings import law_settings, update_settings

SETTERS = (Role.ADMIN, Role.SUPERVISOR)
RECORDERS = (Role.CLERK, Role.SUPERVISOR, Role.ADMIN)

_SUBJECTS: dict[FeeAct, tuple[type[Any], str]] = {
    FeeAct.APPLICATION: (Person, "A pessoa"),
    FeeAct.ISSUE: (Application, "O requerimento"),
    FeeAct.RENEWAL: (Permit, "A permissão"),
    FeeAct.EXTENSION: (Permit, "A permissão"),
    FeeAct.BADGE_COPY: (Permit, "A permissão"),
    FeeAct.INSPECTION: (Vehicle, "O veículo"),
}


def _dam_used(number: str) -> str:
    return f"A guia/DAM nº {number} já foi registrada: cada guia paga um só ato (Art. 6º, § 6º)."


@dataclass(frozen=True)
class PaymentInfo:
    id: int
    act: FeeAct
    subject_id: int
    number: str
    paid_on: date
    amount: Decimal
    legal_basis: str
    recorded_by: str
    recorded_at: datetime
    used_at: datetime | None = None
    used_by: str | None = None

    @property
    def used(self) -> bool:
        return self.used_at is not None


def _info(p: FeePayment) -> PaymentInfo:
    return PaymentInfo(p.id, p.act, p.subject_id, p.number, p.paid_on, Decimal(p.amount), p.legal_basis,
                       p.recorded_by, p.recorded_at, p.used_at, p.used_by)


def _act(act: FeeAct | str) -> FeeAct:
    try:
        return FeeAct(act)
    except ValueError:
        raise InvalidInputError(f"Ato sem taxa prevista: {act!r}.", {"act": "Ato desconhecido."}) from None


def parse_amount(value: Decimal | int | str, key: str = "amount") -> Decimal:
    """``"1.234,50"``, ``"12,5"``, ``12`` or ``Decimal("12.50")`` → reais; anything else is refused."""
    if isinstance(value, bool):
        raise InvalidInputError("Valor inválido.", {key: "Informe um valor em reais."})
    if isinstance(value, str):
        text = value.strip().removeprefix("R$").strip()
        if "," in text:
            text = text.replace(".", "").replace(",", ".")
        value = text
    try:
        amount = Decimal(value)
    except (InvalidOperation, ValueError, TypeError):
        raise InvalidInputError(f"Valor inválido: {value!r}.", {key: "Informe um valor em reais, como 45,90."}) from None
    if not amount.is_finite():
        raise InvalidInputError("Valor inválido.", {key: "Informe um valor em reais, como 45,90."})
    return amount


def _normal_number(number: str) -> str:
    return "".join((number or "").split()).upper()


# --- the fee table ---------------------------------------------------------------------------


@requires(*READERS)
def fee_table(ctx: AppContext) -> dict[FeeAct, Fee]:
    """Every act's fee in force, with its legal basis."""
    return law_settings(ctx).fee_table()


@requires(*SETTERS)
def set_fee(ctx: AppContext, act: FeeAct | str, amount: Decimal | int | str, legal_basis: str) -> Fee:
    """Change the fee of ``act`` (reais, two decimals at most) and its legal basis; audited as a setting."""
    act = _act(act)
    value = parse_amount(amount)
    basis = " ".join((legal_basis or "").split())
    problems = fee_problems(act, value, basis)
    if problems:
        raise InvalidInputError(" ".join(problems.values()), problems)
    value = value.quantize(Decimal("0.01"))
    settings = update_settings(ctx, {f"fee_{act.value}_brl": value, f"fee_{act.value}_basis": basis})
    return settings.fee(act)


# --- payments --------------------------------------------------------------------------------


@requires(*RECORDERS)
def record_payment(ctx: AppContext, act: FeeAct | str, subject_id: int, number: str, paid_on: date,
                   amount: Decimal | int | str) -> PaymentInfo:
    """Record the paid guia/DAM of ``act`` for its subject; the amount must be the fee in force."""
    act = _act(act)
    value = parse_amount(amount)
    number_ = _normal_number(number)
    fee = law_settings(ctx).fee(act)
    problems = payment_problems(fee, number_, paid_on, value, local_today())
    if problems:
        raise InvalidInputError(" ".join(problems.values()), problems)
    model, what = _SUBJECTS[act]
    messages = {"uq_fee_payments_number": _dam_used(number_), "cols:fee_payments.number": _dam_used(number_)}
    with ctx.write(messages) as s:
        if s.get(model, subject_id) is None:
            raise NotFoundError(f"{what} a que a guia se refere não existe mais.")
        if s.scalar(select(FeePayment.id).where(FeePayment.number == number_)) is not None:
            raise InvalidInputError(_dam_used(number_), {"number": "Guia/DAM já registrada."})
        payment = FeePayment(act=act, subject_id=subject_id, number=number_, paid_on=paid_on,
                             amount=value.quantize(Decimal("0.01")), legal_basis=fee.legal_basis,
                             recorded_at=datetime.now(UTC), recorded_by=ctx.user.login)
        s.add(payment)
        s.flush()
        return _info(payment)


@requires(*READERS)
def payments_for(ctx: AppContext, act: FeeAct | str, subject_id: int) -> list[PaymentInfo]:
    """The payments recorded for this act and subject, newest first (used and waiting)."""
    act = _act(act)
    with ctx.read() as s:
        rows = s.scalars(select(FeePayment).where(FeePayment.act == act, FeePayment.subject_id == subject_id)
                         .order_by(FeePayment.id.desc()))
        return [_info(p) for p in rows]


def require_payment(s: Session, settings: LawSettings, act: FeeAct, subject_id: int) -> FeePayment | None:
    """Session step of every paid act: no role check, no commit.

    Zero fee: nothing is required and None comes back. Otherwise the act's oldest unused payment
    (of the amount in force, when there is one) is marked used by this transaction; without one,
    :class:`RuleViolationError` names Art. 6º, § 6º and tells the clerk what to record.
    """
    table = settings.fee_table()
    fee = table[act]
    if not fee.charged:
        return None
    waiting = list(s.scalars(
        select(FeePayment)
        .where(FeePayment.act == act, FeePayment.subject_id == subject_id, FeePayment.used_at.is_(None))
        .order_by(FeePayment.id).with_for_update()))
    payment = next((p for p in waiting if Decimal(p.amount) == fee.amount), waiting[0] if waiting else None)
    facts = PaymentFacts(payment.number, payment.paid_on, Decimal(payment.amount)) if payment else None
    verdict = check_fee_paid(table, act, facts)
    if not verdict.ok:
        raise RuleViolationError([verdict])
    assert payment is not None
    payment.used_at = datetime.now(UTC)
    payment.used_by = s.info.get("user_login", "sistema")
    return payment


# --- what certificates and spreadsheets show -------------------------------------------------


@dataclass(frozen=True)
class PaidFee:
    """The fee printed on a document: which act, how much, which guia/DAM, paid when."""

    act: FeeAct
    amount: Decimal
    number: str
    paid_on: date

    @property
    def line(self) -> str:
        from motodesk.rules.text import format_brl

        return (f"Taxa de {self.act.label}: {format_brl(self.amount)} — guia/DAM nº {self.number}, "
                f"paga em {format_date(self.paid_on)}")


def certificate_payment(s: Session, permit: Permit) -> PaidFee | None:
    """The payment of the act that started the permit's current certificate (issue or last renewal).

    A renewal's payment is marked used inside the renewal's transaction, after the certificate
    event before it and before its own event, so the payment used after the previous
    certificate event is the current one; None when that act had no fee.
    """
    events = s.execute(
        select(PermitEvent.transition, PermitEvent.at)
        .where(PermitEvent.permit_id == permit.id, PermitEvent.transition.in_(("issue", "renew_registration")))
        .order_by(PermitEvent.at.desc(), PermitEvent.id.desc()).limit(2)).all()
    if not events:
        return None
    if events[0].transition == "issue":
        if permit.application_id is None:
            return None
        act, subject = FeeAct.ISSUE, permit.application_id
    else:
        act, subject = FeeAct.RENEWAL, permit.id
    query = select(FeePayment).where(FeePayment.act == act, FeePayment.subject_id == subject,
                                     FeePayment.used_at.is_not(None))
    if len(events) > 1:
        query = query.where(FeePayment.used_at > events[1].at)
    payment = s.scalar(query.order_by(FeePayment.used_at.desc()).limit(1))
    if payment is None or not Decimal(payment.amount):
        return None
    return PaidFee(payment.act, Decimal(payment.amount), payment.number, payment.paid_on)


def subject_labels(s: Session, payments: list[tuple[FeeAct, int]]) -> dict[tuple[FeeAct, int], str]:
    """What each payment refers to, as a clerk reads it: the person, application, permit or plate."""
    wanted: dict[type[Any], set[int]] = {}
    for act, subject in payments:
        wanted.setdefault(_SUBJECTS[act][0], set()).add(subject)
    names: dict[tuple[type[Any], int], str] = {}
    for model, ids in wanted.items():
        for chunk in _chunks(sorted(ids)):
            if model is Person:
                for pid, name in s.execute(select(Person.id, Person.full_name).where(Person.id.in_(chunk))):
                    names[(Person, pid)] = name
            elif model is Application:
                rows = s.execute(select(Application.id, Application.opened_on, Person.full_name)
                                 .join(Person, Person.id == Application.person_id).where(Application.id.in_(chunk)))
                for aid, opened, name in rows:
                    names[(Application, aid)] = f"Requerimento {application_number(aid, opened)} — {name}"
            elif model is Permit:
                rows = s.execute(select(Permit.id, Permit.number, Person.full_name)
                                 .join(Person, Person.id == Permit.person_id).where(Permit.id.in_(chunk)))
                for pid, number, name in rows:
                    names[(Permit, pid)] = f"{number} — {name}"
            else:
                for vid, plate in s.execute(select(Vehicle.id, Vehicle.plate).where(Vehicle.id.in_(chunk))):
                    names[(Vehicle, vid)] = f"Veículo {format_plate(plate)}"
    return {(act, subject): names.get((_SUBJECTS[act][0], subject), f"nº {subject}") for act, subject in payments}


def _chunks(ids: list[int], size: int = 500) -> Iterator[list[int]]:
    for i in range(0, len(ids), size):
        yield ids[i:i + size]


def collected(s: Session, start: date | None = None, end: date | None = None) -> list[FeePayment]:
    """Payments recorded with a payment date in [start, end], in date order (the "Taxas arrecadadas")."""
    query = select(FeePayment)
    if start is not None:
        query = query.where(FeePayment.paid_on >= start)
    if end is not None:
        query = query.where(FeePayment.paid_on <= end)
    return list(s.scalars(query.order_by(FeePayment.paid_on, FeePayment.id)))


# --- what the payment dialog offers ----------------------------------------------------------


@dataclass(frozen=True)
class Payable:
    """An act that may be paid for now, for this subject, with the fee in force."""

    act: FeeAct
    subject_id: int
    subject: str  # what a clerk reads: "MB-0001/2026 — João da Silva", "Veículo ABC-1D23"
    fee: Fee


@requires(*READERS)
def payable_acts(ctx: AppContext, *, person_id: int | None = None, application_id: int | None = None,
                 permit_id: int | None = None) -> list[Payable]:
    """The charged acts (fee above zero) the counter may take a payment for, from a dossier or a permits row.

    A person: the application, and the inspection of the person's vehicle in service. An application:
    the issue, and the inspection. A permit: renewal, extension, second copy of the badge, inspection.
    """
    table = law_settings(ctx).fee_table()
    wanted: list[tuple[FeeAct, int]] = []
    with ctx.read() as s:
        vehicle_of: int | None = None
        if permit_id is not None:
            permit = current_row(s, Permit, permit_id, None, "A permissão não existe mais.")
            wanted += [(FeeAct.RENEWAL, permit.id), (FeeAct.EXTENSION, permit.id), (FeeAct.BADGE_COPY, permit.id)]
            vehicle_of = permit.vehicle_id
        if application_id is not None:
            app = current_row(s, Application, application_id, None, "O requerimento não existe mais.")
            wanted.append((FeeAct.ISSUE, app.id))
            person_id = person_id or app.person_id
        if person_id is not None and permit_id is None and application_id is None:
            wanted.append((FeeAct.APPLICATION, person_id))
        if vehicle_of is None and person_id is not None:
            vehicle_of = s.scalar(select(Vehicle.id).where(Vehicle.holder_id == person_id, Vehicle.active.is_(True))
                                  .order_by(Vehicle.id.desc()).limit(1))
        if vehicle_of is not None:
            wanted.append((FeeAct.INSPECTION, vehicle_of))
        wanted = [(act, subject) for act, subject in wanted if table[act].charged]
        labels = subject_labels(s, wanted)
    return [Payable(act, subject, labels[(act, subject)], table[act]) for act, subject in wanted]


def is_fee_refusal(exc: BaseException) -> bool:
    """A refusal for a missing or wrong payment (the screens then point to "Registrar pagamento…")."""
    return isinstance(exc, RuleViolationError) and any(v.rule_id.startswith("fee_") for v in exc.verdicts)
