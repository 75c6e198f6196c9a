"""The evidence a penalty step stands on: the decided notice of infraction or the recorded Art. 35 judgment.

A suspension, a cassação or an early end of a suspension (Art. 34, III and IV) is applied only "em
processo administrativo, assegurada a defesa" (Art. 29, § 3º): the step is given the notice *as loaded
from the register* — its number, whether it is stored at all, its stage, the decisions on file and the
permit (or deputy) it was drawn against — and these rules check that evidence. A cassação for a criminal
conviction (Art. 35) is given the recorded judgment. A number typed in, a notice still in defence, a
notice of another permit, a flag without a judgment: each is refused with its article.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import Verdict, not_met

ART_PROCESS = "Art. 29, § 3º"
ART_35 = "Art. 35"

#: the step -> (article, what it is in pt_BR, the penalty a decision must have applied)
STEPS = {
    "suspend": ("Art. 34, III", "a suspensão", "suspension"),
    "revoke": ("Art. 34, IV", "a cassação", "revocation"),
    "reinstate": ("Art. 34, III", "o fim antecipado da suspensão", None),
}
STATUS_WORDS = {"open": "em defesa", "decided": "decidido", "appealed": "em recurso", "closed": "encerrado"}


@dataclass(frozen=True)
class DecisionOnFile:
    stage: str  # first / appeal
    outcome: str  # upheld / dismissed
    penalty: str | None  # warning / fine / suspension / revocation


@dataclass(frozen=True)
class NoticeEvidence:
    """A notice of infraction as the register holds it, in the transaction of the step."""

    number: str
    recorded: bool  # the row is stored in the register (not a number typed in, nor a row never saved)
    status: str  # open / decided / appealed / closed
    permit_id: int | None
    offender_kind: str  # holder / deputy / unregistered
    person_id: int | None
    decisions: tuple[DecisionOnFile, ...] = ()


@dataclass(frozen=True)
class ConvictionEvidence:
    """A final criminal judgment recorded against a permit (Art. 35)."""

    recorded: bool
    permit_id: int | None
    person_id: int | None
    case_number: str
    final_on: date | None


def _no(rule: str, article: str, sentence: str) -> Verdict:
    return not_met(f"evidence_{rule}", article, f"{sentence}.")


def check_notice_basis(step: str, notice: NoticeEvidence | None, *, permit_id: int | None,
                       offender_kind: str = "holder", person_id: int | None = None) -> list[Verdict]:
    """What the notice lacks to be the basis of ``step`` against this permit (holder) or deputy; empty = it is."""
    article, what, penalty = STEPS[step]
    where = f"{ART_PROCESS}; {article}"
    if notice is None:
        return [_no("process", where, f"{what} só se aplica por decisão em processo administrativo (auto de "
                                      "infração decidido), assegurada a defesa; um motivo escrito não basta")]
    if not notice.recorded:
        return [_no("notice_unknown", where, f"o auto de infração {notice.number or '(sem número)'} não está "
                                             f"registrado; {what} só se aplica pelo auto decidido do cadastro")]
    found: list[Verdict] = []
    if notice.permit_id is None or notice.permit_id != permit_id:
        found.append(_no("notice_other_permit", where, f"o auto de infração {notice.number} não foi lavrado "
                                                       "contra esta permissão; não serve de base à penalidade"))
    if notice.offender_kind != offender_kind or (person_id is not None and notice.person_id != person_id):
        who = "do preposto" if offender_kind == "deputy" else "do titular"
        found.append(_no("notice_other_offender", where, f"o auto de infração {notice.number} não é {who}; a "
                                                         "penalidade atinge só quem foi autuado (Art. 34, III e IV)"))
    if notice.status == "open" or not notice.decisions:
        found.append(_no("notice_undecided", where, f"o auto de infração {notice.number} ainda não foi decidido "
                                                    f"(fase: {STATUS_WORDS.get(notice.status, notice.status)}); "
                                                    "a penalidade só vem da decisão, assegurada a defesa"))
        return found
    last = notice.decisions[-1]
    if penalty is not None and not (last.outcome == "upheld" and last.penalty == penalty):
        found.append(_no("notice_other_penalty", where, f"a decisão do auto de infração {notice.number} não "
                                                        f"aplicou {what}"))
    if step == "reinstate" and last.stage != "appeal":
        found.append(_no("notice_no_appeal", where, f"o auto de infração {notice.number} não tem decisão em "
                                                    "recurso; só o recurso provido encerra a suspensão antes"))
    return found


def check_conviction_basis(conviction: ConvictionEvidence | None, *, permit_id: int | None) -> list[Verdict]:
    """What the Art. 35 judgment lacks to revoke this permit; empty = it revokes it."""
    if conviction is None or not conviction.recorded:
        return [_no("conviction_unrecorded", ART_35, "a cassação por condenação criminal exige a condenação "
                                                     "transitada em julgado registrada (juízo, processo e data do "
                                                     "trânsito em julgado)")]
    found: list[Verdict] = []
    if conviction.final_on is None:
        found.append(_no("conviction_not_final", ART_35, "a condenação registrada não tem a data do trânsito em "
                                                         "julgado; sem ela não é definitiva"))
    if conviction.permit_id != permit_id:
        found.append(_no("conviction_other_permit", ART_35, f"a condenação do processo nº {conviction.case_number} "
                                                            "foi registrada contra outra permissão"))
    return found
