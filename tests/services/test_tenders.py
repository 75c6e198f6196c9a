"""The mototáxi tender: ranked candidates typed or imported, called in order within the quota, the
30 days of the medical certificate, and the full path from candidate to permit."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from openpyxl import Workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from tests_helpers import check_wording, raises_code, raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.eligibility import tender_medical_deadline
from motodesk.rules.settings import LawSettings
from motodesk.services import permits, tenders
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.settings import update_settings

TODAY = date.today()


def _sheet(rows: list[list[object]], title: str | None = "Resultado homologado") -> bytes:
    wb = Workbook()
    ws = wb.active
    if title:
        ws.append([title])
    ws.append(["Classificação", "CPF", "Nome"])
    for row in rows:
        ws.append(row)
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def test_candidates_typed_and_imported_in_rank_order(supervisor: AppContext) -> None:
    tender_id = tenders.create_tender(supervisor, "Concorrência 01/2026", homologated_on=TODAY - timedelta(days=3))
    tenders.add_candidate(supervisor, tender_id, 3, valid_cpf(), "Carlos Eduardo Prado")
    cpf1, cpf2 = valid_cpf(), valid_cpf()
    added = tenders.import_candidates(supervisor, tender_id, _sheet([
        [1, f"{cpf1[:3]}.{cpf1[3:6]}.{cpf1[6:9]}-{cpf1[9:]}", "Ana Beatriz Rocha"],
        ["2º", cpf2, "  Bruno   Henrique Dias "],
        [None, None, None],
    ]))
    assert added == 2
    rows = tenders.list_candidates(supervisor, tender_id)
    assert [(c.rank, c.name, c.status_label) for c in rows] == [
        (1, "Ana Beatriz Rocha", "Aguardando convocação"),
        (2, "Bruno Henrique Dias", "Aguardando convocação"),
        (3, "Carlos Eduardo Prado", "Aguardando convocação"),
    ]
    assert rows[0].cpf == cpf1
    tender = tenders.list_tenders(supervisor)[0]
    # 30 days after homologation, moved to the next business day when it falls on a day off
    deadline = tender.medical_deadline
    assert deadline == tender_medical_deadline(TODAY - timedelta(days=3), LawSettings())
    assert TODAY + timedelta(days=27) <= deadline <= TODAY + timedelta(days=30)
    assert (tender.candidates, tender.waiting) == (3, 3)
    assert "Art. 5º, § 2º" in tenders.medical_deadline_text(tender)


def test_a_bad_sheet_imports_nothing_and_says_why(supervisor: AppContext) -> None:
    tender_id = tenders.create_tender(supervisor, "Concorrência 02/2026")
    cpf = valid_cpf()
    with pytest.raises(InvalidInputError) as info:
        tenders.import_candidates(supervisor, tender_id, _sheet([
            [1, cpf, "Ana Beatriz Rocha"],
            [1, "123.456.789-00", "Beto"],
            ["primeiro", valid_cpf(), "Caio Silva Souza"],
            [4, "=1+1", "Davi Lopes Reis"],
            [5, cpf, "Eva Maria Luz"],
        ]))
    problems = " ".join(info.value.fields.values())
    assert info.value.code == "tender.sheet_refused"
    check_wording(info.value.code, str(info.value))
    for expected in ("Linha 4", "CPF", "nome completo", "“primeiro” não é um número", "fórmulas",
                     "Linha 4: classificação 1 repetida (já na linha 3)", "Linha 7: CPF repetido (já na linha 3)"):
        assert expected in problems, expected
    assert tenders.list_candidates(supervisor, tender_id) == []
    for junk in (b"", b"CPF;Nome\n1;2", b"PK\x03\x04 not really a zip" * 10, bytes(range(256)) * 40):
        with pytest.raises(InvalidInputError):
            tenders.import_candidates(supervisor, tender_id, junk)
    with raises_code(InvalidInputError, "tender.sheet_columns"):
        tenders.import_candidates(supervisor, tender_id, _sheet_without_headers())


def _sheet_without_headers() -> bytes:
    wb = Workbook()
    wb.active.append(["x", "y"])
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def test_call_in_order_only_within_the_quota(ctx: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 4_000})  # two places
    tender_id = tenders.create_tender(supervisor, "Concorrência 03/2026")
    for rank in (1, 2, 3):
        tenders.add_candidate(supervisor, tender_id, rank, valid_cpf(), f"Candidato Número {rank}")
    with raises_rule("tender_homologation"):
        tenders.call_next_candidate(supervisor, tender_id)
    tenders.update_tender(supervisor, tender_id, homologated_on=TODAY)
    assert tenders.call_next_candidate(supervisor, tender_id).rank == 1
    assert tenders.call_next_candidate(supervisor, tender_id).rank == 2
    with raises_rule("art10_i_quota"):
        tenders.call_next_candidate(supervisor, tender_id)
    first = tenders.list_candidates(supervisor, tender_id)[0]
    tenders.set_candidate_status(supervisor, first.id, "declined")
    third = tenders.call_next_candidate(supervisor, tender_id)
    assert (third.rank, third.status, third.called_on) == (3, "called", TODAY)
    tenders.set_candidate_status(supervisor, third.id, "eliminated")
    with raises_code(InvalidInputError, "tender.no_waiting_candidate"):
        tenders.call_next_candidate(supervisor, tender_id)


def test_from_candidate_to_permit(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 89_826})
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, candidate_status=None, name="Joana Prado Vieira")
    tender_id = tenders.create_tender(supervisor, "Concorrência 04/2026", homologated_on=TODAY - timedelta(days=10))
    tenders.add_candidate(supervisor, tender_id, 1, dossier.cpf, "Joana Prado Vieira")
    other = tenders.add_candidate(supervisor, tender_id, 2, valid_cpf(), "Outro Candidato Qualquer")
    with raises_rule("tender"):
        permits.approve(supervisor, dossier.application_id, "300/2026", TODAY)
    with raises_rule("tender"):
        tenders.link_application(clerk, dossier.application_id,
                                 tenders.list_candidates(supervisor, tender_id)[0].id)
    called = tenders.call_next_candidate(supervisor, tender_id)
    assert called.person_id == dossier.person_id  # found by CPF
    with raises_code(InvalidInputError, "tender.cpf_mismatch"):
        tenders.link_application(clerk, dossier.application_id, other)
    permits.approve(supervisor, dossier.application_id, "300/2026", TODAY)  # found by CPF among the called
    issued = permits.issue(supervisor, dossier.application_id)
    assert issued.number.startswith("MT-")
    row = tenders.list_candidates(supervisor, tender_id)[0]
    assert row.status == "accepted" and row.application_state is PermitState.ACTIVE
    overview = permits.quota_overview(supervisor)
    assert (overview.population, overview.quota, overview.in_force, overview.open_places) == (89_826, 44, 1, 43)


def test_duplicates_and_roles(clerk: AppContext, supervisor: AppContext) -> None:
    tender_id = tenders.create_tender(supervisor, "Concorrência 05/2026")
    with raises_code(MotodeskError, "constraint") as info:
        tenders.create_tender(supervisor, "Concorrência 05/2026")
    assert str(info.value) == tenders._INTEGRITY["uq_tenders_number"]
    cpf = valid_cpf()
    tenders.add_candidate(supervisor, tender_id, 1, cpf, "Ana Beatriz Rocha")
    with raises_code(MotodeskError, "constraint") as info:
        tenders.add_candidate(supervisor, tender_id, 1, valid_cpf(), "Bruno Henrique Dias")
    assert str(info.value) == tenders._INTEGRITY["uq_tender_candidates_tender_rank"]
    with raises_code(MotodeskError, "constraint") as info:
        tenders.add_candidate(supervisor, tender_id, 2, cpf, "Ana Beatriz Rocha")
    assert str(info.value) == tenders._INTEGRITY["uq_tender_candidates_tender_cpf"]
    from motodesk.services.errors import PermissionDeniedError

    with pytest.raises(PermissionDeniedError):
        tenders.create_tender(clerk, "Concorrência 06/2026")
    assert tenders.list_tenders(clerk)[0].number == "Concorrência 05/2026"
