"""The counter benchmark (issue #18): a day at the counter, from the keyboard only, at 1366x768.

Key events only — ``qtbot.keyClick``/``keyClicks`` to the focused widget
(``QApplication.focusWidget()``), never the mouse, never a slot called, never ``setText``. A
:class:`KeyRecorder` counts, per role, the fields filled, the characters of data typed, the
navigation keys (every other key: Tab, Enter, Alt+letter, arrows, Esc) and the wall time.

The day:

* the clerk fills a complete mototáxi dossier (personal data, the documents of Art. 5), saves it,
  imports the 3x4 photo from a file (``tests/data/photos``) in the photo dialog, opens the
  application, and registers the motorcycle;
* the inspector fills the checklist and concludes it (the laudo is shown);
* the supervisor, on the permits page, calls the tender's candidate (Ctrl+Tab to the tender tab,
  Convocar próximo), finds the application by CPF, starts the review, approves it by decree, issues
  the permit, prints the badge to PDF through Qt's file dialog, and checks it in the badge check
  window by typing what the USB reader types: the QR decoded from the printed PDF.

Seeded through services (not typed), and said here: the mototáxi tender with this applicant as its
candidate, homologated (the supervisor's screens are not part of the clerk's count), and the
inspection the inspector is given (the inspections page starts it; that page is another helper's).
The windows are opened as the main window's actions open them (the dossier of a new person, the
vehicle form of that holder, the checklist of the inspection): what is counted is what is typed in
them.

``bench/bench_counter.py`` runs this test and prints the table; ``MOTODESK_COUNTER_REPORT=<file>``
writes it as JSON. ``MOTODESK_SCREENSHOTS=1`` refreshes ``docs/screenshots/counter-NN-*.png``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys, no_button_down, settle_gui, valid_cpf  # type: ignore[import-not-found]
from validate_docbr import CNH, PIS, RENAVAM, TituloEleitoral

from motodesk.clock import local_today
from motodesk.rules.common import ServiceType, Status
from motodesk.services import applications, inspections, tenders, vehicles
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.checklist import ChecklistDialog
from motodesk.ui.dossier import DossierWindow
from motodesk.ui.vehicle_form import VehicleForm
from motodesk.ui.widgets import after

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "data" / "photos" / "astronaut-2x.jpg"
TODAY = local_today()


# -- the recorder ---------------------------------------------------------------------------------
@dataclass
class RoleCount:
    fields: int = 0
    characters: int = 0
    navigation: int = 0
    seconds: float = 0.0
    keys: list[str] = field(default_factory=list)  # every navigation key, in order (to see the waste)


class KeyRecorder:
    """Sends keys to the focused widget and counts them per role."""

    def __init__(self, qtbot) -> None:  # noqa: ANN001
        self.qtbot = qtbot
        self.counts: dict[str, RoleCount] = {}
        self.role = ""
        self._started = 0.0
        self.shots = 0

    def start(self, role: str) -> None:
        self.stop()
        self.role = role
        self.counts.setdefault(role, RoleCount())
        self._started = time.perf_counter()

    def stop(self) -> None:
        if self.role:
            self.counts[self.role].seconds += time.perf_counter() - self._started
            self.role = ""

    @property
    def now(self) -> RoleCount:
        return self.counts[self.role]

    @staticmethod
    def focus() -> QWidget:
        widget = QApplication.focusWidget() or QApplication.activeModalWidget() or QApplication.activeWindow()
        assert widget is not None, "nothing has the keyboard focus"
        return widget

    def type(self, text: str) -> None:
        """One field's data, typed where the cursor is."""
        self.now.fields += 1
        self.now.characters += len(text)
        self.qtbot.keyClicks(self.focus(), text)

    def key(self, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
            name: str = "") -> None:
        """One navigation key (Tab, Enter, Alt+letter, Esc…)."""
        self.now.navigation += 1
        self.now.keys.append(name or _key_name(key, modifier))
        widget = self.focus()
        self.qtbot.keyPress(widget, key, modifier)
        # A real keyboard's release goes nowhere when the press disabled the form (a save) or closed
        # it; QTest's would be "not accepted" — so it is only sent to a widget still taking keys.
        try:
            alive = widget.isVisible() and widget.isEnabled()
        except RuntimeError:
            alive = False
        if alive:
            self.qtbot.keyRelease(widget, key, modifier)

    def tab(self, times: int = 1) -> None:
        for _ in range(times):
            self.key(Qt.Key.Key_Tab)

    def alt(self, letter: str) -> None:
        self.key(getattr(Qt.Key, f"Key_{letter.upper()}"), Qt.KeyboardModifier.AltModifier, f"Alt+{letter.upper()}")

    def ctrl(self, letter: str) -> None:
        self.key(getattr(Qt.Key, f"Key_{letter.upper()}"), Qt.KeyboardModifier.ControlModifier, f"Ctrl+{letter.upper()}")

    def shot(self, name: str, widget: QWidget | None = None) -> None:
        self.shots += 1
        settle_gui(self.qtbot)  # the live re-check (120 ms after the last key) shows in the picture
        target = widget or QApplication.activeModalWidget() or QApplication.activeWindow()
        if target is not None:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            target.grab().save(str(SCREENSHOTS / f"counter-{self.shots:02d}-{name}.png"))

    def table(self) -> list[dict[str, object]]:
        rows = []
        for role, count in self.counts.items():
            row = asdict(count)
            row["role"] = role
            row["navigation_per_field"] = round(count.navigation / count.fields, 3) if count.fields else None
            rows.append(row)
        return rows


def _key_name(key: Qt.Key, modifier: Qt.KeyboardModifier) -> str:
    name = Qt.Key(key).name.removeprefix("Key_")
    if modifier & Qt.KeyboardModifier.AltModifier:
        return f"Alt+{name}"
    if modifier & Qt.KeyboardModifier.ControlModifier:
        return f"Ctrl+{name}"
    return name


def settle(qtbot, wait_ms: int = 150) -> None:  # noqa: ANN001
    """Let an access key's animated click fire (100 ms) and every background call deliver."""
    settle_gui(qtbot)


def activate(widget: QWidget) -> None:
    """What a window manager does when a dialog opens or its child dialog closes: make it the active
    window (offscreen Qt does not always), so its access keys reach it."""
    widget.activateWindow()
    end = time.monotonic() + 5
    while QApplication.activeWindow() is not widget and time.monotonic() < end:
        QApplication.processEvents()


class Modals:
    """Drives the modal dialogs a key opens: registered before the key, run inside the dialog's
    own event loop once it is the active modal widget. A failure closes the dialog (so the test
    does not hang) and is raised after."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        # A dialog nobody expected (an error box, a question) would wait for ever: after 8 s it is
        # closed and its text becomes the test's failure.
        self._seen: tuple[int, float] | None = None
        self.driving: set[int] = set()
        self._watchdog = QTimer()
        self._watchdog.setInterval(500)
        self._watchdog.timeout.connect(self._watch)
        self._watchdog.start()

    def _watch(self) -> None:
        widget = QApplication.activeModalWidget()
        if widget is None or id(widget) in self.driving:
            self._seen = None
            return
        if self._seen is None or self._seen[0] != id(widget):
            self._seen = (id(widget), time.monotonic())
        elif time.monotonic() - self._seen[1] > 8:
            text = widget.text() if isinstance(widget, QMessageBox) else widget.windowTitle()
            detail = widget.informativeText() if isinstance(widget, QMessageBox) else ""
            self.errors.append(AssertionError(f"an unexpected dialog stayed open: {text} {detail}"))
            widget.close()
            self._seen = None

    def stop(self) -> None:
        self._watchdog.stop()

    def expect(self, match: Callable[[QWidget], bool], drive: Callable[[QWidget], None],
               timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout

        def poll() -> None:
            widget = QApplication.activeModalWidget()
            if widget is not None and widget.isVisible() and match(widget):
                activate(widget)
                self.driving.add(id(widget))
                try:
                    drive(widget)
                except BaseException as exc:  # noqa: BLE001 - re-raised by check()
                    self.errors.append(exc)
                    widget.close()
                finally:
                    self.driving.discard(id(widget))
            elif time.monotonic() < deadline:
                after(QApplication.instance(), 40, poll)
            else:
                self.errors.append(AssertionError(f"no modal dialog came (last: {widget!r})"))

        after(QApplication.instance(), 40, poll)

    def check(self) -> None:
        if self.errors:
            raise self.errors[0]


def press_button(keys: KeyRecorder, box: QWidget, text_start: str) -> None:
    """Press a message box's button by its access key (Alt+letter), or by Tab to it and Space."""
    button = next(b for b in box.findChildren(QAbstractButton) if b.text().replace("&", "").startswith(text_start))
    label = button.text()
    if "&" in label:
        letter = label[label.index("&") + 1]
        keys.alt(letter)
        return
    for _ in range(6):
        if button.hasFocus():
            break
        keys.tab()
    assert button.hasFocus(), f"could not reach {label!r} with Tab"
    keys.key(Qt.Key.Key_Space)


def access_key(text: str) -> str:
    return text[text.index("&") + 1]


def label_of(window: QWidget, field: QWidget) -> str:
    """The text of the label whose access key goes to ``field`` (what the clerk reads on screen)."""
    from PySide6.QtWidgets import QLabel

    return next(label.text() for label in window.findChildren(QLabel) if label.buddy() is field)


def date_text(day: date) -> str:
    return day.strftime("%d%m%Y")


# -- the day --------------------------------------------------------------------------------------
@pytest.fixture
def day(qtbot, clerk: AppContext, supervisor: AppContext, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001, ANN201
    create_application()
    from motodesk.ui import dossier as dossier_module
    from motodesk.ui import guard

    # Nothing of the day is left unsaved; should a window still ask (a failed step), the teardown
    # must not wait for an answer.
    monkeypatch.setattr(dossier_module, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)
    monkeypatch.setattr(guard, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)
    # Qt's own file dialog (not the platform's), so the keys reach it offscreen.
    monkeypatch.setattr(QFileDialog, "getOpenFileName", _qt_open_file_name)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", _qt_save_file_name)
    return KeyRecorder(qtbot)


def _qt_open_file_name(parent: QWidget | None = None, caption: str = "", directory: str = "",
                       filter: str = "", *_a: object, **_k: object) -> tuple[str, str]:  # noqa: A002
    dialog = QFileDialog(parent, caption, directory, filter)
    dialog.setObjectName("file_dialog")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    if dialog.exec():
        return dialog.selectedFiles()[0], dialog.selectedNameFilter()
    return "", ""


def _qt_save_file_name(parent: QWidget | None = None, caption: str = "", directory: str = "",
                       filter: str = "", *_a: object, **_k: object) -> tuple[str, str]:  # noqa: A002
    dialog = QFileDialog(parent, caption, directory, filter)
    dialog.setObjectName("file_dialog")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    if dialog.exec():
        return dialog.selectedFiles()[0], dialog.selectedNameFilter()
    return "", ""


def _seed_tender(supervisor: AppContext, cpf: str, name: str) -> int:
    """The homologated mototáxi tender with the applicant ranked first (the supervisor's setup)."""
    tender_id = tenders.create_tender(supervisor, f"{TODAY.year}/01", description="Mototáxi")
    tenders.update_tender(supervisor, tender_id, homologated_on=TODAY - timedelta(days=10))
    tenders.add_candidate(supervisor, tender_id, 1, cpf, name)
    return tender_id


def _fill_dossier(keys: KeyRecorder, qtbot, window: DossierWindow, cpf: str) -> None:  # noqa: ANN001
    """The clerk types the dossier, field after field, one Tab between them."""
    assert window.person_inputs["full_name"].hasFocus()
    keys.type("Joao Batista Ferreira")
    keys.tab()
    keys.type(cpf)
    keys.tab()
    keys.type(date_text(date(1990, 5, 17)))
    keys.tab()
    keys.type("M")  # Sexo: Masculino
    keys.tab()
    keys.type("Ana Maria Ferreira")
    keys.tab()
    keys.type("34999881234")
    keys.tab()
    keys.type("joao.ferreira@example.com")
    keys.tab()
    keys.type("Rua Presidente Vargas, 1200")
    keys.tab()
    keys.type("Centro")
    keys.tab()
    keys.type("Patrocinio")
    keys.tab()
    keys.type("MG")
    keys.tab()
    keys.type("38740000")
    keys.shot("clerk-personal-data", window)

    keys.alt("2")  # the documents of Art. 5
    assert QApplication.focusWidget() is window._document_widget("identity.number")
    values = [
        "MG14325876", "SSP", "MG", date_text(date(2008, 3, 10)),                      # RG
        CNH().generate(), "AB", date_text(date(2012, 4, 2)), date_text(TODAY + timedelta(days=800)), "S",  # CNH
        "2025/0193", "CFC Alto Paranaiba", date_text(TODAY - timedelta(days=60)),    # course
        "123456789012",                                                               # reservist
        TituloEleitoral().generate(), "S",                                            # electoral
        date_text(TODAY - timedelta(days=12)), date_text(TODAY), "Dr Paulo CRM 12345",  # medical
        PIS().generate(),                                                             # INSS
        date_text(TODAY - timedelta(days=7)), "CEMIG",                                # residence
        date_text(TODAY - timedelta(days=20)), "N",                                   # criminal: Negativas
    ]
    for n, value in enumerate(values):
        if n:
            keys.tab()
        keys.type(value)
    keys.tab()  # the CPF copy's attachment list is empty: no Tab stop (issue #26 item 1)
    keys.type(date_text(TODAY))  # declaration of Art. 8
    keys.tab()
    keys.type("S")  # declares no other permit
    keys.shot("clerk-documents", window)


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")  # the file name completer, offscreen
def test_the_counter_day_from_the_keyboard(qtbot, day: KeyRecorder, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
                                           inspector: AppContext, monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    keys = day
    modals = Modals()
    try:
        _play_the_day(qtbot, keys, modals, clerk, supervisor, inspector, monkeypatch, tmp_path)
    finally:
        modals.stop()
    modals.check()


def _play_the_day(qtbot, keys: KeyRecorder, modals: Modals, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
                  inspector: AppContext, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cpf = valid_cpf()
    _seed_tender(supervisor, cpf, "Joao Batista Ferreira")
    previews: list[str] = []

    # -- the clerk: the dossier -------------------------------------------------------------
    window = DossierWindow(clerk)  # "Nova pessoa" (Ctrl+N) opens it
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    assert fits_screen(window) == [] and missing_access_keys(window) == []
    keys.start("atendente")
    _fill_dossier(keys, qtbot, window, cpf)
    keys.alt("v")  # Serviço
    keys.type("Motot")  # Mototáxi
    assert window.service() is ServiceType.MOTOTAXI
    keys.ctrl("s")
    settle(qtbot)
    assert window.person_id is not None, window.status.text()
    assert not window.is_dirty()
    pending = [v.rule_id for v in window.verdicts if v.status is not Status.MET]
    # The photo is still to come; the tender's call is the supervisor's (Art. 6º).
    assert pending == ["art5_ix_photo", "art6_tender"], pending

    # The photo: Alt+F opens the photo dialog, Alt+I imports a file (typed into Qt's file dialog).
    def photo_dialog(dialog: QWidget) -> None:
        qtbot.waitExposed(dialog)
        assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
        modals.expect(lambda w: w.objectName() == "file_dialog", file_dialog)
        keys.alt("i")
        qtbot.waitUntil(lambda: dialog.accept_button.isEnabled(), timeout=20_000)
        activate(dialog)  # back from the file dialog
        keys.shot("clerk-photo", dialog)
        keys.alt("a")  # Aceitar
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=20_000)

    def file_dialog(dialog: QWidget) -> None:
        qtbot.waitExposed(dialog)
        assert isinstance(QApplication.focusWidget(), QLineEdit)  # the file name field
        keys.type(str(PHOTO))
        keys.key(Qt.Key.Key_Return)

    modals.expect(lambda w: w.objectName() == "photo_dialog", photo_dialog)
    keys.alt("f")
    settle(qtbot)
    modals.check()
    activate(window)  # the photo dialog closed: the dossier is the active window again
    assert window.photo is not None, window.status.text()
    assert [v.rule_id for v in window.verdicts if v.status is not Status.MET] == ["art6_tender"]

    # The application: Alt+3, Alt+Q, and "Sim".
    keys.alt("3")
    modals.expect(lambda w: isinstance(w, QMessageBox), lambda box: press_button(keys, box, "Yes")
                  if any(b.text().replace("&", "") == "Yes" for b in box.findChildren(QAbstractButton))
                  else press_button(keys, box, "Sim"))
    keys.alt("q")
    settle(qtbot)
    modals.check()
    activate(window)
    opened = applications.list_applications(clerk, window.person_id)
    assert [a.service for a in opened] == [ServiceType.MOTOTAXI]
    keys.shot("clerk-application", window)
    person_id = window.person_id
    keys.key(Qt.Key.Key_Escape)  # Fechar: nothing left unsaved
    assert not window.isVisible()

    # The motorcycle.
    form = VehicleForm(clerk, holder_id=person_id)  # the vehicles page's "Novo veículo" opens it
    qtbot.addWidget(form)
    settle(qtbot, 0)  # the holder read off the GUI thread
    form.show()
    qtbot.waitExposed(form)
    form.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is form)
    assert fits_screen(form) == [] and missing_access_keys(form) == []
    keys.alt("e")  # Serviço autorizado
    keys.type("Motot")
    keys.tab()
    for n, value in enumerate(["PTC4B83", RENAVAM().generate(), "9C2KC1670JR500001", "Honda", "CG 160 Fan",
                               str(TODAY.year - 1), str(TODAY.year), "162", "Am", "Al", str(TODAY.year),
                               "Patrocinio", "MG"]):
        if n:
            keys.tab()
        keys.type(value)
    keys.alt(access_key(form.copy_holder.text()))  # Mesmo do titular: owner and insured filled
    qtbot.waitUntil(no_button_down)  # the access key's animated click
    keys.alt(access_key(label_of(form, form.insurance)))
    keys.type(date_text(TODAY + timedelta(days=300)))  # mandatory insurance valid until
    keys.tab()
    keys.type("SPVAT123")
    keys.alt(access_key(label_of(form, form.passenger_insurance)))
    keys.type(date_text(TODAY + timedelta(days=300)))  # passengers' insurance (mototáxi)
    keys.shot("clerk-vehicle", form)
    keys.alt("s")
    settle(qtbot)
    assert form.saved_id is not None, form.message.text()
    assert not form.isVisible()
    vehicle = vehicles.get_vehicle(clerk, form.saved_id).data
    assert (vehicle.plate, vehicle.colour, vehicle.crlv_uf) == ("PTC4B83", "Amarela", "MG")
    assert vehicle.insurance_valid_until == TODAY + timedelta(days=300) and vehicle.insurance_number == "SPVAT123"
    assert vehicle.passenger_insurance_valid_until == TODAY + timedelta(days=300)
    assert vehicle.owner_cpf == cpf and vehicle.insurance_insured_cpf == cpf
    keys.stop()

    # -- the inspector: the checklist --------------------------------------------------------
    inspection_id = inspections.start_inspection(inspector, vehicle_id=form.saved_id)  # the inspections page
    checklist = ChecklistDialog(inspector, inspection_id, loaded=inspections.checklist_view(inspector, inspection_id))
    qtbot.addWidget(checklist)
    checklist.show()
    qtbot.waitExposed(checklist)
    checklist.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is checklist)
    assert fits_screen(checklist) == [] and missing_access_keys(checklist) == []
    keys.start("vistoriador")
    keys.alt("m")  # every item Conforme
    qtbot.waitUntil(no_button_down)
    keys.shot("inspector-checklist", checklist)
    modals.expect(lambda w: isinstance(w, QMessageBox), lambda box: press_button(keys, box, "Yes")
                  if any(b.text().replace("&", "") == "Yes" for b in box.findChildren(QAbstractButton))
                  else press_button(keys, box, "Sim"))
    def laudo(preview: QWidget) -> None:  # the PDF preview of the laudo: read, then Esc
        qtbot.waitExposed(preview)
        previews.append(preview.windowTitle())
        assert fits_screen(preview) == []  # the laudo preview opens inside the screen too
        keys.shot("inspector-laudo", preview)
        keys.key(Qt.Key.Key_Escape)

    modals.expect(lambda w: w.windowTitle().startswith("Laudo"), laudo)
    keys.alt("c")  # Concluir vistoria
    settle(qtbot, 300)
    modals.check()
    activate(checklist)
    assert inspections.get_inspection(inspector, inspection_id).status.name == "APPROVED"
    assert previews and previews[-1].startswith("Laudo de Vistoria")
    keys.key(Qt.Key.Key_Escape)
    keys.stop()

    _supervisor_day(qtbot, keys, modals, supervisor, cpf, tmp_path)

    report = keys.table()
    target = os.environ.get("MOTODESK_COUNTER_REPORT")
    if target:
        Path(target).write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    clerk_count = keys.counts["atendente"]
    assert clerk_count.navigation <= 1.25 * clerk_count.fields, (clerk_count.navigation, clerk_count.fields,
                                                                 clerk_count.keys)


def _supervisor_day(qtbot, keys: KeyRecorder, modals: Modals, supervisor: AppContext, cpf: str,  # noqa: ANN001
                   tmp: Path) -> None:
    """The supervisor, on the permits page: call the tender's candidate, start the review, approve by
    decree, issue, print the badge to PDF, and check the badge the printer made."""
    from motodesk.services import badges
    from motodesk.ui.badge_print import BadgePrintDialog
    from motodesk.ui.badge_verify import BadgeVerifyDialog
    from motodesk.ui.screens.permits import PermitsPage

    holder = QWidget()
    holder.setObjectName("permits_window")
    QVBoxLayout(holder).addWidget(page := PermitsPage(supervisor))
    qtbot.addWidget(holder)
    holder.resize(1340, 700)
    holder.show()
    qtbot.waitExposed(holder)
    activate(holder)
    settle(qtbot)
    assert fits_screen(holder) == []
    keys.start("supervisor")

    # The tender tab: Ctrl+Tab, the tenders table (Tab from the tab bar), Convocar próximo.
    assert QApplication.focusWidget() is not None and holder.isAncestorOf(QApplication.focusWidget())
    keys.key(Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier, "Ctrl+Tab")
    settle(qtbot)
    assert page.tabs.currentWidget() is page.tender_tab
    tab = page.tender_tab
    for _ in range(8):
        if QApplication.focusWidget() is tab.tender_table:
            break
        keys.tab()
    assert QApplication.focusWidget() is tab.tender_table, QApplication.focusWidget()
    if tab.selected_tender() is None:
        keys.key(Qt.Key.Key_Down)
    settle(qtbot)
    assert tab.selected_tender() is not None
    def call_yes(box: QWidget) -> None:  # an irreversible step asks first, "Não" the default
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
        labels = [b.text().replace("&", "") for b in box.findChildren(QAbstractButton)]
        press_button(keys, box, "Yes" if "Yes" in labels else "Sim")

    modals.expect(lambda w: isinstance(w, QMessageBox), call_yes)
    keys.alt(access_key(tab.candidates.buttons["call_next"].text()))
    settle(qtbot, 300)
    modals.check()
    activate(holder)  # back from the question
    assert "Convocado: 1º" in tab.status.text(), tab.status.text()
    keys.shot("supervisor-tender", holder)

    # Back to the applications: Ctrl+Tab, Alt+B and the CPF, then the row.

    keys.key(Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier, "Ctrl+Tab")
    settle(qtbot)
    permits_tab = page.permits_tab
    assert page.tabs.currentWidget() is permits_tab
    keys.alt("b")
    keys.type(cpf)
    settle(qtbot, 400)
    keys.tab()  # into the table: the row found is selected
    settle(qtbot)
    row = permits_tab.selected()
    assert row is not None and row.kind == "application", row

    def step_dialog(decree: str) -> Callable[[QWidget], None]:
        def drive(dialog: QWidget) -> None:
            qtbot.waitExposed(dialog)
            assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
            keys.type(decree)  # the decree number field has the focus
            keys.tab()
            keys.type(date_text(TODAY))  # the decree's date
            keys.shot("supervisor-decree", dialog)
            keys.key(Qt.Key.Key_Return)
        return drive

    def yes(box: QWidget) -> None:
        labels = [b.text().replace("&", "") for b in box.findChildren(QAbstractButton)]
        press_button(keys, box, "Yes" if "Yes" in labels else "Sim")

    keys.alt(access_key(permits_tab.step_buttons["start_review"].text()))  # Iniciar análise
    settle(qtbot, 300)
    modals.expect(lambda w: w.windowTitle().startswith("Aprovar"), step_dialog(f"{TODAY.year}/0183"))
    keys.alt(access_key(permits_tab.step_buttons["approve"].text()))  # Aprovar… by decree
    settle(qtbot, 300)
    modals.check()
    activate(holder)  # back from the decree dialog
    assert permits_tab.selected().state.name == "APPROVED", permits_tab.status.text()
    modals.expect(lambda w: isinstance(w, QMessageBox), yes)
    keys.alt(access_key(permits_tab.step_buttons["issue"].text()))  # Emitir
    settle(qtbot, 300)
    modals.check()
    activate(holder)
    issued = permits_tab.selected()
    assert issued is not None and issued.is_permit and issued.state.name == "ACTIVE", permits_tab.status.text()
    keys.shot("supervisor-issued", holder)

    # The badge, to PDF: Imprimir crachá…, Salvar PDF…, the file name, Enter; then Fechar.
    pdf = tmp / "cracha.pdf"

    def save_dialog(dialog: QWidget) -> None:
        qtbot.waitExposed(dialog)
        assert isinstance(QApplication.focusWidget(), QLineEdit)
        keys.type(str(pdf))
        keys.key(Qt.Key.Key_Return)

    def print_dialog(dialog: QWidget) -> None:
        assert isinstance(dialog, BadgePrintDialog)
        qtbot.waitExposed(dialog)
        settle(qtbot, 300)
        assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
        keys.shot("supervisor-badge", dialog)
        modals.expect(lambda w: w.objectName() == "file_dialog", save_dialog)
        keys.alt(access_key(dialog.save_button.text()))
        qtbot.waitUntil(lambda: pdf.exists(), timeout=20_000)
        settle(qtbot)
        activate(dialog)
        keys.key(Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)

    modals.expect(lambda w: isinstance(w, BadgePrintDialog), print_dialog)
    keys.alt(access_key(permits_tab.panel.buttons["print_badge"].text()))
    settle(qtbot, 300)
    modals.check()
    activate(holder)
    [printed] = badges.print_log(supervisor, issued.id)
    assert printed.issue_no == 1 and pdf.read_bytes().startswith(b"%PDF")

    # The badge check, as the USB reader types the QR of the printed card, then Enter.
    qr_text = _qr_of(pdf)
    assert qr_text.startswith("https://") and "#MD1." in qr_text
    verdicts: list[str] = []
    keys.alt(access_key(permits_tab.panel.buttons["verify_badge"].text()))  # a window beside the page
    qtbot.waitUntil(lambda: isinstance(QApplication.activeWindow(), BadgeVerifyDialog)
                    or any(isinstance(w, BadgeVerifyDialog) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=10_000)
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, BadgeVerifyDialog) and w.isVisible())
    activate(dialog)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.scan, timeout=5_000)
    assert fits_screen(dialog) == []
    keys.type(qr_text)  # the reader's keystrokes land in the scan field, which has the focus
    keys.key(Qt.Key.Key_Return)
    settle(qtbot, 300)
    verdicts.append(dialog.verdict.text())
    keys.shot("supervisor-badge-check", dialog)
    keys.key(Qt.Key.Key_Escape)
    modals.check()
    keys.stop()
    assert verdicts == ["CRACHÁ VÁLIDO"], verdicts


def _qr_of(pdf: Path) -> str:
    """What a reader sees in the badge's QR: decoded from the PDF's page image (zbar via OpenCV)."""
    import subprocess

    import cv2
    import numpy as np

    text = ""
    detectors = [cv2.QRCodeDetector()]
    if hasattr(cv2, "QRCodeDetectorAruco"):
        detectors.append(cv2.QRCodeDetectorAruco())
    for dpi in (300, 200, 400, 600):  # a reader's camera sees the code at whatever size it is held
        prefix = pdf.with_name(f"{pdf.stem}-{dpi}")
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-png", str(pdf), str(prefix)], check=True)
        for page in sorted(pdf.parent.glob(f"{prefix.name}-*.png")):  # the QR is on the back
            image = cv2.imread(str(page))
            assert image is not None
            for detector in detectors:
                text, _points, _raw = detector.detectAndDecode(np.ascontiguousarray(image))
                if text:
                    return text
    assert text, "no QR code read from the printed badge"
    return text


# -- the inspector's notice of infraction (issue #26: the notice ≤ 2.0 navigation keys per field) ----
def _focus_to(keys: KeyRecorder, widget: QWidget, limit: int = 12) -> None:
    """Tab as a person does until the cursor is in ``widget`` (every Tab counted)."""
    for _ in range(limit):
        focused = QApplication.focusWidget()
        if focused is widget or (focused is not None and widget.isAncestorOf(focused)):
            return
        keys.tab()
    assert QApplication.focusWidget() is widget, (f"Tab never reached {widget.objectName()}: "
                                                  f"{QApplication.focusWidget()!r} after {keys.now.keys}")


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
def test_the_inspectors_notice_from_the_keyboard(qtbot, day: KeyRecorder, inspector: AppContext,  # noqa: ANN001
                                                 supervisor: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the Infrações page: Ctrl+Shift+N (Novo auto), the infraction typed into the picker, date and
    time, place, the offender by CPF (Enter searches), the account, Alt+L and "Sim"; the notice is
    stored. Counted as the role ``auto``, one field per value typed."""
    from enforcement_factory import add_holder  # type: ignore[import-not-found]

    from motodesk.services import enforcement
    from motodesk.ui.notice_form import NoticeForm
    from motodesk.ui.screens import infractions as screen
    from motodesk.ui.screens.infractions import InfractionsPage

    keys = day
    keys.shots = 50  # its screenshot is numbered after the day's (counter-51-inspector-notice.png)
    holder_person = add_holder(supervisor)
    printed: list[str] = []
    monkeypatch.setattr(screen, "preview_pdf", lambda _parent, _pdf, title: printed.append(title))
    modals = Modals()
    when = TODAY - timedelta(days=1)
    try:
        window = QWidget()
        window.setObjectName("infractions_window")
        QVBoxLayout(window).addWidget(page := InfractionsPage(inspector))
        qtbot.addWidget(window)
        window.resize(1340, 700)
        window.show()
        qtbot.waitExposed(window)
        activate(window)
        settle(qtbot)
        if not page.isAncestorOf(QApplication.focusWidget()):
            page.search.setFocus()  # the page chosen in the navigation list: its search box has the cursor
        qtbot.waitUntil(lambda: page.isAncestorOf(QApplication.focusWidget()))
        forms: list[NoticeForm] = []

        def write(form: QWidget) -> None:
            assert isinstance(form, NoticeForm)
            forms.append(form)
            qtbot.waitExposed(form)
            settle(qtbot)
            assert fits_screen(form) == []
            _focus_to(keys, form.picker.search)
            keys.type("troco")  # the catalogue's one match is chosen
            assert form.infraction() is not None and form.infraction().text == "sonegar troco"
            keys.key(Qt.Key.Key_Return)  # Enter chooses it (and goes on to the next field)
            _focus_to(keys, form.occurred)
            keys.type(when.strftime("%d%m%Y") + "1430")  # dd/MM/aaaa HH:mm, sections advance by themselves
            _focus_to(keys, form.place)
            keys.type("Praca Santa Luzia, Centro")
            _focus_to(keys, form.offender_search)
            keys.type(holder_person.cpf)
            keys.key(Qt.Key.Key_Return)  # Buscar
            qtbot.waitUntil(lambda: form.current_choice() is not None, timeout=10_000)
            _focus_to(keys, form.description)
            keys.type("Passageira pagou com R$ 50,00 e nao recebeu o troco.")
            keys.shot("inspector-notice", form)
            modals.expect(lambda w: isinstance(w, QMessageBox), confirm_yes)
            keys.alt(access_key(form.save_button.text()))  # Lavrar auto
            qtbot.waitUntil(lambda: not form.isVisible(), timeout=20_000)

        def confirm_yes(box: QWidget) -> None:  # irreversible: "Não" is the default, answered "Sim"
            assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
            labels = [b.text().replace("&", "") for b in box.findChildren(QAbstractButton)]
            press_button(keys, box, "Yes" if "Yes" in labels else "Sim")

        keys.start("auto")
        modals.expect(lambda w: isinstance(w, NoticeForm), write)
        keys.key(Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
                 "Ctrl+Shift+N")
        settle(qtbot, 300)
        modals.check()
        keys.stop()
    finally:
        modals.stop()
    modals.check()
    [form] = forms
    assert form.created is not None, form.message.text()
    stored = enforcement.get_notice(inspector, form.created.id)
    assert stored.infraction.text == "sonegar troco" and stored.place == "Praca Santa Luzia, Centro"
    assert stored.person_id == holder_person.person_id and stored.permit_id == holder_person.permit_id
    assert stored.description == "Passageira pagou com R$ 50,00 e nao recebeu o troco."
    local = stored.occurred_at.astimezone(enforcement.LOCAL_TZ)
    assert (local.date(), local.hour, local.minute) == (when, 14, 30)
    assert printed == [f"Auto de Infração {form.created.number}"]

    target = os.environ.get("MOTODESK_COUNTER_REPORT")
    if target:  # beside the day's rows (the day's test runs first and writes the file)
        path = Path(target)
        rows = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        rows = [r for r in rows if r["role"] != "auto"] + [r for r in keys.table() if r["role"] == "auto"]
        path.write_text(json.dumps(rows, ensure_ascii=False, indent=2), encoding="utf-8")
    count = keys.counts["auto"]
    assert count.fields == 5 and count.navigation <= 2.0 * count.fields, (count.navigation, count.keys)
