"""The applicant's requirements, article by article (Art. 5º, 6º § 1º, 8º, 14 § 2º)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.eligibility import (
    FIELD_LABELS,
    ApplicantFacts,
    all_met,
    blocking,
    check_applicant,
    check_deputy,
    completeness,
    parse_cnh_categories,
)
from motodesk.rules.settings import LawSettings

MT = ServiceType.MOTOTAXI

RULE_IDS = [
    "art5_i_age",
    "art5_ii_cnh",
    "art5_iii_course",
    "art5_v_identity",
    "art5_vi_military_elect",
    "art5_vii_medical",
    "art5_viii_inss",
    "art5_ix_photo",
    "art5_x_residence",
    "art5_xi_criminal",
    "art5_xii_cpf",
    "art6_1_natural_person",
    "art8_other_permits",
]


def verdict_of(verdicts: list[Verdict], rule_id: str) -> Verdict:
    (found,) = [v for v in verdicts if v.rule_id == rule_id]
    return found


def check(
    facts: ApplicantFacts, on: date, rule_id: str, service: ServiceType = MT, **overrides: Any
) -> Verdict:
    settings = LawSettings(**overrides)
    return verdict_of(check_applicant(facts, service, on, settings), rule_id)


def test_a_complete_dossier_meets_everything(
    applicant: ApplicantFacts, on: date, settings: LawSettings
) -> None:
    for service in ServiceType:
        verdicts = check_applicant(applicant, service, on, settings)
        assert [v.rule_id for v in verdicts] == RULE_IDS
        assert all_met(verdicts), [v.message for v in verdicts if not v.ok]
        assert completeness(verdicts) == 1.0
        assert blocking(verdicts) == []


def test_every_message_starts_with_its_article(
    applicant: ApplicantFacts, on: date, settings: LawSettings
) -> None:
    for facts in (applicant, ApplicantFacts()):
        for v in check_applicant(facts, MT, on, settings):
            assert v.message.startswith(f"{v.article}: ")
            assert v.message.endswith(".")


def test_art5_iv_is_left_to_the_inspection(
    applicant: ApplicantFacts, on: date, settings: LawSettings
) -> None:
    assert not any(v.article.startswith("Art. 5º, IV") for v in check_applicant(applicant, MT, on, settings))


# --- Art. 5º, I: 21 years -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("birth", "on", "status", "message"),
    [
        (
            date(2005, 3, 11),
            date(2026, 3, 10),
            Status.NOT_MET,
            "Art. 5º, I: o requerente tem 20 anos e 11 meses; o mínimo é 21 (completa 21 anos em 11/03/2026).",
        ),
        (
            date(2005, 3, 10),
            date(2026, 3, 10),
            Status.MET,
            "Art. 5º, I: o requerente tem 21 anos; o mínimo é 21.",
        ),
        # Born 29/02: in a common year the 21st birthday is 1 March (CC art. 132 § 3º).
        (
            date(2004, 2, 29),
            date(2025, 2, 28),
            Status.NOT_MET,
            "Art. 5º, I: o requerente tem 20 anos e 11 meses; o mínimo é 21 (completa 21 anos em 01/03/2025).",
        ),
        (
            date(2004, 2, 29),
            date(2025, 3, 1),
            Status.MET,
            "Art. 5º, I: o requerente tem 21 anos; o mínimo é 21.",
        ),
        (
            date(2026, 3, 11),
            date(2026, 3, 10),
            Status.NOT_MET,
            "Art. 5º, I: dado impossível — a data de nascimento (11/03/2026) é posterior à data de "
            "referência (10/03/2026).",
        ),
        (
            date(1890, 1, 1),
            date(2026, 3, 10),
            Status.NOT_MET,
            "Art. 5º, I: dado impossível — a data de nascimento (01/01/1890) indica 136 anos.",
        ),
    ],
)
def test_art5_i_age(applicant: ApplicantFacts, birth: date, on: date, status: Status, message: str) -> None:
    facts = replace(applicant, birth_date=birth, cnh_first_a_date=None)
    verdict = check(facts, on, "art5_i_age")
    assert (verdict.status, verdict.message) == (status, message)


def test_art5_i_missing_birth_date(applicant: ApplicantFacts, on: date) -> None:
    verdict = check(replace(applicant, birth_date=None), on, "art5_i_age")
    assert verdict.status is Status.PENDING
    assert verdict.missing == ("birth_date",)  # its sentence: tests/rules/test_wording.py


# --- Art. 5º, II: CNH category A for 2 years ------------------------------------------------------


@pytest.mark.parametrize(
    ("first_a", "status"),
    [
        (date(2024, 3, 11), Status.NOT_MET),  # a day short of 2 years
        (date(2024, 3, 10), Status.MET),  # exactly 2 years
        (date(2024, 2, 29), Status.MET),
    ],
)
def test_art5_ii_two_years_of_category_a(
    applicant: ApplicantFacts, on: date, first_a: date, status: Status
) -> None:
    verdict = check(replace(applicant, cnh_first_a_date=first_a), on, "art5_ii_cnh")
    assert verdict.status is status, verdict.message


def test_art5_ii_a_day_short_says_when(applicant: ApplicantFacts, on: date) -> None:
    verdict = check(replace(applicant, cnh_first_a_date=date(2024, 3, 11)), on, "art5_ii_cnh")
    assert verdict.status is Status.NOT_MET and verdict.missing == ()  # the sentence: test_wording.py


def test_art5_ii_category_a_since_29_february(applicant: ApplicantFacts) -> None:
    facts = replace(applicant, cnh_first_a_date=date(2024, 2, 29))
    assert check(facts, date(2026, 2, 28), "art5_ii_cnh").status is Status.NOT_MET
    assert check(facts, date(2026, 3, 1), "art5_ii_cnh").status is Status.MET


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"cnh_categories": "B"}, "a CNH é da categoria B; é exigida a categoria A"),
        ({"cnh_categories": "ACC"}, "a CNH é da categoria ACC; é exigida a categoria A"),
        ({"cnh_categories": "ACCB"}, "a CNH é da categoria ACCB; é exigida a categoria A"),
        ({"cnh_expiry": date(2026, 3, 9)}, "a CNH venceu em 09/03/2026"),
        ({"cnh_ear": False}, "a CNH não tem a observação EAR"),
        ({"cnh_number": "34046871255"}, "número da CNH inválido: os dígitos verificadores não conferem"),
    ],
)
def test_art5_ii_not_met(applicant: ApplicantFacts, on: date, changes: dict[str, Any], fragment: str) -> None:
    verdict = check(replace(applicant, **changes), on, "art5_ii_cnh")
    assert verdict.status is Status.NOT_MET
    assert fragment in verdict.message


def test_art5_ii_cnh_valid_on_its_expiry_day(applicant: ApplicantFacts, on: date) -> None:
    assert check(replace(applicant, cnh_expiry=on), on, "art5_ii_cnh").status is Status.MET


@pytest.mark.parametrize(
    ("raw", "parsed"), [("AB", ("A", "B")), ("a, e", ("A", "E")), ("ACC", ("ACC",)), ("AX", None)]
)
def test_cnh_categories(raw: str, parsed: tuple[str, ...] | None) -> None:
    assert parse_cnh_categories(raw) == parsed


def test_art5_ii_impossible_dates(applicant: ApplicantFacts, on: date) -> None:
    future = check(replace(applicant, cnh_first_a_date=date(2026, 3, 11)), on, "art5_ii_cnh")
    assert future.status is Status.NOT_MET and future.missing == ()
    too_young = check(replace(applicant, cnh_first_a_date=date(2000, 1, 1)), on, "art5_ii_cnh")
    assert too_young.status is Status.NOT_MET  # what each says: tests/rules/test_wording.py


def test_art5_ii_failure_outranks_missing(applicant: ApplicantFacts, on: date) -> None:
    verdict = check(replace(applicant, cnh_categories="B", cnh_ear=None), on, "art5_ii_cnh")
    assert verdict.status is Status.NOT_MET
    assert verdict.missing == ("cnh_ear",)
    assert verdict.message.endswith("Falta também: a observação EAR na CNH.")


# --- Art. 5º, III, V, VI --------------------------------------------------------------------------


def test_art5_iii_course(applicant: ApplicantFacts, on: date) -> None:
    assert check(applicant, on, "art5_iii_course").status is Status.MET  # its sentences: test_wording.py
    missing = check(replace(applicant, course_school="  "), on, "art5_iii_course")
    assert missing.status is Status.PENDING and missing.missing == ("course_school",)
    future = check(replace(applicant, course_date=date(2027, 1, 1)), on, "art5_iii_course")
    assert future.status is Status.NOT_MET and future.missing == ()


def test_art5_v_identity(applicant: ApplicantFacts, on: date) -> None:
    assert check(applicant, on, "art5_v_identity").status is Status.MET
    assert check(replace(applicant, rg_issuer=None), on, "art5_v_identity").missing == ("rg_issuer",)
    wrong_uf = check(replace(applicant, rg_uf="XX"), on, "art5_v_identity")
    assert wrong_uf.status is Status.NOT_MET and wrong_uf.missing == ()  # its sentence: test_wording.py


@pytest.mark.parametrize(
    ("changes", "status", "missing"),
    [
        ({}, Status.MET, ()),
        ({"sex": "F", "reservist_number": None}, Status.MET, ()),
        ({"sex": "M", "reservist_number": None}, Status.PENDING, ("reservist_number",)),
        ({"sex": None, "reservist_number": None}, Status.PENDING, ("sex",)),
        ({"sex": None}, Status.MET, ()),  # the certificate is there: sex does not matter
        # A man is bound until 31 December of the year he turns 45 (Lei 4.375/1964, art. 5º).
        ({"birth_date": date(1981, 1, 1), "reservist_number": None}, Status.PENDING, ("reservist_number",)),
        ({"birth_date": date(1980, 12, 31), "reservist_number": None}, Status.MET, ()),
        ({"electoral_quitacao": False}, Status.NOT_MET, ()),
        ({"electoral_quitacao": None}, Status.PENDING, ("electoral_quitacao",)),
        ({"voter_title": "428703010214"}, Status.NOT_MET, ()),
        ({"voter_title": None}, Status.PENDING, ("voter_title",)),
        ({"sex": "X", "reservist_number": None}, Status.NOT_MET, ()),
    ],
)
def test_art5_vi_military_and_electoral(
    applicant: ApplicantFacts, on: date, changes: dict[str, Any], status: Status, missing: tuple[str, ...]
) -> None:
    verdict = check(replace(applicant, **changes), on, "art5_vi_military_elect")
    assert (verdict.status, verdict.missing) == (status, missing), verdict.message


# --- Art. 5º, VII and § 2º: medical certificate ---------------------------------------------------


@pytest.mark.parametrize(
    ("medical", "status"),
    [
        (date(2025, 3, 10), Status.MET),  # one year before: last valid day
        (date(2025, 3, 9), Status.NOT_MET),
        (date(2026, 3, 10), Status.MET),
        (date(2026, 3, 11), Status.NOT_MET),  # impossible: after the reference date
    ],
)
def test_art5_vii_medical_is_yearly(
    applicant: ApplicantFacts, on: date, medical: date, status: Status
) -> None:
    verdict = check(replace(applicant, medical_date=medical), on, "art5_vii_medical")
    assert verdict.status is status, verdict.message


def test_art5_vii_expired_medical_says_when(applicant: ApplicantFacts, on: date) -> None:
    verdict = check(replace(applicant, medical_date=date(2025, 3, 9)), on, "art5_vii_medical")
    assert verdict.status is Status.NOT_MET  # the two dates it says: tests/rules/test_wording.py


def test_art5_vii_validity_is_a_setting_in_years(applicant: ApplicantFacts, on: date) -> None:
    facts = replace(applicant, medical_date=date(2024, 3, 10))
    assert check(facts, on, "art5_vii_medical").status is Status.NOT_MET
    assert check(facts, on, "art5_vii_medical", medical_valid_years=2).status is Status.MET


@pytest.mark.parametrize(
    ("medical", "on", "status"),
    [
        # A year across 29 February is a year, not 365 days (Código Civil, art. 132, § 3º).
        (date(2023, 3, 1), date(2024, 3, 1), Status.MET),  # 366 days later, still the anniversary
        (date(2023, 3, 1), date(2024, 3, 2), Status.NOT_MET),
        # Issued on 29 February: the year ends on 1 March of a common year.
        (date(2024, 2, 29), date(2025, 3, 1), Status.MET),
        (date(2024, 2, 29), date(2025, 3, 2), Status.NOT_MET),
    ],
)
def test_art5_vii_medical_year_counts_like_the_civil_code(medical: date, on: date, status: Status,
                                                           applicant: ApplicantFacts) -> None:
    verdict = check(replace(applicant, medical_date=medical), on, "art5_vii_medical", service=ServiceType.MOTOBOY)
    assert verdict.status is status, verdict.message


@pytest.mark.parametrize(
    ("medical", "presented", "on", "status"),
    [
        # Homologation on Mon 09/02/2026: 30 days → Wed 11/03/2026, counted to the day of presentation.
        (date(2026, 3, 11), date(2026, 3, 11), date(2026, 3, 12), Status.MET),
        (date(2026, 1, 20), date(2026, 3, 11), date(2026, 3, 12), Status.MET),  # issued before, presented in time
        (date(2026, 3, 2), date(2026, 3, 12), date(2026, 3, 12), Status.NOT_MET),  # issued in time, presented late
        (date(2026, 3, 2), None, date(2026, 3, 11), Status.PENDING),  # presentation not recorded, still in time
        (date(2026, 3, 2), None, date(2026, 3, 12), Status.NOT_MET),  # …and the window is over
        (None, None, date(2026, 3, 11), Status.PENDING),
        (None, None, date(2026, 3, 12), Status.NOT_MET),
    ],
)
def test_art5_2_mototaxi_medical_presented_within_30_days_of_homologation(
    applicant: ApplicantFacts, medical: date | None, presented: date | None, on: date, status: Status
) -> None:
    facts = replace(applicant, medical_date=medical, medical_presented_date=presented,
                    tender_homologation_date=date(2026, 2, 9))
    verdict = check(facts, on, "art5_vii_medical")
    assert verdict.status is status, verdict.message
    # The 30-day window is the mototáxi tender's: motoboy and moto-frete only renew yearly.
    other = check(facts, on, "art5_vii_medical", service=ServiceType.MOTOBOY)
    assert other.status is (Status.PENDING if medical is None else Status.MET)


def test_art5_2_pending_medical_shows_the_deadline(applicant: ApplicantFacts) -> None:
    facts = replace(applicant, medical_date=None, tender_homologation_date=date(2026, 2, 9))
    verdict = check(facts, date(2026, 3, 1), "art5_vii_medical")
    assert verdict.status is Status.PENDING and verdict.missing == ("medical_date",)  # the deadline: test_wording


def test_art5_2_late_presentation_says_both_dates(applicant: ApplicantFacts) -> None:
    facts = replace(applicant, medical_date=date(2026, 3, 2), medical_presented_date=date(2026, 3, 12),
                    tender_homologation_date=date(2026, 2, 9))
    verdict = check(facts, date(2026, 3, 12), "art5_vii_medical")
    assert verdict.status is Status.NOT_MET  # both dates it says: tests/rules/test_wording.py


def test_art5_2_presentation_in_time_names_the_deadline_as_a_deadline(applicant: ApplicantFacts) -> None:
    facts = replace(applicant, medical_date=date(2026, 3, 2), medical_presented_date=date(2026, 3, 5),
                    tender_homologation_date=date(2026, 2, 9))
    verdict = check(facts, date(2026, 3, 12), "art5_vii_medical")
    assert verdict.status is Status.MET  # the deadline it names: tests/rules/test_wording.py


def test_art5_2_presentation_before_issue_is_impossible(applicant: ApplicantFacts) -> None:
    facts = replace(applicant, medical_date=date(2026, 3, 2), medical_presented_date=date(2026, 3, 1),
                    tender_homologation_date=date(2026, 2, 9))
    verdict = check(facts, date(2026, 3, 5), "art5_vii_medical")
    assert verdict.status is Status.NOT_MET and verdict.missing == ()  # its sentence: test_wording.py


# --- Art. 5º, VIII, IX, X, XI, XII ----------------------------------------------------------------


def test_art5_viii_inss(applicant: ApplicantFacts, on: date) -> None:
    assert check(applicant, on, "art5_viii_inss").status is Status.MET
    assert check(replace(applicant, nit="12056789011"), on, "art5_viii_inss").status is Status.NOT_MET
    assert check(replace(applicant, nit=""), on, "art5_viii_inss").missing == ("nit",)


@pytest.mark.parametrize(
    ("days_before", "status"),
    [(0, Status.MET), (180, Status.MET), (181, Status.NOT_MET), (-1, Status.NOT_MET)],
)
def test_art5_ix_photo_is_recent(
    applicant: ApplicantFacts, on: date, days_before: int, status: Status
) -> None:
    verdict = check(replace(applicant, photo_date=on - timedelta(days=days_before)), on, "art5_ix_photo")
    assert verdict.status is status


@pytest.mark.parametrize(
    ("proof", "status", "message"),
    [
        (
            date(2025, 12, 10),  # 90 days before 10/03/2026: the last allowed day
            Status.MET,
            "Art. 5º, X: comprovante de residência de 10/12/2025; o máximo é 90 dias.",
        ),
        (
            date(2025, 12, 9),  # 91 days
            Status.NOT_MET,
            "Art. 5º, X: o comprovante de residência é de 09/12/2025, há 91 dias; o máximo é 90 dias.",
        ),
    ],
)
def test_art5_x_proof_of_residence(
    applicant: ApplicantFacts, on: date, proof: date, status: Status, message: str
) -> None:
    verdict = check(replace(applicant, residence_proof_date=proof), on, "art5_x_residence")
    assert (verdict.status, verdict.message) == (status, message)


def test_art5_x_window_is_a_setting(applicant: ApplicantFacts, on: date) -> None:
    facts = replace(applicant, residence_proof_date=date(2025, 12, 9))
    assert check(facts, on, "art5_x_residence", proof_of_residence_max_days=91).status is Status.MET


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({"criminal_certificates_date": date(2021, 3, 10)}, Status.MET),  # 5 years ago today
        ({"criminal_certificates_date": date(2021, 3, 9)}, Status.NOT_MET),
        ({"criminal_result": "positive"}, Status.NOT_MET),
        ({"criminal_result": "maybe"}, Status.NOT_MET),
        ({"criminal_result": None}, Status.PENDING),
        ({"criminal_certificates_date": date(2027, 1, 1)}, Status.NOT_MET),
    ],
)
def test_art5_xi_criminal(
    applicant: ApplicantFacts, on: date, changes: dict[str, Any], status: Status
) -> None:
    assert check(replace(applicant, **changes), on, "art5_xi_criminal").status is status


def test_art5_xii_cpf(applicant: ApplicantFacts, on: date) -> None:
    assert check(applicant, on, "art5_xii_cpf").status is Status.MET
    wrong = check(replace(applicant, cpf="529.982.247-26"), on, "art5_xii_cpf")
    assert wrong.status is Status.NOT_MET  # both sentences: tests/rules/test_wording.py


# --- Art. 6º § 1º and Art. 8º ---------------------------------------------------------------------


def test_art6_1_natural_person_only(applicant: ApplicantFacts, on: date) -> None:
    assert (
        check(replace(applicant, is_natural_person=False), on, "art6_1_natural_person").status
        is Status.NOT_MET
    )
    assert (
        check(replace(applicant, is_natural_person=None), on, "art6_1_natural_person").status
        is Status.PENDING
    )


@pytest.mark.parametrize(
    ("holds", "status"), [(False, Status.MET), (True, Status.NOT_MET), (None, Status.PENDING)]
)
def test_art8_other_municipal_permits(
    applicant: ApplicantFacts, on: date, holds: bool | None, status: Status
) -> None:
    assert (
        check(replace(applicant, holds_other_municipal_permit=holds), on, "art8_other_permits").status
        is status
    )


# --- Deputies, completeness, robustness -----------------------------------------------------------


def test_deputy_meets_the_same_requirements(
    applicant: ApplicantFacts, on: date, settings: LawSettings
) -> None:
    young = replace(applicant, birth_date=date(2005, 3, 11))
    holder = check_applicant(young, MT, on, settings)
    deputy = check_deputy(young, MT, on, settings)
    assert [(v.rule_id, v.status) for v in deputy] == [(v.rule_id, v.status) for v in holder]
    assert verdict_of(deputy, "art5_i_age").message.startswith("Art. 5º, I: o preposto tem 20 anos")


def test_an_empty_dossier_is_pending_not_a_crash(on: date, settings: LawSettings) -> None:
    verdicts = check_applicant(ApplicantFacts(), MT, on, settings)
    assert all(v.status is Status.PENDING for v in verdicts if v.rule_id != "art6_1_natural_person")
    assert completeness(verdicts) == pytest.approx(1 / len(verdicts))  # only Art. 6º, § 1º is known
    assert not all_met(verdicts)
    every_missing = {name for v in verdicts for name in v.missing}
    assert every_missing <= set(FIELD_LABELS)


def test_completeness_counts_evidence_not_success() -> None:
    verdicts = [
        Verdict("a", "Art. 1º", Status.MET, ""),
        Verdict("b", "Art. 1º", Status.NOT_MET, ""),
        Verdict("c", "Art. 1º", Status.PENDING, ""),
        Verdict("d", "Art. 1º", Status.PENDING, ""),
    ]
    assert completeness(verdicts) == 0.5
    assert completeness([]) == 1.0


_optional_date = st.none() | st.dates(date(1850, 1, 1), date(2200, 12, 31))
_optional_text = st.none() | st.text(max_size=20)


@given(
    facts=st.builds(
        ApplicantFacts,
        **{
            f.name: (
                _optional_date
                if "date" in f.name or f.name == "cnh_expiry"
                else st.none() | st.booleans()
                if f.name
                in ("cnh_ear", "electoral_quitacao", "holds_other_municipal_permit", "is_natural_person")
                else _optional_text
            )
            for f in dataclasses.fields(ApplicantFacts)
        },
    ),
    on=st.dates(date(2000, 1, 1), date(2100, 12, 31)),
    service=st.sampled_from(ServiceType),
)
def test_never_crashes_on_any_data(facts: ApplicantFacts, on: date, service: ServiceType) -> None:
    verdicts = check_applicant(facts, service, on, LawSettings())
    assert [v.rule_id for v in verdicts] == RULE_IDS
    for v in verdicts:
        assert v.message.startswith(v.article)
        assert (v.status is Status.PENDING) <= bool(v.missing)


def test_age_and_cnh_alone_are_the_verdicts_check_applicant_gives_for_them(
    applicant: ApplicantFacts, on: date, settings: LawSettings
) -> None:
    """Issue 28: the register import judges Art. 5º, I and II with ``check_age_and_cnh``; it must give
    exactly what ``check_applicant`` gives for those two rules, met, not met or pending."""
    from motodesk.rules.eligibility import check_age_and_cnh

    young = replace(applicant, birth_date=on - timedelta(days=365 * 19))
    no_a = replace(applicant, cnh_categories="B")
    for facts in (applicant, young, no_a, ApplicantFacts()):
        for service in ServiceType:
            full = [v for v in check_applicant(facts, service, on, settings, subject="o titular")
                    if v.rule_id in ("art5_i_age", "art5_ii_cnh")]
            assert check_age_and_cnh(facts, service, on, subject="o titular") == full
    statuses = {v.rule_id: v.status for v in check_age_and_cnh(young, MT, on) + check_age_and_cnh(no_a, MT, on)
                if v.status is Status.NOT_MET}
    assert statuses == {"art5_i_age": Status.NOT_MET, "art5_ii_cnh": Status.NOT_MET}


@pytest.mark.parametrize(
    ("field", "rule_id"),
    [
        ("cnh_first_a_date", "art5_ii_cnh"),
        ("course_date", "art5_iii_course"),
        ("medical_date", "art5_vii_medical"),
        ("photo_date", "art5_ix_photo"),
        ("residence_proof_date", "art5_x_residence"),
        ("criminal_certificates_date", "art5_xi_criminal"),
    ],
)
def test_a_document_dated_after_the_reference_day_is_impossible(
    applicant: ApplicantFacts, on: date, field: str, rule_id: str
) -> None:
    """Every dated document is refused when its date comes after the reference day; the sentence
    each says ("dado impossível — … à data de referência (10/03/2026)") is in tests/rules/test_wording.py."""
    verdict = check(replace(applicant, **{field: on + timedelta(days=1)}), on, rule_id)
    assert verdict.status is Status.NOT_MET and verdict.missing == ()
