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

from motodesk.rules.common import Status, Verdict, not_met

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


#: What identifies a vehicle on its CRLV (Art. 5º, § 1º, I): a typing error in one is corrected, not replaced.
IDENTIFIERS = ("plate", "vin", "renavam")
#: What the law judges of a vehicle in service (Art. 3º; Art. 5º, § 1º and § 5º): it changes only with the vehicle.
CHARACTERISTICS = ("engine_cc", "category", "colour", "year_manufacture", "year_model", "owner_name", "owner_cpf")
FIELD_WORDS = {
    "plate": "a placa", "vin": "o chassi", "renavam": "o RENAVAM", "engine_cc": "a cilindrada",
    "category": "a categoria", "colour": "a cor", "year_manufacture": "o ano de fabricação",
    "year_model": "o ano do modelo", "owner_name": "o proprietário", "owner_cpf": "o CPF do proprietário",
}
CORRECTION_MIN_REASON = 10


def check_vehicle_edit_in_service(changed: Sequence[str], permit_number: str) -> list[Verdict]:
    """The register's edit of a vehicle that serves a permit in force: identity and characteristics are
    not edited there (Art. 31, Grupo 3, II; Art. 5º, § 1º, II). One verdict per kind of change."""
    found: list[Verdict] = []
    ids = [FIELD_WORDS[f] for f in changed if f in IDENTIFIERS]
    chars = [FIELD_WORDS[f] for f in changed if f in CHARACTERISTICS]
    if ids:
        found.append(Verdict(
            "art31_g3_ii_identity", ARTICLE, Status.NOT_MET,
            f"{ARTICLE}: {', '.join(ids)} do veículo que serve {permit_number} não se altera(m) no cadastro. Outro "
            "veículo entra só pela substituição autorizada, com nova vistoria; um erro de digitação é corrigido "
            "pelo supervisor, com o motivo e o CRLV (“Corrigir identificação”)."))
    if chars:
        found.append(Verdict(
            "art31_g3_ii_characteristics", f"{ARTICLE}; {INSPECTION_ARTICLE}", Status.NOT_MET,
            f"{ARTICLE}; {INSPECTION_ARTICLE}: {', '.join(chars)} do veículo que serve {permit_number} só muda(m) "
            "pela substituição autorizada (ou alteração autorizada), com nova vistoria aprovada."))
    return found


def check_identifier_correction(field: str, old: str | None, new: str | None, *, reason: str, has_crlv: bool,
                                by_supervisor: bool, identification: Verdict | None) -> list[Verdict]:
    """A typing correction of one identifier of a vehicle in service (Art. 5º, § 1º, I; Art. 31, Grupo 3, II):
    by a supervisor, with the reason and the CRLV that shows the right value, judged as a valid identifier."""
    art = f"Art. 5º, § 1º, I; {ARTICLE}"
    found: list[Verdict] = []
    if field not in IDENTIFIERS:
        found.append(Verdict("vehicle_correction_field", art, Status.NOT_MET,
                             f"{art}: só a placa, o chassi e o RENAVAM se corrigem por erro de digitação; "
                             f"{FIELD_WORDS.get(field, field)} muda pela substituição autorizada, com nova vistoria."))
        return found
    if not by_supervisor:
        found.append(Verdict("vehicle_correction_role", art, Status.NOT_MET,
                             f"{art}: a correção da identificação do veículo em serviço cabe ao supervisor."))
    if len(" ".join(reason.split())) < CORRECTION_MIN_REASON:
        found.append(Verdict("vehicle_correction_reason", art, Status.NOT_MET,
                             f"{art}: descreva o erro de digitação corrigido (pelo menos {CORRECTION_MIN_REASON} "
                             "caracteres)."))
    if not has_crlv:
        found.append(Verdict("vehicle_correction_crlv", art, Status.NOT_MET,
                             f"{art}: anexe o CRLV que mostra {FIELD_WORDS[field]} correto(a)."))
    if (old or "") == (new or ""):
        found.append(Verdict("vehicle_correction_same", art, Status.NOT_MET,
                             f"{art}: {FIELD_WORDS[field]} informado(a) é o mesmo do cadastro."))
    if identification is not None and identification.status is Status.NOT_MET:
        found.append(identification)
    return found


def replacement_not_authorised() -> Verdict:
    """Art. 31, Grupo 3, II: a new vehicle replaces the old one only after the Secretariat's authorisation."""
    return not_met("art31_g3_ii_replacement", ARTICLE,
                   "permutar o veículo exige autorização prévia da Secretaria. Peça ao supervisor que registre a "
                   "autorização da substituição antes de cadastrar o novo veículo.")
