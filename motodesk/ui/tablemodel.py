"""Table models with declared columns; the lazy one fetches pages as the view scrolls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from motodesk.ui.formatting import format_value

Row = TypeVar("Row")
AnyIndex = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column(Generic[Row]):
    """One declared column: its key (also the database sort key), pt_BR header, and how to read it."""

    key: str
    header: str
    value: Callable[[Row], Any]
    align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft
    sortable: bool = True
    tooltip: Callable[[Row], str | None] | None = None


class RowTableModel(QAbstractTableModel, Generic[Row]):
    """A small, fully loaded table (sorted and filtered in Python when needed)."""

    def __init__(self, columns: Sequence[Column[Row]], rows: Sequence[Row] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = list(columns)
        self._rows: list[Row] = list(rows)

    # -- data access -------------------------------------------------------------------------
    def rows(self) -> list[Row]:
        return list(self._rows)

    def row_at(self, row: int) -> Row:
        return self._rows[row]

    def set_rows(self, rows: Sequence[Row]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    # -- Qt API ------------------------------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        column = self.columns[index.column()]
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            try:
                return format_value(column.value(row))
            except Exception:  # noqa: BLE001 - a broken row shows a dash, never crashes the view
                return "—"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(column.align | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(row)
        if role == Qt.ItemDataRole.UserRole:
            return row
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.columns):
            return self.columns[section].header
        if orientation == Qt.Orientation.Vertical:
            return section + 1
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not (0 <= column < len(self.columns)) or not self.columns[column].sortable:
            return
        getter = self.columns[column].value

        def key(row: Row) -> tuple[int, Any]:
            value = getter(row)
            if value is None:
                return (1, "")
            if isinstance(value, (date, datetime, int, float)):
                return (0, value)
            return (0, str(value).casefold())

        self.layoutAboutToBeChanged.emit()
        self._rows.sort(key=key, reverse=order == Qt.SortOrder.DescendingOrder)
        self.layoutChanged.emit()


PageFetcher = Callable[[int, int, str, bool], Sequence[Any]]
"""fetch(offset, limit, sort_key, descending) -> rows: the database does the sorting."""


class LazyTableModel(RowTableModel[Row]):
    """A big table: the first page on reset, more as the view scrolls (canFetchMore/fetchMore)."""

    def __init__(self, columns: Sequence[Column[Row]], fetch: PageFetcher, page_size: int = 200,
                 parent: Any = None) -> None:
        super().__init__(columns, (), parent)
        self._fetch = fetch
        self.page_size = page_size
        self._exhausted = False
        self._fetching = False
        self._sort_key = columns[0].key
        self._descending = False

    def reload(self, fetch: PageFetcher | None = None) -> None:
        if fetch is not None:
            self._fetch = fetch
        self._fetching = True  # listeners of modelReset must not start fetching inside the reset
        try:
            self.beginResetModel()
            first = list(self._fetch(0, self.page_size, self._sort_key, self._descending))
            self._rows = first
            self._exhausted = len(first) < self.page_size
            self.endResetModel()
        finally:
            self._fetching = False

    def canFetchMore(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008, N802
        return not parent.isValid() and not self._exhausted and not self._fetching

    def fetchMore(self, parent: AnyIndex = QModelIndex()) -> None:  # noqa: B008, N802
        # Views (and the model tester) may ask again from inside our own insert signals: ignore that.
        if parent.isValid() or self._exhausted or self._fetching:
            return
        self._fetching = True
        try:
            more = list(self._fetch(len(self._rows), self.page_size, self._sort_key, self._descending))
            if len(more) < self.page_size:
                self._exhausted = True
            if not more:
                return
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(more) - 1)
            self._rows.extend(more)
            self.endInsertRows()
        finally:
            self._fetching = False

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not (0 <= column < len(self.columns)) or not self.columns[column].sortable:
            return
        self._sort_key = self.columns[column].key
        self._descending = order == Qt.SortOrder.DescendingOrder
        self.reload()
