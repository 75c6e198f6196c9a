"""The dossier form's values and the law's verdict: fields filled from a stored dossier and read back,
what changed since it was read, each field validated as the clerk leaves it, and the verdicts on every
requirement recomputed for the chosen service, marked on the document boxes and the header. A mixin
of :class:`~motodesk.ui.dossier.DossierWindow`."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtWidgets import (
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import (
    MILITARY_OBLIGATION_LAST_AGE,
    check_applicant,
    check_deputy,
    completeness,
)
from motodesk.rules.validators import format_cpf
from motodesk.services import applications, people
from motodesk.services.applications import ApplicationInfo
from motodesk.services.clock import local_today
from motodesk.services.errors import MotodeskError
from motodesk.services.people import DocumentInput, Dossier, PersonInput
from motodesk.ui.dossier_parts import (
    FORMATTED_NUMBERS,
    PERSON_LABELS,
    _combo_value,
    _DocumentRow,
    _set_combo,
    _text,
    document_fields,
    flatten,
)
from motodesk.ui.formatting import format_date
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import (
    STATUS_SYMBOLS,
    DateField,
    FormattedLineEdit,
    mark_field,
)

if TYPE_CHECKING:  # the methods run on a DossierWindow: what they use of it is typed there
    _Window = Any
else:
    _Window = object


class DossierValuesMixin(_Window):
    """The form's values, their validation and the verdicts shown beside them."""

    person_version: int | None  # set by DossierWindow.__init__, None for a new person
    doc_versions: dict[DocumentKind, int | None]

    def _fill(self, dossier: Dossier) -> None:
        self._loading = True
        try:
            self._put_person(dossier.person)
            for kind, row in self.documents.items():
                self._put_document(row, dossier.document(kind))
        finally:
            self._loading = False
        self.person_version = dossier.version
        self.doc_versions = {kind: record.version for kind, record in dossier.documents.items()}
        self._set_base()
        for key in list(self.error_labels):
            self._mark(key, None)

    def _put_person(self, person: PersonInput) -> None:
        values = dataclasses.asdict(person)
        values["cpf"] = format_cpf(person.cpf) if person.cpf else ""
        for key, widget in self.person_inputs.items():
            self._put(widget, values.get(key))

    def _put_document(self, row: _DocumentRow, doc: DocumentInput) -> None:
        for name, widget in row.inputs.items():
            self._put(widget, getattr(doc, name))

    @staticmethod
    def _put(widget: QWidget, value: Any) -> None:
        if isinstance(widget, DateField):
            widget.set_value(value)
        elif isinstance(widget, QComboBox):
            _set_combo(widget, value)
        elif isinstance(widget, QPlainTextEdit):
            widget.setPlainText(value or "")
        elif isinstance(widget, QLineEdit):
            widget.setText("" if value is None else str(value))

    @staticmethod
    def _get(widget: QWidget) -> Any:
        if isinstance(widget, DateField):
            return widget.value()
        if isinstance(widget, FormattedLineEdit) and widget.kind in FORMATTED_NUMBERS.values():
            # Shown grouped like a CPF, kept as its digits (what was stored, imported and is searched)
            text = widget.text().strip()
            digits = "".join(ch for ch in text if ch.isdigit())
            return (digits if text and all(ch.isdigit() or ch in ". -" for ch in text) else text) or None
        if isinstance(widget, QComboBox):
            return _combo_value(widget)
        if isinstance(widget, (QLineEdit, QPlainTextEdit)):
            return _text(widget)
        return None

    # -- the form's values --------------------------------------------------------------------
    def person_input(self) -> PersonInput:
        values = {key: self._get(widget) for key, widget in self.person_inputs.items()}
        values["full_name"] = values.get("full_name") or ""
        values["cpf"] = values.get("cpf") or ""
        return PersonInput(**values)

    @staticmethod
    def _raw(widget: QWidget) -> Any:
        """What a field holds as typed or chosen (the key of the document it reads as)."""
        if isinstance(widget, QLineEdit):
            return widget.text()
        if isinstance(widget, QComboBox):
            return widget.currentIndex(), widget.currentData()
        if isinstance(widget, QPlainTextEdit):
            return widget.toPlainText()
        return None

    def document_inputs(self) -> dict[DocumentKind, DocumentInput]:
        """Each document box read as a DocumentInput; a box whose fields hold what they held when it was
        last read is not read again (a dossier reads its boxes several times a keystroke)."""
        result = {}
        for kind, row in self.documents.items():
            raw = tuple(self._raw(w) for w in row.inputs.values())
            if row.read is None or row.read[0] != raw:
                row.read = (raw, {name: self._get(w) for name, w in row.inputs.items()})
            result[kind] = DocumentInput(kind, **row.read[1])  # a new one each time: the caller's own
        return result

    def values(self) -> dict[str, Any]:
        return flatten(self._comparable_person(self.person_input()), self.document_inputs())

    @staticmethod
    def _comparable_person(person: PersonInput) -> PersonInput:
        # The form shows the CPF formatted; compare digits with digits.
        digits = "".join(ch for ch in person.cpf if ch.isdigit())
        return dataclasses.replace(person, cpf=digits if len(digits) == 11 else person.cpf)

    def _set_base(self) -> None:
        self.base = self.values()
        self._update_title()

    def is_dirty(self) -> bool:
        return self.editable and self.values() != self.base

    # -- live checks ----------------------------------------------------------------------------
    def _changed(self, *_args: object) -> None:
        if self._loading:
            return
        self._update_title()
        self._recheck_timer.start()
        if self._tried_save:
            self._validate_all(show=True)
        else:
            self._clear_if_fixed(self.sender())

    def _key_of(self, widget: object) -> str | None:
        for key, candidate in self.person_inputs.items():
            if candidate is widget:
                return key
        for kind, row in self.documents.items():
            for name, candidate in row.inputs.items():
                if candidate is widget:
                    return f"{kind.value}.{name}"
        return None

    def _clear_if_fixed(self, widget: object) -> None:
        """A field that says it is wrong stops saying so the moment it is right (new messages wait
        until the field is left)."""
        key = self._key_of(widget) if widget is not None else None
        if key is None or not self.field_message(key):
            return
        if "." in key:
            kind_value, name = key.split(".", 1)
            doc = self.document_inputs()[DocumentKind(kind_value)]
            wrong = people.validate_document(doc)[1].get(name) or people.document_warnings(doc).get(name)
        else:
            wrong = people.validate_person(self.person_input())[1].get(key)
            if wrong and self._get(self.person_inputs[key]) is None:
                wrong = None  # emptied: an empty required field waits for the save
        if not wrong:
            self._mark(key, None)

    def _in_teardown(self) -> bool:
        """Qt may report a field's "editing finished" while the window is being destroyed."""
        return not all(shiboken6.isValid(w) for w in (self, *self.person_inputs.values()))

    def _validate_person_field(self, key: str) -> None:
        """On leaving a field: mark it if it is wrong (an empty required field waits for the save)."""
        if self._in_teardown():
            return
        _clean, errors = people.validate_person(self.person_input())
        message = errors.get(key)
        widget = self.person_inputs[key]
        if message and not self._tried_save and self._get(widget) is None:
            message = None
        self._mark(key, message)
        if key == "cpf" and not message and self.editable and self.person_input().cpf:
            self._check_cpf_owner()

    def _check_cpf_owner(self) -> ServiceOp:
        """Whether someone else has this CPF — asked off the GUI thread; the mark comes when it answers."""
        ctx, cpf, person_id = self.ctx, self.person_input().cpf, self.person_id

        def owner() -> tuple[int, str] | None:
            try:
                return people.cpf_owner(ctx, cpf, except_person_id=person_id)
            except MotodeskError:
                return None

        def show(found: tuple[int, str] | None) -> None:
            if found is not None and self.person_input().cpf == cpf:
                self._mark("cpf", f"Já existe uma pessoa cadastrada com este CPF: {found[1]}.")

        return ServiceOp(self, owner, lock=False, key="cpf_owner").success(show).run()

    def _validate_document_field(self, key: str) -> None:
        if self._in_teardown() or not all(shiboken6.isValid(w) for row in self.documents.values()
                                          for w in row.inputs.values()):
            return
        kind_value, name = key.split(".", 1)
        doc = self.document_inputs()[DocumentKind(kind_value)]
        _clean, errors = people.validate_document(doc)
        warnings = people.document_warnings(doc)
        self._mark(key, errors.get(name) or warnings.get(name))

    def _validate_all(self, *, show: bool) -> dict[str, str]:
        _clean, errors = people.validate_person(self.person_input())
        for kind, doc in self.document_inputs().items():
            _c, doc_errors = people.validate_document(doc)
            errors.update({f"{kind.value}.{k}": v for k, v in doc_errors.items()})
        if show:
            for key in self.error_labels:
                kind_value, _, name = key.partition(".")
                message = errors.get(key)
                if not message and name:
                    message = people.document_warnings(self.document_inputs()[DocumentKind(kind_value)]).get(name)
                self._mark(key, message)
        return errors

    def _mark(self, key: str, message: str | None) -> None:
        widget = self.person_inputs.get(key) or self._document_widget(key)
        if widget is not None:
            mark_field(widget, message)
        label = self.error_labels.get(key)
        if label is not None:
            label.setText(message or "")
            label.setVisible(bool(message))

    def _document_widget(self, key: str) -> QWidget | None:
        if "." not in key:
            return None
        kind_value, name = key.split(".", 1)
        row = self.documents.get(DocumentKind(kind_value))
        return row.inputs.get(name) if row else None

    def field_message(self, key: str) -> str:
        """The error shown under a field ('' if none): what the clerk reads."""
        label = self.error_labels.get(key)
        return label.text() if label is not None and label.isVisible() else ""

    def service(self) -> ServiceType:
        return ServiceType(self.service_combo.currentData())

    def _service_changed(self) -> None:
        self._update_application_button()
        self.recheck()

    def _reference(self) -> tuple[date, ApplicationInfo | None]:
        application = applications.open_application_for(self.applications, self.service())
        return (application.opened_on if application else local_today()), application

    def recheck(self) -> None:
        """Judge the form as it is now, for the chosen service."""
        on, application = self._reference()
        homologated = application.tender_homologation_date if application else None
        mototaxi = self.service() is ServiceType.MOTOTAXI
        if mototaxi and homologated is None and self.tender is not None and self.tender.candidate is not None:
            homologated = self.tender.candidate.homologated_on
        facts = people.applicant_facts(
            self.person_input(), self.document_inputs(),
            photo_date=self.photo.local_date if self.photo else None,
            tender_homologation_date=homologated)
        # A deputy meets the holder's requirements (Art. 14, § 2º): the same rules, speaking of "o preposto".
        as_deputy = bool(self.deputy_of) and application is None
        judge = check_deputy if as_deputy else check_applicant
        self.verdicts = judge(facts, self.service(), on, self.settings)
        if mototaxi and not as_deputy and self.tender is not None:
            # Whether a tender is under way and the applicant a called candidate (Art. 6º; Art. 10, I).
            self.verdicts.append(self.tender.verdict)
        self.verdicts = self._invalid_dates_named(self.verdicts)
        self.verdict_list.set_verdicts(self.verdicts)
        share = completeness(self.verdicts)
        met = sum(v.status is Status.MET for v in self.verdicts)
        missing = sum(v.status is Status.PENDING for v in self.verdicts)
        failed = sum(v.status is Status.NOT_MET for v in self.verdicts)
        self.meter.setValue(round(share * 100))
        # Complete means every requirement met: with one red, the bar says what is informed and what fails.
        self.meter.setFormat("Dossiê %p% completo" if not failed else
                             f"Dossiê %p% informado · {failed} requisito(s) não atendido(s)")
        self.summary.setText(f"{met} de {len(self.verdicts)} requisitos atendidos · {missing} pendentes · "
                             f"{failed} não atendidos")
        where = f"data do requerimento nº {application.number}" if application else "hoje"
        self.reference_label.setText(f"Verificado em {format_date(on)} ({where}). A vistoria do veículo e os "
                                     "equipamentos (Art. 5º, IV) são verificados na vistoria.")
        self.print_button.setEnabled(self.person_id is not None and met < len(self.verdicts))
        by_rule = {v.rule_id: v for v in self.verdicts}
        rules_of = people.rule_of_document()
        for kind, row in self.documents.items():
            self._mark_box(row, by_rule.get(rules_of.get(kind, "")))
        self._show_military_box(on)

    def military_required(self, on: date) -> bool:
        """Whether the law asks this person for the reservist certificate (Art. 5º, VI; Lei 4.375/1964,
        art. 5º): men until the year they turn 45. Unknown sex or birth date: asked (the rule says what
        is missing)."""
        person = self.person_input()
        sex = (person.sex or "").strip().upper()
        if sex == "F":
            return False
        birth = person.birth_date
        return not (sex == "M" and birth is not None and on.year > birth.year + MILITARY_OBLIGATION_LAST_AGE)

    def _show_military_box(self, on: date) -> None:
        """The reservist box only for those the law asks it of — or when something is already in it."""
        row = self.documents.get(DocumentKind.MILITARY)
        if row is None:
            return
        filled = any(self._get(widget) not in (None, "") for widget in row.inputs.values()) \
            or bool(getattr(row.attachments, "items", None))
        shown = self.military_required(on) or filled
        if row.box.isHidden() == shown:
            row.box.setVisible(shown)

    def _invalid_dates(self) -> dict[str, list[str]]:
        """By rule: the date fields holding something that is not a date, and why (what the field says)."""
        found: dict[str, list[str]] = {}
        birth = self.person_inputs.get("birth_date")
        if isinstance(birth, DateField) and birth.problem():
            found.setdefault("art5_i_age", []).append(f"{PERSON_LABELS['birth_date']}: {birth.problem()}")
        rules_of = people.rule_of_document()
        for kind, row in self.documents.items():
            for name, widget in row.inputs.items():
                problem = widget.problem() if isinstance(widget, DateField) else None
                if problem and kind in rules_of:
                    labels = {spec.name: spec.label for spec in document_fields().get(kind, ())}
                    label = labels.get(name, name).rstrip(":")
                    found.setdefault(rules_of[kind], []).append(f"{kind.label}, {label}: {problem}")
        return found

    def _invalid_dates_named(self, verdicts: list[Verdict]) -> list[Verdict]:
        """A requirement whose date was typed wrong says "data inválida" and why — never that it is missing."""
        invalid = self._invalid_dates()
        if not invalid:
            return verdicts
        named = []
        for verdict in verdicts:
            problems = invalid.get(verdict.rule_id)
            if problems and verdict.status is not Status.MET:
                verdict = dataclasses.replace(verdict, status=Status.PENDING,
                                              message="data inválida — " + "; ".join(problems))
            named.append(verdict)
        return named

    def _mark_box(self, row: _DocumentRow, verdict: Verdict | None) -> None:
        """The document box's title mark and colour — touched only when they change (issue #20: a
        style sheet set on a group box repolishes every widget in it, 12 boxes per keystroke)."""
        status = verdict.status.name.lower() if verdict is not None else ""
        shown = (status, verdict.message if verdict is not None else "")
        if row.shown == shown:
            return
        kind = row.kind
        title = f"{kind.label} — {kind.article}" if kind.article else kind.label
        row.box.setTitle(f"{STATUS_SYMBOLS[verdict.status]}  {title}" if verdict is not None else title)
        row.box.setToolTip(shown[1])
        if row.shown is None or row.shown[0] != status:
            # One rule on the documents' container colours the title by this property.
            row.box.setProperty("verdict", status)
            row.box.style().unpolish(row.box)
            row.box.style().polish(row.box)
            row.box.update()
        row.shown = shown

    # -- header and title --------------------------------------------------------------------
    def _refresh_header(self) -> None:
        person = self.person_input()
        name = person.full_name.strip() or "Pessoa nova"
        from html import escape

        self.title_label.setText(f"<h2>{escape(name)}</h2>")
        parts = []
        if person.cpf:
            parts.append(f"CPF {format_cpf(person.cpf)}")
        in_force = [p for p in self.permits if p.state.in_force]
        if in_force:
            p = in_force[0]
            parts.append(f"{p.service.label}: {p.number} ({p.state.label.lower()})")
        if self.deputy_of:
            parts.append("Preposto de " + ", ".join(self.deputy_of))
        open_apps = [a for a in self.applications if a.is_open]
        if open_apps:
            parts.append(f"Requerimento {open_apps[0].number} – {open_apps[0].service.label} "
                         f"({open_apps[0].state.label.lower()})")
        self.subtitle_label.setText(" · ".join(parts) or "Sem requerimento")
        self._update_title()

    def _update_title(self) -> None:
        name = (self.base.get("full_name") or "").strip() or "Pessoa nova"
        mark = " *" if self.is_dirty() else ""
        self.setWindowTitle(f"Dossiê – {name}{mark}")
