"""The fee rule of Art. 6º, § 6º on plain data: zero passes, a charged act needs its paid guia/DAM."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest
from tests_helpers import assert_refused  # type: ignore[import-not-found]

from motodesk.rules.common import Status
from motodesk.rules.fees import (
    DEFAULT_LEGAL_BASIS,
    Fee,
    FeeAct,
    PaymentFacts,
    check_fee_paid,
    fee_problems,
    payment_problems,
)
from motodesk.rules.settings import LawSettings

DAY = date(2026, 3, 10)
FEE = Fee(FeeAct.ISSUE, Decimal("120.00"), "Decreto nº 10/2026")


def test_zero_fee_needs_nothing() -> None:
    verdict = check_fee_paid({}, FeeAct.ISSUE, None)
    assert verdict.ok and verdict.article == "Art. 6º, § 6º"
    assert check_fee_paid({FeeAct.ISSUE: Fee(FeeAct.ISSUE)}, FeeAct.ISSUE, None).ok


def test_charged_act_needs_a_payment_of_the_fee() -> None:
    table = {FeeAct.ISSUE: FEE}
    missing = check_fee_paid(table, FeeAct.ISSUE, None)
    assert missing.status is Status.NOT_MET
    assert_refused([missing], "fee_issue")
    # the act and its fee it names: tests/rules/test_wording.py
    short = check_fee_paid(table, FeeAct.ISSUE, PaymentFacts("77", DAY, Decimal("100")))
    assert short.status is Status.NOT_MET and "100,00" in short.message  # what was paid
    paid = check_fee_paid(table, FeeAct.ISSUE, PaymentFacts("77", DAY, Decimal("120")))
    assert paid.ok and "77" in paid.message and DAY.strftime("%d/%m/%Y") in paid.message  # which DAM, when


@pytest.mark.parametrize(("amount", "basis", "key"), [
    (Decimal("-0.01"), "x", "amount"),
    (Decimal("10000.01"), "x", "amount"),
    (Decimal("1.001"), "x", "amount"),
    (Decimal("5"), "  ", "legal_basis"),
    (Decimal("5"), "x" * 201, "legal_basis"),
])
def test_fee_problems(amount: Decimal, basis: str, key: str) -> None:
    assert list(fee_problems(FeeAct.RENEWAL, amount, basis)) == [key]


def test_fee_limits_that_pass() -> None:
    assert fee_problems(FeeAct.RENEWAL, Decimal("10000.00"), "Lei nº 1/2026") == {}
    assert fee_problems(FeeAct.RENEWAL, Decimal("0"), "") == {}  # no fee, no basis needed


def test_payment_problems() -> None:
    assert payment_problems(FEE, "DAM-1", DAY, Decimal("120"), DAY) == {}
    assert set(payment_problems(FEE, "", date(2026, 3, 11), Decimal("12"), DAY)) == {"number", "paid_on", "amount"}
    assert set(payment_problems(Fee(FeeAct.ISSUE), "DAM-1", DAY, Decimal("0"), DAY)) == {"act"}


def test_settings_hold_the_fee_table_zero_by_default_and_validate_it() -> None:
    settings = LawSettings()
    assert all(f.amount == 0 and f.legal_basis == DEFAULT_LEGAL_BASIS for f in settings.fee_table().values())
    charged = replace(settings, fee_inspection_brl=Decimal("30.00"), fee_inspection_basis="Decreto nº 9/2026")
    assert charged.fee(FeeAct.INSPECTION) == Fee(FeeAct.INSPECTION, Decimal("30.00"), "Decreto nº 9/2026")
    with pytest.raises(ValueError):  # what each says: tests/rules/test_wording.py
        replace(settings, fee_inspection_brl=Decimal("-1"))
    with pytest.raises(ValueError):
        replace(settings, fee_inspection_brl=Decimal("1"), fee_inspection_basis="")
