"""Tab leaves every table (issue #26 item 7), for every role, at 1366x768.

Every list, table and tree shown on any page of the main window, in any of its tabs (nested tabs too),
is given the focus on its first cell and Tab is pressed: the focus must leave the view (no walk from
cell to cell), and the view must have ``tabKeyNavigation`` off (an empty table would let Tab out today
and trap it once rows come). Recadastramento and Estoque de cartões trapped it before.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QComboBox, QHeaderView, QTabWidget, QWidget
from window_factory import counter_window, shown  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application

ROLES = (Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def _views(root: QWidget) -> list[QAbstractItemView]:
    return [v for v in root.findChildren(QAbstractItemView)
            if v.isVisibleTo(root) and not isinstance(v, QHeaderView)  # a header is never a stop
            and not isinstance(v.parentWidget(), QComboBox) and not v.isWindow()]


def tab_traps(qtbot, root: QWidget, where: str) -> tuple[list[str], set[str]]:  # noqa: ANN001
    """Each shown view of ``root``: focused on its first cell, Tab pressed; the views that kept it."""
    problems: list[str] = []
    checked: set[str] = set()
    for view in _views(root):
        if not view.isVisible() or not view.isEnabled():
            continue
        name = f"{where} {type(view).__name__} {view.objectName()!r}"
        checked.add(name)
        if view.tabKeyNavigation():
            problems.append(f"{name}: tabKeyNavigation ligado (o Tab anda de célula em célula)")
        model = view.model()
        if model is not None and model.rowCount(view.rootIndex()) > 0:
            view.setCurrentIndex(model.index(0, 0, view.rootIndex()))
        view.setFocus(Qt.FocusReason.MouseFocusReason)
        if not view.hasFocus():
            problems.append(f"{name}: não recebe o foco")
            continue
        before = view.currentIndex()
        qtbot.keyClick(view, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        if focused is view or (focused is not None and view.isAncestorOf(focused)):
            moved = " (foi para a célula seguinte)" if view.currentIndex() != before else ""
            problems.append(f"{name}: o Tab não sai da tabela{moved}")
    return problems, checked


def walk_pages_and_tabs(qtbot, root: QWidget, where: str, wait_ops) -> tuple[list[str], set[str]]:  # noqa: ANN001
    """The views of ``root`` as shown, then of every tab of each of its tab widgets (recursively)."""
    problems, checked = tab_traps(qtbot, root, where)
    for tabs in [t for t in root.findChildren(QTabWidget) if t.isVisibleTo(root)]:
        if tabs.parentWidget() is not None and any(
                isinstance(a, QTabWidget) and a is not tabs and a.isAncestorOf(tabs) and root.isAncestorOf(a)
                for a in root.findChildren(QTabWidget)):
            continue  # a nested tab widget: walked from its parent's tab
        for index in range(tabs.count()):
            if not tabs.isTabEnabled(index) or not tabs.isTabVisible(index):
                continue
            tabs.setCurrentIndex(index)
            wait_ops()
            qtbot.wait(5)
            page = tabs.currentWidget()
            found, seen = walk_pages_and_tabs(qtbot, page, f"{where} aba {tabs.tabText(index)!r}", wait_ops)
            problems += found
            checked |= seen
        tabs.setCurrentIndex(0)
    return problems, checked


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r.value)
def test_tab_leaves_every_table_of_every_page(qtbot, ctx: AppContext, wait_ops, role: Role) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import SECTIONS, section_visible

    window = counter_window(qtbot, ctx, role, f"tab_{role.value}")
    wait_ops()
    problems, checked = tab_traps(qtbot, window, "[janela]")  # the navigation list too
    for key, _label in SECTIONS:
        if not section_visible(key, role):
            continue
        page = window.show_section(key)
        qtbot.waitUntil(lambda key=key: key not in window.loading, timeout=10_000)
        wait_ops()
        qtbot.wait(10)
        found, seen = walk_pages_and_tabs(qtbot, page, f"[{key}]", wait_ops)
        problems += found
        checked |= seen
    if role is not Role.INSPECTOR:  # Ferramentas › Estoque de cartões, every tab
        from motodesk.ui.card_stock import CardStockDialog

        dialog = shown(qtbot, CardStockDialog(window.ctx, window))
        wait_ops()
        found, seen = walk_pages_and_tabs(qtbot, dialog, "[estoque de cartões]", wait_ops)
        problems += found
        checked |= seen
        assert any("estoque" in name for name in seen)
        dialog.done(0)
    assert problems == [], "\n".join(problems)
    assert len(checked) >= 20, sorted(checked)  # the walk met the tables (people, vehicles, permits…)
