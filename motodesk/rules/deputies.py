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

from motodesk.rules.common import Status, Verdict

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
