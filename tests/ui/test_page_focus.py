"""A page chosen with Ctrl+1…Ctrl+9 (issue #26 item 1): the focus goes to its first empty field or its
first useful stop — never its tab bar, where the keys typed next (type-to-find in a queue) are lost.
Found by ``bench/bench_keyboard_x.py``: on Vistorias the inspector's "PTC" went to the tab bar and
Iniciar vistoria started the queue's first row instead of the motorcycle typed."""

from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTableView, QTabWidget, QVBoxLayout, QWidget

from motodesk.ui import keyboard
from motodesk.ui.app import create_application


def test_a_page_with_tabs_gets_the_focus_in_its_table_not_its_tab_bar(qtbot) -> None:  # noqa: ANN001
    create_application()
    window = QWidget()
    qtbot.addWidget(window)
    page = QWidget(window)
    QVBoxLayout(window).addWidget(page)
    tabs = QTabWidget(page)
    QVBoxLayout(page).addWidget(tabs)
    queue = QTableView()
    model = QStandardItemModel(0, 1, queue)
    for plate in ("AAA1B23", "PTC4B83"):  # rows: a view with rows is a Tab stop
        model.appendRow(QStandardItem(plate))
    queue.setModel(model)
    tabs.addTab(queue, "&Fila de hoje")
    tabs.addTab(QWidget(), "&Histórico")
    window.resize(800, 500)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    assert keyboard.tab_stops(window)[0] in (tabs, tabs.tabBar())  # the tabs are the page's first stop…
    target = keyboard.focus_page(page)
    assert target is queue and QApplication.focusWidget() is queue  # …but the focus goes to the queue
