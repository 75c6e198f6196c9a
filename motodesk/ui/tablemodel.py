"""Table models with declared columns; the lazy ones fetch pages as the view scrolls.

A long list keeps only a bounded window of its rows (:class:`RowWindow`, like Anki's browser table:
the list is its ids, and the data of the rows last shown is cached in chunks, least recently used
out): scrolled end to end over a million people, the people list holds a million ids and a few
thousand rows, not a million rows.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, TypeVar, overload

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


#: Rows kept in a window by default: chunks of :data:`CHUNK_ROWS`, some screens' worth of scrolling.
WINDOW_ROWS = 4000
CHUNK_ROWS = 200


class RowWindow(Generic[Row]):
    """The rows of a long list as a sequence that keeps at most ``capacity`` of them in memory.

    What is always kept is the list's keys (``key(row)``, an integer id: 8 bytes a row in an
    array), or, without ``key``, only its length. The rows themselves live in chunks of
    ``chunk`` consecutive positions, the least recently read chunk dropped first; a chunk read
    again after it was dropped is fetched once more: ``fetch_keys(keys)`` returns the rows of those
    keys (in any order, missing ones left out), or ``fetch_range(start, stop)`` those positions.
    A row that cannot be fetched (removed meanwhile, database gone) reads as ``None``.

    Supports what the table models do with a list: ``len``, ``window[i]``, ``extend``, iteration.

    A window of a model on screen reads no dropped chunk itself: with ``on_missing`` set (see
    :func:`read_dropped_rows_off_gui_thread`) a read of a dropped row answers ``None`` at once,
    :meth:`pending` says it is on its way, and ``on_missing(number, start, stop, read)`` is asked
    once to run ``read()`` elsewhere and hand its rows to :meth:`fill`.
    """

    def __init__(self, *, key: Callable[[Row], int] | None = None,
                 fetch_keys: Callable[[Sequence[int]], Iterable[Row]] | None = None,
                 fetch_range: Callable[[int, int], Sequence[Row]] | None = None,
                 capacity: int = WINDOW_ROWS, chunk: int = CHUNK_ROWS) -> None:
        if (key is None) != (fetch_keys is None) or (fetch_keys is None) == (fetch_range is None):
            raise ValueError("give key and fetch_keys, or fetch_range")
        self._key = key
        self._fetch_keys = fetch_keys
        self._fetch_range = fetch_range
        self.chunk = max(1, chunk)
        self.capacity_chunks = max(2, -(-capacity // self.chunk))
        self._keys = array("q")
        self._length = 0
        self._chunks: OrderedDict[int, list[Row | None]] = OrderedDict()
        self.fetches = 0  # chunks fetched again (scrolled back to): for tests and benchmarks
        self.on_missing: Callable[[int, int, int, Callable[[], list[Row | None]]], None] | None = None
        self._pending: set[int] = set()
        self.epoch = 0  # a reset makes every chunk still on its way stale

    # -- filling ------------------------------------------------------------------------------
    def reset(self, rows: Iterable[Row] = ()) -> None:
        self.epoch += 1
        self._pending.clear()
        self._keys = array("q")
        self._length = 0
        self._chunks.clear()
        self.extend(rows)

    def extend(self, rows: Iterable[Row]) -> None:
        for row in rows:
            position = self._length
            if self._key is not None:
                self._keys.append(self._key(row))
            self._length += 1
            number = position // self.chunk
            held = self._chunks.get(number)
            if held is None:
                if position % self.chunk:
                    continue  # the start of this chunk was dropped: the rest comes with it when read
                held = self._chunks[number] = []
            held.append(row)
            self._chunks.move_to_end(number)
            self._trim()

    # -- reading ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, position: int) -> Row | None: ...
    @overload
    def __getitem__(self, position: slice) -> list[Row | None]: ...
    def __getitem__(self, position: int | slice) -> Row | None | list[Row | None]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(self._length))]
        if position < 0:
            position += self._length
        if not 0 <= position < self._length:
            raise IndexError(position)
        number, offset = divmod(position, self.chunk)
        held = self._chunks.get(number)
        if held is None or offset >= len(held):
            if self.on_missing is not None:
                self._request(number)
                return None
            held = self._load(number)
            if held is None:
                return None
        else:
            self._chunks.move_to_end(number)
        return held[offset] if offset < len(held) else None

    def __iter__(self) -> Iterator[Row | None]:
        for i in range(self._length):
            yield self[i]

    def keys(self) -> Sequence[int]:
        return self._keys

    def cached_rows(self) -> int:
        return sum(len(c) for c in self._chunks.values())

    def pending(self, position: int) -> bool:
        """Whether the row at ``position`` is being read again elsewhere (``on_missing``)."""
        return position // self.chunk in self._pending

    def _reader(self, start: int, stop: int) -> Callable[[], list[Row | None]]:
        """The read of positions ``start:stop`` as they stand now (their keys taken here)."""
        if self._fetch_keys is not None and self._key is not None:
            wanted = list(self._keys[start:stop])
            fetch_keys, key = self._fetch_keys, self._key

            def by_keys() -> list[Row | None]:
                found = {key(r): r for r in fetch_keys(wanted)}
                return [found.get(k) for k in wanted]

            return by_keys
        fetch_range = self._fetch_range
        assert fetch_range is not None
        return lambda: list(fetch_range(start, stop))

    def _request(self, number: int) -> None:
        if number in self._pending or self.on_missing is None:
            return
        self._pending.add(number)
        start = number * self.chunk
        stop = min(start + self.chunk, self._length)
        self.on_missing(number, start, stop, self._reader(start, stop))

    def fill(self, number: int, epoch: int, rows: list[Row | None] | None) -> bool:
        """Chunk ``number`` read elsewhere (None: the read failed; the next read tries again).
        True when the rows went in — not when the window was reset since they were asked for."""
        if epoch != self.epoch:
            return False
        self._pending.discard(number)
        if rows is None:
            return False
        self._store(number, rows)
        return True

    def _load(self, number: int) -> list[Row | None] | None:
        start = number * self.chunk
        stop = min(start + self.chunk, self._length)
        try:
            rows = self._reader(start, stop)()
        except Exception:  # noqa: BLE001 - the view shows dashes; the next read tries again
            return None
        self._store(number, rows)
        return rows

    def _store(self, number: int, rows: list[Row | None]) -> None:
        self.fetches += 1
        self._chunks[number] = rows
        self._chunks.move_to_end(number)
        self._trim()

    def _trim(self) -> None:
        while len(self._chunks) > self.capacity_chunks:
            self._chunks.popitem(last=False)


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
        if row is None:  # a windowed row on its way ("…"), or that could not be fetched again ("—")
            if role != Qt.ItemDataRole.DisplayRole:
                return None
            pending = isinstance(self._rows, RowWindow) and self._rows.pending(index.row())
            return "…" if pending else "—"
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


def read_dropped_rows_off_gui_thread(model: QAbstractTableModel, window: RowWindow[Any]) -> None:
    """A long list scrolled back to rows whose chunk was dropped reads them again off the GUI
    thread (a :class:`~motodesk.ui.ops.ServiceOp`): they show "…" until they come, then the view
    repaints them. Scrolling never waits on the database."""
    from motodesk.ui.ops import ServiceOp

    def missing(number: int, start: int, stop: int, read: Callable[[], list[Any]]) -> None:
        epoch = window.epoch

        def loaded(rows: list[Any]) -> None:
            if window.fill(number, epoch, rows) and stop <= model.rowCount():
                model.dataChanged.emit(model.index(start, 0), model.index(stop - 1, model.columnCount() - 1))

        def failed(_exc: BaseException) -> bool:
            window.fill(number, epoch, None)  # the rows read "—"; the next read tries again
            return True

        ServiceOp(model, read, lock=False).success(loaded).failure(failed).run()

    window.on_missing = missing


PageFetcher = Callable[[int, int, str, bool], Sequence[Any]]
"""fetch(offset, limit, sort_key, descending) -> rows: the database does the sorting."""


class LazyTableModel(RowTableModel[Row]):
    """A big table: the first page on reset, more as the view scrolls (canFetchMore/fetchMore).

    Rows fetched are kept in a :class:`RowWindow` (at most ``window`` rows); a row scrolled back
    to after its chunk was dropped is fetched again by its position.
    """

    def __init__(self, columns: Sequence[Column[Row]], fetch: PageFetcher, page_size: int = 200,
                 parent: Any = None, window: int = WINDOW_ROWS) -> None:
        super().__init__(columns, (), parent)
        self._fetch = fetch
        self.page_size = page_size
        self._exhausted = False
        self._fetching = False
        self._sort_key = columns[0].key
        self._descending = False
        self._rows = RowWindow(fetch_range=self._refetch, capacity=window, chunk=page_size)  # type: ignore[assignment]
        read_dropped_rows_off_gui_thread(self, self._rows)  # type: ignore[arg-type]

    def _refetch(self, start: int, stop: int) -> Sequence[Row]:
        return self._fetch(start, stop - start, self._sort_key, self._descending)

    def reload(self, fetch: PageFetcher | None = None) -> None:
        if fetch is not None:
            self._fetch = fetch
        self._fetching = True  # listeners of modelReset must not start fetching inside the reset
        try:
            self.beginResetModel()
            first = list(self._fetch(0, self.page_size, self._sort_key, self._descending))
            self._rows.reset(first)  # type: ignore[attr-defined]
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
