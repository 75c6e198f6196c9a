"""Every document of the dossier, declared once (in the spirit of qutebrowser's ``configdata.yml``).

A Decree that adds, drops or changes a document of Art. 5º changes one :class:`DeclaredDocument`
here. Everything else is derived from :data:`DECLARED` (see :func:`declared`):

* the dossier screen's document boxes, their fields and their notes (``motodesk.ui.dossier``);
* which eligibility rule judges each box, and — for a document with no hand-written rule — the
  rule itself (:func:`check_declared`, called by :func:`motodesk.rules.eligibility.check_applicant`);
* whether the document gate checks it at printing (:mod:`motodesk.rules.document_gate`);
* the import template's and reader's document columns (``motodesk.exports.importer``,
  ``motodesk.services.imports``) and the people export's (``motodesk.exports.kinds``);
* the settings editor's legal bound of each validity setting (``motodesk.services.administration``);
* the deadlines view and the call letters: who must still bring a document added after the holders
  were registered (its transition start date, :meth:`LawSettings.requirement_start`).

A document whose rule is new is judged by :func:`check_declared` from its fields: present (a number
or an issue date), within its validity (the setting, counted from the issue date; or its own
"valid until" date), and with a negative result when it has one.  A document with logic of its own
(the CNH's category A for two years, the medical certificate's 30 days after a tender) keeps its
function in :mod:`motodesk.rules.eligibility` and names it in ``rule_id``.

A requirement added after holders were registered does not strand them: until the start date of
its transition (setting ``requirement_starts``), its absence is a pending item of the dossier, not a
refusal at printing; the deadlines view and the call letters list who must bring it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.evidence import after_reference
from motodesk.rules.periods import add_years
from motodesk.rules.text import format_date, plural

if TYPE_CHECKING:
    from motodesk.rules.settings import LawSettings

#: The people a document is asked of: the permit's holder, and the deputy (Art. 14, § 2º).
HOLDER, DEPUTY = "holder", "deputy"
ALL_SERVICES = frozenset(ServiceType)
ALL_ROLES = frozenset((HOLDER, DEPUTY))

Widget = Literal["text", "date", "bool", "result", "uf"]


@dataclass(frozen=True)
class DocField:
    """One field of a document box; ``name`` is the attribute of the stored document row.

    ``column``/``header``: its import and export column (key and pt_BR header), None when the sheets
    do not carry it; ``reads`` how the importer reads the cell (a ``FieldKind`` of the importer).
    """

    name: str
    label: str
    widget: Widget = "text"
    column: str | None = None
    header: str | None = None
    reads: str = "text"
    help: str = ""
    example: Any = None
    width: float = 14
    #: How the import report names a change of it ("número da CNH"); by default label and document.
    change: str | None = None


@dataclass(frozen=True)
class Validity:
    """How long a document is accepted: a setting of :class:`LawSettings`, in days or years,
    never above the law's bound (``bound``, None when the law leaves it open)."""

    setting: str
    unit: Literal["days", "years"]
    bound: int | None = None

    def amount(self, settings: LawSettings) -> int:
        value: int = getattr(settings, self.setting)
        return value

    def text(self, settings: LawSettings) -> str:
        """``"90 dias"``, ``"1 ano"`` — the period as the setting has it now."""
        n = self.amount(settings)
        return plural(n, "dia", "dias") if self.unit == "days" else plural(n, "ano", "anos")

    def until(self, issued: date, settings: LawSettings) -> date:
        """The last day a document issued on ``issued`` is accepted."""
        from datetime import timedelta

        n = self.amount(settings)
        return issued + timedelta(days=n) if self.unit == "days" else add_years(issued, n)


@dataclass(frozen=True)
class DeclaredDocument:
    """One document of the dossier: what it is, whom it is asked of, how it is judged and carried."""

    kind: str
    label: str
    article: str
    fields: tuple[DocField, ...] = ()
    #: The eligibility rule that judges it (a hand-written one of ``eligibility``); None with
    #: ``judged=True`` means :func:`check_declared` judges it, under the rule id ``doc_<kind>``.
    rule_id: str | None = None
    judged: bool = True
    services: frozenset[ServiceType] = ALL_SERVICES
    roles: frozenset[str] = ALL_ROLES
    validity: Validity | None = None
    #: The document gate refuses to print a certificate or badge while it is missing or expired.
    gate: bool = False
    #: The note under the box, from the settings in force (a period always reads the setting).
    note: Callable[[LawSettings], str] | None = None
    #: What the call letter asks the person to bring.
    to_bring: str = ""

    @property
    def rule(self) -> str:
        return self.rule_id or f"doc_{self.kind}"

    def applies(self, service: ServiceType, role: str = HOLDER) -> bool:
        return service in self.services and role in self.roles

    def note_text(self, settings: LawSettings) -> str | None:
        return self.note(settings) if self.note is not None else None


@dataclass(frozen=True)
class DocumentEvidence:
    """What the generic rule reads of a stored document (None: not provided)."""

    number: str | None = None
    issue_date: date | None = None
    valid_until: date | None = None
    result: str | None = None
    flag: bool | None = None

    @property
    def given(self) -> bool:
        return any(v not in (None, "") for v in (self.number, self.issue_date, self.valid_until, self.result,
                                                   self.flag))


def _medical_note(settings: LawSettings) -> str:
    from motodesk.rules.eligibility import MEDICAL_AFTER_HOMOLOGATION_DAYS

    years = plural(settings.medical_valid_years, "ano", "anos")
    return (f"Válido por {years}. Mototáxi: os {MEDICAL_AFTER_HOMOLOGATION_DAYS} dias após a homologação da "
            "licitação contam até a data em que o atestado foi apresentado (Art. 5º, § 2º).")


def _residence_note(settings: LawSettings) -> str:
    days = plural(settings.proof_of_residence_max_days, "dia", "dias")
    return f"O endereço é o dos dados pessoais. O comprovante vale por até {days}."


def _criminal_note(settings: LawSettings) -> str:
    return f"Renovadas a cada {plural(settings.criminal_valid_years, 'ano', 'anos')}."


_CNH_HELP_A = "dd/mm/aaaa. Data da primeira habilitação na categoria A (mínimo de 2 anos, Art. 5º, II)."

#: The dossier's documents, in the order of the screen.  ``DocumentKind`` (``rules.dossier``) names
#: the stored kinds of these; a document declared here with a new kind needs no enum member.
DECLARED: list[DeclaredDocument] = [
    DeclaredDocument(
        "identity", "Documento de identidade (RG)", "Art. 5º, V", rule_id="art5_v_identity",
        fields=(DocField("number", "Número do RG", column="rg", header="RG", change="número do RG",
                         help="Número do documento de identidade (Art. 5º, V).", example="MG-14.325.876"),
                DocField("issuer", "Órgão expedidor"), DocField("issuer_uf", "UF", "uf"),
                DocField("issue_date", "Expedição", "date")),
        to_bring="Documento de identidade (RG) original"),
    DeclaredDocument(
        "cnh", "Carteira Nacional de Habilitação", "Art. 5º, II", rule_id="art5_ii_cnh",
        fields=(DocField("number", "Nº de registro", column="cnh", header="CNH", reads="cnh", change="número da CNH",
                         help="Número de registro da CNH (11 dígitos).", example="02650306461"),
                DocField("categories", "Categorias", column="cnh_categories", header="Categorias CNH",
                         reads="categories", width=10, example="AB", change="categorias da CNH",
                         help="Categorias da CNH, por exemplo A ou AB. É preciso ter a categoria A (Art. 5º, II)."),
                DocField("reference_date", "1ª habilitação na categoria A", "date", column="cnh_first_a_date",
                         header="Data 1ª habilitação A", reads="past_date", help=_CNH_HELP_A,
                         change="data da 1ª habilitação A",
                         example=date(2010, 6, 1)),
                DocField("valid_until", "Validade", "date", column="cnh_expiry", header="Validade CNH",
                         reads="date", help="dd/mm/aaaa.", example=date(2028, 6, 1), width=12,
                         change="validade da CNH"),
                DocField("flag", "Observação EAR", "bool")),
        to_bring="CNH categoria A com a observação EAR (original)"),
    DeclaredDocument(
        "course", "Certificado do curso especializado", "Art. 5º, III", rule_id="art5_iii_course",
        fields=(DocField("number", "Nº do certificado"), DocField("school", "Entidade"),
                DocField("reference_date", "Conclusão", "date")),
        to_bring="Certificado do curso especializado (Art. 5º, III)"),
    DeclaredDocument(
        "military", "Certificado de reservista", "Art. 5º, VI", rule_id="art5_vi_military_elect",
        fields=(DocField("number", "Nº do certificado de reservista"),),
        note=lambda s: "Só para homens até o ano em que completam 45 anos.",
        to_bring="Certificado de reservista (homens até 45 anos)"),
    DeclaredDocument(
        "electoral", "Título de eleitor e quitação eleitoral", "Art. 5º, VI", rule_id="art5_vi_military_elect",
        fields=(DocField("number", "Nº do título"), DocField("flag", "Quitação eleitoral", "bool")),
        to_bring="Título de eleitor e certidão de quitação eleitoral"),
    DeclaredDocument(
        "medical", "Atestado médico (físico e mental)", "Art. 5º, VII", rule_id="art5_vii_medical",
        fields=(DocField("issue_date", "Data do atestado", "date"),
                DocField("presented_on", "Apresentado à Secretaria em", "date"),
                DocField("issuer", "Médico / CRM")),
        validity=Validity("medical_valid_years", "years"), gate=True, note=_medical_note,
        to_bring="Atestado médico de aptidão física e mental atualizado"),
    DeclaredDocument(
        "inss", "Inscrição no INSS (NIT/PIS)", "Art. 5º, VIII", rule_id="art5_viii_inss",
        fields=(DocField("number", "NIT/PIS", column="nit", header="NIT/PIS", reads="nit", width=15, change="NIT/PIS",
                         help="Inscrição no INSS (Art. 5º, VIII), 11 dígitos.", example="120.5464.678-6"),),
        to_bring="Comprovante de inscrição no INSS (NIT/PIS)"),
    DeclaredDocument(
        "residence", "Comprovante de residência", "Art. 5º, X", rule_id="art5_x_residence",
        fields=(DocField("issue_date", "Data do comprovante", "date"),
                DocField("issuer", "Emissor (conta de luz, água…)")),
        validity=Validity("proof_of_residence_max_days", "days"), note=_residence_note,
        to_bring="Comprovante de residência recente"),
    DeclaredDocument(
        "criminal", "Certidões negativas criminais", "Art. 5º, XI", rule_id="art5_xi_criminal",
        fields=(DocField("issue_date", "Emissão", "date"), DocField("result", "Resultado", "result")),
        validity=Validity("criminal_valid_years", "years", bound=5), gate=True, note=_criminal_note,
        to_bring="Certidões negativas criminais (Justiça Estadual e Federal)"),
    DeclaredDocument(
        "cpf", "CPF", "Art. 5º, XII", rule_id="art5_xii_cpf",
        note=lambda s: "O número é o do campo CPF dos dados pessoais; anexe aqui a cópia do documento.",
        to_bring="CPF"),
    DeclaredDocument(
        "declaration_art8", "Declaração de não ser permissionário de táxi/escolar/coletivo", "Art. 8º",
        rule_id="art8_other_permits", fields=(DocField("issue_date", "Data da declaração", "date"),),
        to_bring="Declaração de não deter permissão de táxi, transporte escolar ou coletivo (Art. 8º)"),
    DeclaredDocument(
        "other", "Outro documento", "", judged=False,
        fields=(DocField("number", "Descrição"), DocField("notes", "Observações"))),
]


def declared() -> list[DeclaredDocument]:
    """The declarations in force, in the order of the screen (read at each call: a test may add one)."""
    return list(DECLARED)


def declaration(kind: str) -> DeclaredDocument | None:
    return next((d for d in DECLARED if d.kind == str(kind)), None)


def kinds() -> list[str]:
    return [d.kind for d in DECLARED]


def rule_of_document() -> dict[str, str]:
    """Which verdict judges each document box (the rule id of :func:`check_applicant`)."""
    return {d.kind: d.rule for d in DECLARED if d.judged}


def generic() -> list[DeclaredDocument]:
    """The documents with no hand-written rule: :func:`check_declared` judges them."""
    return [d for d in DECLARED if d.judged and d.rule_id is None]


def columns() -> Iterator[tuple[DeclaredDocument, DocField]]:
    """Every document field carried by the import and export sheets, in declaration order."""
    for d in DECLARED:
        for f in d.fields:
            if f.column is not None:
                yield d, f


def change_label(doc: DeclaredDocument, f: DocField) -> str:
    """How the import report names a change of ``f``."""
    return f.change or f"{f.label.lower()} ({doc.label})"


def validity_bounds() -> dict[str, int]:
    """The law's bound of each validity setting (the settings editor's maximum)."""
    return {d.validity.setting: d.validity.bound for d in DECLARED if d.validity and d.validity.bound is not None}


def in_transition(doc: DeclaredDocument, on: date, settings: LawSettings) -> bool:
    """True while the document, added after holders were registered, is not yet required at printing."""
    start = settings.requirement_start(doc.kind)
    return start is not None and on < start


def _has(doc: DeclaredDocument, name: str) -> bool:
    return any(f.name == name for f in doc.fields)


def check_declared(doc: DeclaredDocument, evidence: DocumentEvidence | None, on: date,
                   settings: LawSettings, *, subject: str = "o requerente") -> Verdict:
    """The generic rule of a declared document: present, within its validity, negative when it has a result.

    Missing: PENDING (with the transition's start date when one is set); expired or positive: NOT_MET.
    """
    ev = evidence or DocumentEvidence()
    article, name = doc.article, doc.label
    missing: list[str] = []
    problems: list[str] = []
    said: list[str] = []
    if _has(doc, "number") and not (ev.number or "").strip():
        missing.append("number")
    if _has(doc, "issue_date") and ev.issue_date is None:
        missing.append("issue_date")
    if _has(doc, "result") and not (ev.result or "").strip():
        missing.append("result")
    if not doc.fields and not ev.given:
        missing.append("number")
    if ev.number:
        said.append(f"nº {ev.number}")
    if ev.issue_date is not None:
        if ev.issue_date > on:
            problems.append(after_reference(name, ev.issue_date, on))
        elif doc.validity is not None:
            until = doc.validity.until(ev.issue_date, settings)
            if on > until:
                problems.append(f"{name} de {format_date(ev.issue_date)} venceu em {format_date(until)} "
                                f"(vale por {doc.validity.text(settings)})")
            else:
                said.append(f"de {format_date(ev.issue_date)}, válido até {format_date(until)}")
        else:
            said.append(f"de {format_date(ev.issue_date)}")
    if ev.valid_until is not None:
        if ev.valid_until < on:
            problems.append(f"{name} venceu em {format_date(ev.valid_until)}")
        else:
            said.append(f"válido até {format_date(ev.valid_until)}")
    if (ev.result or "").strip().lower() == "positive":
        problems.append(f"{name} não é negativa")
    if problems:
        return Verdict(doc.rule, article, Status.NOT_MET, f"{article}: {'; '.join(problems)}.")
    if missing:
        start = settings.requirement_start(doc.kind)
        when = f" (exigido a partir de {format_date(start)})" if start is not None and on < start else ""
        return Verdict(doc.rule, article, Status.PENDING,
                       f"{article}: pendente — falta {name}{when}.", tuple(f"{doc.kind}.{m}" for m in missing))
    return Verdict(doc.rule, article, Status.MET, f"{article}: {name} {', '.join(said)}.".replace("  ", " "))


_listeners: list[Callable[[], None]] = []


def on_change(callback: Callable[[], None]) -> None:
    """Call ``callback`` after every :func:`declare` and :func:`undeclare` (the import template follows)."""
    _listeners.append(callback)


def _changed() -> None:
    for callback in _listeners:
        callback()


def declare(doc: DeclaredDocument, *, before: str | None = "other") -> None:
    """Add ``doc`` to the declarations (before ``before``, by default before "Outro documento")."""
    if declaration(doc.kind) is not None:
        raise ValueError(f"documento já declarado: {doc.kind}")
    index = next((i for i, d in enumerate(DECLARED) if d.kind == before), len(DECLARED))
    DECLARED.insert(index, doc)
    _changed()


def undeclare(kind: str) -> None:
    from motodesk.rules.dossier import DocumentKind

    DECLARED[:] = [d for d in DECLARED if d.kind != kind]
    if kind not in {m.value for m in DocumentKind}:  # a pseudo-member made on first use goes with it
        DocumentKind._value2member_map_.pop(kind, None)
    _changed()
