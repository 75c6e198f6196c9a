"""The import of the secretariat's register: choose the file, read the report, confirm — or not.

The report lists every line of the sheet: "será incluída", "atualizará o cadastro" (with what
changes), "já existe, sem alterações" or "recusada" (and why, with the article). Nothing is written
until "Confirmar importação"; then every line that can go in goes in, in one transaction, or none.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QStandardPaths, Qt, Signal
from PySide6.QtGui import QCloseEvent, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QWidget,
)
from shiboken6 import isValid

from motodesk.errors import DatabaseError
from motodesk.rules.validators import format_cpf
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.imports import (
    ImportLine,
    ImportPreview,
    ImportSummary,
    Outcome,
    apply_import,
    preview_import,
    render_preview,
    render_summary,
)
from motodesk.ui.errors import show_error
from motodesk.ui.formkit import buddy, choice_combo, column, line_edit, push_button, row, wrapped_label
from motodesk.ui.guard import Answer, ask_unsaved, confirm
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import AnyIndex, Column, RowTableModel
from motodesk.ui.widgets import table_view

COLOURS = {Outcome.NEW: QColor("#1b5e20"), Outcome.UPDATE: QColor("#0d47a1"), Outcome.UNCHANGED: QColor("#616161"),
           Outcome.REFUSED: QColor("#b00020")}
SYMBOLS = {Outcome.NEW: "✚", Outcome.UPDATE: "✎", Outcome.UNCHANGED: "=", Outcome.REFUSED: "✖"}  # with the colour
SHOW = (("all", "Todas as linhas"), ("refused", "Só as recusadas"), ("importable", "Só as que serão gravadas"))

COLUMNS: list[Column[ImportLine]] = [
    Column("line", "Linha", lambda r: r.line, Qt.AlignmentFlag.AlignRight),
    Column("status", "Situação", lambda r: f"{SYMBOLS[r.outcome]} {r.outcome.label}"),
    Column("name", "Nome", lambda r: r.name),
    Column("cpf", "CPF", lambda r: format_cpf(r.cpf) if r.cpf else ""),
    Column("reason", "Motivo ou o que muda", lambda r: r.reason, tooltip=lambda r: r.reason or None),
    Column("warnings", "Avisos", lambda r: "; ".join(w.rstrip(".") for w in r.warnings),
           tooltip=lambda r: "\n".join(r.warnings) or None),
]


T = TypeVar("T")


class ImportLinesModel(RowTableModel[ImportLine]):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(COLUMNS, (), parent)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid() and 0 <= index.row() < self.rowCount():
            if self.columns[index.column()].key in ("status", "reason"):
                return COLOURS[self.row_at(index.row()).outcome]
            return None
        return super().data(index, role)


class ImportDialog(QDialog):
    previewed = Signal()
    imported = Signal()
    failed = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.preview: ImportPreview | None = None
        self.summary: ImportSummary | None = None
        self._is_busy = False
        self._closing_ok = False
        self.setWindowTitle("Importar cadastro de planilha")
        self.resize(1100, 640)

        self.path = line_edit("path", "Escolha a planilha (.xlsx) feita a partir do modelo")
        self.path.setReadOnly(True)
        self.choose_button = push_button("&Escolher arquivo…", "choose", self.choose_file)
        self.summary_label = wrapped_label("Nada foi importado.", "summary")
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.show_filter = choice_combo("show", ((label, key) for key, label in SHOW))
        self.show_filter.currentIndexChanged.connect(lambda _i: self._fill())

        self.model = ImportLinesModel(self)
        self.table = table_view("lines", multi=True, model=self.model)
        self.table.resizeColumnsToContents()  # every heading whole before the first spreadsheet

        self.copy_button = push_button("&Copiar relatório", "copy", self.copy_report)
        self.copy_button.setEnabled(False)
        self.confirm_button = push_button("C&onfirmar importação", "confirm", self.confirm)
        self.confirm_button.setEnabled(False)
        self.close_button = push_button("&Fechar", "close", self.reject)
        column(
            row(QLabel("Planilha:"), (self.path, 1), self.choose_button),
            row((self.summary_label, 1), buddy("&Mostrar:", self.show_filter), self.show_filter),
            (self.table, 1),
            row(self.copy_button, 1, self.confirm_button, self.close_button),
            parent=self)

    # -- the preview ---------------------------------------------------------------------------
    def choose_file(self) -> None:
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        path, _filter = QFileDialog.getOpenFileName(self, "Importar planilha", folder,
                                                    "Planilha do Excel (*.xlsx);;Todos os arquivos (*)",
                                                    options=QFileDialog.Option.DontUseNativeDialog)
        if path:
            self.load(path)

    def load(self, path: str) -> None:
        self.path.setText(path)
        self.preview = None
        self.model.set_rows([])
        ctx = self.ctx
        self._run(f"Conferindo <b>{escape(Path(path).name)}</b>, linha por linha…", lambda: preview_import(ctx, path),
                  self._previewed)

    def _run(self, text: str, work: Callable[[], T], done: Callable[[T], None], **op: Any) -> None:
        """``work`` off the GUI thread, the dialog busy and ``text`` shown meanwhile; ``done`` gets its
        answer unless the dialog was closed while it ran (a failure goes to ``_failure``)."""
        self._busy(True)
        self.summary_label.setText(text)

        def landed(result: T) -> None:
            if not isValid(self):
                return  # closed while the work ran
            self._busy(False)
            done(result)

        ServiceOp(self, work, lock=False, **op).success(landed).failure(self._failure).run()

    def _previewed(self, preview: ImportPreview) -> None:
        self.preview = preview
        if preview.file_errors:
            items = "".join(f"<li>{escape(e)}</li>" for e in preview.file_errors)
            self.summary_label.setText(f"<b style='color:#b00020'>Arquivo recusado; nada foi importado.</b>"
                                       f"<ul>{items}</ul>")
            self.confirm_button.setEnabled(False)
        else:
            n = len(preview.importable)
            first = escape(render_preview(preview).splitlines()[0])
            notes = "".join(f"<br><span style='color:#b35c00'>Aviso: {escape(w)}</span>"
                            for w in preview.file_warnings)
            notes += "".join(f"<br><span style='color:#424242'>{escape(w)}</span>" for w in preview.notes)
            tail = (f"<br>Confira as linhas e confirme: {n} linha{'s' if n != 1 else ''} "
                    f"ser{'ão' if n != 1 else 'á'} gravada{'s' if n != 1 else ''}, todas ou nenhuma."
                    if n else "<br>Nenhuma linha a gravar.")
            self.summary_label.setText(first + notes + tail)
            self.confirm_button.setEnabled(n > 0)
            self.confirm_button.setText(f"C&onfirmar importação ({n} linha{'s' if n != 1 else ''})" if n
                                        else "C&onfirmar importação")
        self.copy_button.setEnabled(True)
        self._fill()
        self.previewed.emit()

    def _fill(self) -> None:
        lines: list[ImportLine] = []
        if self.summary is not None:
            lines = list(self.summary.lines)
        elif self.preview is not None:
            lines = self.preview.lines
        show = self.show_filter.currentData()
        if show == "refused":
            lines = [r for r in lines if r.outcome is Outcome.REFUSED]
        elif show == "importable":
            lines = [r for r in lines if r.importable]
        self.model.set_rows(lines)
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        reason = [c.key for c in COLUMNS].index("reason")
        if header.sectionSize(reason) > 520:
            header.resizeSection(reason, 520)

    def copy_report(self) -> None:
        text = ""
        if self.preview is not None:
            text = render_preview(self.preview)
        if self.summary is not None:
            text += "\n" + render_summary(self.summary)
        QGuiApplication.clipboard().setText(text)

    # -- the import ----------------------------------------------------------------------------
    def confirm(self) -> None:
        preview = self.preview
        if preview is None or not preview.importable:
            return
        n = len(preview.importable)
        refused = len(preview.refused)
        text = (f"Gravar {n} linha{'s' if n != 1 else ''} da planilha {preview.path.name}?"
                + (f"\n\n{refused} linha{'s' if refused != 1 else ''} recusada{'s' if refused != 1 else ''} "
                   "não ser" + ("ão" if refused != 1 else "á") + " importada" + ("s" if refused != 1 else "")
                   + "." if refused else "")
                + "\n\nA importação grava todas as linhas confirmadas ou nenhuma.")
        if not confirm(self, "Confirmar importação", text):
            return
        ctx = self.ctx
        # The register's pages (people, vehicles, permits) show what the import wrote.
        self._run("Importando…", lambda: apply_import(ctx, preview), self._imported, change="*")

    def _imported(self, summary: ImportSummary) -> None:
        self.summary = summary
        self.confirm_button.setEnabled(False)
        first = render_summary(summary).splitlines()
        text = escape(first[0])
        if len(first) > 1 and not summary.written:
            text += "<br>" + escape(first[1])
        self.summary_label.setText(f"<b style='color:#1b5e20'>{text}</b>")
        self._fill()
        self.imported.emit()

    def _failure(self, exc: BaseException) -> bool:
        """The op's failure callback: an expected refusal is explained here; anything else goes on
        to the op's own handling (logged, shown with its details)."""
        if not isValid(self):
            return True  # closed while the work ran
        self._busy(False)
        if isinstance(exc, (MotodeskError, DatabaseError)):
            self.summary_label.setText("<b style='color:#b00020'>Nada foi importado.</b> "
                                       + escape(str(exc).splitlines()[0]))
            self.failed.emit(str(exc))
            show_error(self, exc)
            if self.preview is not None and self.summary is None and self.path.text():
                self.load(self.path.text())  # the register moved on: show the report as it now stands
            return True
        return False

    def reject(self) -> None:
        if self._is_busy:
            return  # the work running now would answer to a closed dialog: wait for it
        if self.preview is not None and self.preview.importable and self.summary is None and not self._closing_ok:
            answer = ask_unsaved(self, "A importação conferida ainda não foi confirmada: nada foi gravado.")
            if answer is Answer.SAVE:
                self.confirm()
                return
            if answer is Answer.CANCEL:
                return
        self._closing_ok = True
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - the window's ✕ asks as Esc does
        if self._closing_ok or not self.isVisible():
            event.accept()
            return
        event.ignore()
        self.reject()

    def _busy(self, busy: bool) -> None:
        self._is_busy = busy
        self.choose_button.setEnabled(not busy)
        self.confirm_button.setEnabled(False if busy else self.confirm_button.isEnabled())
        self.close_button.setEnabled(not busy)
