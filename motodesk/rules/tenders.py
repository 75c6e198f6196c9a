"""The tender that precedes the mototáxi permission (Art. 6º).

The mototáxi is a permission (``permissão``) of a public service and follows a tender
(``licitação``): only a candidate the secretariat has called, ranked in a tender, may have
it, and only once that tender has been homologated.  Motoboy and moto-frete get an
authorization (``autorização``), with no tender (Art. 10, II and III).

The service finds the candidate tied to the application (by CPF, among the called ones)
and hands the facts here; :func:`check_tender` judges them.  An empty list means the
condition is met; a candidate not called is **não atendido**; a tender not yet
homologated is **pendente** (its homologation date is missing).

:func:`tender_requirement` says the same up front, as one requirement of the dossier
(rule ``art6_tender``, Art. 6º and Art. 10, I): whether a mototáxi tender is under way and
whether the applicant is a called candidate of it, so that a dossier shown as complete does
not meet a surprise refusal at approval or issue, which judge :func:`check_tender`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import ServiceType, Status, Verdict, not_met
from motodesk.rules.text import format_date, join_words

ARTICLE = "Art. 6º"
#: The dossier's requirement: the permission follows a tender (Art. 6º), within the quota (Art. 10, I).
REQUIREMENT_ARTICLE = "Art. 6º; Art. 10, I"

#: Candidate statuses that may take the permission: called by the secretariat, or already
#: accepted (the permission was issued to them).  The others are waiting, declined, eliminated.
CALLED_STATUSES = frozenset({"called", "accepted"})
#: A candidacy that gave its permission: it is spent, and never serves another application (Art. 6º).
SPENT_STATUS = "accepted"


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
    if candidate.status == SPENT_STATUS:
        return [_not_met(
            f"a candidatura {candidate.rank}º da licitação {candidate.tender_number} já foi usada: a permissão "
            "foi emitida por ela; uma candidatura serve a uma só permissão e não se reaproveita"
        )]
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
    return not_met("tender", ARTICLE, f"{sentence}.")


#: pt_BR name of each candidate status, as the sentences say it.
STATUS_WORDS = {
    "waiting": "aguarda convocação",
    "called": "foi convocado",
    "accepted": "já recebeu a permissão",
    "declined": "desistiu",
    "eliminated": "foi eliminado",
}


def tender_requirement(candidate: TenderCandidateFacts | None, open_tenders: Sequence[str] = ()) -> Verdict:
    """The tender as a requirement of a mototáxi dossier (rule ``art6_tender``).

    ``candidate`` is the applicant's place in a tender (the one tied to the open application, or
    else the applicant's newest, by CPF), ``None`` when they are in none; ``open_tenders`` are the
    numbers of the tenders still calling candidates.  MET exactly when :func:`check_tender` would
    let the approval and the issue go on.
    """
    art = REQUIREMENT_ARTICLE
    if candidate is None:
        if open_tenders:
            where = (f"da licitação {open_tenders[0]}" if len(open_tenders) == 1
                     else f"das licitações {join_words(list(open_tenders))}")
            sentence = (f"há licitação de mototáxi em andamento, mas o requerente não está entre os candidatos "
                        f"{where}; a permissão só é dada a candidato convocado")
        else:
            sentence = ("não há licitação de mototáxi em andamento, e a permissão é precedida de licitação; "
                        "o requerente não é candidato convocado")
        return Verdict("art6_tender", art, Status.NOT_MET, f"{art}: {sentence}.")
    place = f"candidato {candidate.rank}º da licitação {candidate.tender_number}"
    problems = check_tender(True, candidate)
    if any(v.status is Status.NOT_MET for v in problems):
        word = STATUS_WORDS.get(candidate.status, candidate.status)
        return Verdict("art6_tender", art, Status.NOT_MET,
                       f"{art}: o requerente é {place}, mas {word}; só o candidato convocado, dentro das vagas, "
                       "recebe a permissão.")
    if candidate.homologated_on is None:
        return Verdict("art6_tender", art, Status.PENDING,
                       f"{art}: pendente — o requerente é {place}, ainda não homologada.",
                       ("tender_homologation_date",))
    return Verdict("art6_tender", art, Status.MET,
                   f"{art}: o requerente é {place} (homologada em {format_date(candidate.homologated_on)}) "
                   f"e {STATUS_WORDS.get(candidate.status, candidate.status)}.")


def check_candidacy_tie(candidate_cpf: str | None, person_cpf: str | None, status: str) -> list[Verdict]:
    """Tying a tender candidacy to a person (Art. 6º): the same CPF, and a candidacy called, not yet spent."""
    found: list[Verdict] = []
    if not candidate_cpf or candidate_cpf != person_cpf:
        found.append(_not_met("o CPF do requerente não é o do candidato da licitação"))
    if status == SPENT_STATUS:
        found.append(_not_met("a candidatura já foi usada na emissão de uma permissão e não se reaproveita"))
    elif status not in CALLED_STATUSES:
        found.append(_not_met(f"o candidato {STATUS_WORDS.get(status, status)}; só o candidato convocado requer "
                              "a permissão"))
    return found


def check_candidacy_status_change(current: str, new: str) -> list[Verdict]:
    """A called candidate gives up, is eliminated or goes back to waiting; a spent candidacy never changes."""
    if current == SPENT_STATUS:
        return [_not_met("o candidato já tem permissão emitida; a candidatura usada não volta atrás — use as "
                         "ações da permissão")]
    if new not in ("declined", "eliminated", "waiting"):
        return [_not_met(f"situação de candidato inválida: {new!r}")]
    return []


def not_homologated(tender_number: str) -> Verdict:
    """Art. 6º: candidates are called only from a homologated tender."""
    return not_met("tender_homologation", "Art. 6º",
                   f"a licitação {tender_number} ainda não foi homologada; registre a data de homologação antes "
                   "de convocar.")


def no_place_to_call(open_places: int, pending: int) -> Verdict:
    """Art. 10, I: a candidate is called only into an open place not already promised to another."""
    return not_met("art10_i_quota", "Art. 10, I",
                   f"não há vaga de mototáxi para convocar — {open_places} vaga(s) aberta(s) e {pending} "
                   "candidato(s) já convocado(s) aguardando a emissão.")


def place_to_call(open_places: int, pending: int) -> Verdict:
    """Art. 10, I: the place the call is judged on (the judged step of the call)."""
    return Verdict("art10_i_quota", "Art. 10, I", Status.MET,
                   f"Art. 10, I: {open_places - pending} vaga(s) de mototáxi para convocar.")


def candidate_not_called(rank: int, status_label: str | None) -> Verdict:
    """Art. 6º: only a called candidate applies for the permit."""
    return not_met("tender", "Art. 6º",
                   f"o candidato {rank}º está “{status_label}”; só um candidato convocado pode requerer a permissão.")


def called_candidate() -> Verdict:
    """Art. 6º: the permission follows the tender, and the applicant is its called candidate."""
    return Verdict("tender", ARTICLE, Status.MET, f"{ARTICLE}: candidato convocado da licitação.")
