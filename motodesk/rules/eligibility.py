"""Who may hold a permit, and be a deputy: Art. 5º (I–XII, § 2º), Art. 6º § 1º, Art. 8º, Art. 14 § 2º.

:func:`check_applicant` returns one verdict per requirement, in the order of the
law, checked on a reference date (the application date, or the renewal date):

==========================  ===========================================================
rule_id                     requirement
==========================  ===========================================================
``art5_i_age``              21 years completed (Art. 5º, I)
``art5_ii_cnh``             CNH category A for 2 years, valid, with "EAR" (Art. 5º, II)
``art5_iii_course``         specialised course of CONTRAN (Art. 5º, III)
``art5_v_identity``         identity card, RG (Art. 5º, V)
``art5_vi_military_elect``  military and electoral obligations (Art. 5º, VI)
``art5_vii_medical``        medical certificate, yearly; mototáxi: 30 days (Art. 5º, VII, § 2º)
``art5_viii_inss``          INSS registration as individual contributor (Art. 5º, VIII)
``art5_ix_photo``           two recent 3x4 colour photos (Art. 5º, IX)
``art5_x_residence``        recent proof of residence (Art. 5º, X)
``art5_xi_criminal``        negative criminal certificates, every 5 years (Art. 5º, XI)
``art5_xii_cpf``            CPF (Art. 5º, XII)
``art6_1_natural_person``   natural person only (Art. 6º, § 1º)
``art8_other_permits``      no taxi, school or collective transport permit (Art. 8º)
==========================  ===========================================================

Art. 5º, IV (vest and helmet with retroreflective devices) is not here: it is
equipment, checked item by item at the inspection (:mod:`motodesk.rules.checklist`,
items ``A5-IV-VEST`` and ``A5-IV-HELMET``), and an approved inspection is itself
required to issue a permit (:mod:`motodesk.rules.lifecycle`).  Returning it here
as permanently pending would make a dossier never complete.

The photo's 3x4 proportion and colour are ensured by ``motodesk.imaging`` when it
is captured; here only its date is judged (Art. 5º, IX, "recentes").

What the rules module cannot see is left to the services, which hold the
database: that the CPF is unique among people (Art. 5º, XII), that the holder
has no other permit in force (Art. 6º, § 2º), and the other municipal registers
of Art. 8º where known.

Counting (see :mod:`motodesk.rules.periods`): years end on the anniversary,
and a period started on 29 February ends on 1 March in common years (Código
Civil, art. 132, § 3º) — someone born on 29/02/2004 completes 21 years on
01/03/2025, not on 28/02/2025.  "Recent" documents (photo, proof of residence)
are accepted up to and including the last day of their window: a proof of
residence dated 90 days before the reference date is accepted, 91 days is not.

Deputies (prepostos) must meet "as mesmas exigências impostas ao detentor do
serviço" (Art. 14, § 2º): :func:`check_deputy` applies the same rules, speaking
of "o preposto".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from motodesk.rules import documents_declared
from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.documents_declared import DEPUTY, HOLDER, DocumentEvidence
from motodesk.rules.evidence import Findings, after_reference, as_clause
from motodesk.rules.periods import (
    add_calendar_days,
    add_years,
    completed_months,
    completed_years,
    describe_period,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date, plural
from motodesk.rules.validators import Validation, validate_cnh, validate_cpf, validate_nit, validate_titulo

#: Art. 5º, I: "ter completado 21 (vinte e um) anos".
MIN_AGE = 21
#: Art. 5º, II: "possuir habilitação, por pelo menos 2 (dois) anos, na categoria 'A'".
MIN_CATEGORY_A_YEARS = 2
#: Art. 5º, § 2º: medical certificate "no prazo máximo de 30 (trinta) dias, contados da homologação".
MEDICAL_AFTER_HOMOLOGATION_DAYS = 30
#: CTB art. 140, I: nobody is licensed before 18 — an earlier category-A date is impossible.
MIN_LICENCE_AGE = 18
#: Lei nº 4.375/1964, art. 5º: military obligation lasts until 31 December of the year one turns 45.
MILITARY_OBLIGATION_LAST_AGE = 45
#: Ages above this are treated as a typing error in the birth date.
MAX_PLAUSIBLE_AGE = 120

BRAZILIAN_UFS = frozenset(
    "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO".split()
)


@dataclass
class ApplicantFacts:
    """The evidence in an applicant's (or deputy's) dossier.  ``None`` means not yet provided."""

    birth_date: date | None = None
    sex: str | None = None  # "M" or "F", as on the identity card: decides the military obligation
    cpf: str | None = None
    cnh_number: str | None = None
    cnh_categories: str | None = None  # as printed on the CNH: "A", "AB", "AD", "ACC"…
    cnh_first_a_date: date | None = None  # "1ª habilitação" of category A
    cnh_expiry: date | None = None
    cnh_ear: bool | None = None  # remark "EAR – exerce atividade remunerada" (CTB art. 147, § 5º)
    course_certificate_number: str | None = None
    course_school: str | None = None
    course_date: date | None = None
    rg_number: str | None = None
    rg_issuer: str | None = None
    rg_uf: str | None = None
    reservist_number: str | None = None
    voter_title: str | None = None
    electoral_quitacao: bool | None = None  # certidão de quitação eleitoral
    medical_date: date | None = None
    # Mototáxi after a tender: the day the medical certificate was presented to the secretariat,
    # which must fall within 30 days of the homologation (Art. 5º, § 2º).
    medical_presented_date: date | None = None
    nit: str | None = None
    photo_date: date | None = None
    residence_proof_date: date | None = None
    address: str | None = None
    criminal_certificates_date: date | None = None
    criminal_result: str | None = None  # "negative" or "positive"
    holds_other_municipal_permit: bool | None = None  # Art. 8º declaration
    is_natural_person: bool | None = True  # Art. 6º, § 1º
    # Mototáxi only, for the application that follows the tender: the medical
    # certificate is due within 30 days of the homologation (Art. 5º, § 2º).
    # Leave None for renewals and for motoboy / moto-frete.
    tender_homologation_date: date | None = None
    #: The documents judged by the generic rule of their declaration (``documents_declared``), by kind.
    declared: tuple[tuple[str, DocumentEvidence], ...] = ()

    def evidence(self, kind: str) -> DocumentEvidence | None:
        return next((ev for k, ev in self.declared if k == kind), None)


#: pt_BR names of the fields of :class:`ApplicantFacts`, as listed in ``Verdict.missing``.
FIELD_LABELS: dict[str, str] = {
    "birth_date": "a data de nascimento",
    "sex": "o sexo",
    "cpf": "o CPF",
    "cnh_number": "o número da CNH",
    "cnh_categories": "as categorias da CNH",
    "cnh_first_a_date": "a data da primeira habilitação na categoria A",
    "cnh_expiry": "a validade da CNH",
    "cnh_ear": "a observação EAR na CNH",
    "course_certificate_number": "o número do certificado do curso",
    "course_school": "a entidade do curso",
    "course_date": "a data de conclusão do curso",
    "rg_number": "o número do RG",
    "rg_issuer": "o órgão expedidor do RG",
    "rg_uf": "a UF do RG",
    "reservist_number": "o certificado de reservista",
    "voter_title": "o título de eleitor",
    "electoral_quitacao": "a certidão de quitação eleitoral",
    "medical_date": "o atestado médico",
    "medical_presented_date": "a data de apresentação do atestado médico",
    "nit": "o NIT/PIS",
    "photo_date": "a foto 3x4",
    "residence_proof_date": "a data do comprovante de residência",
    "address": "o endereço",
    "criminal_certificates_date": "a data das certidões criminais",
    "criminal_result": "o resultado das certidões criminais",
    "holds_other_municipal_permit": "a declaração do Art. 8º (outras permissões municipais)",
    "is_natural_person": "a natureza do requerente (pessoa física)",
    "tender_homologation_date": "a data de homologação da licitação",
}


def check_applicant(
    facts: ApplicantFacts,
    service: ServiceType,
    on: date,
    settings: LawSettings,
    *,
    subject: str = "o requerente",
    role: str = HOLDER,
) -> list[Verdict]:
    """Every requirement of Art. 5º, 6º § 1º and 8º, checked on ``on``.

    ``Verdict.missing`` holds field names of :class:`ApplicantFacts` (see
    :data:`FIELD_LABELS`), or ``kind.field`` for a document judged by its
    declaration.  Never raises on missing or odd data: missing evidence gives
    PENDING, impossible data NOT_MET with the reason.

    The hand-written rules come first, in the order of the law; then one verdict per declared
    document with no rule of its own (:func:`~motodesk.rules.documents_declared.check_declared`).
    A rule whose every document is declared for other services or roles is left out.
    """
    verdicts = [
        _age(facts, on, subject),
        _cnh(facts, on, subject),
        _course(facts, on),
        _identity(facts),
        _military_and_electoral(facts, on, subject),
        _medical(facts, service, on, settings),
        _inss(facts),
        _photo(facts, on, settings),
        _residence(facts, on, settings),
        _criminal(facts, on, settings),
        _cpf(facts),
        _natural_person(facts, subject),
        _other_permits(facts, subject),
    ]
    docs = documents_declared.declared()
    applies: dict[str, bool] = {}
    for d in docs:
        applies[d.rule] = applies.get(d.rule, False) or d.applies(service, role)
    verdicts = [v for v in verdicts if applies.get(v.rule_id, True)]
    verdicts += [documents_declared.check_declared(d, facts.evidence(d.kind), on, settings, subject=subject)
                 for d in documents_declared.generic() if d.applies(service, role)]
    return verdicts


def check_age_and_cnh(
    facts: ApplicantFacts, service: ServiceType, on: date, *, subject: str = "o requerente", role: str = HOLDER
) -> list[Verdict]:
    """Art. 5º, I (age) and II (CNH) alone, exactly as :func:`check_applicant` judges them (the same
    verdicts, left out where it leaves them out): what the register import refuses a line for, without
    building the eleven other verdicts it has no column for (issue 28)."""
    applies: dict[str, bool] = {}
    for d in documents_declared.declared():
        applies[d.rule] = applies.get(d.rule, False) or d.applies(service, role)
    return [v for v in (_age(facts, on, subject), _cnh(facts, on, subject)) if applies.get(v.rule_id, True)]


def check_deputy(
    facts: ApplicantFacts, service: ServiceType, on: date, settings: LawSettings
) -> list[Verdict]:
    """A deputy meets the same requirements as the holder (Art. 14, § 2º)."""
    return check_applicant(facts, service, on, settings, subject="o preposto", role=DEPUTY)


def completeness(verdicts: Sequence[Verdict]) -> float:
    """Share of requirements with their evidence in (MET or NOT_MET), from 0 to 1.

    It measures how complete the dossier is, not whether it passes: see
    :func:`all_met`.  An empty list is complete (1.0).
    """
    if not verdicts:
        return 1.0
    return sum(v.status is not Status.PENDING for v in verdicts) / len(verdicts)


def all_met(verdicts: Sequence[Verdict]) -> bool:
    """True when every requirement is met."""
    return all(v.status is Status.MET for v in verdicts)


def blocking(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The verdicts that are not met or still pending."""
    return [v for v in verdicts if v.status is not Status.MET]


# --- Art. 5º, I -------------------------------------------------------------------------------


def _age(facts: ApplicantFacts, on: date, subject: str) -> Verdict:
    found = Findings("art5_i_age", "Art. 5º, I", FIELD_LABELS)
    birth = found.dated("birth_date", "a data de nascimento", facts.birth_date, on)
    if birth is None:
        return found.verdict()
    years = completed_years(birth, on)
    if years > MAX_PLAUSIBLE_AGE:
        found.impossible_data(f"a data de nascimento ({format_date(birth)}) indica {years} anos")
        return found.verdict()
    age = _describe_age(birth, on)
    if years < MIN_AGE:
        found.fail(
            f"{subject} tem {age}; o mínimo é {MIN_AGE} (completa {MIN_AGE} anos em "
            f"{format_date(add_years(birth, MIN_AGE))})"
        )
    return found.verdict(f"{subject} tem {age}; o mínimo é {MIN_AGE}")


def _describe_age(birth: date, on: date) -> str:
    """``"20 anos e 11 meses"`` — whole years and months, days left out."""
    return describe_period(birth, on) if completed_months(birth, on) else "0 anos"


# --- Art. 5º, II ------------------------------------------------------------------------------


def parse_cnh_categories(raw: str) -> tuple[str, ...] | None:
    """``"AB"`` → ``("A", "B")``; ``"ACC"`` → ``("ACC",)`` (moped, not category A); None if unreadable."""
    cleaned = re.sub(r"[\s,;/\-]", "", raw.upper())
    tokens = tuple(re.findall(r"ACC|[A-E]", cleaned))
    if not tokens or "".join(tokens) != cleaned:
        return None
    return tokens


def check_cnh(facts: ApplicantFacts, on: date, subject: str = "o requerente") -> Verdict:
    """Art. 5º, II alone: CNH of category A for 2 years, valid on ``on``, with the EAR remark (the
    document gate judges it on every document's day, :mod:`motodesk.rules.document_gate`)."""
    return _cnh(facts, on, subject)


def _cnh(facts: ApplicantFacts, on: date, subject: str) -> Verdict:
    found = Findings("art5_ii_cnh", "Art. 5º, II", FIELD_LABELS)
    said: list[str] = []

    _say_number(found, said, "cnh_number", facts.cnh_number, validate_cnh, "número da CNH inválido", "CNH nº {}")

    if facts.cnh_categories is None or not facts.cnh_categories.strip():
        found.need("cnh_categories")
    else:
        categories = parse_cnh_categories(facts.cnh_categories)
        if categories is None:
            found.impossible_data(f"categorias da CNH não reconhecidas: “{facts.cnh_categories}”")
        elif "A" not in categories:
            found.fail(f"a CNH é da categoria {''.join(categories)}; é exigida a categoria A")
        else:
            said.append(f"categoria {''.join(categories)}")

    first_a = found.dated("cnh_first_a_date", "a primeira habilitação na categoria A", facts.cnh_first_a_date, on)
    if first_a is not None and facts.birth_date is not None and first_a < add_years(facts.birth_date, MIN_LICENCE_AGE):
        found.impossible_data(
            f"a primeira habilitação na categoria A ({format_date(first_a)}) é anterior aos "
            f"{MIN_LICENCE_AGE} anos {_of(subject)}"
        )
    elif first_a is not None:
        held = describe_period(first_a, on, with_days=True)
        completes = add_years(first_a, MIN_CATEGORY_A_YEARS)
        if completed_years(first_a, on) < MIN_CATEGORY_A_YEARS:
            found.fail(
                f"habilitado na categoria A desde {format_date(first_a)} ({held}); o mínimo é "
                f"{MIN_CATEGORY_A_YEARS} anos, completados em {format_date(completes)}"
            )
        else:
            said.append(f"na categoria A desde {format_date(first_a)} ({held})")

    if (expiry := found.in_force("cnh_expiry", "a CNH", facts.cnh_expiry, on)) is not None:
        said.append(f"válida até {format_date(expiry)}")

    if facts.cnh_ear is None:
        found.need("cnh_ear")
    elif not facts.cnh_ear:
        found.fail("a CNH não tem a observação EAR (exerce atividade remunerada, CTB art. 147, § 5º)")
    else:
        said.append("com a observação EAR")

    return found.verdict(", ".join(said))


# --- Art. 5º, III, V, VI ----------------------------------------------------------------------


def _course(facts: ApplicantFacts, on: date) -> Verdict:
    found = Findings("art5_iii_course", "Art. 5º, III", FIELD_LABELS)
    for name in ("course_certificate_number", "course_school"):
        if not _given(getattr(facts, name)):
            found.need(name)
    found.dated("course_date", "a conclusão do curso", facts.course_date, on)
    if not found.clear or facts.course_date is None:
        return found.verdict()
    return found.verdict(
        f"curso especializado concluído em {format_date(facts.course_date)}, certificado nº "
        f"{facts.course_certificate_number}, {facts.course_school}"
    )


def _identity(facts: ApplicantFacts) -> Verdict:
    found = Findings("art5_v_identity", "Art. 5º, V", FIELD_LABELS)
    for name in ("rg_number", "rg_issuer", "rg_uf"):
        if not _given(getattr(facts, name)):
            found.need(name)
    uf = (facts.rg_uf or "").strip().upper()
    if uf and uf not in BRAZILIAN_UFS:
        found.impossible_data(f"a UF do RG (“{facts.rg_uf}”) não existe")
    if not found.clear:
        return found.verdict()
    return found.verdict(f"RG nº {facts.rg_number} {facts.rg_issuer}/{uf}")


def _military_and_electoral(facts: ApplicantFacts, on: date, subject: str) -> Verdict:
    found = Findings("art5_vi_military_elect", "Art. 5º, VI", FIELD_LABELS)
    said: list[str] = []

    sex = (facts.sex or "").strip().upper()
    if _given(facts.reservist_number):
        said.append(f"reservista nº {facts.reservist_number}")
    elif not sex:
        found.need("sex")  # a man must show the reservist certificate, a woman need not
    elif sex not in ("M", "F"):
        found.impossible_data(f"sexo “{facts.sex}” não reconhecido; use M ou F")
    elif sex == "F":
        said.append("sem obrigação militar")
    elif facts.birth_date is not None and on.year > facts.birth_date.year + MILITARY_OBLIGATION_LAST_AGE:
        said.append(f"obrigação militar encerrada aos {MILITARY_OBLIGATION_LAST_AGE} anos")
    else:
        found.need("reservist_number")

    _say_number(found, said, "voter_title", facts.voter_title, validate_titulo, "título de eleitor inválido",
                "título de eleitor nº {}")

    if facts.electoral_quitacao is None:
        found.need("electoral_quitacao")
    elif not facts.electoral_quitacao:
        found.fail(f"{subject} não está quite com a Justiça Eleitoral")
    else:
        said.append("quite com a Justiça Eleitoral")

    return found.verdict(", ".join(said))


# --- Art. 5º, VII and § 2º --------------------------------------------------------------------


def medical_valid_until(medical_date: date, settings: LawSettings) -> date:
    """Last day the medical certificate is accepted: renewed yearly (Art. 5º, VII, § 2º).

    A year is counted like every year of the law (:func:`~motodesk.rules.periods.add_years`, Código
    Civil art. 132, § 3º): a certificate of 01/03/2023 is valid until 01/03/2024, not 29/02/2024.
    """
    return add_years(medical_date, settings.medical_valid_years)


def tender_medical_deadline(homologation: date, settings: LawSettings) -> date:
    """Mototáxi: last day to present the medical certificate after the tender (Art. 5º, § 2º)."""
    return add_calendar_days(homologation, MEDICAL_AFTER_HOMOLOGATION_DAYS, settings)


def _medical(facts: ApplicantFacts, service: ServiceType, on: date, settings: LawSettings) -> Verdict:
    """Yearly validity from the issue date; after a tender, presented within 30 days of the homologation.

    The 30 days of Art. 5º, § 2º ("apresentado no prazo máximo de 30 dias, contados da homologação")
    run to the day the certificate was *presented* (``medical_presented_date``), not to the day the
    doctor signed it: a certificate issued before the homologation and presented in time is good.
    """
    found = Findings("art5_vii_medical", "Art. 5º, VII e § 2º", FIELD_LABELS)
    homologation = facts.tender_homologation_date if service is ServiceType.MOTOTAXI else None
    deadline = tender_medical_deadline(homologation, settings) if homologation else None
    medical = facts.medical_date
    presented = facts.medical_presented_date

    if homologation is not None and homologation > on:
        found.impossible_data(after_reference("a homologação da licitação", homologation, on))
        return found.verdict()
    if medical is None:
        if deadline is not None and on > deadline and (presented is None or presented > deadline):
            found.fail(
                f"o atestado médico não foi apresentado no prazo de {MEDICAL_AFTER_HOMOLOGATION_DAYS} dias "
                f"da homologação da licitação, encerrado em {format_date(deadline)}"
            )
        found.need("medical_date")
        if deadline is not None:
            found.pending_note = f"prazo: {format_date(deadline)}"
        return found.verdict()
    if medical > on:
        found.impossible_data(after_reference("o atestado médico", medical, on))
        return found.verdict()
    if presented is not None and presented < medical:
        found.impossible_data(
            f"a apresentação do atestado médico ({format_date(presented)}) é anterior à sua emissão "
            f"({format_date(medical)})"
        )
        return found.verdict()
    if presented is not None and presented > on:
        found.impossible_data(after_reference("a apresentação do atestado médico", presented, on))
        return found.verdict()
    valid_until = medical_valid_until(medical, settings)
    if on > valid_until:
        found.fail(f"o atestado médico de {format_date(medical)} venceu em {format_date(valid_until)}")
    if deadline is not None:
        if presented is None:
            if on > deadline:
                found.fail(
                    f"não há registro de que o atestado médico tenha sido apresentado no prazo de "
                    f"{MEDICAL_AFTER_HOMOLOGATION_DAYS} dias da homologação da licitação, encerrado em "
                    f"{format_date(deadline)}"
                )
            found.need("medical_presented_date")
            found.pending_note = f"prazo: {format_date(deadline)}"
        elif presented > deadline:
            found.fail(
                f"o atestado médico foi apresentado em {format_date(presented)}, depois do prazo de "
                f"{MEDICAL_AFTER_HOMOLOGATION_DAYS} dias da homologação da licitação, encerrado em {format_date(deadline)}"
            )
    said = f"atestado médico de {format_date(medical)}, válido até {format_date(valid_until)}"
    if deadline is not None and presented is not None:
        said += (f", apresentado em {format_date(presented)}, dentro do prazo de "
                 f"{MEDICAL_AFTER_HOMOLOGATION_DAYS} dias da homologação, que vai até {format_date(deadline)}")
    return found.verdict(said)


# --- Art. 5º, VIII, IX, X, XI, XII ------------------------------------------------------------


def _inss(facts: ApplicantFacts) -> Verdict:
    return _one_number(Findings("art5_viii_inss", "Art. 5º, VIII", FIELD_LABELS), "nit", facts.nit, validate_nit,
                       "NIT/PIS inválido", "inscrito no INSS como contribuinte, NIT/PIS nº {}")


def _recent(
    found: Findings,
    field_name: str,
    document: str,
    issued: date | None,
    on: date,
    max_days: int,
) -> None:
    """Shared rule of the "recent" documents: issued no more than ``max_days`` before ``on``."""
    issued = found.dated(field_name, document, issued, on)
    if issued is not None and (on - issued).days > max_days:
        found.fail(
            f"{document} é de {format_date(issued)}, há {plural((on - issued).days, 'dia', 'dias')}; "
            f"o máximo é {plural(max_days, 'dia', 'dias')}"
        )


def _photo(facts: ApplicantFacts, on: date, settings: LawSettings) -> Verdict:
    found = Findings("art5_ix_photo", "Art. 5º, IX", FIELD_LABELS)
    _recent(found, "photo_date", "a foto", facts.photo_date, on, settings.photo_max_age_days)
    if not found.clear or facts.photo_date is None:
        return found.verdict()
    return found.verdict(
        f"foto 3x4 colorida de {format_date(facts.photo_date)}; o máximo é "
        f"{plural(settings.photo_max_age_days, 'dia', 'dias')}"
    )


def _residence(facts: ApplicantFacts, on: date, settings: LawSettings) -> Verdict:
    found = Findings("art5_x_residence", "Art. 5º, X", FIELD_LABELS)
    if not _given(facts.address):
        found.need("address")
    _recent(
        found,
        "residence_proof_date",
        "o comprovante de residência",
        facts.residence_proof_date,
        on,
        settings.proof_of_residence_max_days,
    )
    if not found.clear or facts.residence_proof_date is None:
        return found.verdict()
    return found.verdict(
        f"comprovante de residência de {format_date(facts.residence_proof_date)}; o máximo é "
        f"{plural(settings.proof_of_residence_max_days, 'dia', 'dias')}"
    )


def criminal_certificates_valid_until(issued: date, settings: LawSettings) -> date:
    """Last day the criminal certificates are accepted: "renovável a cada 05 anos" (Art. 5º, XI)."""
    return add_years(issued, settings.criminal_valid_years)


def _criminal(facts: ApplicantFacts, on: date, settings: LawSettings) -> Verdict:
    found = Findings("art5_xi_criminal", "Art. 5º, XI", FIELD_LABELS)
    result = (facts.criminal_result or "").strip().lower()
    if not result:
        found.need("criminal_result")
    elif result not in ("negative", "positive"):
        found.impossible_data(f"resultado das certidões “{facts.criminal_result}” não reconhecido")
    elif result == "positive":
        found.fail("as certidões criminais não são negativas")

    issued = found.dated("criminal_certificates_date", "as certidões criminais", facts.criminal_certificates_date,
                         on, plural=True)
    valid_until = None
    if issued is not None:
        valid_until = criminal_certificates_valid_until(issued, settings)
        if on > valid_until:
            found.fail(
                f"as certidões criminais de {format_date(issued)} venceram em {format_date(valid_until)}"
            )
    if not found.clear or issued is None or valid_until is None:
        return found.verdict()
    return found.verdict(
        f"certidões criminais negativas de {format_date(issued)}, válidas até {format_date(valid_until)}"
    )


def _cpf(facts: ApplicantFacts) -> Verdict:
    return _one_number(Findings("art5_xii_cpf", "Art. 5º, XII", FIELD_LABELS), "cpf", facts.cpf, validate_cpf,
                       "CPF inválido", "CPF nº {}")


# --- Art. 6º, § 1º and Art. 8º ----------------------------------------------------------------


def _natural_person(facts: ApplicantFacts, subject: str) -> Verdict:
    found = Findings("art6_1_natural_person", "Art. 6º, § 1º", FIELD_LABELS)
    if facts.is_natural_person is None:
        found.need("is_natural_person")
    elif not facts.is_natural_person:
        found.fail("a permissão e a autorização só se dão a pessoa física, de forma pessoal e intransferível")
    return found.verdict(f"{subject} é pessoa física")


def _other_permits(facts: ApplicantFacts, subject: str) -> Verdict:
    found = Findings("art8_other_permits", "Art. 8º", FIELD_LABELS)
    if facts.holds_other_municipal_permit is None:
        found.need("holds_other_municipal_permit")
    elif facts.holds_other_municipal_permit:
        found.fail(
            f"{subject} detém permissão ou concessão municipal de táxi, transporte escolar ou transporte "
            "coletivo, o que impede o exercício destas atividades"
        )
    return found.verdict(f"{subject} declara não deter permissão de táxi, transporte escolar ou coletivo")


def _of(subject: str) -> str:
    """Portuguese contraction of "de" with the subject's article: "o requerente" -> "do requerente"."""
    for article, contracted in (("o ", "do "), ("a ", "da "), ("os ", "dos "), ("as ", "das ")):
        if subject.startswith(article):
            return contracted + subject[len(article):]
    return "de " + subject


def _given(value: str | None) -> bool:
    return value is not None and bool(value.strip())


def _one_number(found: Findings, field: str, raw: str | None, validate: Callable[[str | None], Validation],
                invalid: str, met: str) -> Verdict:
    """A requirement met by one number that must be given and check: missing, refused with the check's
    reason (``invalid`` when it gives none), or met, saying ``met`` with the number formatted into it."""
    said: list[str] = []
    _say_number(found, said, field, raw, validate, invalid, met)
    return found.verdict(*said)


def _say_number(found: Findings, said: list[str], field: str, raw: str | None,
                validate: Callable[[str | None], Validation], invalid: str, met: str) -> None:
    """One number of a requirement: ``field`` missing, refused with the check's reason (``invalid`` when it
    gives none), or checked, ``met`` with the formatted number added to what the verdict says."""
    if not _given(raw):
        found.need(field)
        return
    number = validate(raw)
    if number.ok:
        said.append(met.format(number.value))
    else:
        found.fail(as_clause(number.message or invalid))
