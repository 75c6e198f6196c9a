"""Fault suite, issue 17 item 15: hostile text and files from a workstation.

Bidirectional controls, zero-width characters and lone surrogates are refused in pt_BR wherever
free text is stored; every search takes them (and ``%``, ``_``) without crashing and literally;
an attachment that is a PDF and a web page at once is refused."""

from __future__ import annotations

from datetime import date, timedelta

from permit_factory import make_dossier  # type: ignore[import-not-found]
from tests_helpers import names_in, raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import (
    attachments,
    deadlines,
    enforcement,
    inspections,
    organisations,
    people,
    permits,
    stands,
    vehicles,
)
from motodesk.services import search as search_service
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.services.organisations import OrganisationInput
from motodesk.services.people import PersonInput
from motodesk.services.stands import StandInput
from motodesk.services.text import clean_text, contains_pattern, escape_like, search_text, text_problem

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "exe.jpg" shows as "gpj.exe"
HOSTILE = {
    "bidi": f"Maria {RLO}acilA",
    "isolate": "Maria \u2067Alice\u2069",
    "zero width": "Ma\u200bria da Silva",
    "joiner": "Maria\u200d da Silva",
    "bom": "\ufeffMaria da Silva",
    "surrogate": "Maria \udc80 Silva",
}
QUERIES = [*HOSTILE.values(), "%", "_", "%%", "a_b", "\\", "100%", "' OR 1=1 --", "\udcff", "\x00"]
PDF = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"


def test_the_shared_cleaning_function() -> None:
    for kind, value in HOSTILE.items():
        problem = text_problem(value)
        assert problem and "U+" in problem and "apague-o" in problem, kind
        with raises_code(InvalidInputError, "invalid_input", fields=("full_name",)) as caught:
            clean_text(value, field="full_name", label="Nome do titular")
        names_in(caught.value, "Nome do titular")  # the field's label, as the form shows it
    assert clean_text("  João   D'Ávila  ", field="x", label="Nome") == "João D'Ávila"
    assert clean_text("linha 1\nlinha 2", field="x", label="Obs.", multiline=True) == "linha 1\nlinha 2"
    assert search_text(f"jo{RLO}ão\u200b \udc80") == "jo ão"
    assert escape_like("100%_a\\b") == "100\\%\\_a\\\\b" and contains_pattern("%") == "%\\%%"


def test_people_names_and_addresses_with_hostile_characters_are_refused(clerk: AppContext) -> None:
    for kind, value in HOSTILE.items():
        with raises_code(InvalidInputError, "invalid_input", fields=("full_name",)) as caught:
            people.save_person(clerk, PersonInput(full_name=value, cpf=valid_cpf(), birth_date=date(1980, 1, 1)))
        assert "U+" in caught.value.fields["full_name"], kind  # the code point is named
        with raises_code(InvalidInputError, "invalid_input", fields=("address",)):
            people.save_person(clerk, PersonInput(full_name="Maria da Silva", cpf=valid_cpf(),
                                                  birth_date=date(1980, 1, 1), address=f"Rua {value}, 10"))
    assert people.save_person(clerk, PersonInput(full_name="Maria da Silva", cpf=valid_cpf(),
                                                 birth_date=date(1980, 1, 1))).id


def test_organisations_stands_and_vehicle_owners_refuse_them_too(supervisor: AppContext, clerk: AppContext) -> None:
    with raises_code(InvalidInputError, "invalid_input", fields=("name",)) as caught:
        organisations.save_organisation(supervisor, OrganisationInput(
            kind="cooperative", name=f"Cooperativa {RLO}xetom", cnpj="11.222.333/0001-81",
            address="Rua Governador Valadares, 455", phone="(34) 3831-2020"))
    assert "U+202E" in caught.value.fields["name"]
    with raises_code(InvalidInputError, "invalid_input", fields=("address",)) as caught:
        stands.create_stand(supervisor, StandInput(
            name="Ponto da Praça", address="Praça\u200b Honorico Machado", services=(ServiceType.MOTOBOY,),
            max_places=2, decree_number="5.120/2026", decree_date=date.today() - timedelta(days=3),
            is_bus_or_taxi_stop=False))
    assert "U+200B" in caught.value.fields["address"]
    _clean, errors = vehicles.validate_vehicle(vehicles.VehicleInput(plate="ABC1D23", owner_name=HOSTILE["bidi"]))
    assert "U+202E" in errors["owner_name"]


def test_attachment_names_with_hostile_characters_and_html_polyglots_are_refused(clerk: AppContext) -> None:
    pid = people.save_person(clerk, PersonInput(full_name="Rosa Maria Guimarães", cpf=valid_cpf(),
                                                birth_date=date(1985, 3, 9))).id
    with raises_code(InvalidInputError, "invalid_input", fields=("filename",)) as caught:
        attachments.add_attachment(clerk, "people", pid, f"rg{RLO}fdp.exe", PDF)
    assert "U+202E" in caught.value.fields["filename"]  # the code point is named
    with raises_code(InvalidInputError, "invalid_input", fields=("filename",)):
        attachments.add_attachment(clerk, "people", pid, "rg\udc80.pdf", PDF)
    for page in (b"<html><body><script>alert(document.cookie)</script></body></html>\n",
                 b"<!DOCTYPE html><svg onload=alert(1)>", b"<iframe src=javascript:alert(1)>"):
        with raises_code(InvalidInputError, "attachment.html_polyglot"):
            attachments.add_attachment(clerk, "people", pid, "rg.pdf", page + PDF)
        with raises_code(InvalidInputError, "attachment.html_polyglot"):
            attachments.add_attachment(clerk, "people", pid, "rg.pdf", PDF[:9] + page + PDF[9:])
    assert attachments.add_attachment(clerk, "people", pid, "rg.pdf", PDF).media_type == "application/pdf"
    assert len(attachments.list_attachments(clerk, "people", pid)) == 1


def _register(ctx: AppContext, supervisor: AppContext) -> str:
    """A permit in force whose holder's name has no '%' or '_' (so a literal search finds nothing)."""
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Rita de Cássia Melo")
    return permits.issue(supervisor, dossier.application_id).number


def test_every_search_takes_hostile_text_and_percent_literally(ctx: AppContext, clerk: AppContext,
                                                               supervisor: AppContext,
                                                               inspector: AppContext) -> None:
    number = _register(ctx, supervisor)
    everyone = {
        "people": lambda q: search_service.search_people(clerk, q).hits,
        "permits": lambda q: permits.list_permits(clerk, search=q),
        "inspections": lambda q: inspections.list_inspections(inspector, q),
        "notices": lambda q: enforcement.list_notices(inspector, q),
        "vehicles": lambda q: vehicles.list_vehicles(clerk, q),
        "organisations": lambda q: organisations.list_organisations(clerk, q),
        "stands": lambda q: [row for row in stands.list_stands(clerk) if q and q in row.name],
        "offenders": lambda q: enforcement.find_offenders(inspector, q),
        "deadlines": lambda q: deadlines.collect(clerk, deadlines.DeadlineFilter(horizon_days=3650, person=q)),
    }
    assert permits.list_permits(clerk, search="")  # there is something to find…
    assert inspections.list_inspections(inspector, "")
    for name, find in everyone.items():
        for query in QUERIES:
            found = find(query)  # never raises, whatever the text
            if query in ("%", "_", "%%", "a_b", "\\"):
                assert found == [], (name, query)  # …but not by a wildcard typed as text
    assert [row.number for row in permits.list_permits(clerk, search=number)] == [number]
