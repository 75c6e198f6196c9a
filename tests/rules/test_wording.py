"""The one place wording is checked: sentences read as Portuguese, and the wording table
(``tests/wording_table.py``) that every test naming a refusal by its rule_id or code goes through."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from tests_helpers import assert_refused, check_wording  # type: ignore[import-not-found]
from wording_table import WORDING  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict
from motodesk.rules.document_gate import DocumentFacts
from motodesk.rules.eligibility import ApplicantFacts, check_applicant, check_deputy
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import VehicleFacts
from motodesk.services.error_codes import CODES

MOTODESK = Path(__file__).resolve().parents[2] / "motodesk"
#: Rule modules that build a rule_id from a prefix and a short name (``not_met(f"transition_{rule}", …)``).
PREFIXES = ("transition_", "enforcement_", "evidence_", "fee_", "")


def _literals() -> set[str]:
    found: set[str] = set()
    for path in MOTODESK.rglob("*.py"):
        found.update(re.findall(r"""["']([a-z0-9_.]+)["']""", path.read_text(encoding="utf-8")))
    return found


def test_licence_before_the_age_of_18_names_the_subject_with_its_contraction() -> None:
    facts = ApplicantFacts(birth_date=date(2000, 1, 1), cnh_categories="A", cnh_first_a_date=date(2010, 1, 1),
                           cnh_expiry=date(2030, 1, 1), cnh_ear=True)
    on = date(2026, 6, 1)
    text = " ".join(v.message for v in check_applicant(facts, ServiceType.MOTOBOY, on, LawSettings()))
    assert "18 anos do requerente" in text and "de o " not in text
    text = " ".join(v.message for v in check_deputy(facts, ServiceType.MOTOBOY, on, LawSettings()))
    assert "18 anos do preposto" in text and "de o " not in text


def test_every_key_of_the_wording_table_names_a_registered_code_or_a_rule_of_the_code() -> None:
    literals = _literals()
    unknown = []
    for key in WORDING:
        code, _, field = key.partition(":")
        if code in CODES:
            assert not field or re.fullmatch(r"[a-z0-9_.\[\]]+", field), key
            continue
        if not any(key.startswith(p) and key.removeprefix(p) in literals for p in PREFIXES):
            unknown.append(key)
    assert unknown == []


def test_every_pattern_of_the_wording_table_is_a_regular_expression_of_portuguese_text() -> None:
    for key, patterns in WORDING.items():
        assert patterns and len(set(patterns)) == len(patterns), key
        for pattern in patterns:
            re.compile(pattern)
            assert any(c.isalpha() for c in pattern), (key, pattern)


def test_a_sentence_that_follows_none_of_its_patterns_fails_in_one_place() -> None:
    key = next(iter(WORDING))
    with pytest.raises(AssertionError, match="wording_table"):
        check_wording(key, "uma frase que nenhuma regra diz")
    check_wording("código-sem-frase-na-tabela", "qualquer frase")  # a key without patterns checks nothing


def test_a_rule_refusal_is_named_by_its_rule_id_and_its_wording_checked_in_the_table() -> None:
    facts = ApplicantFacts(birth_date=date(2010, 1, 1), cnh_categories="A", cnh_first_a_date=date(2026, 1, 1),
                           cnh_expiry=date(2030, 1, 1), cnh_ear=True)
    verdicts = check_applicant(facts, ServiceType.MOTOBOY, date(2026, 6, 1), LawSettings())
    refused = [v.rule_id for v in verdicts if not v.ok]
    assert refused
    assert_refused(verdicts, refused[0])
    with pytest.raises(AssertionError, match="not refused"):
        assert_refused(verdicts, "regra_que_nao_existe")


def test_the_audit_report_heads_with_intact_or_tampered_and_says_whether_a_checkpoint_sealed_it() -> None:
    """The administrator's sentences of ``motodesk audit-verify``; the tests of the trail assert its
    structure (intact, the broken links, the missing rows) and the ids it names."""
    from motodesk.models.audit import ChainBreak
    from motodesk.services.audit import AuditVerification

    unsealed = AuditVerification(rows=3, broken=None).message
    assert unsealed.startswith("Trilha de auditoria íntegra: 3 registro(s)")
    assert "Ainda não há ponto de controle assinado" in unsealed
    broken = AuditVerification(rows=9, broken=ChainBreak(5, None, "o conteúdo do registro foi alterado"),
                               breaks=(ChainBreak(5, None, "a"), ChainBreak(7, None, "b"))).message
    assert broken.startswith("Trilha de auditoria ADULTERADA:")
    assert "o primeiro elo quebrado é o registro nº 5" in broken and "Outros elos quebrados: nº 7 (b)" in broken
    assert AuditVerification(rows=9, broken=None, findings=("O ponto de controle nº 1 foi adulterado.",)
                             ).message.startswith("Trilha de auditoria ADULTERADA:")


def test_the_quota_and_the_vehicle_say_their_sentences_word_for_word() -> None:
    """The sentences the tests of the quota and of the vehicle judge by rule_id and status."""
    from motodesk.rules.quota import check_quota_place
    from motodesk.rules.vehicle import VehicleFacts, check_vehicle

    assert check_quota_place(43, 89_826).message == (
        "Art. 10, I: há 1 vaga de mototáxi — 44 permissões para 89.826 habitantes, 43 em vigor.")
    assert check_quota_place(44, 89_826).message == (
        "Art. 10, I: não há vaga de mototáxi — 44 permissões para 89.826 habitantes, 44 em vigor.")
    assert check_quota_place(1, 0).message.startswith("Art. 10, I: dado impossível")
    facts = VehicleFacts(plate="HMG-4B83", renavam="89038149178", vin="9C2KC2200LR012345", colour="PRETA",
                         authorised_for="both")
    said = {v.rule_id: v.message for v in check_vehicle(facts, ServiceType.MOTOTAXI, date(2026, 3, 10),
                                                         LawSettings(), None)}
    assert said["art5_1_iv_colour"] == (
        "Art. 5º, § 1º, IV: o veículo é da cor “PRETA”; para Mototáxi a cor é amarela topázio Y 198.")
    assert said["art5_8_passenger_cargo"] == (
        "Art. 5º, § 8º: o veículo não pode ser autorizado para passageiros e carga ao mesmo tempo.")
    assert said["vehicle_identification"] == (
        "Art. 5º, § 1º, I: placa HMG4B83, RENAVAM 89038149178, chassi 9C2KC2200LR012345.")


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"photo_max_age_days": -1}, "Idade máxima da foto 3x4 (dias) não pode ser negativo"),
        ({"crlv_previous_year_accepted_until_month": 13}, "deve ser um mês de 1 a 12"),
        ({"periodic_inspection_months": 0}, "deve ser positivo ou vazio"),
        ({"fine_ufm_leve": Decimal("-1")}, "A multa de infração leve não pode ser negativa"),
        ({"penalties_grave": ()}, "Informe ao menos uma penalidade para infração grave"),
        ({"ufm_value_brl": Decimal("-0.01")}, "O valor da UFM não pode ser negativo"),
        # the tests of the campaign, the fees and the document gate see these refused without their sentence
        ({"campaign_opening_hours": ("8h às 12h",)}, "HH:MM"),
        ({"campaign_opening_hours": ("08:00-12:00", "11:00-13:00")}, "sobrepõe"),
        ({"campaign_slots_per_day": 0}, "atendimentos por dia"),
        ({"fee_inspection_brl": Decimal("-1")}, "A taxa de vistoria não pode ser negativa"),
        ({"fee_inspection_brl": Decimal("1"), "fee_inspection_basis": ""}, "Informe a base legal"),
        ({"inspection_valid_months_motofrete": 0}, "Validade da vistoria"),
        # …and tests/services/test_document_declared.py's settings editor
        ({"criminal_valid_years": 6}, "não pode passar de 5 (limite da lei)"),
        ({"requirement_starts": ("nao_existe=01/06/2026",)}, "documento “nao_existe” não declarado"),
    ],
)
def test_invalid_settings_are_refused_in_portuguese(changes: dict[str, object], fragment: str) -> None:
    """The law's settings refuse a bad value naming the field by its label."""
    with pytest.raises(ValueError, match="Configuração inválida") as raised:
        replace(LawSettings(), **changes)  # type: ignore[arg-type]
    assert fragment in str(raised.value)


# -- the applicant's requirements: the sentences tests/rules/test_eligibility.py judges by rule_id and status --
#: (changes to the complete dossier, reference day, rule_id, the exact sentence or None, fragments it holds)
APPLICANT_SENTENCES: list[tuple[dict[str, object], date, str, str | None, tuple[str, ...]]] = [
    ({"birth_date": None}, date(2026, 3, 10), "art5_i_age",
     "Art. 5º, I: pendente — falta a data de nascimento.", ()),
    ({"cnh_first_a_date": date(2024, 3, 11)}, date(2026, 3, 10), "art5_ii_cnh",
     "Art. 5º, II: habilitado na categoria A desde 11/03/2024 (1 ano, 11 meses e 27 dias); "
     "o mínimo é 2 anos, completados em 11/03/2026.", ()),
    ({"cnh_first_a_date": date(2026, 3, 11)}, date(2026, 3, 10), "art5_ii_cnh", None, ("dado impossível",)),
    ({"cnh_first_a_date": date(2000, 1, 1)}, date(2026, 3, 10), "art5_ii_cnh", None, ("anterior aos 18 anos",)),
    ({}, date(2026, 3, 10), "art5_iii_course",
     "Art. 5º, III: curso especializado concluído em 20/11/2025, certificado nº 2025/0193, CFC Alto Paranaíba.", ()),
    ({"course_date": date(2027, 1, 1)}, date(2026, 3, 10), "art5_iii_course", None, ("dado impossível",)),
    ({"rg_uf": "XX"}, date(2026, 3, 10), "art5_v_identity", None, ("não existe",)),
    ({"medical_date": date(2025, 3, 9)}, date(2026, 3, 10), "art5_vii_medical",
     "Art. 5º, VII e § 2º: o atestado médico de 09/03/2025 venceu em 09/03/2026.", ()),
    ({"medical_date": None, "tender_homologation_date": date(2026, 2, 9)}, date(2026, 3, 1), "art5_vii_medical",
     "Art. 5º, VII e § 2º: pendente — falta o atestado médico (prazo: 11/03/2026).", ()),
    ({"medical_date": date(2026, 3, 2), "medical_presented_date": date(2026, 3, 12),
      "tender_homologation_date": date(2026, 2, 9)}, date(2026, 3, 12), "art5_vii_medical", None,
     # the deadline (11/03), not the homologation (09/02)
     ("apresentado em 12/03/2026, depois do prazo de 30 dias", "encerrado em 11/03/2026")),
    ({"medical_date": date(2026, 3, 2), "medical_presented_date": date(2026, 3, 5),
      "tender_homologation_date": date(2026, 2, 9)}, date(2026, 3, 12), "art5_vii_medical", None,
     ("dentro do prazo de 30 dias da homologação, que vai até 11/03/2026",)),
    ({"medical_date": date(2026, 3, 2), "medical_presented_date": date(2026, 3, 1),
      "tender_homologation_date": date(2026, 2, 9)}, date(2026, 3, 5), "art5_vii_medical", None,
     ("dado impossível",)),
    ({}, date(2026, 3, 10), "art5_xii_cpf", "Art. 5º, XII: CPF nº 52998224725.", ()),
    ({"cpf": "529.982.247-26"}, date(2026, 3, 10), "art5_xii_cpf",
     "Art. 5º, XII: CPF inválido: os dígitos verificadores não conferem.", ()),
] + [
    ({field: date(2026, 3, 11)}, date(2026, 3, 10), rule_id, None,
     (f"dado impossível — {sentence} à data de referência (10/03/2026)",))
    for field, rule_id, sentence in [
        ("cnh_first_a_date", "art5_ii_cnh", "a primeira habilitação na categoria A (11/03/2026) é posterior"),
        ("course_date", "art5_iii_course", "a conclusão do curso (11/03/2026) é posterior"),
        ("medical_date", "art5_vii_medical", "o atestado médico (11/03/2026) é posterior"),
        ("photo_date", "art5_ix_photo", "a foto (11/03/2026) é posterior"),
        ("residence_proof_date", "art5_x_residence", "o comprovante de residência (11/03/2026) é posterior"),
        ("criminal_certificates_date", "art5_xi_criminal", "as certidões criminais (11/03/2026) são posteriores"),
    ]
]


@pytest.mark.parametrize(("changes", "on", "rule_id", "exact", "fragments"), APPLICANT_SENTENCES)
def test_the_applicants_requirements_say_their_sentences_word_for_word(
    applicant: ApplicantFacts, changes: dict[str, object], on: date, rule_id: str, exact: str | None,
    fragments: tuple[str, ...],
) -> None:
    """Dates written dd/mm/aaaa, the deadline named as a deadline, impossible data said as such."""
    facts = replace(applicant, **changes)  # type: ignore[arg-type]
    (verdict,) = [v for v in check_applicant(facts, ServiceType.MOTOTAXI, on, LawSettings()) if v.rule_id == rule_id]
    if exact is not None:
        assert verdict.message == exact
    for fragment in fragments:
        assert fragment in verdict.message


def test_the_gate_the_accidents_and_the_deputies_say_their_sentences_word_for_word(
    facts: DocumentFacts, vehicle: VehicleFacts
) -> None:
    """The sentences tests/rules/test_document_gate.py and test_deputies_replacement.py judge by rule_id."""
    from motodesk.rules.accidents import AccidentFacts, check_accident_report
    from motodesk.rules.deputies import deputy_requirements
    from motodesk.rules.document_gate import check_document, check_inspection_valid
    from motodesk.rules.facts import InspectionFacts
    from motodesk.rules.vehicle import mandatory_insurance_verdict

    on, settings = date(2026, 3, 10), LawSettings()
    failed = check_inspection_valid(ServiceType.MOTOBOY, InspectionFacts(on, False), on, settings)
    assert "reprovou" in failed[0].message
    calendar = replace(settings, roll_forward_to_business_day=False)
    in_time = AccidentFacts(date(2026, 3, 2), date(2026, 3, 7), False)
    (flag,) = check_accident_report(replace(in_time, reported_on=date(2026, 3, 8)), calendar)
    assert "comunicado após 5 dias — Art. 31, G2, II" in flag.message
    (impossible,) = check_accident_report(replace(in_time, reported_on=date(2026, 3, 1)), calendar)
    assert "dado impossível" in impossible.message
    other = mandatory_insurance_verdict(replace(vehicle, mandatory_insurance_insured_cpf="78939909291"), on,
                                        "52998224725")
    assert "não está em nome do titular" in other.message
    holder = facts.permit.holder

    def with_dossier(**changes: object) -> DocumentFacts:
        return replace(facts, permit=replace(facts.permit, holder=replace(holder, dossier=replace(
            holder.dossier, **changes))))  # type: ignore[arg-type]
    # a period a refusal states is read from its setting (issue 30, item 4)
    [criminal] = check_document(with_dossier(criminal_certificates_date=date(2022, 3, 1)), on,
                                replace(settings, criminal_valid_years=3))
    assert "renovadas a cada 3 anos" in criminal.message
    assert "vale por 1 ano" in check_document(with_dossier(medical_date=date(2025, 3, 9)), on, settings)[0].message
    life = Verdict("art3_ii_life", "Art. 3º, II", Status.NOT_MET, "Art. 3º, II: vida útil vencida.")
    assert deputy_requirements([life], "Paulo Nunes")[0].message == (
        "Art. 14, § 2º — preposto Paulo Nunes: Art. 3º, II: vida útil vencida.")


@pytest.mark.parametrize(
    ("made", "model", "fragment"),
    [
        (2027, None, "o ano de fabricação (2027) é posterior ao ano de referência (2026)"),
        (1850, None, "o ano de fabricação (1850) não é plausível"),
        (2024, 2023, "o ano do modelo (2023) deve ser o de fabricação (2024) ou o seguinte"),
        (2024, 2026, "o ano do modelo (2026) deve ser o de fabricação (2024) ou o seguinte"),
    ],
)
def test_impossible_vehicle_years_say_which_year(vehicle: VehicleFacts, made: int, model: int | None,
                                                 fragment: str) -> None:
    from motodesk.rules.vehicle import check_vehicle

    facts = replace(vehicle, year_manufacture=made, year_model=model)
    (verdict,) = [v for v in check_vehicle(facts, ServiceType.MOTOTAXI, date(2026, 3, 10), LawSettings(),
                                           "52998224725") if v.rule_id == "art3_ii_useful_life"]
    assert verdict.message == f"Art. 3º, II: dado impossível — {fragment}."


def test_the_fee_refusal_names_the_act_and_its_fee_and_a_severity_outside_art_33_is_refused() -> None:
    from motodesk.rules.fees import Fee, FeeAct, check_fee_paid
    from motodesk.rules.infractions import Severity

    missing = check_fee_paid({FeeAct.ISSUE: Fee(FeeAct.ISSUE, Decimal("120.00"), "Decreto nº 10/2026")},
                             FeeAct.ISSUE, None)
    assert f"{FeeAct.ISSUE.label} (R$ 120,00)" in missing.message
    with pytest.raises(ValueError, match="inexistente"):
        Severity.from_group(5)


@pytest.mark.parametrize("service", list(ServiceType))
def test_the_approval_without_a_decree_names_the_instrument_of_the_service(service: ServiceType) -> None:
    """A motoboy's act is an “autorização”, a mototáxi's a “permissão” (tests/rules/test_lifecycle.py
    judges the refusal by its rule_id)."""
    from motodesk.rules.lifecycle import TransitionContext, check_transition

    context = TransitionContext(on=date(2026, 3, 10), service=service, decree_number=None)
    [decree] = [v for v in check_transition("approve", PermitState.UNDER_REVIEW, Role.SUPERVISOR, context)
                if v.rule_id == "transition_decree"]
    assert f"a {service.instrument} é" in decree.message
    if service is ServiceType.MOTOBOY:
        assert "a permissão" not in decree.message
