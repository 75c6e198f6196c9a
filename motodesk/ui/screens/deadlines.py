"""The "Prazos" page: what falls due in the next 30, 60 or 90 days and what is overdue.

Filters by kind of deadline, service and person (name or CPF). A row opens its person's dossier
(double-click or Enter). "Cartas de renovação" makes one A4 PDF with one letter per holder among
the rows shown, for the yearly renewal campaign; "Exportar planilha" writes the rows shown.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QFileDialog,  # noqa: F401 - tests replace its static dialogs
    QFormLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.rules.validators import format_cpf
from motodesk.services import deadlines as service
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.deadlines import WINDOWS, Campaign, DeadlineFilter, DeadlineRow
from motodesk.services.errors import MotodeskError
from motodesk.ui.errors import show_error
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec, save_file_name
from motodesk.ui.mainwindow import MainWindow, register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import AnyIndex, Column, RowTableModel
from motodesk.ui.widgets import DateField, ok_cancel_buttons

LETTER_ROLES = (Role.CLERK, Role.SUPERVISOR)
EXPORT_ROLES = (Role.SUPERVISOR, Role.ADMIN)
OVERDUE_COLOUR = QColor("#b00020")
SOON_COLOUR = QColor("#b35c00")
SOON_DAYS = 7
OVERDUE_SYMBOL = "✖"
SOON_SYMBOL = "⚠"
#: Kinds the view offers in its filter (accident reports: those flagged as late, Art. 31, Grupo 2, II).
KINDS = tuple(DeadlineKind)


def situation(row: DeadlineRow) -> str:
    """In words and with a symbol, beside the colour of the row (colour is never the only signal)."""
    days = row.days_left
    if days < 0:
        return f"{OVERDUE_SYMBOL} Vencido há {-days} dia{'s' if days < -1 else ''}"
    if days == 0:
        return f"{SOON_SYMBOL} Vence hoje"
    soon = f"{SOON_SYMBOL} " if days <= SOON_DAYS else ""
    return f"{soon}Falta{'m' if days > 1 else ''} {days} dia{'s' if days > 1 else ''}"


def phone(value: str | None) -> str:
    """Digits as the counter reads them: (34) 99999-0000; anything else as typed."""
    digits = "".join(ch for ch in value or "" if ch.isdigit())
    if len(digits) == 11:
        return f"({digits[:2]}) {digits[2:7]}-{digits[7:]}"
    if len(digits) == 10:
        return f"({digits[:2]}) {digits[2:6]}-{digits[6:]}"
    return value or ""


COLUMNS: list[Column[DeadlineRow]] = [
    Column("due", "Vencimento", lambda r: r.deadline.due),
    Column("days_left", "Situação", situation),
    Column("obligation", "Obrigação", lambda r: r.deadline.label),
    Column("article", "Artigo", lambda r: r.deadline.article),
    Column("detail", "Detalhe", lambda r: r.detail),
    Column("person", "Nome", lambda r: r.person_name),
    Column("cpf", "CPF", lambda r: format_cpf(r.cpf) if r.cpf else ""),
    Column("service", "Serviço", lambda r: r.service.label if r.service else ""),
    Column("permit", "Permissão", lambda r: r.permit_number),
    Column("phone", "Telefone", lambda r: phone(r.phone)),
]


class DeadlinesModel(RowTableModel[DeadlineRow]):
    """The rows of the view: overdue in red, due within a week in orange."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(COLUMNS, (), parent)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid() and 0 <= index.row() < self.rowCount():
            days = self.row_at(index.row()).days_left
            if days < 0:
                return OVERDUE_COLOUR
            if days <= SOON_DAYS:
                return SOON_COLOUR
            return None
        if role == Qt.ItemDataRole.ToolTipRole and index.isValid() and 0 <= index.row() < self.rowCount():
            row = self.row_at(index.row())
            return f"{row.deadline.label} ({row.deadline.article}) — {situation(row)}"
        return super().data(index, role)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if 0 <= column < len(self.columns) and self.columns[column].key == "days_left":
            self.layoutAboutToBeChanged.emit()
            self._rows.sort(key=lambda r: r.days_left, reverse=order == Qt.SortOrder.DescendingOrder)
            self.layoutChanged.emit()
            return
        super().sort(column, order)


class RenewalDialog(GuardedDialog):
    """The campaign the letters announce: its deadline, the portaria, where and when."""

    def __init__(self, letters: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cartas de renovação")
        self.deadline = DateField(optional=False)
        self.deadline.setObjectName("deadline")
        self.deadline.set_value(local_today() + timedelta(days=30))
        self.portaria = QLineEdit()
        self.portaria.setObjectName("portaria")
        self.portaria.setPlaceholderText("Portaria SESTRAN nº 12/2026 (opcional)")
        self.place = QLineEdit(Campaign.place)
        self.place.setObjectName("place")
        self.place.setCursorPosition(0)  # the address shown from its start, not scrolled to its end
        self.hours = QLineEdit(Campaign.opening_hours)
        self.hours.setObjectName("hours")
        form = QFormLayout()
        form.addRow("&Prazo da campanha:", self.deadline)
        form.addRow("&Ato (portaria):", self.portaria)
        form.addRow("&Local de atendimento:", self.place)
        form.addRow("&Horário:", self.hours)
        intro = wrapped_label(f"Uma carta por titular ({letters}), com os vencimentos listados na tela, em um só PDF A4.")
        buttons, _ok = ok_cancel_buttons(self, "&Gerar cartas")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.setMinimumWidth(560)  # the default place and hours whole
        self.mark_clean()

    def campaign(self) -> Campaign:
        return Campaign(deadline=self.deadline.value() or local_today(),
                        place=self.place.text().strip() or Campaign.place,
                        opening_hours=self.hours.text().strip(), portaria=self.portaria.text().strip())


class DeadlinesPage(ListPage):
    loaded = Signal(int)  # rows shown, after each reload
    letters_done = Signal(int)

    def __init__(self, ctx: AppContext, main_window: QWidget | None = None, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Prazos", parent=parent)
        self.main_window = main_window
        self.today = local_today
        role = ctx.user.role

        self.window_buttons = QButtonGroup(self)
        self.window_buttons.setExclusive(True)
        window_widgets: list[QPushButton] = []
        for days in WINDOWS:
            button = QPushButton(f"&{days} dias")
            button.setObjectName(f"window_{days}")
            button.setCheckable(True)
            button.setToolTip(f"Vencimentos até {days} dias a partir de hoje, e os vencidos")
            self.window_buttons.addButton(button, days)
            window_widgets.append(button)
        overdue = QPushButton("Venci&dos")
        overdue.setObjectName("window_overdue")
        overdue.setCheckable(True)
        overdue.setToolTip("Só o que já venceu")
        self.window_buttons.addButton(overdue, 0)
        window_widgets.append(overdue)
        self.window_buttons.button(WINDOWS[0]).setChecked(True)
        self.window_buttons.idClicked.connect(lambda _id: self.reload())

        self.panel: ListPanel[DeadlineRow] = ListPanel(ctx, ListSpec(
            name="deadlines", columns=COLUMNS, model=lambda _columns: DeadlinesModel(), sortable=True,
            sort=("due", False), identity=lambda r: (r.deadline.kind, r.deadline.due, r.person_id, r.detail),
            load=lambda v: service.deadlines(ctx, v["filter"], v["today"]),
            extra=lambda: {"filter": self.current_filter(), "today": self.today()},
            filters=[Filter("kind", "&Tipo:", kind="choice",
                            choices=[("Todos os prazos", None), *[(k.label, k) for k in KINDS]]),
                     Filter("service", "Ser&viço:", kind="choice",
                            choices=[("Todos os serviços", None), *[(s.label, s) for s in ServiceType]]),
                     Filter("person", "&Pessoa:", placeholder="Nome ou CPF", stretch=True)],
            actions=[
                Action("refresh", "A&tualizar", lambda _r: self.reload(), needs_row=False, shortcut="F5"),
                Action("open_dossier", "Abrir d&ossiê", lambda _r: self.open_row(self.table.currentIndex().row()),
                       default=True),
                Action("letters", "&Cartas de renovação…", lambda _r: self.make_letters(), needs_row=False,
                       enabled=lambda _r: role in LETTER_ROLES,
                       tooltip="" if role in LETTER_ROLES else "Perfis autorizados: Atendente e Supervisor."),
                Action("export", "&Exportar planilha…", lambda _r: self.export_rows(), needs_row=False,
                       enabled=lambda _r: role in EXPORT_ROLES,
                       tooltip="" if role in EXPORT_ROLES else "Perfis autorizados: Supervisor e Administrador."),
            ],
            kinds={"person", "permit", "vehicle", "inspection", "notice", "accident"},
            count=lambda _n, _m: "", on_loaded=self._loaded), autoload=False)
        self.panel._debounce.setInterval(300)
        for index, button in enumerate(window_widgets):
            self.panel.filter_row.insertWidget(index, button)
        self.panel.filter_row.insertSpacing(len(window_widgets), 16)
        self.set_body(self.panel)
        # the names tests and other code know
        self.model, self.table = self.panel.model, self.panel.table
        self.status = self.panel.count
        self.status.setObjectName("status")
        self.kind = self.panel.combo("kind")
        self.service = self.panel.combo("service")
        self.person = self.panel.line("person")
        self.open_button = self.panel.buttons["open_dossier"]
        self.letters_button = self.panel.buttons["letters"]
        self.export_button = self.panel.buttons["export"]
        self.refresh_button = self.panel.buttons["refresh"]
        self.panel.actions_row.removeWidget(self.status)
        self.panel.actions_row.insertWidget(0, self.status, 1)
        self.reload()

    # -- loading ------------------------------------------------------------------------------
    def current_filter(self) -> DeadlineFilter:
        window = self.window_buttons.checkedId()
        kind = self.kind.currentData()  # Qt hands enums back as their plain values
        service_type = self.service.currentData()
        return DeadlineFilter(
            horizon_days=window if window > 0 else 0,
            overdue_only=window == 0,
            kinds=frozenset({DeadlineKind(kind)}) if kind is not None else None,
            service=ServiceType(service_type) if service_type is not None else None,
            person=self.person.text().strip(),
        )

    def reload(self) -> None:
        self.status.setText("Carregando…")
        self.panel.reload()

    def _loaded(self, rows: list[DeadlineRow]) -> None:
        flt = self.current_filter()
        overdue = sum(1 for r in rows if r.overdue)
        people = len({r.person_id for r in rows})
        if not rows:
            text = "Nenhum prazo vencido." if flt.overdue_only else \
                f"Nenhum prazo nos próximos {flt.horizon_days} dias, nem vencido."
        else:
            text = (f"{len(rows)} prazo{'s' if len(rows) > 1 else ''} de {people} pessoa{'s' if people > 1 else ''}"
                    f" — {overdue} vencido{'s' if overdue != 1 else ''}")
            if not flt.overdue_only:
                text += f", {len(rows) - overdue} nos próximos {flt.horizon_days} dias"
        self.status.setText(text)
        self.status.setStyleSheet("color: #b00020;" if overdue else "")
        self.loaded.emit(len(rows))

    def open_row(self, row: int) -> QWidget | None:
        if not (0 <= row < self.model.rowCount()):
            return None
        person_id = self.model.row_at(row).person_id
        if person_id is None:
            QMessageBox.information(self, "Prazos", "Este prazo não está ligado a uma pessoa cadastrada.")
            return None
        return self.open_dossier(person_id)

    def open_dossier(self, person_id: int) -> QWidget | None:
        """The people page opens (and keeps track of) dossier windows: ask it, as the search does."""
        pages = getattr(self.main_window, "page_by_key", {})
        opener = getattr(pages.get("people"), "open_dossier", None)
        if opener is not None:
            return opener(person_id)  # type: ignore[no-any-return]
        from motodesk.ui.dossier import DossierWindow

        try:
            window = DossierWindow(self.ctx, person_id, self.window())
        except (MotodeskError, DatabaseError) as exc:
            show_error(self, exc)
            return None
        window.show()
        return window

    def make_letters(self) -> None:
        rows = self.model.rows()
        holders = {r.person_id for r in rows if r.permit_number and r.person_id is not None}
        if not holders:
            QMessageBox.information(self, "Cartas de renovação",
                                    "Nenhum titular com permissão em vigor entre os prazos mostrados.")
            return
        dialog = RenewalDialog(len(holders), self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        campaign = dialog.campaign()
        today = self.today()
        ctx = self.ctx
        self.status.setText("Gerando as cartas…")

        def done(result: service.RenewalLetters) -> None:
            self.status.setText(f"{result.letters} carta{'s' if result.letters != 1 else ''} de renovação gerada"
                                f"{'s' if result.letters != 1 else ''}.")
            preview_pdf(self, result.pdf, "Cartas de renovação")
            self.letters_done.emit(result.letters)

        def failed(_exc: BaseException) -> bool:
            self.status.setText("As cartas não foram geradas.")
            return False  # shown as every other error

        ServiceOp(self.panel, lambda: service.renewal_letters(ctx, rows, campaign, today),
                  busy="Gerando as cartas…").success(done).failure(failed).run()

    def export_rows(self) -> None:
        from motodesk.services.reports import suggested_name
        from motodesk.ui.screens.reports import start_export

        chosen = save_file_name(self, "Exportar prazos", suggested_name("deadlines"), "Planilha do Excel (*.xlsx)",
                                ".xlsx")
        if chosen is None:
            return
        path = str(chosen)
        start_export(self, self.ctx, "deadlines", path, deadline_filter=self.current_filter(),
                     on_done=lambda n: self.status.setText(f"Planilha gravada: {path} ({n} linhas)."))


@register_page("deadlines")
def deadlines_page(ctx: AppContext, main_window: MainWindow) -> QWidget:
    return DeadlinesPage(ctx, main_window)
