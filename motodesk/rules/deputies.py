"""The deputy (preposto, condutor auxiliar) while the link lasts (Art. 14; Art. 31, Grupo 4, III).

* **Judged again, not only at nomination.** "A aceitação do preposto está condicionada ao cumprimento
  do disposto nesta Lei e às mesmas exigências impostas ao detentor do serviço" (Art. 14, § 2º): the
  holder's requirements bind the deputy for as long as the link lasts.  So the acts that renew what
  the holder may do — the yearly renewal of the registration (Art. 4º, § 1º), the extension (Art. 6º)
  — and every deputy badge judge the deputy again, with
  :func:`motodesk.rules.eligibility.check_deputy`, on that day.  :func:`deputy_requirements` turns
  what that check found into the act's refusals, naming the deputy.
* **The holder drives too.** The deputy is indicated "para auxiliá-lo" (Art. 14, caput), and leaving
  the service "a cargo exclusivo de seu condutor auxiliar" is an infraction of Grupo 4 (Art. 31,
  Grupo 4, III).  A work schedule (Art. 14, § 3º) that gives the deputy hours and the holder none is
  refused by :func:`holder_keeps_hours`.  The law names the permissionário (mototáxi) in Grupo 4, III;
  Art. 14 speaks of every holder, so the rule applies to the three services.
"""

from __future__ import annotations

from collections.abc import Sequence

from motodesk.rules.common import PermitState, ServiceType, Status, Verdict, not_met

ARTICLE = "Art. 14, § 2º"
SCHEDULE_ARTICLE = "Art. 14 e Art. 31, Grupo 4, III"


def deputy_requirements(verdicts: Sequence[Verdict], deputy_name: str) -> list[Verdict]:
    """The deputy's requirements that are not met or still pending, as refusals of the holder's act.

    Each keeps its own article and sentence, introduced by Art. 14, § 2º and the deputy's name, so
    the clerk knows which person's document is missing.
    """
    return [
        Verdict(f"deputy_{v.rule_id}", v.article, v.status,
                f"{ARTICLE} — preposto {deputy_name}: {v.message}", v.missing)
        for v in verdicts if v.status is not Status.MET
    ]


def holder_keeps_hours(holder_minutes: int, deputy_minutes: int) -> Verdict | None:
    """None when the schedule leaves the holder working hours; else the refusal.

    An empty schedule (no shifts for anyone) is no schedule yet, not a refusal.
    """
    if deputy_minutes > 0 and holder_minutes <= 0:
        return Verdict(
            "deputy_schedule_holder_hours", SCHEDULE_ARTICLE, Status.NOT_MET,
            f"{SCHEDULE_ARTICLE}: o preposto auxilia o titular e não o substitui; uma escala sem "
            "nenhum turno do titular deixa o serviço a cargo exclusivo do preposto. Inclua os turnos "
            "do titular.",
        )
    return None


def _link_no(rule: str, article: str, sentence: str) -> Verdict:
    return not_met(rule, article, sentence)


def check_no_deputy_cassation(revoked_permit_numbers: Sequence[str]) -> list[Verdict]:
    """A deputy whose registration was cassado (Art. 34, IV) is not linked again by a new nomination."""
    if not revoked_permit_numbers:
        return []
    where = ", ".join(revoked_permit_numbers)
    return [_link_no("deputy_revoked_before", "Art. 34, IV",
                     f"o registro desta pessoa como preposto foi cassado (vínculo com {where}); a cassação não se "
                     "desfaz por uma nova indicação.")]


def check_deputy_step(step: str, *, end_on: str | None, suspended_until: str | None, on_text: str,
                      until_text: str | None = None, until_after_on: bool = True,
                      early: bool = False) -> list[Verdict]:
    """The link's own state for a penalty step of the deputy (Art. 34, III and IV); dates come formatted.

    ``step`` is suspend / reinstate / revoke; ``early`` says a reinstatement comes before the last day.
    """
    art = "Art. 34, IV" if step == "revoke" else "Art. 34, III"
    if step in ("suspend", "revoke") and end_on is not None:
        what = "cassar" if step == "revoke" else "suspender"
        return [_link_no("deputy_link_ended", art, f"o vínculo do preposto terminou em {end_on}; não há o que {what}.")]
    if step == "suspend":
        if suspended_until is not None:
            return [_link_no("deputy_suspended", art, f"o preposto já está suspenso até {suspended_until}.")]
        if not until_after_on:
            return [_link_no("deputy_suspension_end", art,
                             f"o fim da suspensão ({until_text}) deve ser posterior a {on_text}.")]
    if step == "reinstate" and suspended_until is None:
        return [_link_no("deputy_not_suspended", art, "o preposto não está suspenso.")]
    return []


def check_link_end(start_text: str, end_text: str, end_after_start: bool) -> list[Verdict]:
    """The end of a deputy's link (Art. 14; Art. 31, Grupo 1, I): never before its start."""
    if not end_after_start:
        return [_link_no("deputy_link_end", "Art. 14",
                         f"o fim do vínculo ({end_text}) é anterior ao seu início ({start_text}).")]
    return []


def suspension_runs_until(until_text: str) -> Verdict:
    """Art. 34, III: a deputy's suspension ends before its last day only by a decision of the process."""
    return not_met("deputy_suspension_end", "Art. 34, III",
                   f"a suspensão do preposto vai até {until_text}; só uma decisão do processo (recurso provido) a "
                   "encerra antes.")


def check_nomination(service: ServiceType, permit_number: str, state: PermitState, *,
                     holder_is_deputy: bool) -> list[Verdict]:
    """Art. 14: only the holder of a permit in force nominates a deputy, never himself; a suspended
    permit's service is not provided by anyone (Art. 34, III)."""
    instrument = service.instrument
    if state is PermitState.SUSPENDED:
        return [not_met("art14_permit", "Art. 34, III",
                        f"a {instrument} {permit_number} está suspensa; durante a suspensão o serviço não é "
                        "prestado, nem pelo titular nem por preposto.")]
    if state is not PermitState.ACTIVE:
        return [not_met("art14_permit", "Art. 14",
                        f"só o titular de {instrument} em vigor indica preposto; {permit_number} está "
                        f"“{state.label}”.")]
    if holder_is_deputy:
        return [not_met("art14_self", "Art. 14",
                        "o preposto auxilia o titular; o titular não pode ser preposto de si mesmo.")]
    return []


def one_deputy_at_a_time(current_name: str, since_text: str) -> Verdict:
    """Art. 14: the holder nominates one deputy; the current link ends before another begins."""
    return not_met("art14_one_deputy", "Art. 14",
                   f"o titular indica um preposto, e {current_name} é o preposto desde {since_text}. Encerre esse "
                   "vínculo antes de indicar outro.")

