"""The tender that precedes the mototáxi permission (Art. 6º).

The mototáxi is a permission (``permissão``) of a public service and follows a tender
(``licitação``): only a candidate the secretariat has called, ranked in a tender, may have
it, and only once that tender has been homologated.  Motoboy and moto-frete get an
authorization (``autorização``), with no tender (Art. 10, II and III).

The service finds the candidate tied to the application (by CPF, among the called ones)
and hands the facts here; :func:`check_tender` judges them.  An empty list means the
condition is met; a candidate not called is **não atendido**; a tender not yet
homologated is **pendente** (its homologation date is missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import ServiceType, Status, Verdict

ARTICLE = "Art. 6º"

#: Candidate statuses that may take the permission: called by the secretariat, or already
#: accepted (the permission was issued to them).  The others are waiting, declined, eliminated.
CALLED_STATUSES = frozenset({"called", "accepted"})


@dataclass(frozen=True)
class TenderCandidateFacts:
    """The tender candidate tied to a mototáxi application, and their tender."""

    rank: int  # place in the tender's ranking (1 = first)
    status: str  # waiting / called / accepted / declined / eliminated
    tender_number: str  # "01/2026"
    homologated_on: date | None = None  # None: the tender is not homologated yet


def tender_required(service: ServiceType) -> bool:
    """Art. 6º: the mototáxi permission follows a tender; the motoboy and moto-frete authorizations do not."""
    return service is ServiceType.MOTOTAXI


def check_tender(linked: bool, candidate: TenderCandidateFacts | None) -> list[Verdict]:
    """What the tender condition of a mototáxi application lacks (Art. 6º); empty = met.

    ``linked`` says whether the application is tied to a tender candidate at all; ``candidate``
    describes that candidate and their tender, ``None`` when either no longer exists.
    """
    if not linked:
        return [
            _not_met(
                "a permissão de mototáxi é precedida de licitação, e o requerente não é candidato "
                "convocado de nenhuma licitação"
            )
        ]
    if candidate is None:
        return [_not_met("o candidato da licitação vinculado ao requerimento não existe mais")]
    found: list[Verdict] = []
    if candidate.status not in CALLED_STATUSES:
        found.append(
            _not_met(
                f"o candidato {candidate.rank}º da licitação {candidate.tender_number} não foi convocado "
                "(ou desistiu, ou foi eliminado)"
            )
        )
    if candidate.homologated_on is None:
        found.append(
            Verdict(
                "tender",
                ARTICLE,
                Status.PENDING,
                f"{ARTICLE}: pendente — a licitação {candidate.tender_number} ainda não foi homologada.",
                ("tender_homologation_date",),
            )
        )
    return found


def _not_met(sentence: str) -> Verdict:
    return Verdict("tender", ARTICLE, Status.NOT_MET, f"{ARTICLE}: {sentence}.")
