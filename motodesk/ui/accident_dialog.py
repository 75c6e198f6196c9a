"""Record an accident of a vehicle (Art. 31, Grupo 2, II; Grupo 4, I): a small keyboard-first dialog.

Tab order: date of the accident, date reported, safety compromised, description, Registrar. The
service decides everything (late-report flag, blocked documents, scheduled accident inspection); the
dialog shows what it answered before closing.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.vehicles import AccidentRecorded
from motodesk.ui.errors import show_error
from motodesk.ui.widgets import DateField, mark_field


class AccidentDialog(QDialog):
    """The accident's dates and whether it compromised safety, for the vehicle ``vehicle_id``."""

    def __init__(self, ctx: AppContext, vehicle_id: int, plate: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accident_dialog")
        self.setWindowTitle(f"Registrar acidente – {plate}")
        self.ctx = ctx
        self.vehicle_id = vehicle_id
        self.recorded: AccidentRecorded | None = None
        today = vehicles.local_today()
        self.happened_on = DateField()
        self.happened_on.setObjectName("happened_on")
        self.reported_on = DateField()
        self.reported_on.setObjectName("reported_on")
        self.reported_on.set_value(today)
        self.safety = QCheckBox("A segurança do veículo foi comprometida (exige vistoria – Art. 31, Grupo 4, I)")
        self.safety.setObjectName("safety_compromised")
        self.description = QLineEdit()
        self.description.setObjectName("description")
        self.description.setMaxLength(vehicles.MAX_ACCIDENT_TEXT)
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        ok = QPushButton("Registrar")
        ok.setObjectName("ok")
        ok.setDefault(True)
        cancel = QPushButton("Cancelar")
        ok.clicked.connect(self.record)
        cancel.clicked.connect(self.reject)

        form = QFormLayout()
        form.addRow("Data do acidente:", self.happened_on)
        form.addRow("Comunicado pelo titular em:", self.reported_on)
        form.addRow("", self.safety)
        form.addRow("Descrição:", self.description)
        note = QLabel("O titular comunica o acidente em até 5 dias (Art. 31, Grupo 2, II).")
        note.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(ok)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.happened_on.setFocus()

    def record(self) -> bool:
        fields = {"happened_on": self.happened_on, "reported_on": self.reported_on, "description": self.description}
        for widget in fields.values():
            mark_field(widget, None)
        try:
            self.recorded = vehicles.record_accident(self.ctx, self.vehicle_id, self.happened_on.value(),
                                                     self.reported_on.value(), self.safety.isChecked(),
                                                     self.description.text())
        except InvalidInputError as exc:
            for key, reason in exc.fields.items():
                if key in fields:
                    mark_field(fields[key], reason)
            self.message.setText(str(exc) + "\n" + "\n".join(exc.fields.values()))
            return False
        except MotodeskError as exc:
            show_error(self, exc)
            return False
        if self.recorded.messages:
            QMessageBox.information(self, "Acidente registrado", "\n\n".join(self.recorded.messages))
        self.accept()
        return True
