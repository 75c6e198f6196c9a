"""``docs/rules.md``: the rules as tables a lawyer can check against the law.

Every example message in the document is produced by running the rules on
the example dossiers below, so the document cannot drift from the code; a
test fails when ``docs/rules.md`` differs from :func:`render_rules_markdown`.
Regenerate it with::

    python -m motodesk.rules.document > docs/rules.md
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from motodesk.rules import deputies, penalty_evidence, replacement, tenders
from motodesk.rules.checklist import checklist_for
from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict
from motodesk.rules.deadlines import (
    DeadlineKind,
    accident_report_due,
    appeal_due,
    cnh_due,
    criminal_certificates_due,
    defence_due,
    deputy_deregistration_due,
    inspection_due,
    medical_due,
    new_document_due,
    passenger_insurance_due,
    permit_term_due,
    registration_certificate_due,
    vehicle_useful_life_due,
)
from motodesk.rules.dossier import DocumentKind, check_certificate_change
from motodesk.rules.eligibility import ApplicantFacts, check_applicant
from motodesk.rules.enforcement import (
    LATER_NOTIFICATION_METHODS,
    ConvictionFacts,
    DecisionFacts,
    NoticeStatus,
    NotificationFacts,
    NotificationMethod,
    OffenderKind,
    Outcome,
    PermitEffect,
    ProcessFacts,
    Signature,
    Stage,
    Target,
    TargetFacts,
    check_close,
    check_decision,
    check_final_conviction,
    check_notification,
    defence_period_end,
    plan_decision_effects,
    target_of,
)
from motodesk.rules.fees import DEFAULT_LEGAL_BASIS, MAX_FEE_BRL, Fee, FeeAct, PaymentFacts, check_fee_paid
from motodesk.rules.infractions import CATALOGUE, Penalty, Severity, allowed_penalties, fine_amount
from motodesk.rules.lifecycle import (
    TRANSITIONS,
    TransitionContext,
    check_registration_renewal_term,
    check_transition,
)
from motodesk.rules.quota import check_quota_place, mototaxi_quota
from motodesk.rules.settings import LAW_BOUNDS, LawSettings, describe_settings, law_bound_problems
from motodesk.rules.tenders import TenderCandidateFacts, check_tender
from motodesk.rules.text import format_brl, format_date, format_int, format_ufm, join_words
from motodesk.rules.vehicle import VehicleFacts, check_vehicle

REGENERATE = "python -m motodesk.rules.document > docs/rules.md"

#: Reference date of every example.
EXAMPLE_DAY = date(2026, 3, 10)

EXAMPLE_APPLICANT = ApplicantFacts(
    birth_date=date(1990, 5, 17),
    sex="M",
    cpf="52998224725",
    cnh_number="34046871254",
    cnh_categories="AB",
    cnh_first_a_date=date(2015, 8, 3),
    cnh_expiry=date(2030, 8, 3),
    cnh_ear=True,
    course_certificate_number="2025/0193",
    course_school="CFC Alto Paranaíba",
    course_date=date(2025, 11, 20),
    rg_number="MG-14.325.876",
    rg_issuer="SSP",
    rg_uf="MG",
    reservist_number="123456789012",
    voter_title="428703010213",
    electoral_quitacao=True,
    medical_date=date(2026, 2, 2),
    nit="12056789010",
    photo_date=date(2026, 3, 1),
    residence_proof_date=date(2026, 2, 15),
    address="Rua Presidente Vargas, 1200, Centro",
    criminal_certificates_date=date(2026, 1, 20),
    criminal_result="negative",
    holds_other_municipal_permit=False,
)

#: One change per rule that makes it fail, to show the NOT_MET message.
FAILING_APPLICANT: dict[str, dict[str, Any]] = {
    "art5_i_age": {"birth_date": date(2005, 3, 11), "cnh_first_a_date": date(2024, 3, 11)},
    "art5_ii_cnh": {"cnh_first_a_date": date(2024, 3, 11)},
    "art5_iii_course": {"course_date": date(2026, 4, 1)},
    "art5_v_identity": {"rg_uf": "XX"},
    "art5_vi_military_elect": {"electoral_quitacao": False},
    "art5_vii_medical": {"medical_date": date(2025, 3, 9)},
    "art5_viii_inss": {"nit": "12056789011"},
    "art5_ix_photo": {"photo_date": date(2025, 9, 10)},
    "art5_x_residence": {"residence_proof_date": date(2025, 12, 9)},
    "art5_xi_criminal": {"criminal_result": "positive"},
    "art5_xii_cpf": {"cpf": "52998224726"},
    "art6_1_natural_person": {"is_natural_person": False},
    "art8_other_permits": {"holds_other_municipal_permit": True},
}

EXAMPLE_HOLDER_CPF = "52998224725"

EXAMPLE_VEHICLE = VehicleFacts(
    plate="HMG4B83",
    renavam="89038149178",
    vin="9C2KC2200LR012345",
    year_manufacture=2021,
    year_model=2022,
    engine_cc=160,
    colour="AMARELA",
    category="ALUGUEL",
    crlv_year=2026,
    crlv_municipality="PATROCINIO",
    crlv_uf="MG",
    owner_cpf=EXAMPLE_HOLDER_CPF,
    owner_name="JOÃO DA SILVA",
    insurance_valid_until=date(2026, 12, 31),
    authorised_for="passengers",
    mandatory_insurance_valid_until=date(2026, 12, 31),
    mandatory_insurance_number="SPVAT-2026-77",
    mandatory_insurance_insured_cpf=EXAMPLE_HOLDER_CPF,
    mandatory_insurance_insured_name="JOÃO DA SILVA",
)

FAILING_VEHICLE: dict[str, dict[str, Any]] = {
    "vehicle_identification": {"vin": "9C2KC2200LR0123I5"},
    "art3_i_engine": {"engine_cc": 251},
    "art3_ii_useful_life": {"year_manufacture": 2020, "year_model": 2020},
    "art3_rental_category": {"category": "PARTICULAR"},
    "art5_1_i_crlv": {"crlv_municipality": "Uberlândia"},
    "art5_1_i_insurance": {"mandatory_insurance_valid_until": date(2026, 3, 9)},
    "art5_5_holder_name": {"owner_cpf": "78939909291"},
    "art5_1_iv_colour": {"colour": "PRETA"},
    "art5_8_passenger_cargo": {"authorised_for": "both"},
    "art19_1_insurance": {"insurance_valid_until": date(2026, 3, 9)},
}


def render_rules_markdown(settings: LawSettings | None = None) -> str:
    """The whole ``docs/rules.md``."""
    settings = settings or LawSettings()
    parts = [
        _header(),
        _interpretations(),
        _settings_section(),
        _applicant_section(settings),
        _vehicle_section(settings),
        _checklist_section(),
        _deadlines_section(settings),
        _quota_section(settings),
        _fees_section(),
        _tender_and_photo_section(settings),
        _infractions_section(settings),
        _enforcement_section(settings),
        _door_section(),
        _lifecycle_section(),
        _deputy_and_replacement_section(),
        _documents_section(settings),
    ]
    return "\n".join(parts).rstrip() + "\n"


# --- Markdown helpers ------------------------------------------------------------------------------


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _show(value: object) -> str:
    if value is None:
        return "vazio"
    if isinstance(value, bool):
        return "sim" if value else "não"
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return join_words([getattr(v, "label", str(v)) for v in value]) if value else "nenhum"
    return str(value)


# --- Sections --------------------------------------------------------------------------------------


def _header() -> str:
    return (
        "# Regras da Lei nº 4.883/2017 no MotoDesk\n\n"
        "Documento gerado a partir do código de `motodesk/rules/`; não edite à mão. Para gerar de novo:\n\n"
        f"```\n{REGENERATE}\n```\n\n"
        f"Os exemplos usam a data de referência {format_date(EXAMPLE_DAY)} e as configurações padrão.\n"
    )


def _interpretations() -> str:
    items = [
        "**Contagem de anos** (idade, habilitação, prazos de 1 e 5 anos): o prazo vence no dia de igual "
        "número do início; sem correspondência, no dia seguinte (Código Civil, art. 132, § 3º). Quem nasceu "
        "em 29/02/2004 completa 21 anos em 01/03/2025.",
        "**Contagem de dias**: exclui-se o dia do começo e inclui-se o do vencimento (CC, art. 132). Os "
        "prazos fixados pela lei (15 dias do preposto, 5 dias do acidente, 30 dias do atestado do "
        "mototáxi) são corridos; os do processo (defesa, recurso, nova vistoria) são corridos ou úteis "
        "conforme a configuração. Prazo que vence em dia sem expediente passa ao primeiro dia útil "
        "seguinte (Lei nº 9.784/1999, art. 66, § 1º, aplicada subsidiariamente).",
        "**Documentos recentes** (foto, comprovante de residência): aceitos até o último dia da janela "
        "configurada, inclusive (90 dias: aceito com 90 dias, recusado com 91).",
        "**Vida útil** (Art. 3º, II): o CRLV traz apenas o ano de fabricação; a idade conta-se por ano "
        "civil e o veículo pode operar até 31 de dezembro do ano de fabricação + 5 (fabricado em 2021: "
        "até 31/12/2026).",
        "**Cilindrada** (Art. 3º, I): de 125 cc a 250 cc, ambos os limites permitidos.",
        "**Art. 5º, IV** (colete e capacete retrorrefletivos) é verificado na vistoria, item a item; a "
        "vistoria aprovada é condição para emitir a permissão.",
        "**Art. 5º, VI**: o certificado de reservista é exigido dos homens até 31 de dezembro do ano em "
        "que completam 45 anos (Lei nº 4.375/1964, art. 5º).",
        "**Art. 5º, § 2º**: para o mototáxi, o atestado médico deve ser apresentado até 30 dias após a "
        "homologação da licitação — conta a data em que foi *apresentado* à Secretaria, não a de emissão; "
        "motoboy e moto-frete apenas o renovam anualmente (um ano contado como acima, nunca 365 dias).",
        "**Reclassificação** (Art. 33, parágrafo único): a lei permite atenuar ou agravar sem limite de "
        "graus; exige-se o motivo (circunstâncias e consequências do fato).",
        "**Penalidades por classificação** (Art. 34): a lei não as relaciona e remete a Decreto (Art. 34, "
        "parágrafo único); enquanto não houver Decreto, valem as configurações (padrão abaixo).",
        "**Penalidades fixadas pela própria lei**: Art. 32 (mototáxi sem permissão: multa de 5 UFM e "
        "apreensão do veículo), Art. 15, parágrafo único (publicidade em bens públicos: cassação) e Art. 35 "
        "(condenação criminal transitada em julgado: cassação). Não admitem reclassificação.",
        "**Título de eleitor**: os dígitos verificadores seguem a Resolução TSE nº 23.659/2021, art. 36; "
        "títulos antigos de MG calculados com a regra antiga (resto 0 → dígito 1) podem ser recusados e "
        "exigem conferência do supervisor.",
    ]
    return "## Interpretações adotadas\n\n" + "\n".join(f"- {item}" for item in items) + "\n"


def _settings_section() -> str:
    rows = [
        (
            f"`{row.name}`",
            row.article,
            row.label,
            _show(row.default) + (" *" if row.placeholder else ""),
        )
        for row in describe_settings()
    ]
    return (
        "## Parâmetros deixados a Decreto ou à Secretaria\n\n"
        "Valores marcados com * são provisórios até a publicação do Decreto (Art. 34, parágrafo único; "
        "Art. 41) e devem ser confirmados pelo administrador.\n\n"
        + _table(("Parâmetro", "Artigo", "Descrição", "Padrão"), rows)
        + "\nPrazos que a própria lei fixa ou limita: fora destes limites a configuração é recusada no campo, com o "
        "artigo (um valor antigo fora deles é ignorado e vale o da lei).\n\n"
        + _table(("Parâmetro", "Artigo", "Permitido", "Recusa"), [
            (f"`{name}`", bound.article,
             f"{bound.minimum}" if bound.maximum == bound.minimum
             else f"{bound.minimum} a {bound.maximum}" if bound.maximum is not None else f"≥ {bound.minimum}",
             law_bound_problems({name: bound.minimum - 1 if bound.maximum is not None and bound.minimum > 1
                                 else (bound.maximum or bound.minimum) + 1 if bound.maximum is not None
                                 else bound.minimum - 1})[name])
            for name, bound in LAW_BOUNDS.items()])
    )


def _examples(
    check: Callable[[Any], list[Verdict]], good: Any, failing: dict[str, dict[str, Any]]
) -> list[tuple[str, str, str, str]]:
    rows = []
    for verdict in check(good):
        bad = next(
            v for v in check(replace(good, **failing[verdict.rule_id])) if v.rule_id == verdict.rule_id
        )
        rows.append((verdict.article, f"`{verdict.rule_id}`", verdict.message, bad.message))
    return rows


def _applicant_section(settings: LawSettings) -> str:
    def check(facts: ApplicantFacts) -> list[Verdict]:
        return check_applicant(facts, ServiceType.MOTOTAXI, EXAMPLE_DAY, settings)

    pending = check_applicant(ApplicantFacts(), ServiceType.MOTOTAXI, EXAMPLE_DAY, settings)[0]
    return (
        "## Requerente e preposto (Art. 5º, 6º § 1º, 8º, 14 § 2º)\n\n"
        "`check_applicant` devolve um parecer por requisito; o preposto cumpre os mesmos (`check_deputy`). "
        "Falta de prova dá **pendente** e lista o que falta (por exemplo, "
        f"“{pending.message}”); dado impossível dá **não atendido** com a razão.\n\n"
        + _table(
            ("Artigo", "Regra", "Exemplo atendido", "Exemplo não atendido"),
            _examples(check, EXAMPLE_APPLICANT, FAILING_APPLICANT),
        )
        + "\n" + _declared_documents_table(settings)
    )


def _declared_documents_table(settings: LawSettings) -> str:
    """The documents of the dossier as declared once (``documents_declared``)."""
    from motodesk.rules import documents_declared

    roles = {documents_declared.HOLDER: "titular", documents_declared.DEPUTY: "preposto"}
    rows = []
    for d in documents_declared.declared():
        services = ("todos" if d.services == documents_declared.ALL_SERVICES
                    else join_words([s.label for s in ServiceType if s in d.services]))
        validity = d.validity.text(settings) if d.validity is not None else "—"
        if d.validity is not None and d.validity.bound is not None:
            validity += f" (máximo da lei: {d.validity.bound})"
        rows.append((d.label, d.article or "—", services, join_words([label for r, label in roles.items() if r in d.roles]),
                     validity, "sim" if d.gate else "não", f"`{d.rule}`" if d.judged else "—"))
    return ("Documentos do dossiê, declarados uma vez em `motodesk/rules/documents_declared.py` (a tela, o "
            "painel de requisitos, a importação, a exportação, a trava de impressão, os prazos e as cartas "
            "derivam desta declaração):\n\n"
            + _table(("Documento", "Artigo", "Serviços", "De quem", "Validade", "Trava na impressão", "Regra"), rows))


def _vehicle_section(settings: LawSettings) -> str:
    def check(facts: VehicleFacts) -> list[Verdict]:
        return check_vehicle(facts, ServiceType.MOTOTAXI, EXAMPLE_DAY, settings, EXAMPLE_HOLDER_CPF)

    return (
        "## Veículo (Art. 3º, 5º § 1º, § 5º, § 8º, 19 § 1º)\n\n"
        "Exemplos de um mototáxi; o seguro de passageiros (Art. 19) só se exige do mototáxi.\n\n"
        + _table(
            ("Artigo", "Regra", "Exemplo atendido", "Exemplo não atendido"),
            _examples(check, EXAMPLE_VEHICLE, FAILING_VEHICLE),
        )
    )


def _checklist_section() -> str:
    parts = [
        "## Vistoria (checklist por serviço)\n\n"
        "Cada item é respondido conforme, não conforme ou não se aplica; “não se aplica” só vale onde a "
        "coluna N/A diz sim, nos demais conta como não conforme. Vistoria com item sem resposta não se "
        "conclui.\n"
    ]
    for service in ServiceType:
        rows = [
            (f"`{item.code}`", item.article, item.text, "sim" if item.allows_not_applicable else "não")
            for item in checklist_for(service)
        ]
        parts.append(f"### {service.label}\n\n" + _table(("Código", "Artigo", "Item", "N/A"), rows))
    return "\n".join(parts)


def _deadlines_section(settings: LawSettings) -> str:
    start = EXAMPLE_DAY
    inspection = inspection_due(ServiceType.MOTOFRETE, start, True, settings)
    examples = {
        DeadlineKind.MEDICAL: ("atestado de", start, medical_due(start, settings).due),
        DeadlineKind.REGISTRATION_CERTIFICATE: ("emitido em", start, registration_certificate_due(start).due),
        DeadlineKind.CRIMINAL_CERTIFICATES: (
            "certidões de",
            start,
            criminal_certificates_due(start, settings).due,
        ),
        DeadlineKind.VEHICLE_USEFUL_LIFE: ("fabricado em 2021", None, vehicle_useful_life_due(2021).due),
        DeadlineKind.INSPECTION: ("moto-frete vistoriado em", start, inspection.due if inspection else None),
        DeadlineKind.PERMIT_TERM: ("emitida em", start, permit_term_due(start, extended=False).due),
        DeadlineKind.CNH: ("CNH válida até", date(2030, 8, 3), cnh_due(date(2030, 8, 3)).due),
        DeadlineKind.PASSENGER_INSURANCE: (
            "apólice até",
            date(2026, 12, 31),
            passenger_insurance_due(date(2026, 12, 31)).due,
        ),
        DeadlineKind.DEPUTY_DEREGISTRATION: (
            "vínculo encerrado em",
            start,
            deputy_deregistration_due(start, settings).due,
        ),
        DeadlineKind.ACCIDENT_REPORT: ("acidente em", start, accident_report_due(start, settings).due),
        DeadlineKind.DEFENCE_PERIOD: ("notificação em", start, defence_due(start, settings).due),
        DeadlineKind.APPEAL_PERIOD: ("notificação da decisão em", start, appeal_due(start, settings).due),
        DeadlineKind.NEW_DOCUMENT: ("documento novo exigido a partir de", start,
                                    new_document_due("Apresentar o documento", "Art. 5º", start).due),
    }
    rows = []
    for kind in DeadlineKind:
        what, when, due = examples[kind]
        example = f"{what} {format_date(when)}" if when else what
        rows.append((kind.label, kind.article, example, format_date(due) if due else "—"))
    return (
        "## Prazos\n\n"
        "A data de vencimento é o último dia em que a obrigação ainda está cumprida; no dia seguinte, "
        "está vencida.\n\n" + _table(("Prazo", "Artigo", "Exemplo", "Vence em"), rows)
    )


def _quota_section(settings: LawSettings) -> str:
    quota = mototaxi_quota(settings.population)
    rows = [
        (format_int(in_force), check_quota_place(in_force, settings.population).message)
        for in_force in (quota - 1, quota)
    ]
    return (
        "## Cota do mototáxi (Art. 10, I)\n\n"
        "Uma permissão para cada 2.000 habitantes (IBGE), arredondando para baixo: "
        f"{format_int(settings.population)} habitantes ({settings.population_year}) → {quota} permissões. "
        "Motoboy e moto-frete não têm cota (Art. 10, II e III).\n\n" + _table(("Em vigor", "Parecer"), rows)
    )


def _fees_section() -> str:
    charged = Fee(FeeAct.RENEWAL, Decimal("45.90"), "Decreto nº 0.000/2026 (exemplo)")
    table = {FeeAct.RENEWAL: charged}
    paid = PaymentFacts("2026000123", EXAMPLE_DAY, Decimal("45.90"))
    short = PaymentFacts("2026000124", EXAMPLE_DAY, Decimal("40.00"))
    rows = [
        ("Taxa zerada (padrão)", check_fee_paid({}, FeeAct.RENEWAL, None).message),
        ("Taxa de R$ 45,90, sem guia", check_fee_paid(table, FeeAct.RENEWAL, None).message),
        ("Guia de R$ 40,00", check_fee_paid(table, FeeAct.RENEWAL, short).message),
        ("Guia paga de R$ 45,90", check_fee_paid(table, FeeAct.RENEWAL, paid).message),
    ]
    acts = [(act.value, act.label) for act in FeeAct]
    return (
        "## Taxas (Art. 6º, § 6º)\n\n"
        "A autorização é conferida “a título oneroso, remunerada diretamente pelos interessados”. Cada ato "
        "tem uma taxa na tabela de taxas (configurações `fee_<ato>_brl` e `fee_<ato>_basis`), zero até a "
        f"Secretaria informar o valor e sua base legal (padrão: “{DEFAULT_LEGAL_BASIS}”). Um ato com taxa "
        "só se conclui com a guia/DAM paga registrada (número, data, valor igual à taxa em vigor); cada "
        f"guia paga um só ato. Taxa acima de {format_brl(MAX_FEE_BRL)} é recusada como erro de digitação.\n\n"
        + _table(("Ato", "Taxa de"), acts) + "\n" + _table(("Situação", "Parecer"), rows)
    )


def _tender_and_photo_section(settings: LawSettings) -> str:
    from motodesk.rules.photo import PhotoFacts, check_photo
    from motodesk.rules.tenders import tender_requirement

    called = TenderCandidateFacts(rank=3, status="called", tender_number="01/2026",
                                  homologated_on=date(2026, 2, 9))
    tender_rows = [
        ("convocado, licitação homologada", tender_requirement(called).message),
        ("aguardando convocação", tender_requirement(replace(called, status="waiting")).message),
        ("fora da licitação em andamento", tender_requirement(None, ["01/2026"]).message),
        ("sem licitação", tender_requirement(None).message),
    ]
    good = PhotoFacts(width=354, height=472, colour=True, mode="RGB", taken_on=EXAMPLE_DAY, rendered=True)
    photo_cases = [
        ("foto da câmera ou de arquivo, 354×472, colorida, de hoje", good),
        ("outro tamanho", replace(good, width=512, height=512)),
        ("importada, fora da proporção 3x4", replace(good, rendered=False, width=300, height=300)),
        ("em tons de cinza", replace(good, colour=False, mode="L")),
        ("importada, antiga", replace(good, rendered=False, taken_on=date(2025, 9, 10))),
        ("com aviso de qualidade", replace(good, quality_warnings=("Foto muito escura: melhore a iluminação.",))),
    ]
    photo_rows = []
    for label, facts in photo_cases:
        judged = check_photo(facts, EXAMPLE_DAY, settings)
        if judged.refusals:
            outcome = "recusada: " + " ".join(v.message for v in judged.refusals)
        elif judged.warnings:
            outcome = ("aceita só com “Usar mesmo assim” e o motivo, guardado na auditoria: "
                       + " ".join(v.message for v in judged.warnings))
        else:
            outcome = "aceita"
        photo_rows.append((label, outcome))
    return (
        "## Licitação do mototáxi no dossiê (Art. 6º; Art. 10, I)\n\n"
        "O dossiê de mototáxi mostra, entre os requisitos, a regra `art6_tender` (`tender_requirement`): "
        "se há licitação em andamento e se o requerente é candidato convocado. Ela é atendida exatamente "
        "quando a aprovação e a emissão (`check_tender`) aceitariam.\n\n"
        + _table(("Situação", "Parecer"), tender_rows)
        + "\n## Foto 3x4 (Art. 5º, IX)\n\n"
        "`check_photo` julga toda foto antes de guardá-la, venha da câmera, de arquivo ou da importação. "
        "Recusas não se contornam; avisos de qualidade (rosto, luz, foco, resolução, preto e branco) "
        "exigem “Usar mesmo assim” com motivo.\n\n"
        + _table(("Foto", "Resultado"), photo_rows)
    )


def _infractions_section(settings: LawSettings) -> str:
    severity_rows = []
    for severity in Severity:
        ufm, brl = fine_amount(severity, settings)
        penalties = join_words([p.label for p in allowed_penalties(severity, settings)])
        severity_rows.append(
            (
                f"{severity.label} (Grupo {severity.group})",
                severity.article,
                penalties,
                f"{format_ufm(ufm)} = {format_brl(brl)}",
            )
        )
    catalogue_rows = []
    for item in CATALOGUE:
        if item.fixed_penalty is not None:
            penalty = item.fixed_penalty.label
            if item.fixed_fine_ufm is not None:
                penalty += f" de {format_ufm(item.fixed_fine_ufm)}"
            if item.vehicle_seizure:
                penalty += " e apreensão do veículo"
            classification = f"fixada em lei: {penalty}"
        else:
            classification = item.severity.label
        catalogue_rows.append((f"`{item.code}`", item.article, classification, item.text))
    return (
        "## Infrações e penalidades (Art. 15, 29 a 35)\n\n"
        "Classificação por grupo (Art. 33); penalidades em ordem crescente (Art. 34): advertência por "
        "escrito, multa, suspensão, cassação. Penalidades e multas por classificação, configuração padrão "
        "(provisória até o Decreto):\n\n"
        + _table(("Classificação", "Artigo", "Penalidades admitidas", "Multa"), severity_rows)
        + "\n### Catálogo\n\n"
        + _table(("Código", "Artigo", "Classificação", "Texto da lei"), catalogue_rows)
        + _employer_section(settings)
    )


def _employer_section(settings: LawSettings) -> str:
    """Art. 25: the employer or contractor (an organisation of the register) as offender."""
    from motodesk.rules.employer import employer_section

    return employer_section(settings)


def _enforcement_section(settings: LawSettings) -> str:
    day = EXAMPLE_DAY
    stages = [
        (NoticeStatus.OPEN.label, "Auto lavrado; corre o prazo de defesa a partir da notificação", "Art. 29, §§ 1º a 3º"),
        (NoticeStatus.DECIDED.label, "Decisão de 1ª instância; o prazo de recurso corre a partir da notificação da "
                                     "decisão ao autuado (pessoalmente, por AR ou por edital), registrada depois",
         "Art. 29, §§ 2º e 3º; Art. 34, parágrafo único"),
        (NoticeStatus.APPEALED.label, "Recurso registrado, aguardando decisão", "Art. 34, parágrafo único"),
        (NoticeStatus.CLOSED.label, "Decisão definitiva (improcedente, recurso julgado, ou prazo de recurso "
                                    "encerrado/renunciado)", "Art. 34, parágrafo único"),
    ]
    notified = [(Signature.SIGNED.label, "no ato da autuação, pelo próprio auto: o prazo de defesa começa nesse dia")]
    later = "; ".join(m.label for m in LATER_NOTIFICATION_METHODS)
    for signature in (Signature.REFUSED, Signature.ABSENT):
        notified.append((signature.label, f"depois ({later}): o prazo de defesa só começa nesse dia"))

    def effect(penalty: Penalty, stage: Stage, kind: OffenderKind) -> str:
        plan = plan_decision_effects(DecisionFacts(
            stage, Outcome.UPHELD, penalty, 30, TargetFacts(target_of(kind), True), None, day), settings)
        if plan.effect is None:
            return "nenhum"
        return plan.effect.label_for(plan.target)

    effects = [
        (f"{penalty.label} ({penalty.article})", kind.label,
         effect(penalty, Stage.FIRST, kind), effect(penalty, Stage.APPEAL, kind))
        for penalty in (Penalty.SUSPENSION, Penalty.REVOCATION)
        for kind in OffenderKind if kind is not OffenderKind.ORGANISATION  # refused, see Art. 25
    ]
    unnotified = ProcessFacts("AI-0007/2026", NoticeStatus.OPEN, None, None, False)
    due = defence_period_end(day, settings)
    running = ProcessFacts("AI-0008/2026", NoticeStatus.OPEN, day, due, False)
    decided = ProcessFacts("AI-0009/2026", NoticeStatus.DECIDED, day, due, False, due + timedelta(days=30),
                           decision_notified_on=due)
    not_told = ProcessFacts("AI-0010/2026", NoticeStatus.DECIDED, day, due, False)
    examples = [
        ("Decidir sem notificar o autuado ausente", check_decision(unnotified, day + timedelta(days=60))[0]),
        ("Decidir antes do fim do prazo de defesa", check_decision(running, due)[0]),
        ("Encerrar antes do fim do prazo de recurso", check_close(decided, due + timedelta(days=1))[0]),
        ("Encerrar sem a notificação da decisão", check_close(not_told, due + timedelta(days=400))[0]),
        ("Notificação com data anterior ao auto", check_notification(NotificationFacts(
            "AI-0007/2026", NoticeStatus.OPEN, Signature.ABSENT, day, None, NotificationMethod.POST_AR,
            day - timedelta(days=1), day))[0]),
        ("Art. 35 sem a data do trânsito em julgado", check_final_conviction(ConvictionFacts(
            "1ª Vara Criminal de Patrocínio", "0001234-56.2024.8.13.0481", None, day, True))[0]),
    ]
    return (
        "## Processo administrativo (Art. 29, 34 e 35)\n\n"
        "Suspensão e cassação só por decisão em processo (auto de infração decidido, assegurada a defesa — "
        "Art. 29, § 3º) ou, para o Art. 35, pela condenação criminal transitada em julgado registrada (juízo, "
        "número do processo e data do trânsito em julgado). Não há suspensão nem cassação por motivo escrito. "
        "A decisão e a mudança da permissão ou do preposto gravam-se juntas, numa só transação. A suspensão "
        "termina sozinha no fim dos seus dias (calendário diário).\n\n"
        + _table(("Fase", "O que significa", "Artigo"), stages)
        + "\nNotificação e início do prazo de defesa (Art. 29, § 2º):\n\n"
        + _table(("No ato da autuação", "Notificação"), notified)
        + f"\nPrazo de defesa: {settings.defence_period_days} dias da notificação; prazo de recurso: "
        f"{settings.appeal_period_days} dias da notificação da decisão, não da data da decisão (configurações); "
        "sem essa notificação registrada o processo não se encerra, salvo renúncia ao recurso. A penalidade do titular atinge a "
        "permissão; a do preposto (“do condutor auxiliar”, Art. 34, III e IV) atinge o vínculo do preposto, não a "
        "permissão do titular; o autuado sem permissão (Art. 32) não tem o que suspender. Quando cada "
        "penalidade produz efeito é escolha do Decreto (Art. 34, parágrafo único; configurações "
        "`suspension_effective_on_first_decision` e `revocation_effective_on_first_decision`):\n\n"
        + _table(("Penalidade", "Autuado", "Decisão de 1ª instância", "Decisão do recurso"), effects)
        + f"\n{PermitEffect.PENDING_REVOCATION.label_for(Target.PERMIT)}: ao encerrar o processo depois do prazo "
        "de recurso (ou da renúncia), ou no julgamento do recurso.\n\n"
        "Exemplos de impedimentos:\n\n"
        + _table(("Situação", "Parecer"), [(label, verdict.message) for label, verdict in examples])
    )


def _lifecycle_section() -> str:
    rows = [
        (
            f"`{t.name}`",
            t.label,
            join_words([s.label for s in PermitState if s in t.source]),
            t.target.label,
            join_words([r.label for r in Role if r in t.roles]),
            t.article,
        )
        for t in TRANSITIONS
    ]
    context = TransitionContext(on=EXAMPLE_DAY, service=ServiceType.MOTOTAXI)
    examples = [
        (
            "Aprovar sem Decreto",
            check_transition("approve", PermitState.UNDER_REVIEW, Role.SUPERVISOR, context)[0],
        ),
        (
            "Emitir sem vaga na cota",
            check_transition(
                "issue",
                PermitState.APPROVED,
                Role.SUPERVISOR,
                replace(
                    context,
                    eligibility=[],
                    vehicle=[],
                    inspection_approved=True,
                    quota_open_places=0,
                    holder_permits_in_force=0,
                ),
            )[0],
        ),
        (
            "Segunda prorrogação",
            check_transition(
                "extend",
                PermitState.ACTIVE,
                Role.SUPERVISOR,
                replace(context, eligibility=[], vehicle=[], term_end=date(2031, 1, 5), extensions_used=1),
            )[0],
        ),
        ("Atendente tenta cassar", check_transition("revoke", PermitState.ACTIVE, Role.CLERK, context)[0]),
        (
            "Renovar o registro depois do fim do prazo",
            check_registration_renewal_term(EXAMPLE_DAY, date(2026, 3, 9), ServiceType.MOTOTAXI)[0],
        ),
        ("Mototáxi: requerente fora da licitação", check_tender(False, None)[0]),
        (
            "Mototáxi: candidato não convocado",
            check_tender(True, TenderCandidateFacts(12, "waiting", "01/2026", date(2026, 2, 20)))[0],
        ),
        (
            "Mototáxi: licitação não homologada",
            check_tender(True, TenderCandidateFacts(3, "called", "01/2026", None))[0],
        ),
    ]
    return (
        "## Ciclo de vida da permissão\n\n"
        "Uma transição só acontece quando `check_transition` não devolve nenhum impedimento. Prazo: 5 anos, "
        "prorrogável uma única vez por mais 5 (Art. 6º); certificado de registro válido por 1 ano, renovável "
        "(Art. 4º, § 1º), nunca além do fim do prazo. O mototáxi é precedido de licitação "
        "(Art. 6º): só o candidato convocado de licitação homologada é aprovado e recebe a permissão "
        "(`check_tender`).\n\n"
        + _table(("Transição", "Ação", "De", "Para", "Perfis", "Artigo"), rows)
        + "\nExemplos de impedimentos:\n\n"
        + _table(("Situação", "Parecer"), [(label, verdict.message) for label, verdict in examples])
    )


def _door_section() -> str:
    notice = penalty_evidence.NoticeEvidence("AI-0007/2026", True, "open", 7, "holder", 1)
    decided = replace(notice, status="decided",
                      decisions=(penalty_evidence.DecisionOnFile("first", "upheld", "suspension"),))
    examples = [
        ("Número de auto que não está no cadastro",
         penalty_evidence.check_notice_basis("suspend", replace(notice, number="AI-9999/2026", recorded=False),
                                             permit_id=7)[0].message),
        ("Auto ainda em defesa", penalty_evidence.check_notice_basis("suspend", notice, permit_id=7)[0].message),
        ("Auto decidido de outra permissão",
         penalty_evidence.check_notice_basis("suspend", decided, permit_id=8)[0].message),
        ("Cassar com auto que decidiu suspensão",
         penalty_evidence.check_notice_basis("revoke", decided, permit_id=7)[0].message),
        ("Art. 35 sem a condenação registrada", penalty_evidence.check_conviction_basis(None, permit_id=7)[0].message),
    ]
    undo = [
        ("Condenação criminal (Art. 35) → nova emissão, renovação ou prorrogação",
         check_transition("renew_registration", PermitState.ACTIVE, Role.CLERK, TransitionContext(
             service=ServiceType.MOTOTAXI, eligibility=[], vehicle=[],
             conviction=penalty_evidence.ConvictionEvidence(True, 7, 1, "0001234-56.2024.8.13.0481",
                                                            date(2026, 3, 1))))[0].message),
        ("Cassação do preposto → nova indicação, para qualquer titular",
         deputies.check_no_deputy_cassation(["MT-0007/2026"])[0].message),
        ("Candidatura usada na emissão → novo requerimento ou volta a “aguardando”",
         tenders.check_tender(True, tenders.TenderCandidateFacts(3, "accepted", "01/2026", date(2026, 2, 9)))[0]
         .message),
        ("Cancelamento, cassação ou fim do prazo → encerrar suspensão, renovar, prorrogar",
         check_transition("reinstate", PermitState.CANCELLED, Role.SUPERVISOR, TransitionContext())[0].message),
        ("Certidão criminal positiva registrada → reescrita como negativa (titular em vigor)",
         check_certificate_change(DocumentKind.CRIMINAL, holder_in_force=True, old_issue=date(2026, 1, 20),
                                  new_issue=date(2026, 1, 20), old_result="positive", new_result="negative",
                                  changed=True)[0].message),
    ]
    return (
        "## Estado legal só por ato julgado (a porta da lei)\n\n"
        "As colunas com efeito legal estão declaradas num só lugar (`motodesk/models/guarded.py`): da permissão, "
        "estado, prazo, número, titular, veículo e Decreto; do veículo que serve permissão em vigor, placa, chassi, "
        "RENAVAM, cilindrada, categoria, cor, anos, proprietário, titular e serviço; do vínculo do preposto, "
        "permissão, pessoa, início, fim, suspensão e cassação; da candidatura da licitação, situação e pessoa "
        "(desde a convocação); dos documentos do titular de permissão em vigor, os fatos já julgados. Nenhuma "
        "gravação as altera — pelo ORM, por comando SQL numa sessão ou por inserção em lote — sem um ato julgado "
        "aberto na mesma transação, depois de as regras aceitarem o ato, e só nas colunas que ele autoriza; a "
        "gravação é recusada e a transação desfeita. A importação e os dados de demonstração passam pelo mesmo "
        "ato julgado (os dados de demonstração só num banco vazio, e só permissões que as regras aceitam pelos "
        "mesmos atos de uma permissão real no seu estado: a emissão na data dela — vistoria aprovada antes, "
        "titular com 21 anos e dois anos de categoria A, motor de 125 a 250 cc, mototáxi por licitação e com vaga, "
        "uma permissão por titular, sem condenação do Art. 35; enquanto em vigor, a renovação do certificado "
        "hoje, com tudo o que ela exige do titular e do veículo; a expiração só depois do prazo; a suspensão e a "
        "cassação pelo auto de infração decidido).\n\n"
        "Suspensão, cassação e fim antecipado da suspensão, do titular ou do preposto, recebem o auto de infração "
        "como está no cadastro — seu número, sua fase, a decisão e a permissão (ou o preposto) autuada — ou a "
        "condenação do Art. 35 registrada, e as regras conferem essa prova:\n\n"
        + _table(("Situação", "Parecer"), examples)
        + "\nUm ato não desfaz outro anterior:\n\n"
        + _table(("Ato anterior → ato recusado", "Parecer"), undo)
    )


def _deputy_and_replacement_section() -> str:
    from motodesk.rules import acts

    sample = Verdict("art5_ii_cnh", "Art. 5º, II", Status.NOT_MET, "Art. 5º, II: a CNH venceu em 31/05/2026.")
    schedule = deputies.holder_keeps_hours(0, 16 * 60)
    assert schedule is not None
    rows = [
        ("Art. 14, § 2º", "`deputy_requirements`",
         "O preposto é julgado de novo pelos requisitos do titular na renovação do registro, na prorrogação "
         "e em cada crachá de preposto; cada requisito não atendido recusa o ato, por exemplo: “"
         + deputies.deputy_requirements([sample], "Paulo Nunes")[0].message + "”"),
        (schedule.article, "`holder_keeps_hours`", schedule.message),
        (replacement.ARTICLE, "`new_vehicle_refusals`",
         "O veículo substituto é julgado por todas as regras do veículo (`check_vehicle`) no dia do "
         "cadastro; qualquer regra não atendida recusa a substituição."),
        (replacement.INSPECTION_ARTICLE, "`permit_may_name`",
         replacement.permit_may_name([], False, "QWE2R34")[0].message),
        (replacement.ARTICLE, "`documents_wait_for_replacement`",
         replacement.documents_wait_for_replacement("ABC-1234", "QWE2R34").message),
        (replacement.ARTICLE, "`check_vehicle_edit_in_service`",
         " ".join(v.message for v in replacement.check_vehicle_edit_in_service(["plate", "engine_cc"],
                                                                                "MT-0007/2026"))),
        ("Art. 5º, § 1º, I; " + replacement.ARTICLE, "`check_identifier_correction`",
         "Corrigir a placa, o chassi ou o RENAVAM de veículo em serviço cabe ao supervisor, com o motivo e o CRLV "
         "anexado; a correção é julgada como identificação válida e aparece no histórico da permissão. Por exemplo: "
         + replacement.check_identifier_correction("plate", "ABC1234", "ABC1235", reason="", has_crlv=False,
                                                   by_supervisor=True, identification=None)[0].message),
        ("Art. 34, IV", "`check_no_deputy_cassation`",
         deputies.check_no_deputy_cassation(["MT-0007/2026"])[0].message),
        (acts.ART_RELEASE, "`vehicle_release_due`",
         "O veículo de permissão cancelada, cassada ou com prazo encerrado que continua cadastrado no serviço "
         "fica na lista de baixas pendentes até a baixa ser registrada. Por exemplo: "
         + acts.vehicle_release_due("ABC1234", "MT-0007/2026", PermitState.CANCELLED, date(2026, 3, 9)).message),
        ("Art. 31, Grupo 3, II", "`vehicle_release_verdicts`",
         acts.vehicle_release_verdicts("ABC1234", ["MT-0007/2026"])[0].message),
        (acts.ART_RELEASE, "`vehicle_release_without_end`", acts.vehicle_release_without_end("ABC1234").message),
    ]
    return (
        "## Preposto durante o vínculo e substituição do veículo (Art. 14; Art. 31, Grupo 3, II e Grupo 4, II e III)"
        "\n\n"
        + _table(("Artigo", "Regra", "O que diz"), rows)
    )


def _documents_section(settings: LawSettings) -> str:
    """The document gate and accidents (issue 16, items 2, 4, 5, 6, 10)."""
    from motodesk.rules.accidents import AccidentFacts, check_accident_report, check_accidents
    from motodesk.rules.document_gate import Document, DocumentFacts, InspectionFacts, check_document
    from motodesk.rules.facts import DeputyOnPermit, PermitFacts, PersonFacts, VehicleOnPermit

    holder = PersonFacts(1, "João da Silva", EXAMPLE_HOLDER_CPF, EXAMPLE_APPLICANT)
    vehicle = VehicleOnPermit(1, "HMG4B83", 1, True, EXAMPLE_VEHICLE,
                              last_inspection=InspectionFacts(date(2026, 1, 12), True))
    permit = PermitFacts(7, "MT-0007/2026", ServiceType.MOTOTAXI, PermitState.ACTIVE, issued_on=date(2026, 1, 5),
                         term_end=date(2031, 1, 5), extended=False, certificate_valid_until=date(2027, 1, 5),
                         holder=holder, granted_person_id=1, vehicle=vehicle)
    deputy = DeputyOnPermit(1, replace(holder, person_id=3, name="Pedro Preposto"), date(2026, 1, 5))

    def badge(**changes: Any) -> DocumentFacts:  # the badge of the permit with ``changes``
        return DocumentFacts(Document.BADGE, replace(permit, **changes))

    def car(**changes: Any) -> VehicleOnPermit:
        return replace(vehicle, facts=replace(EXAMPLE_VEHICLE, **changes))

    def dossier(**changes: Any) -> PersonFacts:
        return replace(holder, dossier=replace(EXAMPLE_APPLICANT, **changes))

    accident = AccidentFacts(date(2026, 3, 1), date(2026, 3, 9), True)
    cases: list[tuple[str, DocumentFacts]] = [
        ("Permissão suspensa", badge(state=PermitState.SUSPENDED, suspended_until=date(2026, 4, 1))),
        ("Pedido em nome de outra pessoa", replace(badge(), requested_person_id=2)),
        ("Titular trocado no registro", badge(granted_person_id=2)),
        ("Vida útil encerrada", badge(vehicle=car(year_manufacture=2020, year_model=2020))),
        ("Seguro obrigatório vencido", badge(vehicle=car(mandatory_insurance_valid_until=date(2026, 3, 9)))),
        ("Vistoria vencida (mototáxi: 6 meses)",
         badge(vehicle=replace(vehicle, last_inspection=InspectionFacts(date(2025, 9, 9), True)))),
        ("Acidente sem vistoria", badge(vehicle=replace(vehicle, accidents=(accident,)))),
        ("Atestado médico vencido", badge(holder=dossier(medical_date=date(2025, 3, 9)))),
        ("CNH vencida", badge(holder=dossier(cnh_expiry=date(2026, 3, 9)))),
        ("CNH sem a categoria A", badge(holder=dossier(cnh_categories="B"))),
        ("Seguro de passageiros vencido (Art. 19)", badge(vehicle=car(insurance_valid_until=date(2026, 3, 9)))),
        ("Cilindrada acima de 250 cc", badge(vehicle=car(engine_cc=300))),
        ("Cor diferente da do serviço", badge(vehicle=car(colour="PRETA"))),
        ("Crachá de preposto para quem não é o preposto",
         DocumentFacts(Document.DEPUTY_BADGE, replace(permit, deputy=deputy), requested_person_id=4)),
        ("Autorização de trânsito que nomeia um preposto suspenso", DocumentFacts(
            Document.TRANSIT_AUTHORIZATION, replace(permit, deputy=replace(deputy, suspended_until=date(2026, 3, 20))))),
    ]
    rows = [(label, "<br>".join(v.message for v in check_document(facts, EXAMPLE_DAY, settings)))
            for label, facts in cases]
    several = check_document(badge(vehicle=replace(vehicle, accidents=(accident,)), holder=dossier(medical_date=None)),
                             EXAMPLE_DAY, settings)
    late = check_accident_report(accident, settings)[0]
    return (
        "## Documentos (certificado, autorização de trânsito, crachá)\n\n"
        "`check_document` só deixa imprimir o que é verdade no dia, julgado sobre os fatos completos da "
        "permissão carregados uma vez (`motodesk.rules.facts`): permissão em vigor, para a pessoa a quem foi "
        "outorgada (Art. 6º, § 1º; Art. 7º); o veículo com todas as suas características — identificação, "
        "cilindrada, vida útil, categoria aluguel, CRLV, seguro obrigatório, proprietário, cor, uso e, no "
        "mototáxi, o seguro de passageiros (Art. 19) —, vistoria válida para o serviço, nenhum acidente que "
        "comprometeu a segurança sem vistoria; a CNH (validade, categoria A, EAR), o atestado médico e as "
        "certidões criminais do titular em dia; e, no certificado, na autorização de trânsito e no crachá do "
        "preposto, o preposto que eles nomeiam: não suspenso nem cassado e com as mesmas exigências do "
        "titular (Art. 14, § 2º). A recusa lista todos os artigos: com acidente e sem atestado, "
        f"{len(several)} motivos.\n\n"
        + _table(("Situação", "Parecer"), rows)
        + "\nAcidentes (Art. 31, Grupo 2, II e Grupo 4, I): comunicação após 5 dias é sinalizada para auto "
        f"(“{late.message}”); {check_accidents([accident], [])[0].message}\n"
    )


def main() -> None:
    """Write the document to standard output."""
    sys.stdout.write(render_rules_markdown())


if __name__ == "__main__":
    main()
