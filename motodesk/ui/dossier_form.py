"""How the dossier window is built: the header with the photo, the tabs (personal data, the documents of
Art. 5 as boxes, applications and permits), the law's verdicts beside them, the buttons and shortcuts,
and what the user's role may edit. A mixin of :class:`~motodesk.ui.dossier.DossierWindow`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import (
    BRAZILIAN_UFS,
)
from motodesk.services import fees, people
from motodesk.services.applications import ApplicationInfo, PermitInfo
from motodesk.ui import live
from motodesk.ui.attachments import AttachmentList
from motodesk.ui.dossier_parts import (
    BOOL_CHOICES,
    FORMATTED_NUMBERS,
    PERSON_LABELS,
    PHOTO_SIZE,
    RESULT_CHOICES,
    SEX_CHOICES,
    WINDOW_KEYS,
    FieldSpec,
    _buddy,
    _choice_combo,
    _DocumentRow,
    _set_combo,
    document_fields,
    document_note,
    with_access_key,
)
from motodesk.ui.formatting import format_datetime
from motodesk.ui.formkit import push_button
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import STATUS_COLOURS, DateField, FormattedLineEdit, VerdictList

if TYPE_CHECKING:  # the methods run on a DossierWindow: what they use of it is typed there
    _Window = Any
else:
    _Window = object


class DossierFormMixin(_Window):
    """Builds the window's widgets (``_build``) and its actions (``_build_actions``)."""

    # -- building ---------------------------------------------------------------------------
    def _build(self) -> None:
        """The banner, the header, the tabs beside the verdicts, and the bottom row, top to bottom."""
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #fff8e1; border: 1px solid #f0c36d; padding: 6px;")
        self.banner.hide()

        photo_box = self._build_photo_box()  # header: photo slot, name, CPF, situation

        self.title_label = QLabel()
        self.title_label.setObjectName("title")
        self.title_label.setTextFormat(Qt.TextFormat.RichText)
        self.subtitle_label = QLabel()
        self.subtitle_label.setObjectName("subtitle")
        header_text = QVBoxLayout()
        header_text.addWidget(self.title_label)
        header_text.addWidget(self.subtitle_label)
        header_text.addStretch(1)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        # Alt+1/2/3 (Ctrl+Tab too): the letters are the fields'.
        self.tabs.addTab(self._build_personal(), "&1 Dados pessoais")
        self.tabs.addTab(self._build_documents(), "&2 Documentos (Art. 5º)")
        self.tabs.addTab(self._build_applications(), "&3 Requerimentos e permissões")
        self.tabs.tabBar().setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: Alt+n or Ctrl+Tab
        self.tabs.currentChanged.connect(self._tab_shown)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addLayout(photo_box)
        top.addLayout(header_text, 1)
        left_layout.addLayout(top)
        left_layout.addWidget(self.tabs, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self._build_eligibility())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([760, 500])

        bottom = self._build_bottom()

        self.changed_elsewhere = live.ChangedElsewhereBanner("Este dossiê")
        self.changed_elsewhere.reload.connect(self.reload_stored)
        layout = QVBoxLayout(self)
        layout.addWidget(self.changed_elsewhere)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)

    def _build_photo_box(self) -> QVBoxLayout:
        """The 3x4 photo slot of the header, its caption and "Foto 3x4…"."""
        self.photo_label = QLabel("Sem foto")
        self.photo_label.setObjectName("photo")
        self.photo_label.setFixedSize(*PHOTO_SIZE)
        self.photo_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.photo_label.setStyleSheet("border: 1px solid #9e9e9e; background: #f5f5f5; color: #616161;")
        self.photo_caption = QLabel("")
        self.photo_caption.setObjectName("photo_caption")
        self.photo_caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.photo_button = QPushButton("&Foto 3x4…")
        self.photo_button.setObjectName("photo_button")
        self.photo_button.setToolTip("Importar ou capturar a foto 3x4 (Art. 5º, IX)")
        self.photo_button.clicked.connect(self.request_photo)
        self.photo_button.setAutoDefault(False)
        photo_box = QVBoxLayout()
        photo_box.addWidget(self.photo_label)
        photo_box.addWidget(self.photo_caption)
        photo_box.addWidget(self.photo_button)
        photo_box.addStretch(1)
        return photo_box

    def _build_bottom(self) -> QHBoxLayout:
        """The status line with Salvar and Fechar."""
        self.status = QLabel()
        self.status.setObjectName("status")
        self.save_button = QPushButton("&Salvar")
        self.save_button.setObjectName("save")
        self.save_button.setToolTip("Salvar o dossiê (Ctrl+S)")
        self.save_button.clicked.connect(self.save)
        self.close_button = QPushButton("Fec&har")
        self.close_button.setObjectName("close")
        self.close_button.setToolTip("Fechar o dossiê (Esc)")
        self.close_button.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.close_button)
        return bottom

    def _tab_shown(self, index: int) -> None:
        """A tab chosen from the keyboard puts the cursor in its first field (not on a hidden one)."""
        focus = QApplication.focusWidget()
        shown = self.tabs.widget(index)
        if focus is not None and shown is not None and shown.isAncestorOf(focus):
            return
        page = self.tabs.widget(index)
        if page is None:
            return
        first = page.nextInFocusChain()
        while first is not None and first is not page and not (
                page.isAncestorOf(first) and first.focusPolicy() & Qt.FocusPolicy.TabFocus
                and first.isEnabled() and first.isVisibleTo(page)
                and not (isinstance(first, QLineEdit) and first.isReadOnly())):
            first = first.nextInFocusChain()
        if first is not None and first is not page:
            first.setFocus(Qt.FocusReason.TabFocusReason)

    def _line(self, key: str, placeholder: str = "", kind: str | None = None) -> QLineEdit:
        edit = FormattedLineEdit(kind) if kind else QLineEdit()
        edit.setObjectName(key)
        edit.setPlaceholderText(placeholder)
        edit.textChanged.connect(self._changed)
        edit.editingFinished.connect(lambda k=key: self._validate_person_field(k))
        self.person_inputs[key] = edit
        return edit

    def _with_error(self, key: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(widget)
        label = QLabel()
        label.setObjectName(f"error_{key}")
        label.setStyleSheet("color: #c62828;")
        label.setWordWrap(True)
        label.hide()
        layout.addWidget(label)
        self.error_labels[key] = label
        return box

    def _build_personal(self) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name_change_button = QPushButton("A&lterar nome…")
        self.name_change_button.setObjectName("change_name")
        self.name_change_button.setToolTip("Alteração de nome por casamento ou retificação judicial, com o motivo e o "
                                           "documento (supervisor; Art. 6º, § 1º; Art. 7º)")
        self.name_change_button.setAutoDefault(False)
        self.name_change_button.clicked.connect(self.change_name)
        self.name_change_button.hide()
        name_row = QHBoxLayout()
        name_row.addWidget(self._with_error("full_name", self._line("full_name", "Como no documento de identidade")), 1)
        name_row.addWidget(self.name_change_button, 0, Qt.AlignmentFlag.AlignTop)
        name_label = QLabel("&Nome completo:")
        name_label.setBuddy(self.person_inputs["full_name"])
        form.addRow(name_label, name_row)
        cpf = self._line("cpf", "000.000.000-00", "cpf")
        self.cpf_input = cpf  # reformatted after a save
        form.addRow(_buddy("&CPF:", cpf), self._with_error("cpf", cpf))
        birth = DateField()
        birth.setObjectName("birth_date")
        birth.valueChanged.connect(self._changed)
        self.person_inputs["birth_date"] = birth
        sex = _choice_combo(SEX_CHOICES)
        sex.setObjectName("sex")
        sex.currentIndexChanged.connect(self._changed)
        self.person_inputs["sex"] = sex
        row = QHBoxLayout()
        row.addWidget(self._with_error("birth_date", birth))
        sex_label = QLabel("Se&xo:")
        sex_label.setBuddy(sex)
        row.addWidget(sex_label)
        row.addWidget(sex)
        row.addStretch(1)
        birth_label = QLabel("&Data de nascimento:")
        birth_label.setBuddy(birth)
        form.addRow(birth_label, row)
        mother = self._line("mother_name")
        form.addRow(_buddy("Nome da &mãe:", mother), self._with_error("mother_name", mother))
        contact = QHBoxLayout()
        contact.addWidget(self._with_error("phone", self._line("phone", "(34) 99999-9999", "phone")))
        email = self._line("email")
        contact.addWidget(_buddy("E-mai&l:", email))
        contact.addWidget(self._with_error("email", email), 1)
        phone_label = QLabel("&Telefone:")
        phone_label.setBuddy(self.person_inputs["phone"])
        form.addRow(phone_label, contact)
        address = self._line("address", "Rua, número, complemento")
        form.addRow(_buddy("&Endereço:", address), self._with_error("address", address))
        place = QHBoxLayout()
        place.addWidget(self._with_error("district", self._line("district")), 2)
        city = self._line("city")
        place.addWidget(_buddy("C&idade:", city))
        place.addWidget(self._with_error("city", city), 2)
        uf = self._uf_combo("uf")
        self.person_inputs["uf"] = uf
        place.addWidget(_buddy("&UF:", uf))
        place.addWidget(self._with_error("uf", uf))
        zip_code = self._line("zip_code", "38740-000", "cep")
        zip_code.setMaximumWidth(110)
        place.addWidget(_buddy("CE&P:", zip_code))
        place.addWidget(self._with_error("zip_code", zip_code))
        district_label = QLabel("&Bairro:")
        district_label.setBuddy(self.person_inputs["district"])
        form.addRow(district_label, place)
        notes = QPlainTextEdit()
        notes.setObjectName("notes")
        notes.setTabChangesFocus(True)
        notes.setMaximumHeight(90)
        notes.textChanged.connect(self._changed)
        self.person_inputs["notes"] = notes
        form.addRow(_buddy("&Observações:", notes), self._with_error("notes", notes))
        return page

    def _build_documents(self) -> QWidget:
        self._doc_keys: set[str] = set(WINDOW_KEYS)
        container = QWidget()
        layout = QVBoxLayout(container)
        hint = QLabel("Num campo de um documento: Ctrl+Insert anexa a digitalização; Ctrl+↓ vai à lista de "
                      "anexos (Enter mostra, Delete remove).")
        hint.setObjectName("documents_hint")
        hint.setStyleSheet("color: #616161;")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        for kind, specs in document_fields().items():
            box = QGroupBox()
            box.setObjectName(f"doc_{kind.value}")
            grid = QGridLayout(box)
            inputs: dict[str, QWidget] = {}
            cells: list[tuple[QLabel, QWidget]] = []
            for spec in specs:
                widget = self._document_input(kind, spec)
                inputs[spec.name] = widget
                label = QLabel(with_access_key(spec.label, self._doc_keys) + ":")
                label.setBuddy(widget)
                cells.append((label, self._with_error(f"{kind.value}.{spec.name}", widget)))
            if kind is DocumentKind.DECLARATION_ART8:
                declares = _choice_combo(BOOL_CHOICES)
                declares.setObjectName("declares_no_other_permit")
                declares.currentIndexChanged.connect(self._changed)
                self.person_inputs["declares_no_other_permit"] = declares
                label = QLabel(with_access_key("Declara não deter táxi, escolar ou coletivo", self._doc_keys) + ":")
                label.setToolTip(PERSON_LABELS["declares_no_other_permit"])
                label.setBuddy(declares)
                cells.append((label, declares))
            per_row = 3
            for i, (label, widget) in enumerate(cells):
                row, column = 2 * (i // per_row), i % per_row
                grid.addWidget(label, row, column)
                grid.addWidget(widget, row + 1, column)
            next_row = 2 * ((len(cells) + per_row - 1) // per_row)
            note_text = document_note(kind, self.settings)
            note: QLabel | None = None
            if note_text is not None:
                note = QLabel(note_text)
                note.setObjectName(f"note_{kind.value}")
                note.setStyleSheet("color: #616161;")
                note.setWordWrap(True)
                grid.addWidget(note, next_row, 0, 1, per_row)
                next_row += 1
            files = AttachmentList(self.ctx, functools.partial(self._attach, kind), name=kind.value)
            files.changed.connect(lambda: self._set_status("Anexos atualizados."))
            # Not a Tab stop (a dozen lists would be a dozen wasted keys between the fields): from
            # any field of the box, Ctrl+Insert attaches a scan and Ctrl+↓ goes to the list.
            files.list.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            for widget in inputs.values():
                widget.installEventFilter(self)
                widget.setProperty("document_kind", kind.value)
            if not inputs:
                files.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the CPF copy: only the list
            grid.addWidget(files, next_row, 0, 1, per_row)
            for column in range(per_row):
                grid.setColumnStretch(column, 1)
            layout.addWidget(box)
            self.documents[kind] = _DocumentRow(kind, box, inputs, files)
            self.documents[kind].note = note
        layout.addStretch(1)
        container.setStyleSheet("".join(
            f'QGroupBox[verdict="{status.name.lower()}"]::title {{ color: {colour}; }}'
            for status, colour in STATUS_COLOURS.items()))
        area = QScrollArea()
        area.setObjectName("documents_area")
        area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the fields are the stops; the area follows them
        area.setWidget(container)
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return area

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = watched.property("document_kind") if isinstance(watched, QWidget) else None
        if kind and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
            files = self.documents[DocumentKind(kind)].attachments
            if event.key() == Qt.Key.Key_Insert and files.add_button.isEnabled():
                files.add_from_file()
                return True
            if event.key() == Qt.Key.Key_Down:
                files.list.setFocus(Qt.FocusReason.ShortcutFocusReason)
                return True
        return super().eventFilter(watched, event)

    def _uf_combo(self, name: str) -> QComboBox:
        """The UF, chosen (typing "MG" picks it)."""
        combo = QComboBox()
        combo.setObjectName(name)
        combo.addItem("—", None)
        for uf in sorted(BRAZILIAN_UFS):
            combo.addItem(uf, uf)
        combo.currentIndexChanged.connect(self._changed)
        return combo

    def _document_input(self, kind: DocumentKind, spec: FieldSpec) -> QWidget:
        name = f"{kind.value}.{spec.name}"
        widget: QWidget
        if spec.kind == "date":
            widget = DateField()
            widget.valueChanged.connect(self._changed)
        elif spec.kind == "bool":
            widget = _choice_combo(BOOL_CHOICES)
            widget.currentIndexChanged.connect(self._changed)
        elif spec.kind == "result":
            widget = _choice_combo(RESULT_CHOICES)
            widget.currentIndexChanged.connect(self._changed)
        elif spec.kind == "uf":
            widget = self._uf_combo(name)
        else:
            formatted = FORMATTED_NUMBERS.get((kind, spec.name))
            widget = FormattedLineEdit(formatted) if formatted else QLineEdit()
            widget.textChanged.connect(self._changed)
            widget.editingFinished.connect(lambda n=name: self._validate_document_field(n))
        widget.setObjectName(name)
        return widget

    def _build_applications(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.applications_model: RowTableModel[ApplicationInfo] = RowTableModel([
            Column("number", "Nº", lambda a: a.number),
            Column("service", "Serviço", lambda a: a.service.label),
            Column("state", "Situação", lambda a: a.state.label),
            Column("opened_on", "Aberto em", lambda a: a.opened_on),
            Column("opened_by", "Por", lambda a: a.opened_by),
        ], parent=self)
        self.permits_model: RowTableModel[PermitInfo] = RowTableModel([
            Column("number", "Número", lambda p: p.number),
            Column("service", "Serviço", lambda p: f"{p.service.label} ({p.service.instrument})"),
            Column("state", "Situação", lambda p: p.state.label),
            Column("issued_on", "Emitida em", lambda p: p.issued_on),
            Column("term_end", "Vigência até", lambda p: p.term_end),
            Column("certificate", "Certificado até", lambda p: p.certificate_valid_until),
        ], parent=self)
        self.applications_view = self._small_table(self.applications_model, "applications")
        self.permits_view = self._small_table(self.permits_model, "permits")
        self.open_application_button = push_button("", "open_application", self.open_application, auto_default=False)
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Requerimentos</b>"))
        row.addStretch(1)
        row.addWidget(self.open_application_button)
        self.payment_button = QPushButton("Registrar pa&gamento…")  # Art. 6º, § 6º: application, issue, inspection
        self.payment_button.setObjectName("record_payment")
        self.payment_button.clicked.connect(self.record_payment)
        row.addWidget(self.payment_button)
        layout.addLayout(row)
        layout.addWidget(self.applications_view, 1)
        layout.addWidget(QLabel("<b>Permissões e autorizações</b>"))
        layout.addWidget(self.permits_view, 1)
        self.permit_pending_label = QLabel("")  # the permit in force judged on today's facts (gate's rules)
        self.permit_pending_label.setObjectName("permit_pending")
        self.permit_pending_label.setWordWrap(True)
        self.permit_pending_label.setTextFormat(Qt.TextFormat.PlainText)
        self.permit_pending_label.hide()
        layout.addWidget(self.permit_pending_label)
        self.name_history_label = QLabel("")
        self.name_history_label.setObjectName("name_history")
        self.name_history_label.setWordWrap(True)
        self.name_history_label.setTextFormat(Qt.TextFormat.PlainText)
        self.name_history_label.hide()
        layout.addWidget(self.name_history_label)
        return page

    def _show_permit_pending(self, pending: list[people.PermitPending]) -> None:
        """What today's facts do not vouch for of each permit in force, each item with its article."""
        lines = [f"Pendências da permissão {p.number}{' (importada do cadastro anterior)' if p.imported else ''}:\n"
                 + "\n".join(f"• {v.message}" for v in p.verdicts) for p in pending]
        self.permit_pending_label.setText("\n".join(lines))
        self.permit_pending_label.setVisible(bool(lines))

    def _show_name_history(self, changes: list[people.NameChangeRow]) -> None:
        """The person's name changes (Art. 6º, § 1º; Art. 7º), oldest first."""
        lines = [f"{format_datetime(c.at)} — de “{c.old_name}” para “{c.new_name}”: {c.reason} (por {c.by_user})"
                 for c in changes]
        self.name_history_label.setText("Alterações de nome:\n" + "\n".join(lines) if lines else "")
        self.name_history_label.setVisible(bool(lines))

    def _small_table(self, model: RowTableModel[Any], name: str) -> QTableView:
        view = QTableView()
        view.setObjectName(name)
        view.setModel(model)
        view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setStretchLastSection(True)
        view.setAlternatingRowColors(True)
        return view

    def _build_eligibility(self) -> QWidget:
        panel = QGroupBox("Requisitos do requerente (Art. 5º, 6º § 1º e 8º)")
        panel.setObjectName("eligibility")
        self.service_combo = QComboBox()
        self.service_combo.setObjectName("service")
        for service in ServiceType:
            self.service_combo.addItem(service.label, service)
        _set_combo(self.service_combo, ServiceType.MOTOBOY)
        self.service_combo.currentIndexChanged.connect(self._service_changed)
        self.meter = QProgressBar()
        self.meter.setObjectName("completeness")
        self.meter.setRange(0, 100)
        self.meter.setFormat("Dossiê %p% completo")
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.reference_label = QLabel()
        self.reference_label.setObjectName("reference")
        self.reference_label.setStyleSheet("color: #616161;")
        self.reference_label.setWordWrap(True)
        self.verdict_list = VerdictList()
        self.verdict_list.setObjectName("verdicts")
        self.verdict_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # read, not a Tab stop
        self.print_button = QPushButton("Imp&rimir pendências…")
        self.print_button.setObjectName("print_pending")
        self.print_button.setToolTip("Comunicado ao requerente com o que falta e o artigo que o exige (A4)")
        self.print_button.clicked.connect(self.print_pending)
        layout = QVBoxLayout(panel)
        row = QHBoxLayout()
        service_label = QLabel("Ser&viço:")
        service_label.setBuddy(self.service_combo)
        row.addWidget(service_label)
        row.addWidget(self.service_combo, 1)
        layout.addLayout(row)
        layout.addWidget(self.meter)
        layout.addWidget(self.summary)
        layout.addWidget(self.reference_label)
        layout.addWidget(self.verdict_list, 1)
        layout.addWidget(self.print_button)
        return panel

    def _build_actions(self, on_new_person: Callable[[], object] | None,
                       on_find: Callable[[], object] | None) -> None:
        from motodesk.ui.actions import ActionCollection

        actions = ActionCollection(self)
        self.save_action: QAction = actions["save"]
        self.save_action.triggered.connect(self.save)
        self.addAction(self.save_action)
        if on_new_person is not None:
            actions["new_person"].triggered.connect(on_new_person)
            self.addAction(actions["new_person"])
        if on_find is not None:
            actions["find"].triggered.connect(on_find)
            self.addAction(actions["find"])
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.activated.connect(self.close)

    def _apply_role(self) -> None:
        editable = self.editable
        for widget in [*self.person_inputs.values(),
                       *(w for row in self.documents.values() for w in row.inputs.values())]:
            if isinstance(widget, (QLineEdit, QPlainTextEdit)):
                widget.setReadOnly(not editable)
            else:
                widget.setEnabled(editable)
        for row in self.documents.values():
            row.attachments.set_editable(editable and self.person_id is not None)
        self.save_button.setVisible(editable)
        self.save_action.setEnabled(editable)
        # A permit is personal and non-transferable (Art. 6º, § 1º; Art. 7º): a tied CPF and name are read-only.
        tied = bool(self.locks)
        why = ("Não pode ser alterado enquanto houver " + ", ".join(self.locks) +
               " (Art. 6º, § 1º; Art. 7º).") if tied else ""
        for key in ("cpf", "full_name"):
            widget = self.person_inputs[key]
            assert isinstance(widget, QLineEdit)
            widget.setReadOnly(not editable or tied)
            widget.setToolTip(why)
        self.name_change_button.setVisible(tied and self.ctx.user.role is Role.SUPERVISOR)
        self.photo_button.setEnabled(editable and self.person_id is not None)
        self.open_application_button.setEnabled(editable and self.person_id is not None)
        self.payment_button.setEnabled(self.person_id is not None and self.ctx.user.role in fees.RECORDERS)
        if not editable:
            self.banner.setText(f"Somente leitura: o perfil {self.ctx.user.role.label} consulta os dossiês, "
                                "mas não os altera.")
            self.banner.show()
        elif self.person_id is None:
            self.banner.setText("Pessoa nova: salve os dados pessoais para anexar documentos, foto e requerimentos.")
            self.banner.show()
        else:
            self.banner.hide()
        self._update_application_button()
