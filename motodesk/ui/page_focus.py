"""Where the keyboard focus goes when a page of the main window, or a tab of a tabbed page, is chosen
(issue #26 item 1).

A page chosen (a click in the navigation list, Enter there, Ctrl+1…Ctrl+0, a menu or a shortcut that
shows it) and a tab chosen (Ctrl+Tab, Ctrl+PgDown, a click on the tab bar) take the focus to their
first useful widget (:func:`first_useful`): the search field, else the list or table with rows, else
the first empty field, else the first Tab stop. Never the tab bar, never a hidden or disabled widget,
never left on the navigation list or in the tab just left.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QTabBar,
    QTabWidget,
    QWidget,
)

from motodesk.ui.keyboard import is_empty_input, tab_stops

_FOLLOWED = "_page_focus_followed"  # a tab widget whose tab changes move the focus


def _usable(widget: QWidget, root: QWidget) -> bool:
    return (widget.isVisibleTo(root) and widget.isEnabled() and not widget.isWindow()
            and not isinstance(widget, (QTabBar, QTabWidget))  # a tab widget's focus is its bar's
            and not isinstance(widget.parentWidget(), (QComboBox, QAbstractSpinBox))
            and bool(widget.focusPolicy() & Qt.FocusPolicy.ClickFocus))


def is_search_field(widget: QWidget) -> bool:
    return isinstance(widget, QLineEdit) and not widget.isReadOnly() and (
        "search" in widget.objectName().lower() or "busca" in widget.placeholderText().lower())


def _has_rows(view: QAbstractItemView) -> bool:
    model = view.model()
    return model is not None and model.rowCount(view.rootIndex()) > 0


def first_useful(root: QWidget) -> QWidget | None:
    """The widget of ``root`` (a page or a tab's page) where work starts: its search field, else its
    list or table with rows, else its first empty field, else its first Tab stop, else its (empty) list,
    where the rows will come; None when it has nothing to focus (a tab bar is never one)."""
    widgets = [w for w in root.findChildren(QWidget) if _usable(w, root)]
    search = next((w for w in widgets if is_search_field(w)), None)
    if search is not None:
        return search
    view = next((w for w in widgets if isinstance(w, QAbstractItemView) and _has_rows(w)), None)
    if view is not None:
        return view
    window = root.window()
    stops = [w for w in tab_stops(window) if root.isAncestorOf(w) and _usable(w, root)
             and not (isinstance(w, QAbstractItemView) and not _has_rows(w))] if window.isVisible() else []
    if not stops:  # not shown yet: the order of its children
        stops = [w for w in widgets if w.focusPolicy() & Qt.FocusPolicy.TabFocus
                 and not (isinstance(w, QAbstractItemView) and not _has_rows(w))]
    empty_views = [w for w in widgets if isinstance(w, QAbstractItemView)]
    return next((w for w in stops if is_empty_input(w)), stops[0] if stops else next(iter(empty_views), None))


def focus_first_useful(root: QWidget | None,
                       reason: Qt.FocusReason = Qt.FocusReason.OtherFocusReason) -> QWidget | None:
    """The focus to :func:`first_useful` of ``root``; returns the widget focused (None: left as it was)."""
    if root is None:
        return None
    target = first_useful(root)
    if target is not None:
        target.setFocus(reason)
    return target


def focus_page(page: QWidget) -> QWidget | None:
    """A page just chosen from the keyboard (Ctrl+1…): the focus to its first useful widget."""
    return focus_first_useful(page, Qt.FocusReason.ShortcutFocusReason)


def _tab_changed(tabs: QTabWidget) -> None:
    """A tab chosen: when the focus was in the tab widget (on the tab left, or its bar) or is lost, it
    goes to the new tab's first useful widget; a tab changed by the program while the clerk types
    elsewhere leaves the focus there."""
    focused = QApplication.focusWidget()
    if focused is None or not focused.isVisible() or focused is tabs or tabs.isAncestorOf(focused):
        focus_first_useful(tabs.currentWidget(), Qt.FocusReason.TabFocusReason)


def follow_tabs(root: QWidget) -> None:
    """Every tab widget in ``root`` (and ``root`` itself) moves the focus into the tab chosen."""
    found = root.findChildren(QTabWidget)
    for tabs in [root, *found] if isinstance(root, QTabWidget) else found:
        if not tabs.property(_FOLLOWED):
            tabs.setProperty(_FOLLOWED, True)
            ref = weakref.ref(tabs)  # never the widget itself in its own signal's slot
            tabs.currentChanged.connect(lambda _index, ref=ref: _tab_changed(t) if (t := ref()) is not None else None)
