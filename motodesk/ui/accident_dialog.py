"""Record an accident of a vehicle (Art. 31, Grupo 2, II; Grupo 4, I): a small keyboard-first dialog.

Tab order: date of the accident, date reported, safety compromised, description, Registrar. The
service decides everything (late-report flag, blocked documents, scheduled accident inspection); the
dialog shows what it answered before closing.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QMessageBox,
    QWidget,
)

from motodesk.services import vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.services.vehicles import AccidentRecorded
from motodesk.ui import formkit
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp, place_field_errors
from motodesk.ui.widgets import DateField, mark_field, message_line


class AccidentDialog(GuardedDialog):
    """The accident's dates and whether it compromised safety, for the vehicle ``vehicle_id``."""

    def __init__(self, ctx: AppContext, vehicle_id: int, plate: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accident_dialog")
        self.setWindowTitle(f"Registrar acidente – {plate}")
        self.ctx = ctx
        self.vehicle_id = vehicle_id
        self.recorded: AccidentRecorded | None = None
        today = vehicles.local_today()
        self.happened_on = formkit.named(DateField(), "happened_on")
        self.reported_on = formkit.named(DateField(), "reported_on")
        self.reported_on.set_value(today)
        self.safety = formkit.named(QCheckBox("A &segurança do veículo foi comprometida (exige vistoria – Art. 31, "
                                              "Grupo 4, I)"), "safety_compromised")
        self.description = formkit.line_edit("description", max_len=vehicles.MAX_ACCIDENT_TEXT)
        self.message = message_line()
        ok = formkit.push_button("&Registrar", "ok", self.record, default=True)
        cancel = formkit.push_button("&Cancelar", slot=self.reject)

        form = formkit.form(
            ("&Data do acidente:", self.happened_on),
            ("Co&municado pelo titular em:", self.reported_on),
            self.safety,  # the whole row: a larger system font does not clip it
            ("D&escrição:", self.description),
        )
        note = wrapped_label("O titular comunica o acidente em até 5 dias (Art. 31, Grupo 2, II).")
        formkit.column(form, note, self.message, formkit.row(1, ok, cancel), parent=self)
        self.setMinimumWidth(560)
        self.happened_on.setFocus()
        self.mark_clean()

    def save_and_close(self) -> None:
        self.record()

    def record(self) -> bool:
        """Record it off the GUI thread; True when the call was started (the dialog closes when it lands)."""
        fields = {"happened_on": self.happened_on, "reported_on": self.reported_on, "description": self.description}
        for widget in fields.values():
            mark_field(widget, None)
        self.message.setText("")
        ctx, vehicle_id = self.ctx, self.vehicle_id
        happened, reported = self.happened_on.value(), self.reported_on.value()
        safety, description = self.safety.isChecked(), self.description.text()

        def recorded(result: AccidentRecorded) -> None:
            self.recorded = result
            if result.messages:
                QMessageBox.information(self, "Acidente registrado", "\n\n".join(result.messages))
            self.accept()

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError):
                place_field_errors(exc.fields, fields)
                self.message.setText(str(exc) + "\n" + "\n".join(exc.fields.values()))
                return True
            return False  # shown as every other error

        ServiceOp(self, lambda: vehicles.record_accident(ctx, vehicle_id, happened, reported, safety, description),
                  busy="Registrando o acidente…", change="accident").success(recorded).failure(refused).run()
        return True
