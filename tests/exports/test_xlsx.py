"""The streaming writer: layout, typed cells, formula escaping, atomicity."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests_helpers import names_in  # type: ignore[import-not-found]

from motodesk.exports.xlsx import (
    DATE_FORMAT,
    DATETIME_FORMAT,
    MONEY_FORMAT,
    Column,
    ExportCancelled,
    ExportTargetLocked,
    SheetSpec,
    clean_text,
    escape_formula,
    unescape_text,
    write_workbook,
)
from motodesk.rules.common import PermitState, ServiceType

AT = datetime(2026, 3, 2, 14, 5)

SPEC = SheetSpec(
    title="Teste",
    sheet_name="Teste",
    columns=(
        Column("name", "Nome"),
        Column("born", "Nascimento", "date"),
        Column("seen", "Visto em", "datetime"),
        Column("fee", "Taxa", "money"),
        Column("ufm", "UFM", "decimal"),
        Column("n", "Quantidade", "int"),
        Column("ok", "Ativo", "bool"),
    ),
)


def export(path: Path, rows, spec: SheetSpec = SPEC, **kw) -> int:
    return write_workbook(path, [(spec, rows)], exported_by="ana.clerk", exported_at=AT, **kw)


def names_rows(texts: list[str]) -> list[dict]:
    return [{"name": t} for t in texts]


def only_sheet(path: Path):
    return openpyxl.load_workbook(path).worksheets[0]


# ----------------------------------------------------------------------- layout


def test_title_headers_frozen_pane_and_autofilter(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    rows = [{"name": f"Pessoa {i}", "n": i} for i in range(7)]
    assert export(path, rows) == 7
    ws = only_sheet(path)
    assert ws["A1"].value == "Teste — exportado em 02/03/2026 14:05 por ana.clerk"
    assert ws["A1"].font.bold
    assert [c.value for c in ws[2]] == [
        "Nome",
        "Nascimento",
        "Visto em",
        "Taxa",
        "UFM",
        "Quantidade",
        "Ativo",
    ]
    assert all(c.font.bold for c in ws[2])
    assert ws.freeze_panes == "A3"
    assert ws.auto_filter.ref == "A2:G9"
    assert ws["A3"].value == "Pessoa 0" and ws["A9"].value == "Pessoa 6"
    assert ws.max_row == 9


def test_empty_export_still_has_title_headers_and_filter(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    assert export(path, []) == 0
    ws = only_sheet(path)
    assert ws.auto_filter.ref == "A2:G2"
    assert ws["A2"].value == "Nome"


def test_column_widths_explicit_or_by_kind_and_header(out_dir: Path) -> None:
    spec = SheetSpec(
        "W",
        "W",
        (
            Column("a", "A", width=42),
            Column("b", "Um cabeçalho bem comprido demais"),
            Column("c", "D", "date"),
        ),
    )
    path = out_dir / "w.xlsx"
    export(path, [], spec)
    ws = only_sheet(path)
    assert ws.column_dimensions["A"].width == 42
    assert ws.column_dimensions["B"].width >= len("Um cabeçalho bem comprido demais")
    assert 10 <= ws.column_dimensions["C"].width <= 16


# ----------------------------------------------------------------- typed cells


def test_typed_cells_and_formats(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    row = {
        "name": "Maria",
        "born": date(1985, 3, 14),
        "seen": datetime(2026, 1, 2, 8, 30),
        "fee": Decimal("1234.5"),
        "ufm": Decimal("2.5"),
        "n": 3,
        "ok": True,
    }
    export(path, [row, {"ok": False, "n": 4.0, "fee": 10}])
    ws = only_sheet(path)
    born, seen, fee, ufm, n, ok = (ws.cell(3, i) for i in range(2, 8))
    assert isinstance(born.value, datetime) and born.value.date() == date(1985, 3, 14)
    assert born.is_date and born.number_format == DATE_FORMAT
    assert seen.value == datetime(2026, 1, 2, 8, 30) and seen.number_format == DATETIME_FORMAT
    assert fee.value == 1234.5 and fee.number_format == MONEY_FORMAT
    assert "R$" in fee.number_format and "#,##0.00" in fee.number_format
    assert ufm.value == 2.5 and ufm.data_type == "n"
    assert n.value == 3 and n.data_type == "n" and isinstance(n.value, int)
    assert ok.value == "Sim"
    assert ws.cell(4, 7).value == "Não"
    assert ws.cell(4, 6).value == 4 and isinstance(ws.cell(4, 6).value, int)
    assert ws.cell(4, 4).value == 10 and ws.cell(4, 4).number_format == MONEY_FORMAT
    assert ws.cell(4, 1).value is None and ws.cell(4, 2).value is None  # missing keys: empty cells


def test_enums_show_their_pt_br_label(out_dir: Path) -> None:
    spec = SheetSpec("E", "E", (Column("s", "Serviço"), Column("p", "Situação")))
    path = out_dir / "e.xlsx"
    export(path, [{"s": ServiceType.MOTOFRETE, "p": PermitState.REVOKED}], spec)
    ws = only_sheet(path)
    assert [ws["A3"].value, ws["B3"].value] == ["Moto-frete", "Cassada"]


def test_aware_datetimes_are_shown_in_local_time_without_zone(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    aware = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    export(path, [{"seen": aware, "born": aware}])
    ws = only_sheet(path)
    expected = datetime(2026, 1, 2, 9, 0)  # the secretariat's clock (UTC-3), whatever the workstation's zone
    assert ws["C3"].value == expected
    assert ws["B3"].value == expected


def test_sequence_rows_by_position(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    export(path, [("Ana", date(2000, 1, 1)), ["Bia", None, None, Decimal("5")]])
    ws = only_sheet(path)
    assert ws["A3"].value == "Ana" and ws["B3"].is_date
    assert ws["A4"].value == "Bia" and ws["D4"].value == 5


def test_row_longer_than_columns_is_an_error_and_leaves_no_file(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    with pytest.raises(ValueError):
        export(path, [["a"] * 8])
    assert list(out_dir.iterdir()) == []


def test_non_numeric_values_in_typed_columns_become_text(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    export(path, [{"born": "desconhecida", "fee": "isento", "n": "=1+2"}])
    ws = only_sheet(path)
    assert ws["B3"].value == "desconhecida"
    assert ws["D3"].value == "isento"
    assert ws["F3"].value == "'=1+2" and ws["F3"].data_type == "s"


# ----------------------------------------------------------- formula injection

DANGEROUS = [
    '=HYPERLINK("http://evil","clique")',
    "=1+1",
    "+55 34 99999-0000",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=cmd|' /C calc'!A0",
    "\r=1+1",
    "#N/A",
]


@pytest.mark.parametrize("text", DANGEROUS)
def test_formula_starters_are_escaped_and_never_formulas(out_dir: Path, text: str) -> None:
    path = out_dir / "t.xlsx"
    export(path, [{"name": text}])
    cell = only_sheet(path)["A3"]
    assert cell.data_type == "s"
    assert cell.value == "'" + text.replace("\r", "\n")  # XML parsers read a bare CR as LF
    with zipfile.ZipFile(path) as zf:
        xml = zf.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in xml and "<f " not in xml


def test_hyperlink_name_reads_back_as_text_not_formula(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    export(path, [{"name": '=HYPERLINK("http://evil","clique")'}])
    for data_only in (False, True):
        cell = openpyxl.load_workbook(path, data_only=data_only).worksheets[0]["A3"]
        assert cell.data_type != "f"
        assert cell.value == '\'=HYPERLINK("http://evil","clique")'
    assert unescape_text(cell.value) == '=HYPERLINK("http://evil","clique")'


def test_harmless_text_is_not_escaped(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    texts = ["Maria", "João d'Ávila", " =not a formula", "a=b", "#1", "R$ 5,00"]
    export(path, names_rows(texts))
    ws = only_sheet(path)
    assert [ws.cell(3 + i, 1).value for i in range(len(texts))] == texts


def test_escape_helpers() -> None:
    assert escape_formula("=x") == "'=x"
    assert escape_formula("x") == "x"
    assert escape_formula("") == ""
    assert unescape_text("'=x") == "=x"
    assert unescape_text("'abc") == "'abc"
    assert unescape_text("'") == "'"


# ------------------------------------------------------------------- bad text


def test_illegal_control_characters_are_stripped_not_fatal(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    texts = ["a\x00b\x07c\x1fd", "lone \ud800 surrogate", "ok\ttab\nline", "\x0b=1+1", "\ufffe\uffff"]
    export(path, names_rows(texts))
    ws = only_sheet(path)
    assert ws["A3"].value == "abcd"
    assert ws["A4"].value == "lone  surrogate"
    assert ws["A5"].value == "ok\ttab\nline"
    assert ws["A6"].value == "'=1+1"  # stripped first, then escaped
    assert ws["A7"].value is None


def test_illegal_characters_in_title_user_and_headers(out_dir: Path) -> None:
    spec = SheetSpec("Tí\x01tulo", "Aba\x02", (Column("a", "=Cabeçalho\x03"),))
    path = out_dir / "t.xlsx"
    write_workbook(path, [(spec, [])], exported_by="=eu\x04", exported_at=AT)
    ws = only_sheet(path)
    assert ws["A1"].value == "Título — exportado em 02/03/2026 14:05 por =eu"
    assert ws["A2"].value == "'=Cabeçalho"
    assert ws.title == "Aba"


def test_text_longer_than_excel_limit_is_cut(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    export(path, [{"name": "x" * 40_000}])
    value = only_sheet(path)["A3"].value
    assert len(value) <= 32_767 and value.endswith("…")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(max_size=30), min_size=1, max_size=20))
def test_any_text_round_trips_as_clean_text(tmp_path: Path, texts: list[str]) -> None:
    path = tmp_path / "h.xlsx"
    export(path, names_rows(texts))
    ws = only_sheet(path)
    for i, text in enumerate(texts):
        cell = ws.cell(3 + i, 1)
        expected = clean_text(text) or None
        assert cell.data_type != "f"
        # XML readers normalise a lone CR into LF, as Excel does
        got = cell.value.replace("\r\n", "\n") if isinstance(cell.value, str) else cell.value
        want = expected.replace("\r\n", "\n").replace("\r", "\n") if expected else None
        assert (got.replace("\r", "\n") if got else None) == want


# ------------------------------------------------------------ several sheets


def test_several_sheets_and_awkward_sheet_names(out_dir: Path) -> None:
    a = SheetSpec("A", "Estudo de vagas – Art. 39: população/ano [IBGE]", (Column("x", "X"),))
    b = SheetSpec("B", "Estudo de vagas – Art. 39: população/ano [IBGE]", (Column("y", "Y", "int"),))
    path = out_dir / "t.xlsx"
    n = write_workbook(path, [(a, [{"x": "1"}]), (b, [{"y": 2}, {"y": 3}])], exported_by="u", exported_at=AT)
    assert n == 3
    wb = openpyxl.load_workbook(path)
    first, second = wb.worksheets
    assert len(first.title) <= 31 and not set("[]:*?/\\") & set(first.title)
    assert first.title != second.title
    assert second.auto_filter.ref == "A2:A4"
    assert second["A4"].value == 3


def test_no_sheets_is_an_error(out_dir: Path) -> None:
    with pytest.raises(ValueError):
        write_workbook(out_dir / "t.xlsx", [], exported_by="u", exported_at=AT)
    assert list(out_dir.iterdir()) == []


# -------------------------------------------------- progress, cancel, atomicity


def many(n: int) -> Iterator[dict]:
    for i in range(n):
        yield {"name": f"Pessoa {i}", "born": date(1990, 1, 1) + timedelta(days=i % 9000), "n": i}


def test_progress_every_thousand_rows_and_at_the_end(out_dir: Path) -> None:
    seen: list[int] = []
    export(out_dir / "t.xlsx", many(3500), progress=seen.append)
    assert seen == [1000, 2000, 3000, 3500]


def test_progress_moves_for_small_known_totals(out_dir: Path) -> None:
    seen: list[int] = []
    export(out_dir / "t.xlsx", many(200), progress=seen.append, total=200)
    assert seen[0] == 2 and seen[-1] == 200 and len(seen) >= 100


def test_cancel_after_5000_rows_leaves_nothing(out_dir: Path) -> None:
    path = out_dir / "cadastro.xlsx"
    written: list[int] = []
    with pytest.raises(ExportCancelled):
        export(
            path, many(20_000), progress=written.append, cancel=lambda: bool(written) and written[-1] >= 5000
        )
    assert written[-1] == 5000
    assert not path.exists()
    assert list(out_dir.iterdir()) == []


def test_cancel_keeps_the_previous_file_untouched(out_dir: Path) -> None:
    path = out_dir / "cadastro.xlsx"
    path.write_bytes(b"previous export")
    with pytest.raises(ExportCancelled):
        export(path, many(3000), cancel=lambda: True)
    assert path.read_bytes() == b"previous export"
    assert [p.name for p in out_dir.iterdir()] == ["cadastro.xlsx"]


def test_exception_from_rows_leaves_no_file(out_dir: Path) -> None:
    gone = RuntimeError("database went away")

    def failing() -> Iterator[dict]:
        yield from many(2500)
        raise gone

    path = out_dir / "t.xlsx"
    with pytest.raises(RuntimeError) as raised:
        export(path, failing())
    assert raised.value is gone, "the rows' own error reaches the caller"
    assert list(out_dir.iterdir()) == []


def test_exception_in_a_later_sheet_leaves_no_file(out_dir: Path) -> None:
    def failing() -> Iterator[dict]:
        raise OSError("disk")
        yield {}  # pragma: no cover

    path = out_dir / "t.xlsx"
    with pytest.raises(OSError):
        write_workbook(path, [(SPEC, many(10)), (SPEC, failing())], exported_by="u", exported_at=AT)
    assert list(out_dir.iterdir()) == []


def test_bad_row_type_is_rejected(out_dir: Path) -> None:
    with pytest.raises(TypeError):
        export(out_dir / "t.xlsx", ["not a row"])
    assert list(out_dir.iterdir()) == []


def test_export_overwrites_atomically(out_dir: Path) -> None:
    path = out_dir / "t.xlsx"
    export(path, many(5))
    export(path, many(8))
    assert only_sheet(path).max_row == 10
    assert [p.name for p in out_dir.iterdir()] == ["t.xlsx"]


def test_rows_are_consumed_lazily(out_dir: Path) -> None:
    """The iterable is streamed: rows are pulled one at a time while writing."""
    pulled: list[int] = []

    def rows() -> Iterator[dict]:
        for i in range(3000):
            pulled.append(i)
            yield {"name": str(i)}

    progress_at: list[int] = []
    export(out_dir / "t.xlsx", rows(), progress=lambda n: progress_at.append(len(pulled)))
    assert progress_at[0] == 1000  # only 1000 rows had been pulled at the first report


def test_locked_target_gives_a_pt_br_error_and_no_temp_file(out_dir: Path, monkeypatch) -> None:
    def locked(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", locked)
    path = out_dir / "aberto.xlsx"
    with pytest.raises(ExportTargetLocked) as locked:
        export(path, many(3))
    assert locked.value.path == path and isinstance(locked.value.__cause__, PermissionError)
    names_in(locked.value, path.name)  # the sentence itself is the class's, in one place
    assert list(out_dir.iterdir()) == []
