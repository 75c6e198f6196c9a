"""Art. 25: the employer, or whoever contracts a continued moto-frete service, as the offender of a notice.

Art. 25, I–II make an infraction of employing (or keeping a continued contract with) a moto-frete rider
not legally qualified, and of supplying or admitting a motorcycle out of the legal requirements for the
paid transport of goods; "responde pelas infrações previstas neste artigo o empregador ou aquele que
contrata serviço continuado de moto-frete" (parágrafo único). The offender is an organisation of the
register (a company, cooperative, central, association or operator), never a holder or a deputy: the
vocabulary and the kind/penalty rules are :mod:`motodesk.rules.enforcement`'s (``check_offender_kind``,
``check_offender_penalty``); this module judges the organisation a notice names
(:func:`check_organisation_offender`) and documents the whole of Art. 25 (:func:`employer_section`).

The register of organisations keeps no "inactive" state (an organisation is registered or it is not,
Art. 9º): an organisation that is not in the register is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from motodesk.rules.common import Verdict, not_met
from motodesk.rules.enforcement import (
    ART_EMPLOYER,
    ORGANISATION_PENALTIES,
    OffenderKind,
    check_offender_kind,
    check_offender_penalty,
)
from motodesk.rules.infractions import CATALOGUE, EMPLOYER_CATALOGUE, Infraction, Penalty, fine_amount
from motodesk.rules.text import format_brl, format_ufm, join_words

if TYPE_CHECKING:
    from motodesk.rules.settings import LawSettings


@dataclass(frozen=True)
class OrganisationOffenderFacts:
    """What the form chose and what the register says of it, loaded in the notice's transaction."""

    infraction: Infraction
    kind: OffenderKind
    organisation_id: int | None  # the organisation chosen on the form, if any
    registered: bool  # that organisation is in the register


def check_organisation_offender(facts: OrganisationOffenderFacts) -> list[Verdict]:
    """Art. 25, parágrafo único: the notice of Art. 25 names a registered organisation, and only it does."""
    found = check_offender_kind(facts.infraction, facts.kind)
    if found:
        return found
    if facts.kind is not OffenderKind.ORGANISATION:
        if facts.organisation_id is not None:
            return [not_met("enforcement_organisation_for_person", ART_EMPLOYER,
                            f"só o auto do Art. 25 nomeia uma empresa; o auto do {facts.infraction.article} "
                            f"autua o {facts.kind.printed}, sem empresa.")]
        return []
    if facts.organisation_id is not None and not facts.registered:
        return [not_met("enforcement_organisation_unknown", ART_EMPLOYER,
                        "a empresa escolhida não está no cadastro de organizações (Art. 9º); cadastre-a, ou "
                        "escolha outra, antes de lavrar o auto.")]
    return []


# --- docs/rules.md ---------------------------------------------------------------------------------


def employer_section(settings: LawSettings) -> str:
    """The Art. 25 part of docs/rules.md: the items, the penalties that reach an organisation, refusals."""
    from motodesk.rules.document import _table

    rows = [(f"`{item.code}`", item.article, item.severity.label, item.text) for item in EMPLOYER_CATALOGUE]
    fine_ufm, fine_brl = fine_amount(EMPLOYER_CATALOGUE[0].severity, settings)
    admitted = join_words([p.label.lower() for p in ORGANISATION_PENALTIES])
    item = EMPLOYER_CATALOGUE[0]

    def refusal(kind: OffenderKind, infraction: Infraction, organisation_id: int | None,
                registered: bool) -> Verdict:
        return check_organisation_offender(OrganisationOffenderFacts(infraction, kind, organisation_id,
                                                                     registered))[0]

    verdicts = [
        ("Empresa autuada por infração do titular (Art. 30)",
         refusal(OffenderKind.ORGANISATION, CATALOGUE[0], 1, True)),
        ("Condutor autuado pelo Art. 25", refusal(OffenderKind.HOLDER, item, None, False)),
        ("Empresa indicada num auto contra o titular", refusal(OffenderKind.HOLDER, CATALOGUE[0], 1, True)),
        ("Empresa fora do cadastro de organizações", refusal(OffenderKind.ORGANISATION, item, 1, False)),
        ("Suspensão aplicada à empresa", check_offender_penalty(OffenderKind.ORGANISATION, Penalty.SUSPENSION)[0]),
        ("Cassação aplicada à empresa", check_offender_penalty(OffenderKind.ORGANISATION, Penalty.REVOCATION)[0]),
    ]
    examples = [(situation, f"`{v.rule_id}`", v.message) for situation, v in verdicts]
    return (
        f"\n### Infrações do empregador ({ART_EMPLOYER})\n\n"
        "Responde o empregador ou quem contrata serviço continuado de moto-frete: uma empresa do cadastro de "
        "organizações, nunca o titular ou o preposto; o auto liga-se à empresa do cadastro e guarda o nome e o "
        "CNPJ como impressos. A lei não dá grupo do Art. 33: a classificação mostrada é grave (reclassificável "
        "com motivo, Art. 33, parágrafo único). Das penalidades admitidas para a classificação "
        f"(configurações), só {admitted} alcançam a empresa (multa de grave: {format_ufm(fine_ufm)}, "
        f"{format_brl(fine_brl)} na configuração padrão); suspensão e cassação atingem permissão ou preposto, "
        "que a empresa não tem.\n\n"
        + _table(("Código", "Artigo", "Classificação", "Texto da lei"), rows)
        + "\n" + _table(("Situação", "Regra", "Parecer"), examples)
    )
