"""The vehicle form: CRV/CRLV data, insurance, service and holder, with the law's verdicts live.

Opened to register a holder's vehicle, to correct one, to view a replaced one (read-only), or to
register the new vehicle of an authorised replacement (permuta, Art. 31, Grupo 3, II).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from motodesk.rules.common import ServiceType
from motodesk.rules.eligibility import BRAZILIAN_UFS
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services import vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.settings import law_settings
from motodesk.services.vehicles import HolderRef, VehicleInput, VehicleRecord
from motodesk.ui.dossier import fit_to_screen, with_access_key
from motodesk.ui.formatting import format_datetime
from motodesk.ui.formkit import (
    Item,
    W,
    choice_combo,
    column,
    form,
    host,
    line_edit,
    named,
    push_button,
    row,
    scroll_area,
    wrapped_label,
)
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.widgets import (
    DateField,
    FormattedLineEdit,
    VerdictList,
    field_error,
    mark_field,
    message_line,
)

CATEGORY_LABELS = {"aluguel": "Aluguel", "particular": "Particular", "oficial": "Oficial",
                   "aprendizagem": "Aprendizagem", "coleção": "Coleção"}
INT_FIELDS = ("year_manufacture", "year_model", "engine_cc", "crlv_year")
TEXT_FIELDS = ("plate", "renavam", "vin", "make", "model", "crlv_municipality",
               "owner_name", "owner_cpf", "insurance_number", "insurance_insured_name", "insurance_insured_cpf")
#: Messages the form shows only after a save attempt (an empty required field is no error while typing).
REQUIRED_ONLY_ON_SAVE = ("holder_id", "service_type")


#: The colours of the SENATRAN/DENATRAN table (Portaria that lists the CRV's "cor predominante").
SENATRAN_COLOURS = ("Amarela", "Azul", "Bege", "Branca", "Cinza", "Dourada", "Grená", "Laranja", "Marrom",
                    "Prata", "Preta", "Rosa", "Roxa", "Verde", "Vermelha", "Fantasia")


def _fold(text: str) -> str:
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFD", text.strip().upper()) if ch.isalnum())


class _Labels:
    """Field labels with unique access keys, assigned in reading order."""

    def __init__(self, reserved: str) -> None:
        self.used = set(reserved)

    def __call__(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(with_access_key(text, self.used) + ":")
        label.setBuddy(buddy)
        return label


#: What shares a form's row with its field: a widget, a (widget, stretch) pair, or a labelled field as
#: (text, widget) or (text, widget, stretch).
RowExtra = QWidget | tuple[QWidget, int] | tuple[str, QWidget] | tuple[str, QWidget, int]
#: A form's row: its label's text, its field, then what shares the row.
FormLine = tuple[str, QWidget, *tuple[RowExtra, ...]]


def _form_row(lab: _Labels, line: FormLine) -> tuple[QLabel, QWidget | QLayout]:
    """The label and the field (or the row) of ``line``; the labels inside a row are made before the
    row's own (the order that gave the access keys the counter knows)."""
    text, field, *extras = line
    if not extras:
        return lab(text, field), field
    items: list[Item] = [field]
    for extra in extras:
        if isinstance(extra, tuple) and isinstance(extra[0], str):
            items.append(lab(extra[0], extra[1]))
            items.append((extra[1], extra[2]) if len(extra) == 3 else extra[1])
        else:
            items.append(extra)  # type: ignore[arg-type]  # a widget or a (widget, stretch) pair
    layout = row(*items)  # before the row's label (see above)
    return lab(text, field), layout


def _group(title: str, lab: _Labels, lines: Iterable[FormLine]) -> QGroupBox:
    """A titled box holding a form of ``lines``."""
    box = QGroupBox(title)
    form(*(_form_row(lab, line) for line in lines), parent=box)
    return box


class VehicleForm(GuardedDialog):
    """Register or correct a vehicle; `saved_id` is set when the save succeeds.

    Esc, Fechar or ✕ with something typed asks Salvar / Descartar / Cancelar."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, vehicle_id: int | None = None,
                 holder_id: int | None = None, replacing_id: int | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vehicle_form")
        self.ctx = ctx
        self.settings = LawSettings()  # the law's defaults until the settings in force are read
        self.vehicle_id = vehicle_id
        self.replacing: VehicleRecord | None = None
        self.service_carried: ServiceType | None = None  # taken from the holder's open application
        self.record: VehicleRecord | None = None
        self.holder: HolderRef | None = None
        self.saved_id: int | None = None
        self._tried = False
        self.inputs: dict[str, QWidget] = {}
        self.setWindowTitle("Veículo")
        self.saving = False
        self._holder_asked = False
        lab = _Labels("sh")  # Salvar, Fechar

        self.banner = named(QLabel(), "banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #fff8e1; border: 1px solid #f0c36d; padding: 6px;")
        self.banner.hide()
        self._lay_out(self._holder_box(lab), self._vehicle_box(lab), self._insurance_box(lab))

        self._load(vehicle_id, holder_id, replacing_id)
        self._follow_inputs()
        self._service_changed()
        self.refresh()
        fit_to_screen(self, 1060, 720)
        self.mark_clean()

    # --- building --------------------------------------------------------------------------------
    def _input(self, key: str, widget: W) -> W:
        """``widget`` named ``key`` and kept among the inputs (what is read, marked and locked)."""
        self.inputs[key] = named(widget, key)
        return widget

    def _line(self, key: str, placeholder: str = "", max_len: int = 0, digits: int = 0,
              kind: str | None = None) -> QLineEdit:
        return self._input(key, line_edit(key, placeholder, max_len, digits=digits,
                                          edit=FormattedLineEdit(kind) if kind else None))

    def _combo(self, key: str, blank: str, choices: Iterable[tuple[str, Any]]) -> QComboBox:
        """A closed list whose first entry (``blank``) is no choice."""
        return self._input(key, choice_combo(key, [(blank, None), *choices]))

    def _holder_box(self, lab: _Labels) -> QGroupBox:
        self.holder_cpf = self._input("holder_id", FormattedLineEdit("cpf"))
        self.holder_cpf.setObjectName("holder_cpf")
        self.holder_cpf.setPlaceholderText("CPF do titular")
        self.holder_name = wrapped_label("—", "holder_name")
        self.service = self._combo("service_type", "", ((st.label, st.value) for st in ServiceType))
        return _group("Titular e serviço (Art. 6º, § 2º; Art. 5º, § 8º)", lab, (
            ("Titular (CPF)", self.holder_cpf, (self.holder_name, 1)),
            ("Serviço autorizado", self.service),
        ))

    def _vehicle_box(self, lab: _Labels) -> QGroupBox:
        """Identification and CRLV."""
        self.plate = self._line("plate", "ABC-1234 ou ABC1D23", 8, kind="plate")
        self.renavam = self._line("renavam", "11 dígitos", 11, digits=11)
        self.vin = self._line("vin", "17 caracteres, sem I, O e Q", 17)
        self.make = self._line("make", "Honda, Yamaha…", 60)
        self.model = self._line("model", "CG 160 Titan…", 60)
        self.year_manufacture = self._line("year_manufacture", "aaaa", digits=4)
        self.year_model = self._line("year_model", "aaaa", digits=4)
        self.engine_cc = self._line("engine_cc", "cc", digits=5)
        # a closed list: the SENATRAN colours (typing "pr" picks Prata, Preta…)
        self.colour = self._combo("colour", "—", ((colour, colour) for colour in SENATRAN_COLOURS))
        self.category = self._combo("category", "", ((label, value) for value, label in CATEGORY_LABELS.items()))
        self.crlv_year = self._line("crlv_year", "exercício", digits=4)
        self.crlv_municipality = self._line("crlv_municipality", "Patrocínio", 100)
        self.crlv_uf = self._combo("crlv_uf", "—", ((uf, uf) for uf in sorted(BRAZILIAN_UFS)))
        self.owner_name = self._line("owner_name", "como no CRV/CRLV", 200)
        self.owner_cpf = self._line("owner_cpf", "CPF do proprietário no CRV/CRLV", kind="cpf")
        self.copy_holder = push_button(with_access_key("Mesmo do titular", lab.used), "copy_holder",
                                       self._copy_holder, auto_default=False)
        return _group("Veículo – CRV/CRLV (Art. 3º; Art. 5º, § 1º)", lab, (
            ("Placa", self.plate),
            ("RENAVAM", self.renavam),
            ("Chassi (VIN)", self.vin),
            ("Marca", self.make, ("Modelo", self.model)),
            ("Ano de fabricação", self.year_manufacture, ("Ano do modelo", self.year_model)),
            ("Cilindrada (cc)", self.engine_cc),
            ("Cor", self.colour),
            ("Categoria", self.category),
            ("CRLV (exercício)", self.crlv_year, ("Município", self.crlv_municipality, 2), ("UF", self.crlv_uf)),
            ("Proprietário (nome)", self.owner_name),
            ("Proprietário (CPF)", self.owner_cpf, self.copy_holder),
        ))

    def _insurance_box(self, lab: _Labels) -> QGroupBox:
        """Insurance and notes."""
        self.insurance = self._input("insurance_valid_until", DateField())
        self.insurance_number = self._line("insurance_number", "nº do bilhete/apólice do DPVAT/SPVAT", 40)
        self.insurance_insured_name = self._line("insurance_insured_name", "segurado, como no bilhete", 200)
        self.insurance_insured_cpf = self._line("insurance_insured_cpf", "CPF do segurado (o titular)", kind="cpf")
        self.passenger_insurance = self._input("passenger_insurance_valid_until", DateField())
        self.notes = self._input("notes", QPlainTextEdit())
        self.notes.setFixedHeight(54)
        self.notes.setTabChangesFocus(True)
        return _group("Seguros e observações", lab, (
            ("Seguro obrigatório válido até", self.insurance),
            ("Seguro obrigatório (número)", self.insurance_number),
            ("Segurado (nome)", self.insurance_insured_name),
            ("Segurado (CPF)", self.insurance_insured_cpf),
            ("Seguro de passageiros (mototáxi) até", self.passenger_insurance),
            ("Observações", self.notes),
        ))

    def _lay_out(self, *boxes: QGroupBox) -> None:
        """The form (scrolling on a small screen) beside the verdicts; the buttons always in view."""
        self.verdicts = named(VerdictList(), "verdicts")
        self.verdicts.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # read, not a Tab stop
        self.message = message_line()
        self.save_button = push_button("&Salvar", "save", self.save, default=True)
        self.cancel_button = push_button("Fec&har", "cancel", self.reject, auto_default=False)
        scroll = scroll_area("form_area", host(column(*boxes, 1, margins=0)))
        right = column(QLabel("<b>Requisitos do veículo</b> (conferidos enquanto você digita)"), (self.verdicts, 1))
        column(self.banner, (row((scroll, 3), (right, 2)), 1),
               row((self.message, 1), self.save_button, self.cancel_button), parent=self)

    def _follow_inputs(self) -> None:
        """The verdicts follow every change; the holder is looked up once the CPF is typed."""
        for widget in self.inputs.values():
            if isinstance(widget, QLineEdit):
                widget.textChanged.connect(self.refresh)
            elif isinstance(widget, QComboBox):
                widget.currentIndexChanged.connect(self.refresh)
            elif isinstance(widget, DateField):
                widget.valueChanged.connect(self.refresh)
        self.holder_cpf.editingFinished.connect(self._lookup_holder)
        self.service.currentIndexChanged.connect(self._service_changed)

    # --- loading ---------------------------------------------------------------------------------
    def _load(self, vehicle_id: int | None, holder_id: int | None, replacing_id: int | None) -> None:
        """Read the vehicle, the one it replaces and the holder off the GUI thread (the form locked
        meanwhile), then fill the form; a new vehicle without a holder needs no read."""
        ctx = self.ctx
        if vehicle_id is None and holder_id is None and replacing_id is None:
            self._apply_loaded(None, None, None)
            load_into(self, lambda: law_settings(ctx), self._settings_loaded, key="settings")
            return

        def fetch() -> tuple[VehicleRecord | None, VehicleRecord | None, HolderRef | None, LawSettings]:
            replacing = vehicles.get_vehicle(ctx, replacing_id) if replacing_id is not None else None
            record = vehicles.get_vehicle(ctx, vehicle_id) if vehicle_id is not None else None
            owner = holder_id
            if replacing is not None:
                owner = replacing.data.holder_id
            if record is not None:
                owner = record.data.holder_id
            holder = vehicles.get_holder(ctx, owner) if owner is not None else None
            return replacing, record, holder, law_settings(ctx)

        def loaded(found: tuple[VehicleRecord | None, VehicleRecord | None, HolderRef | None, LawSettings]) -> None:
            self.settings = found[3]
            self._apply_loaded(*found[:3])
            self._service_changed()
            self.refresh()
            self.mark_clean()
            if self.isActiveWindow() and self.focusWidget() is None:
                self.focusNextChild()  # shown while it loaded: the keyboard starts in the first field

        ServiceOp(self, fetch, busy="Abrindo o veículo…", title="Não foi possível abrir o veículo") \
            .success(loaded).run()

    def _settings_loaded(self, settings: LawSettings) -> None:
        self.settings = settings
        self.refresh()

    def _apply_loaded(self, replacing: VehicleRecord | None, record: VehicleRecord | None,
                      holder: HolderRef | None) -> None:
        can_edit = self.ctx.user.role in vehicles.EDITORS
        if replacing is not None:
            self.replacing = replacing
            old = self.replacing
            self.setWindowTitle(f"Substituição do veículo {format_plate(old.data.plate)}")
            when = format_datetime(old.replacement_authorised_at)
            self.banner.setText(
                f"<b>Substituição (permuta) do veículo {format_plate(old.data.plate)}</b> – autorizada por "
                f"{old.replacement_authorised_by} em {when} (Art. 31, Grupo 3, II).<br>Motivo: "
                f"{old.replacement_reason}<br>O veículo atual sai de serviço e mantém o seu histórico. "
                "A permissão passa a indicar o novo veículo quando ele for aprovado na vistoria; até lá "
                "nenhum documento é emitido (Art. 5º, § 1º, II e III)."
            )
            self.banner.show()
            self._set_service(old.data.service_type)
        if record is not None:
            self.record = record
            self.fill(self.record.data)
            plate = format_plate(self.record.data.plate)
            self.setWindowTitle(f"Veículo {plate}")
            if not self.record.active:
                self.banner.setText(
                    f"<b>Veículo substituído</b> pelo de placa {self.record.replaced_by_plate} – autorizado por "
                    f"{self.record.replacement_authorised_by} em "
                    f"{format_datetime(self.record.replacement_authorised_at)}. Motivo: "
                    f"{self.record.replacement_reason}<br>O histórico deste veículo não pode ser alterado.")
                self.banner.show()
                can_edit = False
            elif self.record.replacement_authorised:
                self.banner.setText(
                    f"Substituição autorizada por {self.record.replacement_authorised_by} em "
                    f"{format_datetime(self.record.replacement_authorised_at)}: cadastre o novo veículo pela "
                    "opção “Substituir veículo…”.")
                self.banner.show()
        elif replacing is None:
            self.setWindowTitle("Novo veículo")
        if holder is not None:
            self.holder = holder
            self.holder_cpf.setText(format_cpf(self.holder.cpf))
            self.holder_name.setText(self.holder.name)
        if holder is not None and record is None and replacing is None:
            self._service_of_holder(holder)
        if record is not None or replacing is not None or holder is not None:
            self.holder_cpf.setReadOnly(True)
            self.holder_cpf.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # read, not a Tab stop
        if not can_edit:
            self.set_read_only()

    def set_read_only(self) -> None:
        for widget in self.inputs.values():
            if isinstance(widget, (QLineEdit, QPlainTextEdit)):
                widget.setReadOnly(True)
            else:
                widget.setEnabled(False)
        self.copy_holder.setEnabled(False)
        self.save_button.hide()

    def _set_service(self, service: ServiceType | None) -> None:
        self.service.setCurrentIndex(max(0, self.service.findData(service.value)) if service else 0)

    def fill(self, data: VehicleInput) -> None:
        for key in TEXT_FIELDS:
            value = getattr(data, key)
            if key == "plate" and value:
                value = format_plate(value)
            if key in ("owner_cpf", "insurance_insured_cpf") and value:
                value = format_cpf(value)
            self.inputs[key].setText(value or "")  # type: ignore[attr-defined]
        for key in INT_FIELDS:
            value = getattr(data, key)
            self.inputs[key].setText("" if value is None else str(value))  # type: ignore[attr-defined]
        self._set_service(data.service_type)
        self._set_colour(data.colour)
        self.crlv_uf.setCurrentIndex(max(0, self.crlv_uf.findData(data.crlv_uf)) if data.crlv_uf else 0)
        index = self.category.findData(data.category) if data.category else 0
        self.category.setCurrentIndex(max(index, 0))
        self.insurance.set_value(data.insurance_valid_until)
        self.passenger_insurance.set_value(data.passenger_insurance_valid_until)
        self.notes.setPlainText(data.notes or "")

    def _set_colour(self, colour: str | None) -> None:
        """A stored colour ("PRETA", "preta") is shown as the SENATRAN name; one outside the table
        (typed before the list was closed) is kept as an extra entry, so a save does not lose it."""
        if not colour:
            self.colour.setCurrentIndex(0)
            return
        for index in range(1, self.colour.count()):
            if _fold(self.colour.itemText(index)) == _fold(colour):
                self.colour.setCurrentIndex(index)
                return
        self.colour.addItem(colour, colour)
        self.colour.setCurrentIndex(self.colour.count() - 1)

    # --- reading the form ------------------------------------------------------------------------
    def current_service(self) -> ServiceType | None:
        value = self.service.currentData()
        return ServiceType(value) if value else None

    def collect(self) -> VehicleInput:
        def text(key: str) -> str | None:
            value = self.inputs[key].text().strip()  # type: ignore[attr-defined]
            return value or None

        def number(key: str) -> int | None:
            value = text(key)
            return int(value) if value and value.isdigit() else None

        return VehicleInput(
            plate=text("plate") or "",
            holder_id=self.holder.id if self.holder else None,
            service_type=self.current_service(),
            renavam=text("renavam"), vin=text("vin"), make=text("make"), model=text("model"),
            year_manufacture=number("year_manufacture"), year_model=number("year_model"),
            engine_cc=number("engine_cc"), colour=self.colour.currentData(), category=self.category.currentData(),
            crlv_year=number("crlv_year"), crlv_municipality=text("crlv_municipality"),
            crlv_uf=self.crlv_uf.currentData(),
            owner_name=text("owner_name"), owner_cpf=text("owner_cpf"),
            insurance_valid_until=self.insurance.value(), insurance_number=text("insurance_number"),
            insurance_insured_name=text("insurance_insured_name"), insurance_insured_cpf=text("insurance_insured_cpf"),
            passenger_insurance_valid_until=self.passenger_insurance.value(),
            notes=self.notes.toPlainText().strip() or None,
        )

    # --- live feedback ---------------------------------------------------------------------------
    def refresh(self) -> None:
        data = self.collect()
        self.verdicts.set_verdicts(vehicles.vehicle_verdicts(data, self.settings,
                                                             self.holder.cpf if self.holder else None))
        _clean, errors = vehicles.validate_vehicle(data)
        if not data.plate and not self._tried:
            errors.pop("plate", None)
        if not self._tried:
            for key in REQUIRED_ONLY_ON_SAVE:
                errors.pop(key, None)
        self.show_errors(errors)
        self._show_status(errors)

    def _show_status(self, errors: dict[str, str]) -> None:
        """The line beside the buttons follows the form: what is still wrong, or that it may be saved."""
        if self.saving or self.save_button.isHidden():
            return
        if errors:
            first = next(iter(errors.values()))
            more = len(errors) - 1
            self.message.setStyleSheet("color: #b00020")
            self.message.setText(first + (f" (e mais {more} campo{'s' if more > 1 else ''})" if more else ""))
        elif self._tried:
            self.message.setStyleSheet("color: #1b6e2e")
            self.message.setText("Campos corrigidos: pode salvar (Alt+S).")
        else:
            self.message.clear()

    def show_errors(self, errors: dict[str, str]) -> None:
        for key, widget in self.inputs.items():
            mark_field(widget, errors.get(key))

    def field_error(self, key: str) -> str | None:
        return field_error(self.inputs[key])

    def _service_changed(self) -> None:
        self.passenger_insurance.setEnabled(self.current_service() is ServiceType.MOTOTAXI
                                            and not self.save_button.isHidden())

    def _lookup_holder(self, then: Callable[[], None] | None = None) -> ServiceOp | None:
        """Who holds the CPF typed — asked off the GUI thread; the name shows when it answers."""
        if self.holder_cpf.isReadOnly():
            return None
        text = self.holder_cpf.text().strip()
        ctx = self.ctx

        def shown(holder: HolderRef | None) -> None:
            if self.holder_cpf.text().strip() == text:
                self._show_holder(text, holder)
            if then is not None:
                then()

        return ServiceOp(self, lambda: vehicles.holder_by_cpf(ctx, text) if text else None, lock=False,
                         key="holder").success(shown).run()

    def _show_holder(self, text: str, holder: HolderRef | None) -> None:
        self.holder = holder
        if self.holder is None:
            self.holder_name.setText("Nenhuma pessoa com este CPF: cadastre o titular em Pessoas."
                                     if text else "—")
        elif self.holder.active_plate and self.record is None:
            self.holder_name.setText(f"{self.holder.name} – já tem o veículo ativo {self.holder.active_plate}")
        else:
            self.holder_name.setText(self.holder.name)
        if self.holder is not None and self.record is None and self.replacing is None:
            self._service_of_holder(self.holder)
        self.refresh()

    def _service_of_holder(self, holder: HolderRef) -> None:
        """The service of the holder's open application (else of the permit in force) is the vehicle's,
        unless one was chosen already: read off the GUI thread."""
        from motodesk.services import applications

        ctx = self.ctx

        def read() -> ServiceType | None:
            open_apps = [a for a in applications.list_applications(ctx, holder.id) if a.is_open]
            if len({a.service for a in open_apps}) == 1:
                return open_apps[0].service
            in_force = [p for p in applications.list_permits(ctx, holder.id) if p.state.in_force]
            return in_force[0].service if len(in_force) == 1 and not open_apps else None

        def known(service: ServiceType | None) -> None:
            if service is not None and self.service.currentData() is None and self.holder is not None \
                    and self.holder.id == holder.id:
                untouched = not self.has_changes()
                self._set_service(service)
                self.service_carried = service
                if untouched:  # carried forward, not typed: closing the form untouched asks nothing
                    self.mark_clean()

        load_into(self, read, known, key="holder_service")

    def _copy_holder(self) -> None:
        if self.holder is None:
            return
        self.owner_name.setText(self.holder.name)
        self.owner_cpf.setText(format_cpf(self.holder.cpf))
        self.insurance_insured_name.setText(self.holder.name)
        self.insurance_insured_cpf.setText(format_cpf(self.holder.cpf))
        # the owner's fields are filled: the cursor goes on to the next empty field (the insurance's
        # date), not back to the fields the button just filled (issue #26: four Tabs lost here)
        from motodesk.ui.keyboard import is_empty_input, tab_stops

        stops = tab_stops(self)
        after = stops[stops.index(self.copy_holder) + 1:] if self.copy_holder in stops else []
        target = next((w for w in after if is_empty_input(w)), None)
        if target is not None:
            target.setFocus(Qt.FocusReason.OtherFocusReason)

    # --- saving ----------------------------------------------------------------------------------
    def save_and_close(self) -> None:
        self.save()

    def _save_again(self) -> None:
        self.save()

    def save(self) -> bool:
        """Save in the background (the form disabled meanwhile); the dialog closes when it is stored.
        False when nothing was started."""
        if self.saving or self.save_button.isHidden():
            return False
        self._tried = True
        if not self.holder_cpf.isReadOnly() and self.holder is None and self.holder_cpf.text().strip() \
                and not self._holder_asked:
            self._holder_asked = True  # once: an unknown CPF then goes to the service, which says so
            self._lookup_holder(then=self._save_again)  # the holder first, then the save
            return True
        self._holder_asked = False
        data = self.collect()
        ctx, replacing, vehicle_id, record = self.ctx, self.replacing, self.vehicle_id, self.record

        def work() -> int:
            if replacing is not None:
                return vehicles.replace_vehicle(ctx, replacing.id, data, expected_version=replacing.version).new_id
            return vehicles.save_vehicle(ctx, data, vehicle_id=vehicle_id,
                                         expected_version=record.version if record else None).id

        def saved(new_id: int) -> None:
            self.saving = False
            self.saved_id = new_id
            self.message.clear()
            self.accept()

        def failed(exc: BaseException) -> bool:
            self.saving = False
            if isinstance(exc, InvalidInputError):
                self.show_errors(exc.fields)
                reasons = "; ".join(exc.fields.values())
                self.message.setStyleSheet("color: #b00020")
                self.message.setText(f"{exc.message} {reasons}".strip())
                first = next((self.inputs[k] for k in exc.fields if k in self.inputs), None)
                if first is not None:
                    first.setFocus()
                return True
            if isinstance(exc, MotodeskError):
                self.message.setText(str(exc))
            return False  # shown by the op (a conflict offers to reload)

        self.saving = True
        self.message.setStyleSheet("")
        self.message.setText("Salvando…")
        ServiceOp(self, work, busy="Salvando o veículo…", change="vehicle", fields=self.inputs,
                  title="Não foi possível salvar o veículo").success(saved).failure(failed).run()
        return True


def open_vehicle_form(ctx: AppContext, parent: QWidget | None, **kwargs: int | None) -> int | None:
    """Show the form modally; the id of the saved vehicle, or None."""
    form = VehicleForm(ctx, parent, **kwargs)  # type: ignore[arg-type]
    form.exec()
    return form.saved_id

