"""The administrative process of a notice of infraction (Art. 29, §§ 2º–3º; Art. 33–35).

Stages of a process::

    open ──decide: dismissed──────────────────────────────► closed
      │
      └─decide: upheld──► decided ──appeal──► appealed ──decide──► closed
                            └──close (appeal period over, or appeal waived)──► closed

* **Notification** (Art. 29, § 2º). A notice signed by the offender notifies him on the spot. A notice
  the offender refused to sign, or written in his absence, notifies nobody yet: the process waits
  until the secretariat records how (in person, by post with AR, by edital) and when he was notified
  (:func:`check_notification`).
* **Defence** (Art. 29, § 3º). The defence period runs from the notification
  (:func:`defence_period_end`), never from the day the notice was written. No decision while the
  offender is not notified, nor before the period ends unless a defence or its waiver is on file
  (:func:`check_decision`).
* **Appeal** (Art. 29, § 3º; Art. 34, parágrafo único). The first decision reaches the offender as the
  notice did: an absent offender is notified later, in person, by post with AR or by edital
  (:func:`check_decision_notification`), and the appeal period runs from that notification
  (:func:`appeal_period_end`), never from the day of the decision. A process is closed once that
  period is over, or the offender waived the appeal; without the decision's notification it does not
  close, so no penalty waiting for a final decision is applied (:func:`check_close`).
* **Penalties reach the offender** (Art. 34, III–IV). A holder's suspension or cassação reaches his
  permit; a deputy's (“do condutor auxiliar”) reaches the deputy's link to the permit, not the
  holder's permit; an unregistered offender (Art. 32) has nothing to suspend. Whether a suspension and
  a cassação take effect at the first decision or only once the decision is final is the Decree's
  choice (Art. 34, parágrafo único): :class:`~motodesk.rules.settings.LawSettings` fields
  ``suspension_effective_on_first_decision`` (default: yes — Lei federal nº 9.784/1999, art. 61:
  the appeal has no suspensive effect) and ``revocation_effective_on_first_decision`` (default: no —
  art. 61, parágrafo único: a cassação is “de difícil ou incerta reparação”).
  :func:`plan_decision_effects` and :func:`plan_close_effects` say which steps the permit's (or the
  link's) state machine takes; the service takes them in the decision's own transaction.
* **Art. 35.** A final criminal conviction (court, case number, date it became final) revokes the
  permit by itself: :func:`check_final_conviction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from motodesk.rules.common import Status, Verdict, not_met
from motodesk.rules.deadlines import appeal_due, defence_due
from motodesk.rules.infractions import EMPLOYER_CATALOGUE, Infraction, Penalty
from motodesk.rules.text import format_date

if TYPE_CHECKING:
    from motodesk.rules.settings import LawSettings

ART_NOTICE = "Art. 29, § 1º"
ART_NOTIFICATION = "Art. 29, § 2º"
ART_DEFENCE = "Art. 29, § 3º"
ART_APPEAL = "Art. 34, parágrafo único"
ART_RECLASSIFY = "Art. 33, parágrafo único"
ART_UNLICENSED = "Art. 32"
ART_SUSPENSION = "Art. 34, III"
ART_REVOCATION = "Art. 34, IV"
ART_CONVICTION = "Art. 35"

#: A suspension longer than the permit's whole term (Art. 6º: 5 years) is a typing error.
MAX_SUSPENSION_DAYS = 5 * 366
MAX_COURT = 200
MAX_CASE_NUMBER = 40


# --- vocabulary ------------------------------------------------------------------------------------


class OffenderKind(StrEnum):
    HOLDER = "holder"
    DEPUTY = "deputy"
    UNREGISTERED = "unregistered"
    ORGANISATION = "organisation"  # the employer or contractor of a continued moto-frete service (Art. 25)

    @property
    def label(self) -> str:
        return {"holder": "Titular", "deputy": "Preposto", "unregistered": "Sem permissão (Art. 32)",
                "organisation": "Empregador/contratante (Art. 25)"}[self.value]

    @property
    def printed(self) -> str:
        return {"holder": "titular", "deputy": "preposto", "unregistered": "não permissionário",
                "organisation": "empregador ou contratante de moto-frete"}[self.value]


class Signature(StrEnum):
    """What happened when the notice was handed over (Art. 29, § 2º)."""

    SIGNED = "signed"
    REFUSED = "refused"
    ABSENT = "absent"

    @property
    def label(self) -> str:
        return {
            "signed": "Assinou e recebeu cópia",
            "refused": "Recusou-se a assinar (certidão do fiscal)",
            "absent": "Autuado ausente (notificação posterior)",
        }[self.value]


class NotificationMethod(StrEnum):
    """How the offender learnt of the notice (Art. 29, § 2º)."""

    ON_THE_SPOT = "on_the_spot"  # signed the notice and took his copy
    IN_PERSON = "in_person"
    POST_AR = "post_ar"
    EDITAL = "edital"

    @property
    def label(self) -> str:
        return {
            "on_the_spot": "No ato da autuação (assinou e recebeu cópia)",
            "in_person": "Pessoalmente, na Secretaria ou por servidor",
            "post_ar": "Por via postal com aviso de recebimento (AR)",
            "edital": "Por edital",
        }[self.value]


#: The methods the secretariat records after the fact (the first one is the signature itself).
LATER_NOTIFICATION_METHODS = (NotificationMethod.IN_PERSON, NotificationMethod.POST_AR, NotificationMethod.EDITAL)


class NoticeStatus(StrEnum):
    OPEN = "open"
    DECIDED = "decided"
    APPEALED = "appealed"
    CLOSED = "closed"

    @property
    def label(self) -> str:
        return {"open": "Em defesa", "decided": "Decidido", "appealed": "Em recurso", "closed": "Encerrado"}[
            self.value
        ]


class Outcome(StrEnum):
    DISMISSED = "dismissed"
    UPHELD = "upheld"

    @property
    def label(self) -> str:
        return {"dismissed": "Improcedente (arquivado)", "upheld": "Procedente (penalidade aplicada)"}[self.value]


class Stage(StrEnum):
    FIRST = "first"
    APPEAL = "appeal"

    @property
    def label(self) -> str:
        return {"first": "1ª instância", "appeal": "Recurso"}[self.value]


class Target(StrEnum):
    """What a suspension or a cassação reaches (Art. 34, III–IV)."""

    PERMIT = "permit"  # the holder's permit or authorization
    DEPUTY = "deputy"  # the deputy's link to the permit ("condutor auxiliar")
    NONE = "none"  # an unregistered offender (Art. 32)


class PermitEffect(StrEnum):
    """What a decision did to its target (stored on the decision as ``permit_effect``)."""

    SUSPENDED = "suspended"
    REVOKED = "revoked"
    REINSTATED = "reinstated"
    PENDING_SUSPENSION = "pending_suspension"
    PENDING_REVOCATION = "pending_revocation"
    NOT_APPLICABLE = "not_applicable"  # an unregistered offender, or a link that already ended

    @property
    def label(self) -> str:
        return self.label_for(Target.PERMIT)

    def label_for(self, target: Target) -> str:
        if target is Target.DEPUTY:
            return {
                "suspended": "Preposto suspenso",
                "revoked": "Registro do preposto cassado",
                "reinstated": "Suspensão do preposto encerrada",
                "pending_suspension": "Suspensão do preposto quando a decisão for definitiva",
                "pending_revocation": "Cassação do preposto quando a decisão for definitiva",
                "not_applicable": "Sem efeito: o vínculo do preposto já terminou",
            }[self.value]
        return {
            "suspended": "Permissão suspensa",
            "revoked": "Permissão cassada",
            "reinstated": "Suspensão encerrada",
            "pending_suspension": "Suspensão quando a decisão for definitiva",
            "pending_revocation": "Cassação quando a decisão for definitiva",
            "not_applicable": "Sem efeito sobre permissão",
        }[self.value]


class Step(StrEnum):
    """A move of the target's state machine that a decision causes."""

    SUSPEND = "suspend"
    REINSTATE = "reinstate"
    REVOKE = "revoke"


def target_of(kind: OffenderKind) -> Target:
    """Art. 34, III–IV: the holder's penalty reaches the permit, the deputy's reaches the deputy."""
    return {OffenderKind.HOLDER: Target.PERMIT, OffenderKind.DEPUTY: Target.DEPUTY}.get(kind, Target.NONE)


def _refusal(rule: str, article: str, sentence: str) -> Verdict:
    return not_met(f"enforcement_{rule}", article, sentence)


# --- notification and the periods -------------------------------------------------------------------


def notified_when_written(signature: Signature) -> bool:
    """Art. 29, § 2º: only a signed notice (copy handed over) notifies on the spot."""
    return signature is Signature.SIGNED


def defence_period_end(notified_on: date, settings: LawSettings) -> date:
    """Last day of the defence: the period of the Decree counted from the notification (Art. 29, § 3º)."""
    return defence_due(notified_on, settings).due


def appeal_period_end(notified_on: date, settings: LawSettings) -> date:
    """Last day of the appeal: the period of the Decree counted from the day the first decision reached
    the offender (Art. 29, § 3º; Art. 34, §ún.), not from the day it was taken."""
    return appeal_due(notified_on, settings).due


@dataclass(frozen=True)
class NotificationFacts:
    """A later notification the secretariat wants to record."""

    number: str
    status: NoticeStatus
    signature: Signature
    written_on: date  # the day the notice was written
    already_notified_on: date | None
    method: NotificationMethod | None
    notified_on: date | None
    today: date


def check_notification(facts: NotificationFacts) -> list[Verdict]:
    """What blocks recording this notification; empty = it may be recorded."""
    found: list[Verdict] = []
    if facts.already_notified_on is not None:
        return [_refusal("already_notified", ART_NOTIFICATION,
                         f"o autuado do auto {facts.number} já foi notificado em "
                         f"{format_date(facts.already_notified_on)}; o prazo de defesa corre desde então.")]
    if facts.status is not NoticeStatus.OPEN:
        return [_refusal("notification_state", ART_NOTIFICATION,
                         f"o auto {facts.number} não está em fase de defesa.")]
    if facts.method is None or facts.method not in LATER_NOTIFICATION_METHODS:
        found.append(_refusal("notification_method", ART_NOTIFICATION,
                              "informe como o autuado foi notificado: pessoalmente, por via postal com AR ou "
                              "por edital."))
    if facts.notified_on is None:
        found.append(_refusal("notification_date", ART_NOTIFICATION, "informe a data da notificação."))
    elif facts.notified_on > facts.today:
        found.append(_refusal("notification_date", ART_NOTIFICATION,
                              f"a data da notificação ({format_date(facts.notified_on)}) está no futuro."))
    elif facts.notified_on < facts.written_on:
        found.append(_refusal("notification_date", ART_NOTIFICATION,
                              f"a notificação ({format_date(facts.notified_on)}) não pode ser anterior ao auto "
                              f"({format_date(facts.written_on)})."))
    return found


@dataclass(frozen=True)
class DecisionNotificationFacts:
    """The notification of the first decision the secretariat wants to record."""

    number: str
    status: NoticeStatus
    decided: bool  # a first decision is on file
    notice_notified_on: date | None  # the notice's own notification, which the decision followed
    already_notified_on: date | None
    method: NotificationMethod | None
    notified_on: date | None
    today: date


def check_decision_notification(facts: DecisionNotificationFacts) -> list[Verdict]:
    """What blocks recording how the first decision reached the offender; empty = it may be recorded.

    Art. 29, §§ 2º–3º and Art. 34, §ún.: the appeal period runs from this notification.
    """
    if facts.already_notified_on is not None:
        return [_refusal("decision_already_notified", ART_APPEAL,
                         f"o autuado do auto {facts.number} já foi notificado da decisão em "
                         f"{format_date(facts.already_notified_on)}; o prazo de recurso corre desde então.")]
    if facts.status is not NoticeStatus.DECIDED or not facts.decided:
        return [_refusal("decision_notification_state", ART_APPEAL,
                         f"o auto {facts.number} não tem decisão de 1ª instância aguardando recurso "
                         f"(“{facts.status.label}”).")]
    found: list[Verdict] = []
    if facts.method is None or facts.method not in LATER_NOTIFICATION_METHODS:
        found.append(_refusal("decision_notification_method", ART_NOTIFICATION,
                              "informe como o autuado foi notificado da decisão: pessoalmente, por via postal "
                              "com AR ou por edital."))
    if facts.notified_on is None:
        found.append(_refusal("decision_notification_date", ART_NOTIFICATION,
                              "informe a data da notificação da decisão."))
    elif facts.notified_on > facts.today:
        found.append(_refusal("decision_notification_date", ART_NOTIFICATION,
                              f"a data da notificação ({format_date(facts.notified_on)}) está no futuro."))
    elif facts.notice_notified_on is not None and facts.notified_on < facts.notice_notified_on:
        found.append(_refusal("decision_notification_date", ART_NOTIFICATION,
                              f"a notificação da decisão ({format_date(facts.notified_on)}) não pode ser anterior à "
                              f"notificação do auto ({format_date(facts.notice_notified_on)})."))
    return found


# --- when a decision and a closing may happen ---------------------------------------------------


@dataclass(frozen=True)
class ProcessFacts:
    """Where a process stands, as the rules need it."""

    number: str
    status: NoticeStatus
    notified_on: date | None  # None: refused or absent, and the later notification not yet recorded
    defence_due: date | None
    defence_on_file: bool  # a defence, or its waiver
    appeal_due: date | None = None  # of the first decision, counted from its notification
    appeal_waived: bool = False
    decision_notified_on: date | None = None  # when the first decision reached the offender


def check_decision(facts: ProcessFacts, today: date) -> list[Verdict]:
    """Whether a supervisor may decide now (first instance or appeal); empty = yes."""
    if facts.status is NoticeStatus.DECIDED:
        return [_refusal("already_decided", ART_APPEAL,
                         f"o auto {facts.number} já foi decidido; nova decisão só em recurso, registrado no prazo.")]
    if facts.status is NoticeStatus.CLOSED:
        return [_refusal("closed", ART_APPEAL, f"o processo do auto {facts.number} está encerrado.")]
    if facts.status is NoticeStatus.APPEALED:
        return []
    if facts.notified_on is None or facts.defence_due is None:
        return [_refusal("not_notified", ART_DEFENCE,
                         f"o autuado do auto {facts.number} ainda não foi notificado (recusou-se a assinar ou "
                         "estava ausente); o prazo de defesa só começa com a notificação (Art. 29, § 2º) — "
                         "registre-a antes de decidir.")]
    if today <= facts.defence_due and not facts.defence_on_file:
        return [_refusal("defence_period", ART_DEFENCE,
                         f"o prazo de defesa do auto {facts.number} vai até {format_date(facts.defence_due)} "
                         "e não há defesa nem renúncia registrada; a decisão só pode ser tomada depois desse dia.")]
    return []


def check_close(facts: ProcessFacts, today: date) -> list[Verdict]:
    """Whether a decided process may be closed now (the first decision becomes final); empty = yes."""
    if facts.status is not NoticeStatus.DECIDED:
        return [_refusal("close_state", ART_APPEAL,
                         f"só se encerra por aqui um processo decidido e sem recurso pendente; o auto "
                         f"{facts.number} está “{facts.status.label}”.")]
    if facts.appeal_waived:
        return []
    if facts.decision_notified_on is None or facts.appeal_due is None:
        return [_refusal("decision_not_notified", ART_APPEAL,
                         f"o autuado do auto {facts.number} ainda não foi notificado da decisão; o prazo de "
                         "recurso só começa com a notificação (Art. 29, §§ 2º–3º) — registre-a; o processo só "
                         "se encerra depois do fim desse prazo.")]
    if today <= facts.appeal_due:
        return [_refusal("appeal_period", ART_APPEAL,
                         f"o prazo de recurso do auto {facts.number} vai até {format_date(facts.appeal_due)} e "
                         "não há renúncia registrada; o processo só se encerra depois desse dia.")]
    return []


# --- what a decision does to the permit or the deputy ------------------------------------------------


def check_suspension_days(days: int | None) -> list[Verdict]:
    """Art. 34, III: a suspension is for a number of days, from 1 to the length of a term."""
    if days is None or days < 1 or days > MAX_SUSPENSION_DAYS:
        return [_refusal("suspension_days", ART_SUSPENSION,
                         f"informe por quantos dias vale a suspensão (de 1 a {MAX_SUSPENSION_DAYS}).")]
    return []


@dataclass(frozen=True)
class TargetFacts:
    """The permit or deputy link a penalty reaches, as it is now."""

    target: Target
    in_force: bool  # permit active or suspended; link not ended
    suspended: bool = False
    suspended_until: date | None = None


@dataclass(frozen=True)
class EarlierDecision:
    """The previous decision of the same process (first instance, when deciding the appeal)."""

    effect: PermitEffect | None
    suspension_start: date | None
    suspension_end: date | None


@dataclass(frozen=True)
class DecisionFacts:
    stage: Stage
    outcome: Outcome
    penalty: Penalty | None  # None when dismissed
    suspension_days: int | None
    target: TargetFacts
    previous: EarlierDecision | None
    today: date


@dataclass(frozen=True)
class EffectPlan:
    """The steps the target's state machine takes, in order, and what the decision records."""

    target: Target
    steps: tuple[tuple[Step, date | None], ...]  # (step, suspension end for SUSPEND)
    effect: PermitEffect | None
    suspension_start: date | None = None
    suspension_end: date | None = None


def _takes_effect_now(penalty: Penalty, stage: Stage, settings: LawSettings) -> bool:
    """Art. 34, parágrafo único (the Decree's choice): a penalty at first instance, or once final."""
    if stage is Stage.APPEAL:
        return True
    if penalty is Penalty.SUSPENSION:
        return settings.suspension_effective_on_first_decision
    return settings.revocation_effective_on_first_decision


def _still_ours(facts: DecisionFacts) -> bool:
    """The target is still suspended by the previous decision of this process (not since lifted)."""
    previous = facts.previous
    return (previous is not None and previous.effect is PermitEffect.SUSPENDED and facts.target.suspended
            and facts.target.suspended_until == previous.suspension_end)


def plan_decision_effects(facts: DecisionFacts, settings: LawSettings) -> EffectPlan:
    """What a decision does to the permit (holder) or the link (deputy); see the module's docstring.

    On appeal, a suspension that replaces the first one counts from the same first day; a penalty the
    appeal lightens or removes lifts the first decision's suspension still running.
    """
    target = facts.target.target
    penalty = facts.penalty if facts.outcome is Outcome.UPHELD else None
    reaching = penalty in (Penalty.SUSPENSION, Penalty.REVOCATION)
    if target is Target.NONE or (not facts.target.in_force and reaching):
        return EffectPlan(target, (), PermitEffect.NOT_APPLICABLE if reaching else None)
    ours = _still_ours(facts)
    today = facts.today
    if penalty is Penalty.REVOCATION:
        if not _takes_effect_now(penalty, facts.stage, settings):
            return EffectPlan(target, (), PermitEffect.PENDING_REVOCATION)
        return EffectPlan(target, ((Step.REVOKE, None),), PermitEffect.REVOKED)
    if penalty is Penalty.SUSPENSION:
        days = facts.suspension_days or 0
        if not _takes_effect_now(penalty, facts.stage, settings):
            return EffectPlan(target, (), PermitEffect.PENDING_SUSPENSION)
        previous = facts.previous
        start = today
        if previous is not None and previous.effect is PermitEffect.SUSPENDED and previous.suspension_start:
            start = previous.suspension_start
        end = start + timedelta(days=days)
        if ours and facts.target.suspended_until == end:
            return EffectPlan(target, (), PermitEffect.SUSPENDED, start, end)  # confirmed as it is
        steps: list[tuple[Step, date | None]] = [(Step.REINSTATE, None)] if ours else []
        if end > today:
            steps.append((Step.SUSPEND, end))
            return EffectPlan(target, tuple(steps), PermitEffect.SUSPENDED, start, end)
        return EffectPlan(target, tuple(steps), PermitEffect.REINSTATED if ours else None, start, end)
    if ours:
        return EffectPlan(target, ((Step.REINSTATE, None),), PermitEffect.REINSTATED)
    return EffectPlan(target, (), None)


def plan_close_effects(effect: PermitEffect | None, suspension_days: int | None, target: TargetFacts,
                       today: date) -> EffectPlan:
    """A first decision becomes final when its process is closed: a pending penalty takes effect now."""
    if effect not in (PermitEffect.PENDING_REVOCATION, PermitEffect.PENDING_SUSPENSION):
        return EffectPlan(target.target, (), effect)
    if target.target is Target.NONE or not target.in_force:
        return EffectPlan(target.target, (), PermitEffect.NOT_APPLICABLE)
    if effect is PermitEffect.PENDING_REVOCATION:
        return EffectPlan(target.target, ((Step.REVOKE, None),), PermitEffect.REVOKED)
    end = today + timedelta(days=suspension_days or 0)
    return EffectPlan(target.target, ((Step.SUSPEND, end),), PermitEffect.SUSPENDED, today, end)


# --- Art. 35 ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvictionFacts:
    """A final criminal judgment against the holder, as recorded from the court's certificate."""

    court: str
    case_number: str
    final_on: date | None  # the day it became final (trânsito em julgado)
    today: date
    permit_in_force: bool


def check_final_conviction(facts: ConvictionFacts) -> list[Verdict]:
    """Art. 35: the permit is revoked for a criminal conviction *transitada em julgado*; empty = revoke."""
    found: list[Verdict] = []
    if not facts.permit_in_force:
        return [_refusal("conviction_permit", ART_CONVICTION,
                         "a permissão ou autorização não está em vigor; não há o que cassar.")]
    if not facts.court.strip():
        found.append(_refusal("conviction_court", ART_CONVICTION, "informe o juízo ou tribunal da condenação."))
    elif len(facts.court.strip()) > MAX_COURT:
        found.append(_refusal("conviction_court", ART_CONVICTION,
                              f"o nome do juízo tem no máximo {MAX_COURT} caracteres."))
    digits = "".join(ch for ch in facts.case_number if ch.isdigit())
    if not digits:
        found.append(_refusal("conviction_case", ART_CONVICTION, "informe o número do processo criminal."))
    elif len(facts.case_number.strip()) > MAX_CASE_NUMBER:
        found.append(_refusal("conviction_case", ART_CONVICTION,
                              f"o número do processo tem no máximo {MAX_CASE_NUMBER} caracteres."))
    if facts.final_on is None:
        found.append(_refusal("conviction_final", ART_CONVICTION,
                              "informe a data do trânsito em julgado; sem ela a condenação não é definitiva."))
    elif facts.final_on > facts.today:
        found.append(_refusal("conviction_final", ART_CONVICTION,
                              f"a data do trânsito em julgado ({format_date(facts.final_on)}) está no futuro."))
    return found


def format_case_number(case_number: str) -> str:
    """The CNJ form ``NNNNNNN-DD.AAAA.J.TR.OOOO`` for 20 digits; anything else as typed, trimmed."""
    digits = "".join(ch for ch in case_number if ch.isdigit())
    if len(digits) == 20:
        return f"{digits[:7]}-{digits[7:9]}.{digits[9:13]}.{digits[13]}.{digits[14:16]}.{digits[16:]}"
    return " ".join(case_number.split())


# --- the process's refusals, each with its article (the services load, call these and write) ---------


def penalty_fixed_by_law(article: str, admitted: str, penalty_label: str) -> Verdict:
    return not_met("penalty_fixed", article,
                   f"a penalidade é fixada pela própria lei: {admitted}; “{penalty_label}” não se aplica.")


def penalty_not_admitted(penalty_article: str, penalty_label: str, severity_label: str, severity_article: str,
                         admitted: str) -> Verdict:
    return not_met("penalty_not_allowed", penalty_article,
                   f"a penalidade “{penalty_label}” não é admitida para infração {severity_label.lower()} "
                   f"({severity_article}); admitidas: {admitted} (Art. 34, parágrafo único; configurações).")


def no_signature_refusal(notice_number: str) -> Verdict:
    """Art. 29, § 2º: the certificate of refusal exists only for a notice the offender refused to sign."""
    return not_met("no_refusal", "Art. 29, § 2º",
                   f"no auto {notice_number} não consta recusa de assinatura; não há certidão a emitir.")


def defence_after_decision(article: str, notice_number: str) -> Verdict:
    return not_met("defence_after_decision", article,
                   f"o auto {notice_number} já foi decidido; a defesa não pode mais ser registrada — registre um "
                   "recurso.")


def appeal_not_open(article: str, notice_number: str, reason: str) -> Verdict:
    return not_met("appeal_state", article, f"auto {notice_number}: {reason}.")


def appeal_late(article: str, notice_number: str, due_text: str, received_text: str) -> Verdict:
    return not_met("appeal_late", article,
                   f"o prazo de recurso do auto {notice_number} terminou em {due_text}; o recurso recebido em "
                   f"{received_text} é intempestivo.")


def unlicensed_offender_kind(article: str) -> Verdict:
    """Art. 32 is for whoever works as mototáxi without a permit."""
    return not_met("art32_kind", article, "o Art. 32 trata de quem exerce o mototáxi sem permissão; marque o "
                                          "autuado como “sem permissão”.")


def registered_offender_only(article: str) -> Verdict:
    return not_met("unregistered_kind", article,
                   "as infrações dos Arts. 15, 30 e 31 são de permissionários, autorizatários e seus prepostos; "
                   "quem exerce o mototáxi sem permissão responde pelo Art. 32.")


def holder_offence_only(article: str) -> Verdict:
    return not_met("holder_only", article,
                   "esta infração é do permissionário ou autorizatário (o titular), não do preposto.")


def offender_without_permit(article: str, name: str) -> Verdict:
    return not_met("no_permit", article,
                   f"{name} não é titular de permissão ou autorização em vigor; se exercia o mototáxi sem "
                   "permissão, o enquadramento é o Art. 32.")


def offender_not_deputy(name: str) -> Verdict:
    return not_met("no_link", "Art. 14",
                   f"{name} não é preposto vinculado a uma permissão ou autorização em vigor.")


def unlicensed_but_holder(article: str, name: str, permit_number: str) -> Verdict:
    return not_met("art32_has_permit", article,
                   f"{name} tem permissão de mototáxi em vigor ({permit_number}); o Art. 32 é para quem exerce o "
                   "serviço sem permissão — use o item cabível dos Arts. 30 ou 31.")


def reclassification_refused(error: Exception) -> Verdict:
    """Art. 33, parágrafo único: the reason :func:`reclassify` refused another classification."""
    return Verdict("reclassification", ART_RECLASSIFY, Status.NOT_MET, str(error))


# --- Art. 25: the employer (an organisation) as offender ------------------------------------------

ART_EMPLOYER = "Art. 25, parágrafo único"
#: The penalties of Art. 34 that do not presuppose a permit or a deputy's link: an organisation has neither,
#: so suspension (Art. 34, III) and cassação (Art. 34, IV) cannot reach it.
ORGANISATION_PENALTIES: tuple[Penalty, ...] = (Penalty.WARNING, Penalty.FINE)


def is_employer_infraction(infraction: Infraction) -> bool:
    """Art. 25, I–II: the items whose offender is the employer or contractor, not a holder."""
    return infraction.code in {item.code for item in EMPLOYER_CATALOGUE}


def check_offender_kind(infraction: Infraction, kind: OffenderKind) -> list[Verdict]:
    """Art. 25, parágrafo único: an organisation answers for Art. 25 only, and Art. 25 only an organisation."""
    if kind is OffenderKind.ORGANISATION and not is_employer_infraction(infraction):
        return [_refusal("organisation_kind", ART_EMPLOYER,
                         f"uma empresa (empregador ou contratante de moto-frete) responde apenas pelas infrações "
                         f"do Art. 25 (I e II); “{infraction.article}” é infração do permissionário, do "
                         "autorizatário ou do seu preposto.")]
    if kind is not OffenderKind.ORGANISATION and is_employer_infraction(infraction):
        return [_refusal("employer_only", ART_EMPLOYER,
                         f"pela infração do {infraction.article} responde o empregador ou aquele que contrata "
                         "serviço continuado de moto-frete; autue a empresa, não o condutor.")]
    return []


def penalties_for_offender(kind: OffenderKind, allowed: list[Penalty]) -> list[Penalty]:
    """The admitted penalties that can reach this offender: an organisation has no permit to suspend or revoke."""
    if kind is OffenderKind.ORGANISATION:
        return [penalty for penalty in allowed if penalty in ORGANISATION_PENALTIES]
    return allowed


def check_offender_penalty(kind: OffenderKind, penalty: Penalty | None) -> list[Verdict]:
    """Art. 25, parágrafo único and Art. 34, III–IV: suspension and cassação are of a permit or a deputy."""
    if kind is OffenderKind.ORGANISATION and penalty is not None and penalty not in ORGANISATION_PENALTIES:
        return [_refusal("organisation_penalty", penalty.article,
                         f"a penalidade “{penalty.label}” atinge a permissão ou o vínculo do preposto; a empresa "
                         f"autuada pelo Art. 25 não os tem — só advertência por escrito ou multa a alcançam "
                         f"({ART_EMPLOYER}).")]
    return []
