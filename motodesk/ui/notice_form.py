"""The inspector's form for a notice of infraction (Auto de Infração e/ou Notificação, Art. 29).

The infraction comes from the catalogue (searchable by words and by article); the offender is a
holder or deputy found by CPF, name or plate, or — for Art. 32 — a person and a vehicle typed in,
registered or not, or — for Art. 25 — the employer or contractor, an organisation of the register. Date and time are typed in Patrocínio's local time and stored in UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, QTimer, QTimeZone
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDateTimeEdit,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSplitter,
    QWidget,
)

from motodesk.rules import enforcement as rules_enforcement
from motodesk.rules.enforcement import is_employer_infraction
from motodesk.rules.infractions import Infraction
from motodesk.services import enforcement, organisations
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    LOCAL_TZ,
    NoticeCreated,
    NoticeInput,
    OffenderChoice,
    OffenderKind,
    Signature,
)
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import buddy, column, form, host, line_edit, named, push_button, row, wrapped_label
from motodesk.ui.guard import GuardedDialog, confirm
from motodesk.ui.infraction_picker import InfractionPicker, describe_infraction
from motodesk.ui.listpage import fit_to_screen, with_access_key
from motodesk.ui.ops import ServiceOp, errors_on, load_into, place_field_errors
from motodesk.ui.widgets import DateField, mark_field, message_line, ok_cancel_buttons


def to_qdatetime(moment: datetime) -> QDateTime:
    """Patrocínio's wall-clock time of ``moment`` for a QDateTimeEdit.

    The fields are kept in a UTC-spec QDateTime so the workstation's own time zone (and its daylight
    saving gaps) never shifts what the inspector typed; :func:`from_qdatetime` reads the fields back.
    """
    local = moment.astimezone(LOCAL_TZ)
    return QDateTime(QDate(local.year, local.month, local.day), QTime(local.hour, local.minute), QTimeZone.utc())


def from_qdatetime(value: QDateTime) -> datetime:
    """The typed wall-clock time in Patrocínio, as an aware UTC moment."""
    d, t = value.date(), value.time()
    local = datetime(d.year(), d.month(), d.day(), t.hour(), t.minute(), tzinfo=LOCAL_TZ)
    return local.astimezone(UTC)


class NoticeForm(GuardedDialog):
    """Write a notice; on success ``created`` holds its number and defence deadline."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *,
                 now: Callable[[], datetime] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice_form")
        self.setWindowTitle("Novo auto de infração")
        self.ctx = ctx
        self._now = now or (lambda: datetime.now(UTC))
        self.created: NoticeCreated | None = None
        self.choices: list[OffenderChoice] = []

        infraction_box = self._infraction_box()
        # when and where
        self.occurred = named(QDateTimeEdit(), "occurred_at")
        self.occurred.setDisplayFormat("dd/MM/yyyy HH:mm")
        self.occurred.setCalendarPopup(True)
        self.occurred.setDateTime(to_qdatetime(self._now()))
        self.place = line_edit("place", "Rua, número, bairro ou ponto de referência", enforcement.MAX_PLACE)
        offender_box = self._offender_box()
        account = self._account_form(ctx)
        self.message = message_line()
        self.save_button = push_button("&Lavrar auto", "save", self.save, auto_default=False)
        self.save_button.setDefault(False)
        cancel = push_button("&Cancelar", slot=self.reject, auto_default=False)

        lower = QWidget()
        column(offender_box, account, 1, parent=lower, margins=0)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(infraction_box)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setChildrenCollapsible(False)
        self._splitter, self._lower = splitter, lower
        column((splitter, 1), self.message, row(1, self.save_button, cancel), parent=self)

        self.picker.selectionChanged.connect(self._infraction_changed)
        self.kind_group.buttonToggled.connect(lambda *_: self._kind_changed())
        self.search_button.clicked.connect(self.find_offender)
        self.offender_search.returnPressed.connect(self.find_offender)
        self.offender_choice.currentIndexChanged.connect(lambda _i: self._choice_changed())
        self.picker.chosen.connect(lambda _item: self.occurred.setFocus())  # Enter in the search: next field
        self._kind_changed()
        self._choice_changed()
        self._set_tab_order(cancel)
        self.picker.search.setFocus()  # the first empty field (issue #26 item 1)
        fit_to_screen(self, 980, 760)
        self._fitted = False
        self.mark_clean()

    # --- building ----------------------------------------------------------------------------------
    def _infraction_box(self) -> QGroupBox:
        self.picker = InfractionPicker()
        self.chosen = wrapped_label("Escolha a infração no catálogo acima.", "chosen_infraction")
        box = QGroupBox("Infração (Arts. 15, 25, 30, 31 e 32)")
        column((self.picker, 1), self.chosen, parent=box)
        return box

    def _offender_box(self) -> QGroupBox:
        """Who is fined: a holder or deputy found by search, a person typed in (Art. 32) or an organisation
        of the register (Art. 25), each in its own section shown for the infraction chosen."""
        self.holder_radio = named(QRadioButton("&Titular"), "kind_holder")
        self.deputy_radio = named(QRadioButton("Pre&posto"), "kind_deputy")
        self.unregistered_radio = named(QRadioButton("Sem per&missão (Art. 32)"), "kind_unregistered")
        radios = (self.holder_radio, self.deputy_radio, self.unregistered_radio)
        self.kind_group = QButtonGroup(self)
        for radio in radios:
            self.kind_group.addButton(radio)
        self.holder_radio.setChecked(True)
        self.offender_search = line_edit("offender_search", "CPF, nome ou placa do titular ou preposto")
        # Enter in another field must not start an empty search
        self.search_button = push_button("&Buscar", "offender_find", auto_default=False)
        self.offender_choice = named(QComboBox(), "offender_choice")
        self.offender_info = wrapped_label(name="offender_info")
        self.offender_name = line_edit("offender_name", max_len=enforcement.MAX_NAME)
        self.offender_cpf = line_edit("offender_cpf", "opcional; se informado, liga o auto ao cadastro")
        self.plate = line_edit("plate", "ABC-1234 ou ABC1D23", 8)
        self.vehicle_description = line_edit("vehicle_description", "marca, modelo e cor do veículo",
                                             enforcement.MAX_VEHICLE_DESCRIPTION)
        # Art. 25: the employer or contractor, chosen from the register of organisations.
        self.organisation_choice = named(QComboBox(), "organisation_choice")
        self.organisation_choice.setAccessibleName("Empresa autuada (Art. 25)")
        self._organisations_loaded = False
        self.organisation_box = host(form(
            (buddy("&Empresa (Art. 25):", self.organisation_choice), self.organisation_choice),
            ("", wrapped_label("Responde o empregador ou quem contrata serviço continuado de moto-frete "
                               "(Art. 25, parágrafo único), não o condutor.")),
            margins=0))
        self.registered_box = host(form(
            ("Buscar:", row((self.offender_search, 1), self.search_button)),
            ("A&utuado:", self.offender_choice),
            ("", self.offender_info),
            margins=0))
        self.unregistered_box = host(form(
            ("&Nome:", self.offender_name),
            ("C&PF:", self.offender_cpf),
            ("Pl&aca (veículo apreendido):", self.plate),
            ("&Veículo:", self.vehicle_description),
            margins=0))
        box = QGroupBox("Autuado(a)")
        column(row(*radios, 1), self.registered_box, self.unregistered_box, self.organisation_box, parent=box)
        return box

    def _account_form(self, ctx: AppContext) -> QFormLayout:
        """When, where, the inspector's account, the signature and who writes the notice."""
        self.description = named(QPlainTextEdit(), "description")
        self.description.setPlaceholderText("Relato do fiscal: o que foi constatado, como e por quem.")
        self.description.setMaximumHeight(90)
        self.description.setTabChangesFocus(True)  # Tab leaves the account; it is no tab character
        self.signature_radios: dict[Signature, QRadioButton] = {}
        self.signature_group = QButtonGroup(self)
        used = {"t", "p", "m", "b", "u", "n", "a", "v", "d", "o", "r", "l", "c", "e"}  # keys taken on this form
        for signature in Signature:
            radio = named(QRadioButton(with_access_key(signature.label, used)), f"signature_{signature.value}")
            self.signature_group.addButton(radio)
            self.signature_radios[signature] = radio
        self.signature_radios[Signature.SIGNED].setChecked(True)
        return form(
            ("&Data e hora (horário local):", self.occurred),
            ("L&ocal:", self.place),
            ("&Relato:", self.description),
            ("Assinatura do autuado:", row(*self.signature_radios.values(), 1)),
            (QLabel("Fiscal:"), named(QLabel(f"{ctx.user.full_name} ({ctx.user.login})"), "inspector")),
        )  # "Fiscal" is a reading, not an input: no buddy

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        """Fitted again once laid out on the screen: with a larger system font the first show widens the
        form to what its rows need, and the height the wrapped texts had at the narrower width would
        otherwise stay, past the bottom of a 1366×768 screen."""
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            QTimer.singleShot(0, self._fit)  # after the layout's pass

    def _fit(self) -> None:
        fit_to_screen(self, self.width(), 760)
        # the catalogue takes the room the form below does not need (a splitter shares it by size hints)
        total = sum(self._splitter.sizes())
        lower = min(self._lower.sizeHint().height(), total // 2)
        self._splitter.setSizes([total - lower, lower])

    def _set_tab_order(self, cancel: QPushButton) -> None:
        """Tab goes where the inspector types next: the infraction, when, where, who, the account.

        The offender's kind follows the choice found (or Art. 32) and keeps its access keys (Alt+T, Alt+P,
        Alt+M), so its radios come after the account instead of between the place and the search."""
        chain: list[QWidget] = [
            self.picker.search, self.picker.view, self.occurred, self.place, self.organisation_choice,
            self.offender_search,
            self.search_button, self.offender_choice, self.offender_name, self.offender_cpf, self.plate,
            self.vehicle_description, self.description, self.holder_radio, self.deputy_radio,
            self.unregistered_radio, *self.signature_radios.values(), self.save_button, cancel]
        for before, after in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(before, after)

    # --- state -------------------------------------------------------------------------------------
    def infraction(self) -> Infraction | None:
        return self.picker.current()

    def kind(self) -> OffenderKind:
        item = self.infraction()
        if item is not None and is_employer_infraction(item):
            return OffenderKind.ORGANISATION  # Art. 25: the employer answers, never the rider
        if self.unregistered_radio.isChecked():
            return OffenderKind.UNREGISTERED
        return OffenderKind.DEPUTY if self.deputy_radio.isChecked() else OffenderKind.HOLDER

    def signature(self) -> Signature:
        return next(s for s, radio in self.signature_radios.items() if radio.isChecked())

    def current_choice(self) -> OffenderChoice | None:
        index = self.offender_choice.currentIndex()
        return self.choices[index] if 0 <= index < len(self.choices) else None

    def _infraction_changed(self, item: Infraction | None) -> None:
        if item is None:
            self.chosen.setText("Escolha a infração no catálogo acima.")
            for radio in (self.holder_radio, self.deputy_radio):
                radio.setEnabled(True)
            self._kind_changed()
            return
        self.chosen.setText(f"<b>{describe_infraction(item)}</b>")
        unlicensed = item.code == "32"
        employer = is_employer_infraction(item)
        self.holder_radio.setEnabled(not unlicensed and not employer)
        self.deputy_radio.setEnabled(not unlicensed and not employer
                                     and not item.article.startswith(("Art. 31", "Art. 15")))
        self.unregistered_radio.setEnabled(unlicensed)
        if unlicensed:
            self.unregistered_radio.setChecked(True)
        elif self.unregistered_radio.isChecked() or (self.deputy_radio.isChecked() and not self.deputy_radio.isEnabled()):
            self.holder_radio.setChecked(True)
        mark_field(self.picker.search, None)
        self._kind_changed()

    def _kind_changed(self) -> None:
        kind = self.kind()
        self.registered_box.setVisible(kind in (OffenderKind.HOLDER, OffenderKind.DEPUTY))
        self.unregistered_box.setVisible(kind is OffenderKind.UNREGISTERED)
        self.organisation_box.setVisible(kind is OffenderKind.ORGANISATION)
        if kind is OffenderKind.ORGANISATION and not self._organisations_loaded:
            self._load_organisations()

    def _load_organisations(self) -> None:
        """The register of organisations, read off the GUI thread the first time Art. 25 is chosen."""
        self._organisations_loaded = True
        self.organisation_choice.clear()
        self.organisation_choice.addItem("Carregando o cadastro de organizações…", None)
        ctx = self.ctx
        load_into(self, lambda: organisations.list_organisations(ctx), self._organisations_found,
                  key="organisations")

    def _organisations_found(self, rows: list[organisations.OrganisationRow]) -> None:
        self.organisation_choice.clear()
        if not rows:
            self.organisation_choice.addItem("Nenhuma organização no cadastro: cadastre-a em Organizações.", None)
            return
        self.organisation_choice.addItem("Escolha a empresa…", None)
        for found in rows:
            self.organisation_choice.addItem(f"{found.name} — CNPJ {found.cnpj_formatted}", found.id)

    def _choice_changed(self) -> None:
        choice = self.current_choice()
        if choice is None:
            self.offender_info.setText("Busque o autuado pelo CPF, pelo nome ou pela placa do veículo.")
            return
        if choice.kind is None:
            self.offender_info.setText(f"{choice.name} não é titular nem preposto de permissão em vigor; se "
                                       "exercia o mototáxi sem permissão, use o Art. 32.")
            return
        if choice.kind is OffenderKind.DEPUTY and self.deputy_radio.isEnabled():
            self.deputy_radio.setChecked(True)
        elif choice.kind is OffenderKind.HOLDER and self.holder_radio.isEnabled():
            self.holder_radio.setChecked(True)
        service = choice.service.label if choice.service else ""
        self.offender_info.setText(f"{choice.kind.label} — {service} {choice.permit_number} · veículo "
                                   f"{choice.plate or 'não cadastrado'}")
        mark_field(self.offender_search, None)

    def find_offender(self) -> None:
        ctx, query = self.ctx, self.offender_search.text()
        ServiceOp(self, lambda: enforcement.find_offenders(ctx, query), busy="Procurando o infrator…",
                  lock=self.offender_search, key="offender") \
            .success(self._offenders_found).failure(self._offender_search_failed).run()

    def _offender_search_failed(self, exc: BaseException) -> bool:
        if not isinstance(exc, MotodeskError):
            return False
        self.message.setText(str(exc))
        return True

    def _offenders_found(self, choices: list[OffenderChoice]) -> None:
        self.choices = choices
        self.offender_choice.blockSignals(True)
        self.offender_choice.clear()
        for choice in self.choices:
            self.offender_choice.addItem(choice.label)
        self.offender_choice.blockSignals(False)
        preferred = next((i for i, c in enumerate(self.choices) if c.kind is not None), 0)
        if self.choices:
            self.offender_choice.setCurrentIndex(preferred)
        self._choice_changed()
        if not self.choices:
            self.offender_info.setText("Ninguém encontrado com esse CPF, nome ou placa.")
        else:  # Enter found them: the cursor goes to the choice, one Tab before the account
            QTimer.singleShot(0, self.offender_choice.setFocus)  # after the search field is unlocked

    # --- saving ------------------------------------------------------------------------------------
    def notice_input(self) -> NoticeInput:
        item = self.infraction()
        kind = self.kind()
        choice = self.current_choice() if kind in (OffenderKind.HOLDER, OffenderKind.DEPUTY) else None
        return NoticeInput(
            infraction_code=item.code if item else "",
            occurred_at=from_qdatetime(self.occurred.dateTime()),
            place=self.place.text(),
            offender_kind=kind,
            person_id=choice.person_id if choice else None,
            permit_id=choice.permit_id if choice else None,
            offender_name=self.offender_name.text() if kind is OffenderKind.UNREGISTERED else "",
            offender_cpf=self.offender_cpf.text() if kind is OffenderKind.UNREGISTERED else "",
            vehicle_id=choice.vehicle_id if choice else None,
            plate=self.plate.text() if kind is OffenderKind.UNREGISTERED else "",
            vehicle_description=self.vehicle_description.text() if kind is OffenderKind.UNREGISTERED else "",
            description=self.description.toPlainText(),
            signature=self.signature(),
            organisation_id=(self.organisation_choice.currentData() if kind is OffenderKind.ORGANISATION
                             else None),
        )

    def _fields(self) -> dict[str, QWidget]:
        return {"infraction": self.picker.search, "occurred_at": self.occurred, "place": self.place,
                "description": self.description, "person": self.offender_search, "offender_name": self.offender_name,
                "offender_cpf": self.offender_cpf, "plate": self.plate,
                "vehicle_description": self.vehicle_description, "organisation": self.organisation_choice}

    def save(self) -> bool:
        """Write the notice off the GUI thread; True when the call was started (the form closes when it lands)."""
        for widget in self._fields().values():
            mark_field(widget, None)
        self.message.clear()
        ctx, data, widgets = self.ctx, self.notice_input(), self._fields()
        item = self.infraction()
        if item is not None:  # without an infraction the service refuses on the field: nothing to confirm
            choice = self.current_choice() if data.person_id is not None else None
            organisation = (self.organisation_choice.currentText().split(" — ")[0]
                            if data.organisation_id is not None else "")
            who = data.offender_name.strip() or organisation or (choice.name if choice else "") or "o autuado"
            if not confirm(self, "Lavrar auto de infração",
                           f"Lavrar o auto de infração ({item.article}) contra {who}?\n"
                           "Um auto lavrado não pode ser apagado: ele segue para defesa e decisão "
                           "(Art. 29)."):
                return False

        def created(notice: NoticeCreated) -> None:
            self.created = notice
            self.message.setStyleSheet("")
            if notice.defence_due is not None:
                self.message.setText(f"Auto {notice.number} lavrado. Prazo de defesa até "
                                     f"{format_date(notice.defence_due)}.")
            else:
                self.message.setText(f"Auto {notice.number} lavrado. O prazo de defesa começa quando a "
                                     "notificação do autuado for registrada (Art. 29, §§ 2º e 3º).")
            self.accept()

        refused = errors_on(self.message, widgets)

        ServiceOp(self, lambda: enforcement.create_notice(ctx, data), busy="Lavrando o auto…", change="notice") \
            .success(created).failure(refused).run()
        return True

    def save_and_close(self) -> None:
        self.save()


class NotificationDialog(GuardedDialog):
    """Record how and when an offender who refused to sign, or was absent, was notified (Art. 29, § 2º).

    The defence period (Art. 29, § 3º) starts on that day; field errors are placed on their widgets.
    """

    def __init__(self, ctx: AppContext, view: enforcement.NoticeView, parent: QWidget | None = None, *,
                 today: date | None = None, decision: bool = False) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.view = view
        self.today = today or enforcement.local_today()
        self.decision = decision  # the first decision's notification: the appeal period runs from it
        self.recorded: object | None = None
        self.setObjectName("notification_dialog")
        if decision:
            self.setWindowTitle(f"Notificação da decisão – {view.number}")
            intro = QLabel(f"Registre como e quando a decisão chegou a {view.offender_name}: o prazo de recurso "
                           "começa nesse dia, e o processo só se encerra depois dele (Art. 29, §§ 2º e 3º; "
                           "Art. 34, parágrafo único).")
        else:
            self.setWindowTitle(f"Notificação do autuado – {view.number}")
            what = "recusou-se a assinar" if view.signature is Signature.REFUSED else "não estava presente"
            intro = QLabel(f"{view.offender_name} {what} "
                           "no ato da autuação. Registre como e quando foi notificado: o prazo de defesa começa "
                           "nesse dia (Art. 29, §§ 2º e 3º).")
        intro.setWordWrap(True)
        self.method = named(QComboBox(), "method")
        self.method.addItem("Escolha…", None)
        for method in rules_enforcement.LATER_NOTIFICATION_METHODS:
            self.method.addItem(method.label, method.value)
        self.notified_on = named(DateField(), "notified_on")
        self.notified_on.set_value(self.today)
        self.reference = line_edit("reference", "nº do AR, ou jornal e página do edital", 120)
        self.error = wrapped_label(name="error")
        self.error.setStyleSheet("color: #b00020")
        buttons, _ok = ok_cancel_buttons(self, "Re&gistrar", self.submit)
        column(intro, form(  # the intro outside the form: a wrapped label there gets one line's height
            ("&Meio:", self.method),
            ("&Data da notificação:", self.notified_on),
            ("&Referência:", self.reference),
            self.error,
        ), buttons, parent=self)
        self.setMinimumWidth(520)
        self.method.setFocus()
        self.mark_clean()

    def save_and_close(self) -> None:
        self.submit()

    def submit(self) -> None:
        method = self.method.currentData()
        data = enforcement.NotificationInput(
            enforcement.NotificationMethod(method) if method else None, self.notified_on.value(),
            self.reference.text())
        ctx, notice_id, today, version = self.ctx, self.view.id, self.today, self.view.version
        widgets: dict[str, QWidget] = {"method": self.method, "notified_on": self.notified_on,
                                       "reference": self.reference}
        for widget in widgets.values():
            mark_field(widget, None)
        self.error.setText("")

        def recorded(result: object) -> None:
            self.recorded = result
            self.accept()

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError):
                place_field_errors(exc.fields, widgets)
                self.error.setText(" ".join(exc.fields.values()) or str(exc))
                return True
            if isinstance(exc, MotodeskError):
                self.error.setText(str(exc))
                return True
            return False

        step = enforcement.record_decision_notification if self.decision else enforcement.record_notification
        ServiceOp(self, lambda: step(ctx, notice_id, data, today=today, expected_version=version),
                  busy="Registrando a notificação…", change="notice").success(recorded).failure(refused).run()
