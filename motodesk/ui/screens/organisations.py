"""The "Organizações" page (Art. 9º): cooperatives, centrals, associations and operators, and their members.

Above, the register of organisations (type, name, CNPJ, address, contact, members); below, the members
of the selected one with their dates. A clerk registers an organisation (the CNPJ is checked as it is
typed), records that a holder joined, and records that a holder left — a right at any time (§ 3º),
which the page never refuses. A supervisor exports the members to a spreadsheet, off the GUI thread.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QLineEdit,
    QProgressDialog,
    QWidget,
)

from motodesk.exports.xlsx import ExportCancelled
from motodesk.rules.validators import format_cnpj, format_cpf, validate_cnpj
from motodesk.services import organisations
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.organisations import MemberRow, OrganisationInput, OrganisationKind, OrganisationRow
from motodesk.ui import person_picker
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import column, form, named, wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec, save_file_name
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column
from motodesk.ui.widgets import (
    DateField,
    FormattedLineEdit,
    dialog_answer,
    mark_field,
    ok_cancel_buttons,
    save_cancel_buttons,
)

RIGHT = Qt.AlignmentFlag.AlignRight

ORGANISATION_COLUMNS: list[Column[OrganisationRow]] = [
    Column("name", "Razão social", lambda o: o.name),
    Column("kind", "Tipo", lambda o: o.kind.label),
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


class OrganisationDialog(GuardedDialog):
    """Register or edit an organisation; saving happens here, so a refusal keeps what was typed."""

    #: The fields, by object name, with their labels in the order of the form.
    FIELDS = {"kind": "&Tipo:", "name": "&Razão social:", "cnpj": "C&NPJ:", "address": "&Endereço:",
              "phone": "Tele&fone:", "email": "E-&mail:", "contact_name": "Res&ponsável:"}

    def __init__(self, ctx: AppContext, row: OrganisationRow | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.row = row
        self.saved: OrganisationRow | None = None
        self.setObjectName("organisation_dialog")
        self.setWindowTitle("Editar organização" if row else "Nova organização")
        self.setMinimumWidth(560)
        self.kind = QComboBox()
        for kind in OrganisationKind:
            self.kind.addItem(kind.label, kind.value)
        self.name = QLineEdit()
        self.cnpj = FormattedLineEdit("cnpj")
        self.cnpj.textChanged.connect(lambda _t: self._check_cnpj(final=False))
        self.cnpj.editingFinished.connect(lambda: self._check_cnpj(final=True))
        self.address = QLineEdit()
        self.phone = FormattedLineEdit("phone")
        self.email = QLineEdit()
        self.contact_name = QLineEdit()
        self.widgets: dict[str, QWidget] = {}
        for key in self.FIELDS:
            widget = getattr(self, key)
            widget.setObjectName(key)
            self.widgets[key] = widget
        intro = wrapped_label("Operadora de Serviço, Central de Serviço, Cooperativa ou Associação de permissionários "
                              "e autorizatários (Art. 9º). A organização não vincula a permissão.")
        self.buttons, self.save_button = save_cancel_buttons(self, self.save)
        # the intro outside the form: a wrapped label there gets one line's height
        column(intro, form(*((label, self.widgets[key]) for key, label in self.FIELDS.items())), self.buttons,
               parent=self)
        if row is not None:
            self.kind.setCurrentIndex(list(OrganisationKind).index(row.kind))
            for key in ("name", "address", "phone", "email", "contact_name"):
                getattr(self, key).setText(getattr(row, key) or "")
            self.cnpj.setText(row.cnpj_formatted)
        self.mark_clean()

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
        ctx, values = self.ctx, self.values()
        organisation_id = self.row.id if self.row else None
        version = self.row.version if self.row else None

        def saved(row: OrganisationRow) -> None:
            self.saved = row
            self.accept()

        ServiceOp(self, lambda: organisations.save_organisation(ctx, values, organisation_id=organisation_id,
                                                                expected_version=version),
                  busy="Salvando a organização…", fields=self.widgets, change="organisation") \
            .success(saved).run()

    def save_and_close(self) -> None:
        self.save()


class DateDialog(GuardedDialog):
    """One date (joining or leaving), today by default."""

    def __init__(self, title: str, text: str, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("date_dialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        intro = wrapped_label(text)
        self.date = named(DateField(optional=False), "date")
        buttons, _ok = ok_cancel_buttons(self, "&Registrar")
        column(intro, form((label, self.date)), buttons, parent=self)
        self.mark_clean()

    def accept(self) -> None:
        problem = self.date.problem()
        if problem:
            mark_field(self.date, problem)
            self.date.setFocus()
            return
        super().accept()

    def value(self) -> date | None:
        return self.date.value()


# --- the page --------------------------------------------------------------------------------------


class OrganisationsPage(ListPage):
    """The register of organisations above, the members of the selected one below."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Organizações de titulares (Art. 9º)",
                         "Os titulares podem se organizar em cooperativas, centrais, associações ou operadoras e "
                         "devem informar a filiação (Art. 9º, § 2º); podem desvincular-se a qualquer tempo (§ 3º).",
                         parent)
        editors = frozenset(organisations.EDITORS)
        exporters = frozenset(organisations.EXPORTERS)
        self._export: ServiceOp | None = None
        self.orgs: ListPanel[OrganisationRow] = ListPanel(ctx, ListSpec(
            name="organisations_table", columns=ORGANISATION_COLUMNS,
            load=lambda v: organisations.list_organisations(ctx, v["search"]),
            filters=[Filter("search", "&Buscar:", placeholder="Buscar por nome ou CNPJ", stretch=True),
                     Filter("export_scope", "&Abrangência da exportação:", kind="choice", roles=exporters, reloads=False,
                            choices=[("da organização selecionada", "selected"),
                                     ("de todas as organizações", "all")])],
            actions=[
                Action("new_organisation", "&Nova organização…", lambda _r: self.new_organisation(), editors,
                       needs_row=False, shortcut="Ctrl+Shift+N"),
                Action("edit_organisation", "&Editar…", self._open_form, editors, default=True),
                Action("export_members", "E&xportar filiados…", lambda _r: self.export_members(), exporters,
                       needs_row=False, enabled=lambda _r: self._export is None and self.orgs.model.rowCount() > 0),
            ],
            kinds={"organisation", "person", "permit"}, count=lambda n, _m: f"{n} organização(ões)",
            on_current=lambda _row: self.members.reload()), autoload=False)
        self.members: ListPanel[MemberRow] = ListPanel(ctx, ListSpec(
            name="members_table", columns=MEMBER_COLUMNS, load=self._load_members,
            extra=lambda: {"organisation": self.orgs.selected()},
            filters=[Filter("show_former", "Mostrar &quem saiu", kind="check")],
            actions=[
                Action("join", "&Filiar titular…", lambda _r: self.join(), editors, needs_row=False,
                       enabled=lambda _r: self.orgs.selected() is not None),
                Action("leave", "Registrar &saída…", self.leave, editors, enabled=lambda m: m.current),
            ],
            identity=lambda m: m.affiliation_id, kinds={"organisation", "person", "permit"},
            count=lambda n, _m: f"{n} filiação(ões)", on_loaded=lambda _rows: self._members_title()),
            autoload=False)
        self.set_master_detail(self.orgs, self.members)
        # the names tests and other code know
        self.search = self.orgs.line("search")
        self.export_scope = self.orgs.combo("export_scope")
        self.former = self.members.check("show_former")
        self.model, self.table = self.orgs.model, self.orgs.table
        self.members_model, self.members_table = self.members.model, self.members.table
        self.new_button = self.orgs.buttons["new_organisation"]
        self.edit_button = self.orgs.buttons["edit_organisation"]
        self.export_button = self.orgs.buttons["export_members"]
        self.join_button = self.members.buttons["join"]
        self.leave_button = self.members.buttons["leave"]
        self.members_title = self.members.title
        self.orgs.reload()

    # --- data ------------------------------------------------------------------------------------
    def _load_members(self, values: dict[str, Any]) -> list[MemberRow]:
        org: OrganisationRow | None = values["organisation"]
        if org is None:
            return []
        return organisations.list_members(self.ctx, org.id, include_former=values["show_former"])

    def _members_title(self) -> None:
        org = self.orgs.selected()
        self.members_title.setText(f"<b>Filiados de {org.name}</b> – {org.members} atualmente" if org else
                                   "<b>Filiados</b> – escolha uma organização")

    def selected(self) -> OrganisationRow | None:
        return self.orgs.selected()

    def selected_member(self) -> MemberRow | None:
        return self.members.selected()

    def reload(self, select: int | None = None) -> None:
        self.orgs.reload(select=select)

    # --- actions ---------------------------------------------------------------------------------
    def _open_form(self, row: OrganisationRow | None) -> None:
        saved = dialog_answer(OrganisationDialog(self.ctx, row, self), lambda d: d.saved)
        if saved is not None:
            self.status.setText(f"{saved.kind.label} {saved.name} (CNPJ {saved.cnpj_formatted}) "
                                f"{'atualizada' if row else 'cadastrada'}.")
            self.reload(select=saved.id)

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
        on = dialog_answer(DateDialog("Filiação", f"{hit.full_name} informa a filiação a {org.name} "
                                              "(Art. 9º, § 2º).", "Filiado &desde:", self), DateDialog.value)
        if on is None:
            return
        ctx = self.ctx

        def joined(member: MemberRow) -> None:
            self.status.setText(f"{member.name} filiado(a) a {org.name} desde {format_date(member.joined_on)}.")
            self.reload(select=org.id)

        self.members.run(lambda: organisations.join_organisation(ctx, org.id, hit.person_id, on=on), joined,
                         change="organisation", busy="Registrando a filiação…")

    def leave(self, member: MemberRow | None = None) -> None:
        member = member or self.selected_member()
        org = self.selected()
        if member is None or org is None:
            return
        on = dialog_answer(DateDialog("Saída da organização",
                                      f"{member.name} deixa {org.name}. O titular pode desvincular-se a qualquer "
                                      "tempo (Art. 9º, § 3º).", "Saiu &em:", self), DateDialog.value)
        if on is None:
            return
        ctx = self.ctx

        def left(row: MemberRow) -> None:
            self.status.setText(f"Saída de {row.name} registrada em {format_date(row.left_on)}.")
            self.reload(select=org.id)

        self.members.run(lambda: organisations.leave_organisation(ctx, member.affiliation_id, on=on), left,
                         change="organisation", busy="Registrando a saída…")

    def export_members(self) -> None:
        org = self.selected()
        path = save_file_name(self, "Exportar filiados", "filiados.xlsx", "Planilhas Excel (*.xlsx)", ".xlsx")
        if path is None:
            return
        only = org.id if org is not None and self.export_scope.currentData() == "selected" else None
        progress = QProgressDialog("Exportando filiados…", "&Cancelar", 0, 0, self)
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
            self.orgs.update_buttons()

        def failed(exc: BaseException) -> bool:
            progress.close()
            self._export = None
            self.orgs.update_buttons()
            if isinstance(exc, ExportCancelled):
                self.status.setText("Exportação cancelada; nenhum arquivo foi gravado.")
            elif isinstance(exc, MotodeskError):
                show_error(self, exc)
            else:
                return False  # unexpected: the op logs it and shows "Erro inesperado" with the details
            return True

        self._export = ServiceOp(self, work, progress=True, lock=False).success(finished).failure(failed)
        progress.canceled.connect(self._export.cancel)
        self.orgs.update_buttons()
        self._export.run()


@register_page("organisations")
def make_organisations_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return OrganisationsPage(ctx, main_window)
