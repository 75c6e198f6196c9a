"""Import of the secretariat's existing register from an xlsx spreadsheet.

Parsing and validation only: the file in, one :class:`ImportRow` per data line
out, each with its normalised values, its pt_BR errors and warnings.  Persisting
(one transaction, upsert keyed by :attr:`ImportRow.key`, the CPF digits, so a
re-import never duplicates people) is the services layer's job.

A bad file never raises: it gives :attr:`ImportReport.file_errors` and no rows.
That covers files that are not xlsx at all (text, CSV, PDF, random bytes, old
.xls, .ods), password-protected workbooks (an encrypted OOXML file is an OLE2
compound file holding an ``EncryptedPackage`` stream), corrupt zips, sheets
whose columns are missing or renamed (with close matches suggested), sheets with
more than ``max_rows`` data lines.  The sheet is read in openpyxl's read-only
streaming mode, with dimensions recomputed (a file may claim 1,000,000 rows),
and reading stops after :data:`EMPTY_ROWS_STOP` consecutive empty lines, so
formatting that runs to the bottom of the sheet costs nothing.

Hostile files are refused before openpyxl sees them, by the one guarded reader every spreadsheet
read goes through (:mod:`motodesk.exports.spreadsheet`: total and per-member inflated sizes, every
member's compression ratio, the shared strings counted and capped, ``styles.xml`` capped).
A cell longer than :data:`MAX_CELL_CHARS` is refused with its row and column. Only visible
sheets are read (hidden and "very hidden" sheets are ignored, with a warning), and when the
template's sheet is there it is the only one read; external links are never loaded.

Cells are read with ``data_only=False``: a formula is refused, never evaluated
nor trusted ("Fórmulas não são aceitas (célula C5).").

The parts, each in its own module: the template's columns (:mod:`~motodesk.exports.import_columns`),
the template writer (:mod:`~motodesk.exports.import_template`), one cell into its value
(:mod:`~motodesk.exports.import_fields`), the two sheet readers (:mod:`~motodesk.exports.import_sheets`)
and the lines and report (:mod:`~motodesk.exports.import_report`). This module reads the workbook:
the file guarded, the sheet and its header row found, the headers mapped, each line read and checked.
Its names stay the ones the services, the commands and the tests import.
"""

from __future__ import annotations

import difflib
import logging
import os
import zipfile
from collections.abc import Callable, Sequence
from datetime import date, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl.utils import get_column_letter

from motodesk.clock import local_today
from motodesk.exports import import_columns
from motodesk.exports.import_columns import (
    INSTRUCTIONS_SHEET,
    TEMPLATE_COLUMNS,
    TEMPLATE_HEADERS,
    TEMPLATE_SHEET,
    FieldKind,
    TemplateColumn,
    document_columns,
    normalise_header,
    template_columns,
)
from motodesk.exports.import_fields import FieldParser, column_parser, parse_date, parse_field
from motodesk.exports.import_report import ImportReport, ImportRow, render_report
from motodesk.exports.import_sheets import (
    FAST_MAX_COLS,
    FAST_MAX_ROWS,
    FORMULA,
    Book,
    CalamineBook,
    FallBack,
    OpenpyxlBook,
    Sheet,
    sheet_members,
)
from motodesk.exports.import_template import TEMPLATE_VALIDATION_ROWS, write_template
from motodesk.exports.spreadsheet import (
    MAX_COMPRESSION_RATIO,
    MAX_FILE_BYTES,
    MAX_SHEET_INFLATED,
    MAX_TOTAL_INFLATED,
    MSG_CORRUPT,
    MSG_EMPTY,
    MSG_NOT_FOUND,
    MSG_NOT_XLSX,
    MSG_ODS,
    MSG_PASSWORD,
    MSG_PDF,
    MSG_TEXT,
    MSG_XLS,
    MSG_XLSB,
    SpreadsheetRefused,
    check_spreadsheet,
    open_workbook,
)
from motodesk.rules import documents_declared
from motodesk.rules.text import format_int, join_words

__all__ = [
    "EMPTY_ROWS_STOP",
    "FAST_MAX_COLS",
    "FAST_MAX_ROWS",
    "FORMULA",
    "MAX_CELL_CHARS",
    "MAX_COMPRESSION_RATIO",
    "MAX_FILE_BYTES",
    "MAX_MEMBER_UNCOMPRESSED",
    "MAX_TOTAL_UNCOMPRESSED",
    "MSG_CORRUPT",
    "MSG_EMPTY",
    "MSG_NOT_FOUND",
    "MSG_NOT_XLSX",
    "MSG_ODS",
    "MSG_PASSWORD",
    "MSG_PDF",
    "MSG_TEXT",
    "MSG_XLS",
    "MSG_XLSB",
    "FieldKind",
    "ImportReport",
    "ImportRow",
    "INSTRUCTIONS_SHEET",
    "TEMPLATE_COLUMNS",
    "TEMPLATE_HEADERS",
    "TEMPLATE_SHEET",
    "TEMPLATE_VALIDATION_ROWS",
    "TemplateColumn",
    "document_columns",
    "normalise_header",
    "parse_date",
    "parse_field",
    "read_import",
    "render_report",
    "template_columns",
    "write_template",
]

log = logging.getLogger(__name__)

#: Reading stops after this many consecutive empty lines.
EMPTY_ROWS_STOP = 1000
#: Lines searched for the header row (a title may sit above it).
HEADER_SEARCH_ROWS = 10
#: Columns searched for headers.
HEADER_SEARCH_COLS = 256
#: The caps of the guard live with the one guarded reader (motodesk.exports.spreadsheet); these names
#: stay for the callers and tests that read them here.
MAX_MEMBER_UNCOMPRESSED = MAX_SHEET_INFLATED
MAX_TOTAL_UNCOMPRESSED = MAX_TOTAL_INFLATED
#: The longest text a cell may hold (the longest field of the register, the address, has 300).
MAX_CELL_CHARS = 1000
#: What a cell may hold besides a formula (array and data-table formulas come as other objects).
_CELL_VALUES = (str, int, float, Decimal, date, time, bool, timedelta)


def _follow_declarations() -> None:
    """This module's TEMPLATE_COLUMNS and TEMPLATE_HEADERS follow the declarations, as import_columns'."""
    global TEMPLATE_COLUMNS, TEMPLATE_HEADERS
    TEMPLATE_COLUMNS, TEMPLATE_HEADERS = import_columns.TEMPLATE_COLUMNS, import_columns.TEMPLATE_HEADERS


documents_declared.on_change(_follow_declarations)  # after import_columns' own (registered on its import)


# -------------------------------------------------------------------- messages

MSG_NO_SHEET = "A pasta de trabalho não tem nenhuma planilha com dados."
MSG_NO_HEADER = (
    'Não foram encontrados os cabeçalhos do modelo nas {n} primeiras linhas da aba "{sheet}". '
    "A primeira linha deve ter os nomes das colunas do modelo: {headers}."
)
MSG_NO_ROWS = "A planilha não tem nenhuma linha de dados abaixo dos cabeçalhos."
MSG_CELL_TOO_LONG = "Texto longo demais na célula {cell}: {size} caracteres; o limite é {limit}."
MSG_HIDDEN_SHEETS = "{what} {names} {verb} ignorada{s}: só a aba visível do modelo é lida."
MSG_TOO_MANY = (
    "A planilha tem mais de {limit} linhas de dados; divida-a em arquivos menores e importe um de cada vez."
)
MSG_FORMULA = "Fórmulas não são aceitas (célula {cell})."


# ---------------------------------------------------------------------- reading


def read_import(
    path: str | os.PathLike[str],
    *,
    max_rows: int = 50_000,
    max_bytes: int = MAX_FILE_BYTES,
    today: date | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Read and validate the register in ``path``; never raises for a bad file.

    The file passes the one guard (:func:`motodesk.exports.spreadsheet.check_spreadsheet`) first. A
    plain sheet (every cell carries its reference, at most :data:`FAST_MAX_ROWS` rows and
    :data:`FAST_MAX_COLS` columns, no namespace prefixes) is then read by python-calamine, its formulas
    found by scanning the sheet's XML for ``<f>`` (:mod:`motodesk.exports.import_sheets`); any other
    sheet, and any file calamine cannot read, goes through openpyxl's streaming reader
    (:func:`motodesk.exports.spreadsheet.open_workbook`), as before.
    ``progress(n)`` (optional) receives the number of data lines read, every 1,000.
    """
    path = Path(path)
    today = today or local_today()
    try:
        fast = _read_fast(path, max_rows=max_rows, max_bytes=max_bytes, today=today, progress=progress)
        if fast is not None:
            return fast
        with open_workbook(path, max_bytes=max_bytes) as wb:
            return _read_workbook(OpenpyxlBook(wb), max_rows=max_rows, today=today, progress=progress)
    except SpreadsheetRefused as refused:
        if refused.__cause__ is not None:
            log.warning("import: could not open %s", path, exc_info=refused.__cause__)
        return ImportReport(file_errors=[refused.message])
    except Exception:  # noqa: BLE001 - a bad file must become a message, never a crash
        log.warning("import: could not read %s", path, exc_info=True)
        return ImportReport(file_errors=[MSG_CORRUPT])


def _read_fast(path: Path, *, max_rows: int, max_bytes: int, today: date,
               progress: Callable[[int], None] | None) -> ImportReport | None:
    """The register read by python-calamine after the guard; None when openpyxl must read it."""
    problem = check_spreadsheet(path, max_bytes=max_bytes)
    if problem:
        raise SpreadsheetRefused(problem)
    try:
        from python_calamine import CalamineWorkbook
    except ImportError:  # pragma: no cover - the pins install it
        return None
    try:
        with zipfile.ZipFile(path) as zf:
            members = sheet_members(zf)
            if members is None:
                return None
            with CalamineWorkbook.from_path(str(path)) as book:
                return _read_workbook(CalamineBook(book, zf, members), max_rows=max_rows, today=today,
                                      progress=progress)
    except FallBack:
        return None
    except Exception:  # noqa: BLE001 - calamine refused what passed the guard: openpyxl has the last word
        log.info("import: calamine could not read %s; reading it with openpyxl", path, exc_info=True)
        return None


def _read_workbook(
    wb: Book, *, max_rows: int, today: date, progress: Callable[[int], None] | None
) -> ImportReport:
    """The register in ``wb``: its sheet and header row found, the headers mapped, then the lines."""
    # Only a visible sheet is read: rows hidden in a hidden (or "very hidden") sheet never reach
    # the register. The template's sheet, when the workbook has it, is the only one read.
    visible = list(wb.titles)
    hidden = [title for title in wb.hidden if title != INSTRUCTIONS_SHEET]
    titles = [title for title in visible if title != INSTRUCTIONS_SHEET] or visible
    if not titles:
        return ImportReport(file_errors=[MSG_NO_SHEET])
    found = _find_sheet(wb, titles)
    if isinstance(found, ImportReport):
        return found
    ws, header_row, headers = found
    report = ImportReport(sheet_name=ws.title, header_row=header_row)
    if hidden:
        report.file_warnings.append(_hidden_sheets(hidden))
    columns = _map_headers(headers, report)
    if report.file_errors:
        return report
    return _read_lines(ws, header_row, columns, report, max_rows=max_rows, today=today, progress=progress)


def _find_sheet(wb: Book, titles: list[str]) -> tuple[Sheet, int, list[tuple[int, str]]] | ImportReport:
    """``(sheet, header row, headers)`` of the first sheet with the template's headers (the template's
    sheet alone when the workbook has it), or the report that refuses the file."""
    preferred = [t for t in titles if normalise_header(t) == normalise_header(TEMPLATE_SHEET)]
    candidates = [wb.sheet(title) for title in (preferred or titles)]
    for ws in candidates:
        header_row, headers, score = _find_header(ws)
        if score:
            return ws, header_row, headers
    ws = candidates[0]
    expected = join_words(list(import_columns.TEMPLATE_HEADERS))
    return ImportReport(
        file_errors=[MSG_NO_HEADER.format(n=HEADER_SEARCH_ROWS, sheet=ws.title, headers=expected)],
        sheet_name=ws.title,
    )


def _find_header(ws: Sheet) -> tuple[int, list[tuple[int, str]], int]:
    """``(row number, [(column, header text)], matches)`` of the likeliest header row."""
    index = import_columns.HEADER_INDEX
    best: tuple[int, list[tuple[int, str]], int] = (0, [], 0)
    for row_idx, row in ws.rows(1):
        if row_idx > HEADER_SEARCH_ROWS:
            break
        headers = [(i, str(v).strip()) for i, v in enumerate(row[:HEADER_SEARCH_COLS], 1)
                   if v is not None and v is not FORMULA and str(v).strip()]
        score = sum(1 for _, h in headers if normalise_header(h) in index)
        if score > best[2]:
            best = (row_idx, headers, score)
    return best


def _hidden_sheets(hidden: list[str]) -> str:
    plural = len(hidden) > 1
    return MSG_HIDDEN_SHEETS.format(
        what="As abas ocultas" if plural else "A aba oculta", names=join_words([f'"{n}"' for n in hidden]),
        verb="foram" if plural else "foi", s="s" if plural else "")


# ---------------------------------------------------------------------- headers


def _map_headers(headers: list[tuple[int, str]], report: ImportReport) -> dict[int, TemplateColumn]:
    """The sheet's columns that are the template's, by column number; a repeated, missing or
    misspelt column is an error of ``report``, an unknown or absent optional one a warning."""
    index = import_columns.HEADER_INDEX
    columns: dict[int, TemplateColumn] = {}
    seen: dict[str, int] = {}
    unknown: list[tuple[int, str]] = []
    for col_idx, header in headers:
        col = index.get(normalise_header(header))
        if col is None:
            unknown.append((col_idx, header))
        elif col.key in seen:
            report.file_errors.append(
                f'A coluna "{col.header}" aparece duas vezes '
                f"({get_column_letter(seen[col.key])} e {get_column_letter(col_idx)}); deixe só uma."
            )
        else:
            seen[col.key] = col_idx
            columns[col_idx] = col
    _missing_columns(seen, unknown, report)
    return columns


def _missing_columns(seen: dict[str, int], unknown: list[tuple[int, str]], report: ImportReport) -> None:
    """The template's columns the sheet lacks (with the unknown headers that look like them), and the
    sheet's columns the template does not have."""
    suggested: set[int] = set()
    absent_optional: list[str] = []
    for col in import_columns.TEMPLATE_COLUMNS:
        if col.key in seen:
            continue
        close = _close_headers(col, unknown)
        if close:
            suggested.update(i for i, _ in close)
            names = join_words([f'"{h}" ({get_column_letter(i)})' for i, h in close]).replace(" e ", " ou ")
            report.file_errors.append(
                f'Falta a coluna "{col.header}"{" (obrigatória)" if col.required else ""}; '
                f'a coluna {names} parece ser ela: renomeie o cabeçalho para "{col.header}", como no modelo.'
            )
        elif col.required:
            report.file_errors.append(f'Falta a coluna obrigatória "{col.header}".')
        else:
            absent_optional.append(col.header)
    ignored = [f'"{h}" ({get_column_letter(i)})' for i, h in unknown if i not in suggested]
    if ignored:
        plural = len(ignored) > 1
        report.file_warnings.append(
            f"{'As colunas' if plural else 'A coluna'} {join_words(ignored)} não "
            f"{'fazem' if plural else 'faz'} parte do modelo e {'foram ignoradas' if plural else 'foi ignorada'}."
        )
    if absent_optional:
        report.file_warnings.append(
            f"Colunas do modelo ausentes (ficarão em branco): {join_words(absent_optional)}."
        )


def _close_headers(wanted: TemplateColumn, unknown: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """Unknown headers that look like ``wanted``: similar spelling or one containing the other."""
    target = normalise_header(wanted.header)
    found = []
    for col_idx, header in unknown:
        norm = normalise_header(header)
        if not norm:
            continue
        ratio = difflib.SequenceMatcher(None, norm, target).ratio()
        contains = (len(target) >= 3 and target in norm) or (len(norm) >= 3 and norm in target)
        if ratio >= 0.75 or contains:
            found.append((col_idx, header))
    return found


# ------------------------------------------------------------------------ lines


def _read_lines(ws: Sheet, header_row: int, columns: dict[int, TemplateColumn], report: ImportReport, *,
                max_rows: int, today: date, progress: Callable[[int], None] | None) -> ImportReport:
    """The data lines below ``header_row`` into ``report``, until :data:`EMPTY_ROWS_STOP` empty ones."""
    wanted = [(i, col, column_parser(col, today)) for i, col in sorted(columns.items())]
    empty_run = 0
    read = 0
    stopped_at: int | None = None
    positions = [i - 1 for i, _, _ in wanted]
    for line, cells in ws.rows(header_row + 1):
        if all(_blank(cells[i]) for i in positions if i < len(cells)):
            empty_run += 1
            if empty_run >= EMPTY_ROWS_STOP:
                stopped_at = line
                break
            continue
        empty_run = 0
        read += 1
        if read > max_rows:
            return ImportReport(
                file_errors=[MSG_TOO_MANY.format(limit=format_int(max_rows))],
                sheet_name=ws.title,
                header_row=header_row,
            )
        report.rows.append(_read_row(line, cells, wanted, today))
        if progress is not None and read % 1000 == 0:
            progress(read)
    if stopped_at is not None and report.rows:
        report.file_warnings.append(
            f"A leitura parou na linha {format_int(stopped_at)} depois de {format_int(EMPTY_ROWS_STOP)} "
            "linhas vazias seguidas; se houver dados mais abaixo, apague as linhas vazias e importe de novo."
        )
    if not report.rows:
        report.file_errors.append(MSG_NO_ROWS)
        return report
    _flag_duplicates(report.rows)
    if progress is not None:
        progress(read)
    return report


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _read_row(
    line: int, cells: Sequence[Any], wanted: list[tuple[int, TemplateColumn, FieldParser]], today: date
) -> ImportRow:
    """One data line: each wanted column's cell checked (required, no formula, not too long), then
    read by its kind's parser (``parse_field``'s, called directly: once per cell of every line)."""
    row = ImportRow(line=line, values={})
    width = len(cells)
    for col_idx, col, parse in wanted:
        raw = cells[col_idx - 1] if col_idx <= width else None
        if raw is None or raw == "":
            row.values[col.key] = None
            if col.required:
                row.errors.append(f"{col.header}: não informado (obrigatório).")
            continue
        if raw is FORMULA or not isinstance(raw, _CELL_VALUES):
            row.errors.append(MSG_FORMULA.format(cell=f"{get_column_letter(col_idx)}{line}"))
            row.values[col.key] = None
            continue
        if isinstance(raw, str) and len(raw) > MAX_CELL_CHARS:
            row.errors.append(MSG_CELL_TOO_LONG.format(cell=f"{get_column_letter(col_idx)}{line}",
                                                       size=format_int(len(raw)), limit=format_int(MAX_CELL_CHARS)))
            row.values[col.key] = None
            continue
        if isinstance(raw, str) and not raw.strip():
            value = error = warning = None
        else:
            value, error, warning = parse(col, raw, today)
        row.values[col.key] = value
        if error:
            row.errors.append(error)
        elif value is None and col.required:
            row.errors.append(f"{col.header}: não informado (obrigatório).")
        if warning:
            row.warnings.append(warning)
    _cross_checks(row, today)
    return row


def _cross_checks(row: ImportRow, today: date) -> None:
    v = row.values
    if v.get("birth_date") is None and not any(e.startswith("Data de nascimento") for e in row.errors):
        row.warnings.append("Data de nascimento não informada: a idade mínima (Art. 5º, I) ficará pendente.")
    birth, first_a = v.get("birth_date"), v.get("cnh_first_a_date")
    if birth and first_a and first_a < birth:
        row.errors.append("Data 1ª habilitação A: anterior à data de nascimento.")
    if v.get("plate") is None and (v.get("renavam") or v.get("vin")):
        row.warnings.append("Veículo sem placa: RENAVAM e chassi foram informados, mas a placa não.")


def _flag_duplicates(rows: list[ImportRow]) -> None:
    """A CPF may appear once (one permit per holder, Art. 6º, § 2º): refuse every repeat."""
    by_cpf: dict[str, list[ImportRow]] = {}
    by_plate: dict[str, list[ImportRow]] = {}
    for row in rows:
        if row.key:
            by_cpf.setdefault(row.key, []).append(row)
        plate = row.values.get("plate")
        if plate:
            by_plate.setdefault(plate, []).append(row)
    for group in by_cpf.values():
        if len(group) > 1:
            lines = join_words([str(r.line) for r in group])
            for row in group:
                row.errors.append(f"CPF repetido na planilha (linhas {lines}); deixe uma linha por pessoa.")
    for group in by_plate.values():
        if len(group) > 1:
            lines = join_words([str(r.line) for r in group])
            for row in group:
                row.warnings.append(f"Placa repetida na planilha (linhas {lines}).")
