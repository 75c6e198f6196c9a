"""The "Relatórios" page: spreadsheets out, the register in, and the supervisor's dashboard.

* Planilhas — one button per export kind (and the transparency files, CPF masked), a save dialog,
  then the export off the GUI thread behind a progress dialog whose "Cancelar" leaves no file;
* Importação — "Baixar modelo" and "Importar planilha…" (the preview, then "Confirmar importação");
* Painel — the dashboard's charts, printable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules.common import Role
from motodesk.rules.text import format_int
from motodesk.services import reports
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.reports import EXPORTERS, ExportCancelled, ExportKind, suggested_name
from motodesk.ui.errors import show_error
from motodesk.ui.formkit import column, push_button, row, wrapped_label
from motodesk.ui.listpage import save_file_name, with_access_key
from motodesk.ui.mainwindow import MainWindow, register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import tab_widget

EXPORT_ROLES = (Role.SUPERVISOR, Role.ADMIN)
IMPORT_ROLES = (Role.CLERK, Role.SUPERVISOR)
DASHBOARD_ROLES = (Role.SUPERVISOR, Role.ADMIN)
XLSX_FILTER = "Planilha do Excel (*.xlsx)"


def _xlsx(path: str) -> str:
    return path if path.lower().endswith(".xlsx") else path + ".xlsx"


def start_export(parent: QWidget, ctx: AppContext, kind: str, path: str, *, deadline_filter: Any = None,
                 on_done: Callable[[int], None] | None = None,
                 on_cancelled: Callable[[], None] | None = None,
                 on_failed: Callable[[BaseException], None] | None = None) -> ServiceOp:
    """Export off the GUI thread with a progress dialog; "Cancelar" stops it and no file is left."""
    label = reports.export_kind(kind).label
    dialog = QProgressDialog(f"Exportando “{label}”…", "&Cancelar", 0, 0, parent)
    dialog.setObjectName("export_progress")
    dialog.setWindowTitle("Exportar planilha")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)

    op = ServiceOp(parent, lambda report, cancelled: reports.export(ctx, kind, path, report, cancelled,
                                                                    deadline_filter=deadline_filter),
                   progress=True, lock=False)

    def progressed(done: int, total: int) -> None:
        if total and dialog.maximum() != total:
            dialog.setMaximum(total)
        dialog.setValue(min(done, total) if total else 0)
        dialog.setLabelText(f"Exportando “{label}”: {format_int(done)} de {format_int(total)} linhas…")

    def cancel() -> None:
        dialog.setLabelText("Cancelando…")
        op.cancel()

    def finish() -> None:
        dialog.canceled.disconnect(cancel)
        dialog.close()
        dialog.deleteLater()

    def succeeded(count: int) -> None:
        finish()
        if on_done is not None:
            on_done(count)

    def failed(exc: BaseException) -> bool:
        finish()
        if isinstance(exc, ExportCancelled):
            if on_cancelled is not None:
                on_cancelled()
            return True
        if on_failed is not None:
            on_failed(exc)
        if isinstance(exc, (MotodeskError, DatabaseError)):
            show_error(parent, exc)
            return True
        return False  # unexpected: the op logs it and shows the details

    dialog.canceled.connect(cancel)
    op.progress(progressed).success(succeeded).failure(failed)
    parent._export_progress = dialog  # type: ignore[attr-defined]  # for tests and for the page's state
    dialog.show()
    return op.run()


class ExportsTab(QWidget):
    """One button per spreadsheet; transparency files apart."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        allowed = ctx.user.role in EXPORT_ROLES
        self.buttons: dict[str, QPushButton] = {}
        self.status = QLabel()
        self.status.setObjectName("export_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        internal = QGroupBox("Planilhas da secretaria")
        public = QGroupBox("Para publicação (transparência): CPF mascarado, sem dados pessoais")
        grids = {False: QGridLayout(internal), True: QGridLayout(public)}
        rows = {False: 0, True: 0}
        used: set[str] = set()
        for kind in EXPORTERS:
            button = QPushButton(with_access_key(kind.label + "…", used))
            button.setObjectName(f"export_{kind.key}")
            button.setMinimumWidth(260)
            button.setEnabled(allowed)
            button.clicked.connect(lambda _c=False, k=kind: self.export(k))
            note = wrapped_label(kind.description)
            grid = grids[kind.public]
            grid.addWidget(button, rows[kind.public], 0)
            grid.addWidget(note, rows[kind.public], 1)
            rows[kind.public] += 1
            self.buttons[kind.key] = button
        for grid in grids.values():
            grid.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        if not allowed:
            denied = QLabel("As exportações são feitas pelos perfis Supervisor e Administrador.")
            denied.setObjectName("export_denied")
            layout.addWidget(denied)
        intro = wrapped_label("Cada planilha traz um título com a data e quem exportou, cabeçalhos com filtro, datas como "
                              "datas (dd/mm/aaaa) e números como números. Textos que começam com =, +, -, @ não viram "
                              "fórmulas.")
        layout.addWidget(intro)
        layout.addWidget(internal)
        layout.addWidget(public)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.running: ServiceOp | None = None

    def export(self, kind: ExportKind) -> None:
        chosen = save_file_name(self, f"Exportar {kind.label}", suggested_name(kind.key), XLSX_FILTER, ".xlsx")
        if chosen is None:
            return
        path = str(chosen)
        for button in self.buttons.values():
            button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText(f"Exportando “{kind.label}”…")

        def done(count: int) -> None:
            self._enable()
            rows = format_int(count)
            self.status.setText(f"Planilha gravada: {path} ({rows} linha{'s' if count != 1 else ''}).")

        def cancelled() -> None:
            self._enable()
            self.status.setStyleSheet("color: #b35c00;")
            self.status.setText("Exportação cancelada; nenhum arquivo foi gravado.")

        def failed(_exc: BaseException) -> None:
            self._enable()
            self.status.setStyleSheet("color: #b00020;")
            self.status.setText("A planilha não foi gravada.")

        self.running = start_export(self, self.ctx, kind.key, path, on_done=done, on_cancelled=cancelled,
                                    on_failed=failed)

    def _enable(self) -> None:
        for button in self.buttons.values():
            button.setEnabled(True)
        self.running = None


class ImportTab(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        allowed = ctx.user.role in IMPORT_ROLES
        intro = wrapped_label(
                   "<p>Traga o cadastro que a secretaria mantém em planilha: baixe o modelo, copie as pessoas para a aba "
                   "<b>Cadastro</b> (uma por linha) e importe. Cada linha é conferida pelas regras da Lei nº 4.883/2017 e "
                   "pelos validadores (CPF, CNH, placa…); o relatório mostra o que será incluído, atualizado ou recusado "
                   "e por quê. Nada é gravado antes de você confirmar, e a importação grava todas as linhas confirmadas "
                   "ou nenhuma. Importar de novo a mesma planilha não duplica ninguém.</p>")
        self.template_button = push_button("Baixar &modelo…", "template", self.save_template)
        self.import_button = push_button("&Importar planilha…", "import", self.open_import)
        self.import_button.setEnabled(allowed)
        self.status = wrapped_label(name="import_status")
        only = [] if allowed else [QLabel("A importação é feita pelos perfis Atendente e Supervisor.")]
        column(intro, *only, row(self.template_button, self.import_button, 1), self.status, 1, parent=self)

    def save_template(self) -> None:
        from motodesk.exports.importer import write_template

        chosen = save_file_name(self, "Salvar o modelo de importação", "modelo-importacao-motodesk.xlsx",
                                XLSX_FILTER, ".xlsx")
        if chosen is None:
            return
        path = str(chosen)
        try:
            write_template(Path(path))
        except OSError as exc:
            show_error(self, MotodeskError(f"Não foi possível gravar “{Path(path).name}”: {exc.strerror or exc}."))
            return
        self.status.setText(f"Modelo gravado: {path}. Preencha a aba “Cadastro” (veja a aba “Instruções”).")

    def open_import(self) -> None:
        from motodesk.ui.import_dialog import ImportDialog

        dialog = ImportDialog(self.ctx, self)
        dialog.exec()
        if dialog.summary is not None:
            s = dialog.summary
            self.status.setText(f"Última importação: {s.created} pessoa(s) incluída(s), {s.updated} atualizada(s), "
                                f"{s.unchanged} sem alterações.")


class ReportsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.exports = ExportsTab(ctx)
        self.imports = ImportTab(ctx)
        self.tabs = tab_widget("report_tabs", (self.exports, "&Planilhas"), (self.imports, "I&mportação"))
        self.dashboard: QWidget | None = None
        if ctx.user.role in DASHBOARD_ROLES:
            from motodesk.ui.dashboard import DashboardWidget

            self.dashboard = DashboardWidget(ctx)
            self.tabs.addTab(self.dashboard, "Pai&nel")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Relatórios</h2>"))
        layout.addWidget(self.tabs, 1)
        if ctx.user.role not in EXPORT_ROLES:
            self.tabs.setCurrentWidget(self.imports)

    def confirm_close(self) -> bool:
        """An export still running: ask before the window closes (its file would not be written)."""
        op = self.exports.running
        if op is None:
            return True
        answer = QMessageBox.question(self, "Exportação em andamento",
                                      "Uma planilha ainda está sendo gravada. Cancelar a exportação e sair?")
        if answer == QMessageBox.StandardButton.Yes:
            op.cancel()
            return True
        return False


@register_page("reports")
def reports_page(ctx: AppContext, main_window: MainWindow) -> QWidget:
    return ReportsPage(ctx)
