"""What the offender files at the counter: a defence (Art. 29, § 3º) or an appeal (Art. 34, §ún.), or its waiver."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import FiledDocument, FiledRecorded, NoticeView
from motodesk.ui import formkit
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.listpage import FILE_DIALOG_OPTIONS, documents_folder, labelled
from motodesk.ui.ops import ServiceOp, errors_on
from motodesk.ui.widgets import DateField, mark_field, message_line


class FiledDialog(GuardedDialog):
    """Record a defence (``stage="defence"``) or an appeal (``stage="appeal"``) with its scans."""

    def __init__(self, ctx: AppContext, view: NoticeView, stage: str = "defence", parent: QWidget | None = None, *,
                 today: date | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.view = view
        self.stage = stage
        self.today = today or enforcement.local_today()
        self.recorded: FiledRecorded | None = None
        self.files: list[tuple[str, bytes]] = []
        defence = stage == "defence"
        self.setObjectName("defence_dialog" if defence else "appeal_dialog")
        self.setWindowTitle(f"{'Registrar defesa' if defence else 'Registrar recurso'} – auto {view.number}")
        self.setMinimumWidth(620)

        due = view.defence_due if defence else view.appeal_due
        article = "Art. 29, § 3º" if defence else "Art. 34, parágrafo único"
        what = "defesa" if defence else "recurso"
        self.deadline = QLabel(
            f"<b>Prazo de {what}: até {format_date(due)}</b> ({article})" if due else f"Prazo de {what}: —")
        self.deadline.setObjectName("deadline")
        summary = wrapped_label(f"{view.number} · {view.infraction.article} — {view.infraction.text}<br>"
                                f"Autuado(a): {view.offender_name}")
        self.received_on = DateField(optional=False)
        self.received_on.setObjectName("received_on")
        self.received_on.set_value(self.today)
        self.waived = QCheckBox(f"O(a) autuado(a) &renuncia {'ao prazo de defesa' if defence else 'ao recurso'}")
        self.waived.setObjectName("waived")
        self.text = QPlainTextEdit()
        self.text.setObjectName("text")
        self.text.setPlaceholderText(f"Resumo ou texto da {what} apresentada" if defence else
                                     "Resumo ou texto do recurso apresentado")
        self.file_list = QListWidget()
        self.file_list.setObjectName("files")
        self.file_list.setMaximumHeight(80)
        add = QPushButton("&Anexar arquivo…")
        add.setObjectName("add_file")
        add.clicked.connect(self.add_files)
        remove = QPushButton("Re&tirar")
        remove.setObjectName("remove_file")
        remove.clicked.connect(self.remove_file)
        self.message = message_line()
        save = formkit.push_button("Re&gistrar", "save", self.save)
        cancel = formkit.push_button("&Cancelar", slot=self.reject)

        form = QFormLayout()
        form.addRow("Rece&bido em:", self.received_on)
        form.addRow("", self.waived)
        form.addRow("Te&xto:", self.text)
        self.text.setTabChangesFocus(True)
        files = QHBoxLayout()
        files.addWidget(self.file_list, 1)
        side = QVBoxLayout()
        side.addWidget(add)
        side.addWidget(remove)
        side.addStretch(1)
        files.addLayout(side)
        form.addRow(labelled("A&nexos (PDF, JPEG, PNG):", self.file_list), files)
        buttons = formkit.row(1, save, cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.deadline)
        layout.addWidget(summary)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.waived.toggled.connect(lambda on: self.text.setEnabled(not on))
        self.mark_clean()

    def has_changes(self) -> bool:
        return super().has_changes() or bool(self.files)

    def save_and_close(self) -> None:
        self.save()

    def add_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(self, "Anexar digitalização", str(documents_folder()),
                                                      "Documentos (*.pdf *.jpg *.jpeg *.png);;Todos (*)",
                                                      options=FILE_DIALOG_OPTIONS)
        for name in paths:
            path = Path(name)
            try:
                content = path.read_bytes()
            except OSError as exc:
                self.message.setText(f"Não foi possível ler «{path.name}»: {exc.strerror or exc}.")
                continue
            self.files.append((path.name, content))
            self.file_list.addItem(path.name)

    def remove_file(self) -> None:
        row = self.file_list.currentRow()
        if 0 <= row < len(self.files):
            del self.files[row]
            self.file_list.takeItem(row)

    def save(self) -> bool:
        """Record it off the GUI thread; True when the call was started (the dialog closes when it lands)."""
        for widget in (self.received_on, self.text):
            mark_field(widget, None)
        self.message.setText("")
        data = FiledDocument(received_on=self.received_on.value(), text=self.text.toPlainText(),
                             waived=self.waived.isChecked(), files=list(self.files))
        record = enforcement.record_defence if self.stage == "defence" else enforcement.record_appeal
        ctx, notice_id, today, version = self.ctx, self.view.id, self.today, self.view.version
        widgets: dict[str, QWidget] = {"received_on": self.received_on, "text": self.text}

        def recorded(result: FiledRecorded) -> None:
            self.recorded = result
            self.accept()

        refused = errors_on(self.message, widgets)

        ServiceOp(self, lambda: record(ctx, notice_id, data, today=today, expected_version=version),
                  busy="Registrando…", change="notice").success(recorded).failure(refused).run()
        return True
