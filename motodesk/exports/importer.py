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
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Literal, cast

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from motodesk.clock import local_today
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
    visible_sheets,
)
from motodesk.exports.xlsx import DATE_FORMAT, unescape_text
from motodesk.rules import documents_declared
from motodesk.rules.common import ServiceType
from motodesk.rules.text import clean_name, format_int, name_problem
from motodesk.rules.validators import (
    Validation,
    validate_cnh,
    validate_cpf,
    validate_nit,
    validate_plate,
    validate_renavam,
    validate_vin,
)

__all__ = [
    "EMPTY_ROWS_STOP",
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
    "ImportReport",
    "ImportRow",
    "INSTRUCTIONS_SHEET",
    "TEMPLATE_COLUMNS",
    "TEMPLATE_HEADERS",
    "TEMPLATE_SHEET",
    "TemplateColumn",
    "normalise_header",
    "parse_date",
    "read_import",
    "render_report",
    "write_template",
]

log = logging.getLogger(__name__)

TEMPLATE_SHEET = "Cadastro"
INSTRUCTIONS_SHEET = "Instruções"
#: Reading stops after this many consecutive empty lines.
EMPTY_ROWS_STOP = 1000
#: Lines searched for the header row (a title may sit above it).
HEADER_SEARCH_ROWS = 10
#: Columns searched for headers.
HEADER_SEARCH_COLS = 256
#: Rows of the template covered by the drop-down lists.
TEMPLATE_VALIDATION_ROWS = 50_000
#: The caps of the guard live with the one guarded reader (motodesk.exports.spreadsheet); these names
#: stay for the callers and tests that read them here.
MAX_MEMBER_UNCOMPRESSED = MAX_SHEET_INFLATED
MAX_TOTAL_UNCOMPRESSED = MAX_TOTAL_INFLATED
#: The longest text a cell may hold (the longest field of the register, the address, has 300).
MAX_CELL_CHARS = 1000

FieldKind = Literal[
    "text", "name", "cpf", "date", "past_date", "sex", "service", "plate", "renavam", "vin",
    "cnh", "nit", "categories", "year", "engine_cc", "phone", "email",
]  # fmt: skip


@dataclass(frozen=True)
class TemplateColumn:
    """A column of the import template: stable ``key``, pt_BR ``header``, how to read it."""

    key: str
    header: str
    kind: FieldKind
    required: bool
    help: str
    example: Any
    width: float = 16


_PERSON_COLUMNS: tuple[TemplateColumn, ...] = (
    TemplateColumn("full_name", "Nome completo", "name", True,
                   "Nome completo do titular, sem abreviações.", "Maria Aparecida da Silva", 34),
    TemplateColumn("cpf", "CPF", "cpf", True,
                   "11 dígitos, com ou sem pontos e traço. Cada CPF só pode aparecer uma vez.",
                   "529.982.247-25", 16),
    TemplateColumn("birth_date", "Data de nascimento", "past_date", False,
                   "dd/mm/aaaa. Necessária para conferir a idade mínima de 21 anos (Art. 5º, I).",
                   date(1985, 3, 14), 14),
    TemplateColumn("sex", "Sexo", "sex", False, "Masculino ou Feminino (escolha na lista).", "Feminino", 12),
    TemplateColumn("phone", "Telefone", "phone", False, "Com DDD, por exemplo (34) 99999-0000.",
                   "(34) 99876-5432", 16),
    TemplateColumn("email", "E-mail", "email", False, "Endereço de e-mail, se houver.",
                   "maria@exemplo.com.br", 26),
    TemplateColumn("address", "Endereço", "text", False, "Rua, número, bairro.",
                   "Rua Goiás, 100, Centro", 34),
)  # fmt: skip

#: After the person's columns come the documents' (declared in ``rules.documents_declared``), then these.
_PERMIT_COLUMNS: tuple[TemplateColumn, ...] = (
    TemplateColumn("service", "Serviço", "service", True,
                   "Mototáxi, Motoboy ou Moto-frete (escolha na lista).", "Mototáxi", 12),
    TemplateColumn("plate", "Placa", "plate", False, "ABC-1234 ou Mercosul ABC1D23.", "ABC1D23", 10),
    TemplateColumn("renavam", "RENAVAM", "renavam", False,
                   "11 dígitos (números antigos de 9 dígitos também são aceitos).", "00639884962", 14),
    TemplateColumn("vin", "Chassi", "vin", False, "17 letras e números (sem I, O e Q).",
                   "9C2KC1670HR000001", 20),
    TemplateColumn("manufacture_year", "Ano de fabricação", "year", False,
                   "Quatro dígitos. A vida útil é de até 5 anos (Art. 3º, II).", 2022, 11),
    TemplateColumn("engine_cc", "Cilindradas", "engine_cc", False,
                   "Cilindrada em cm³, de 125 a 250 (Art. 3º, I).", 160, 11),
    TemplateColumn("insurance_valid_until", "Seguro obrigatório até", "date", False,
                   "dd/mm/aaaa. Validade do DPVAT/SPVAT (Art. 5º, § 1º, I).", date(2026, 12, 31), 12),
    TemplateColumn("insurance_insured_cpf", "CPF do segurado", "cpf", False,
                   "CPF do segurado do DPVAT/SPVAT: deve ser o titular (Art. 5º, § 5º).", "529.982.247-25", 15),
    TemplateColumn("permit_number", "Permissão", "text", False,
                   "Número da permissão ou autorização já emitida, se houver.", "MT-0007/2021", 14),
    TemplateColumn("issued_on", "Data de emissão", "past_date", False,
                   "dd/mm/aaaa. Data de emissão da permissão ou autorização.", date(2021, 8, 2), 12),
    TemplateColumn("decree", "Decreto", "text", False, "Número do Decreto de outorga.", "Decreto 1.234/2021", 16),
)  # fmt: skip



def document_columns() -> tuple[TemplateColumn, ...]:
    """The documents' columns, from their declarations: one per declared field that a sheet carries."""
    return tuple(TemplateColumn(f.column, f.header or f.label, cast(FieldKind, f.reads), False,
                                f.help or _document_help(d, f), f.example, f.width)
                 for d, f in documents_declared.columns() if f.column is not None)


def _document_help(doc: documents_declared.DeclaredDocument, f: documents_declared.DocField) -> str:
    where = f" ({doc.article})" if doc.article else ""
    return f"{doc.label}{where}: {f.label.lower()}{'; dd/mm/aaaa' if f.widget == 'date' else ''}."


def template_columns() -> tuple[TemplateColumn, ...]:
    """Every column of the template, in order: the person, the documents, the vehicle and permit."""
    return (*_PERSON_COLUMNS, *document_columns(), *_PERMIT_COLUMNS)


TEMPLATE_COLUMNS: tuple[TemplateColumn, ...] = template_columns()
TEMPLATE_HEADERS: tuple[str, ...] = tuple(c.header for c in TEMPLATE_COLUMNS)
_BY_KEY = {c.key: c for c in TEMPLATE_COLUMNS}


def _declarations_changed() -> None:
    """A document was declared or withdrawn (a Decree's change, or a test): the template follows."""
    global TEMPLATE_COLUMNS, TEMPLATE_HEADERS, _BY_KEY, _HEADER_INDEX
    TEMPLATE_COLUMNS = template_columns()
    TEMPLATE_HEADERS = tuple(c.header for c in TEMPLATE_COLUMNS)
    _BY_KEY = {c.key: c for c in TEMPLATE_COLUMNS}
    _HEADER_INDEX = {normalise_header(c.header): c for c in TEMPLATE_COLUMNS}


documents_declared.on_change(_declarations_changed)


# ----------------------------------------------------------------------- results


@dataclass(slots=True)
class ImportRow:
    """One data line of the spreadsheet: ``line`` is the sheet's row number."""

    line: int
    values: dict[str, Any]
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def key(self) -> str | None:
        """The upsert key: the CPF's 11 digits (None when the CPF is missing or invalid)."""
        cpf = self.values.get("cpf")
        return cpf if isinstance(cpf, str) and len(cpf) == 11 else None


@dataclass
class ImportReport:
    """The outcome of reading a file: its rows, or why the file was refused."""

    rows: list[ImportRow] = field(default_factory=list)
    file_errors: list[str] = field(default_factory=list)
    file_warnings: list[str] = field(default_factory=list)
    sheet_name: str | None = None
    header_row: int | None = None

    @property
    def ok(self) -> bool:
        """The file was read and every row is valid."""
        return not self.file_errors and all(r.ok for r in self.rows)

    @property
    def accepted(self) -> list[ImportRow]:
        return [r for r in self.rows if r.ok] if not self.file_errors else []

    @property
    def refused(self) -> list[ImportRow]:
        return [r for r in self.rows if not r.ok]


# ---------------------------------------------------------------------- template


def write_template(path: str | os.PathLike[str]) -> None:
    """The import template: an empty "Cadastro" sheet and an "Instruções" sheet.

    Required headers are highlighted and carry a comment; Serviço and Sexo have
    drop-down lists; document columns are formatted as text so the spreadsheet
    keeps leading zeros; date columns as ``DD/MM/YYYY``.
    """
    wb = Workbook()
    ws = wb.active
    ws.title = TEMPLATE_SHEET
    required_fill = PatternFill("solid", fgColor="FFF2CC")
    bold = Font(bold=True)
    last_row = TEMPLATE_VALIDATION_ROWS + 1
    for idx, col in enumerate(TEMPLATE_COLUMNS, 1):
        letter = get_column_letter(idx)
        cell = ws.cell(row=1, column=idx, value=col.header)
        cell.font = bold
        cell.alignment = Alignment(vertical="center", wrap_text=True)
        if col.required:
            cell.fill = required_fill
            cell.comment = Comment(f"Obrigatório. {col.help}", "MotoDesk")
        dim = ws.column_dimensions[letter]
        dim.width = col.width
        if col.kind in ("date", "past_date"):
            dim.number_format = DATE_FORMAT
        elif col.kind in ("year", "engine_cc"):
            dim.number_format = "0"
        else:
            dim.number_format = "@"  # text: CPF, CNH and RENAVAM keep their leading zeros
        if col.kind in ("service", "sex"):
            options = (
                ",".join(s.label for s in ServiceType) if col.kind == "service" else "Masculino,Feminino"
            )
            dv = DataValidation(
                type="list",
                formula1=f'"{options}"',
                allow_blank=True,
                showErrorMessage=True,
                errorTitle=col.header,
                error=f"Escolha um valor da lista: {options.replace(',', ', ')}.",
                promptTitle=col.header,
                prompt=col.help,
                showInputMessage=True,
            )
            dv.add(f"{letter}2:{letter}{last_row}")
            ws.add_data_validation(dv)
    ws.freeze_panes = "A2"

    info = wb.create_sheet(INSTRUCTIONS_SHEET)
    info.append(["Como preencher a planilha de importação do MotoDesk"])
    info["A1"].font = Font(bold=True, size=13)
    info.append(
        [
            f'Preencha uma pessoa por linha na aba "{TEMPLATE_SHEET}", a partir da linha 2, sem mudar os '
            "nomes das colunas. Colunas destacadas são obrigatórias. Não use fórmulas: digite os valores."
        ]
    )
    info.append(
        [
            "Datas: dd/mm/aaaa (também são aceitas dd-mm-aaaa, aaaa-mm-dd e dd/mm/aa). "
            "Linhas com erro são recusadas e listadas no relatório; as demais são importadas. "
            "Importar de novo a mesma planilha atualiza as pessoas pelo CPF, sem duplicar."
        ]
    )
    info.append([])
    header_row = info.max_row + 1
    info.append(["Coluna", "Obrigatória", "O que informar", "Exemplo"])
    for cell in info[header_row]:
        cell.font = bold
    for col in TEMPLATE_COLUMNS:
        info.append([col.header, "Sim" if col.required else "Não", col.help, col.example])
        example = info.cell(row=info.max_row, column=4)
        if isinstance(col.example, date):
            example.number_format = DATE_FORMAT
        elif isinstance(col.example, str):
            example.number_format = "@"
    info.append([])
    info.append(["Linha de exemplo (copie o formato, não a pessoa):"])
    info.cell(row=info.max_row, column=1).font = bold
    info.append(list(TEMPLATE_HEADERS))
    for cell in info[info.max_row]:
        cell.font = bold
    info.append([c.example for c in TEMPLATE_COLUMNS])
    for idx, col in enumerate(TEMPLATE_COLUMNS, 1):
        if isinstance(col.example, date):
            info.cell(row=info.max_row, column=idx).number_format = DATE_FORMAT
    info.column_dimensions["A"].width = 24
    info.column_dimensions["B"].width = 12
    info.column_dimensions["C"].width = 80
    info.column_dimensions["D"].width = 24
    wb.active = 0
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        wb.save(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- text helpers


def normalise_header(text: Any) -> str:
    """Compare headers ignoring accents, case, spacing, punctuation and (remarks)."""
    s = re.sub(r"\(.*?\)", "", str(text))
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii").casefold()
    return re.sub(r"[^a-z0-9]", "", s)


def _plain(text: str) -> str:
    return normalise_header(text)


_HEADER_INDEX = {normalise_header(c.header): c for c in TEMPLATE_COLUMNS}


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


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " e " + items[-1]


# ----------------------------------------------------------------------- dates

_DMY = re.compile(r"(\d{1,2})[/\-.](\d{1,2})[/\-.](\d{4}|\d{2})")
_YMD = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?")
_DMY_TIME = re.compile(r"(\d{1,2})[/\-.](\d{1,2})[/\-.](\d{4})\s+\d{1,2}:\d{2}(?::\d{2})?")
_EXCEL_EPOCH = datetime(1899, 12, 30)


def parse_date(
    value: Any, *, past: bool = False, today: date | None = None
) -> tuple[date | None, str | None, str | None]:
    """Read a date from a cell: ``(date, error, warning)``.

    Accepts real date cells, Excel serial numbers (with a warning: the column was
    not formatted as a date), and text as ``dd/mm/aaaa``, ``d/m/aaaa``,
    ``dd-mm-aaaa``, ``dd.mm.aaaa``, ``aaaa-mm-dd`` (optionally with a time) and
    ``dd/mm/aa``.  A two-digit year is read in this century unless ``past`` and
    that would be in the future (birth dates: ``85`` → 1985).
    """
    today = today or local_today()
    if value is None:
        return None, None, None
    if isinstance(value, datetime):
        return value.date(), None, None
    if isinstance(value, date):
        return value, None, None
    if isinstance(value, time):
        return None, "contém só um horário, não uma data", None
    if isinstance(value, bool):
        return None, f'"{value}" não é uma data; use dd/mm/aaaa', None
    if isinstance(value, (int, float, Decimal)):
        serial = float(value)
        if 1 <= serial < 2958466 and serial == int(serial):
            day = (_EXCEL_EPOCH + timedelta(days=int(serial))).date()
            return day, None, f"data lida de um número ({int(serial)}) como {day:%d/%m/%Y}; confira"
        return None, f'"{value}" não é uma data; use dd/mm/aaaa', None
    text = str(value).strip()
    if not text:
        return None, None, None
    warning = None
    m = _DMY.fullmatch(text) or _DMY_TIME.fullmatch(text)
    if m:
        d, mo, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if len(m.group(3)) == 2:
            y += 2000
            if past and y > today.year:
                y -= 100
            warning = f'ano com dois dígitos em "{text}" lido como {y}'
    else:
        m = _YMD.fullmatch(text)
        if not m:
            return None, f'"{text}" não é uma data; use dd/mm/aaaa', None
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    try:
        return date(y, mo, d), None, warning
    except ValueError:
        return None, f'"{text}" não é uma data que exista', None


# ------------------------------------------------------------------ cell readers


def _cell_text(value: Any) -> str:
    """The text of a cell value; integral floats lose their ".0"."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.strftime("%d/%m/%Y %H:%M") if value.time() != time() else value.strftime("%d/%m/%Y")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    return unescape_text(" ".join(str(value).split()))


def _document_text(value: Any) -> str:
    """A document number: a number cell lost its leading zeros, put them back."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value)).zfill(11)
    return _cell_text(value)


_SCIENTIFIC = re.compile(r"\d[,.]\d+E\+?\d+", re.IGNORECASE)
_SERVICES = {_plain(s.value): s for s in ServiceType} | {_plain(s.label): s for s in ServiceType}
_SERVICES |= {"mototaxista": ServiceType.MOTOTAXI, "motofretista": ServiceType.MOTOFRETE}
_SEXES = {
    "m": "M",
    "masculino": "M",
    "masc": "M",
    "homem": "M",
    "f": "F",
    "feminino": "F",
    "fem": "F",
    "mulher": "F",
}
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_CATEGORY_LETTERS = set("ABCDE")

_VALIDATORS: dict[str, Callable[[str | None], Validation]] = {
    "cpf": validate_cpf,
    "cnh": validate_cnh,
    "nit": validate_nit,
    "plate": validate_plate,
    "renavam": validate_renavam,
    "vin": validate_vin,
}


def _parse_field(col: TemplateColumn, raw: Any, today: date) -> tuple[Any, str | None, str | None]:
    """One cell into ``(value, error, warning)``; an empty cell gives ``(None, None, None)``."""
    kind = col.kind
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, None, None
    label = col.header

    if kind in ("date", "past_date"):
        value, error, warning = parse_date(raw, past=kind == "past_date", today=today)
        if error:
            return None, f"{label}: {error}.", None
        if value is not None and kind == "past_date" and value > today:
            return None, f"{label}: {value:%d/%m/%Y} está no futuro.", None
        if value is not None and value.year < 1900:
            return None, f"{label}: {value:%d/%m/%Y} é anterior a 1900.", None
        return value, None, (f"{label}: {warning}." if warning else None)

    if kind in _VALIDATORS:
        text = _document_text(raw) if kind in ("cpf", "cnh", "nit", "renavam") else _cell_text(raw)
        if kind in ("cpf", "cnh", "nit", "renavam") and _SCIENTIFIC.fullmatch(text):
            return (
                None,
                (
                    f'{label}: "{text}" foi gravado em notação científica pelo Excel e perdeu dígitos; '
                    "formate a coluna como Texto e digite o número de novo."
                ),
                None,
            )
        result = _VALIDATORS[kind](text)
        if not result.ok:
            message = (result.message or f"{label} inválido.").rstrip(".")
            return None, f"{message} (valor informado: {text}).", None
        return result.value, None, None

    if kind == "name":
        # The one name cleaner of every path (motodesk.rules.text): composed (NFC), then bidi, invisible
        # characters, variation selectors and marks no script needs refused.
        text = clean_name(_cell_text(raw))
        if problem := name_problem(text):
            return None, f"{label}: {problem}", None
        if not any(ch.isalpha() for ch in text):
            return None, f'{label}: "{text}" não é um nome.', None
        warning = None if len(text.split()) >= 2 else f'{label}: "{text}" parece incompleto: só um nome.'
        return text, None, warning

    if kind == "text":
        return _cell_text(raw) or None, None, None

    if kind == "sex":
        text = _cell_text(raw)
        sex = _SEXES.get(_plain(text))
        if sex is None:
            return None, f'{label}: "{text}" não reconhecido; use Masculino ou Feminino.', None
        return sex, None, None

    if kind == "service":
        text = _cell_text(raw)
        service = _SERVICES.get(_plain(text))
        if service is None:
            return (
                None,
                (
                    f'{label}: "{text}" não reconhecido; use '
                    f"{_join([s.label for s in ServiceType]).replace(' e ', ' ou ')}."
                ),
                None,
            )
        return service.value, None, None

    if kind == "categories":
        text = _cell_text(raw).upper()
        rest = re.sub(r"[\s,;/+\-]", "", text)
        has_acc = "ACC" in rest
        letters = set(rest.replace("ACC", ""))
        if (letters - _CATEGORY_LETTERS) or not (letters or has_acc):
            return (
                None,
                f'{label}: "{text}" não são categorias de CNH; use letras de A a E, por exemplo AB.',
                None,
            )
        categories = (
            ("ACC" if has_acc else "") + ("," if has_acc and letters else "") + "".join(sorted(letters))
        )
        warning = None if "A" in letters else f"{label}: sem categoria A, exigida pelo Art. 5º, II."
        return categories, None, warning

    if kind in ("year", "engine_cc"):
        number = _as_int(raw)
        if number is None:
            return None, f'{label}: "{_cell_text(raw)}" não é um número inteiro.', None
        if kind == "year":
            if not 1950 <= number <= today.year + 1:
                return None, f"{label}: {number} não é um ano válido.", None
            return number, None, None
        if not 50 <= number <= 2000:
            return None, f"{label}: {number} cm³ não é uma cilindrada de motocicleta.", None
        warning = (
            None
            if 125 <= number <= 250
            else f"{label}: {number} cm³ fora da faixa de 125 a 250 cm³ (Art. 3º, I)."
        )
        return number, None, warning

    if kind == "phone":
        text = _cell_text(raw)
        digits = re.sub(r"\D", "", text)
        if digits.startswith("55") and len(digits) in (12, 13):
            digits = digits[2:]
        if len(digits) not in (10, 11):
            return digits or None, None, f'{label}: "{text}" não parece um telefone com DDD.'
        return digits, None, None

    if kind == "email":
        text = _cell_text(raw)
        if not _EMAIL.fullmatch(text):
            return text, None, f'{label}: "{text}" não parece um e-mail válido.'
        return text.lower(), None, None

    raise AssertionError(f"unknown field kind {kind}")  # pragma: no cover


def _as_int(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, (float, Decimal)):
        return int(raw) if raw == int(raw) else None
    text = str(raw).strip().replace(".", "") if isinstance(raw, str) else ""
    text = re.sub(r"\s*(cc|cm3|cm³|cilindradas)$", "", text, flags=re.IGNORECASE)
    return int(text) if text.isdigit() else None


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
    found by scanning the sheet's XML for ``<f>`` (:func:`_scan_sheet`); any other sheet, and any file
    calamine cannot read, goes through openpyxl's streaming reader
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
            return _read_workbook(_OpenpyxlBook(wb), max_rows=max_rows, today=today, progress=progress)
    except SpreadsheetRefused as refused:
        if refused.__cause__ is not None:
            log.warning("import: could not open %s", path, exc_info=refused.__cause__)
        return ImportReport(file_errors=[refused.message])
    except Exception:  # noqa: BLE001 - a bad file must become a message, never a crash
        log.warning("import: could not read %s", path, exc_info=True)
        return ImportReport(file_errors=[MSG_CORRUPT])


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


class _OpenpyxlBook:
    def __init__(self, wb: Any) -> None:
        visible = visible_sheets(wb)
        for ws in visible:
            ws.reset_dimensions()  # never trust the stored dimension (it may claim 1,000,000 rows)
        self._sheets = {ws.title: _OpenpyxlSheet(ws) for ws in visible}
        self.titles = [ws.title for ws in visible]
        self.hidden = [ws.title for ws in wb.worksheets if ws not in visible]

    def sheet(self, title: str) -> _OpenpyxlSheet:
        return self._sheets[title]


def _sheet_members(zf: zipfile.ZipFile) -> dict[str, str] | None:
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


class _CalamineBook:
    def __init__(self, book: Any, zf: zipfile.ZipFile, members: dict[str, str]) -> None:
        self.book, self.zf, self.members = book, zf, members
        meta = [m for m in book.sheets_metadata if str(m.typ).endswith("WorkSheet")]
        self.titles = [m.name for m in meta if str(m.visible).endswith(".Visible")]
        self.hidden = [m.name for m in meta if not str(m.visible).endswith(".Visible")]

    def sheet(self, title: str) -> _CalamineSheet:
        member = self.members.get(title)
        if member is None:
            raise _FallBack(title)
        with self.zf.open(member) as fh:
            scan = _scan_sheet(fh)
        if scan is None:
            raise _FallBack(title)
        return _CalamineSheet(self.book, title, scan)


class _FallBack(Exception):
    """The fast reader gives the sheet to openpyxl's streaming reader."""


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
            members = _sheet_members(zf)
            if members is None:
                return None
            with CalamineWorkbook.from_path(str(path)) as book:
                return _read_workbook(_CalamineBook(book, zf, members), max_rows=max_rows, today=today,
                                      progress=progress)
    except _FallBack:
        return None
    except Exception:  # noqa: BLE001 - calamine refused what passed the guard: openpyxl has the last word
        log.info("import: calamine could not read %s; reading it with openpyxl", path, exc_info=True)
        return None


def _find_header(ws: Any) -> tuple[int, list[tuple[int, str]], int]:
    """``(row number, [(column, header text)], matches)`` of the likeliest header row."""
    best: tuple[int, list[tuple[int, str]], int] = (0, [], 0)
    for row_idx, row in ws.rows(1):
        if row_idx > HEADER_SEARCH_ROWS:
            break
        headers = [(i, str(v).strip()) for i, v in enumerate(row[:HEADER_SEARCH_COLS], 1)
                   if v is not None and v is not FORMULA and str(v).strip()]
        score = sum(1 for _, h in headers if normalise_header(h) in _HEADER_INDEX)
        if score > best[2]:
            best = (row_idx, headers, score)
    return best


def _read_workbook(
    wb: Any, *, max_rows: int, today: date, progress: Callable[[int], None] | None
) -> ImportReport:
    # Only a visible sheet is read: rows hidden in a hidden (or "very hidden") sheet never reach
    # the register. The template's sheet, when the workbook has it, is the only one read.
    visible = list(wb.titles)
    hidden = [title for title in wb.hidden if title != INSTRUCTIONS_SHEET]
    titles = [title for title in visible if title != INSTRUCTIONS_SHEET] or visible
    if not titles:
        return ImportReport(file_errors=[MSG_NO_SHEET])
    preferred = [t for t in titles if normalise_header(t) == normalise_header(TEMPLATE_SHEET)]
    candidates = [wb.sheet(title) for title in (preferred or titles)]
    found = None
    for ws in candidates:
        header_row, headers, score = _find_header(ws)
        if score:
            found = (ws, header_row, headers)
            break
    if found is None:
        ws = candidates[0]
        return ImportReport(
            file_errors=[
                MSG_NO_HEADER.format(
                    n=HEADER_SEARCH_ROWS, sheet=ws.title, headers=_join(list(TEMPLATE_HEADERS))
                )
            ],
            sheet_name=ws.title,
        )
    ws, header_row, headers = found
    report = ImportReport(sheet_name=ws.title, header_row=header_row)
    if hidden:
        plural = len(hidden) > 1
        report.file_warnings.append(MSG_HIDDEN_SHEETS.format(
            what="As abas ocultas" if plural else "A aba oculta", names=_join([f'"{n}"' for n in hidden]),
            verb="foram" if plural else "foi", s="s" if plural else ""))

    # --- map headers to template columns
    columns: dict[int, TemplateColumn] = {}
    seen: dict[str, int] = {}
    unknown: list[tuple[int, str]] = []
    for col_idx, header in headers:
        col = _HEADER_INDEX.get(normalise_header(header))
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
    suggested: set[int] = set()
    absent_optional: list[str] = []
    for col in TEMPLATE_COLUMNS:
        if col.key in seen:
            continue
        close = _close_headers(col, unknown)
        if close:
            suggested.update(i for i, _ in close)
            names = _join([f'"{h}" ({get_column_letter(i)})' for i, h in close]).replace(" e ", " ou ")
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
            f"{'As colunas' if plural else 'A coluna'} {_join(ignored)} não "
            f"{'fazem' if plural else 'faz'} parte do modelo e {'foram ignoradas' if plural else 'foi ignorada'}."
        )
    if absent_optional:
        report.file_warnings.append(
            f"Colunas do modelo ausentes (ficarão em branco): {_join(absent_optional)}."
        )
    if report.file_errors:
        return report

    # --- rows
    wanted = sorted(columns.items())
    empty_run = 0
    read = 0
    stopped_at: int | None = None
    positions = [i - 1 for i, _ in wanted]
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
    line: int, cells: Sequence[Any], wanted: list[tuple[int, TemplateColumn]], today: date
) -> ImportRow:
    row = ImportRow(line=line, values={})
    width = len(cells)
    for col_idx, col in wanted:
        raw = cells[col_idx - 1] if col_idx <= width else None
        if raw is None or raw == "":
            row.values[col.key] = None
            if col.required:
                row.errors.append(f"{col.header}: não informado (obrigatório).")
            continue
        if raw is FORMULA:
            row.errors.append(f"Fórmulas não são aceitas (célula {get_column_letter(col_idx)}{line}).")
            row.values[col.key] = None
            continue
        if not isinstance(raw, (str, int, float, Decimal, date, time, bool, timedelta)):
            # array / data-table formulas and other objects
            row.errors.append(f"Fórmulas não são aceitas (célula {get_column_letter(col_idx)}{line}).")
            row.values[col.key] = None
            continue
        if isinstance(raw, str) and len(raw) > MAX_CELL_CHARS:
            row.errors.append(MSG_CELL_TOO_LONG.format(cell=f"{get_column_letter(col_idx)}{line}",
                                                       size=format_int(len(raw)), limit=format_int(MAX_CELL_CHARS)))
            row.values[col.key] = None
            continue
        value, error, warning = _parse_field(col, raw, today)
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
            lines = _join([str(r.line) for r in group])
            for row in group:
                row.errors.append(f"CPF repetido na planilha (linhas {lines}); deixe uma linha por pessoa.")
    for group in by_plate.values():
        if len(group) > 1:
            lines = _join([str(r.line) for r in group])
            for row in group:
                row.warnings.append(f"Placa repetida na planilha (linhas {lines}).")


# ---------------------------------------------------------------------- report


def render_report(report: ImportReport) -> str:
    """The pt_BR text report: a summary, then one line per data line."""
    out: list[str] = []
    if report.file_errors:
        out.append("Arquivo recusado; nenhuma linha foi importada.")
        out.extend(f"- {e}" for e in report.file_errors)
        out.extend(f"- Aviso: {w}" for w in report.file_warnings)
        return "\n".join(out) + "\n"
    total = len(report.rows)
    accepted = sum(1 for r in report.rows if r.ok)
    refused = total - accepted
    out.append(
        f"{total} {'linha lida' if total == 1 else 'linhas lidas'}"
        + (f' da aba "{report.sheet_name}"' if report.sheet_name else "")
        + f": {accepted} {'importada' if accepted == 1 else 'importadas'}, "
        f"{refused} {'recusada' if refused == 1 else 'recusadas'}."
    )
    out.extend(f"Aviso: {w}" for w in report.file_warnings)
    for row in report.rows:
        if row.ok:
            line = f"Linha {row.line}: importada"
        else:
            line = f"Linha {row.line}: recusada — " + "; ".join(e.rstrip(".") for e in row.errors)
        if row.warnings:
            line += " — aviso: " + "; ".join(w.rstrip(".") for w in row.warnings)
        out.append(line)
    return "\n".join(out) + "\n"
