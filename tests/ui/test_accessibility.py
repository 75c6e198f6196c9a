"""Screens anyone can use (Lei 13.146/2015, eMAG; issue #29 item 2).

Every visible input of every window and dialog is announced by a screen reader with a name (read back
through QAccessible, as Orca or NVDA would), and inputs that explain themselves with a tool tip carry
it as their accessible description.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from a11y_dialogs import NOT_BUILT, dialog_classes, dialogs, qualname  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget
from tests_helpers import drain_events  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.accessible import clean_label, is_input, name_inputs
from motodesk.ui.app import create_application

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])  # the screens do not depend on the database


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def unnamed_inputs(window: QWidget) -> list[str]:
    """Visible inputs of a window that a screen reader would announce without a name."""
    offenders = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not is_input(widget) or not widget.isVisibleTo(window) or widget.window() is not window:
            continue
        interface = QAccessible.queryAccessibleInterface(widget)
        name = interface.text(QAccessible.Text.Name) if interface is not None else ""
        if not (name or "").strip():
            offenders.append(f"{type(window).__name__}: {type(widget).__name__} {widget.objectName()!r}")
    return offenders


def undescribed_inputs(window: QWidget) -> list[str]:
    """Visible inputs with a tool tip that is not their accessible description."""
    return [f"{type(window).__name__}: {type(w).__name__} {w.objectName()!r}"
            for w in window.findChildren(QWidget)
            if is_input(w) and w.isVisibleTo(window) and w.toolTip() and w.window() is window
            and not w.accessibleDescription() and w.accessibleName() != clean_label(w.toolTip())]


def _shown(qtbot, widget: QWidget) -> QWidget:  # noqa: ANN001
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _check(qtbot, widget: QWidget) -> list[str]:  # noqa: ANN001
    drain_events()
    return unnamed_inputs(widget) + undescribed_inputs(widget)


# --- the generic pass ------------------------------------------------------------------------------


def test_label_text_becomes_a_name_without_access_key_or_colon() -> None:
    assert clean_label("&Nome completo:") == "Nome completo"
    assert clean_label("CPF *:") == "CPF"
    assert clean_label("<b>Placa</b>:") == "Placa"
    assert clean_label("Prazo && multa:") == "Prazo & multa"


def test_a_dialog_names_its_inputs_from_buddies_form_rows_and_placeholders(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QHBoxLayout, QPushButton, QVBoxLayout

    dialog = QDialog()
    column = QVBoxLayout(dialog)
    buddy_label = QLabel("&Placa:")
    plate = QLineEdit()
    plate.setToolTip("Placa Mercosul do veículo (Art. 8º)")
    buddy_label.setBuddy(plate)
    column.addWidget(buddy_label)
    column.addWidget(plate)
    form = QFormLayout()
    kind = QComboBox()
    row = QHBoxLayout()
    cpf = QLineEdit()
    row.addWidget(cpf)
    row.addWidget(QPushButton("&Buscar"))
    form.addRow("&Serviço:", kind)
    form.addRow("C&PF:", row)
    column.addLayout(form)
    search = QLineEdit()
    search.setPlaceholderText("Buscar por nome ou CPF")
    column.addWidget(search)
    preset = QLineEdit()
    preset.setAccessibleName("Dado pela tela")
    column.addWidget(preset)
    lonely = QLineEdit()
    column.addWidget(lonely)
    _shown(qtbot, dialog)  # the application's filter names them on show
    assert plate.accessibleName() == "Placa" and plate.accessibleDescription() == "Placa Mercosul do veículo (Art. 8º)"
    assert kind.accessibleName() == "Serviço" and cpf.accessibleName() == "CPF"
    assert search.accessibleName() == "Buscar por nome ou CPF"
    assert preset.accessibleName() == "Dado pela tela"  # never overwritten
    assert unnamed_inputs(dialog) == [f"QDialog: QLineEdit {lonely.objectName()!r}"]  # the check can fail
    lonely.setAccessibleName("Observação")
    assert unnamed_inputs(dialog) == []
    assert name_inputs(dialog) == 0  # a second pass changes nothing


def test_an_input_a_screen_adds_after_show_is_named_too(qtbot) -> None:  # noqa: ANN001
    """A form built once its data is read (Administração › Configurações): its inputs appear after the
    window was shown, and are named on the next turn of the event loop."""
    from PySide6.QtWidgets import QCheckBox, QFormLayout, QTableWidget, QTableWidgetItem

    window = QWidget()
    window.setWindowTitle("Revisar as duas versões")
    form = QFormLayout(window)
    _shown(qtbot, window)
    late = QLineEdit()
    late.setToolTip("Art. 10, I")
    form.addRow("&População do município:", late)
    table = QTableWidget(1, 2)
    table.setHorizontalHeaderLabels(["Campo", "Usar a gravada"])
    table.setItem(0, 0, QTableWidgetItem("Nome completo"))
    check = QCheckBox()
    table.setCellWidget(0, 1, check)
    form.addRow(table)
    qtbot.waitUntil(lambda: late.accessibleName() == "População do município")
    assert late.accessibleDescription() == "Art. 10, I"
    assert check.accessibleName() == "Usar a gravada: Nome completo"
    assert table.accessibleName() == "Revisar as duas versões"
    assert unnamed_inputs(window) == []


# --- every window and dialog -----------------------------------------------------------------------


@SQLITE_ONLY
def test_every_page_of_the_main_window_names_its_inputs(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                        _never_ask_unsaved: None) -> None:
    """Every section, and on it every tab and stacked page (Administração's users, settings groups,
    backups and access log included)."""
    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    auth.create_user(ctx, "acesso", "Ana Acessível", Role.ADMIN, "senha-certa-9")
    window = _shown(qtbot, build_main_window(ctx.as_user(auth.authenticate(ctx, "acesso", "senha-certa-9"))))
    offenders: list[str] = []
    for key, _label in SECTIONS:
        page = window.show_section(key)
        wait_ops()
        offenders += _walk(qtbot, key, window, wait_ops, within=page)
    assert offenders == [], "\n".join(offenders)


def accessible_description(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return (interface.text(QAccessible.Text.Description) if interface is not None else "") or ""


@SQLITE_ONLY
def test_every_law_setting_is_described_by_its_article(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    """Administração > Configurações: each input reads back its label as name and its article as
    description (what a screen reader says on request)."""
    from PySide6.QtWidgets import QAbstractButton

    from motodesk.ui.screens.admin import SettingsTab

    auth.create_user(ctx, "lei", "Lia Legal", Role.ADMIN, "senha-certa-9")
    tab = _shown(qtbot, SettingsTab(ctx.as_user(auth.authenticate(ctx, "lei", "senha-certa-9"))))
    tab.reload()
    wait_ops()
    qtbot.waitUntil(lambda: len(tab.editors) > 10)
    drain_events()
    problems = []
    for name, editor in tab.editors.items():
        article = editor.field.article
        assert article
        inputs = [editor.input, *[w for w in editor.widget.findChildren(QAbstractButton) if w.text()]]
        for widget in inputs:
            if article not in accessible_description(widget):
                problems.append(f"{name}: {type(widget).__name__} described as {accessible_description(widget)!r}")
        if is_input(editor.input) and not editor.input.accessibleName():
            problems.append(f"{name}: no name")
        elif is_input(editor.input):
            assert editor.input.accessibleName() == clean_label(tab.findChild(QLabel, f"label_{name}").text())
    assert problems == [], "\n".join(problems)


def _walk(qtbot, label: str, dialog: QWidget, wait_ops, within: QWidget | None = None) -> list[str]:  # noqa: ANN001
    """Unnamed inputs of a dialog on every page it has: wizard pages, tabs, stacked pages (those under
    ``within`` only, when given)."""
    from PySide6.QtWidgets import QStackedWidget, QTabWidget

    within = within or dialog

    offenders = [f"[{label}] {o}" for o in _check(qtbot, dialog)]
    pages = getattr(dialog, "pageIds", None)
    if pages is not None:  # a wizard: every page
        for _ in pages()[1:]:
            dialog.next()  # type: ignore[attr-defined]
            wait_ops()
            offenders += [f"[{label} p{dialog.currentId()}] {o}" for o in _check(qtbot, dialog)]  # type: ignore[attr-defined]
    for tabs in within.findChildren(QTabWidget):
        for index in range(1, tabs.count()):
            tabs.setCurrentIndex(index)
            wait_ops()
            offenders += [f"[{label} tab {tabs.tabText(index)!r}] {o}" for o in _check(qtbot, dialog)]
    for stack in within.findChildren(QStackedWidget):
        if stack.parentWidget() is not None and isinstance(stack.parentWidget(), QTabWidget):
            continue
        for index in range(stack.count()):
            if not stack.isVisibleTo(dialog) or index == stack.currentIndex():
                continue
            stack.setCurrentIndex(index)
            wait_ops()
            offenders += [f"[{label} page {index}] {o}" for o in _check(qtbot, dialog)]
    return list(dict.fromkeys(offenders))


@pytest.fixture
def _never_ask_unsaved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialog closed with something typed must not wait for "Salvar / Descartar"."""
    import sys

    from motodesk.ui import guard

    dialog_classes()  # every module imported, so that every copy of the name is replaced
    original = guard.ask_unsaved
    for name, module in list(sys.modules.items()):
        if name.startswith("motodesk.ui") and getattr(module, "ask_unsaved", None) is original:
            monkeypatch.setattr(module, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)


@SQLITE_ONLY
def test_every_dialog_class_of_the_application_is_checked(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                          _never_ask_unsaved: None) -> None:
    """Found by introspection: a dialog that no entry opens (and that is not listed, with a reason, as
    not a dialog of its own) fails this test, so a new one cannot be forgotten."""
    built: set[str] = set()
    for _label, build in dialogs(ctx):
        dialog = build()
        built.add(qualname(dialog))
        qtbot.addWidget(dialog)
        dialog.close()
    found = dialog_classes()
    assert "motodesk.ui.screens.admin.UserDialog" in found and "motodesk.ui.photo_dialog.PhotoDialog" in found
    assert found - built - set(NOT_BUILT) == set(), "dialogs no accessibility check opens"
    assert set(NOT_BUILT) <= found, "a stale entry in NOT_BUILT"


@SQLITE_ONLY
def test_every_dialog_names_its_inputs(qtbot, ctx: AppContext, wait_ops, _never_ask_unsaved: None) -> None:  # noqa: ANN001
    offenders: list[str] = []
    opened = 0
    for label, build in dialogs(ctx):
        dialog = _shown(qtbot, build())
        wait_ops()
        offenders += _walk(qtbot, label, dialog, wait_ops)
        opened += 1
        dialog.close()
    assert opened >= 50
    assert offenders == [], "\n".join(offenders)


def test_the_application_filter_is_installed_once() -> None:
    app = QApplication.instance()
    first = app._motodesk_accessibility  # type: ignore[attr-defined]
    create_application()
    assert app._motodesk_accessibility is first  # type: ignore[attr-defined]


# --- colour is never the only signal ---------------------------------------------------------------


def test_requirements_differ_by_symbol_and_word_not_only_colour(qtbot) -> None:  # noqa: ANN001
    from motodesk.rules.common import Status, Verdict
    from motodesk.ui.widgets import VerdictList

    panel = VerdictList()
    qtbot.addWidget(panel)
    panel.set_verdicts([Verdict("r", "Art. 3º, I", status, "Motocicleta até 300 cc") for status in Status])
    texts = [panel.item(i).text() for i in range(panel.count())]
    assert len(set(texts)) == len(texts) == 3  # the same sentence reads differently in each state
    assert texts[0].startswith("✔") and "Atendido" in texts[0]
    assert texts[1].startswith("✘") and "Não atendido" in texts[1]
    assert "Pendente" in texts[2]
    from PySide6.QtCore import Qt
    assert "Não atendido" in panel.item(1).data(Qt.ItemDataRole.AccessibleTextRole)


def _is_symbol(ch: str) -> bool:
    return not ch.isalnum() and not ch.isspace()


def colour_only_cells(model) -> list[str]:  # noqa: ANN001
    """Where a table says a state by colour alone: a coloured row with no cell of it starting with a
    symbol followed by words, or one column where two colours (or a colour and none) share a symbol."""
    from PySide6.QtCore import Qt

    problems = []
    symbols: dict[tuple[int, str], set[str]] = {}  # (column, colour) -> leading symbols
    for row in range(model.rowCount()):
        said = False
        coloured = False
        for column in range(model.columnCount()):
            index = model.index(row, column)
            colour = index.data(Qt.ItemDataRole.ForegroundRole) or index.data(Qt.ItemDataRole.BackgroundRole)
            text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
            if colour is not None and hasattr(colour, "color"):  # a QBrush
                colour = colour.color()
            name = colour.name() if colour is not None else ""
            lead = text[:1] if text and _is_symbol(text[0]) else ""
            symbols.setdefault((column, name), set()).add(lead)
            if colour is not None:
                coloured = True
                said = said or bool(lead and any(ch.isalpha() for ch in text))
        if coloured and not said:
            texts = [str(model.index(row, c).data() or "") for c in range(model.columnCount())]
            problems.append(f"row {row} coloured, no symbol and word: {texts}")
    for (column, name), leads in symbols.items():
        for (other_column, other), other_leads in symbols.items():
            if other_column == column and other != name and leads & other_leads - {""}:
                problems.append(f"column {column}: {name or 'no colour'} and {other or 'no colour'} share "
                                f"{sorted(leads & other_leads)}")
    return sorted(set(problems))


def test_the_colour_check_can_fail() -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel

    model = QStandardItemModel()
    red = QStandardItem("Vencido")
    red.setForeground(QColor("#b00020"))
    model.appendRow([red, QStandardItem("Maria")])
    model.appendRow([QStandardItem("Em dia"), QStandardItem("João")])
    assert colour_only_cells(model) != []
    red.setText("✖ Vencido")
    assert colour_only_cells(model) == []
    model.item(1, 0).setText("✖ Em dia")  # the same symbol without the colour says nothing
    assert colour_only_cells(model) != []
    assert model.item(0, 0).data(Qt.ItemDataRole.DisplayRole) == "✖ Vencido"


def test_deadlines_overdue_and_soon_carry_a_symbol_and_words() -> None:
    from datetime import date

    from motodesk.rules.deadlines import Deadline, DeadlineKind
    from motodesk.services.deadlines import DeadlineRow
    from motodesk.ui.screens.deadlines import DeadlinesModel

    model = DeadlinesModel()
    kind = next(iter(DeadlineKind))
    model.set_rows([DeadlineRow(Deadline(kind, "Art. 10", date.today(), "Vistoria anual"), days, 1, "Ana", None,
                                None, "MT-0001/2026") for days in (-3, -1, 0, 2, 7, 8, 30)])
    assert colour_only_cells(model) == []
    column = [c.key for c in model.columns].index("days_left")
    texts = [model.index(r, column).data() for r in range(model.rowCount())]
    assert texts[0] == "✖ Vencido há 3 dias" and texts[2] == "⚠ Vence hoje" and texts[4] == "⚠ Faltam 7 dias"
    assert texts[-1] == "Faltam 30 dias"  # no colour, no symbol


def test_import_rows_say_their_outcome_with_a_symbol_and_words() -> None:
    from motodesk.services.imports import ImportLine, Outcome
    from motodesk.ui.import_dialog import ImportLinesModel

    model = ImportLinesModel()
    model.set_rows([ImportLine(n, "Ana", None, outcome) for n, outcome in enumerate(Outcome, 1)])
    assert colour_only_cells(model) == []
    column = [c.key for c in model.columns].index("status")
    assert len({model.index(r, column).data()[0] for r in range(model.rowCount())}) == len(Outcome)


@SQLITE_ONLY
def test_notices_overdue_and_repeat_offences_carry_a_symbol_and_words(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                       wait_ops) -> None:
    from dataclasses import replace

    from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]

    from motodesk.services import enforcement
    from motodesk.services.enforcement import NoticeInput, OffenderKind
    from motodesk.ui.screens.infractions import HISTORY_COLUMNS, HistoryModel, InfractionsPage

    auth.create_user(ctx, "fiscal", "Fábio Fiscal", Role.INSPECTOR, "senha-certa-9")
    auth.create_user(ctx, "chefe", "Sara Chefe", Role.SUPERVISOR, "senha-certa-9")
    inspector = ctx.as_user(auth.authenticate(ctx, "fiscal", "senha-certa-9"))
    supervisor = ctx.as_user(auth.authenticate(ctx, "chefe", "senha-certa-9"))
    holder = add_holder(ctx)
    for text in ("primeira", "segunda"):
        enforcement.create_notice(inspector, NoticeInput("30.2.VI", an_hour_ago(), "Centro", OffenderKind.HOLDER,
                                                         person_id=holder.person_id, description=text))
    page = _shown(qtbot, InfractionsPage(supervisor))
    wait_ops()
    model = page.panel.model
    assert model.rowCount() == 2
    due = next(r.next_due for r in model.rows() if r.next_due)
    assert colour_only_cells(model) == []  # nothing overdue yet
    page.today = lambda: due + timedelta(days=1)
    page.reload()
    wait_ops()
    column = [c.key for c in model.columns].index("defence_due")
    assert model.index(0, column).data(Qt.ItemDataRole.ForegroundRole) is not None  # now red …
    assert model.index(0, column).data().startswith("✖") and "vencido" in model.index(0, column).data()  # … and said
    assert colour_only_cells(model) == []
    history = HistoryModel(HISTORY_COLUMNS)
    history.set_rows([replace(model.rows()[0], repeat=True), replace(model.rows()[1], repeat=False)])
    assert colour_only_cells(history) == []
