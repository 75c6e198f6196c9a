"""The dossier service: one transaction for the person and the documents, conflicts, what the rules see."""

from __future__ import annotations

from datetime import date, timedelta

import permit_factory  # type: ignore[import-not-found]
import pytest
from sqlalchemy import func, select
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]
from validate_docbr import CNH, PIS, TituloEleitoral

from motodesk.models import Person, PersonDocument
from motodesk.rules.common import ServiceType, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import check_applicant
from motodesk.rules.settings import LawSettings
from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError, PermissionDeniedError
from motodesk.services.people import DocumentInput, PersonInput

TODAY = date.today()


def complete_documents() -> list[DocumentInput]:
    """Every declared document filled so that each requirement is met today (the tests' one helper)."""
    return permit_factory.complete_documents(TODAY, cnh_number=CNH().generate(), nit=PIS().generate(),
                                             voter_title=TituloEleitoral().generate())


def complete_person(cpf: str | None = None) -> PersonInput:
    return PersonInput(full_name="José Carlos D'Ávila-Souza", cpf=cpf or valid_cpf(), birth_date=date(1988, 7, 14),
                       sex="M", address="Rua Presidente Vargas, 1200", district="Centro", city="Patrocínio",
                       uf="MG", zip_code="38740-000", declares_no_other_permit=True)


def test_new_dossier_saved_whole_and_read_back(clerk: AppContext) -> None:
    saved = people.save_dossier(clerk, complete_person(), complete_documents())
    assert set(saved.documents) == {d.kind for d in complete_documents()}
    dossier = people.get_dossier(clerk, saved.person_id)
    assert dossier.person.full_name == "José Carlos D'Ávila-Souza"  # stored exactly as typed
    assert dossier.person.zip_code == "38740000"
    assert dossier.document(DocumentKind.CRIMINAL).result == "negative"
    assert dossier.document(DocumentKind.OTHER).is_empty()
    with clerk.read() as s:
        assert s.scalar(select(Person.name_search).where(Person.id == saved.person_id)) == "jose carlos d'avila-souza"


def test_an_error_in_one_document_saves_nothing(clerk: AppContext) -> None:
    docs = complete_documents()
    docs.append(DocumentInput(DocumentKind.OTHER, number="x" * 65))
    with pytest.raises(InvalidInputError) as caught:
        people.save_dossier(clerk, complete_person(), docs)
    assert "other.number" in caught.value.fields
    assert "Texto longo demais" in caught.value.fields["other.number"]
    with clerk.read() as s:
        assert s.scalar(select(func.count(Person.id))) == 0
        assert s.scalar(select(func.count(PersonDocument.id))) == 0


def test_duplicate_cpf_refused_in_pt_br(clerk: AppContext) -> None:
    cpf = valid_cpf()
    people.save_dossier(clerk, complete_person(cpf))
    with raises_code(MotodeskError, "constraint") as info:
        people.save_dossier(clerk, complete_person(cpf), complete_documents())
    assert str(info.value) == people._INTEGRITY["uq_people_cpf"]
    with clerk.read() as s:
        assert s.scalar(select(func.count(PersonDocument.id))) == 0  # the documents did not stay behind
    assert people.cpf_owner(clerk, cpf) is not None
    owner_id = people.cpf_owner(clerk, cpf)[0]
    assert people.cpf_owner(clerk, cpf, except_person_id=owner_id) is None


def test_conflicts_on_the_person_and_on_a_document(clerk: AppContext, supervisor: AppContext) -> None:
    saved = people.save_dossier(clerk, complete_person(), complete_documents())
    mine = people.get_dossier(clerk, saved.person_id)
    theirs = people.get_dossier(supervisor, saved.person_id)
    # The other workstation changes a document.
    cnh = theirs.document(DocumentKind.CNH)
    cnh.categories = "A"
    people.save_dossier(supervisor, theirs.person, [cnh], person_id=theirs.person_id,
                        person_version=theirs.version,
                        document_versions={DocumentKind.CNH: theirs.documents[DocumentKind.CNH].version})
    # Mine still holds the old version of that document: refused, and nothing of mine is written.
    mine.person.phone = "(34) 99999-0000"
    cnh_mine = mine.document(DocumentKind.CNH)
    cnh_mine.categories = "AC"
    with raises_code(ConflictError, "conflict"):
        people.save_dossier(clerk, mine.person, [cnh_mine], person_id=mine.person_id, person_version=mine.version,
                            document_versions={DocumentKind.CNH: mine.documents[DocumentKind.CNH].version})
    now = people.get_dossier(clerk, saved.person_id)
    assert now.person.phone is None and now.document(DocumentKind.CNH).categories == "A"
    # A document the form believed new, created meanwhile elsewhere, is a conflict too.
    people.save_document(supervisor, saved.person_id, DocumentInput(DocumentKind.OTHER, number="Procuração"))
    with pytest.raises(ConflictError):
        people.save_dossier(clerk, now.person, [DocumentInput(DocumentKind.OTHER, number="Outra coisa")],
                            person_id=now.person_id, person_version=now.version,
                            document_versions={DocumentKind.OTHER: None})
    assert people.last_change(clerk, saved.person_id).user_login == "supervisor"


def test_inspector_reads_but_does_not_save(clerk: AppContext, inspector: AppContext) -> None:
    saved = people.save_dossier(clerk, complete_person())
    assert people.get_dossier(inspector, saved.person_id).person.full_name.startswith("José")
    with pytest.raises(PermissionDeniedError):
        people.save_dossier(inspector, complete_person())


@pytest.mark.parametrize(("field", "value", "message"), [
    ("full_name", "Maria\x00Silva", "caracteres de controle"),
    ("mother_name", "Ana\tSilva", "caracteres de controle"),
    ("full_name", "M" * 10_000, "no máximo 200"),
    ("full_name", "Maria", "nome e sobrenome"),
    ("cpf", "123.456.789-00", "dígitos verificadores"),
    ("cpf", "'; DROP TABLE people; --", "apenas números"),
    ("uf", "XX", "UF desconhecida"),
    ("zip_code", "3874", "8 dígitos"),
    ("birth_date", TODAY + timedelta(days=1), "futuro"),
])
def test_bad_personal_data_is_refused_field_by_field(clerk: AppContext, field: str, value: object,
                                                     message: str) -> None:
    data = complete_person()
    setattr(data, field, value)
    with pytest.raises(InvalidInputError) as caught:
        people.save_dossier(clerk, data)
    assert message in caught.value.fields[field]
    with clerk.read() as s:
        assert s.scalar(select(func.count(Person.id))) == 0


def test_a_pasted_line_break_in_a_name_becomes_a_space(clerk: AppContext) -> None:
    data = complete_person()
    data.full_name = "  Maria\r\nda   Silva "
    saved = people.save_dossier(clerk, data)
    assert people.get_dossier(clerk, saved.person_id).person.full_name == "Maria da Silva"


def test_sql_metacharacters_in_text_are_stored_as_typed(clerk: AppContext) -> None:
    data = complete_person()
    data.notes = "'; DROP TABLE people; -- %_\\ \"aspas\"\nsegunda linha"
    data.address = "Rua D'Ávila, 10 -- fundos"
    saved = people.save_dossier(clerk, data)
    back = people.get_dossier(clerk, saved.person_id).person
    assert back.notes == data.notes and back.address == data.address


def test_document_warnings_do_not_block() -> None:
    doc = DocumentInput(DocumentKind.CNH, number="12345678901")
    assert "dígitos verificadores" in people.document_warnings(doc)["number"]
    assert people.validate_document(doc)[1] == {}


def test_applicant_facts_of_a_complete_dossier_meet_every_rule() -> None:
    docs = {d.kind: d for d in complete_documents()}
    facts = people.applicant_facts(complete_person(), docs, photo_date=TODAY)
    verdicts = check_applicant(facts, ServiceType.MOTOBOY, TODAY, LawSettings())
    assert [v.message for v in verdicts if v.status is not Status.MET] == []
    assert facts.holds_other_municipal_permit is False
    assert facts.address == "Rua Presidente Vargas, 1200, Centro, Patrocínio"


def test_check_dossier_reads_the_stored_dossier(clerk: AppContext) -> None:
    saved = people.save_dossier(clerk, complete_person(), complete_documents())
    verdicts = {v.rule_id: v for v in people.check_dossier(clerk, saved.person_id, ServiceType.MOTOFRETE)}
    assert verdicts["art5_ix_photo"].status is Status.PENDING  # no photo yet
    assert all(v.status is Status.MET for k, v in verdicts.items() if k != "art5_ix_photo")
