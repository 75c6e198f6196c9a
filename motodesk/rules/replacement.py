"""The replacement of a holder's motorcycle (permuta, Art. 31, Grupo 3, II) as the law sees it.

A replacement has three moments, each judged here:

1. **Prior authorisation** — the Secretariat authorises the exchange before it happens (Art. 31,
   Grupo 3, II: "permutar veículos sem prévia autorização" is an infraction).
2. **The new vehicle is registered** — it must meet every vehicle requirement a first vehicle meets
   (Art. 3º: engine, useful life, rental category; Art. 5º, § 1º and § 5º: CRLV, insurance, the
   holder's name; Art. 5º, § 1º, IV: colours; Art. 5º, § 8º: passengers or cargo).  A requirement
   *not met* refuses the registration; a requirement still *pending* (evidence not yet filed) lets
   the counter register it, because the new vehicle is judged again before the permit names it.
3. **The permit names the new vehicle** — only once it has passed its own inspection (Art. 5º,
   § 1º, II–III) and meets every vehicle requirement on that day.  Until then the permit still names
   the vehicle that left service, and no document (transit authorization, registration certificate,
   badge) is issued: neither vehicle is one the Secretariat has approved for the service.
"""

from __future__ import annotations

from collections.abc import Sequence

from motodesk.rules.common import Status, Verdict

ARTICLE = "Art. 31, Grupo 3, II"
INSPECTION_ARTICLE = "Art. 5º, § 1º, II e III"


def new_vehicle_refusals(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """What refuses registering the replacement vehicle: every vehicle requirement *not met*.

    ``verdicts`` are :func:`motodesk.rules.vehicle.check_vehicle`'s for the new vehicle, on the day
    it is registered, for the holder's service and CPF.
    """
    return [v for v in verdicts if v.status is Status.NOT_MET]


def permit_may_name(verdicts: Sequence[Verdict], inspection_approved: bool, plate: str) -> list[Verdict]:
    """What keeps the permit from naming the replacement vehicle ``plate`` now; empty = it may.

    ``verdicts`` are the new vehicle's requirements on the day its inspection is concluded;
    ``inspection_approved`` is whether an inspection of that vehicle, done after it was registered,
    approved it.
    """
    found: list[Verdict] = []
    if not inspection_approved:
        found.append(Verdict(
            "replacement_inspection", INSPECTION_ARTICLE, Status.NOT_MET,
            f"{INSPECTION_ARTICLE}: o veículo substituto {plate} ainda não foi aprovado em vistoria; "
            "a permissão só passa a indicá-lo depois da vistoria aprovada.",
        ))
    found.extend(v for v in verdicts if v.status is not Status.MET)
    return found


def documents_wait_for_replacement(old_plate: str, new_plate: str | None) -> Verdict:
    """The refusal of every document while the permit's vehicle has left service for a replacement."""
    waiting = (f"o veículo substituto {new_plate} ainda não foi aprovado em vistoria" if new_plate
               else "o novo veículo ainda não foi cadastrado")
    return Verdict(
        "replacement_pending", ARTICLE, Status.NOT_MET,
        f"{ARTICLE} e {INSPECTION_ARTICLE}: o veículo {old_plate} saiu de serviço por substituição e "
        f"{waiting}; nenhum documento é emitido até a permissão indicar um veículo aprovado.",
    )
