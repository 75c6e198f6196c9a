"""The two readers of a register's sheets, behind one shape: a book's visible ``titles`` and ``hidden``
ones, and each sheet's ``rows(min_row)`` as ``(line, values)``, values from column A, a formula cell
as :data:`FORMULA`.

:class:`CalamineBook` is python-calamine's (fast; it sees values only, so the sheet's XML is scanned
for ``<f>`` and error cells, :func:`_scan_sheet`); :class:`OpenpyxlBook` wraps the workbook that the
one guarded reader (:func:`motodesk.exports.spreadsheet.open_workbook`) opened in openpyxl's
streaming mode. A sheet calamine should not read raises :class:`FallBack`. What is read, and how, is
:mod:`motodesk.exports.importer`'s.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from motodesk.exports.spreadsheet import visible_sheets


class Sheet(Protocol):
    title: str

    def rows(self, min_row: int = 1) -> Iterator[tuple[int, list[Any]]]: ...


class Book(Protocol):
    titles: list[str]
    hidden: list[str]

    def sheet(self, title: str) -> Sheet: ...


class _FormulaCell:
    """Marks a cell that holds a formula (refused, never evaluated nor trusted)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<formula>"


FORMULA = _FormulaCell()

#: The fast reader's limits: calamine holds the sheet as a dense grid (rows x columns of 32 bytes), so
#: a sheet with a stray cell far away goes to openpyxl's streaming reader instead.
FAST_MAX_ROWS = 59_999
FAST_MAX_COLS = 40

_F_TAG = re.compile(rb"<f[\s/>]")
_CELL_REF = re.compile(rb'<c r="([A-Z]{1,3})([0-9]{1,7})"')
_WIDE_CELL = re.compile(rb'<c r="([A-Z]{2,3})[0-9]')
_FAR_CELL = re.compile(rb'<c r="[A-Z]{1,3}(?:[0-9]{6,}|[6-9][0-9]{4})"')
_ERROR_CELL = re.compile(rb'<c r="([A-Z]{1,3})([0-9]{1,7})"[^>]*?\st="e"[^>]*>(?:<f[^>]*/>|<f[^>]*>[^<]*</f>)?'
                         rb"<v>([^<]*)</v>")
_PREFIXED = re.compile(rb"<[A-Za-z_][\w.\-]*:(?:c|row|sheetData|f)[\s/>]")
_SCAN_CHUNK = 1 << 20
_SCAN_TAIL = 512


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


@dataclass
class _SheetScan:
    """What the XML of one sheet says beyond its values: where its formulas and error cells are."""

    formulas: dict[int, list[int]] = field(default_factory=dict)  # line -> columns (1-based)
    errors: dict[tuple[int, int], str] = field(default_factory=dict)  # (line, column) -> "#N/A"...


def _scan_sheet(member: IO[bytes]) -> _SheetScan | None:
    """Scan a sheet's XML in chunks: its formula cells and error cells, or None when calamine should
    not read it (a cell without its reference, namespace prefixes, a stray cell far away)."""
    scan = _SheetScan()
    seen: set[tuple[int, int]] = set()
    tail = b""
    while True:
        chunk = member.read(_SCAN_CHUNK)
        if not chunk:
            break
        buf = tail + chunk
        head = len(tail)
        # Counted on the new bytes only (plus the few before them a pattern may start in).
        counted = buf[max(0, head - 8):]
        if counted.count(b"<c ") + counted.count(b"<c>") != counted.count(b'<c r="'):
            return None
        if _PREFIXED.search(buf) or _FAR_CELL.search(buf):
            return None
        for letters in set(_WIDE_CELL.findall(buf)):
            if _column_number(letters) > FAST_MAX_COLS:
                return None
        for m in _F_TAG.finditer(buf):
            start = buf.rfind(b'<c r="', 0, m.start())
            ref = _CELL_REF.match(buf, start) if start >= 0 else None
            if ref is None:
                return None
            where = (int(ref.group(2)), _column_number(ref.group(1)))
            if where not in seen:
                seen.add(where)
                scan.formulas.setdefault(where[0], []).append(where[1])
        if b't="e"' in buf:
            for m in _ERROR_CELL.finditer(buf):
                where = (int(m.group(2)), _column_number(m.group(1)))
                scan.errors[where] = m.group(3).decode("utf-8", "replace")
        tail = buf[-_SCAN_TAIL:]
    return scan


class _CalamineSheet:
    """A sheet read by python-calamine: ``rows`` yields ``(line, values)``, values from column A."""

    def __init__(self, book: Any, title: str, scan: _SheetScan) -> None:
        self.book = book
        self.title = title
        self.scan = scan
        self._sheet: Any = None

    def rows(self, min_row: int = 1) -> Iterator[tuple[int, list[Any]]]:
        if self._sheet is None:
            self._sheet = self.book.get_sheet_by_name(self.title)
        sheet = self._sheet
        start = sheet.start
        if start is None:
            return
        pad = [None] * start[1]
        formulas, errors = self.scan.formulas, self.scan.errors
        # calamine yields every row from the sheet's first (row 1), each from the first used column.
        for index, values in enumerate(sheet.iter_rows()):
            line = index + 1
            if line < min_row:
                continue
            if pad:
                values = pad + values
            marked = formulas.get(line)
            if marked:
                for col in marked:
                    if col > len(values):
                        values += [None] * (col - len(values))
                    values[col - 1] = FORMULA
            if errors:
                for (row, col), text in errors.items():
                    if row == line and col <= len(values) and values[col - 1] is not FORMULA:
                        values[col - 1] = text
            yield line, values


class _OpenpyxlSheet:
    """A sheet read by openpyxl's streaming reader, as the same ``(line, values)`` rows."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.title = ws.title

    def rows(self, min_row: int = 1) -> Iterator[tuple[int, list[Any]]]:
        for line, cells in enumerate(self.ws.iter_rows(min_row=min_row), min_row):
            yield line, [FORMULA if getattr(c, "data_type", None) == "f" else getattr(c, "value", None)
                         for c in cells]


class OpenpyxlBook:
    def __init__(self, wb: Any) -> None:
        visible = visible_sheets(wb)
        for ws in visible:
            ws.reset_dimensions()  # never trust the stored dimension (it may claim 1,000,000 rows)
        self._sheets = {ws.title: _OpenpyxlSheet(ws) for ws in visible}
        self.titles = [ws.title for ws in visible]
        self.hidden = [ws.title for ws in wb.worksheets if ws not in visible]

    def sheet(self, title: str) -> _OpenpyxlSheet:
        return self._sheets[title]


def sheet_members(zf: zipfile.ZipFile) -> dict[str, str] | None:
    """Sheet name -> its XML member, from the workbook part and its relationships (None if unusual)."""
    from openpyxl.xml.functions import fromstring  # defusedxml's when installed, as openpyxl's own

    rel_ns = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
    office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    main = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    book = "xl/workbook.xml"
    root = fromstring(zf.read("_rels/.rels"))
    targets = [r.get("Target", "") for r in root.iter(rel_ns) if r.get("Type", "").endswith("/officeDocument")]
    if targets != ["xl/workbook.xml"] and targets != ["/xl/workbook.xml"]:
        return None
    rels = {r.get("Id"): r.get("Target", "") for r in fromstring(zf.read("xl/_rels/workbook.xml.rels")).iter(rel_ns)}
    found: dict[str, str] = {}
    for sheet in fromstring(zf.read(book)).iter(f"{main}sheet"):
        target = rels.get(sheet.get(f"{{{office}}}id"))
        if not target:
            return None
        member = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        found[str(sheet.get("name"))] = member
    return found


class CalamineBook:
    def __init__(self, book: Any, zf: zipfile.ZipFile, members: dict[str, str]) -> None:
        self.book, self.zf, self.members = book, zf, members
        meta = [m for m in book.sheets_metadata if str(m.typ).endswith("WorkSheet")]
        self.titles = [m.name for m in meta if str(m.visible).endswith(".Visible")]
        self.hidden = [m.name for m in meta if not str(m.visible).endswith(".Visible")]

    def sheet(self, title: str) -> _CalamineSheet:
        member = self.members.get(title)
        if member is None:
            raise FallBack(title)
        with self.zf.open(member) as fh:
            scan = _scan_sheet(fh)
        if scan is None:
            raise FallBack(title)
        return _CalamineSheet(self.book, title, scan)


class FallBack(Exception):
    """The fast reader gives the sheet to openpyxl's streaming reader."""
