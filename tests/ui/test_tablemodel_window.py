"""Issue 20, target 2: long lists keep their ids and a bounded window of rows, not every row."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableView
from tests_helpers import drain_events  # type: ignore[import-not-found]

from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel, RowWindow


@dataclass(frozen=True)
class Item:
    id: int
    name: str


def test_the_window_keeps_at_most_its_capacity_and_fetches_dropped_rows_again_by_id() -> None:
    asked: list[list[int]] = []

    def fetch(ids: Sequence[int]) -> list[Item]:
        asked.append(list(ids))
        return [Item(i, f"again {i}") for i in reversed(ids) if i % 1000 != 7]  # any order; one removed

    window: RowWindow[Item] = RowWindow(key=lambda r: r.id, fetch_keys=fetch, capacity=500, chunk=100)
    ids = list(range(10_000, 0, -1))  # not positions: what the database ordered
    for start in range(0, len(ids), 100):
        window.extend(Item(i, f"first {i}") for i in ids[start:start + 100])
        assert window.cached_rows() <= 500
    assert len(window) == 10_000 and list(window.keys()) == ids
    assert window[9_999] == Item(1, "first 1")  # the newest rows are still held
    assert asked == []
    assert window[0] == Item(10_000, "again 10000")  # dropped long ago: fetched by its chunk's ids
    assert asked == [ids[:100]]
    assert window[1] == Item(9_999, "again 9999") and len(asked) == 1  # the same chunk, held now
    assert window[ids.index(5_007)] is None  # removed meanwhile
    peak = 0
    for position in range(len(window)):  # scrolled end to end
        assert window[position] is None or window[position].id == ids[position]
        peak = max(peak, window.cached_rows())
    assert peak <= 500


def test_a_failing_fetch_reads_as_none_and_is_tried_again() -> None:
    calls = {"n": 0}

    def fetch(start: int, stop: int) -> list[str]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("database gone")
        return [f"row {i}" for i in range(start, stop)]

    window: RowWindow[str] = RowWindow(fetch_range=fetch, capacity=20, chunk=10)
    window.extend(f"row {i}" for i in range(100))
    assert window[0] is None
    assert window[0] == "row 0"
    with pytest.raises(ValueError):
        RowWindow(key=lambda r: 0)


def test_a_lazy_model_scrolled_end_to_end_in_a_view_keeps_a_bounded_window(qtbot) -> None:  # noqa: ANN001
    total = 30_000
    fetched: list[tuple[int, int]] = []

    def fetch(offset: int, limit: int, key: str, descending: bool) -> list[Item]:
        fetched.append((offset, limit))
        return [Item(i, f"pessoa {i:05d}") for i in range(offset, min(offset + limit, total))]

    columns = [Column("name", "Nome", lambda r: r.name), Column("id", "Nº", lambda r: r.id)]
    model: LazyTableModel[Item] = LazyTableModel(columns, fetch, page_size=100, window=1000)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(400, 300)
    view.show()
    model.reload()
    window = model._rows
    assert isinstance(window, RowWindow)
    peak = 0
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
        view.scrollToBottom()
        drain_events()
        peak = max(peak, window.cached_rows())
    assert model.rowCount() == total
    assert peak <= 1000
    # Back to the top: the rows come again, by position, off the GUI thread ("…" meanwhile), and
    # read as before.
    gui = threading.get_ident()
    threads: list[int] = []
    model._fetch = lambda *a: threads.append(threading.get_ident()) or fetch(*a)  # type: ignore[assignment]
    view.scrollToTop()
    assert model.data(model.index(0, 0)) in ("…", "pessoa 00000")
    qtbot.waitUntil(lambda: model.data(model.index(0, 0)) == "pessoa 00000")
    assert model.data(model.index(5, 1), Qt.ItemDataRole.DisplayRole) == "5"
    assert window.fetches >= 1 and window.cached_rows() <= 1000
    assert threads and gui not in threads


def test_a_dropped_chunk_is_asked_for_once_and_a_reset_makes_its_answer_stale() -> None:
    window: RowWindow[str] = RowWindow(fetch_range=lambda a, b: [f"row {i}" for i in range(a, b)],
                                       capacity=20, chunk=10)
    asked: list[tuple[int, int, int]] = []
    reads: list[object] = []
    window.on_missing = lambda n, a, b, read: (asked.append((n, a, b)), reads.append(read))  # type: ignore[func-returns-value]
    window.extend(f"row {i}" for i in range(100))
    assert window[0] is None and window.pending(0) and window[5] is None
    assert asked == [(0, 0, 10)]  # once, though read twice
    epoch = window.epoch
    assert window.fill(0, epoch, reads[0]())  # type: ignore[operator]
    assert window[5] == "row 5" and not window.pending(5)
    assert window[10] is None and asked[-1] == (1, 10, 20)
    window.reset(f"new {i}" for i in range(100))
    assert not window.fill(1, epoch, ["stale"] * 10) and window[95] == "new 95"
    assert window.fill(0, window.epoch, None) is False and not window.pending(0)  # failed: asked again later


def test_a_small_table_still_holds_every_row() -> None:
    model: RowTableModel[Item] = RowTableModel([Column("name", "Nome", lambda r: r.name)],
                                               [Item(2, "b"), Item(1, "a")])
    model.sort(0)
    assert [r.name for r in model.rows()] == ["a", "b"]
