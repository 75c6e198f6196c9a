"""Import of the secretariat's register: template, per-row validation, bad files."""

from __future__ import annotations

import io
import random
import re
import time
import zipfile
from datetime import date, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from tests_helpers import wait_seconds  # type: ignore[import-not-found]

from motodesk.exports.importer import (
    EMPTY_ROWS_STOP,
    INSTRUCTIONS_SHEET,
    MSG_CORRUPT,
    MSG_EMPTY,
    MSG_NO_ROWS,
    MSG_NOT_XLSX,
    MSG_ODS,
    MSG_PASSWORD,
    MSG_PDF,
    MSG_TEXT,
    MSG_XLS,
    TEMPLATE_COLUMNS,
    TEMPLATE_HEADERS,
    TEMPLATE_SHEET,
    ImportReport,
    normalise_header,
    parse_date,
    read_import,
    render_report,
    write_template,
)
from motodesk.exports.kinds import PEOPLE
from motodesk.exports.xlsx import write_workbook
from motodesk.rules.common import ServiceType

TODAY = date(2026, 3, 2)
HEADER_BY_KEY = {c.key: c.header for c in TEMPLATE_COLUMNS}


def good_row(cpf: str, /, **over: Any) -> dict[str, Any]:
    row = {
        "full_name": "Maria Aparecida da Silva",
        "cpf": f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}",
        "birth_date": date(1985, 3, 14),
        "sex": "Feminino",
        "phone": "(34) 99876-5432",
        "email": "Maria@Exemplo.com.br",
        "address": "Rua Goiás, 100, Centro",
        "cnh": "02650306461",
        "cnh_categories": "AB",
        "cnh_first_a_date": date(2010, 6, 1),
        "cnh_expiry": date(2028, 6, 1),
        "service": "Mototáxi",
        "plate": f"abc-{cpf[-4:]}",
        "renavam": "00639884962",
        "vin": "9C2KC1670HR000001",
        "manufacture_year": 2022,
        "engine_cc": 160,
        "nit": "120.5464.678-6",
    }
    row.update(over)
    return row


def make_register(
    path: Path,
    rows: list[dict[str, Any]],
    *,
    headers: list[str] | None = None,
    above: list[list[Any]] = (),
    sheet: str = "Planilha1",
) -> Path:
    """A register as a clerk would have it: headers (maybe after a title), one row per person."""
    headers = list(headers or TEMPLATE_HEADERS)
    keys = {h: k for k, h in HEADER_BY_KEY.items()}
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for line in above:
        ws.append(line)
    ws.append(headers)
    for row in rows:
        ws.append([row.get(keys.get(h, h)) for h in headers])
    wb.save(path)
    return path


def read(path: Path, **kw: Any) -> ImportReport:
    return read_import(path, today=TODAY, **kw)


# ---------------------------------------------------------------------- template


def test_template_has_headers_instructions_and_lists(tmp_path: Path) -> None:
    path = tmp_path / "modelo.xlsx"
    write_template(path)
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == [TEMPLATE_SHEET, INSTRUCTIONS_SHEET]
    ws = wb[TEMPLATE_SHEET]
    assert tuple(c.value for c in ws[1]) == TEMPLATE_HEADERS
    assert ws.max_row == 1  # no example person in the sheet that gets imported
    for header in ("Nome completo", "CPF", "Data de nascimento", "Sexo", "Telefone", "E-mail", "Endereço",
                   "CNH", "Categorias CNH", "Data 1ª habilitação A", "Validade CNH", "Serviço", "Placa",
                   "RENAVAM", "Chassi", "Ano de fabricação", "Cilindradas"):  # fmt: skip
        assert header in TEMPLATE_HEADERS
    validations = ws.data_validations.dataValidation
    lists = {str(dv.sqref).split(":")[0].rstrip("0123456789"): dv.formula1 for dv in validations}
    service_col = openpyxl.utils.get_column_letter(TEMPLATE_HEADERS.index("Serviço") + 1)
    sex_col = openpyxl.utils.get_column_letter(TEMPLATE_HEADERS.index("Sexo") + 1)
    assert lists[service_col] == '"Mototáxi,Motoboy,Moto-frete"'
    assert lists[sex_col] == '"Masculino,Feminino"'
    info = wb[INSTRUCTIONS_SHEET]
    texts = [c.value for row in info.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("Colunas destacadas são obrigatórias" in t for t in texts)
    assert "Maria Aparecida da Silva" in texts  # the example row
    header = next(row[:4] for row in info.iter_rows() if row[0].value == "Coluna")
    assert [c.value for c in header] == ["Coluna", "Obrigatória", "O que informar", "Exemplo"]
    assert all(c.font.b for c in header)  # the column list's header is bold, not the empty line above it
    assert not any(c.font.b for c in info[header[0].row - 1][:4])


def test_empty_template_reads_as_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "modelo.xlsx"
    write_template(path)
    report = read(path)
    assert report.file_errors == [MSG_NO_ROWS]
    assert report.rows == []


def test_template_round_trip_good_and_bad_rows(tmp_path: Path, make_cpf) -> None:
    path = tmp_path / "modelo.xlsx"
    write_template(path)
    wb = openpyxl.load_workbook(path)
    ws = wb[TEMPLATE_SHEET]

    def put(row: dict[str, Any]) -> None:
        ws.append([row.get(c.key) for c in TEMPLATE_COLUMNS])

    put(good_row(make_cpf(1)))  # line 2
    put(good_row(make_cpf(2), cpf="123.456.789-00"))  # line 3: bad CPF
    put(good_row(make_cpf(3), plate="AB-12", service="Táxi"))  # line 4: bad plate and service
    put(good_row(make_cpf(4), full_name=None, birth_date="31/02/1990"))  # line 5: no name, bad date
    put(good_row(make_cpf(5), renavam="12345678901", vin="9C2KC1670HR00000O", cnh="12345678901"))  # line 6
    put(good_row(make_cpf(6), service="moto frete", birth_date="14/03/1985", sex="M"))  # line 7: good
    wb.save(path)

    report = read(path)
    assert report.file_errors == []
    assert [r.line for r in report.rows] == [2, 3, 4, 5, 6, 7]
    by_line = {r.line: r for r in report.rows}
    assert [r.line for r in report.rows if r.ok] == [2, 7]

    first = by_line[2]
    assert first.values["cpf"] == make_cpf(1) == first.key
    assert first.values["plate"] == f"ABC{make_cpf(1)[-4:]}"
    assert first.values["birth_date"] == date(1985, 3, 14)
    assert first.values["service"] == ServiceType.MOTOTAXI.value
    assert first.values["sex"] == "F"
    assert first.values["phone"] == "34998765432"
    assert first.values["email"] == "maria@exemplo.com.br"
    assert first.values["cnh_categories"] == "AB"
    assert first.values["manufacture_year"] == 2022 and first.values["engine_cc"] == 160
    assert first.values["nit"] == "12054646786"
    assert first.warnings == []

    assert by_line[7].values["service"] == "motofrete" and by_line[7].values["sex"] == "M"
    assert any(e.startswith("CPF inválido") for e in by_line[3].errors)
    assert by_line[3].key is None
    assert any("Placa inválida" in e for e in by_line[4].errors)
    assert any(e.startswith('Serviço: "Táxi" não reconhecido') for e in by_line[4].errors)
    assert "Nome completo: não informado (obrigatório)." in by_line[5].errors
    assert any("31/02/1990" in e and e.startswith("Data de nascimento") for e in by_line[5].errors)
    errors6 = " | ".join(by_line[6].errors)
    assert "RENAVAM" in errors6 and "chassi" in errors6.lower() and "CNH" in errors6

    text = render_report(report)
    assert text.splitlines()[0] == '6 linhas lidas da aba "Cadastro": 2 importadas, 4 recusadas.'
    assert "Linha 2: importada" in text.splitlines()
    assert re.search(r"^Linha 3: recusada — CPF inválido: ", text, re.M)
    assert re.search(r"^Linha 7: importada$", text, re.M)


def test_headers_match_ignoring_accents_case_and_remarks(tmp_path: Path, make_cpf) -> None:
    headers = ["NOME COMPLETO", "cpf", "Data de Nascimento (dd/mm/aaaa)", "servico", "PLACA", "E-Mail"]
    path = make_register(
        tmp_path / "r.xlsx",
        [{"NOME COMPLETO": "Ana Souza", "cpf": make_cpf(1), "servico": "Motoboy", "PLACA": "ABC1D23"}],
        headers=headers,
    )
    report = read(path)
    assert report.file_errors == []
    (row,) = report.rows
    assert row.ok and row.values["service"] == "motoboy" and row.values["plate"] == "ABC1D23"
    assert any("ausentes" in w and "Telefone" in w for w in report.file_warnings)


def test_header_row_below_a_title(tmp_path: Path, make_cpf) -> None:
    path = make_register(
        tmp_path / "r.xlsx",
        [good_row(make_cpf(1))],
        above=[["Cadastro de mototaxistas — SESTRAN"], [], ["atualizado em 2025"]],
    )
    report = read(path)
    assert report.header_row == 4
    assert [r.line for r in report.rows] == [5] and report.rows[0].ok


def test_motodesk_people_export_can_be_read_back(tmp_path: Path, make_cpf) -> None:
    """Our own export (title row, escaped text) is a valid import."""
    cpf = make_cpf(9)
    person = {k: v for k, v in good_row(cpf).items() if k in PEOPLE.keys}
    person |= {"cpf": cpf, "service": ServiceType.MOTOBOY, "full_name": "-Zé das Couves"}
    path = tmp_path / "pessoas.xlsx"
    write_workbook(path, [(PEOPLE, [person])], exported_by="sup", exported_at=datetime(2026, 1, 1))
    report = read(path)
    assert report.header_row == 2
    (row,) = report.rows
    assert row.values["full_name"] == "-Zé das Couves"  # the export's apostrophe is removed
    assert row.values["cpf"] == cpf and row.values["service"] == "motoboy"
    assert any("Placa" in w for w in report.file_warnings)  # columns absent from that export


# ---------------------------------------------------------------------- fields


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("14/03/1985", date(1985, 3, 14)),
        ("14-03-1985", date(1985, 3, 14)),
        ("14.03.1985", date(1985, 3, 14)),
        ("1985-03-14", date(1985, 3, 14)),
        ("1985-03-14 00:00:00", date(1985, 3, 14)),
        ("14/03/85", date(1985, 3, 14)),
        ("4/3/1985", date(1985, 3, 4)),
        (" 04/03/1985 ", date(1985, 3, 4)),
        ("14/03/1985 10:30", date(1985, 3, 14)),
        (datetime(1985, 3, 14), date(1985, 3, 14)),
        (date(1985, 3, 14), date(1985, 3, 14)),
    ],
)
def test_birth_dates_in_several_formats(tmp_path: Path, make_cpf, text: Any, expected: date) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1), birth_date=text)])
    (row,) = read(path).rows
    assert row.ok, row.errors
    assert row.values["birth_date"] == expected


@pytest.mark.parametrize(
    "text", ["14/13/1985", "31/02/1990", "ontem", "1985/03/14", "14031985", "32/01/2000"]
)
def test_bad_dates_have_a_clear_message(tmp_path: Path, make_cpf, text: str) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1), birth_date=text)])
    (row,) = read(path).rows
    assert not row.ok
    (error,) = row.errors
    assert error.startswith("Data de nascimento: ") and text in error
    assert "dd/mm/aaaa" in error or "não é uma data que exista" in error


def test_two_digit_years() -> None:
    assert parse_date("14/03/85", past=True, today=TODAY)[0] == date(1985, 3, 14)
    assert parse_date("14/03/20", past=True, today=TODAY)[0] == date(2020, 3, 14)
    assert parse_date("14/03/30", past=False, today=TODAY)[0] == date(2030, 3, 14)
    assert "1985" in parse_date("14/03/85", past=True, today=TODAY)[2]


def test_future_birth_date_refused(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1), birth_date="01/01/2030")])
    (row,) = read(path).rows
    assert row.errors == ["Data de nascimento: 01/01/2030 está no futuro."]


def test_excel_serial_number_date_is_read_with_warning(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1), cnh_expiry=46000)])
    (row,) = read(path).rows
    assert row.ok and row.values["cnh_expiry"] == date(2025, 12, 9)
    assert any("número (46000)" in w for w in row.warnings)


def test_numeric_document_cells_get_their_leading_zeros_back(tmp_path: Path, make_cpf) -> None:
    cpf = next(make_cpf(i) for i in range(1000) if make_cpf(i).startswith("0"))
    path = make_register(
        tmp_path / "r.xlsx", [good_row(cpf, cpf=int(cpf), cnh=2650306461, renavam=639884962)]
    )
    (row,) = read(path).rows
    assert row.ok, row.errors
    assert row.values["cpf"] == cpf and row.values["cnh"] == "02650306461"
    assert row.values["renavam"] == "00639884962"


def test_cpf_in_scientific_notation_explained(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1), cpf="5,29982E+10")])
    (row,) = read(path).rows
    assert any("notação científica" in e for e in row.errors)


def test_required_fields(tmp_path: Path, make_cpf) -> None:
    path = make_register(
        tmp_path / "r.xlsx", [good_row(make_cpf(1), cpf=None, service="  ", full_name="Ana Souza")]
    )
    (row,) = read(path).rows
    assert "CPF: não informado (obrigatório)." in row.errors
    assert "Serviço: não informado (obrigatório)." in row.errors


def test_warnings_do_not_refuse(tmp_path: Path, make_cpf) -> None:
    path = make_register(
        tmp_path / "r.xlsx",
        [good_row(make_cpf(1), birth_date=None, engine_cc="300 cc", cnh_categories="B", email="sem")],
    )
    (row,) = read(path).rows
    assert row.ok
    joined = " | ".join(row.warnings)
    assert "Data de nascimento não informada" in joined
    assert "300 cm³" in joined and "Art. 3º, I" in joined
    assert "sem categoria A" in joined
    assert "e-mail" in joined
    assert "importada — aviso: " in render_report(read(path))


def test_duplicate_cpf_flagged_on_every_occurrence(tmp_path: Path, make_cpf) -> None:
    cpf = make_cpf(3)
    rows = [good_row(cpf), good_row(make_cpf(4), plate="XYZ9A87"), good_row(cpf, cpf=cpf, plate="QWE1234")]
    report = read(make_register(tmp_path / "r.xlsx", rows))
    first, other, again = report.rows
    assert other.ok
    for row in (first, again):
        assert "CPF repetido na planilha (linhas 2 e 4); deixe uma linha por pessoa." in row.errors
    assert first.key == again.key == cpf


def test_duplicate_plate_is_a_warning(tmp_path: Path, make_cpf) -> None:
    rows = [good_row(make_cpf(1), plate="ABC-1234"), good_row(make_cpf(2), plate="ABC1234")]
    report = read(make_register(tmp_path / "r.xlsx", rows))
    assert all(r.ok for r in report.rows)
    assert all(any("Placa repetida" in w for w in r.warnings) for r in report.rows)


def test_formulas_are_refused_per_cell(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1)), good_row(make_cpf(2))])
    wb = openpyxl.load_workbook(path)
    ws = wb.active
    ws["C3"] = "=DATE(1985,3,14)"
    ws["A3"] = '=HYPERLINK("http://evil","clique")'
    wb.save(path)
    report = read(path)
    assert report.rows[0].ok
    errors = report.rows[1].errors
    assert "Fórmulas não são aceitas (célula C3)." in errors
    assert "Fórmulas não são aceitas (célula A3)." in errors


def test_blank_lines_between_rows_are_skipped(tmp_path: Path, make_cpf) -> None:
    path = make_register(
        tmp_path / "r.xlsx", [good_row(make_cpf(1)), {}, {"address": "   "}, good_row(make_cpf(2))]
    )
    report = read(path)
    assert [r.line for r in report.rows] == [2, 5]


def test_rows_with_only_ignored_columns_are_blank(tmp_path: Path, make_cpf) -> None:
    headers = [*TEMPLATE_HEADERS, "Observações"]
    path = make_register(
        tmp_path / "r.xlsx", [good_row(make_cpf(1)), {"Observações": "nota solta"}], headers=headers
    )
    report = read(path)
    assert [r.line for r in report.rows] == [2]
    assert any('"Observações"' in w and "ignorada" in w for w in report.file_warnings)


# ------------------------------------------------------------------- bad files


def assert_refused(report: ImportReport, message: str | None = None) -> None:
    assert report.rows == []
    assert report.file_errors
    if message:
        assert report.file_errors == [message]
    text = render_report(report)
    assert text.startswith("Arquivo recusado")


def ole_bytes(*stream_names: str) -> bytes:
    """A stand-in for an OLE2 compound file: magic, header padding, directory names in UTF-16LE."""
    body = b"".join(name.encode("utf-16-le").ljust(64, b"\x00") for name in ("Root Entry", *stream_names))
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + body + b"\x00" * 1024


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("cadastro.csv", b"Nome completo;CPF\nMaria;52998224725\n", MSG_TEXT),
        ("cadastro.txt", "Relação de mototaxistas\r\nMaria – Centro\r\n".encode("cp1252"), MSG_TEXT),
        ("cadastro.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", MSG_PDF),
        ("cadastro.xlsx", random.Random(7).randbytes(5000), MSG_NOT_XLSX),
        ("cadastro.xls", ole_bytes("Workbook", "\x05SummaryInformation"), MSG_XLS),
        ("cadastro.xlsx", ole_bytes("EncryptionInfo", "EncryptedPackage", "\x06DataSpaces"), MSG_PASSWORD),
        ("vazio.xlsx", b"", MSG_EMPTY),
        ("cadastro.xlsx", b"PK\x03\x04" + b"\x00garbage" * 50, MSG_CORRUPT),
    ],
)
def test_bad_files_give_a_file_error_and_no_rows(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert_refused(read(path), message)


def test_password_message_is_the_agreed_sentence() -> None:
    assert MSG_PASSWORD == "A planilha está protegida por senha; salve-a sem senha e tente novamente."


def test_missing_file(tmp_path: Path) -> None:
    report = read(tmp_path / "nao-existe.xlsx")
    assert_refused(report)
    assert "não encontrado" in report.file_errors[0]


def test_folder_instead_of_file(tmp_path: Path) -> None:
    assert_refused(read(tmp_path))


def zip_file(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_ods_file(tmp_path: Path) -> None:
    path = zip_file(tmp_path / "c.ods", {"mimetype": b"application/vnd.oasis.opendocument.spreadsheet"})
    assert_refused(read(path), MSG_ODS)


def test_word_document(tmp_path: Path) -> None:
    path = zip_file(tmp_path / "c.docx", {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w/>"})
    assert_refused(read(path), MSG_NOT_XLSX)


def test_xlsx_with_broken_sheet_xml(tmp_path: Path, make_cpf) -> None:
    good = make_register(tmp_path / "g.xlsx", [good_row(make_cpf(1))])
    bad = tmp_path / "b.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data[: len(data) // 2]
            dst.writestr(item, data)
    assert_refused(read(bad), MSG_CORRUPT)


def test_missing_required_column(tmp_path: Path, make_cpf) -> None:
    headers = [h for h in TEMPLATE_HEADERS if h != "CPF"]
    report = read(make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1))], headers=headers))
    assert_refused(report)
    assert report.file_errors == ['Falta a coluna obrigatória "CPF".']


def test_renamed_columns_are_named_with_a_suggestion(tmp_path: Path, make_cpf) -> None:
    headers = [
        {"CPF": "CPF do titular", "Placa": "Placa do veículo", "Data de nascimento": "Data nascimento"}.get(
            h, h
        )
        for h in TEMPLATE_HEADERS
    ]
    rows = [{"CPF do titular": make_cpf(1), "Nome completo": "Ana Souza", "Serviço": "Motoboy"}]
    report = read(make_register(tmp_path / "r.xlsx", rows, headers=headers))
    assert_refused(report)
    errors = "\n".join(report.file_errors)
    assert 'Falta a coluna "CPF" (obrigatória); a coluna "CPF do titular" (B) parece ser ela' in errors
    assert '"Placa do veículo"' in errors and 'renomeie o cabeçalho para "Placa"' in errors
    assert '"Data nascimento"' in errors


def test_duplicated_header(tmp_path: Path, make_cpf) -> None:
    headers = [*TEMPLATE_HEADERS, "cpf"]
    report = read(make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1))], headers=headers))
    assert_refused(report)
    assert report.file_errors[0].startswith('A coluna "CPF" aparece duas vezes (B e ')


def test_sheet_without_any_known_header(tmp_path: Path) -> None:
    path = make_register(tmp_path / "r.xlsx", [{"x": 1}], headers=["Código", "Descrição"])
    report = read(path)
    assert_refused(report)
    assert "Não foram encontrados os cabeçalhos do modelo" in report.file_errors[0]


def test_workbook_with_only_headers(tmp_path: Path) -> None:
    assert_refused(read(make_register(tmp_path / "r.xlsx", [])), MSG_NO_ROWS)


def test_too_many_rows(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(i)) for i in range(6)])
    report = read(path, max_rows=5)
    assert_refused(report)
    assert "mais de 5 linhas" in report.file_errors[0]


def _patch_sheet(path: Path, patch) -> None:
    buffer = io.BytesIO(path.read_bytes())
    with zipfile.ZipFile(buffer) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = patch(data.decode()).encode()
            dst.writestr(item, data)


def test_dimension_claiming_a_million_rows_is_fast(tmp_path: Path, make_cpf) -> None:
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1)), good_row(make_cpf(2))])

    def claim(xml: str) -> str:
        xml = re.sub(r'<dimension ref="[^"]+"\s*/>', '<dimension ref="A1:XFD1048576"/>', xml)
        far = '<row r="1000000"><c r="A1000000" s="0"/></row>'
        return xml.replace("</sheetData>", far + "</sheetData>")

    _patch_sheet(path, claim)
    start = time.perf_counter()
    report = read(path)
    assert time.perf_counter() - start < wait_seconds(5)  # 5 s on a quiet machine, scaled by its load
    assert [r.line for r in report.rows] == [2, 3] and all(r.ok for r in report.rows)


@pytest.mark.parametrize("dimension", [True, False], ids=["with-dimension", "without-dimension"])
def test_formatting_down_to_a_million_rows_is_fast(tmp_path: Path, make_cpf, dimension: bool) -> None:
    """300,000 formatted empty rows (a whole-column format), then a stray cell at 1,000,000.

    Without a ``<dimension>`` element openpyxl would parse the whole sheet just to
    size it (seconds); the importer skips that pass.
    """
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1))])

    def formatted(xml: str) -> str:
        if not dimension:
            xml = re.sub(r'<dimension ref="[^"]+"\s*/>', "", xml)
        styled = "".join(
            f'<row r="{r}"><c r="A{r}" s="0"/><c r="B{r}" s="0"/></row>' for r in range(3, 300_003)
        )
        far = '<row r="1000000"><c r="A1000000" t="inlineStr"><is><t>perdido</t></is></c></row>'
        return xml.replace("</sheetData>", styled + far + "</sheetData>")

    _patch_sheet(path, formatted)
    start = time.perf_counter()
    report = read(path)
    assert time.perf_counter() - start < wait_seconds(2)
    assert [r.line for r in report.rows] == [2]
    assert any("A leitura parou na linha" in w for w in report.file_warnings)
    assert EMPTY_ROWS_STOP <= 1000


def test_encrypted_workbook_made_by_a_real_tool_if_available(tmp_path: Path, make_cpf) -> None:
    ooxml = pytest.importorskip("msoffcrypto.format.ooxml")
    plain = make_register(tmp_path / "p.xlsx", [good_row(make_cpf(1))])
    encrypted = tmp_path / "senha.xlsx"
    with plain.open("rb") as src, encrypted.open("wb") as dst:
        office = ooxml.OOXMLFile(src)
        office.encrypt("segredo", dst)
    assert_refused(read(encrypted), MSG_PASSWORD)


# ---------------------------------------------------------------------- report


def test_render_report_one_line_per_row(tmp_path: Path, make_cpf) -> None:
    rows = [good_row(make_cpf(1)), good_row(make_cpf(2), cpf="111.111.111-11")]
    text = render_report(read(make_register(tmp_path / "r.xlsx", rows)))
    lines = text.splitlines()
    assert lines[0] == '2 linhas lidas da aba "Planilha1": 1 importada, 1 recusada.'
    assert lines[1] == "Linha 2: importada"
    assert lines[2].startswith("Linha 3: recusada — CPF inválido: todos os dígitos são iguais")


def test_normalise_header() -> None:
    assert normalise_header("Data 1ª habilitação A") == normalise_header("data 1a HABILITACAO a")
    assert normalise_header("E-mail") == normalise_header("email")
    assert normalise_header("Serviço (lista)") == "servico"


# ------------------------------------------------------------------ the fast reader


def _no_openpyxl(monkeypatch: pytest.MonkeyPatch) -> None:
    import motodesk.exports.importer as importer

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a plain register is read by calamine, not openpyxl")

    monkeypatch.setattr(importer, "open_workbook", refuse)


def test_plain_register_is_read_by_calamine_with_its_formulas_refused(
    tmp_path: Path, make_cpf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast reader (python-calamine) sees values; the sheet's XML is scanned for ``<f>``: a formula
    is refused per cell even when the file holds its cached value, an error cell keeps its text."""
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1)), good_row(make_cpf(2)), good_row(make_cpf(3))])
    wb = openpyxl.load_workbook(path)
    ws = wb.active
    ws["C3"] = "=DATE(1985,3,14)"
    ws["O4"] = "#N/A"
    ws["O4"].data_type = "e"
    wb.save(path)

    def cached(xml: str) -> str:  # a cached value, as Excel saves it: calamine would read it as a value
        return xml.replace("<f>DATE(1985,3,14)</f><v></v>", "<f>DATE(1985,3,14)</f><v>31120</v>").replace(
            "<f>DATE(1985,3,14)</f><v />", "<f>DATE(1985,3,14)</f><v>31120</v>")

    _patch_sheet(path, cached)
    _no_openpyxl(monkeypatch)
    report = read(path)
    first, second, third = report.rows
    assert first.ok, first.errors
    assert second.errors == ["Fórmulas não são aceitas (célula C3)."]
    assert any("#N/A" in e for e in third.errors)


def test_calamine_keeps_sheet_lines_and_columns_when_data_starts_away_from_a1(
    tmp_path: Path, make_cpf, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calamine's grid starts at the first used cell: lines and columns must still be the sheet's."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = TEMPLATE_SHEET
    keys = [c.key for c in TEMPLATE_COLUMNS]
    for idx, header in enumerate(TEMPLATE_HEADERS):
        ws.cell(row=3, column=3 + idx, value=header)
    for idx, key in enumerate(keys):
        ws.cell(row=5, column=3 + idx, value=good_row(make_cpf(7)).get(key))
    ws.cell(row=5, column=3, value="=CONCAT(\"a\",\"b\")")
    wb.save(tmp_path / "r.xlsx")
    _no_openpyxl(monkeypatch)
    report = read(tmp_path / "r.xlsx")
    assert report.header_row == 3
    (row,) = report.rows
    assert row.line == 5
    assert row.values["cpf"] == make_cpf(7)
    assert "Fórmulas não são aceitas (célula C5)." in row.errors


def test_a_stray_far_cell_goes_to_the_streaming_reader(tmp_path: Path, make_cpf) -> None:
    """A cell at XFD or below line 60,000 would make calamine's dense grid huge: openpyxl reads it."""
    path = make_register(tmp_path / "r.xlsx", [good_row(make_cpf(1))])
    _patch_sheet(path, lambda xml: xml.replace(
        "</sheetData>", '<row r="9"><c r="XFD9" t="inlineStr"><is><t>longe</t></is></c></row></sheetData>'))
    report = read(path)
    assert [r.line for r in report.rows] == [2] and report.rows[0].ok


def test_a_repeated_cell_is_parsed_once_per_column_and_reads_as_the_first(tmp_path: Path, make_cpf,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Dates, the sex, the service, years and the decree repeat down a register: each distinct cell of
    such a column is parsed once per file, and every line reads what a fresh parse gives, errors and
    warnings included; a unique column (the CPF) is parsed line by line."""
    from motodesk.exports import import_fields

    parsed: list[tuple[str, Any]] = []
    for name, parser in list(import_fields._PARSERS.items()):
        def counting(col: Any, raw: Any, today: date, parser: Any = parser) -> Any:
            parsed.append((col.key, raw))
            return parser(col, raw, today)
        monkeypatch.setitem(import_fields._PARSERS, name, counting)
    rows = [good_row(make_cpf(i), birth_date="31/02/1990" if i % 2 else date(1985, 3, 14),
                     engine_cc=160 if i < 3 else 300, manufacture_year="2022" if i == 5 else 2022)
            for i in range(1, 7)]
    report = read(make_register(tmp_path / "r.xlsx", rows))
    assert [r.values["birth_date"] for r in report.rows] == [None, date(1985, 3, 14)] * 3
    assert all(any("31/02/1990" in e for e in r.errors) for r in report.rows[::2])
    assert [r.values["engine_cc"] for r in report.rows] == [160, 160, 300, 300, 300, 300]
    assert all(any("300 cm³ fora da faixa" in w for w in r.warnings) for r in report.rows[2:])
    assert [r.values["manufacture_year"] for r in report.rows] == [2022] * 6
    keys = [key for key, _raw in parsed]
    assert keys.count("birth_date") == 2 and keys.count("engine_cc") == 2 and keys.count("sex") == 1
    assert keys.count("manufacture_year") == 2  # 2022 and "2022" are different cells
    assert keys.count("cpf") == 6
    parsed.clear()
    read(make_register(tmp_path / "r2.xlsx", rows))  # a new file: nothing remembered from the last
    assert [key for key, _raw in parsed].count("sex") == 1


def test_a_column_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from motodesk.exports import import_fields

    monkeypatch.setattr(import_fields, "COLUMN_MEMO_SIZE", 3)
    col = next(c for c in TEMPLATE_COLUMNS if c.key == "engine_cc")
    calls: list[Any] = []
    inner = import_fields._PARSERS["engine_cc"]
    monkeypatch.setitem(import_fields._PARSERS, "engine_cc", lambda c, raw, t: calls.append(raw) or inner(c, raw, t))
    parse = import_fields.column_parser(col, TODAY)
    for raw in (150, 151, 152, 150, 153, 150, True, 1, 1.0):
        assert parse(col, raw, TODAY) == inner(col, raw, TODAY)
    assert calls == [150, 151, 152, 153, True, 1, 1.0]  # 150, read again, is kept past 153 and True
    calls.clear()
    assert parse(col, 1, date(2027, 1, 4)) == inner(col, 1, date(2027, 1, 4))  # remembered, but for TODAY
    assert calls == [1]
