"""Inspections on SQLite and PostgreSQL: drafts, conclusion, laudo, re-inspection, supersession, queue."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, timedelta

import pytest
from PIL import Image
from pypdf import PdfReader
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.checklist import ItemResult, checklist_for
from motodesk.rules.common import ServiceType
from motodesk.services import inspections, people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError, PermissionDeniedError
from motodesk.services.inspections import InspectionKind, InspectionStatus, ItemAnswer
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput

A4 = (595.28, 841.89)


def vehicle(clerk: AppContext, service: ServiceType = ServiceType.MOTOTAXI, plate: str = "PTC4B83") -> int:
    cpf = valid_cpf()
    hid = people.save_person(clerk, PersonInput(full_name="José Carlos Ferreira", cpf=cpf)).id
    colour = "Amarela" if service is ServiceType.MOTOTAXI else "Preta"
    return vehicles.save_vehicle(clerk, VehicleInput(
        plate=plate, holder_id=hid, service_type=service, make="Honda", model="CG 160 Fan",
        year_manufacture=2024, year_model=2024, engine_cc=162, colour=colour, category="aluguel",
        crlv_year=2026, crlv_municipality="Patrocínio", crlv_uf="MG", owner_cpf=cpf)).id


def answers(view: inspections.InspectionView, failing: dict[str, str] | None = None,
            result: ItemResult = ItemResult.OK) -> list[ItemAnswer]:
    failing = failing or {}
    return [ItemAnswer(i.code, ItemResult.NOT_OK if i.code in failing else result, failing.get(i.code))
            for i in view.items]


def pdf_text(data: bytes) -> tuple[str, PdfReader]:
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split()), reader


def test_fail_one_item_then_reinspect_only_that_item_and_approve(clerk: AppContext, inspector: AppContext) -> None:
    vid = vehicle(clerk)
    iid = inspections.start_inspection(inspector, vehicle_id=vid)
    view = inspections.get_inspection(inspector, iid)
    assert [i.code for i in view.items] == [i.code for i in checklist_for(ServiceType.MOTOTAXI)]
    assert view.status is InspectionStatus.DRAFT and view.kind is InspectionKind.REGULAR

    concluded = inspections.conclude_inspection(
        inspector, iid, answers(view, {"A19-V-MIRRORS": "Falta o retrovisor esquerdo"}))
    assert concluded.status is InspectionStatus.FAILED
    assert [i.code for i in concluded.pending] == ["A19-V-MIRRORS"]
    from motodesk.rules.periods import next_business_day
    from motodesk.services.settings import law_settings

    # 30 days, moved to the next business day when they end on a holiday (1º de janeiro, say)
    assert concluded.next_due == next_business_day(vehicles.local_today() + timedelta(days=30),
                                                   law_settings(inspector))
    failed = inspections.get_inspection(inspector, iid)
    assert failed.inspector_name == "Vistoriador/Fiscal" and failed.performed_at is not None
    text, reader = pdf_text(inspections.inspection_report(inspector, iid))
    assert "PTC4B83" in text and "REPROVADO" in text and "Falta o retrovisor esquerdo" in text
    for item in checklist_for(ServiceType.MOTOTAXI):
        assert item.text in text
    assert all((round(float(p.mediabox.width), 2), round(float(p.mediabox.height), 2)) == A4 for p in reader.pages)

    with raises_code(MotodeskError, "inspection.failed_locked"):
        inspections.save_draft(inspector, iid, answers(view))
    again = inspections.reopen_as_reinspection(inspector, iid)
    assert inspections.reopen_as_reinspection(inspector, iid) == again  # the same draft, not a second one
    reinspection = inspections.get_inspection(inspector, again)
    assert reinspection.kind is InspectionKind.REINSPECTION and reinspection.parent_id == iid
    assert [i.code for i in reinspection.items] == ["A19-V-MIRRORS"]
    approved = inspections.conclude_inspection(inspector, again, answers(reinspection))
    assert approved.status is InspectionStatus.APPROVED and approved.pending == []
    # Issue 16, item 5: an approved mototáxi inspection is valid for a semester (Art. 5º, § 6º).
    from motodesk.rules.periods import add_months
    performed = inspections.get_inspection(inspector, again).performed_at
    assert performed is not None
    assert approved.next_due == add_months(performed.astimezone(inspections.LOCAL_TZ).date(), 6)
    text, _ = pdf_text(inspections.inspection_report(inspector, again))
    assert "APROVADO" in text and "Espelho retrovisor de ambos os lados" in text
    assert f"vistoria nº {iid:06d}" in text
    assert inspections.get_inspection(inspector, iid).status is InspectionStatus.FAILED  # history kept


def test_a_half_filled_checklist_is_a_draft_that_cannot_conclude(clerk: AppContext, inspector: AppContext) -> None:
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle(clerk))
    view = inspections.get_inspection(inspector, iid)
    half = answers(view)[:5]
    version = inspections.save_draft(inspector, iid, half, "Chuva forte durante a vistoria",
                                     expected_version=view.version)
    assert version > view.version
    with raises_code(InvalidInputError, "inspection.unanswered") as caught:
        inspections.conclude_inspection(inspector, iid, half, expected_version=version)
    unanswered = {i.code for i in view.items[5:]}
    assert set(caught.value.fields) == unanswered
    assert str(len(unanswered)) in str(caught.value)  # how many are still unanswered
    saved = inspections.get_inspection(inspector, iid)
    assert saved.status is InspectionStatus.DRAFT and saved.notes == "Chuva forte durante a vistoria"
    assert [i.result for i in saved.items[:5]] == [ItemResult.OK] * 5 and saved.items[5].result is None
    assert not saved.outcome().complete


def test_not_applicable_only_where_the_law_admits_it(clerk: AppContext, inspector: AppContext) -> None:
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle(clerk, ServiceType.MOTOFRETE))
    view = inspections.get_inspection(inspector, iid)
    given = answers(view)
    for a in given:
        if a.code in ("A23-4-STRIPS", "A23-5-NOT-BOTH", "A5-7-ANTENNA"):
            a.result = ItemResult.NOT_APPLICABLE
    concluded = inspections.conclude_inspection(inspector, iid, given)
    assert [i.code for i in concluded.pending] == ["A5-7-ANTENNA"]
    text, _ = pdf_text(inspections.inspection_report(inspector, iid))
    assert "mas a lei exige o item de todo veículo" in text


def test_only_inspectors_and_supervisors_record(clerk: AppContext, supervisor: AppContext) -> None:
    vid = vehicle(clerk)
    with pytest.raises(PermissionDeniedError):
        inspections.start_inspection(clerk, vehicle_id=vid)
    iid = inspections.start_inspection(supervisor, vehicle_id=vid)
    with pytest.raises(PermissionDeniedError):
        inspections.conclude_inspection(clerk, iid, [])
    with pytest.raises(PermissionDeniedError):
        inspections.save_draft(clerk, iid, [])


def test_an_approved_inspection_is_only_superseded_with_a_reason(clerk: AppContext, inspector: AppContext,
                                                                  supervisor: AppContext) -> None:
    vid = vehicle(clerk)
    iid = inspections.start_inspection(inspector, vehicle_id=vid)
    view = inspections.get_inspection(inspector, iid)
    inspections.conclude_inspection(inspector, iid, answers(view))
    with raises_code(MotodeskError, "inspection.approved_locked"):
        inspections.save_draft(inspector, iid, answers(view, {"A19-IV-RAINCAPE": "sem capa"}))
    with raises_code(MotodeskError, "inspection.approved_locked"):
        inspections.conclude_inspection(inspector, iid, answers(view))
    with pytest.raises(InvalidInputError):
        inspections.supersede_inspection(supervisor, iid, "erro")
    new = inspections.supersede_inspection(supervisor, iid, "Capa de chuva registrada por engano como presente")
    with raises_code(MotodeskError, "inspection.replacement_open"):
        inspections.supersede_inspection(supervisor, iid, "Capa de chuva registrada por engano de novo")
    assert inspections.get_inspection(inspector, iid).status is InspectionStatus.APPROVED  # until the new one ends
    draft = inspections.get_inspection(supervisor, new)
    assert draft.supersedes_id == iid and len(draft.items) == len(view.items)
    done = inspections.conclude_inspection(supervisor, new, answers(draft, {"A19-IV-RAINCAPE": "Sem capa"}))
    assert done.status is InspectionStatus.FAILED
    old = inspections.get_inspection(inspector, iid)
    assert old.status is InspectionStatus.SUPERSEDED and old.superseded_by_id == new
    assert old.supersede_reason == "Capa de chuva registrada por engano como presente"
    text, _ = pdf_text(inspections.inspection_report(inspector, new))
    assert f"Substitui a vistoria nº {iid:06d}" in text and "registrada por engano" in text
    assert inspections.inspection_report(inspector, iid)  # the first laudo stays stored


def test_accident_inspection_is_its_own_kind(clerk: AppContext, inspector: AppContext) -> None:
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle(clerk), kind=InspectionKind.ACCIDENT)
    view = inspections.get_inspection(inspector, iid)
    assert view.kind is InspectionKind.ACCIDENT and len(view.items) == len(checklist_for(ServiceType.MOTOTAXI))
    inspections.conclude_inspection(inspector, iid, answers(view))
    text, _ = pdf_text(inspections.inspection_report(inspector, iid))
    assert "Vistoria após acidente (Art. 31, Grupo 4, I)" in text


def test_queue_shows_today_late_in_progress_and_due(clerk: AppContext, inspector: AppContext) -> None:
    today = vehicles.local_today()
    for_today = vehicle(clerk, plate="AAA1B11")
    late = vehicle(clerk, plate="BBB2C22")
    future = vehicle(clerk, plate="CCC3D33")
    freight = vehicle(clerk, ServiceType.MOTOFRETE, plate="DDD4E44")
    inspections.schedule_inspection(clerk, for_today, today)
    late_id = inspections.schedule_inspection(clerk, late, today)
    inspections.schedule_inspection(clerk, future, today + timedelta(days=3))
    with pytest.raises(InvalidInputError) as caught:
        inspections.schedule_inspection(clerk, future, today + timedelta(days=4))
    assert "vehicle" in caught.value.fields
    with pytest.raises(InvalidInputError) as caught:
        inspections.schedule_inspection(clerk, freight, today - timedelta(days=1))
    assert "scheduled_for" in caught.value.fields
    iid = inspections.start_inspection(inspector, vehicle_id=freight, kind=InspectionKind.ANNUAL)
    year_ago = datetime.now(UTC) - timedelta(days=400)
    done = inspections.conclude_inspection(inspector, iid, answers(inspections.get_inspection(inspector, iid),
                                                                   result=ItemResult.OK), now=year_ago)
    assert done.next_due is not None and done.next_due < today  # Art. 23: yearly

    queue = inspections.inspector_queue(inspector, today + timedelta(days=1))
    by_plate = {r.plate: r for r in queue}
    assert set(by_plate) == {"AAA1B11", "BBB2C22", "DDD4E44"}
    assert by_plate["BBB2C22"].situation == "Agendada – atrasada 1 dia" and by_plate["BBB2C22"].inspection_id == late_id
    assert by_plate["DDD4E44"].kind is InspectionKind.ANNUAL and by_plate["DDD4E44"].inspection_id is None
    assert "não agendada" in by_plate["DDD4E44"].situation
    assert [r.plate for r in inspections.upcoming_inspections(inspector, today + timedelta(days=1))] == ["CCC3D33"]

    inspections.schedule_inspection(clerk, freight, today + timedelta(days=1), InspectionKind.ANNUAL)
    queue = inspections.inspector_queue(inspector, today + timedelta(days=1))
    freight_row = next(r for r in queue if r.plate == "DDD4E44")
    assert freight_row.situation == "Agendada para hoje" and freight_row.kind is InspectionKind.ANNUAL
    inspections.cancel_inspection(clerk, late_id, "Titular pediu outra data")
    assert "BBB2C22" not in {r.plate for r in inspections.inspector_queue(inspector, today)}


def test_item_photos_while_the_draft_is_open(clerk: AppContext, inspector: AppContext) -> None:
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle(clerk))
    buffer = io.BytesIO()
    Image.new("RGB", (3000, 2000), (200, 30, 30)).save(buffer, "PNG")
    photo = inspections.add_item_photo(inspector, iid, "A19-V-MIRRORS", "C:\\fotos\\espelho.png", buffer.getvalue())
    with pytest.raises(InvalidInputError):
        inspections.add_item_photo(inspector, iid, "A19-V-MIRRORS", "x.txt", b"not an image")
    refs = inspections.item_photos(inspector, iid)
    assert [(r.item_code, r.filename) for r in refs] == [("A19-V-MIRRORS", "espelho.jpg")]
    stored = Image.open(io.BytesIO(inspections.photo_bytes(inspector, photo)))
    assert stored.format == "JPEG" and max(stored.size) == inspections.PHOTO_LONG_SIDE
    view = inspections.get_inspection(inspector, iid)
    assert {i.code: i.photo_count for i in view.items}["A19-V-MIRRORS"] == 1
    inspections.conclude_inspection(inspector, iid, answers(view))
    with pytest.raises(MotodeskError):
        inspections.add_item_photo(inspector, iid, "A19-V-MIRRORS", "b.png", buffer.getvalue())
    with pytest.raises(MotodeskError):
        inspections.remove_item_photo(inspector, photo)


def test_history_lists_and_searches(clerk: AppContext, inspector: AppContext) -> None:
    vid = vehicle(clerk, plate="ABC1234")
    iid = inspections.start_inspection(inspector, vehicle_id=vid)
    inspections.conclude_inspection(inspector, iid, answers(inspections.get_inspection(inspector, iid)))
    rows = inspections.list_inspections(clerk, "ABC1C34")
    assert [(r.id, r.plate, r.status) for r in rows] == [(iid, "ABC-1234", InspectionStatus.APPROVED)]
    assert inspections.list_inspections(clerk, "Ferreira")[0].id == iid
    assert inspections.list_inspections(clerk, "zzz") == []
    assert inspections.get_inspection(clerk, iid).report_number.endswith(f"/{date.today().year}")


def test_a_call_for_periodic_inspections_books_each_vehicle_on_business_days(
        clerk: AppContext, supervisor: AppContext) -> None:
    from motodesk.rules.periods import is_business_day, next_business_day
    from motodesk.rules.settings import LawSettings

    busy = vehicle(clerk, ServiceType.MOTOBOY, plate="AAA1A11")
    vehicle(clerk, ServiceType.MOTOBOY, plate="BBB2B22")
    vehicle(clerk, ServiceType.MOTOBOY, plate="CCC3C33")
    vehicle(clerk, ServiceType.MOTOTAXI, plate="DDD4D44")
    today = vehicles.local_today()
    inspections.schedule_inspection(clerk, busy, today)
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 + 7)
    with pytest.raises(PermissionDeniedError):
        inspections.schedule_campaign(clerk, ServiceType.MOTOBOY, saturday, 1)
    with pytest.raises(InvalidInputError) as caught:
        inspections.schedule_campaign(supervisor, ServiceType.MOTOBOY, today - timedelta(days=1), 0)
    assert set(caught.value.fields) == {"start", "per_day"}
    done = inspections.schedule_campaign(supervisor, ServiceType.MOTOBOY, saturday, 1)
    settings = LawSettings()
    assert (done.count, done.skipped) == (2, 1)
    assert done.first_day == next_business_day(saturday, settings) and is_business_day(done.first_day, settings)
    assert done.last_day == next_business_day(done.first_day + timedelta(days=1), settings)
    booked = {r.plate: (r.scheduled_for, r.kind) for r in inspections.upcoming_inspections(
        clerk, today, days=60)}
    assert booked == {"BBB2B22": (done.first_day, InspectionKind.SEMESTRAL),
                      "CCC3C33": (done.last_day, InspectionKind.SEMESTRAL)}


def test_the_laudo_of_a_new_vehicle_names_the_open_requerimento(clerk: AppContext, inspector: AppContext) -> None:
    """Before the permit exists, the laudo's "Permissão / requerimento nº" is the holder's open
    requerimento (it said "—" while the application was open)."""
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.rules.text import application_number

    dossier = make_dossier(clerk, ServiceType.MOTOBOY, inspection=None)
    opened_on = date.today() - timedelta(days=7)
    iid = inspections.start_inspection(inspector, vehicle_id=dossier.vehicle_id)
    inspections.conclude_inspection(inspector, iid, answers(inspections.get_inspection(inspector, iid)))
    text, _ = pdf_text(inspections.inspection_report(inspector, iid))
    assert f"REQUERIMENTO Nº {application_number(dossier.application_id, opened_on)}" in text.upper()

    lone = vehicle(clerk, ServiceType.MOTOBOY, plate="QWE4R56")  # a holder with no requerimento, no permit
    other = inspections.start_inspection(inspector, vehicle_id=lone)
    inspections.conclude_inspection(inspector, other, answers(inspections.get_inspection(inspector, other)))
    text, _ = pdf_text(inspections.inspection_report(inspector, other))
    assert "REQUERIMENTO Nº —" in text.upper()
