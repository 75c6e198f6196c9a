"""What the offender files at the counter: a defence (Art. 29, § 3º) or an appeal (Art. 34, §ún.), or its waiver."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
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
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.ui.formatting import format_date
from motodesk.ui.widgets import DateField, mark_field


class FiledDialog(QDialog):
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
        self.resize(620, 480)

        due = view.defence_due if defence else view.appeal_due
        article = "Art. 29, § 3º" if defence else "Art. 34, parágrafo único"
        what = "defesa" if defence else "recurso"
        self.deadline = QLabel(
            f"<b>Prazo de {what}: até {format_date(due)}</b> ({article})" if due else f"Prazo de {what}: —")
        self.deadline.setObjectName("deadline")
        summary = QLabel(f"{view.number} · {view.infraction.article} — {view.infraction.text}<br>"
                         f"Autuado(a): {view.offender_name}")
        summary.setWordWrap(True)
        self.received_on = DateField(optional=False)
        self.received_on.setObjectName("received_on")
        self.received_on.set_value(self.today)
        self.waived = QCheckBox(f"O(a) autuado(a) renuncia {'ao prazo de defesa' if defence else 'ao recurso'}")
        self.waived.setObjectName("waived")
        self.text = QPlainTextEdit()
        self.text.setObjectName("text")
        self.text.setPlaceholderText(f"Resumo ou texto da {what} apresentada" if defence else
                                     "Resumo ou texto do recurso apresentado")
        self.file_list = QListWidget()
        self.file_list.setObjectName("files")
        self.file_list.setMaximumHeight(80)
        add = QPushButton("Anexar arquivo…")
        add.setObjectName("add_file")
        add.clicked.connect(self.add_files)
        remove = QPushButton("Retirar")
        remove.setObjectName("remove_file")
        remove.clicked.connect(self.remove_file)
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        save = QPushButton("Registrar")
        save.setObjectName("save")
        save.clicked.connect(self.save)
        cancel = QPushButton("Cancelar")
        cancel.clicked.connect(self.reject)

        form = QFormLayout()
        form.addRow("Recebido em:", self.received_on)
        form.addRow("", self.waived)
        form.addRow("Texto:", self.text)
        files = QHBoxLayout()
        files.addWidget(self.file_list, 1)
        side = QVBoxLayout()
        side.addWidget(add)
        side.addWidget(remove)
        side.addStretch(1)
        files.addLayout(side)
        form.addRow("Anexos (PDF, JPEG, PNG):", files)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(save)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.deadline)
        layout.addWidget(summary)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.waived.toggled.connect(lambda on: self.text.setEnabled(not on))

    def add_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(self, "Anexar digitalização", "",
                                                      "Documentos (*.pdf *.jpg *.jpeg *.png);;Todos (*)")
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
        for widget in (self.received_on, self.text):
            mark_field(widget, None)
        data = FiledDocument(received_on=self.received_on.value(), text=self.text.toPlainText(),
                             waived=self.waived.isChecked(), files=list(self.files))
        record = enforcement.record_defence if self.stage == "defence" else enforcement.record_appeal
        try:
            self.recorded = record(self.ctx, self.view.id, data, today=self.today, expected_version=self.view.version)
        except InvalidInputError as exc:
            widgets: dict[str, QWidget] = {"received_on": self.received_on, "text": self.text}
            for key, reason in exc.fields.items():
                if key in widgets:
                    mark_field(widgets[key], reason)
            self.message.setText("\n".join([exc.message, *exc.fields.values()]))
            return False
        except MotodeskError as exc:
            self.message.setText(str(exc))
            return False
        self.accept()
        return True
