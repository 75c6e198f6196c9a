"""Fees of the counter's acts: an authorization is granted "a título oneroso" (Art. 6º, § 6º).

The law says the acts are paid for by the interested party but leaves the amounts to the
municipality's tax law or a Decree. So each act has a fee in the settings (zero until the
secretariat sets one) together with the text of its legal basis, and an act whose fee is not zero
completes only with a payment on record: the guia/DAM number, the date it was paid and the amount,
which must be the fee in force. A DAM number pays for one act only (the service guarantees it).

What a payment is for (its *subject*):

========================  =========================================================
act                        subject
========================  =========================================================
``application``            the applicant (person): the application does not exist yet
``issue``                  the approved application the permit is issued from
``renewal``                the permit whose registration certificate is renewed
``extension``              the permit whose term is extended
``badge_copy``             the permit whose badge is reprinted (second copy)
``inspection``             the vehicle inspected (one payment per inspection concluded)
========================  =========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum

from motodesk.rules.common import Status, Verdict
from motodesk.rules.text import format_brl, format_date

ARTICLE = "Art. 6º, § 6º"
#: A fee above this is taken for a typing slip (an extra zero), not for a price.
MAX_FEE_BRL = Decimal("10000.00")
MAX_LEGAL_BASIS = 200
MAX_PAYMENT_NUMBER = 40
#: The basis shown until the secretariat writes the Decree or tax law that fixes the amount.
DEFAULT_LEGAL_BASIS = "Lei nº 4.883/2017, art. 6º, § 6º (valor a fixar em lei tributária ou Decreto municipal)"


class FeeAct(StrEnum):
    """The acts of the counter that may carry a fee."""

    APPLICATION = "application"
    ISSUE = "issue"
    RENEWAL = "renewal"
    EXTENSION = "extension"
    BADGE_COPY = "badge_copy"
    INSPECTION = "inspection"

    @property
    def label(self) -> str:
        """What the fee pays for, as written after "a taxa de": ``"emissão da permissão ou autorização"``."""
        return {
            "application": "requerimento",
            "issue": "emissão da permissão ou autorização",
            "renewal": "renovação do registro",
            "extension": "prorrogação do prazo",
            "badge_copy": "segunda via do crachá",
            "inspection": "vistoria",
        }[self.value]


@dataclass(frozen=True)
class Fee:
    """One line of the fee table: the amount in reais and the act that fixes it."""

    act: FeeAct
    amount: Decimal = Decimal("0.00")
    legal_basis: str = DEFAULT_LEGAL_BASIS

    @property
    def charged(self) -> bool:
        return self.amount > 0


@dataclass(frozen=True)
class PaymentFacts:
    """A payment on record for the act: guia/DAM number, date paid, amount paid."""

    number: str
    paid_on: date
    amount: Decimal


FeeTable = Mapping[FeeAct, Fee]


def fee_problems(act: FeeAct, amount: Decimal, legal_basis: str) -> dict[str, str]:
    """Why this fee cannot be stored (field -> pt_BR reason); empty when it can."""
    problems: dict[str, str] = {}
    what = f"A taxa de {act.label}"
    if not amount.is_finite():
        problems["amount"] = f"{what} deve ser um valor em reais."
    elif amount < 0:
        problems["amount"] = f"{what} não pode ser negativa."
    elif amount > MAX_FEE_BRL:
        problems["amount"] = (f"{what} ({format_brl(amount)}) passa do limite de {format_brl(MAX_FEE_BRL)}; "
                              "confira se não sobrou um zero.")
    elif amount != amount.quantize(Decimal("0.01")):
        problems["amount"] = f"{what} deve ter no máximo dois decimais (centavos)."
    basis = " ".join(legal_basis.split())
    if amount.is_finite() and amount > 0 and not basis:
        problems["legal_basis"] = (f"Informe a base legal (Decreto ou Lei, com número e data) da taxa de "
                                   f"{act.label}: uma taxa só se cobra com ato que a fixe.")
    elif len(basis) > MAX_LEGAL_BASIS:
        problems["legal_basis"] = f"A base legal é longa demais: no máximo {MAX_LEGAL_BASIS} caracteres."
    return problems


def payment_problems(fee: Fee, number: str, paid_on: date, amount: Decimal, today: date) -> dict[str, str]:
    """Why a payment cannot be recorded for this fee (field -> pt_BR reason)."""
    problems: dict[str, str] = {}
    if not fee.charged:
        problems["act"] = (f"{ARTICLE}: a taxa de {fee.act.label} está zerada na tabela de taxas; "
                           "não há pagamento a registrar.")
        return problems
    cleaned = number.strip()
    if not cleaned:
        problems["number"] = "Informe o número da guia/DAM."
    elif len(cleaned) > MAX_PAYMENT_NUMBER:
        problems["number"] = f"O número da guia/DAM tem no máximo {MAX_PAYMENT_NUMBER} caracteres."
    if paid_on > today:
        problems["paid_on"] = f"A data do pagamento ({format_date(paid_on)}) não pode ser futura."
    if amount != fee.amount:
        problems["amount"] = (f"{ARTICLE}: o valor pago ({format_brl(amount)}) difere da taxa de {fee.act.label} "
                              f"em vigor ({format_brl(fee.amount)}, {fee.legal_basis}).")
    return problems


def check_fee_paid(table: FeeTable, act: FeeAct, payment: PaymentFacts | None) -> Verdict:
    """May ``act`` complete? Yes when its fee is zero, or when a payment of the fee is on record."""
    fee = table.get(act) or Fee(act)
    rule_id = f"fee_{act.value}"
    if not fee.charged:
        return Verdict(rule_id, ARTICLE, Status.MET, f"{ARTICLE}: não há taxa de {act.label} na tabela de taxas.")
    due = format_brl(fee.amount)
    if payment is None:
        return Verdict(
            rule_id, ARTICLE, Status.NOT_MET,
            f"{ARTICLE}: a taxa de {act.label} ({due}) não foi paga: registre o número da guia/DAM e a data "
            "do pagamento.",
            missing=("guia/DAM",),
        )
    if payment.amount != fee.amount:
        return Verdict(
            rule_id, ARTICLE, Status.NOT_MET,
            f"{ARTICLE}: a guia/DAM nº {payment.number} pagou {format_brl(payment.amount)}, mas a taxa de "
            f"{act.label} em vigor é {due} ({fee.legal_basis}): registre uma guia/DAM paga no valor em vigor.",
            missing=("guia/DAM",),
        )
    return Verdict(
        rule_id, ARTICLE, Status.MET,
        f"{ARTICLE}: taxa de {act.label} ({due}) paga pela guia/DAM nº {payment.number} em "
        f"{format_date(payment.paid_on)}.",
    )
