"""The "Organizações" page (Art. 9º): cooperatives, centrals, associations and operators, and their members.

Above, the register of organisations (type, name, CNPJ, address, contact, members); below, the members
of the selected one with their dates. A clerk registers an organisation (the CNPJ is checked as it is
typed), records that a holder joined, and records that a holder left — a right at any time (§ 3º),
which the page never refuses. A supervisor exports the members to a spreadsheet, off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from motodesk.exports.xlsx import ExportCancelled
from motodesk.rules.validators import format_cnpj, format_cpf, validate_cnpj
from motodesk.services import organisations
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.organisations import MemberRow, OrganisationInput, OrganisationKind, OrganisationRow
from motodesk.ui import person_picker
from motodesk.ui.background import BackgroundOp
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.mainwindow import register_page
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import DateField, fit_columns, heading, mark_field, run_dialog, table_view

RIGHT = Qt.AlignmentFlag.AlignRight

ORGANISATION_COLUMNS: list[Column[OrganisationRow]] = [
    Column("kind", "Tipo", lambda o: o.kind.label),
    Column("name", "Razão social", lambda o: o.name),
    Column("cnpj", "CNPJ", lambda o: o.cnpj_formatted),
    Column("members", "Filiados", lambda o: o.members, RIGHT),
    Column("address", "Endereço", lambda o: o.address or "", tooltip=lambda o: o.address),
    Column("contact", "Contato", lambda o: o.contact, tooltip=lambda o: o.contact),
]

MEMBER_COLUMNS: list[Column[MemberRow]] = [
    Column("name", "Filiado", lambda m: m.name),
    Column("cpf", "CPF", lambda m: format_cpf(m.cpf)),
    Column("permit_number", "Permissão", lambda m: m.permit_number or ""),
    Column("service", "Serviço", lambda m: m.service.label if m.service else ""),
    Column("permit_state", "Situação da permissão", lambda m: m.permit_state.label if m.permit_state else ""),
    Column("joined_on", "Desde", lambda m: m.joined_on),
    Column("left_on", "Saiu em", lambda m: m.left_on),
]








# --- the organisation form ------------------------------------------------------------------------


class OrganisationDialog(QDialog):
    """Register or edit an organisation; saving happens here, so a refusal keeps what was typed."""

    FIELDS = ("kind", "name", "cnpj", "address", "phone", "email", "contact_name")

    def __init__(self, ctx: AppContext, row: OrganisationRow | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.row = row
        self.saved: OrganisationRow | None = None
        self.setObjectName("organisation_dialog")
        self.setWindowTitle("Editar organização" if row else "Nova organização")
        self.resize(560, 0)
        self.kind = QComboBox()
        for kind in OrganisationKind:
            self.kind.addItem(kind.label, kind.value)
        self.name = QLineEdit()
        self.cnpj = QLineEdit()
        self.cnpj.setPlaceholderText("00.000.000/0000-00")
        self.cnpj.textChanged.connect(lambda _t: self._check_cnpj(final=False))
        self.cnpj.editingFinished.connect(lambda: self._check_cnpj(final=True))
        self.address = QLineEdit()
        self.phone = QLineEdit()
        self.phone.setPlaceholderText("(34) 3831-0000")
        self.email = QLineEdit()
        self.contact_name = QLineEdit()
        self.widgets: dict[str, QWidget] = {}
        for key in self.FIELDS:
            widget = getattr(self, key)
            widget.setObjectName(key)
            self.widgets[key] = widget
        intro = QLabel("Operadora de Serviço, Central de Serviço, Cooperativa ou Associação de permissionários "
                       "e autorizatários (Art. 9º). A organização não vincula a permissão.")
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow(intro)
        form.addRow("Tipo:", self.kind)
        form.addRow("Razão social:", self.name)
        form.addRow("CNPJ:", self.cnpj)
        form.addRow("Endereço:", self.address)
        form.addRow("Telefone:", self.phone)
        form.addRow("E-mail:", self.email)
        form.addRow("Responsável:", self.contact_name)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("save")
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        if row is not None:
            self.kind.setCurrentIndex(list(OrganisationKind).index(row.kind))
            for key in ("name", "address", "phone", "email", "contact_name"):
                getattr(self, key).setText(getattr(row, key) or "")
            self.cnpj.setText(row.cnpj_formatted)

    def _check_cnpj(self, *, final: bool) -> None:
        text = self.cnpj.text().strip()
        result = validate_cnpj(text)
        if result.ok:
            mark_field(self.cnpj, None)
            if result.value is not None and text != format_cnpj(result.value):
                self.cnpj.setText(format_cnpj(result.value))  # complete and valid: shown formatted
        elif final or len("".join(ch for ch in text if ch.isalnum())) >= 14:
            mark_field(self.cnpj, result.message if text else None)
        else:
            mark_field(self.cnpj, None)  # still typing

    def values(self) -> OrganisationInput:
        return OrganisationInput(kind=str(self.kind.currentData()), name=self.name.text(), cnpj=self.cnpj.text(),
                                 address=self.address.text(), phone=self.phone.text(), email=self.email.text(),
                                 contact_name=self.contact_name.text())

    def save(self) -> None:
        for widget in self.widgets.values():
            mark_field(widget, None)
        try:
            self.saved = organisations.save_organisation(
                self.ctx, self.values(), organisation_id=self.row.id if self.row else None,
                expected_version=self.row.version if self.row else None)
        except InvalidInputError as exc:
            for key, message in exc.fields.items():
                if key in self.widgets:
                    mark_field(self.widgets[key], message)
            show_error(self, exc)
            return
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.accept()


class DateDialog(QDialog):
    """One date (joining or leaving), today by default."""

    def __init__(self, title: str, text: str, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("date_dialog")
        self.setWindowTitle(title)
        intro = QLabel(text)
        intro.setWordWrap(True)
        self.date = DateField(optional=False)
        self.date.setObjectName("date")
        form = QFormLayout(self)
        form.addRow(intro)
        form.addRow(label, self.date)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def value(self) -> date | None:
        return self.date.value()


# --- the page --------------------------------------------------------------------------------------


class OrganisationsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        role = ctx.user.role
        self.editor = role in organisations.EDITORS
        self._export: BackgroundOp | None = None

        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Buscar por nome ou CNPJ")
        self.search.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.reload)
        self.search.textChanged.connect(lambda _t: self._timer.start())

        self.model: RowTableModel[OrganisationRow] = RowTableModel(ORGANISATION_COLUMNS)
        self.table = table_view("organisations_table")
        self.table.setModel(self.model)
        self.table.doubleClicked.connect(lambda _i: self.edit_organisation() if self.editor else None)
        self.new_button = self._button("new_organisation", "Nova organização…", self.new_organisation, self.editor)
        self.edit_button = self._button("edit_organisation", "Editar…", self.edit_organisation, self.editor)
        self.export_button = self._button("export_members", "Exportar filiados…", self.export_members,
                                          role in organisations.EXPORTERS)
        top_buttons = QHBoxLayout()
        for button in (self.new_button, self.edit_button):
            top_buttons.addWidget(button)
        top_buttons.addStretch(1)
        self.export_scope = QComboBox()
        self.export_scope.setObjectName("export_scope")
        self.export_scope.addItem("da organização selecionada", "selected")
        self.export_scope.addItem("de todas as organizações", "all")
        self.export_scope.setVisible(role in organisations.EXPORTERS)
        top_buttons.addWidget(self.export_button)
        top_buttons.addWidget(self.export_scope)

        self.members_title = QLabel("")
        self.members_title.setObjectName("members_title")
        self.former = QCheckBox("Mostrar quem saiu")
        self.former.setObjectName("show_former")
        self.former.toggled.connect(lambda _c: self.show_members())
        title_row = QHBoxLayout()
        title_row.addWidget(self.members_title, 1)
        title_row.addWidget(self.former)
        self.members_model: RowTableModel[MemberRow] = RowTableModel(MEMBER_COLUMNS)
        self.members = table_view("members_table")
        self.members.setModel(self.members_model)
        self.members.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.join_button = self._button("join", "Filiar titular…", self.join, self.editor)
        self.leave_button = self._button("leave", "Registrar saída…", self.leave, self.editor)
        member_buttons = QHBoxLayout()
        member_buttons.addWidget(self.join_button)
        member_buttons.addWidget(self.leave_button)
        member_buttons.addStretch(1)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.search)
        top_layout.addWidget(self.table, 1)
        top_layout.addLayout(top_buttons)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(title_row)
        bottom_layout.addWidget(self.members, 1)
        bottom_layout.addLayout(member_buttons)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        note = QLabel("Os titulares podem se organizar em cooperativas, centrais, associações ou operadoras e "
                      "devem informar a filiação (Art. 9º, § 2º); podem desvincular-se a qualquer tempo (§ 3º).")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Organizações de titulares (Art. 9º)"))
        layout.addWidget(note)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_members())
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object], visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda _c=False: slot())
        button.setVisible(visible)
        return button

    # --- data ------------------------------------------------------------------------------------
    def selected(self) -> OrganisationRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def selected_member(self) -> MemberRow | None:
        rows = self.members.selectionModel().selectedRows()
        return self.members_model.row_at(rows[0].row()) if rows else None

    def reload(self, select: int | None = None) -> None:
        self._timer.stop()
        current = self.selected()
        select = select or (current.id if current else None)
        try:
            rows = organisations.list_organisations(self.ctx, self.search.text())
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.model.set_rows(rows)
        fit_columns(self.table)
        if rows:
            index = next((i for i, r in enumerate(rows) if r.id == select), 0)
            self.table.selectionModel().select(
                self.model.index(index, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.show_members()

    def show_members(self) -> None:
        org = self.selected()
        if org is None:
            self.members_title.setText("<b>Filiados</b> – escolha uma organização")
            self.members_model.set_rows([])
            self._update_buttons()
            return
        try:
            rows = organisations.list_members(self.ctx, org.id, include_former=self.former.isChecked())
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.members_title.setText(f"<b>Filiados de {org.name}</b> – {org.members} atualmente")
        self.members_model.set_rows(rows)
        fit_columns(self.members)
        self._update_buttons()

    def _update_buttons(self) -> None:
        org = self.selected()
        member = self.selected_member()
        self.edit_button.setEnabled(org is not None)
        self.join_button.setEnabled(org is not None)
        self.leave_button.setEnabled(member is not None and member.current)
        self.export_button.setEnabled(self._export is None and self.model.rowCount() > 0)

    # --- actions ---------------------------------------------------------------------------------
    def _open_form(self, row: OrganisationRow | None) -> None:
        dialog = OrganisationDialog(self.ctx, row, self)
        try:
            if run_dialog(dialog) and dialog.saved is not None:
                saved = dialog.saved
                self.status.setText(f"{saved.kind.label} {saved.name} (CNPJ {saved.cnpj_formatted}) "
                                    f"{'atualizada' if row else 'cadastrada'}.")
                self.reload(select=saved.id)
        finally:
            dialog.deleteLater()

    def new_organisation(self) -> None:
        self._open_form(None)

    def edit_organisation(self) -> None:
        org = self.selected()
        if org is not None:
            self._open_form(org)

    def join(self) -> None:
        org = self.selected()
        if org is None:
            return
        hit = person_picker.pick(person_picker.people_picker(self.ctx, f"Filiar titular a {org.name}", self))
        if hit is None:
            return
        dialog = DateDialog("Filiação", f"{hit.full_name} informa a filiação a {org.name} (Art. 9º, § 2º).",
                            "Filiado desde:", self)
        try:
            if not run_dialog(dialog):
                return
            on = dialog.value()
        finally:
            dialog.deleteLater()
        try:
            member = organisations.join_organisation(self.ctx, org.id, hit.person_id, on=on)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.status.setText(f"{member.name} filiado(a) a {org.name} desde {format_date(member.joined_on)}.")
        self.reload(select=org.id)

    def leave(self) -> None:
        member = self.selected_member()
        org = self.selected()
        if member is None or org is None:
            return
        dialog = DateDialog("Saída da organização",
                            f"{member.name} deixa {org.name}. O titular pode desvincular-se a qualquer tempo "
                            "(Art. 9º, § 3º).", "Saiu em:", self)
        try:
            if not run_dialog(dialog):
                return
            on = dialog.value()
        finally:
            dialog.deleteLater()
        try:
            left = organisations.leave_organisation(self.ctx, member.affiliation_id, on=on)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.status.setText(f"Saída de {left.name} registrada em {format_date(left.left_on)}.")
        self.reload(select=org.id)

    def export_members(self) -> None:
        org = self.selected()
        suggested = "filiados.xlsx"
        name, _ = QFileDialog.getSaveFileName(self, "Exportar filiados", suggested, "Planilhas Excel (*.xlsx)")
        if not name:
            return
        path = Path(name)
        if path.suffix.lower() != ".xlsx":
            path = path.with_suffix(".xlsx")
        only = org.id if org is not None and self.export_scope.currentData() == "selected" else None
        progress = QProgressDialog("Exportando filiados…", "Cancelar", 0, 0, self)
        progress.setObjectName("export_progress")
        progress.setWindowTitle("Exportar filiados")
        progress.setMinimumDuration(300)
        ctx = self.ctx

        def work(report, cancelled):  # noqa: ANN001, ANN202 - runs off the GUI thread
            return organisations.export_members(ctx, path, organisation_id=only,
                                                progress=lambda n: report(n, 0), cancel=cancelled)

        def finished(rows: int) -> None:
            progress.close()
            self._export = None
            self.status.setText(f"{rows} filiação(ões) exportada(s) para {path}.")
            self._update_buttons()

        def failed(exc: BaseException) -> None:
            progress.close()
            self._export = None
            self._update_buttons()
            if isinstance(exc, ExportCancelled):
                self.status.setText("Exportação cancelada; nenhum arquivo foi gravado.")
            elif isinstance(exc, MotodeskError):
                show_error(self, exc)
            else:
                raise exc  # the excepthook logs it and shows "Erro inesperado"

        self._export = BackgroundOp(work, progress=True).on_success(finished).on_failure(failed)
        progress.canceled.connect(self._export.cancel)
        self._update_buttons()
        self._export.run()


@register_page("organisations")
def make_organisations_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return OrganisationsPage(ctx, main_window)
