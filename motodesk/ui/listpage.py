"""The list pages, declared instead of hand-built.

A screen declares a :class:`ListSpec` per list — its columns (the ones a clerk reads first on the
left), its filters, its actions (label with access key, shortcut, the roles that may use it, whether
it needs a selected row, the handler) and an optional detail panel — and :class:`ListPanel` builds
the rest, the same way on every page:

* the filter row (each filter's label has an access key and its buddy; text filters are debounced);
* the table: whole rows, Tab and Shift+Tab leave it, Enter (or a double click) runs the default
  action, columns scroll sideways when they do not fit;
* the action buttons: hidden for the roles that may not use them, disabled until a row they need is
  selected (or while the row does not allow them);
* loading off the GUI thread through :func:`motodesk.ui.ops.load_into` (only the newest answer is
  shown; the selection is kept across reloads), paging for big registers, F5 reloads;
* :func:`motodesk.ui.changes.follow_changes`: a change of one of ``kinds`` reloads the list.

:class:`ListPage` is the page around them: the heading, an optional note, the panels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QStandardPaths,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.ui.changes import follow_changes
from motodesk.ui.flow import FlowLayout
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.widgets import fit_columns, heading, one_shot_timer, table_view

Row = TypeVar("Row")
DEBOUNCE_MS = 250


# -- declarations -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Filter:
    """One filter of a list: a text box, a closed list or a check box."""

    key: str
    label: str = ""  # with its access key ("&Situação:"); a check box shows it as its own text
    kind: str = "text"  # "text" | "choice" | "check"
    choices: Sequence[tuple[str, Any]] = ()  # (label, value) for "choice"
    placeholder: str = ""
    default: Any = None
    stretch: bool = False
    roles: frozenset[Role] | None = None  # shown only to these roles (None: everyone)
    reloads: bool = True  # changing it reloads the list (an export's scope does not)


@dataclass(frozen=True)
class Action:
    """One button under a list."""

    key: str  # the button's object name
    label: str  # with its access key ("&Editar…")
    handler: Callable[[Any], object]  # gets the selected row (None without one; a list when multi)
    roles: frozenset[Role] | Iterable[Role] | None = None  # who sees it (None: everyone)
    needs_row: bool = True
    enabled: Callable[[Any], bool] | None = None  # further condition on the selected row (or rows)
    shortcut: str | None = None
    default: bool = False  # Enter and double click on the table
    tooltip: str = ""
    multi: bool = False  # works on every selected row


@dataclass
class ListSpec(Generic[Row]):
    """What a list is; :class:`ListPanel` builds it."""

    name: str  # the table's object name
    columns: Sequence[Column[Row]]
    load: Callable[[dict[str, Any]], Sequence[Row]] | None = None  # every row for the filters' values
    fetch: Callable[[dict[str, Any], int, int, str, bool], Sequence[Row]] | None = None  # paged: offset, limit,
    #                                                                       sort key, descending (database sorts)
    filters: Sequence[Filter] = ()
    actions: Sequence[Action] = ()
    title: str = ""  # a line above the table (rich text)
    identity: Callable[[Row], Any] = field(default=lambda row: getattr(row, "id", None))
    kinds: Iterable[str] | None = None  # changes that reload the list (None: any)
    multi: bool = False
    sortable: bool = False
    sort: tuple[str, bool] | None = None  # initial (column key, descending)
    page_size: int = 200
    count: Callable[[int, bool], str] | None = None  # (rows shown, more to fetch) -> text
    model: Callable[[Sequence[Column[Row]]], RowTableModel[Row]] | None = None  # a model with colours
    select_first: bool = True
    detail: QWidget | None = None  # shown under (or beside) the table
    detail_side: bool = False
    on_current: Callable[[Row | None], None] | None = None  # the selection changed (after the buttons)
    on_loaded: Callable[[list[Row]], None] | None = None
    max_column_width: int = 300
    extra: Callable[[], dict[str, Any]] | None = None  # more values for load/fetch, read on the GUI thread
    decorate: Callable[[Row, str, int], Any] | None = None  # (row, column key, role) -> colour, tooltip… or None


# -- the pieces -----------------------------------------------------------------------------------------
DECORATED_ROLES = (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ToolTipRole,
                   Qt.ItemDataRole.FontRole, Qt.ItemDataRole.DisplayRole)
# a decoration that may be absent (the column's own value then): a cell coloured by its state says the
# state in words too (colour is never the only signal)
_OPTIONAL_ROLES = (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.DisplayRole)


def _decorated(model: RowTableModel[Any], decorate: Callable[[Any, str, int], Any] | None, index: Any,
               role: int) -> tuple[bool, Any]:
    if decorate is None or role not in DECORATED_ROLES or not index.isValid() \
            or not 0 <= index.row() < model.rowCount():
        return False, None
    value = decorate(model.row_at(index.row()), model.columns[index.column()].key, role)
    return value is not None or role not in _OPTIONAL_ROLES, value


class _Rows(RowTableModel[Row]):
    """A fully loaded list, coloured as the screen declares."""

    def __init__(self, columns: Sequence[Column[Row]], decorate: Callable[[Row, str, int], Any] | None) -> None:
        super().__init__(columns)
        self.decorate = decorate

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        done, value = _decorated(self, self.decorate, index, role)
        return value if done else super().data(index, role)


class _PagedModel(LazyTableModel[Row]):
    """Paging for a big register; sorting asks the panel to reload off the GUI thread."""

    def __init__(self, panel: ListPanel[Row], columns: Sequence[Column[Row]], page_size: int) -> None:
        super().__init__(columns, lambda _o, _l, _k, _d: [], page_size=page_size)
        self.panel = panel
        self._generation = 0  # a reload makes every page still on its way stale

    def reload(self, fetch: Any = None) -> None:
        self._generation += 1
        super().reload(fetch)

    def fetchMore(self, parent: Any = QModelIndex()) -> None:  # noqa: B008, N802
        """The next page is read off the GUI thread: scrolling never waits on the database."""
        if parent.isValid() or self._exhausted or self._fetching:
            return
        self._fetching = True
        generation, offset, fetch = self._generation, len(self._rows), self._fetch
        size, key, descending = self.page_size, self._sort_key, self._descending
        (ServiceOp(self.panel, lambda: list(fetch(offset, size, key, descending)), lock=False)
         .success(lambda more: self._more(generation, offset, more))
         .failure(lambda exc: self._more_failed(generation, exc))
         .run())

    def _more(self, generation: int, offset: int, more: list[Row]) -> None:
        if generation != self._generation or offset != len(self._rows):
            return  # the list was read again meanwhile
        self._fetching = False
        if len(more) < self.page_size:
            self._exhausted = True
        if more:
            self.beginInsertRows(QModelIndex(), offset, offset + len(more) - 1)
            self._rows.extend(more)
            self.endInsertRows()
        self.panel.show_count()

    def _more_failed(self, generation: int, exc: BaseException) -> bool:
        if generation != self._generation:
            return True
        self._fetching = False
        self.panel.count.setText(f"Não foi possível ler mais linhas: {exc}")
        return isinstance(exc, (MotodeskError, DatabaseError))

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        done, value = _decorated(self, self.panel.spec.decorate, index, role)
        return value if done else super().data(index, role)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not (0 <= column < len(self.columns)) or not self.columns[column].sortable:
            return
        key, descending = self.columns[column].key, order == Qt.SortOrder.DescendingOrder
        if (key, descending) != (self.panel.sort_key, self.panel.descending):
            self.panel.sort_key, self.panel.descending = key, descending
            self.panel.reload()


class _Pages:
    """The fetcher handed to the model: the first page already read off the GUI thread, then the
    next pages as the table scrolls."""

    def __init__(self, panel: ListPanel[Any], values: dict[str, Any], first: list[Any]) -> None:
        self.panel, self.values = panel, values
        self.first: list[Any] | None = first
        self.sort = (panel.sort_key, panel.descending)

    def __call__(self, offset: int, limit: int, _key: str, _descending: bool) -> Sequence[Any]:
        if offset == 0 and self.first is not None:
            rows, self.first = self.first, None
            return rows
        fetch = self.panel.spec.fetch
        assert fetch is not None
        return fetch(self.values, offset, limit, *self.sort)


class _Keys(QObject):
    """Enter on the table runs the default action; a table entered with the keyboard and nothing
    selected selects its first row (the clerk sees where the arrows will move from)."""

    def __init__(self, panel: ListPanel[Any]) -> None:
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            return self.panel.run_default()
        if event.type() == QEvent.Type.FocusIn and self.panel.model.rowCount() \
                and not self.panel.table.selectionModel().hasSelection():
            self.panel.select_index(0)
        return False


def allowed(roles: Iterable[Role] | None, role: Role) -> bool:
    return roles is None or role in set(roles)


def list_table(name: str, *, multi: bool = False, sortable: bool = False) -> QTableView:
    """A read-only table a clerk can leave with Tab and read sideways."""
    view = table_view(name, multi=multi, sortable=sortable)
    view.setTabKeyNavigation(False)
    view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    view.setMinimumHeight(90)
    return view


def with_access_key(text: str, used: set[str]) -> str:
    """``text`` with an access key on its first letter not yet in ``used`` (which is updated)."""
    if "&" in text.replace("&&", ""):
        return text
    for index, ch in enumerate(text):
        if ch.isalnum() and ch.lower() not in used:
            used.add(ch.lower())
            return f"{text[:index]}&{text[index:]}"
    return text


def enter_hint(actions: Sequence[Action], role: Role) -> str:
    """The table's tip: what Enter on a row does (the default action this role sees), Home and End."""
    default = next((a for a in actions if a.default and allowed(a.roles, role)), None)
    keys = "Home/End: primeira/última linha"
    if default is None:
        return f"Setas: escolher a linha · {keys}"
    name = default.label.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…. ")
    return f"Enter: {name} · {keys}"


def labelled(label: str, widget: QWidget) -> QLabel:
    """A label with its access key pointing at ``widget``."""
    text = QLabel(label)
    text.setBuddy(widget)
    return text


class ListPanel(QWidget, Generic[Row]):
    """Filters, table, buttons and detail of one declared list."""

    loaded = Signal(int)  # rows shown after each load

    def __init__(self, ctx: AppContext, spec: ListSpec[Row], parent: QWidget | None = None, *,
                 autoload: bool = True) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.spec = spec
        self.role = ctx.user.role
        self.setObjectName(f"panel_{spec.name}")
        self.sort_key = spec.sort[0] if spec.sort else spec.columns[0].key
        self.descending = bool(spec.sort and spec.sort[1])
        self._select: Any = None  # the row to select when the running load lands
        self._loads = 0
        self.load_count = 0  # loads delivered (tests wait on it)

        self._build_filters(spec)
        self._build_table(spec)
        self._build_actions(spec)
        self._build_layout(spec)
        follow_changes(self, self.reload, kinds=spec.kinds)
        for action in spec.actions:  # until the first load says more (the screen may still be building)
            self.buttons[action.key].setEnabled(not action.needs_row and action.enabled is None)
        if autoload:
            self.reload()

    def _build_filters(self, spec: ListSpec[Row]) -> None:
        """The filters' row, each filter shown to its roles; a typed filter reloads after a pause."""
        self.filters: dict[str, QWidget] = {}
        self._debounce = one_shot_timer(self, DEBOUNCE_MS, self.reload)
        self.filter_row = QHBoxLayout()
        self.filter_row.setContentsMargins(0, 0, 0, 0)
        for flt in spec.filters:
            widget = self._filter_widget(flt)
            visible = allowed(flt.roles, self.role)
            if flt.label and flt.kind != "check":
                label = labelled(flt.label, widget)
                self.filter_row.addWidget(label)
                if not visible:
                    label.hide()
            # only ever hidden here: setVisible(True) on a widget that has no parent yet opens it as a
            # window of its own for a moment, which takes the activation (and the focus) away
            self.filter_row.addWidget(widget, 1 if flt.stretch else 0)
            if not visible:
                widget.hide()
            self.filters[flt.key] = widget
        if not any(f.stretch for f in spec.filters):
            self.filter_row.addStretch(1)

    def _build_table(self, spec: ListSpec[Row]) -> None:
        """The table on the spec's model (paged when the spec fetches pages), sorted as the spec says."""
        self.model: RowTableModel[Row]
        if spec.fetch is not None:
            self.model = _PagedModel(self, spec.columns, spec.page_size)
        elif spec.model is not None:
            self.model = spec.model(spec.columns)
        else:
            self.model = _Rows(spec.columns, spec.decorate)
        self.model.setParent(self)
        self.table = list_table(spec.name, multi=spec.multi, sortable=spec.sortable or spec.fetch is not None)
        self.table.setModel(self.model)
        if spec.sort and (spec.sortable or spec.fetch is not None):
            column = next((i for i, c in enumerate(spec.columns) if c.key == spec.sort[0]), 0)
            self.table.horizontalHeader().setSortIndicator(
                column, Qt.SortOrder.DescendingOrder if spec.sort[1] else Qt.SortOrder.AscendingOrder)
        self.table.installEventFilter(_Keys(self))
        self.table.doubleClicked.connect(lambda _index: self.run_default())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._current_changed())

    def _build_actions(self, spec: ListSpec[Row]) -> None:
        """The action buttons (wrapping to a second line), each shown to its roles, with their
        shortcuts; the row count and the status line."""
        self.buttons: dict[str, QPushButton] = {}
        self.actions_row = QHBoxLayout()
        self.actions_row.setContentsMargins(0, 0, 0, 0)
        # the buttons wrap to a second line rather than make the page wider than the screen
        self.actions_box = QWidget()
        self.actions_flow = FlowLayout(self.actions_box)
        for action in spec.actions:
            button = QPushButton(action.label)
            button.setObjectName(action.key)
            if action.shortcut:
                shortcut = QShortcut(QKeySequence(action.shortcut), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(lambda b=button: b.click() if b.isVisible() and b.isEnabled() else None)
                tip = f"{action.tooltip} ({action.shortcut})" if action.tooltip else action.shortcut
                button.setToolTip(tip)
            elif action.tooltip:
                button.setToolTip(action.tooltip)
            button.clicked.connect(lambda _checked=False, a=action: self.run_action(a))
            self.buttons[action.key] = button
            self.actions_flow.addWidget(button)
            if not allowed(action.roles, self.role):
                button.hide()  # never setVisible(True) on a button without a parent yet: a window of its own
        self.actions_row.addWidget(self.actions_box, 1)
        self.table.setToolTip(enter_hint(spec.actions, self.role))  # what Enter on a row will do, said first
        self.count = QLabel()
        self.count.setObjectName(f"{spec.name}_count")
        self.actions_row.addWidget(self.count, 0, Qt.AlignmentFlag.AlignTop)
        self.status = QLabel()
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.hide()
        refresh = QShortcut(QKeySequence(Qt.Key.Key_F5), self)
        refresh.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        refresh.activated.connect(self.reload)

    def _build_layout(self, spec: ListSpec[Row]) -> None:
        """Filters, title, table, actions and status above the detail (beside it if the spec says)."""
        self.title = QLabel(spec.title)
        self.title.setObjectName(f"{spec.name}_title")
        self.title.setWordWrap(True)
        if not spec.title:
            self.title.hide()  # not setVisible(True): without a parent yet it would open as a window
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        if spec.filters:
            top_layout.addLayout(self.filter_row)
        top_layout.addWidget(self.title)
        top_layout.addWidget(self.table, 1)
        top_layout.addLayout(self.actions_row)
        top_layout.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        if spec.detail is not None:
            self.splitter = QSplitter(Qt.Orientation.Horizontal if spec.detail_side else Qt.Orientation.Vertical)
            self.splitter.setChildrenCollapsible(False)
            self.splitter.addWidget(top)
            self.splitter.addWidget(spec.detail)
            self.splitter.setStretchFactor(0, 3)
            self.splitter.setStretchFactor(1, 2)
            layout.addWidget(self.splitter, 1)
        else:
            layout.addWidget(top, 1)

    # -- filters ---------------------------------------------------------------------------------
    def _filter_widget(self, flt: Filter) -> QWidget:
        widget: QWidget
        if flt.kind == "choice":
            combo = QComboBox()
            for text, value in flt.choices:
                combo.addItem(text, value)
            if flt.default is not None:
                combo.setCurrentIndex(max(0, combo.findData(flt.default)))
            if flt.reloads:
                combo.currentIndexChanged.connect(lambda _i: self.reload())
            widget = combo
        elif flt.kind == "check":
            box = QCheckBox(flt.label)
            box.setChecked(bool(flt.default))
            if flt.reloads:
                box.toggled.connect(lambda _c: self.reload())
            widget = box
        else:
            edit = QLineEdit()
            edit.setPlaceholderText(flt.placeholder)
            edit.setClearButtonEnabled(True)
            if flt.default:
                edit.setText(str(flt.default))
            if flt.reloads:
                edit.textChanged.connect(lambda _t: self._debounce.start())
            widget = edit
        widget.setObjectName(flt.key)
        return widget

    def combo(self, key: str) -> QComboBox:
        widget = self.filters[key]
        assert isinstance(widget, QComboBox)
        return widget

    def line(self, key: str) -> QLineEdit:
        widget = self.filters[key]
        assert isinstance(widget, QLineEdit)
        return widget

    def check(self, key: str) -> QCheckBox:
        widget = self.filters[key]
        assert isinstance(widget, QCheckBox)
        return widget

    def values(self) -> dict[str, Any]:
        """The filters' current values, by key."""
        out: dict[str, Any] = {}
        for key, widget in self.filters.items():
            if isinstance(widget, QComboBox):
                out[key] = widget.currentData()
            elif isinstance(widget, QCheckBox):
                out[key] = widget.isChecked()
            elif isinstance(widget, QLineEdit):
                out[key] = widget.text()
        if self.spec.extra is not None:
            out.update(self.spec.extra())
        return out

    # -- loading ---------------------------------------------------------------------------------
    def reload(self, select: Any = None) -> None:
        """Read the rows again off the GUI thread; keep (or move to) the selected row."""
        self._debounce.stop()
        if select is not None:
            self._select = select
        elif self._select is None:
            current = self.selected()
            self._select = self.spec.identity(current) if current is not None else None
        values = self.values()
        self._loads += 1
        spec = self.spec
        if spec.fetch is not None:
            fetch, key, descending, size = spec.fetch, self.sort_key, self.descending, spec.page_size
            load_into(self, lambda: list(fetch(values, 0, size, key, descending)),
                      lambda rows: self._loaded(values, rows), key=f"load_{spec.name}")
        elif spec.load is not None:
            load = spec.load
            load_into(self, lambda: list(load(values)), lambda rows: self._loaded(values, rows),
                      key=f"load_{spec.name}")

    def _loaded(self, values: dict[str, Any], rows: list[Row]) -> None:
        select, self._select = self._select, None
        if isinstance(self.model, _PagedModel):
            self.model.reload(_Pages(self, values, rows))
        else:
            self.model.set_rows(rows)
            if self.spec.sortable:
                header = self.table.horizontalHeader()
                if header.sortIndicatorSection() >= 0 and self.table.isSortingEnabled():
                    self.model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        fit_columns(self.table, self.spec.max_column_width)
        shown = self.model.rows()
        index = next((i for i, r in enumerate(shown) if select is not None and self.spec.identity(r) == select), None)
        if index is None and self.spec.select_first and shown:
            index = 0
        if index is not None:
            self.select_index(index)
        else:
            self._current_changed()
        self.show_count()
        self.load_count += 1
        if self.spec.on_loaded is not None:
            self.spec.on_loaded(shown)
        self.loaded.emit(len(shown))

    def show_count(self) -> None:
        shown, more = self.model.rowCount(), self.model.canFetchMore(QModelIndex())
        self.count.setText(self.spec.count(shown, more) if self.spec.count else
                           f"{shown}{'+' if more else ''} registro(s)")

    # -- selection -------------------------------------------------------------------------------
    def select_index(self, index: int) -> None:
        model_index = self.model.index(index, 0)
        self.table.selectionModel().setCurrentIndex(
            model_index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(model_index)

    def select_where(self, test: Callable[[Row], bool]) -> bool:
        for index, row in enumerate(self.model.rows()):
            if test(row):
                self.select_index(index)
                return True
        return False

    def selected_rows(self) -> list[Row]:
        indexes = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [self.model.row_at(i.row()) for i in indexes if 0 <= i.row() < self.model.rowCount()]

    def selected(self) -> Row | None:
        rows = self.selected_rows()
        return rows[0] if len(rows) == 1 else None

    def _current_changed(self) -> None:
        self.update_buttons()
        if self.spec.on_current is not None:
            self.spec.on_current(self.selected())

    # -- actions ---------------------------------------------------------------------------------
    def _argument(self, action: Action) -> Any:
        return self.selected_rows() if action.multi else self.selected()

    def action_enabled(self, action: Action) -> bool:
        argument = self._argument(action)
        if action.needs_row and not argument:
            return False
        return action.enabled is None or bool(action.enabled(argument))

    def update_buttons(self) -> None:
        for action in self.spec.actions:
            self.buttons[action.key].setEnabled(self.action_enabled(action))

    def run_action(self, action: Action) -> None:
        if not allowed(action.roles, self.role) or not self.action_enabled(action):
            return
        action.handler(self._argument(action))

    def run_default(self) -> bool:
        for action in self.spec.actions:
            if action.default and allowed(action.roles, self.role) and self.action_enabled(action):
                self.run_action(action)
                return True
        return False

    def set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #b00020;" if error else "")
        self.status.setVisible(bool(text))

    def run(self, fn: Callable[[], Any], done: Callable[[Any], object] | str | None = None, *,
            change: str | None = None, busy: str = "Gravando…", select: Callable[[Any], Any] | None = None,
            fields: Mapping[str, QWidget] | None = None, failed: Callable[[BaseException], None] | None = None,
            ) -> ServiceOp:
        """A write from the list: off the GUI thread, the panel locked, errors shown, the list reloaded
        (the change bus reloads every page showing it); ``done`` is a status message or a callback."""

        def succeeded(result: Any) -> None:
            if callable(done):
                done(result)
            elif done:
                self.set_status(done)
            self.reload(select=select(result) if select is not None else None)

        def refused(exc: BaseException) -> bool:
            self.reload()  # what is there now
            if failed is not None:
                failed(exc)
            return False  # still shown

        return ServiceOp(self, fn, busy=busy, change=change, fields=fields, on_conflict=self.reload) \
            .success(succeeded).failure(refused).run()


class ListPage(QWidget):
    """A page of the main window: heading, optional note, then the panels (or tabs) of its lists."""

    def __init__(self, ctx: AppContext, title: str, note: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.page_layout = QVBoxLayout(self)
        self.page_layout.addWidget(heading(title))
        if note:
            text = QLabel(note)
            text.setObjectName("page_note")
            text.setWordWrap(True)
            self.page_layout.addWidget(text)

    def set_body(self, body: QWidget) -> None:
        self.page_layout.addWidget(body, 1)

    def set_master_detail(self, master: QWidget, detail: ListPanel[Any]) -> None:
        """Master above detail (its title shown), then the page's status line ``self.status``."""
        self.status = wrapped_label("", "status")
        self.set_body(stacked(master, detail))
        self.page_layout.addWidget(self.status)
        detail.title.show()


def stacked(*panels: QWidget, stretches: Sequence[int] = ()) -> QSplitter:
    """Master above detail lists, the clerk can move the border."""
    splitter = QSplitter(Qt.Orientation.Vertical)
    splitter.setChildrenCollapsible(False)
    for index, panel in enumerate(panels):
        splitter.addWidget(panel)
        splitter.setStretchFactor(index, stretches[index] if index < len(stretches) else 1)
    return splitter


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Open at ``width`` x ``height``, or less when the screen (1366x768, 1280x720) has no room for it."""
    from PySide6.QtGui import QGuiApplication

    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width, height = min(width, room.width() - 20), min(height, room.height() - 50)
    window.resize(width, height)


# -- file dialogs -----------------------------------------------------------------------------------
def documents_folder() -> Path:
    """The user's documents folder (where every file dialog starts)."""
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(location) if location else Path.home()


FILE_DIALOG_OPTIONS = QFileDialog.Option.DontUseNativeDialog  # Qt's own dialog: qtbase_pt_BR applies


def save_file_name(parent: QWidget | None, title: str, suggested: str, filters: str,
                   suffix: str | None = None) -> Path | None:
    """Ask where to save (Qt's dialog, in Portuguese, starting in Documentos); None when cancelled."""
    start = Path(suggested) if Path(suggested).is_absolute() else documents_folder() / suggested
    name, _ = QFileDialog.getSaveFileName(parent, title, str(start), filters, options=FILE_DIALOG_OPTIONS)
    if not name:
        return None
    path = Path(name)
    if suffix and path.suffix.lower() != suffix:
        path = path.with_suffix(suffix)
    return path


def open_file_name(parent: QWidget | None, title: str, filters: str) -> Path | None:
    name, _ = QFileDialog.getOpenFileName(parent, title, str(documents_folder()), filters,
                                          options=FILE_DIALOG_OPTIONS)
    return Path(name) if name else None
