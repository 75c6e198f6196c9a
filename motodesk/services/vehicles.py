"""The vehicle register: a holder's motorcycle, its verdicts, and its replacement (permuta).

Who does what:

* clerks and supervisors register and correct vehicles (the register mirrors the CRV/CRLV filed at
  the counter);
* inspectors and administrators read the register.  An inspector who finds the vehicle different
  from its documents records it in the inspection (item "Placa, chassi e motor conferem com o
  CRLV", Art. 5º, § 1º, II) and the counter corrects the register from the documents: the register
  never holds what no document says;
* a replacement (permuta, Art. 31, Grupo 3, II) needs a supervisor's prior authorisation, recorded
  on the old vehicle (who, when, why); only then may a clerk register the new vehicle, judged by
  every vehicle rule, which becomes the holder's active vehicle while the old one keeps its history,
  read-only.  The permit names the new vehicle only once it passes its own inspection; until then
  no document prints (:mod:`motodesk.rules.replacement`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from motodesk.models import Inspection, Permit, PermitEvent, Person, Vehicle
from motodesk.rules.accidents import BECOMES_ACCIDENT, REPLACED, accident_inspection_way
from motodesk.rules.checklist import InspectionKind, InspectionStatus
from motodesk.rules.common import PermitState, Role, ServiceType, Verdict
from motodesk.rules.facts import register_vehicle_facts
from motodesk.rules.replacement import (
    CHARACTERISTICS,
    FIELD_WORDS,
    IDENTIFIERS,
    check_identifier_correction,
    check_vehicle_edit_in_service,
    new_vehicle_refusals,
    permit_may_name,
    replacement_not_authorised,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import (
    format_cpf,
    format_plate,
    mercosul_plate,
    validate_plate,
)
from motodesk.rules.vehicle import (
    VehicleFacts,
    check_vehicle,
    service_missing,
)
from motodesk.services.attachments import check_content, store_attachment
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import EDITORS, READERS, AppContext, current_row, requires
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    RuleViolationError,
)
from motodesk.services.judged import judged
from motodesk.services.refusals import refuse_marked
from motodesk.services.settings import law_settings
from motodesk.services.text import (
    LIKE_ESCAPE,
    contains_pattern,
    digits,
    fold,
    prefix_pattern,
    search_text,
)
from motodesk.services.vehicle_checks import (
    check_numbers,
    check_years_and_engine,
    squash_texts,
)
from motodesk.services.vehicle_release import awaiting_release

#: Categories of the CRLV (Resolução CONTRAN): the law asks for aluguel (Art. 3º, parágrafo único).
CATEGORIES = ("aluguel", "particular", "oficial", "aprendizagem", "coleção")
UFS = frozenset(
    "AC AL AM AP BA CE DF ES GO MA MG MS MT PA PB PE PI PR RJ RN RO RR RS SC SE SP TO".split()
)
MIN_REASON = 10


def required_reason(reason: str | None, message: str) -> str:
    """The reason of a supervised act, its white space folded; shorter than :data:`MIN_REASON`
    it is refused (``message`` on the form, the minimum on the field)."""
    reason = " ".join((reason or "").split())
    if len(reason) < MIN_REASON:
        raise InvalidInputError(message, {"reason": f"Descreva o motivo (pelo menos {MIN_REASON} caracteres)."})
    return reason


ART_REPLACEMENT = "Art. 31, Grupo 3, II"
ART_ONE_VEHICLE = "Art. 6º, § 2º"


@dataclass
class VehicleInput:
    """What the vehicle form submits: the CRV/CRLV, the insurance, the service and the holder."""

    plate: str
    holder_id: int | None = None
    service_type: ServiceType | None = None
    renavam: str | None = None
    vin: str | None = None
    make: str | None = None
    model: str | None = None
    year_manufacture: int | None = None
    year_model: int | None = None
    engine_cc: int | None = None
    colour: str | None = None
    category: str | None = None
    crlv_year: int | None = None
    crlv_municipality: str | None = None
    crlv_uf: str | None = None
    owner_name: str | None = None
    owner_cpf: str | None = None
    insurance_valid_until: date | None = None  # seguro obrigatório (Art. 5º, § 1º, I and § 5º)
    insurance_number: str | None = None  # number of the DPVAT/SPVAT ticket or policy
    insurance_insured_name: str | None = None
    insurance_insured_cpf: str | None = None  # the insured must be the holder (Art. 5º, § 5º)
    passenger_insurance_valid_until: date | None = None  # mototáxi passengers (Art. 19, § 1º)
    notes: str | None = None


@dataclass
class VehicleSaved:
    id: int
    version: int


@dataclass
class VehicleRecord:
    """One vehicle as the form shows it, with its holder and its replacement history."""

    id: int
    version: int
    active: bool
    data: VehicleInput
    holder_name: str | None
    holder_cpf: str | None
    replaced_by_id: int | None
    replaced_by_plate: str | None
    replaces_id: int | None
    replaces_plate: str | None
    replacement_authorised_by: str | None
    replacement_authorised_at: datetime | None
    replacement_reason: str | None
    created_at: datetime | None = None

    @property
    def replacement_authorised(self) -> bool:
        return self.active and self.replacement_authorised_at is not None


@dataclass(frozen=True)
class VehicleRow:
    """A line of the register's table."""

    id: int
    plate: str
    make_model: str
    years: str
    engine_cc: int | None
    colour: str | None
    service_type: ServiceType | None
    holder_id: int | None
    holder_name: str | None
    holder_cpf: str | None
    active: bool
    replacement_authorised: bool
    #: Its permit ended and it is still in the service: the baixa is due (Art. 31, Grupo 4, II).
    release_due: bool = False
    #: Left the service by a baixa, not by a replacement.
    released: bool = False

    @property
    def status_label(self) -> str:
        if not self.active:
            return "Baixado do serviço" if self.released else "Substituído"
        if self.release_due:
            return "Ativo – baixa pendente (Art. 31, Grupo 4, II)"
        return "Ativo – substituição autorizada" if self.replacement_authorised else "Ativo"


@dataclass(frozen=True)
class HolderRef:
    id: int
    name: str
    cpf: str
    active_vehicle_id: int | None = None
    active_plate: str | None = None


# --- validation ----------------------------------------------------------------------------------


def plate_forms(plate: str) -> set[str]:
    """Every way the same registration can be written: ``ABC1234`` and its Mercosul ``ABC1C34``."""
    result = validate_plate(plate)
    if not result.ok or result.value is None:
        return set()
    value = result.value
    forms = {value}
    mercosul = mercosul_plate(value)
    if mercosul:
        forms.add(mercosul)
    fifth = value[4]
    if fifth.isalpha() and fifth in "ABCDEFGHIJ":
        forms.add(value[:4] + str("ABCDEFGHIJ".index(fifth)) + value[5:])
    return forms


def validate_vehicle(data: VehicleInput, today: date | None = None) -> tuple[VehicleInput, dict[str, str]]:
    """Normalise and check the form: (clean data, field -> pt_BR reason).  No database."""
    today = today or local_today()
    errors: dict[str, str] = {}
    values = dict(vars(data))  # its fields (no dataclasses.fields per call), shallow: every field is immutable
    values["service_type"] = data.service_type
    squash_texts(values, errors)
    check_numbers(data, values, errors)
    check_years_and_engine(data, today, errors)
    if values["crlv_uf"]:
        values["crlv_uf"] = values["crlv_uf"].upper()
        if values["crlv_uf"] not in UFS:
            errors["crlv_uf"] = f"UF inválida: “{values['crlv_uf']}”. Use a sigla do estado, como MG."
    if values["category"]:
        values["category"] = values["category"].lower()
    if data.service_type is None:
        errors["service_type"] = "Informe o serviço para o qual o veículo é autorizado (Art. 5º, § 8º)."
    if data.holder_id is None:
        errors["holder_id"] = "Informe o titular do veículo (Art. 6º, § 2º)."
    return VehicleInput(**values), errors


def vehicle_facts(data: VehicleInput) -> VehicleFacts:
    """The rules' view of the register (:func:`motodesk.rules.facts.register_vehicle_facts`, the one
    mapping the stored facts are read through too): the service says whether it carries passengers or cargo."""
    return register_vehicle_facts(data)


def vehicle_verdicts(data: VehicleInput, settings: LawSettings, holder_cpf: str | None,
                     on: date | None = None) -> list[Verdict]:
    """The vehicle's own verdicts (Art. 3º, 5º § 1º, § 5º, § 8º, 19), as the form shows them live."""
    on = on or local_today()
    if data.service_type is None:
        return [service_missing()]
    return check_vehicle(vehicle_facts(data), ServiceType(data.service_type), on, settings, holder_cpf)


# --- reading -------------------------------------------------------------------------------------


def _input_of(v: Vehicle) -> VehicleInput:
    return VehicleInput(**{f.name: getattr(v, f.name) for f in dataclasses.fields(VehicleInput)})


def _holder_of(s: Session, vehicle: Vehicle) -> Person | None:
    return s.get(Person, vehicle.holder_id) if vehicle.holder_id else None


def _record(s: Session, v: Vehicle) -> VehicleRecord:
    holder = _holder_of(s, v)
    successor = s.get(Vehicle, v.replaced_by_id) if v.replaced_by_id else None
    previous = s.scalar(select(Vehicle).where(Vehicle.replaced_by_id == v.id))
    return VehicleRecord(
        id=v.id, version=v.version, active=v.active, data=_input_of(v),
        holder_name=holder.full_name if holder else None, holder_cpf=holder.cpf if holder else None,
        replaced_by_id=v.replaced_by_id, replaced_by_plate=format_plate(successor.plate) if successor else None,
        replaces_id=previous.id if previous else None,
        replaces_plate=format_plate(previous.plate) if previous else None,
        replacement_authorised_by=v.replacement_authorised_by,
        replacement_authorised_at=v.replacement_authorised_at,
        replacement_reason=v.replacement_reason, created_at=v.created_at,
    )


@requires(*READERS)
def get_vehicle(ctx: AppContext, vehicle_id: int) -> VehicleRecord:
    with ctx.read() as s:
        v = current_row(s, Vehicle, vehicle_id, None, "Veículo não encontrado.")
        return _record(s, v)


@requires(*READERS)
def vehicle_verdicts_of(ctx: AppContext, vehicle_id: int, settings: LawSettings,
                        on: date | None = None) -> list[Verdict]:
    record = get_vehicle(ctx, vehicle_id)
    return vehicle_verdicts(record.data, settings, record.holder_cpf, on)


@requires(*READERS)
def holder_by_cpf(ctx: AppContext, cpf: str) -> HolderRef | None:
    """The person with this CPF and their active vehicle, or None."""
    value = digits(cpf)
    if len(value) != 11:
        return None
    with ctx.read() as s:
        person = s.scalar(select(Person).where(Person.cpf == value))
        if person is None:
            return None
        return _holder_ref(s, person)


@requires(*READERS)
def get_holder(ctx: AppContext, person_id: int) -> HolderRef:
    with ctx.read() as s:
        person = current_row(s, Person, person_id, None, "Pessoa não encontrada.")
        return _holder_ref(s, person)


def _holder_ref(s: Session, person: Person) -> HolderRef:
    active = s.scalar(select(Vehicle).where(Vehicle.holder_id == person.id, Vehicle.active.is_(True)))
    return HolderRef(person.id, person.full_name, person.cpf,
                     active.id if active else None, format_plate(active.plate) if active else None)


_SORT_KEYS = {
    "plate": (Vehicle.plate,),
    "make_model": (Vehicle.make, Vehicle.model),
    "years": (Vehicle.year_manufacture, Vehicle.year_model),
    "engine_cc": (Vehicle.engine_cc,),
    "colour": (Vehicle.colour,),
    "service_type": (Vehicle.service_type,),
    "holder_name": (Person.name_search,),
    "holder_cpf": (Person.cpf,),
    "status": (Vehicle.active,),
}


def _search(query: Select, text: str) -> Select:
    text = search_text(text)
    if not text:
        return query
    forms = plate_forms(text)
    if forms:
        return query.where(Vehicle.plate.in_(forms))
    conditions = []
    compact = text.replace("-", "").replace(" ", "").upper()
    if compact.isalnum() and len(compact) <= 7:
        conditions.append(Vehicle.plate.like(prefix_pattern(compact), escape=LIKE_ESCAPE))
    number = digits(text)
    if number and len(number) == len(text.replace(".", "").replace("-", "").replace(" ", "")):
        conditions.append(Vehicle.renavam.like(prefix_pattern(number), escape=LIKE_ESCAPE))
        conditions.append(Person.cpf.like(prefix_pattern(number), escape=LIKE_ESCAPE))
    if any(ch.isalpha() for ch in text):
        conditions.append(Person.name_search.like(contains_pattern(fold(text)), escape=LIKE_ESCAPE))
    return query.where(or_(*conditions)) if conditions else query.where(Vehicle.id < 0)


@requires(*READERS)
def list_vehicles(ctx: AppContext, text: str = "", *, include_inactive: bool = False, offset: int = 0,
                  limit: int = 200, sort_key: str = "plate", descending: bool = False,
                  holder_id: int | None = None) -> list[VehicleRow]:
    """A page of the register, searched by plate (either form), RENAVAM, holder CPF or name."""
    query = select(Vehicle, Person, awaiting_release()).outerjoin(Person, Person.id == Vehicle.holder_id)
    if not include_inactive:
        query = query.where(Vehicle.active.is_(True))
    if holder_id is not None:
        query = query.where(Vehicle.holder_id == holder_id)
    query = _search(query, text)
    columns = _SORT_KEYS.get(sort_key, _SORT_KEYS["plate"])
    order = [c.desc() if descending else c.asc() for c in columns]
    query = query.order_by(*order, Vehicle.id.desc() if descending else Vehicle.id).offset(offset).limit(limit)
    with ctx.read() as s:
        return [_row(v, p, bool(due)) for v, p, due in s.execute(query)]


def _row(v: Vehicle, p: Person | None, release_due: bool = False) -> VehicleRow:
    years = "/".join(str(y) for y in (v.year_manufacture, v.year_model) if y)
    return VehicleRow(
        id=v.id, plate=format_plate(v.plate), make_model=" ".join(x for x in (v.make, v.model) if x),
        years=years, engine_cc=v.engine_cc, colour=v.colour, service_type=v.service_type,
        holder_id=v.holder_id, holder_name=p.full_name if p else None,
        holder_cpf=format_cpf(p.cpf) if p else None, active=v.active,
        replacement_authorised=v.active and v.replacement_authorised_at is not None,
        release_due=release_due, released=not v.active and v.replaced_by_id is None,
    )


@requires(*READERS)
def vehicle_history(ctx: AppContext, holder_id: int) -> list[VehicleRow]:
    """Every vehicle the holder has had, the active one first, then the replaced ones, newest first."""
    rows = list_vehicles(ctx, include_inactive=True, holder_id=holder_id, limit=1000)
    return sorted(rows, key=lambda r: (not r.active, -r.id))


# --- writing -------------------------------------------------------------------------------------

_INTEGRITY = {
    "uq_vehicles_active_plate": "Já existe um veículo ativo com esta placa.",
    "uq_vehicles_active_holder": f"O titular já tem um veículo ativo ({ART_ONE_VEHICLE}: um veículo por titular).",
    "cols:vehicles.plate": "Já existe um veículo ativo com esta placa.",
    "cols:vehicles.holder_id": f"O titular já tem um veículo ativo ({ART_ONE_VEHICLE}: um veículo por titular).",
}


def _check_unique(s: Session, clean: VehicleInput, *, exclude: set[int], errors: dict[str, str]) -> None:
    """Field messages for a plate already active and a holder who already has an active vehicle."""
    forms = plate_forms(clean.plate)
    if forms and "plate" not in errors:
        query = select(Vehicle).where(Vehicle.plate.in_(forms), Vehicle.active.is_(True))
        if exclude:
            query = query.where(Vehicle.id.not_in(exclude))
        other = s.scalar(query)
        if other is not None:
            owner = s.get(Person, other.holder_id) if other.holder_id else None
            whose = f" de {owner.full_name}" if owner else ""
            errors["plate"] = (f"Já existe um veículo ativo com a placa {format_plate(other.plate)}{whose}. "
                               "Uma placa só pode estar em um veículo ativo.")
    if clean.holder_id is not None and "holder_id" not in errors:
        if s.get(Person, clean.holder_id) is None:
            errors["holder_id"] = "O titular não existe mais no cadastro."
            return
        query = select(Vehicle).where(Vehicle.holder_id == clean.holder_id, Vehicle.active.is_(True))
        if exclude:
            query = query.where(Vehicle.id.not_in(exclude))
        current = s.scalar(query)
        if current is not None:
            errors["holder_id"] = (
                f"{ART_ONE_VEHICLE}: o titular já tem o veículo ativo {format_plate(current.plate)}; "
                "cada titular tem um só veículo. Para trocar de veículo, o supervisor autoriza a "
                f"substituição ({ART_REPLACEMENT}) e o novo veículo é cadastrado como substituto."
            )


def _apply(v: Vehicle, clean: VehicleInput) -> None:
    for f in dataclasses.fields(VehicleInput):
        setattr(v, f.name, getattr(clean, f.name))


@requires(*EDITORS)
def save_vehicle(ctx: AppContext, data: VehicleInput, *, vehicle_id: int | None = None,
                 expected_version: int | None = None) -> VehicleSaved:
    """Register a holder's vehicle (no id) or correct it; a stale `expected_version` is a conflict."""
    clean, errors = validate_vehicle(data)
    with ctx.write(_INTEGRITY) as s:
        if vehicle_id is None:
            vehicle = Vehicle(active=True)
        else:
            vehicle = current_row(s, Vehicle, vehicle_id, expected_version, "O veículo não existe mais no cadastro.")
            if not vehicle.active:
                raise MotodeskError("Este veículo foi substituído: o histórico dele não pode ser alterado.", code="vehicle.replaced")
            if clean.holder_id != vehicle.holder_id:
                errors["holder_id"] = ("A permissão é pessoal e intransferível (Art. 7º): o titular de um "
                                       "veículo não muda. Cadastre o veículo para o novo titular.")
        _check_unique(s, clean, exclude={vehicle_id} if vehicle_id else set(), errors=errors)
        refuse_marked(errors)
        serving = _permits_in_force_naming(s, vehicle.id) if vehicle_id is not None else []
        if serving:  # Art. 31, Grupo 3, II: the vehicle in service keeps its identity and characteristics
            changed = [f for f in (*IDENTIFIERS, *CHARACTERISTICS) if getattr(clean, f) != getattr(vehicle, f)]
            refused = check_vehicle_edit_in_service(changed, serving[0].number)
            if refused:
                raise RuleViolationError(refused, "O veículo em serviço não pode ser alterado assim:")
        _apply(vehicle, clean)
        if vehicle_id is None:
            s.add(vehicle)
        s.flush()
        return VehicleSaved(vehicle.id, vehicle.version)


@requires(Role.SUPERVISOR)
def authorise_replacement(ctx: AppContext, vehicle_id: int, reason: str,
                          expected_version: int | None = None) -> VehicleSaved:
    """The supervisor's prior authorisation to replace the holder's vehicle (Art. 31, Grupo 3, II)."""
    reason = required_reason(reason, "Informe o motivo da substituição.")
    with ctx.write() as s:
        vehicle = current_row(s, Vehicle, vehicle_id, expected_version, "O veículo não existe mais no cadastro.")
        if not vehicle.active:
            raise MotodeskError("Este veículo já foi substituído.")
        if vehicle.replacement_authorised_at is not None:
            raise MotodeskError(
                f"A substituição deste veículo já foi autorizada por {vehicle.replacement_authorised_by} "
                f"em {vehicle.replacement_authorised_at.astimezone(LOCAL_TZ):%d/%m/%Y %H:%M}."
            )
        vehicle.replacement_authorised_by = ctx.user.login
        vehicle.replacement_authorised_at = datetime.now(UTC)
        vehicle.replacement_reason = reason
        s.flush()
        return VehicleSaved(vehicle.id, vehicle.version)


@dataclass
class ReplacementDone:
    old_id: int
    new_id: int
    new_version: int
    inspection_id: int | None = None
    #: the holder's permits that will name the new vehicle once it passes its inspection
    waiting_permit_ids: list[int] = field(default_factory=list)


@requires(*EDITORS)
def replace_vehicle(ctx: AppContext, old_vehicle_id: int, data: VehicleInput, *,
                    expected_version: int | None = None, today: date | None = None) -> ReplacementDone:
    """Register the new vehicle of an authorised replacement (permuta, Art. 31, Grupo 3, II).

    The new vehicle is judged by every vehicle rule (:func:`motodesk.rules.vehicle.check_vehicle`) for
    the holder's service; one not met refuses it.  The old vehicle leaves service (inactive, pointing to
    its successor) with its history intact; the old one's open inspections are cancelled and a first
    inspection of the new one is scheduled for today.  The holder's permit keeps naming the old vehicle,
    and prints no document, until the new one passes that inspection (:func:`apply_replacement`, called
    when an inspection is concluded).
    """
    today = today or local_today()
    settings = law_settings(ctx)
    with ctx.write(_INTEGRITY) as s:
        old = current_row(s, Vehicle, old_vehicle_id, expected_version,
                          "O veículo a substituir não existe mais no cadastro.")
        if not old.active:
            raise MotodeskError("Este veículo já foi substituído.")
        if old.replacement_authorised_at is None:
            raise RuleViolationError([replacement_not_authorised()])
        data = dataclasses.replace(data, holder_id=old.holder_id,
                                   service_type=data.service_type or old.service_type)
        clean, errors = validate_vehicle(data, today)
        if "plate" not in errors and plate_forms(clean.plate) & plate_forms(old.plate):
            errors["plate"] = "A placa do novo veículo é a mesma do veículo substituído."
        _check_unique(s, clean, exclude={old.id}, errors=errors)
        refuse_marked(errors)
        holder = _holder_of(s, old)
        refusals = new_vehicle_refusals(vehicle_verdicts(clean, settings, holder.cpf if holder else None, today))
        if refusals:
            raise RuleViolationError(refusals, "O veículo substituto não cumpre os requisitos da lei:")
        with judged(s, refusals, Vehicle.active):  # authorised, and the new vehicle meets every rule
            old.active = False
            s.flush()  # the partial unique indexes see the old vehicle leave before the new one arrives
        new = Vehicle(active=True)
        _apply(new, clean)
        s.add(new)
        s.flush()
        old.replaced_by_id = new.id
        done = ReplacementDone(old.id, new.id, 0)
        done.waiting_permit_ids = [p.id for p in _permits_in_force_naming(s, old.id)]
        for inspection in s.scalars(select(Inspection).where(
                Inspection.vehicle_id == old.id,
                Inspection.status.in_((InspectionStatus.SCHEDULED, InspectionStatus.DRAFT)))):
            inspection.status = InspectionStatus.CANCELLED
            inspection.notes = ((inspection.notes or "") + f"\nCancelada: veículo substituído pelo de placa "
                                f"{format_plate(new.plate)}.").strip()
        first = Inspection(vehicle_id=new.id, service_type=new.service_type, kind=InspectionKind.REGULAR,
                           status=InspectionStatus.SCHEDULED, scheduled_for=today,
                           notes=f"Vistoria do veículo substituto (substitui a placa {format_plate(old.plate)}).")
        s.add(first)
        s.flush()
        done.inspection_id = first.id
        done.new_version = new.version
        return done


def _permits_in_force_naming(s: Session, vehicle_id: int) -> list[Permit]:
    """The permits in force that name ``vehicle_id`` (those a replacement of it waits to move)."""
    return list(s.scalars(select(Permit).where(Permit.vehicle_id == vehicle_id).where(
        Permit.state.in_([st for st in PermitState if st.in_force])).order_by(Permit.id)))


@dataclass(frozen=True)
class ReplacementOutcome:
    """What concluding an inspection of a replacement vehicle did to the holder's permits."""

    moved_permit_ids: tuple[int, ...] = ()
    #: why the permits still name the old vehicle (empty when they moved or nothing waited)
    blocking: tuple[Verdict, ...] = ()


def apply_replacement(s: Session, vehicle: Vehicle, *, inspection_approved: bool, on: date,
                      settings: LawSettings) -> ReplacementOutcome:
    """Session step (no role check, no commit): let the permits of the vehicle ``vehicle`` replaced
    name it, when the rules allow it now (:func:`motodesk.rules.replacement.permit_may_name`).

    Called inside the transaction that concludes an inspection of ``vehicle``.
    """
    old = s.scalar(select(Vehicle).where(Vehicle.replaced_by_id == vehicle.id))
    if old is None or not vehicle.active:
        return ReplacementOutcome()
    waiting = _permits_in_force_naming(s, old.id)
    if not waiting:
        return ReplacementOutcome()
    holder = _holder_of(s, vehicle)
    verdicts = vehicle_verdicts(_input_of(vehicle), settings, holder.cpf if holder else None, on)
    blocking = permit_may_name(verdicts, inspection_approved, format_plate(vehicle.plate))
    if blocking:
        return ReplacementOutcome(blocking=tuple(blocking))
    with judged(s, blocking, Permit.vehicle_id):
        for permit in waiting:
            permit.vehicle_id = vehicle.id
    return ReplacementOutcome(moved_permit_ids=tuple(p.id for p in waiting))


@dataclass(frozen=True)
class CorrectionDone:
    vehicle_id: int
    version: int
    attachment_id: int
    permit_ids: tuple[int, ...]


@requires(Role.SUPERVISOR)
def correct_identifier(ctx: AppContext, vehicle_id: int, field_name: str, value: str, *, reason: str,
                       crlv_file: tuple[bytes, str] | None, expected_version: int | None = None,
                       today: date | None = None) -> CorrectionDone:
    """A typing correction of the plate, VIN or RENAVAM of a vehicle in service (Art. 5º, § 1º, I).

    The supervisor gives the reason and the CRLV that shows the right value; the rules judge the
    correction (:func:`motodesk.rules.replacement.check_identifier_correction`) and the new identifier;
    the CRLV is kept with the vehicle and the correction shows in the history of each permit naming it.
    """
    today = today or local_today()
    settings = law_settings(ctx)
    media_type = check_content(crlv_file[1], crlv_file[0]) if crlv_file and crlv_file[0] else None
    with ctx.write(_INTEGRITY) as s:
        vehicle = current_row(s, Vehicle, vehicle_id, expected_version, "O veículo não existe mais no cadastro.")
        if not vehicle.active:
            raise MotodeskError("Este veículo foi substituído: o histórico dele não pode ser alterado.", code="vehicle.replaced")
        current = _input_of(vehicle)
        if field_name not in IDENTIFIERS:
            raise RuleViolationError(check_identifier_correction(
                field_name, None, None, reason=reason, has_crlv=media_type is not None,
                by_supervisor=True, identification=None))
        corrected, errors = validate_vehicle(dataclasses.replace(current, **{field_name: value}), today)  # type: ignore[arg-type]
        if field_name in errors:
            raise InvalidInputError("Corrija os campos marcados.", {field_name: errors[field_name]})
        _check_unique(s, corrected, exclude={vehicle.id}, errors=errors)
        if field_name in errors:
            raise InvalidInputError("Corrija os campos marcados.", {field_name: errors[field_name]})
        holder = _holder_of(s, vehicle)
        identification = next((v for v in vehicle_verdicts(corrected, settings, holder.cpf if holder else None, today)
                               if v.rule_id == "vehicle_identification"), None)
        verdicts = check_identifier_correction(
            field_name, getattr(vehicle, field_name), getattr(corrected, field_name), reason=reason,
            has_crlv=media_type is not None, by_supervisor=ctx.user.role is Role.SUPERVISOR,
            identification=identification)
        old_value = getattr(vehicle, field_name)
        with judged(s, verdicts, getattr(Vehicle, field_name), intro="A correção não é possível:"):
            setattr(vehicle, field_name, getattr(corrected, field_name))
        assert crlv_file is not None
        attachment = store_attachment(s, ctx, "vehicles", vehicle.id, crlv_file[1], crlv_file[0], media_type)
        clean_reason = " ".join(reason.split())
        naming = _permits_in_force_naming(s, vehicle.id)
        for permit in naming:
            s.add(PermitEvent(permit_id=permit.id, transition="vehicle_correction", from_state=permit.state.value,
                              to_state=permit.state.value, at=datetime.now(UTC), by_user=ctx.user.login,
                              reason=f"Correção de {FIELD_WORDS[field_name]} do veículo: {old_value} → "
                                     f"{getattr(corrected, field_name)} ({clean_reason}; CRLV anexado)"))
        s.flush()
        return CorrectionDone(vehicle.id, vehicle.version, attachment.id, tuple(p.id for p in naming))


# --- accidents (Art. 31, Grupo 2, II; Grupo 4, I) ------------------------------------------------

ACCIDENT_RECORDERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR)
MAX_ACCIDENT_TEXT = 2000


@dataclass(frozen=True)
class AccidentRow:
    """One accident of a vehicle, with what the law makes of it."""

    id: int
    vehicle_id: int
    happened_on: date
    reported_on: date
    safety_compromised: bool
    description: str | None
    recorded_by: str
    late_report: bool  # reported after the 5 days: flagged for a notice (Art. 31, Grupo 2, II)
    awaiting_inspection: bool  # safety compromised and no accident inspection passed since (Grupo 4, I)

    @property
    def flags(self) -> list[str]:
        """What the register shows for this accident, in pt_BR."""
        from motodesk.rules.accidents import LATE_REPORT_FLAG

        shown = []
        if self.late_report:
            shown.append(LATE_REPORT_FLAG)
        if self.awaiting_inspection:
            shown.append("documentos bloqueados até a vistoria após acidente — Art. 31, G4, I")
        return shown


@dataclass(frozen=True)
class AccidentRecorded:
    accident: AccidentRow
    messages: list[str]  # the flags, as the service result says them
    inspection_id: int | None = None  # the accident inspection scheduled for a safety-compromising accident


def _accident_rows(s: Session, vehicle_id: int, settings: LawSettings) -> list[AccidentRow]:
    from motodesk.models import VehicleAccident
    from motodesk.rules.accidents import AccidentFacts, accidents_awaiting_inspection, report_is_late

    passed = [i.performed_at.astimezone(LOCAL_TZ).date() for i in s.scalars(select(Inspection).where(
        Inspection.vehicle_id == vehicle_id, Inspection.kind == "accident",
        Inspection.status.in_(("approved", "superseded")), Inspection.performed_at.is_not(None)))
        if i.performed_at is not None]
    rows = []
    for a in s.scalars(select(VehicleAccident).where(VehicleAccident.vehicle_id == vehicle_id)
                       .order_by(VehicleAccident.happened_on.desc(), VehicleAccident.id.desc())):
        facts = AccidentFacts(a.happened_on, a.reported_on, a.safety_compromised)
        rows.append(AccidentRow(a.id, a.vehicle_id, a.happened_on, a.reported_on, a.safety_compromised,
                                a.description, a.recorded_by, report_is_late(facts, settings),
                                bool(accidents_awaiting_inspection([facts], passed))))
    return rows


@requires(*READERS)
def list_accidents(ctx: AppContext, vehicle_id: int) -> list[AccidentRow]:
    """The vehicle's accidents, newest first, with their flags."""
    settings = law_settings(ctx)
    with ctx.read() as s:
        return _accident_rows(s, vehicle_id, settings)


@requires(*ACCIDENT_RECORDERS)
def record_accident(ctx: AppContext, vehicle_id: int, happened_on: date | None, reported_on: date | None,
                    safety_compromised: bool, description: str | None = None, *,
                    today: date | None = None) -> AccidentRecorded:
    """Record an accident the holder reports (Art. 31, Grupo 2, II).

    A report after the 5 days is recorded and flagged for a notice ("comunicado após 5 dias"); an
    accident that compromised safety blocks every document of the permit until an accident
    inspection passes (Art. 31, Grupo 4, I): one is scheduled for today when the vehicle has none open.
    """
    from motodesk.models import VehicleAccident
    from motodesk.rules.accidents import AccidentFacts, check_accident_report

    today = today or local_today()
    text = " ".join((description or "").split()) or None
    errors: dict[str, str] = {}
    if happened_on is None:
        errors["happened_on"] = "Informe a data do acidente."
    elif happened_on > today:
        errors["happened_on"] = "A data do acidente não pode ser futura."
    if reported_on is None:
        errors["reported_on"] = "Informe a data em que o titular comunicou o acidente."
    elif reported_on > today:
        errors["reported_on"] = "A data da comunicação não pode ser futura."
    if text and len(text) > MAX_ACCIDENT_TEXT:
        errors["description"] = f"Texto longo demais: no máximo {MAX_ACCIDENT_TEXT} caracteres."
    refuse_marked(errors, "registrar o acidente")
    assert happened_on is not None and reported_on is not None
    settings = law_settings(ctx)
    facts = AccidentFacts(happened_on, reported_on, bool(safety_compromised))
    verdicts = check_accident_report(facts, settings)
    if any(v.rule_id == "art31_g2_ii_accident_dates" for v in verdicts):
        raise InvalidInputError(verdicts[0].message, {"reported_on": verdicts[0].message})
    with ctx.write() as s:
        vehicle = current_row(s, Vehicle, vehicle_id, None, "O veículo não existe mais no cadastro.")
        if not vehicle.active:
            raise MotodeskError("Este veículo foi substituído: registre o acidente no veículo ativo do titular.")
        accident = VehicleAccident(vehicle_id=vehicle.id, happened_on=happened_on, reported_on=reported_on,
                                   safety_compromised=bool(safety_compromised), description=text,
                                   recorded_by=ctx.user.login)
        s.add(accident)
        inspection_id = None
        if facts.safety_compromised and vehicle.service_type is not None:
            open_one = s.scalar(select(Inspection).where(
                Inspection.vehicle_id == vehicle.id,
                Inspection.status.in_((InspectionStatus.SCHEDULED, InspectionStatus.DRAFT))))
            note = f"Vistoria após o acidente de {happened_on:%d/%m/%Y} (Art. 31, Grupo 4, I)."
            way = accident_inspection_way(open_one.kind if open_one is not None else None)
            if way == BECOMES_ACCIDENT and open_one is not None:
                # the open full inspection looks at the whole vehicle after the accident: it is the way out
                open_one.kind = InspectionKind.ACCIDENT
                open_one.notes = "\n".join(n for n in (open_one.notes, note) if n)
                inspection_id = open_one.id
            else:
                if way == REPLACED and open_one is not None:
                    open_one.status = InspectionStatus.CANCELLED
                    open_one.notes = "\n".join(n for n in (open_one.notes, "Substituída pela vistoria completa após "
                                                           f"o acidente de {happened_on:%d/%m/%Y}.") if n)
                    s.flush()
                scheduled = Inspection(vehicle_id=vehicle.id, service_type=vehicle.service_type,
                                       kind=InspectionKind.ACCIDENT, status=InspectionStatus.SCHEDULED,
                                       scheduled_for=today, notes=note)
                s.add(scheduled)
                s.flush()
                inspection_id = scheduled.id
        s.flush()
        row = next(r for r in _accident_rows(s, vehicle.id, settings) if r.id == accident.id)
    messages = [v.message for v in verdicts]
    if row.awaiting_inspection:
        messages.append("Art. 31, Grupo 4, I: a segurança do veículo foi comprometida; nenhum documento da "
                        "permissão é emitido até a vistoria após acidente ser aprovada.")
    return AccidentRecorded(row, messages, inspection_id)
