"""The yearly re-registration campaign as pure rules: who falls due, the counter's slots, the no-show."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time, timedelta

import pytest
from tests_helpers import assert_refused  # type: ignore[import-not-found]

from motodesk.rules.campaign import (
    AppointmentState,
    CertificateKind,
    DriverFacts,
    DriverRole,
    DueCertificate,
    allocate_slots,
    capacity,
    check_transition,
    day_slots,
    falling_due,
    is_slot,
    no_show_verdicts,
    who_falls_due,
)
from motodesk.rules.common import ServiceType, Status
from motodesk.rules.settings import LawSettings, opening_windows

S = LawSettings()


def driver(name: str = "Ana", *, registration: date = date(2027, 6, 1), medical: date | None = date(2026, 6, 1),
           role: DriverRole = DriverRole.HOLDER, person_id: int = 1) -> DriverFacts:
    return DriverFacts(person_id, name, role, 10, "MT-0001/2026", ServiceType.MOTOTAXI, registration, medical)


def test_the_registration_falls_due_on_its_last_valid_day_and_overdue_ones_are_called() -> None:
    assert [d.kind for d in falling_due(driver(registration=date(2027, 1, 31)), date(2027, 1, 31), S)] == [
        CertificateKind.REGISTRATION]
    assert falling_due(driver(registration=date(2027, 2, 1)), date(2027, 1, 31), S) == ()
    overdue = falling_due(driver(registration=date(2026, 3, 1)), date(2027, 1, 31), S)
    assert overdue == (DueCertificate(CertificateKind.REGISTRATION, date(2026, 3, 1)),)


def test_the_medical_certificate_counts_years_of_the_civil_code_not_365_days() -> None:
    # Issued 29/02/2028: valid until 01/03/2029 (CC art. 132, § 3º); 365 days would end on 28/02/2029.
    leap = driver(medical=date(2028, 2, 29), registration=date(2035, 1, 1))
    assert falling_due(leap, date(2029, 2, 28), S) == ()
    assert falling_due(leap, date(2029, 3, 1), S) == (DueCertificate(CertificateKind.MEDICAL, date(2029, 3, 1)),)
    # 2027 is not a leap year either way: a year after 10/01/2026 is 10/01/2027.
    assert falling_due(driver(medical=date(2026, 1, 10)), date(2027, 1, 10), S)[0].due == date(2027, 1, 10)
    two_years = replace(S, medical_valid_years=2)
    assert falling_due(driver(medical=date(2026, 1, 10)), date(2027, 1, 10), two_years) == ()  # registration 06/2027


def test_a_medical_certificate_never_recorded_falls_due() -> None:
    due = falling_due(driver(medical=None, registration=date(2035, 1, 1)), date(2027, 1, 31), S)
    assert due == (DueCertificate(CertificateKind.MEDICAL, None),)
    assert due[0].shown_due() == "sem registro"


def test_who_falls_due_lists_holders_and_deputies_soonest_first() -> None:
    people = [
        driver("Bruno", registration=date(2027, 1, 20), person_id=2),
        driver("Ana", registration=date(2027, 1, 5), person_id=1),
        driver("Caio", registration=date(2028, 1, 5), medical=date(2026, 9, 1), person_id=3),  # nothing due
        driver("Davi", registration=date(2027, 1, 20), medical=date(2026, 1, 2), role=DriverRole.DEPUTY, person_id=4),
    ]
    called = who_falls_due(people, date(2027, 1, 4), date(2027, 1, 29), S)
    assert [c.facts.name for c in called] == ["Davi", "Ana", "Bruno"]
    assert [d.kind for d in called[0].due] == [CertificateKind.REGISTRATION, CertificateKind.MEDICAL]
    assert called[0].earliest_due == date(2027, 1, 2)
    with pytest.raises(ValueError):
        who_falls_due(people, date(2027, 2, 1), date(2027, 1, 1), S)


def test_no_slots_on_weekends_national_and_minas_gerais_holidays_and_municipal_ones() -> None:
    assert day_slots(date(2027, 4, 17), S) == []  # Saturday
    assert day_slots(date(2027, 4, 18), S) == []  # Sunday
    assert day_slots(date(2027, 4, 21), S) == []  # Wednesday, Tiradentes (national; Data Magna de MG)
    assert day_slots(date(2027, 3, 26), S) == []  # Good Friday
    assert len(day_slots(date(2027, 4, 20), S)) == S.campaign_slots_per_day
    municipal = replace(S, municipal_holidays=(date(2027, 4, 20),))
    assert day_slots(date(2027, 4, 20), municipal) == []


def test_slots_respect_the_opening_hours_and_the_slots_per_day() -> None:
    day = date(2027, 4, 20)
    slots = day_slots(day, S)
    windows = opening_windows(S.campaign_opening_hours)
    step = timedelta(minutes=S.campaign_slot_minutes)
    assert slots[0] == datetime(2027, 4, 20, 8, 0)
    for slot in slots:
        assert any(datetime.combine(day, a) <= slot and slot + step <= datetime.combine(day, b) for a, b in windows)
    assert datetime(2027, 4, 20, 11, 0) in slots and datetime(2027, 4, 20, 11, 20) not in slots  # would end 11:40
    assert datetime(2027, 4, 20, 13, 0) in slots and datetime(2027, 4, 20, 12, 0) not in slots
    assert slots == sorted(set(slots))
    wide = replace(S, campaign_slots_per_day=100, campaign_opening_hours=("09:00-10:00",), campaign_slot_minutes=25)
    assert [s.time() for s in day_slots(day, wide)] == [time(9, 0), time(9, 25)]  # 9:50 would end at 10:15
    assert is_slot(datetime(2027, 4, 20, 8, 20), S) and not is_slot(datetime(2027, 4, 20, 8, 10), S)


def test_the_allocator_fills_days_in_order_skipping_full_days_and_holidays() -> None:
    # Tuesday 20/04/2027 full, Wednesday 21/04 Tiradentes: the first free slot is Thursday 22/04 at 08:00.
    taken = day_slots(date(2027, 4, 20), S)
    slots = allocate_slots(3, date(2027, 4, 20), date(2027, 4, 30), S, taken)
    assert slots == [datetime(2027, 4, 22, 8, 0), datetime(2027, 4, 22, 8, 20), datetime(2027, 4, 22, 8, 40)]
    # One slot taken in the middle of the morning is skipped, not doubled.
    slots = allocate_slots(3, date(2027, 4, 22), date(2027, 4, 30), S, [datetime(2027, 4, 22, 8, 20)])
    assert slots == [datetime(2027, 4, 22, 8, 0), datetime(2027, 4, 22, 8, 40), datetime(2027, 4, 22, 9, 0)]
    # More people than room: fewer slots come back; capacity says how many fit.
    week = allocate_slots(1000, date(2027, 4, 19), date(2027, 4, 23), S)
    assert len(week) == capacity(date(2027, 4, 19), date(2027, 4, 23), S) == 4 * S.campaign_slots_per_day
    assert {s.date() for s in week} == {date(2027, 4, 19), date(2027, 4, 20), date(2027, 4, 22), date(2027, 4, 23)}


def test_bad_opening_hours_are_refused_by_the_settings() -> None:
    """Each refused; what each says is checked in tests/rules/test_wording.py."""
    LawSettings(campaign_opening_hours=("08:00-12:00", "12:00-13:00"), campaign_slots_per_day=1)
    with pytest.raises(ValueError):
        LawSettings(campaign_opening_hours=("8h às 12h",))
    with pytest.raises(ValueError):
        LawSettings(campaign_opening_hours=("08:00-12:00", "11:00-13:00"))
    with pytest.raises(ValueError):
        LawSettings(campaign_slots_per_day=0)


def test_the_appointment_life() -> None:
    A = AppointmentState
    assert check_transition(A.SCHEDULED, A.ATTENDED, campaign_open=True).ok
    assert check_transition(A.SCHEDULED, A.RESCHEDULED, campaign_open=True).ok
    assert check_transition(A.RESCHEDULED, A.MISSED, campaign_open=True).ok
    assert check_transition(A.MISSED, A.RESCHEDULED, campaign_open=True).ok
    assert not check_transition(A.ATTENDED, A.MISSED, campaign_open=True).ok
    closed = check_transition(A.SCHEDULED, A.ATTENDED, campaign_open=False)
    assert_refused([closed], "campaign_appointment")  # the campaign is closed
    assert A.SCHEDULED.pending and A.RESCHEDULED.pending and not A.MISSED.pending


def test_a_no_show_supports_the_art_30_group_1_infraction_of_each_certificate_past_due() -> None:
    due = (DueCertificate(CertificateKind.REGISTRATION, date(2027, 1, 10)),
           DueCertificate(CertificateKind.MEDICAL, date(2027, 3, 1)))
    found = no_show_verdicts(AppointmentState.MISSED, due, date(2027, 2, 1))
    registration, medical = found
    assert registration.supports_notice and registration.infraction.code == "30.1.II"
    assert registration.verdict.article == "Art. 30, Grupo 1, II"
    assert registration.infraction.text.lower() in registration.verdict.message.lower()  # quotes the item
    assert not medical.supports_notice and medical.verdict.status is Status.PENDING  # still valid on 01/02
    assert medical.infraction.code == "30.1.I"
    later = no_show_verdicts(AppointmentState.MISSED, due, date(2027, 3, 2))
    assert all(n.supports_notice for n in later)
    missing = no_show_verdicts(AppointmentState.MISSED, (DueCertificate(CertificateKind.MEDICAL, None),), date(2027, 1, 1))
    assert missing[0].supports_notice and missing[0].verdict.article == "Art. 30, Grupo 1, I"
    assert no_show_verdicts(AppointmentState.ATTENDED, due, date(2027, 3, 2)) == []
