"""Every export kind the secretariat receives, written and read back."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from motodesk.exports.kinds import (
    CPF_PATTERN,
    EXPORT_KINDS,
    PEOPLE,
    PEOPLE_TRANSPARENCY,
    PERMITS,
    PERMITS_TRANSPARENCY,
    QuotaStudy,
    cpf_masked,
    cpf_shown,
    quota_study_sheets,
    transparency_rows,
)
from motodesk.exports.xlsx import DATE_FORMAT, DATETIME_FORMAT, MONEY_FORMAT, SheetSpec, write_workbook
from motodesk.rules.common import PermitState, ServiceType

AT = datetime(2026, 3, 2, 14, 5)


def synthetic_value(kind: str, key: str, i: int, cpf: str) -> Any:
    if key == "cpf":
        return cpf
    return {
        "text": f"{key} {i}",
        "date": date(2020, 1, 1) + timedelta(days=i),
        "datetime": datetime(2025, 5, 1, 8, 0) + timedelta(hours=i),
        "int": i,
        "decimal": Decimal("1.5") * i,
        "money": Decimal("123.45") * (i + 1),
        "bool": i % 2 == 0,
    }[kind]


def synthetic_rows(spec: SheetSpec, n: int, make_cpf) -> list[dict[str, Any]]:
    return [{c.key: synthetic_value(c.kind, c.key, i, make_cpf(i)) for c in spec.columns} for i in range(n)]


@pytest.mark.parametrize("name", sorted(EXPORT_KINDS))
def test_each_kind_exports_and_reads_back(out_dir: Path, make_cpf, name: str) -> None:
    spec = EXPORT_KINDS[name]
    path = out_dir / f"{name}.xlsx"
    assert (
        write_workbook(path, [(spec, synthetic_rows(spec, 25, make_cpf))], exported_by="sup", exported_at=AT)
        == 25
    )
    ws = openpyxl.load_workbook(path).worksheets[0]
    assert ws["A1"].value == f"{spec.title} — exportado em 02/03/2026 14:05 por sup"
    assert tuple(c.value for c in ws[2]) == spec.headers
    assert ws.freeze_panes == "A3"
    assert ws.auto_filter.ref.startswith("A2:") and ws.auto_filter.ref.endswith("27")
    assert ws.max_row == 27
    for idx, column in enumerate(spec.columns, 1):
        cell = ws.cell(3, idx)
        if column.kind == "date":
            assert cell.is_date and cell.number_format == DATE_FORMAT, column.key
        elif column.kind == "datetime":
            assert cell.is_date and cell.number_format == DATETIME_FORMAT, column.key
        elif column.kind == "money":
            assert cell.number_format == MONEY_FORMAT and cell.data_type == "n", column.key
        elif column.kind == "int":
            assert isinstance(cell.value, int), column.key
        elif column.kind == "bool":
            assert cell.value == "Sim", column.key


def test_headers_are_unique_and_sheet_names_fit_excel() -> None:
    for name, spec in EXPORT_KINDS.items():
        assert len(set(spec.headers)) == len(spec.headers), name
        assert len(set(spec.keys)) == len(spec.keys), name
        assert len(spec.sheet_name) <= 31 and not set("[]:*?/\\") & set(spec.sheet_name), name


def test_permits_register_columns_and_values(out_dir: Path, make_cpf) -> None:
    assert PERMITS.title == "Cadastro de permissões"
    assert PERMITS.headers == (
        "Número",
        "Serviço",
        "Titular",
        "CPF",
        "Placa",
        "Situação",
        "Emissão",
        "Validade do certificado",
        "Fim do prazo",
        "Decreto",
        "Taxa de emissão (R$)",
        "Guia/DAM da emissão",
        "Emissão paga em",
        "Última taxa de renovação (R$)",
        "Guia/DAM da renovação",
        "Renovação paga em",
    )
    cpf = make_cpf(7)
    row = {
        "number": "MT-0007/2026",
        "service": ServiceType.MOTOTAXI,
        "holder_name": "Maria Aparecida",
        "cpf": cpf,
        "plate": "ABC1D23",
        "state": PermitState.ACTIVE,
        "issued_on": date(2026, 1, 5),
        "certificate_valid_until": date(2027, 1, 5),
        "term_ends_on": date(2031, 1, 5),
        "decree": "Decreto 1.234/2026",
    }
    path = out_dir / "p.xlsx"
    write_workbook(path, [(PERMITS, [row])], exported_by="sup", exported_at=AT)
    values = [c.value for c in openpyxl.load_workbook(path).worksheets[0][3]]
    assert values[:6] == [
        "MT-0007/2026",
        "Mototáxi",
        "Maria Aparecida",
        f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}",
        "ABC1D23",
        "Em vigor",
    ]
    assert values[6] == datetime(2026, 1, 5)


def test_quota_study_two_sections(out_dir: Path, make_cpf) -> None:
    study = QuotaStudy(
        population=89_826,
        population_year=2022,
        quota=44,
        permits_in_force=40,
        open_places=4,
        waiting_list_size=2,
    )
    waiting = [
        {
            "rank": 1,
            "full_name": "Ana",
            "cpf": make_cpf(1),
            "tender": "Licitação 1/2025",
            "status": "Aguardando",
        },
        {
            "rank": 2,
            "full_name": "Bia",
            "cpf": make_cpf(2),
            "tender": "Licitação 1/2025",
            "status": "Aguardando",
        },
    ]
    path = out_dir / "vagas.xlsx"
    assert write_workbook(path, quota_study_sheets(study, waiting), exported_by="sup", exported_at=AT) == 8
    wb = openpyxl.load_workbook(path)
    summary, queue = wb.worksheets
    assert summary["A1"].value.startswith("Estudo de vagas – Art. 39 — exportado em")
    table = {summary.cell(r, 1).value: summary.cell(r, 2).value for r in range(3, summary.max_row + 1)}
    assert table["População"] == 89_826
    assert table["Ano de referência da população"] == 2022
    assert table["Vagas de mototáxi (Art. 10, I)"] == 44
    assert table["Permissões de mototáxi em vigor"] == 40
    assert table["Vagas abertas"] == 4
    assert table["Cadastro de reserva da licitação"] == 2
    assert queue["B3"].value == "Ana" and queue["C3"].value.startswith("***.")


# ------------------------------------------------------------------ transparency

PERSONAL = {
    "birth_date": date(1985, 3, 14),
    "address": "Rua Goiás, 100, Centro",
    "phone": "(34) 99876-5432",
    "email": "maria@exemplo.com.br",
    "rg": "MG-12.345.678",
    "nit": "12054646786",
}


def full_rows(n: int, make_cpf) -> list[dict[str, Any]]:
    return [
        {
            "number": f"MT-{i:04d}/2026",
            "service": ServiceType.MOTOTAXI,
            "holder_name": f"Pessoa {i}",
            "full_name": f"Pessoa {i}",
            "cpf": make_cpf(i)
            if i % 2
            else f"{make_cpf(i)[:3]}.{make_cpf(i)[3:6]}.{make_cpf(i)[6:9]}-{make_cpf(i)[9:]}",
            "plate": "ABC1D23",
            "state": PermitState.ACTIVE,
            "role": "Titular",
            "permit_number": f"MT-{i:04d}/2026",
            "issued_on": date(2026, 1, 5),
            "term_ends_on": date(2031, 1, 5),
            **PERSONAL,
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("spec", [PERMITS_TRANSPARENCY, PEOPLE_TRANSPARENCY])
@pytest.mark.parametrize("through_rows", [True, False])
def test_transparency_files_never_hold_a_full_cpf_or_personal_data(
    out_dir: Path, make_cpf, cell_texts, spec: SheetSpec, through_rows: bool
) -> None:
    rows = full_rows(50, make_cpf)
    path = out_dir / "publico.xlsx"
    source = transparency_rows(rows, spec) if through_rows else rows
    write_workbook(path, [(spec, source)], exported_by="sup", exported_at=AT)
    texts = list(cell_texts(path))
    for text in texts:
        assert not CPF_PATTERN.search(text), text[:200]
        assert "Rua Goiás" not in text and "99876" not in text and "exemplo.com.br" not in text
        assert "12054646786" not in text and "12.345.678" not in text
    ws = openpyxl.load_workbook(path).worksheets[0]
    cpf_col = spec.headers.index("CPF") + 1
    cpf = make_cpf(1)
    assert ws.cell(4, cpf_col).value == f"***.{cpf[3:6]}.{cpf[6:9]}-**"
    assert "Data de nascimento" not in spec.headers and "Endereço" not in spec.headers


def test_transparency_rows_keep_only_declared_keys(make_cpf) -> None:
    (row,) = transparency_rows(full_rows(1, make_cpf), PEOPLE_TRANSPARENCY)
    assert set(row) == set(PEOPLE_TRANSPARENCY.keys)
    assert row["cpf"].startswith("***.")


def test_internal_people_file_does_show_full_cpf(out_dir: Path, make_cpf) -> None:
    path = out_dir / "pessoas.xlsx"
    write_workbook(path, [(PEOPLE, full_rows(3, make_cpf))], exported_by="sup", exported_at=AT)
    ws = openpyxl.load_workbook(path).worksheets[0]
    assert CPF_PATTERN.fullmatch(ws.cell(3, 2).value)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("52998224725", "***.982.247-**"),
        ("529.982.247-25", "***.982.247-**"),
        (52998224725, "***.982.247-**"),
        ("***.982.247-**", "***.982.247-**"),  # masking twice keeps the mask
        ("5299822472", "***.***.***-**"),  # malformed: nothing shown
        ("not a cpf", "***.***.***-**"),
    ],
)
def test_cpf_masked(raw: Any, expected: str | None) -> None:
    assert cpf_masked(raw) == expected


def test_cpf_shown() -> None:
    assert cpf_shown("52998224725") == "529.982.247-25"
    assert cpf_shown("529.982.247-25") == "529.982.247-25"
    assert cpf_shown("123") == "123"
    assert cpf_shown(None) is None
