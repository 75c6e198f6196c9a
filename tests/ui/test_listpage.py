"""The declared list pages (issue #18, items 1, 2, 7, 8, 9): one base builds the filters, the table,
the buttons by role and selection, loads off the GUI thread and follows changes; the dialogs of the
lists fit the counter's screen and are reachable from the keyboard."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget
from tests_helpers import SCREENSHOTS, drain_events, fits_screen, missing_access_keys, wait_seconds  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.changes import notify_changed
from motodesk.ui.listpage import Action, Filter, ListPanel, ListSpec
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.tablemodel import Column


@dataclass(frozen=True)
class Item:
    id: int
    name: str
    open: bool


ITEMS = [Item(1, "Ana", True), Item(2, "Bruno", False), Item(3, "Carla", True)]
COLUMNS = [Column("name", "Nome", lambda i: i.name), Column("open", "Aberto", lambda i: "sim" if i.open else "não")]


class FakeUser:
    def __init__(self, role: Role) -> None:
        self.role = role


class FakeCtx:
    def __init__(self, role: Role) -> None:
        self.user = FakeUser(role)


KEEP: list[QWidget] = []


@pytest.fixture(autouse=True)
def _release() -> None:
    yield
    KEEP.clear()


def _panel(qtbot, role: Role, calls: list[str], loads: list[int] | None = None) -> tuple[ListPanel[Item], list]:  # noqa: ANN001
    create_application()
    ran: list[tuple[str, object]] = []
    gui = threading.get_ident()

    def load(values: dict) -> list[Item]:
        calls.append("gui" if threading.get_ident() == gui else "worker")
        if loads is not None:
            loads.append(1)
        return [i for i in ITEMS if values["search"].lower() in i.name.lower()
                and (not values["only_open"] or i.open)]

    spec = ListSpec(
        name="items", columns=COLUMNS, load=load, kinds={"item"},
        filters=[Filter("search", "&Buscar:", stretch=True), Filter("only_open", "Só &abertos", kind="check")],
        actions=[
            Action("new", "&Novo…", lambda r: ran.append(("new", r)), needs_row=False),
            Action("edit", "&Editar…", lambda r: ran.append(("edit", r)), default=True),
            Action("close", "&Fechar item", lambda r: ran.append(("close", r)), frozenset({Role.SUPERVISOR}),
                   enabled=lambda r: r.open),
        ])
    panel: ListPanel[Item] = ListPanel(FakeCtx(role), spec)  # type: ignore[arg-type]
    before = QLineEdit()
    host = QWidget()
    from PySide6.QtWidgets import QVBoxLayout

    layout = QVBoxLayout(host)
    layout.addWidget(before)
    layout.addWidget(panel)
    qtbot.addWidget(host)
    host.show()
    qtbot.waitExposed(host)
    KEEP.append(host)  # the host owns the panel: keep it alive for the test
    return panel, ran


def test_the_base_loads_off_the_gui_thread_and_keeps_the_selection(qtbot, wait_ops) -> None:  # noqa: ANN001
    calls: list[str] = []
    panel, _ran = _panel(qtbot, Role.CLERK, calls)
    wait_ops()
    assert calls == ["worker"] and panel.load_count == 1
    assert [r.name for r in panel.model.rows()] == ["Ana", "Bruno", "Carla"]
    assert panel.selected() == ITEMS[0]  # the first row is selected: Enter works at once
    panel.select_index(2)
    panel.reload()
    wait_ops()
    assert panel.selected() == ITEMS[2]  # kept across a reload
    qtbot.keyClicks(panel.filters["search"], "bru")
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=5000)
    assert panel.model.row_at(0).name == "Bruno"
    assert set(calls) == {"worker"}


def test_buttons_follow_role_and_row_and_enter_runs_the_default(qtbot, wait_ops) -> None:  # noqa: ANN001
    panel, ran = _panel(qtbot, Role.CLERK, [])
    wait_ops()
    assert panel.buttons["close"].isHidden()  # a clerk may not close
    assert panel.buttons["new"].isEnabled() and panel.buttons["edit"].isEnabled()
    assert missing_access_keys(panel) == []
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Down)
    qtbot.keyClick(panel.table, Qt.Key.Key_Return)
    assert ran == [("edit", ITEMS[1])]
    boss, _ran = _panel(qtbot, Role.SUPERVISOR, [])
    wait_ops()
    assert not boss.buttons["close"].isHidden() and boss.buttons["close"].isEnabled()
    boss.select_index(1)  # Bruno's item is not open
    assert not boss.buttons["close"].isEnabled()
    boss.table.clearSelection()
    assert not boss.buttons["edit"].isEnabled() and boss.buttons["new"].isEnabled()


def test_tab_and_shift_tab_leave_the_table(qtbot, wait_ops) -> None:  # noqa: ANN001
    panel, _ran = _panel(qtbot, Role.CLERK, [])
    wait_ops()
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Tab)
    assert not panel.table.hasFocus()
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Backtab)
    assert not panel.table.hasFocus()


def test_a_change_reloads_a_visible_list(qtbot, wait_ops) -> None:  # noqa: ANN001
    loads: list[int] = []
    panel, _ran = _panel(qtbot, Role.CLERK, [], loads)
    wait_ops()
    assert len(loads) == 1
    notify_changed("something else")
    drain_events()  # the coalescing 0 ms timer, had it been started
    wait_ops()
    assert len(loads) == 1
    notify_changed("item")
    qtbot.waitUntil(lambda: len(loads) == 2, timeout=5000)


def test_load_into_delivers_the_newest_answer_only(qtbot, wait_ops) -> None:  # noqa: ANN001
    create_application()
    widget = QLabel()
    qtbot.addWidget(widget)
    got: list[str] = []

    def slow() -> str:
        time.sleep(0.3)
        return "old"

    load_into(widget, slow, got.append)
    load_into(widget, lambda: "new", got.append)
    wait_ops()
    drain_events()
    assert got == ["new"]  # delivered (it was not, before), and the older answer dropped


# -- the dialogs of the lists on the counter's screen ---------------------------------------------------
def _dialogs(ctx: AppContext) -> list[tuple[str, QWidget]]:
    from motodesk.ui.accident_dialog import AccidentDialog
    from motodesk.ui.infraction_picker import InfractionPickerDialog
    from motodesk.ui.notice_form import NoticeForm
    from motodesk.ui.screens.deadlines import RenewalDialog
    from motodesk.ui.screens.inspections import CampaignDialog, ScheduleDialog
    from motodesk.ui.screens.organisations import DateDialog, OrganisationDialog
    from motodesk.ui.screens.permits import CandidateDialog, ConvictionDialog, StepDialog, TenderDialog
    from motodesk.ui.screens.stands import StandDialog

    step = StepDialog("Prorrogar por 5 anos", "Prorrogar MT-0001/2026 por mais 5 anos, uma única vez (Art. 6º). "
                      "O texto desta explicação é longo o bastante para ocupar várias linhas no diálogo.",
                      decree="Decreto nº (se houver):", reason="Observação:", express_request=True)
    row = type("Row", (), {"service": type("S", (), {"instrument": "permissão"})(), "number": "MT-0001/2026",
                           "holder": "Maria Aparecida Souza"})()
    return [
        ("step_dialog", step),
        ("conviction_dialog", ConvictionDialog(row)),  # type: ignore[arg-type]
        ("tender_dialog", TenderDialog()),
        ("candidate_dialog", CandidateDialog()),
        ("organisation_dialog", OrganisationDialog(ctx)),
        ("date_dialog", DateDialog("Filiação", "Maria informa a filiação (Art. 9º, § 2º).", "Filiado &desde:")),
        ("stand_dialog", StandDialog(ctx)),
        ("schedule_dialog", ScheduleDialog(ctx)),
        ("campaign_dialog", CampaignDialog(ctx)),
        ("renewal_dialog", RenewalDialog(3)),
        ("accident_dialog", AccidentDialog(ctx, 1, "ABC-1234")),
        ("infraction_picker", InfractionPickerDialog(query="troco")),
        ("notice_form", NoticeForm(ctx)),
    ]


def test_every_dialog_of_the_lists_fits_and_has_its_keys(qtbot, clerk: AppContext, backend: str) -> None:  # noqa: ANN001
    if backend != "sqlite":
        pytest.skip("one backend is enough for the pictures")
    create_application()
    for name, dialog in _dialogs(clerk):
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert fits_screen(dialog) == [], name
        assert missing_access_keys(dialog) == [], name
        for label in dialog.findChildren(QLabel):
            if label.wordWrap() and label.isVisible() and label.text():
                assert label.height() >= label.heightForWidth(label.width()) - 2, (name, label.text()[:40])
        dialog.grab().save(str(SCREENSHOTS / f"{name}.png"))
        dialog.done(0)


def test_two_calls_on_one_form_leave_it_enabled(qtbot, wait_ops) -> None:  # noqa: ANN001
    from motodesk.ui.ops import ServiceOp

    create_application()
    form = QLineEdit()
    qtbot.addWidget(form)

    def slow() -> int:
        time.sleep(0.3)
        return 1

    ServiceOp(form, lambda: 1).run()
    ServiceOp(form, slow).run()  # Return pressed again while the first save ran; this one ends last
    assert not form.isEnabled()
    wait_ops()
    assert form.isEnabled()  # it was left disabled: the second call remembered the first one's lock


def test_a_big_list_reads_its_next_page_off_the_gui_thread(qtbot, wait_ops) -> None:  # noqa: ANN001
    """Scrolling a paged register asks for the next page in the background: a server that stops
    answering leaves the window painting, and the page lands when the answer comes."""
    create_application()
    rows = [Item(i, f"Pessoa {i:03d}", True) for i in range(1, 26)]
    gate = threading.Event()
    gate.set()
    threads: list[str] = []
    gui = threading.get_ident()

    def fetch(values: dict, offset: int, limit: int, key: str, descending: bool) -> list[Item]:
        threads.append("gui" if threading.get_ident() == gui else "worker")
        assert gate.wait(10)
        return rows[offset:offset + limit]

    spec = ListSpec(name="big", columns=COLUMNS, fetch=fetch, page_size=10, sort=("name", False),
                    filters=[Filter("search", "&Buscar:")])
    panel: ListPanel[Item] = ListPanel(FakeCtx(Role.CLERK), spec)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.resize(600, 300)
    panel.show()
    qtbot.waitExposed(panel)
    panel.reload()
    wait_ops()
    assert panel.model.rowCount() == 10 and panel.count.text() == "10+ registro(s)"

    gate.clear()  # the server stops answering
    asked = len(threads)
    started = time.monotonic()
    panel.model.fetchMore(panel.model.index(-1, -1))
    assert time.monotonic() - started < wait_seconds(1.0)  # the call returned at once: nothing waited on the GUI thread
    painted = panel.grab()  # the window still paints while the page is on its way
    assert not painted.isNull() and panel.model.rowCount() == 10
    panel.model.fetchMore(panel.model.index(-1, -1))  # asked again while waiting: still one request
    drain_events()
    assert ServiceOp.running() == 1  # counted when the request is made, before any worker picks it up
    qtbot.waitUntil(lambda: len(threads) == asked + 1)  # the one request, on a worker (when it gets there)
    gate.set()
    wait_ops()
    assert panel.model.rowCount() == 20 and panel.count.text() == "20+ registro(s)"
    panel.model.fetchMore(panel.model.index(-1, -1))
    wait_ops()
    assert panel.model.rowCount() == 25 and not panel.model.canFetchMore(panel.model.index(-1, -1))
    assert panel.count.text() == "25 registro(s)"
    assert set(threads) == {"worker"}


def test_a_page_read_during_a_reload_is_dropped(qtbot, wait_ops) -> None:  # noqa: ANN001
    create_application()
    rows = [Item(i, f"Pessoa {i:03d}", True) for i in range(1, 26)]
    gate = threading.Event()
    gate.set()

    def fetch(values: dict, offset: int, limit: int, key: str, descending: bool) -> list[Item]:
        assert gate.wait(10)
        chosen = [r for r in rows if values["search"] in r.name]
        return chosen[offset:offset + limit]

    spec = ListSpec(name="big2", columns=COLUMNS, fetch=fetch, page_size=10, sort=("name", False),
                    filters=[Filter("search", "&Buscar:")])
    panel: ListPanel[Item] = ListPanel(FakeCtx(Role.CLERK), spec)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.reload()
    wait_ops()
    gate.clear()
    panel.model.fetchMore(panel.model.index(-1, -1))  # page two of every row, still on its way
    gate.set()
    panel.filters["search"].setText("Pessoa 02")  # the clerk narrows the list meanwhile
    panel.reload()
    wait_ops()
    names = [r.name for r in panel.model.rows()]
    assert names == [f"Pessoa {i:03d}" for i in range(20, 26)]
