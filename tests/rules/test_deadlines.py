"""Deadlines: each computed with its article, counted per Código Civil art. 132."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from datetime import date

import pytest

from motodesk.rules.common import ServiceType
from motodesk.rules.deadlines import (
    Deadline,
    DeadlineKind,
    accident_report_due,
    add_days,
    appeal_due,
    cnh_due,
    criminal_certificates_due,
    days_until_due,
    defence_due,
    deputy_deregistration_due,
    due_within,
    inspection_due,
    is_overdue,
    medical_due,
    passenger_insurance_due,
    permit_term_due,
    registration_certificate_due,
    vehicle_useful_life_due,
)
from motodesk.rules.settings import LawSettings


def test_every_kind_has_a_label_and_an_article() -> None:
    for kind in DeadlineKind:
        assert kind.label and kind.article.startswith("Art. ")


@pytest.mark.parametrize(
    ("deadline", "kind", "due"),
    [
        (medical_due(date(2026, 3, 10), LawSettings()), DeadlineKind.MEDICAL, date(2027, 3, 10)),
        (
            registration_certificate_due(date(2026, 3, 10)),
            DeadlineKind.REGISTRATION_CERTIFICATE,
            date(2027, 3, 10),
        ),
        (
            registration_certificate_due(date(2028, 2, 29)),
            DeadlineKind.REGISTRATION_CERTIFICATE,
            date(2029, 3, 1),
        ),
        (
            criminal_certificates_due(date(2026, 3, 10), LawSettings()),
            DeadlineKind.CRIMINAL_CERTIFICATES,
            date(2031, 3, 10),
        ),
        (vehicle_useful_life_due(2021), DeadlineKind.VEHICLE_USEFUL_LIFE, date(2026, 12, 31)),
        (permit_term_due(date(2026, 3, 10), extended=False), DeadlineKind.PERMIT_TERM, date(2031, 3, 10)),
        (permit_term_due(date(2026, 3, 10), extended=True), DeadlineKind.PERMIT_TERM, date(2036, 3, 10)),
        (cnh_due(date(2030, 8, 3)), DeadlineKind.CNH, date(2030, 8, 3)),
        (passenger_insurance_due(date(2026, 12, 31)), DeadlineKind.PASSENGER_INSURANCE, date(2026, 12, 31)),
        # Art. 31 G1 I: 15 days; from Tue 10/03/2026 → Wed 25/03/2026.
        (deputy_deregistration_due(date(2026, 3, 10)), DeadlineKind.DEPUTY_DEREGISTRATION, date(2026, 3, 25)),
        # Art. 31 G2 II: 5 days; from Tue 10/03 → Sun 15/03, moved to Mon 16/03 with settings.
        (accident_report_due(date(2026, 3, 10)), DeadlineKind.ACCIDENT_REPORT, date(2026, 3, 15)),
        (
            accident_report_due(date(2026, 3, 10), LawSettings()),
            DeadlineKind.ACCIDENT_REPORT,
            date(2026, 3, 16),
        ),
        (defence_due(date(2026, 3, 10), LawSettings()), DeadlineKind.DEFENCE_PERIOD, date(2026, 3, 25)),
        (appeal_due(date(2026, 3, 10), LawSettings()), DeadlineKind.APPEAL_PERIOD, date(2026, 4, 9)),
    ],
)
def test_each_deadline(deadline: Deadline, kind: DeadlineKind, due: date) -> None:
    assert (deadline.kind, deadline.due) == (kind, due)
    assert (deadline.article, deadline.label) == (kind.article, kind.label)


def test_defence_in_business_days(settings: LawSettings) -> None:
    business = replace(settings, business_days=True, defence_period_days=15)
    # Notice Thu 16/04/2026: Tiradentes (21/04) and 1º de maio do not count.
    assert defence_due(date(2026, 4, 16), business).due == date(2026, 5, 11)
    assert add_days(date(2026, 4, 16), 15, business) == date(2026, 5, 11)


def test_defence_period_is_a_setting(settings: LawSettings) -> None:
    assert defence_due(date(2026, 3, 10), replace(settings, defence_period_days=10)).due == date(2026, 3, 20)


def test_inspection_deadline(settings: LawSettings) -> None:
    yearly = inspection_due(ServiceType.MOTOFRETE, date(2026, 3, 10), True, settings)
    assert yearly is not None and yearly.due == date(2027, 3, 10)
    # Issue 16, item 5: an approved inspection expires; mototáxi and motoboy are semestral (Art. 5º, § 6º).
    semestral = inspection_due(ServiceType.MOTOTAXI, date(2026, 3, 10), True, settings)
    assert semestral is not None and semestral.due == date(2026, 9, 10)
    shorter = inspection_due(ServiceType.MOTOBOY, date(2026, 3, 10), True,
                             dataclasses.replace(settings, inspection_valid_months_motoboy=3))
    assert shorter is not None and shorter.due == date(2026, 6, 10)
    failed = inspection_due(ServiceType.MOTOFRETE, date(2026, 3, 10), False, settings)
    assert failed is not None and failed.due == date(2026, 4, 9)


def test_overdue_from_the_day_after() -> None:
    deadline = cnh_due(date(2026, 3, 10))
    assert days_until_due(deadline, date(2026, 3, 9)) == 1
    assert days_until_due(deadline, date(2026, 3, 10)) == 0
    assert not is_overdue(deadline, date(2026, 3, 10))
    assert is_overdue(deadline, date(2026, 3, 11))
    assert days_until_due(deadline, date(2026, 3, 11)) == -1


def test_due_within() -> None:
    today = date(2026, 3, 10)
    overdue = cnh_due(date(2026, 3, 1))
    today_due = passenger_insurance_due(today)
    soon = medical_due(date(2025, 4, 1), LawSettings())  # 01/04/2026
    edge = registration_certificate_due(date(2025, 4, 9))  # 09/04/2026: today + 30
    later = vehicle_useful_life_due(2021)
    found = due_within([later, edge, soon, today_due, overdue], today, 30)
    assert found == [overdue, today_due, soon, edge]
    assert due_within([later, edge, soon, today_due, overdue], today, 30, include_overdue=False) == [
        today_due,
        soon,
        edge,
    ]
