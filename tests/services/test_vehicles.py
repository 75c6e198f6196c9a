"""The vehicle register on SQLite and PostgreSQL: field messages, one vehicle per holder, replacement."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest
from sqlalchemy import select
from tests_helpers import check_wording, existing_register, raises_code, raises_rule, valid_cpf  # type: ignore[import-not-found]
from validate_docbr import RENAVAM

from motodesk.models import Inspection, Permit
from motodesk.rules.common import PermitState, Role, ServiceType, Status
from motodesk.rules.settings import LawSettings
from motodesk.services import people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput, validate_vehicle, vehicle_verdicts

TODAY = date(2026, 6, 15)


def holder(clerk: AppContext, name: str = "João Batista da Silva") -> tuple[int, str]:
    cpf = valid_cpf()
    return people.save_person(clerk, PersonInput(full_name=name, cpf=cpf)).id, cpf


def motorcycle(holder_id: int | None, cpf: str, plate: str = "ABC1D23", **changes: object) -> VehicleInput:
    data = VehicleInput(
        plate=plate, holder_id=holder_id, service_type=ServiceType.MOTOTAXI, renavam=RENAVAM().generate(),
        vin="9C2KC1670JR500001", make="Honda", model="CG 160 Titan", year_manufacture=2024, year_model=2025,
        engine_cc=162, colour="Amarela", category="aluguel", crlv_year=2026, crlv_municipality="Patrocínio",
        crlv_uf="MG", owner_name="João Batista da Silva", owner_cpf=cpf,
        insurance_valid_until=date(2027, 1, 31), passenger_insurance_valid_until=date(2027, 3, 1),
        insurance_number="SPVAT-0001", insurance_insured_name="João Batista da Silva", insurance_insured_cpf=cpf,
    )
    return dataclasses.replace(data, **changes)  # type: ignore[arg-type]


# --- pure: validation and verdicts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"year_manufacture": 1850}, "year_manufacture", "Ano de fabricação impossível: 1850"),
        ({"year_manufacture": 2099}, "year_manufacture", "2099 é posterior a 2026"),
        ({"year_model": 2022}, "year_model", "deve ser o de fabricação (2024) ou o seguinte (2025)"),
        ({"year_model": 3000}, "year_model", "Ano do modelo impossível"),
        ({"crlv_year": 2020}, "crlv_year", "anterior ao ano de fabricação (2024)"),
        ({"engine_cc": 0}, "engine_cc", "Cilindrada impossível: 0 cc"),
        ({"engine_cc": 10000}, "engine_cc", "10.000 cc"),
        ({"plate": "AB-12345"}, "plate", "ABC-1234 ou o formato Mercosul ABC1D23"),
        ({"plate": "ABCD123"}, "plate", "Placa inválida"),
        ({"vin": "9C2KC1670JR5OOIQ1"}, "vin", "as letras I, O e Q não são usadas"),
        ({"renavam": "12345678901"}, "renavam", "dígitos verificadores"),
        ({"owner_cpf": "111.111.111-11"}, "owner_cpf", "CPF do proprietário"),
        ({"crlv_uf": "XX"}, "crlv_uf", "UF inválida"),
        ({"service_type": None}, "service_type", "Informe o serviço"),
        ({"holder_id": None}, "holder_id", "Informe o titular"),
    ],
)
def test_bad_input_gets_a_pt_br_message_on_its_field(change: dict, field: str, words: str) -> None:
    _clean, errors = validate_vehicle(dataclasses.replace(motorcycle(1, valid_cpf()), **change), TODAY)
    assert list(errors) == [field]
    assert words in errors[field]


def test_good_input_is_normalised() -> None:
    clean, errors = validate_vehicle(motorcycle(1, "529.982.247-25", plate=" abc-1234 ",
                                                vin="9c2kc1670jr500001", crlv_uf="mg", category="ALUGUEL"),
                                     TODAY)
    assert errors == {}
    assert (clean.plate, clean.vin, clean.crlv_uf, clean.category, clean.owner_cpf) == (
        "ABC1234", "9C2KC1670JR500001", "MG", "aluguel", "52998224725")


def test_a_300_cc_and_a_six_year_old_vehicle_are_flagged_with_their_articles() -> None:
    cpf = valid_cpf()
    by_rule = {v.rule_id: v for v in vehicle_verdicts(
        motorcycle(1, cpf, engine_cc=300, year_manufacture=2020, year_model=2020, crlv_year=2026),
        LawSettings(), cpf, TODAY)}
    engine, life = by_rule["art3_i_engine"], by_rule["art3_ii_useful_life"]
    assert engine.status is Status.NOT_MET and engine.article == "Art. 3º, I" and "300" in engine.message
    assert life.status is Status.NOT_MET and life.article == "Art. 3º, II" and "31/12/2025" in life.message
    assert all(v.ok for k, v in by_rule.items() if k not in ("art3_i_engine", "art3_ii_useful_life"))


def test_the_service_says_passengers_or_cargo_and_the_owner_must_be_the_holder() -> None:
    cpf = valid_cpf()
    verdicts = {v.rule_id: v for v in vehicle_verdicts(
        motorcycle(1, valid_cpf(), service_type=ServiceType.MOTOBOY, colour="Preta"), LawSettings(), cpf, TODAY)}
    assert verdicts["art5_8_passenger_cargo"].ok
    check_wording("art5_8_passenger_cargo", verdicts["art5_8_passenger_cargo"].message)
    assert verdicts["art5_5_holder_name"].status is Status.NOT_MET
    assert "art19_1_insurance" not in verdicts


def test_an_old_plate_and_its_mercosul_form_are_the_same_registration() -> None:
    assert vehicles.plate_forms("ABC-1234") == {"ABC1234", "ABC1C34"} == vehicles.plate_forms("abc1c34")
    assert vehicles.plate_forms("ABC1K34") == {"ABC1K34"}
    assert vehicles.plate_forms("AB-123") == set()


# --- the register --------------------------------------------------------------------------------


def test_register_read_and_search_by_either_plate_form(clerk: AppContext, inspector: AppContext) -> None:
    hid, cpf = holder(clerk)
    saved = vehicles.save_vehicle(clerk, motorcycle(hid, cpf, plate="abc-1234"))
    record = vehicles.get_vehicle(inspector, saved.id)
    assert record.active and record.data.plate == "ABC1234" and record.holder_name == "João Batista da Silva"
    assert [r.plate for r in vehicles.list_vehicles(inspector, "ABC1C34")] == ["ABC-1234"]
    assert [r.id for r in vehicles.list_vehicles(inspector, "batista")] == [saved.id]
    assert [r.id for r in vehicles.list_vehicles(inspector, cpf)] == [saved.id]
    assert vehicles.holder_by_cpf(inspector, cpf).active_plate == "ABC-1234"  # type: ignore[union-attr]
    with pytest.raises(PermissionDeniedError):
        vehicles.save_vehicle(inspector, motorcycle(hid, cpf), vehicle_id=saved.id)


def test_a_duplicate_active_plate_and_a_second_vehicle_are_refused_on_their_fields(clerk: AppContext) -> None:
    hid, cpf = holder(clerk)
    vehicles.save_vehicle(clerk, motorcycle(hid, cpf, plate="ABC-1234"))
    other, other_cpf = holder(clerk, "Maria Aparecida Souza")
    with pytest.raises(InvalidInputError) as caught:
        vehicles.save_vehicle(clerk, motorcycle(other, other_cpf, plate="ABC1C34"))  # the same plate, Mercosul
    assert "Já existe um veículo ativo com a placa ABC-1234 de João Batista da Silva" in caught.value.fields["plate"]
    with pytest.raises(InvalidInputError) as caught:
        vehicles.save_vehicle(clerk, motorcycle(hid, cpf, plate="XYZ9A87"))
    assert "Art. 6º, § 2º" in caught.value.fields["holder_id"]
    assert "Art. 31, Grupo 3, II" in caught.value.fields["holder_id"]


def test_corrections_keep_the_holder_and_guard_against_stale_saves(clerk: AppContext,
                                                                    supervisor: AppContext) -> None:
    hid, cpf = holder(clerk)
    saved = vehicles.save_vehicle(clerk, motorcycle(hid, cpf))
    first = vehicles.get_vehicle(clerk, saved.id)
    vehicles.save_vehicle(supervisor, dataclasses.replace(first.data, colour="Amarela topázio"),
                          vehicle_id=saved.id, expected_version=first.version)
    with pytest.raises(ConflictError):
        vehicles.save_vehicle(clerk, dataclasses.replace(first.data, colour="Preta"),
                              vehicle_id=saved.id, expected_version=first.version)
    other, _ = holder(clerk, "Maria Aparecida Souza")
    with pytest.raises(InvalidInputError) as caught:
        vehicles.save_vehicle(clerk, dataclasses.replace(first.data, holder_id=other), vehicle_id=saved.id)
    assert "Art. 7º" in caught.value.fields["holder_id"]
    assert vehicles.get_vehicle(clerk, saved.id).data.colour == "Amarela topázio"


def test_replacement_needs_the_supervisors_prior_authorisation(clerk: AppContext, supervisor: AppContext,
                                                               inspector: AppContext) -> None:
    from motodesk.services import inspections

    hid, cpf = holder(clerk)
    old = vehicles.save_vehicle(clerk, motorcycle(hid, cpf, plate="ABC1234"))
    with supervisor.write() as s:
        existing_register(s)
        s.add(Permit(number="MT-0001/2026", service_type=ServiceType.MOTOTAXI, year=2026, seq=1, person_id=hid,
                     vehicle_id=old.id, state=PermitState.ACTIVE, issued_on=date(2026, 1, 5),
                     term_end=date(2031, 1, 5), certificate_valid_until=date(2027, 1, 5)))
    scheduled = inspections.schedule_inspection(clerk, old.id, vehicles.local_today())
    new_data = motorcycle(None, cpf, plate="QWE2R34", service_type=None, year_manufacture=2026, year_model=2026)

    with raises_rule("art31_g3_ii_replacement"):
        vehicles.replace_vehicle(clerk, old.id, new_data)
    with pytest.raises(PermissionDeniedError):
        vehicles.authorise_replacement(clerk, old.id, "Motocicleta com motor fundido")
    with pytest.raises(InvalidInputError) as caught:
        vehicles.authorise_replacement(supervisor, old.id, "troca")
    assert "reason" in caught.value.fields
    vehicles.authorise_replacement(supervisor, old.id, "Motocicleta com motor fundido, laudo da oficina")
    authorised = vehicles.get_vehicle(clerk, old.id)
    assert authorised.replacement_authorised_by == Role.SUPERVISOR.value
    assert authorised.replacement_authorised_at is not None and authorised.replacement_authorised
    with pytest.raises(InvalidInputError) as caught:
        vehicles.replace_vehicle(clerk, old.id, dataclasses.replace(new_data, plate="ABC-1234"))
    assert "mesma do veículo substituído" in caught.value.fields["plate"]

    done = vehicles.replace_vehicle(clerk, old.id, new_data)
    old_record, new_record = vehicles.get_vehicle(clerk, old.id), vehicles.get_vehicle(clerk, done.new_id)
    assert not old_record.active and old_record.replaced_by_plate == "QWE2R34"
    assert old_record.replacement_reason == "Motocicleta com motor fundido, laudo da oficina"
    assert new_record.active and new_record.replaces_plate == "ABC-1234"
    assert new_record.data.holder_id == hid and new_record.data.service_type is ServiceType.MOTOTAXI
    assert [r.plate for r in vehicles.vehicle_history(clerk, hid)] == ["QWE2R34", "ABC-1234"]
    assert [r.plate for r in vehicles.list_vehicles(clerk, "ABC1234")] == []
    with clerk.read() as s:
        # the permit names the new vehicle only after its own inspection (Art. 5º, § 1º, II–III)
        assert s.scalar(select(Permit.vehicle_id)) == old.id
        statuses = dict(s.execute(select(Inspection.id, Inspection.status)).all())
    assert statuses == {scheduled: "cancelled", done.inspection_id: "scheduled"}
    assert len(done.waiting_permit_ids) == 1
    with raises_code(MotodeskError, "vehicle.replaced"):
        vehicles.save_vehicle(clerk, old_record.data, vehicle_id=old.id)
    with raises_code(MotodeskError, "inspection.vehicle_replaced"):
        inspections.start_inspection(inspector, vehicle_id=old.id)


def _permit_with_replacement_authorised(clerk: AppContext, supervisor: AppContext) -> tuple[int, int, str, int]:
    hid, cpf = holder(clerk)
    old = vehicles.save_vehicle(clerk, motorcycle(hid, cpf, plate="ABC1234"))
    with supervisor.write() as s:
        existing_register(s)
        permit = Permit(number="MT-0001/2026", service_type=ServiceType.MOTOTAXI, year=2026, seq=1, person_id=hid,
                        vehicle_id=old.id, state=PermitState.ACTIVE, issued_on=date(2026, 1, 5),
                        term_end=date(2031, 1, 5), certificate_valid_until=date(2099, 1, 5))
        s.add(permit)
        s.flush()
        permit_id = permit.id
    vehicles.authorise_replacement(supervisor, old.id, "Motocicleta com motor fundido, laudo da oficina")
    return hid, old.id, cpf, permit_id


def test_the_replacement_vehicle_is_judged_by_every_vehicle_rule(clerk: AppContext, supervisor: AppContext) -> None:
    _hid, old_id, cpf, _permit_id = _permit_with_replacement_authorised(clerk, supervisor)
    too_big = motorcycle(None, cpf, plate="QWE2R34", engine_cc=300)
    with pytest.raises(RuleViolationError) as caught:
        vehicles.replace_vehicle(clerk, old_id, too_big)
    assert {v.article for v in caught.value.verdicts} == {"Art. 3º, I"}
    wrong = motorcycle(None, cpf, plate="QWE2R34", engine_cc=300, colour="Vermelha", category="particular")
    with pytest.raises(RuleViolationError) as caught:
        vehicles.replace_vehicle(clerk, old_id, wrong)
    assert {"Art. 3º, I", "Art. 5º, § 1º, IV"} <= {v.article for v in caught.value.verdicts}
    assert len(caught.value.verdicts) >= 3, "every failing rule is listed, not only the first"
    with clerk.read() as s:  # nothing was written: the old vehicle is still in service
        assert s.scalar(select(Permit.vehicle_id)) == old_id
    assert vehicles.get_vehicle(clerk, old_id).active


def test_the_permit_names_the_replacement_only_after_its_inspection_passes(
        clerk: AppContext, supervisor: AppContext, inspector: AppContext) -> None:
    from motodesk.services import badges, inspections, permits
    from motodesk.services.badges import BadgeRequest
    from motodesk.services.inspections import ItemAnswer, ItemResult

    _hid, old_id, cpf, permit_id = _permit_with_replacement_authorised(clerk, supervisor)
    plate = "QWE2R34"
    done = vehicles.replace_vehicle(clerk, old_id, motorcycle(None, cpf, plate=plate))
    assert done.waiting_permit_ids == [permit_id]

    for print_document in (lambda: permits.registration_certificate_pdf(clerk, permit_id),
                           lambda: permits.transit_authorization_pdf(clerk, permit_id),
                           lambda: badges.print_badges(clerk, [BadgeRequest(permit_id)])):
        with pytest.raises(RuleViolationError) as caught:
            print_document()
        assert "replacement_pending" in {v.rule_id for v in caught.value.verdicts}
        assert plate in str(caught.value)  # the replacement waiting for its inspection
        check_wording("replacement_pending", str(caught.value))

    assert done.inspection_id is not None
    iid = inspections.start_inspection(inspector, inspection_id=done.inspection_id)
    view = inspections.get_inspection(inspector, iid)
    failing = [ItemAnswer(i.code, ItemResult.NOT_OK if n == 0 else ItemResult.OK, "Falta o item" if n == 0 else None)
               for n, i in enumerate(view.items)]
    failed = inspections.conclude_inspection(inspector, iid, failing)
    assert failed.replacement.moved_permit_ids == ()
    assert "replacement_inspection" in {v.rule_id for v in failed.replacement.blocking}
    with clerk.read() as s:
        assert s.scalar(select(Permit.vehicle_id).where(Permit.id == permit_id)) == old_id

    again = inspections.reopen_as_reinspection(inspector, iid)
    view = inspections.get_inspection(inspector, again)
    passed = inspections.conclude_inspection(inspector, again,
                                             [ItemAnswer(i.code, ItemResult.OK, None) for i in view.items])
    assert passed.replacement.moved_permit_ids == (permit_id,) and passed.replacement.blocking == ()
    with clerk.read() as s:
        assert s.scalar(select(Permit.vehicle_id).where(Permit.id == permit_id)) == done.new_id
