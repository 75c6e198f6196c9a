"""The spreadsheets the secretariat receives, declared once.

Each :class:`~motodesk.exports.xlsx.SheetSpec` names the keys the services layer
must put in every row (a mapping; missing keys give empty cells) and the pt_BR
headers the clerk reads.  Values may be plain: enums with a ``label`` (ServiceType,
PermitState) show their label, CPF digits are formatted (or masked in the
transparency files) by the column itself.

Transparency files (``*_TRANSPARENCY``) are the ones published or handed outside
the secretariat: they carry the name, the masked CPF ``***.456.789-**`` and the
permit data, never a full CPF nor birth date, address, phone or e-mail.  Their
CPF column masks whatever it receives, and :func:`transparency_rows` drops every
key the published spec does not declare, so a careless caller cannot leak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from motodesk.exports.xlsx import Column, SheetSpec
from motodesk.rules import documents_declared
from motodesk.rules.text import format_int
from motodesk.rules.validators import format_cpf, mask_cpf

__all__ = [
    "CPF_MASKED",
    "CPF_PATTERN",
    "CPF_SHOWN",
    "DEADLINES",
    "EXPORT_KINDS",
    "FEES_COLLECTED",
    "FULL_NAME",
    "HOLDER_NAME",
    "INFRACTIONS",
    "INSPECTIONS",
    "LOGGED_AT",
    "ORGANISATION_MEMBERS",
    "PEOPLE",
    "PEOPLE_TRANSPARENCY",
    "PERMITS",
    "PERMITS_TRANSPARENCY",
    "PERMIT_NUMBER",
    "PHONE",
    "PLATE",
    "QUOTA_STUDY",
    "QUOTA_WAITING_LIST",
    "SERVICE",
    "USER_LOGIN",
    "VEHICLES",
    "WHEN",
    "QuotaStudy",
    "cpf_masked",
    "cpf_shown",
    "published",
    "quota_study_sheets",
    "transparency_rows",
]

#: A CPF in any usual spelling: ``12345678909``, ``123.456.789-09``.
CPF_PATTERN = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}")
_NON_DIGIT = re.compile(r"\D")
_FULLY_MASKED = "***.***.***-**"
_MASKED = re.compile(r"\*{3}\.\d{3}\.\d{3}-\*{2}")


def cpf_shown(value: Any) -> Any:
    """Internal files: CPF digits as ``123.456.789-09``; anything else as given."""
    if value is None or value == "":
        return None
    if type(value) is str and len(value) == 11 and value.isdigit():  # the usual case, 100,000s of times
        return f"{value[:3]}.{value[3:6]}.{value[6:9]}-{value[9:]}"
    digits = _NON_DIGIT.sub("", str(value))
    if len(digits) == 11:
        return format_cpf(digits)
    return value


def cpf_masked(value: Any) -> str | None:
    """Published files: ``***.456.789-**`` (LGPD / ANPD practice), never the full CPF.

    An already masked value is kept; any other value that is not 11 digits
    (malformed) is shown fully masked, and so is any masking result that would
    still show more than six digits.
    """
    if value is None or value == "":
        return None
    if isinstance(value, str) and _MASKED.fullmatch(value.strip()):
        return value.strip()
    digits = _NON_DIGIT.sub("", str(value))
    if len(digits) != 11:
        return _FULLY_MASKED
    masked = mask_cpf(digits)
    if not isinstance(masked, str) or len(_NON_DIGIT.sub("", masked)) > 6 or CPF_PATTERN.search(masked):
        return _FULLY_MASKED
    return masked


# ------------------------------------------------- the columns several sheets share

#: Declared once: every sheet that shows a permit, a service, a holder, a plate, a name or a CPF
#: shows it under the same header and width.
PERMIT_NUMBER = Column("permit_number", "Permissão", "text", 14)
SERVICE = Column("service", "Serviço", "text", 12)
HOLDER_NAME = Column("holder_name", "Titular", "text", 36)
PLATE = Column("plate", "Placa", "text", 10)
FULL_NAME = Column("full_name", "Nome completo", "text", 36)
CPF_SHOWN = Column("cpf", "CPF", "text", 16, transform=cpf_shown)
CPF_MASKED = Column("cpf", "CPF", "text", 16, transform=cpf_masked)
PHONE = Column("phone", "Telefone", "text", 16)
WHEN = "Data e hora"
#: The two columns every trail (audit, access log) opens with: when, and who.
LOGGED_AT = Column("at", WHEN, "datetime", 17)
USER_LOGIN = Column("user_login", "Usuário", "text", 16)


def published(spec: SheetSpec, title: str, keys: Sequence[str], columns: Sequence[Column] | None = None) -> SheetSpec:
    """The transparency sheet of an internal one: only ``keys``, in that order, with the internal
    headers and widths, and the CPF masked (:data:`CPF_MASKED`) instead of shown."""
    by_key = {c.key: c for c in (spec.columns if columns is None else columns)}
    return SheetSpec(title=title, sheet_name=spec.sheet_name,
                     columns=tuple(CPF_MASKED if key == "cpf" else by_key[key] for key in keys))


# ---------------------------------------------------------------- permits register

PERMITS = SheetSpec(
    title="Cadastro de permissões",
    sheet_name="Permissões",
    columns=(
        Column("number", "Número", "text", 14),
        SERVICE,
        HOLDER_NAME,
        CPF_SHOWN,
        PLATE,
        Column("state", "Situação", "text", 18),
        Column("issued_on", "Emissão", "date"),
        Column("certificate_valid_until", "Validade do certificado", "date", 14),
        Column("term_ends_on", "Fim do prazo", "date"),
        Column("decree", "Decreto", "text", 16),
        # Art. 6º, § 6º: the fee paid for the issue and for the latest renewal, empty when none was due.
        Column("issue_fee", "Taxa de emissão (R$)", "money", 14),
        Column("issue_fee_number", "Guia/DAM da emissão", "text", 18),
        Column("issue_fee_paid_on", "Emissão paga em", "date", 12),
        Column("renewal_fee", "Última taxa de renovação (R$)", "money", 14),
        Column("renewal_fee_number", "Guia/DAM da renovação", "text", 18),
        Column("renewal_fee_paid_on", "Renovação paga em", "date", 12),
    ),
)

PERMITS_TRANSPARENCY = published(
    PERMITS, "Permissões e autorizações em vigor",
    ("number", "service", "holder_name", "cpf", "plate", "state", "issued_on", "term_ends_on", "decree"))

# ------------------------------------------------------------------- fees collected

FEES_COLLECTED = SheetSpec(
    title="Taxas arrecadadas (Art. 6º, § 6º)",
    sheet_name="Taxas arrecadadas",
    columns=(
        Column("paid_on", "Data do pagamento", "date", 12),
        Column("number", "Guia/DAM", "text", 18),
        Column("act", "Ato", "text", 30),
        Column("subject", "Referente a", "text", 40),
        Column("amount", "Valor (R$)", "money", 14),
        Column("legal_basis", "Base legal", "text", 40),
        Column("recorded_by", "Registrada por", "text", 16),
        Column("used_on", "Ato realizado em", "date", 12),  # empty: paid, act not yet done
    ),
)

# ------------------------------------------------------------------------- people

_PEOPLE_COLUMNS = (
    FULL_NAME,
    CPF_SHOWN,
    Column("role", "Vínculo", "text", 14),  # Titular / Preposto / Requerente
    SERVICE,
    PERMIT_NUMBER,
    Column("birth_date", "Data de nascimento", "date", 12),
    Column("sex", "Sexo", "text", 10),
    PHONE,
    Column("email", "E-mail", "text", 28),
    Column("address", "Endereço", "text", 40),
)


def people_document_columns() -> tuple[Column, ...]:
    """The documents' columns of the people export, from their declarations (``documents_declared``)."""
    return tuple(Column(f.column, f.header or f.label, "date" if f.widget == "date" else "text", f.width)
                 for _, f in documents_declared.columns() if f.column is not None)


def people_spec() -> SheetSpec:
    """The people export: the person's columns, then one per declared document field with a column."""
    return SheetSpec(title="Pessoas", sheet_name="Pessoas", columns=(*_PEOPLE_COLUMNS, *people_document_columns()))


PEOPLE = people_spec()

PEOPLE_TRANSPARENCY = published(PEOPLE, "Permissionários e autorizatários",
                                ("full_name", "cpf", "role", "service", "permit_number"), _PEOPLE_COLUMNS)

# ----------------------------------------------------------------------- vehicles

VEHICLES = SheetSpec(
    title="Veículos",
    sheet_name="Veículos",
    columns=(
        PLATE,
        Column("renavam", "RENAVAM", "text", 14),
        Column("vin", "Chassi", "text", 20),
        Column("make_model", "Marca/modelo", "text", 24),
        Column("colour", "Cor", "text", 12),
        Column("manufacture_year", "Ano de fabricação", "int", 12),
        Column("model_year", "Ano do modelo", "int", 10),
        Column("engine_cc", "Cilindradas", "int", 11),
        Column("rental_category", "Categoria aluguel", "bool", 11),
        Column("useful_life_until", "Vida útil até", "date", 12),
        Column("crlv_valid_until", "CRLV válido até", "date", 12),
        SERVICE,
        PERMIT_NUMBER,
        HOLDER_NAME,
    ),
)

# -------------------------------------------------------------------- inspections

INSPECTIONS = SheetSpec(
    title="Vistorias",
    sheet_name="Vistorias",
    columns=(
        Column("inspected_at", WHEN, "datetime"),
        PLATE,
        PERMIT_NUMBER,
        SERVICE,
        HOLDER_NAME,
        Column("inspector", "Vistoriador", "text", 24),
        Column("kind", "Tipo", "text", 16),  # inicial, semestral, anual, pós-acidente
        Column("result", "Resultado", "text", 12),  # Aprovada / Reprovada
        Column("pending_items", "Pendências", "text", 48),
        Column("next_due", "Próxima vistoria", "date", 14),
    ),
)

# -------------------------------------------------------------------- infractions

INFRACTIONS = SheetSpec(
    title="Autos de infração",
    sheet_name="Autos de infração",
    columns=(
        Column("number", "Nº do auto", "text", 12),
        Column("occurred_at", WHEN, "datetime"),
        Column("place", "Local", "text", 30),
        Column("offender_name", "Autuado", "text", 32),
        Column("offender_role", "Vínculo", "text", 10),  # Titular / Preposto
        PERMIT_NUMBER,
        PLATE,
        Column("article", "Enquadramento", "text", 18),  # "Art. 30, G2, IV"
        Column("description", "Infração", "text", 48),
        Column("severity", "Gravidade", "text", 12),  # leve, média, grave, gravíssima
        Column("penalty", "Penalidade", "text", 14),
        Column("fine_ufm", "Multa (UFM)", "decimal", 11),
        Column("fine_amount", "Multa (R$)", "money", 14),
        Column("inspector", "Fiscal", "text", 24),
        Column("refused_to_sign", "Recusou assinar", "bool", 10),
        Column("status", "Situação", "text", 18),
    ),
)

# ---------------------------------------------------------------------- deadlines

DEADLINES = SheetSpec(
    title="Prazos",
    sheet_name="Prazos",
    columns=(
        Column("due_on", "Vencimento", "date"),
        Column("days_left", "Dias restantes", "int", 10),
        Column("obligation", "Obrigação", "text", 36),
        Column("article", "Artigo", "text", 14),
        PERMIT_NUMBER,
        SERVICE,
        HOLDER_NAME,
        PHONE,
        Column("status", "Situação", "text", 14),  # a vencer, vencido, cumprido
    ),
)

# ------------------------------------------------------------ organisation members

ORGANISATION_MEMBERS = SheetSpec(
    title="Filiados a organizações (Art. 9º)",
    sheet_name="Filiados",
    columns=(
        Column("organisation", "Organização", "text", 32),
        Column("organisation_kind", "Tipo", "text", 14),  # cooperativa, central, associação, operadora
        Column("cnpj", "CNPJ", "text", 19),
        Column("member_name", "Filiado", "text", 36),
        CPF_SHOWN,
        PERMIT_NUMBER,
        SERVICE,
        Column("joined_on", "Desde", "date"),
        Column("left_on", "Até", "date"),
    ),
)

# --------------------------------------------------------- quota study (Art. 39)

QUOTA_STUDY = SheetSpec(
    title="Estudo de vagas – Art. 39",
    sheet_name="Estudo de vagas",
    columns=(
        Column("indicator", "Indicador", "text", 44),
        Column("value", "Valor", "int", 14),
        Column("note", "Observação", "text", 60),
    ),
)

QUOTA_WAITING_LIST = SheetSpec(
    title="Estudo de vagas – Art. 39: cadastro de reserva da licitação",
    sheet_name="Cadastro de reserva",
    columns=(
        Column("rank", "Classificação", "int", 12),
        FULL_NAME,
        CPF_MASKED,
        Column("tender", "Licitação", "text", 18),
        Column("registered_on", "Inscrição", "date"),
        Column("status", "Situação", "text", 18),
    ),
)


@dataclass(frozen=True)
class QuotaStudy:
    """The figures of Art. 39's study, computed by the rules layer (quota)."""

    population: int
    population_year: int
    quota: int
    permits_in_force: int
    open_places: int
    waiting_list_size: int
    inhabitants_per_permit: int = 2000
    source: str = "IBGE"


def quota_study_sheets(
    study: QuotaStudy, waiting_list: Iterable[Mapping[str, Any] | Sequence[Any]] = ()
) -> list[tuple[SheetSpec, Iterable[Mapping[str, Any] | Sequence[Any]]]]:
    """The two sections of the study, ready for :func:`write_workbook`.

    First sheet: population and its year, quota, permits in force, open places,
    the tender's waiting list size.  Second sheet: the waiting list (CPF masked:
    ranking lists are published).
    """
    summary = [
        {
            "indicator": "População",
            "value": study.population,
            "note": f"Fonte: {study.source}, {study.population_year}",
        },
        {"indicator": "Ano de referência da população", "value": study.population_year},
        {
            "indicator": "Vagas de mototáxi (Art. 10, I)",
            "value": study.quota,
            "note": f"1 permissão para cada {format_int(study.inhabitants_per_permit)} habitantes",
        },
        {"indicator": "Permissões de mototáxi em vigor", "value": study.permits_in_force},
        {"indicator": "Vagas abertas", "value": study.open_places},
        {"indicator": "Cadastro de reserva da licitação", "value": study.waiting_list_size},
    ]
    return [(QUOTA_STUDY, summary), (QUOTA_WAITING_LIST, waiting_list)]


# ------------------------------------------------------------------- transparency

#: Every exportable kind by a stable name (CLI ``motodesk export <kind>``, GUI menu).
EXPORT_KINDS: dict[str, SheetSpec] = {
    "permits": PERMITS,
    "permits-public": PERMITS_TRANSPARENCY,
    "people": PEOPLE,
    "people-public": PEOPLE_TRANSPARENCY,
    "vehicles": VEHICLES,
    "inspections": INSPECTIONS,
    "infractions": INFRACTIONS,
    "deadlines": DEADLINES,
    "organisation-members": ORGANISATION_MEMBERS,
    "quota-study": QUOTA_STUDY,
    "quota-waiting-list": QUOTA_WAITING_LIST,
    "fees": FEES_COLLECTED,
}


def transparency_rows(
    rows: Iterable[Mapping[str, Any]], spec: SheetSpec = PERMITS_TRANSPARENCY
) -> Iterator[dict[str, Any]]:
    """Rows fit for publication: only ``spec``'s keys, the CPF masked.

    Lazy, so it streams as well as the rows it wraps.  Any other personal data
    the caller passed (birth date, address, phone...) is dropped here, and any
    key named ``cpf`` is masked whatever the spec says.
    """
    keys = spec.keys
    for row in rows:
        out = {key: row.get(key) for key in keys}
        if "cpf" in out:
            out["cpf"] = cpf_masked(out["cpf"])
        yield out


def _declarations_changed() -> None:
    """A document was declared or withdrawn: the people export follows."""
    global PEOPLE
    PEOPLE = people_spec()
    EXPORT_KINDS["people"] = PEOPLE


documents_declared.on_change(_declarations_changed)
