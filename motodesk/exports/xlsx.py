"""Streaming xlsx writer: declared columns and plain rows in, one workbook file out.

Every sheet written here has the same shape, so a clerk recognises any MotoDesk
spreadsheet at a glance:

- row 1: the title, "<título> — exportado em dd/mm/aaaa hh:mm por <usuário>";
- row 2: the pt_BR headers, bold, with an autofilter over headers and data;
- row 3 on: the data, with panes frozen below the headers (``A3``).

Cells are typed: dates are real dates shown ``DD/MM/YYYY``, datetimes
``DD/MM/YYYY HH:MM``, money ``R$ #,##0.00``, integers are numbers and booleans read
"Sim"/"Não".

Formula injection (CSV/xlsx injection): a text cell that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is written with a leading apostrophe
(``'=HYPERLINK(...)``) as an explicit string cell (``t="inlineStr"``).  The cell is
never a formula: Excel and LibreOffice show the text itself with the visible
apostrophe that tells the reader it was neutralised, and the value stays inert
when copied to CSV or edited and confirmed in a spreadsheet program.  Text that
happens to equal an Excel error literal (``#N/A``, ``#REF!``...) is escaped the
same way so it stays text.  MotoDesk's own importer removes that apostrophe again
(see :func:`unescape_text`).

Characters XML 1.0 forbids (control characters, lone surrogates) are removed
instead of crashing the export; text longer than Excel's 32,767 characters per
cell is cut with an ellipsis.

The file appears atomically: the workbook is written to a hidden temporary file
beside the target and moved over it with :func:`os.replace` only when complete.
It holds names and CPFs, so it is created readable by its owner only (mode 0600, like
backups, whatever the umask): :func:`save_private`.
Cancellation or any error removes the temporary file and leaves the target as it
was.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

# openpyxl (with numpy and PIL behind it) is imported by the functions that write, not here: the
# services that import this module are on the start-up path (issue 20, target 4).
if TYPE_CHECKING:
    from openpyxl import Workbook

from motodesk.clock import LOCAL_TZ

__all__ = [
    "Column",
    "ColumnKind",
    "ExportCancelled",
    "ExportTargetLocked",
    "SheetSpec",
    "DATE_FORMAT",
    "DATETIME_FORMAT",
    "MONEY_FORMAT",
    "DECIMAL_FORMAT",
    "PROGRESS_EVERY",
    "clean_text",
    "escape_formula",
    "save_private",
    "unescape_text",
    "title_line",
    "write_workbook",
]

ColumnKind = Literal["text", "date", "datetime", "int", "decimal", "money", "bool"]

DATE_FORMAT = "DD/MM/YYYY"
DATETIME_FORMAT = "DD/MM/YYYY HH:MM"
MONEY_FORMAT = '"R$" #,##0.00'
DECIMAL_FORMAT = "#,##0.00"
PROGRESS_EVERY = 1000

#: Excel's limit of characters in one cell.
MAX_CELL_CHARS = 32_767
#: Excel's limit of characters in a sheet name, and the characters it forbids.
MAX_SHEET_NAME = 31
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")

# Code points XML 1.0 cannot carry: C0 controls except tab, LF and CR; lone
# surrogates (they cannot even be encoded as UTF-8); U+FFFE and U+FFFF.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# First characters that make a spreadsheet program read a cell as a formula
# (OWASP "CSV injection"); tab and CR hide a formula behind leading blanks.
_FORMULA_STARTS = frozenset("=+-@\t\r")
# openpyxl.cell.cell.ERROR_CODES, spelled out so this module does not import openpyxl
# (tests/test_startup_imports.py checks they still agree).
_ERROR_LITERALS = frozenset(("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"))
_WIDTH_BY_KIND: dict[str, float] = {
    "text": 18,
    "date": 12,
    "datetime": 17,
    "int": 10,
    "decimal": 12,
    "money": 14,
    "bool": 8,
}
_MAX_AUTO_WIDTH = 60.0


class ExportCancelled(Exception):
    """The user cancelled the export; no file was written."""

    def __init__(self, message: str = "Exportação cancelada; nenhum arquivo foi gravado.") -> None:
        super().__init__(message)


class ExportTargetLocked(PermissionError):
    """The target file is open in another program (Excel locks it on Windows)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f'Não foi possível gravar "{path.name}": o arquivo está aberto em outro programa '
            "(talvez o Excel) ou a pasta não permite gravação. Feche-o e tente de novo."
        )
        self.path = path


@dataclass(frozen=True)
class Column:
    """One declared column of an exported sheet.

    ``key`` names the value in a mapping row (a sequence row is read by position);
    ``header`` is the pt_BR header; ``kind`` decides the cell type and format;
    ``width`` overrides the automatic width; ``transform`` (optional) turns the raw
    value into the shown one before typing — e.g. CPF digits into ``123.456.789-09``
    or into the masked ``***.456.789-**`` of a published file.
    """

    key: str
    header: str
    kind: ColumnKind = "text"
    width: float | None = None
    transform: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SheetSpec:
    """A sheet: title of row 1, the sheet's tab name and its columns."""

    title: str
    sheet_name: str
    columns: Sequence[Column]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.columns)

    @property
    def headers(self) -> tuple[str, ...]:
        return tuple(c.header for c in self.columns)


# --------------------------------------------------------------------------- text


def escape_formula(text: str) -> str:
    """Neutralise a text that a spreadsheet would evaluate: prefix an apostrophe."""
    if text and (text[0] in _FORMULA_STARTS or text in _ERROR_LITERALS):
        return "'" + text
    return text


def unescape_text(text: str) -> str:
    """Undo :func:`escape_formula` (for MotoDesk's own importer)."""
    if len(text) > 1 and text[0] == "'" and (text[1] in _FORMULA_STARTS or text[1:] in _ERROR_LITERALS):
        return text[1:]
    return text


def clean_text(text: str) -> str:
    """A string safe for a cell: legal XML, at most 32,767 characters, never a formula."""
    if _ILLEGAL_XML.search(text):
        text = _ILLEGAL_XML.sub("", text)
    if len(text) > MAX_CELL_CHARS - 1:  # room for the apostrophe
        text = text[: MAX_CELL_CHARS - 2] + "…"
    if text and (text[0] in _FORMULA_STARTS or text in _ERROR_LITERALS):
        return "'" + text
    return text


def _as_text(value: Any) -> str:
    """The shown text of a non-string value: enums show their pt_BR label."""
    if isinstance(value, Enum):
        label = getattr(value, "label", None)
        if isinstance(label, str):
            return label
        value = value.value
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, datetime):
        return _wall(value).strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    return str(value)


def _wall(value: datetime) -> datetime:
    return value.astimezone(LOCAL_TZ) if value.tzinfo is not None else value


def title_line(title: str, exported_by: str, exported_at: datetime) -> str:
    return f"{title} — exportado em {_wall(exported_at):%d/%m/%Y %H:%M} por {exported_by}"


def _sheet_name(name: str, taken: set[str]) -> str:
    """Excel's rules for tab names: no []:*?/\\, at most 31 characters, unique."""
    base = _SHEET_NAME_FORBIDDEN.sub("-", _ILLEGAL_XML.sub("", name)).strip("'") or "Planilha"
    base = base[:MAX_SHEET_NAME]
    candidate, n = base, 2
    while candidate.casefold() in taken:
        suffix = f" ({n})"
        candidate = base[: MAX_SHEET_NAME - len(suffix)] + suffix
        n += 1
    taken.add(candidate.casefold())
    return candidate


# ------------------------------------------------------------------ cell converters
#
# One converter per column, chosen once per sheet: the per-cell work is one
# function call and, for the common case, one ``type(value) is ...`` test.  Styled
# values (dates, money) reuse one cell object per column whose style was set once.


def _naive(value: datetime) -> datetime:
    """Excel has no time zones: show an aware datetime on the secretariat's clock."""
    if value.tzinfo is not None:
        return value.astimezone(LOCAL_TZ).replace(tzinfo=None)
    return value


def _text_converter(transform: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    illegal = _ILLEGAL_XML.search
    starts = _FORMULA_STARTS
    errors = _ERROR_LITERALS
    limit = MAX_CELL_CHARS - 1

    labels: dict[Enum, str] = {}  # enum members repeat on every row: look their label up once

    def convert(value: Any) -> Any:
        if transform is not None:
            value = transform(value)
        if value is None:
            return None
        if type(value) is not str:
            if isinstance(value, Enum):
                label = labels.get(value)
                if label is None:
                    label = labels[value] = _as_text(value)
                value = label
            else:
                value = _as_text(value)
        if not value:
            return None
        if illegal(value) is not None or len(value) > limit:
            return clean_text(value)
        if value[0] in starts or (value[0] == "#" and value in errors):
            return "'" + value
        return value

    return convert


def _date_cell(value: Any) -> date | None:
    """A date column's cell value: a date as it is, a datetime on the secretariat's clock; None: not a date."""
    if type(value) is date:
        return value
    if isinstance(value, datetime):
        return _naive(value)
    return value if isinstance(value, date) else None


def _datetime_cell(value: Any) -> datetime | None:
    """A date-and-time column's cell value: a date at midnight; None: not a date."""
    if isinstance(value, datetime):
        return _naive(value)
    return datetime.combine(value, time()) if isinstance(value, date) else None


def _styled_converter(
    ws: Any,
    kind: str,
    number_format: str,
    transform: Callable[[Any], Any] | None,
) -> Callable[[Any], Any]:
    from openpyxl.cell.cell import WriteOnlyCell

    cell = WriteOnlyCell(ws)
    cell.number_format = number_format
    text = _text_converter(None)

    if kind in ("date", "datetime"):
        as_cell = _date_cell if kind == "date" else _datetime_cell

        def convert(value: Any) -> Any:
            if transform is not None:
                value = transform(value)
            day = as_cell(value)
            if day is None:
                return None if value is None or value == "" else text(value)
            cell._value = day
            cell.data_type = "d"
            return cell

    else:  # money, decimal

        def convert(value: Any) -> Any:
            if transform is not None:
                value = transform(value)
            t = type(value)
            if t is Decimal or t is float or t is int:
                if t is not int and not (value == value and abs(value) != math.inf):
                    return None  # NaN / infinity have no cell value
                cell._value = value
            elif value is None or value == "":
                return None
            elif isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
                cell._value = value
            else:
                return text(value)
            cell.data_type = "n"
            return cell

    return convert


def _int_converter(transform: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    text = _text_converter(None)

    def convert(value: Any) -> Any:
        if transform is not None:
            value = transform(value)
        if type(value) is int or value is None:
            return value
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return int(value)
        if isinstance(value, (float, Decimal)) and value == value and abs(value) != math.inf:
            return int(value) if value == int(value) else value
        if value == "":
            return None
        return text(value)

    return convert


def _bool_converter(transform: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if transform is not None:
            value = transform(value)
        if value is None or value == "":
            return None
        return "Sim" if value else "Não"

    return convert


def _converter(ws: Any, column: Column) -> Callable[[Any], Any]:
    kind = column.kind
    if kind == "text":
        return _text_converter(column.transform)
    if kind == "date":
        return _styled_converter(ws, "date", DATE_FORMAT, column.transform)
    if kind == "datetime":
        return _styled_converter(ws, "datetime", DATETIME_FORMAT, column.transform)
    if kind == "money":
        return _styled_converter(ws, "money", MONEY_FORMAT, column.transform)
    if kind == "decimal":
        return _styled_converter(ws, "decimal", DECIMAL_FORMAT, column.transform)
    if kind == "int":
        return _int_converter(column.transform)
    if kind == "bool":
        return _bool_converter(column.transform)
    raise ValueError(f"unknown column kind {kind!r} in column {column.key!r}")


def _width(column: Column) -> float:
    if column.width is not None:
        return column.width
    return min(_MAX_AUTO_WIDTH, max(_WIDTH_BY_KIND.get(column.kind, 14), len(column.header) + 4))


# ------------------------------------------------------------------------ writing


class _Progress:
    """Rows written so far across the sheets, reported to ``progress`` and checked against ``cancel``
    every ``every`` rows."""

    def __init__(self, every: int, progress: Callable[[int], None] | None,
                 cancel: Callable[[], bool] | None) -> None:
        self.every, self.progress, self.cancel = every, progress, cancel
        self.written = 0
        self.next_report = every

    def row(self) -> None:
        """One more data row written; report and check for cancellation when it is time."""
        self.written += 1
        if self.written >= self.next_report:
            self.next_report += self.every
            if self.progress is not None:
                self.progress(self.written)
            self.check_cancel()

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel():
            raise ExportCancelled()


def _write_heading(ws: Any, spec: SheetSpec, columns: list[Column], exported_by: str,
                   exported_at: datetime) -> None:
    """A sheet's column widths, frozen panes, title line (row 1) and headers (row 2)."""
    from openpyxl.cell.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    for idx, column in enumerate(columns, 1):
        ws.column_dimensions[get_column_letter(idx)].width = _width(column)
    ws.freeze_panes = "A3"

    title = WriteOnlyCell(ws, clean_text(title_line(spec.title, exported_by, exported_at)))
    title.font = Font(bold=True, size=13)
    ws.append([title])
    header_font = Font(bold=True)
    header_alignment = Alignment(vertical="center", wrap_text=True)
    header_cells = []
    for column in columns:
        cell = WriteOnlyCell(ws, clean_text(column.header))
        cell.font = header_font
        cell.alignment = header_alignment
        header_cells.append(cell)
    ws.append(header_cells)


def _write_rows(ws: Any, spec: SheetSpec, columns: list[Column],
                rows: Iterable[Mapping[str, Any] | Sequence[Any]], counter: _Progress) -> int:
    """A sheet's data rows, each a mapping read by the columns' keys or a sequence read by position;
    the number written."""
    ncols = len(columns)
    converters = [_converter(ws, column) for column in columns]
    keys = [column.key for column in columns]
    append = ws.append
    sheet_rows = 0
    for row in rows:
        if isinstance(row, Mapping):
            get = row.get
            append([conv(get(key)) for conv, key in zip(converters, keys, strict=True)])
        elif isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise TypeError(f"a row must be a mapping or a sequence, not {type(row).__name__}")
        else:
            if len(row) > ncols:
                raise ValueError(
                    f"row {sheet_rows + 1} of sheet {spec.sheet_name!r} has {len(row)} values "
                    f"for {ncols} columns"
                )
            append([conv(value) for conv, value in zip(converters, row, strict=False)])
        sheet_rows += 1
        counter.row()
    return sheet_rows


def write_workbook(
    path: str | os.PathLike[str],
    sheets: Sequence[tuple[SheetSpec, Iterable[Mapping[str, Any] | Sequence[Any]]]],
    *,
    exported_by: str,
    exported_at: datetime,
    progress: Callable[[int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    total: int | None = None,
) -> int:
    """Write ``sheets`` to the xlsx file ``path``; return the number of data rows.

    Rows are consumed lazily and streamed to disk (openpyxl write-only mode), so
    memory does not grow with the number of rows.  A row is a mapping read by the
    columns' keys (missing keys give empty cells) or a sequence read by position.

    ``progress(n)`` receives the number of data rows written so far, every
    :data:`PROGRESS_EVERY` rows (more often when ``total`` is small, so a progress
    bar still moves) and once at the end.  ``cancel()`` is asked at the same
    moments; when it answers ``True`` the export stops and :class:`ExportCancelled`
    is raised.  On cancellation or on any exception (including one raised by the
    rows iterable) no file is left at ``path`` and no temporary file beside it.
    """
    target = Path(path)
    if not sheets:
        raise ValueError("write_workbook needs at least one sheet")
    every = PROGRESS_EVERY
    if total is not None and total > 0:
        every = max(1, min(PROGRESS_EVERY, total // 100))

    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    # A hidden sibling: same file system, so os.replace is atomic; owner-only (see save_private).
    tmp = target.with_name(f".{target.stem[:40]}.{secrets.token_hex(6)}.xlsx.tmp")
    wb = Workbook(write_only=True)
    counter = _Progress(every, progress, cancel)
    try:
        taken: set[str] = set()
        for spec, rows in sheets:
            ws = wb.create_sheet(_sheet_name(spec.sheet_name, taken))
            columns = list(spec.columns)
            if not columns:
                raise ValueError(f"sheet {spec.sheet_name!r} has no columns")
            _write_heading(ws, spec, columns, exported_by, exported_at)
            sheet_rows = _write_rows(ws, spec, columns, rows, counter)
            # Row 1 is the title, row 2 the headers: the filter covers headers and data.
            ws.auto_filter.ref = f"A2:{get_column_letter(len(columns))}{2 + sheet_rows}"

        counter.check_cancel()
        author = _ILLEGAL_XML.sub("", exported_by)[:255]
        wb.properties.creator = author
        wb.properties.lastModifiedBy = author
        wb.properties.title = _ILLEGAL_XML.sub("", sheets[0][0].title)[:255]
        save_private(wb, tmp, target)
    except BaseException:
        _discard(wb, tmp)
        raise
    if progress is not None:
        progress(counter.written)
    return counter.written


#: Spreadsheets hold names and CPFs: readable and writable by their owner only, like backups.
PRIVATE_MODE = 0o600


def save_private(wb: Workbook, tmp: Path, target: Path) -> None:
    """Save ``wb`` to ``tmp`` created with mode 0600 whatever the umask, then move it over ``target``.

    Every spreadsheet MotoDesk writes with people's data goes through here. openpyxl opens ``tmp``
    for writing and truncates it, which keeps the mode; :func:`os.replace` keeps it too. Raises
    :class:`ExportTargetLocked` when the target cannot be replaced (open in Excel).
    """
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), PRIVATE_MODE)
    try:
        if hasattr(os, "fchmod"):  # O_CREAT's mode passes through the umask, which may only take bits away
            os.fchmod(fd, PRIVATE_MODE)
    finally:
        os.close(fd)
    wb.save(tmp)
    try:
        os.replace(tmp, target)
    except PermissionError as exc:
        raise ExportTargetLocked(target) from exc


def _discard(wb: Workbook, tmp: Path) -> None:
    """Remove the partial file and openpyxl's per-sheet temporary streams."""
    with contextlib.suppress(OSError):
        tmp.unlink()
    for ws in getattr(wb, "_sheets", []):
        writer = getattr(ws, "_writer", None)
        if writer is None:
            continue
        # Finish the row generator while its stream is still open, or the garbage
        # collector finishes it later against a closed file.
        rows = getattr(ws, "_rows", None)
        if rows is not None:
            with contextlib.suppress(Exception):
                rows.close()
        with contextlib.suppress(Exception):
            writer.close()
        with contextlib.suppress(Exception):
            writer.cleanup()
