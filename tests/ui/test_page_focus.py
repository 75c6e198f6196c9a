"""Where the focus goes when a page or a tab is chosen (issue #26 item 1), at 1366x768, for every role.

Every page of the main window is chosen with a click in the navigation list and with its Ctrl+number;
after each, the focused widget is visible, enabled, inside the page and not a tab bar (nor the
navigation list). Every tab of a tabbed page is then chosen with Ctrl+Tab and with a click on the tab
bar; after each, the focus is inside that tab's page.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QTabBar, QTabWidget, QWidget
from window_factory import COUNTER_SCREEN, counter_window, describe_widget, shown  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.ui import page_focus
from motodesk.ui.app import create_application

ROLES = (Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def focus_problem(window: QWidget, inside: QWidget) -> str | None:
    """What is wrong with where the focus is, for a page (or tab page) ``inside`` just chosen."""
    focused = QApplication.focusWidget()
    if focused is None:
        return "o foco não está em nenhum widget"
    if focused is getattr(window, "nav", None):
        return "o foco ficou na lista de navegação"
    if isinstance(focused, QTabBar):
        return f"o foco está na barra de abas ({describe_widget(focused)})"
    if not focused.isVisible():
        return f"{describe_widget(focused)} está invisível"
    if not focused.isEnabled():
        return f"{describe_widget(focused)} está desabilitado"
    if not inside.isAncestorOf(focused):
        return f"{describe_widget(focused)} está fora de {inside.objectName() or type(inside).__name__}"
    return None


def _settle(qtbot, window, wait_ops, key: str | None = None) -> None:  # noqa: ANN001
    if key is not None:
        qtbot.waitUntil(lambda: window.page_by_key.is_built(key) and key not in window.loading, timeout=10_000)
    wait_ops()
    qtbot.wait(10)


def _click_nav(qtbot, window, key: str) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import SECTIONS

    item = window.nav.item([k for k, _ in SECTIONS].index(key))
    qtbot.mouseClick(window.nav.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.nav.visualItemRect(item).center())


def _tab_widgets(page: QWidget) -> list[QTabWidget]:
    return [t for t in page.findChildren(QTabWidget) if t.isVisibleTo(page)]


def walk_tabs(qtbot, window, page: QWidget, where: str, wait_ops) -> tuple[list[str], int]:  # noqa: ANN001
    """Every tab of every shown tab widget of ``page``, chosen with Ctrl+Tab and with a click."""
    problems: list[str] = []
    seen = 0
    for tabs in _tab_widgets(page):
        bar = tabs.tabBar()
        for index in range(tabs.count()):
            if not tabs.isTabEnabled(index) or not tabs.isTabVisible(index):
                continue
            # a click on the tab, the focus anywhere in the tab widget before
            qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
            _settle(qtbot, window, wait_ops)
            seen += 1
            if tabs.currentIndex() != index:
                problems.append(f"{where} clique na aba {index}: a aba não mudou")
                continue
            problem = focus_problem(window, tabs.currentWidget())
            if problem:
                problems.append(f"{where} clique na aba {tabs.tabText(index)!r}: {problem}")
        tabs.setCurrentIndex(0)
        page_focus.focus_first_useful(tabs.currentWidget())
        for _ in range(tabs.count()):
            before = tabs.currentIndex()
            qtbot.keyClick(QApplication.focusWidget() or tabs, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
            _settle(qtbot, window, wait_ops)
            seen += 1
            if tabs.currentIndex() == before and tabs.count() > 1:
                problems.append(f"{where} Ctrl+Tab não mudou de aba (foco em {describe_widget(QApplication.focusWidget())})")
                break
            problem = focus_problem(window, tabs.currentWidget())
            if problem:
                problems.append(f"{where} Ctrl+Tab para {tabs.tabText(tabs.currentIndex())!r}: {problem}")
    return problems, seen


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r.value)
def test_choosing_a_page_or_a_tab_puts_the_focus_in_it(qtbot, ctx: AppContext, wait_ops, role: Role) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import SECTIONS, section_visible

    window = counter_window(qtbot, ctx, role, f"foco_{role.value}")
    assert (window.width(), window.height()) == COUNTER_SCREEN
    _settle(qtbot, window, wait_ops)
    problems: list[str] = []
    visible = [key for key, _ in SECTIONS if section_visible(key, role)]
    tabs_seen = 0
    for number, key in zip([*"123456789", "0"], visible, strict=False):
        _click_nav(qtbot, window, key)  # a click in the navigation list
        _settle(qtbot, window, wait_ops, key)
        page = window.page_by_key[key]
        if not window.pages.currentWidget().isAncestorOf(page):
            problems.append(f"[{key}] o clique não mostrou a página")
        problem = focus_problem(window, page)
        if problem:
            problems.append(f"[{key}] clique na navegação: {problem}")
        window.nav.setFocus()  # Ctrl+number from the navigation list
        qtbot.keyClick(window.nav, getattr(Qt.Key, f"Key_{number}"), Qt.KeyboardModifier.ControlModifier)
        _settle(qtbot, window, wait_ops, key)
        problem = focus_problem(window, page)
        if problem:
            problems.append(f"[{key}] Ctrl+{number}: {problem}")
        found, seen = walk_tabs(qtbot, window, page, f"[{key}]", wait_ops)
        problems += found
        tabs_seen += seen
    # Ctrl+number from another page: the page shown, the focus in it
    other = visible[-1]
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    _settle(qtbot, window, wait_ops)
    problem = focus_problem(window, window.page_by_key[visible[0]])
    if problem:
        problems.append(f"[{visible[0]}] Ctrl+1 vindo de {other}: {problem}")
    assert problems == [], "\n".join(problems)
    assert tabs_seen >= 4  # the test met tabbed pages (permits, inspections, reports...)


def test_the_first_useful_widget_is_the_search_then_a_list_then_a_field(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtGui import QStandardItemModel
    from PySide6.QtWidgets import QPushButton, QTableView, QVBoxLayout

    host = QWidget()
    layout = QVBoxLayout(host)
    hidden = QLineEdit()
    hidden.setObjectName("search_hidden")
    disabled = QLineEdit()
    disabled.setObjectName("search_disabled")
    disabled.setEnabled(False)
    button = QPushButton("&Gravar")
    field = QLineEdit()
    table = QTableView()
    table.setModel(QStandardItemModel(2, 2))
    search = QLineEdit()
    search.setObjectName("search")
    tabs = QTabWidget()
    from PySide6.QtWidgets import QLabel

    tabs.addTab(QLabel("só texto"), "&Aba")
    for widget in (hidden, disabled, button, field, table, search, tabs):
        layout.addWidget(widget)
    shown(qtbot, host)
    hidden.hide()
    assert page_focus.first_useful(host) is search  # a visible, enabled search field first
    search.hide()
    assert page_focus.first_useful(host) is table  # then a list with rows
    table.model().removeRows(0, 2)
    assert page_focus.first_useful(host) is field  # then the first empty field (an empty list is none)
    field.setText("preenchido")
    assert page_focus.first_useful(host) is button  # then the first enabled stop
    for widget in (button, field):
        widget.setEnabled(False)
    assert page_focus.first_useful(host) is table  # else the empty list, where the rows will come
    for widget in (button, field):
        widget.setEnabled(True)
    assert page_focus.first_useful(tabs) is None  # a tab with nothing to type into: never its tab bar
    assert page_focus.focus_first_useful(host) is button and QApplication.focusWidget() is button
