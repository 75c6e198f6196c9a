"""Hands on the keys (issue #26 items 1, 3 and 7): every window and dialog, walked with Tab and Shift+Tab.

Each window opens with the focus in its first empty field; Tab and Shift+Tab visit only visible,
enabled widgets, never the same one twice before the round is over (a table that keeps Tab inside it,
a text box that takes the Tab as a character), never a scroll area or an empty list; the focus comes
back to a visible widget when a dialog closes; Enter runs the focused button; Home/End go to the
first/last row. The dialogs are discovered by introspection: a dialog class that is neither built
here nor listed (with the reason) in ``NOT_BUILT`` fails the test.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QLineEdit,
    QListView,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from tests_helpers import drain_events, no_button_down  # type: ignore[import-not-found]
from window_factory import (  # type: ignore[import-not-found]
    EXPECTED_FOCUS,
    NOT_BUILT,
    _dialogs,
    _user,
    describe_widget,
    discovered_dialogs,
    shown,
)

from motodesk.rules.common import Role, ServiceType
from motodesk.services.context import AppContext
from motodesk.ui import keyboard, page_focus
from motodesk.ui.app import FOCUS_STYLE, create_application
from motodesk.ui.listpage import ListPanel, allowed

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])  # the keys do not depend on the database
MAX_STOPS = 70  # a long checklist: the first stops are enough to see a trap


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def _bad_stop(widget: QWidget | None, window: QWidget) -> str | None:
    if widget is None:
        return "o foco não está em nenhum widget"
    if widget.window() is not window:
        return f"{describe_widget(widget)} está fora da janela"
    if not widget.isVisible():
        return f"{describe_widget(widget)} está invisível"
    if not widget.isEnabled():
        return f"{describe_widget(widget)} está desabilitado"
    if isinstance(widget, QScrollArea):
        return f"{describe_widget(widget)} é uma área de rolagem"
    if isinstance(widget, QAbstractItemView) and (widget.model() is None or widget.model().rowCount() == 0):
        return f"{describe_widget(widget)} é uma lista vazia"
    return None


def walk(qtbot, window: QWidget, key: Qt.Key) -> list[str]:  # noqa: ANN001
    """Press Tab (or Shift+Tab) until the focus comes round again: the problems met on the way."""
    problems: list[str] = []
    start = QApplication.focusWidget()
    bad = _bad_stop(start, window)
    if bad:
        return [f"no início: {bad}"]
    seen = [start]
    for _ in range(MAX_STOPS):
        current = QApplication.focusWidget()
        assert current is not None
        qtbot.keyClick(current, key)
        focused = QApplication.focusWidget()
        bad = _bad_stop(focused, window)
        if bad:
            problems.append(f"depois de {describe_widget(current)}: {bad}")
            break
        if focused is current and len(keyboard.tab_stops(window)) > 1:
            problems.append(f"{describe_widget(focused)} não deixa o Tab sair")
            break
        if focused is seen[0]:
            break
        if focused in seen:
            problems.append(f"{describe_widget(focused)} de novo (depois de {describe_widget(current)}): o Tab não sai dele")
            break
        seen.append(focused)
    return problems


def check_window(qtbot, window: QWidget, label: str, expected: str | None = None) -> list[str]:  # noqa: ANN001
    """The initial focus, then the round with Tab and with Shift+Tab; the tables let Tab out."""
    problems: list[str] = []
    focused = QApplication.focusWidget()
    bad = _bad_stop(focused, window)
    if bad:
        problems.append(f"foco inicial: {bad}")
    first_empty = next((w for w in keyboard.tab_stops(window) if keyboard.is_empty_input(w)), None)
    if expected is not None:
        if focused is None or focused.objectName() != expected:
            problems.append(f"foco inicial em {describe_widget(focused)}, não em {expected!r}")
    elif first_empty is not None and focused is not first_empty:
        problems.append(f"foco inicial em {describe_widget(focused)}, não no primeiro campo vazio {describe_widget(first_empty)}")
    for view in window.findChildren(QAbstractItemView):
        if view.tabKeyNavigation() and view.isVisibleTo(window):
            problems.append(f"{describe_widget(view)} prende o Tab (tabKeyNavigation)")
    problems += walk(qtbot, window, Qt.Key.Key_Tab)
    if first_empty is not None:
        first_empty.setFocus()
    problems += walk(qtbot, window, Qt.Key.Key_Backtab)
    return [f"[{label}] {p}" for p in problems]


def enter_presses_a_focused_button(qtbot, window: QWidget, label: str) -> list[str]:  # noqa: ANN001
    """Enter on the window's first button that is not its Enter-by-default one clicks it (Space was
    needed before). The button is disconnected first: nothing is recorded."""
    buttons = [b for b in keyboard.tab_stops(window) if isinstance(b, QPushButton) and not b.isDefault()]
    if not buttons:
        return []
    button = buttons[0]
    pressed: list[bool] = []
    button.clicked.disconnect()
    button.clicked.connect(lambda _c=False: pressed.append(True))
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Return)
    qtbot.waitUntil(no_button_down)  # an animated click has fired
    drain_events()
    return [] if pressed else [f"[{label}] Enter em {describe_widget(button)} não o aciona"]


# --- the building blocks -------------------------------------------------------------------------------


def test_a_table_a_scroll_area_and_an_empty_list_do_not_hold_the_tab(qtbot) -> None:  # noqa: ANN001
    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    first = QLineEdit()
    first.setText("preenchido")
    second = QLineEdit()  # the first empty field
    table = QTableView()
    model = QStandardItemModel(3, 3)
    table.setModel(model)
    empty = QListView()
    empty.setModel(QStringListModel([]))
    scroll = QScrollArea()
    inner = QLineEdit("dentro")
    scroll.setWidget(inner)
    scroll.setWidgetResizable(True)
    last = QPushButton("&Fechar")
    for widget in (first, second, table, empty, scroll, last):
        layout.addWidget(widget)
    assert table.tabKeyNavigation()  # Qt's default: Tab would move between cells
    shown(qtbot, dialog)
    assert QApplication.focusWidget() is second  # the first empty field, not the first field
    assert not table.tabKeyNavigation()
    assert check_window(qtbot, dialog, "exemplo") == []
    assert keyboard.tab_stops(dialog) == [first, second, table, inner, last]
    empty.setModel(QStringListModel(["uma linha"]))  # with rows it is a stop again, at the next Tab
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is empty


def test_the_walk_can_fail_on_a_trap(qtbot) -> None:  # noqa: ANN001
    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    table = QTableView()
    table.setModel(QStandardItemModel(3, 3))
    layout.addWidget(QLineEdit("x"))
    layout.addWidget(table)
    shown(qtbot, dialog)
    table.setTabKeyNavigation(True)  # a screen that turned it back on: Tab walks the cells
    table.setFocus()
    problems = walk(qtbot, dialog, Qt.Key.Key_Tab)
    assert problems and "não deixa o Tab sair" in problems[0]


def test_tab_leaves_a_note_and_a_date_and_time_field(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QDateTimeEdit

    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    when = QDateTimeEdit()
    notes = QPlainTextEdit()
    after = QLineEdit()
    for widget in (when, notes, after):
        layout.addWidget(widget)
    shown(qtbot, dialog)
    when.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)  # not to the month section
    assert QApplication.focusWidget() is notes
    qtbot.keyClick(notes, Qt.Key.Key_Tab)  # not a tab character
    assert QApplication.focusWidget() is after and notes.toPlainText() == ""
    qtbot.keyClick(after, Qt.Key.Key_Backtab)
    qtbot.keyClick(notes, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is when


def test_enter_runs_the_focused_button_in_a_dialog_and_in_a_window(qtbot) -> None:  # noqa: ANN001
    for host in (QDialog(), QWidget()):
        layout = QVBoxLayout(host)
        field = QLineEdit()
        button = QPushButton("&Gravar")
        if isinstance(button, QPushButton):
            button.setAutoDefault(False)  # today's dialogs: only Space pressed it
        layout.addWidget(field)
        layout.addWidget(button)
        clicks: list[bool] = []
        button.clicked.connect(lambda _c=False, clicks=clicks: clicks.append(True))
        shown(qtbot, host)
        button.setFocus()
        qtbot.keyClick(button, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda clicks=clicks: clicks == [True], timeout=1000)
        field.setFocus()
        qtbot.keyClick(field, Qt.Key.Key_Return)  # Enter in a field does not press a non-default button
        qtbot.wait(150)
        assert clicks == [True]


def test_home_and_end_go_to_the_first_and_last_row(qtbot) -> None:  # noqa: ANN001
    from motodesk.ui.widgets import table_view

    host = QWidget()
    layout = QVBoxLayout(host)
    table = table_view("linhas")
    model = QStandardItemModel(30, 4)
    table.setModel(model)
    layout.addWidget(table)
    shown(qtbot, host)
    table.setFocus()
    table.setCurrentIndex(model.index(5, 2))
    qtbot.keyClick(table, Qt.Key.Key_End)
    assert table.currentIndex().row() == 29
    qtbot.keyClick(table, Qt.Key.Key_Home)
    assert table.currentIndex().row() == 0
    assert not table.tabKeyNavigation()


def test_the_focus_comes_back_to_a_visible_widget_when_a_dialog_closes(qtbot) -> None:  # noqa: ANN001
    host = QWidget()
    layout = QVBoxLayout(host)
    field = QLineEdit("x")
    opener = QPushButton("&Abrir")
    layout.addWidget(field)
    layout.addWidget(opener)
    shown(qtbot, host)
    opener.setFocus()
    dialog = QDialog(host)
    QVBoxLayout(dialog).addWidget(QLineEdit())
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    opener.hide()  # what had the focus is gone when the dialog closes (the row was reloaded)
    dialog.close()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field, timeout=2000)


def test_the_focus_is_marked_by_the_style_sheet() -> None:
    sheet = QApplication.instance().styleSheet()  # type: ignore[union-attr]
    assert FOCUS_STYLE in sheet
    for selector in ("QPushButton:focus", "QLineEdit:focus", "QTableView:focus", "QCheckBox:focus",
                     "QRadioButton:focus", "QComboBox:focus"):
        assert selector in sheet


def test_a_field_marked_with_an_error_still_shows_the_focus(qtbot) -> None:  # noqa: ANN001
    from motodesk.ui.widgets import DateField, mark_field

    host = QWidget()
    layout = QVBoxLayout(host)
    field = DateField()
    other = QLineEdit()
    layout.addWidget(field)
    layout.addWidget(other)
    shown(qtbot, host)
    mark_field(field, "Data inexistente")
    other.setFocus()
    qtbot.wait(10)
    unfocused = field.grab().toImage()
    field.setFocus()
    qtbot.wait(10)
    focused = field.grab().toImage()
    assert "QLineEdit:focus" in field.styleSheet()
    left = [focused.pixelColor(1, y).name() for y in range(4, focused.height() - 4)]
    assert "#1565c0" in left and "#1565c0" not in [unfocused.pixelColor(1, y).name()
                                                    for y in range(4, unfocused.height() - 4)]
    mark_field(field, None)
    assert field.styleSheet() == ""


# --- every page of the main window ----------------------------------------------------------------


class _StraySpy(QObject):
    """Records a button, label or field shown as a window of its own (it takes the activation away)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow() \
                and not isinstance(watched, (QDialog, QMainWindow, QMenu)) and watched.parentWidget() is None \
                and watched.windowType() not in (Qt.WindowType.Popup, Qt.WindowType.ToolTip) \
                and type(watched).__module__.startswith("PySide6"):
            self.seen.append(describe_widget(watched))
        return False


def watch_stray_windows(qtbot) -> list[str]:  # noqa: ANN001
    spy = _StraySpy()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(spy)
    qtbot._keyboard_spy = spy  # kept alive for the test
    return spy.seen



@SQLITE_ONLY
def test_every_page_of_the_main_window_is_walked_with_tab(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    make_dossier(ctx, ServiceType.MOTOTAXI)  # lists with a row
    window = build_main_window(_user(ctx, Role.ADMIN, "teclado"))
    stray = watch_stray_windows(qtbot)
    shown(qtbot, window)
    wait_ops()
    problems: list[str] = []
    for number, (key, _label) in enumerate(SECTIONS[:9], start=1):
        qtbot.keyClick(QApplication.focusWidget() or window, getattr(Qt.Key, f"Key_{number}"),
                       Qt.KeyboardModifier.ControlModifier)  # Ctrl+1…Ctrl+9 choose the page
        wait_ops()
        qtbot.wait(10)
        page = window.page_by_key[key]
        if window.pages.currentIndex() != number - 1:
            problems.append(f"Ctrl+{number} não abriu {key}")
            continue
        focused = QApplication.focusWidget()
        if focused is None or not page.isAncestorOf(focused):
            problems.append(f"Ctrl+{number}: o foco não foi para a página {key} ({describe_widget(focused)})")
        tabs = next(iter(page.findChildren(QTabWidget)), None)
        for index in range(tabs.count() if tabs is not None else 1):
            if tabs is not None:
                tabs.setCurrentIndex(index)
                wait_ops()
                qtbot.wait(10)
            where = f"[{key}{f' aba {index}' if tabs is not None else ''}]"
            if keyboard.focus_is_lost(QApplication.focusWidget()):
                problems.append(f"{where} o foco não está num widget visível ({describe_widget(QApplication.focusWidget())})")
                page_focus.focus_page(page)
            focused = QApplication.focusWidget()
            if isinstance(focused, QAbstractItemView) and _bad_stop(focused, window):  # a tab with only an
                qtbot.keyClick(focused, Qt.Key.Key_Tab)  # empty list has it (rows come there): Tab goes on
            problems += [f"{where} {p}" for p in walk(qtbot, window, Qt.Key.Key_Tab)]
            problems += [f"{where} {p}" for p in walk(qtbot, window, Qt.Key.Key_Backtab)]
            problems += [f"{where} {describe_widget(v)} prende o Tab" for v in page.findChildren(QAbstractItemView)
                         if v.tabKeyNavigation()]
        for panel in page.findChildren(ListPanel):  # Enter on a row says what it does before it does it
            default = next((a for a in panel.spec.actions if a.default and allowed(a.roles, Role.ADMIN)), None)
            tip = panel.table.toolTip()
            if default is not None and not tip.startswith(f"Enter: {keyboard.without_mnemonic(default.label).rstrip('…. ')}"):
                problems.append(f"[{key}] a tabela {panel.spec.name} não diz o que o Enter faz ({tip!r})")
    problems += [f"{what} abriu como janela própria (setVisible(True) sem pai)" for what in stray]
    assert "Ctrl+" in window.nav.toolTip() and "digite" in window.nav.toolTip()
    assert window.nav.item(0).toolTip() == "Pessoas (Ctrl+1)"
    assert problems == [], "\n".join(problems)


# --- every dialog -----------------------------------------------------------------------------------

@SQLITE_ONLY
def test_every_dialog_is_built_here_or_listed(ctx: AppContext) -> None:
    built = {label.split(" (")[0] for label, _ in _dialogs(ctx)}
    missing = discovered_dialogs() - built - set(NOT_BUILT)
    assert missing == set(), f"dialogs neither walked nor listed in NOT_BUILT: {sorted(missing)}"
    assert not (built & set(NOT_BUILT)), "a dialog both built and listed"


@SQLITE_ONLY
def test_every_dialog_opens_in_its_first_empty_field_and_is_walked_with_tab(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                           wait_ops, monkeypatch) -> None:
    monkeypatch.setattr(QMessageBox, "exec", lambda _box: QMessageBox.StandardButton.Discard)
    problems: list[str] = []
    for label, build in _dialogs(ctx):
        dialog = shown(qtbot, build())
        wait_ops()
        qtbot.wait(10)
        problems += check_window(qtbot, dialog, label, EXPECTED_FOCUS.get(label))
        pages = getattr(dialog, "pageIds", None)
        if pages is not None:  # a wizard: every page
            for _ in pages()[1:]:
                dialog.next()
                wait_ops()
                qtbot.wait(10)
                problems += check_window(qtbot, dialog, f"{label} p{dialog.currentId()}")
        problems += enter_presses_a_focused_button(qtbot, dialog, label)
        if isinstance(dialog, QDialog):
            dialog.done(0)  # no question about unsaved changes
        else:
            dialog.hide()
    assert problems == [], "\n".join(problems)


@SQLITE_ONLY
def test_enter_on_the_dossiers_focused_button_presses_it(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    """The dossier needed Space: Enter on its focused button now presses it."""
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.ui.dossier import DossierWindow

    clerk = _user(ctx, Role.CLERK, "bal2")
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
    window = shown(qtbot, DossierWindow(clerk, dossier.person_id))
    buttons = [b for b in keyboard.tab_stops(window) if isinstance(b, QPushButton) and not b.autoDefault()]
    assert buttons, "the dossier has buttons that only Space pressed"
    pressed: list[str] = []
    button = buttons[0]
    button.clicked.disconnect()
    button.clicked.connect(lambda _c=False: pressed.append(button.objectName()))
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pressed == [button.objectName()], timeout=1000)


@SQLITE_ONLY
def test_screenshots_of_the_focus_marking(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    """focus-*.png (docs/screenshots/ with MOTODESK_SCREENSHOTS=1, a scratch folder otherwise): where
    each window opens, and a button and a table in focus."""
    from permit_factory import make_dossier  # type: ignore[import-not-found]
    from tests_helpers import SCREENSHOTS as folder  # type: ignore[import-not-found]

    from motodesk.services import inspections
    from motodesk.ui.app import build_main_window
    from motodesk.ui.checklist import ChecklistDialog
    from motodesk.ui.vehicle_form import VehicleForm

    clerk = _user(ctx, Role.CLERK, "foto")
    inspector = _user(ctx, Role.INSPECTOR, "fotofis")
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)

    form = shown(qtbot, VehicleForm(clerk))
    wait_ops()
    qtbot.wait(20)
    assert QApplication.focusWidget() is form.findChild(QWidget, "holder_cpf")
    form.grab().save(str(folder / "focus-novo-veiculo.png"))
    form.done(0)

    checklist = shown(qtbot, ChecklistDialog(inspector, iid := inspections.start_inspection(
        inspector, vehicle_id=dossier.vehicle_id), loaded=inspections.checklist_view(inspector, iid)))
    wait_ops()
    qtbot.wait(20)
    focused = QApplication.focusWidget()
    assert focused is not None and focused.objectName().startswith("ok_")  # the first item's first answer
    checklist.grab().save(str(folder / "focus-checklist.png"))
    checklist.save_button.setFocus()
    qtbot.wait(20)
    checklist.grab().save(str(folder / "focus-checklist-botao.png"))
    checklist.done(0)

    window = shown(qtbot, build_main_window(clerk))
    wait_ops()
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    wait_ops()
    qtbot.wait(20)
    window.grab().save(str(folder / "focus-veiculos-busca.png"))
    table = window.page_by_key["vehicles"].findChild(QTableView, "vehicles_table")
    table.setFocus()
    qtbot.wait(20)
    window.grab().save(str(folder / "focus-veiculos-tabela.png"))
    window.nav.setFocus()
    qtbot.wait(20)
    window.grab().save(str(folder / "focus-navegacao.png"))
