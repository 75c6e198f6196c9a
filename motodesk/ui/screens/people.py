"""The counter's main screen: one search box for people, results as they are typed, Enter opens.

The box finds people by name (accents and case ignored), CPF, plate, permit number or RENAVAM
(:mod:`motodesk.services.search`). Typing is debounced (:data:`DEBOUNCE_MS`) and every query runs
off the GUI thread; each answer carries the number of the request it answers, and an answer to an
older request than the newest is dropped, so a slow answer never overwrites a newer one. More rows
come as the list scrolls (``canFetchMore``/``fetchMore``), sorting by Nome or CPF happens in the
database.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules.common import Role
from motodesk.services import search
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.search import PersonHit, SearchCursor, SearchPage, SortKey
from motodesk.ui.changes import follow_changes
from motodesk.ui.errors import show_error
from motodesk.ui.mainwindow import MainWindow, register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column, RowTableModel, RowWindow, read_dropped_rows_off_gui_thread
from motodesk.ui.widgets import one_shot_timer, rows_table

if TYPE_CHECKING:  # imported when the first dossier opens, not with the page
    from motodesk.ui.dossier import DossierWindow

log = logging.getLogger(__name__)

DEBOUNCE_MS = 150
EDITOR_ROLES = (Role.CLERK, Role.SUPERVISOR)
AnyIndex = QModelIndex | QPersistentModelIndex

COLUMNS: list[Column[PersonHit]] = [
    Column("name", "Nome", lambda h: h.full_name),
    Column("cpf", "CPF", lambda h: h.cpf_formatted),
    Column("service", "Serviço", lambda h: h.service.label if h.service else "", sortable=False),
    Column("permit", "Permissão", lambda h: h.permit_number or "", sortable=False),
    Column("situation", "Situação", lambda h: h.situation, sortable=False),
    Column("plate", "Placa", lambda h: h.plate or "", sortable=False),
]


class PeopleSearchModel(RowTableModel[PersonHit]):
    """Results of the search box: pages fetched in the background, sorted in the database."""

    loading = Signal()
    loaded = Signal(int, bool)  # rows now shown, whether more can be fetched
    failed = Signal(object)  # the exception of the newest request

    def __init__(self, ctx: AppContext, parent: QObject | None = None, page_size: int = search.PAGE_SIZE) -> None:
        super().__init__(COLUMNS, (), parent)
        self.ctx = ctx
        self.page_size = page_size
        self.query = ""
        self.sort_key = SortKey.NAME
        self.descending = False
        self.generation = 0
        self.busy = False
        self._next: SearchCursor | None = None
        self._fetching_more = False
        self.last_page: SearchPage | None = None
        # Ids of every row listed, data of the last few thousand shown (a million rows scrolled: ids only).
        self._rows = RowWindow(key=lambda h: h.person_id, fetch_keys=lambda ids: search.people_by_ids(ctx, ids))  # type: ignore[assignment]
        read_dropped_rows_off_gui_thread(self, self._rows)  # type: ignore[arg-type]

    # -- requests ----------------------------------------------------------------------------
    def set_query(self, text: str) -> None:
        """Ask for the first page of ``text``; the answer replaces the rows when it comes."""
        self.query = text
        self.generation += 1
        self._fetching_more = False
        self._request(self.generation, None)

    def refresh(self) -> None:
        self.set_query(self.query)

    def _request(self, generation: int, after: SearchCursor | None) -> None:
        ctx, query, sort, descending, limit = self.ctx, self.query, self.sort_key, self.descending, self.page_size
        self.busy = True
        self.loading.emit()

        def work() -> SearchPage:
            return search.search_people(ctx, query, sort=sort, descending=descending, after=after, limit=limit)

        (ServiceOp(self, work, lock=False)
         .success(lambda page: self._answer(generation, after, page))
         .failure(lambda exc: self._failure(generation, exc))
         .run())

    def _alive(self) -> bool:
        return shiboken6.isValid(self)

    def _answer(self, generation: int, after: SearchCursor | None, page: SearchPage) -> None:
        if not self._alive() or generation != self.generation:
            return  # an older request: a newer one is on its way
        self.busy = False
        self.last_page = page
        self._next = page.next
        if after is None:
            self.beginResetModel()
            self._rows.reset(page.hits)  # type: ignore[attr-defined]
            self.endResetModel()
        else:
            self._fetching_more = False
            if page.hits:
                start = len(self._rows)
                self.beginInsertRows(QModelIndex(), start, start + len(page.hits) - 1)
                self._rows.extend(page.hits)
                self.endInsertRows()
        self.loaded.emit(len(self._rows), self._next is not None)

    def _failure(self, generation: int, exc: BaseException) -> bool:
        if not self._alive() or generation != self.generation:
            return True
        self.busy = False
        self._fetching_more = False
        if not isinstance(exc, (MotodeskError, DatabaseError)):
            log.error("search failed", exc_info=exc)
        self.failed.emit(exc)
        return True  # the page says why, in its own status line

    # -- Qt's lazy loading and sorting ------------------------------------------------------------
    def canFetchMore(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008, N802
        return not parent.isValid() and self._next is not None and not self._fetching_more

    def fetchMore(self, parent: AnyIndex = QModelIndex()) -> None:  # noqa: B008, N802
        if not self.canFetchMore(parent):
            return
        self._fetching_more = True
        self._request(self.generation, self._next)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not (0 <= column < len(self.columns)) or not self.columns[column].sortable:
            return
        key = SortKey(self.columns[column].key)
        descending = order == Qt.SortOrder.DescendingOrder
        if (key, descending) == (self.sort_key, self.descending):
            return
        self.sort_key, self.descending = key, descending
        self.refresh()

    def sort_column(self) -> int:
        return next(i for i, c in enumerate(self.columns) if c.key == self.sort_key.value)


class PeoplePage(QWidget):
    """Search box, results, "Nova pessoa"; opens one dossier window per person."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.dossiers: dict[Any, DossierWindow] = {}
        self._open_first_when_loaded = False

        title = QLabel("<h2>Pessoas</h2>")
        self.search_box = QLineEdit()
        self.search_box.setObjectName("search")
        self.search_box.setPlaceholderText("Buscar por nome, CPF, placa, nº da permissão ou RENAVAM  (Ctrl+F)")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setMaxLength(search.MAX_QUERY)
        self.search_box.setMinimumHeight(32)
        font = self.search_box.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.search_box.setFont(font)
        self.new_button = QPushButton("&Nova pessoa")
        self.new_button.setObjectName("new_person")
        self.new_button.setToolTip("Abrir um dossiê em branco (Ctrl+N)")
        self.new_button.clicked.connect(self.new_person)
        self.new_button.setEnabled(ctx.user.role in EDITOR_ROLES)
        self.status = QLabel()
        self.status.setObjectName("status")

        self.model = PeopleSearchModel(ctx, self)
        self.table = rows_table("results", self.model)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)  # Tab and Shift+Tab leave the table
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col, width in ((1, 130), (2, 110), (3, 120), (4, 190), (5, 90)):
            self.table.setColumnWidth(col, width)
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self.table.setSortingEnabled(True)
        header.sortIndicatorChanged.connect(self._sort_indicator_changed)
        self.table.doubleClicked.connect(self._open_index)
        self.table.installEventFilter(self)
        self.search_box.installEventFilter(self)

        self._debounce = one_shot_timer(self, DEBOUNCE_MS, self.run_query)
        self.search_box.textChanged.connect(lambda _text: self._debounce.start())
        self.search_box.returnPressed.connect(self._enter_in_search)
        self.model.loading.connect(lambda: self._set_status("Buscando…"))
        self.model.loaded.connect(self._loaded)
        self.model.failed.connect(self._failed)

        top = QHBoxLayout()
        top.addWidget(self.search_box, 1)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        self.setFocusProxy(self.search_box)
        follow_changes(self, self.model.refresh, kinds={"person", "permit", "vehicle"})
        self.run_query()  # the list opens with everyone, by name

    # -- searching ----------------------------------------------------------------------------
    def run_query(self) -> None:
        self._debounce.stop()
        self.model.set_query(self.search_box.text())

    def _loaded(self, count: int, more: bool) -> None:
        page = self.model.last_page
        if count == 0:
            text = "Nenhuma pessoa encontrada." if self.model.query.strip() else "Nenhuma pessoa cadastrada."
        else:
            plural = "pessoa" if count == 1 else "pessoas"
            if more:  # only the first pages are shown: say so, and how to find someone
                text = f"primeiras {count} pessoas — refine a busca (ou role a lista para ver mais)"
            else:
                text = f"{count} {plural}"
            if page is not None and page.query.kind is not search.QueryKind.EVERYONE:
                text += f" · busca por {page.query.kind.label}"
        self._set_status(text)
        if count and self.table.currentIndex().row() < 0:
            self.table.selectRow(0)
        if self._open_first_when_loaded:
            self._open_first_when_loaded = False
            if count:
                self.open_row(max(self.table.currentIndex().row(), 0))

    def _failed(self, exc: BaseException) -> None:
        self._open_first_when_loaded = False
        self._set_status(f"Não foi possível buscar: {exc}", error=True)

    def _sort_indicator_changed(self, column: int, order: Qt.SortOrder) -> None:
        if not self.model.columns[column].sortable:
            # Only Nome and CPF sort (in the database): put the indicator back where the order is.
            header = self.table.horizontalHeader()
            header.blockSignals(True)
            header.setSortIndicator(self.model.sort_column(),
                                    Qt.SortOrder.DescendingOrder if self.model.descending else Qt.SortOrder.AscendingOrder)
            header.blockSignals(False)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828;" if error else "color: #424242;")

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    # -- keys ---------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.table and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_row(self.table.currentIndex().row())
                return True
            if watched is self.search_box:
                if key in (Qt.Key.Key_Down, Qt.Key.Key_PageDown) and self.model.rowCount():
                    self.table.setFocus()
                    if self.table.currentIndex().row() < 0:
                        self.table.selectRow(0)
                    return True
                if key == Qt.Key.Key_Escape and self.search_box.text():
                    self.search_box.clear()
                    return True
        return super().eventFilter(watched, event)

    def _enter_in_search(self) -> None:
        if self._debounce.isActive() or self.model.busy:
            self._open_first_when_loaded = True  # Enter typed before the answer came: open it when it does
            if self._debounce.isActive():
                self.run_query()
            return
        if self.model.rowCount():
            self.open_row(max(self.table.currentIndex().row(), 0))

    # -- dossiers -----------------------------------------------------------------------------
    def _open_index(self, index: QModelIndex) -> None:
        self.open_row(index.row())

    def open_row(self, row: int) -> DossierWindow | None:
        if not (0 <= row < self.model.rowCount()):
            return None
        return self.open_dossier(self.model.row_at(row).person_id)

    def open_dossier(self, person_id: int | None) -> DossierWindow | None:
        from motodesk.ui.dossier import DossierWindow

        if person_id is not None and person_id in self.dossiers:
            window = self.dossiers[person_id]
            window.showNormal()
            window.raise_()
            window.activateWindow()
            return window
        try:
            window = DossierWindow(self.ctx, person_id, self.window(), on_new_person=self.new_person,
                                   on_find=self._find_from_dossier)
        except (MotodeskError, DatabaseError) as exc:
            show_error(self, exc)
            return None
        key: Any = person_id if person_id is not None else object()
        self.dossiers[key] = window
        window.saved.connect(lambda pid, w=window: self._dossier_saved(w, pid))
        window.closed.connect(lambda w: self._forget(w))
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def new_person(self) -> DossierWindow | None:
        """A new dossier, with the name or the CPF the clerk has just searched for already in it."""
        if self.ctx.user.role not in EDITOR_ROLES:
            return None
        window = self.open_dossier(None)
        if window is not None:
            name, cpf = searched_identity(self.search_box.text())
            if name or cpf:
                window.prefill(full_name=name, cpf=cpf)
        return window

    def _find_from_dossier(self) -> None:
        main = self.window()
        if isinstance(main, MainWindow):
            main.show_section("people")
        main.raise_()
        main.activateWindow()
        self.focus_search()

    def _dossier_saved(self, window: QWidget, person_id: int) -> None:
        for key, w in list(self.dossiers.items()):
            if w is window and key != person_id:
                del self.dossiers[key]
                self.dossiers[person_id] = window
        self.model.refresh()

    def _forget(self, window: QWidget) -> None:
        for key, w in list(self.dossiers.items()):
            if w is window:
                del self.dossiers[key]
        window.deleteLater()  # a closed dossier is done with

    def active_dossier(self) -> DossierWindow | None:
        from PySide6.QtWidgets import QApplication

        active = QApplication.activeWindow()
        for window in self.dossiers.values():
            if window == active:
                return window
        return next(reversed(self.dossiers.values()), None)

    def save_active_dossier(self) -> bool:
        window = self.active_dossier()
        return bool(window is not None and window.save())

    def confirm_close(self) -> bool:
        """Before the main window closes: every open dossier agrees to close (asks if unsaved)."""
        for window in list(self.dossiers.values()):
            if not window.close():
                return False
        return True


def searched_identity(text: str) -> tuple[str | None, str | None]:
    """(name, CPF) the search box names: a name as typed (spaces tidied) when it has a surname too (one
    word is a fragment being looked for, not a name), or a valid CPF's digits."""
    from motodesk.rules.validators import validate_cpf

    parsed = search.classify(text)
    if parsed.kind is search.QueryKind.NAME and len(parsed.words) >= 2:
        return " ".join(text.split()), None
    if parsed.kind is search.QueryKind.DIGITS and len(parsed.text) == 11 and validate_cpf(parsed.text).ok:
        return None, parsed.text
    return None, None


@register_page("people")
def people_page(ctx: AppContext, main_window: MainWindow) -> QWidget:
    page = PeoplePage(ctx)
    actions = main_window.action_collection
    actions["new_person"].triggered.connect(page.new_person)
    actions["new_person"].setEnabled(ctx.user.role in EDITOR_ROLES)

    def find() -> None:
        main_window.show_section("people")
        page.focus_search()

    actions["find"].triggered.connect(find)
    actions["save"].triggered.connect(page.save_active_dossier)
    return page
