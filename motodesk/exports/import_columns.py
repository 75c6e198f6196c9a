"""The import template's columns: which the register's spreadsheet has, in order, and how each is read.

The person's columns, then the documents' (one per field that ``rules.documents_declared`` says a sheet
carries), then the vehicle's and the permit's. :data:`TEMPLATE_COLUMNS`, :data:`TEMPLATE_HEADERS` and
:data:`HEADER_INDEX` follow the declarations: a document declared or withdrawn (a Decree's change, or
a test) rebinds them here, so the template writer and the reader look them up on this module.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, cast

from motodesk.rules import documents_declared

TEMPLATE_SHEET = "Cadastro"
INSTRUCTIONS_SHEET = "Instruções"

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


def normalise_header(text: Any) -> str:
    """Compare headers ignoring accents, case, spacing, punctuation and (remarks)."""
    s = re.sub(r"\(.*?\)", "", str(text))
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii").casefold()
    return re.sub(r"[^a-z0-9]", "", s)


TEMPLATE_COLUMNS: tuple[TemplateColumn, ...] = template_columns()
TEMPLATE_HEADERS: tuple[str, ...] = tuple(c.header for c in TEMPLATE_COLUMNS)
#: The template's columns by their normalised header (:func:`normalise_header`).
HEADER_INDEX: dict[str, TemplateColumn] = {normalise_header(c.header): c for c in TEMPLATE_COLUMNS}


def _declarations_changed() -> None:
    """A document was declared or withdrawn (a Decree's change, or a test): the template follows."""
    global TEMPLATE_COLUMNS, TEMPLATE_HEADERS, HEADER_INDEX
    TEMPLATE_COLUMNS = template_columns()
    TEMPLATE_HEADERS = tuple(c.header for c in TEMPLATE_COLUMNS)
    HEADER_INDEX = {normalise_header(c.header): c for c in TEMPLATE_COLUMNS}


documents_declared.on_change(_declarations_changed)
