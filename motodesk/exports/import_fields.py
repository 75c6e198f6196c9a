"""One cell of the register's spreadsheet into its value: ``(value, error, warning)``, errors in pt_BR.

:func:`parse_field` reads a cell as its column's :data:`~motodesk.exports.import_columns.FieldKind`
says, one small reader per kind (dates, documents through ``rules.validators``, the name through
the one name cleaner, sex, service, CNH categories, year and engine, phone, e-mail). The row's
checks (required cells, formulas, over-long text, what one cell says of another) are the reader's,
:mod:`motodesk.exports.importer`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from motodesk.clock import local_today
from motodesk.exports.import_columns import TemplateColumn, normalise_header
from motodesk.exports.xlsx import unescape_text
from motodesk.rules.common import ServiceType
from motodesk.rules.text import clean_name, join_words, name_problem
from motodesk.rules.validators import (
    Validation,
    validate_cnh,
    validate_cpf,
    validate_nit,
    validate_plate,
    validate_renavam,
    validate_vin,
)

#: What a cell gives: its value, an error and a warning (each a pt_BR sentence), any of them None.
Parsed = tuple[Any, str | None, str | None]
#: The reader of one kind of field: ``(column, cell value, today) -> Parsed``, for a cell not empty.
FieldParser = Callable[[TemplateColumn, Any, date], Parsed]

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
_SERVICES = {normalise_header(s.value): s for s in ServiceType} | {normalise_header(s.label): s for s in ServiceType}
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
#: Documents whose number a number cell may have stripped of its leading zeros.
_NUMBERED = ("cpf", "cnh", "nit", "renavam")


def parse_field(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    """One cell into ``(value, error, warning)``; an empty cell gives ``(None, None, None)``."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, None, None
    return field_parser(col.kind)(col, raw, today)


def field_parser(kind: str) -> FieldParser:
    """The reader of ``kind``'s cells (a line's reader looks each column's up once)."""
    parse = _PARSERS.get(kind)
    if parse is None:  # pragma: no cover
        raise AssertionError(f"unknown field kind {kind}")
    return parse


#: Kinds whose cells repeat down a register (dates, the sex, the service, CNH categories, years, engine
#: sizes), and the decree's column: :func:`column_parser` parses each distinct cell of such a column
#: once per file and its lines share the answer (the parsers are pure, their answers immutable).
REPEATING_KINDS = frozenset({"date", "past_date", "sex", "service", "categories", "year", "engine_cc"})
REPEATING_COLUMNS = frozenset({"decree"})
#: The most distinct cells a column remembers (the least recently read forgotten first).
COLUMN_MEMO_SIZE = 4096


def column_parser(col: TemplateColumn, today: date) -> FieldParser:
    """The reader of ``col``'s cells for one file read on ``today``: :func:`field_parser`'s, answering
    a repeated cell of a :data:`REPEATING_KINDS` column from memory (a 10,000-line register has a few
    hundred distinct dates a date column; parsing each once saves CPU, sharing the values memory)."""
    parse = field_parser(col.kind)
    if col.kind not in REPEATING_KINDS and col.key not in REPEATING_COLUMNS:
        return parse
    # typed: 1, 1.0 and True are equal as keys, not as cells
    cached = functools.lru_cache(maxsize=COLUMN_MEMO_SIZE, typed=True)(lambda raw: parse(col, raw, today))

    def parse_once(column: TemplateColumn, raw: Any, on: date) -> Parsed:
        # Only for the column and the day it was made for.
        return cached(raw) if column is col and on == today else parse(column, raw, on)

    return parse_once


def _parse_date(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    label, past = col.header, col.kind == "past_date"
    value, error, warning = parse_date(raw, past=past, today=today)
    if error:
        return None, f"{label}: {error}.", None
    if value is not None and past and value > today:
        return None, f"{label}: {value:%d/%m/%Y} está no futuro.", None
    if value is not None and value.year < 1900:
        return None, f"{label}: {value:%d/%m/%Y} é anterior a 1900.", None
    return value, None, (f"{label}: {warning}." if warning else None)


def _parse_document(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    """A CPF, CNH, NIT, plate, RENAVAM or VIN, judged by its validator."""
    kind, label = col.kind, col.header
    text = _document_text(raw) if kind in _NUMBERED else _cell_text(raw)
    if kind in _NUMBERED and _SCIENTIFIC.fullmatch(text):
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


def _parse_name(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    label = col.header
    # The one name cleaner of every path (motodesk.rules.text): composed (NFC), then bidi, invisible
    # characters, variation selectors and marks no script needs refused.
    text = clean_name(_cell_text(raw))
    if problem := name_problem(text):
        return None, f"{label}: {problem}", None
    if not any(ch.isalpha() for ch in text):
        return None, f'{label}: "{text}" não é um nome.', None
    warning = None if len(text.split()) >= 2 else f'{label}: "{text}" parece incompleto: só um nome.'
    return text, None, warning


def _parse_text(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    return _cell_text(raw) or None, None, None


def _parse_sex(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    text = _cell_text(raw)
    sex = _SEXES.get(normalise_header(text))
    if sex is None:
        return None, f'{col.header}: "{text}" não reconhecido; use Masculino ou Feminino.', None
    return sex, None, None


def _parse_service(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    text = _cell_text(raw)
    service = _SERVICES.get(normalise_header(text))
    if service is None:
        choices = join_words([s.label for s in ServiceType]).replace(" e ", " ou ")
        return None, f'{col.header}: "{text}" não reconhecido; use {choices}.', None
    return service.value, None, None


def _parse_categories(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    """CNH categories, as ``"AB"`` or ``"ACC,A"``: letters A to E, ACC, in any order and spacing."""
    label = col.header
    text = _cell_text(raw).upper()
    rest = re.sub(r"[\s,;/+\-]", "", text)
    has_acc = "ACC" in rest
    letters = set(rest.replace("ACC", ""))
    if (letters - _CATEGORY_LETTERS) or not (letters or has_acc):
        return None, f'{label}: "{text}" não são categorias de CNH; use letras de A a E, por exemplo AB.', None
    categories = ("ACC" if has_acc else "") + ("," if has_acc and letters else "") + "".join(sorted(letters))
    warning = None if "A" in letters else f"{label}: sem categoria A, exigida pelo Art. 5º, II."
    return categories, None, warning


def _parse_year(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    number = _as_int(raw)
    if number is None:
        return None, f'{col.header}: "{_cell_text(raw)}" não é um número inteiro.', None
    if not 1950 <= number <= today.year + 1:
        return None, f"{col.header}: {number} não é um ano válido.", None
    return number, None, None


def _parse_engine(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    label = col.header
    number = _as_int(raw)
    if number is None:
        return None, f'{label}: "{_cell_text(raw)}" não é um número inteiro.', None
    if not 50 <= number <= 2000:
        return None, f"{label}: {number} cm³ não é uma cilindrada de motocicleta.", None
    warning = None if 125 <= number <= 250 else f"{label}: {number} cm³ fora da faixa de 125 a 250 cm³ (Art. 3º, I)."
    return number, None, warning


def _parse_phone(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    text = _cell_text(raw)
    digits = re.sub(r"\D", "", text)
    if digits.startswith("55") and len(digits) in (12, 13):
        digits = digits[2:]
    if len(digits) not in (10, 11):
        return digits or None, None, f'{col.header}: "{text}" não parece um telefone com DDD.'
    return digits, None, None


def _parse_email(col: TemplateColumn, raw: Any, today: date) -> Parsed:
    text = _cell_text(raw)
    if not _EMAIL.fullmatch(text):
        return text, None, f'{col.header}: "{text}" não parece um e-mail válido.'
    return text.lower(), None, None


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


#: The reader of each :data:`~motodesk.exports.import_columns.FieldKind`.
_PARSERS: dict[str, FieldParser] = {
    "date": _parse_date,
    "past_date": _parse_date,
    **dict.fromkeys(_VALIDATORS, _parse_document),
    "name": _parse_name,
    "text": _parse_text,
    "sex": _parse_sex,
    "service": _parse_service,
    "categories": _parse_categories,
    "year": _parse_year,
    "engine_cc": _parse_engine,
    "phone": _parse_phone,
    "email": _parse_email,
}
