"""The counter's main screen, used as a clerk uses it: type in the box, see the rows, Enter opens."""

from __future__ import annotations

import threading
from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    existing_register,
    valid_cpf,
)

from motodesk.models import Permit, Vehicle
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import people, search
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.ui.app import create_application
from motodesk.ui.screens.people import PeoplePage, PeopleSearchModel


def _person(ctx: AppContext, name: str, cpf: str | None = None) -> int:
    return people.save_person(ctx, PersonInput(full_name=name, cpf=cpf or valid_cpf(),
                                               birth_date=date(1985, 3, 9))).id


def wait_idle(qtbot, page: PeoplePage) -> None:  # noqa: ANN001
    qtbot.waitUntil(lambda: not page._debounce.isActive() and not page.model.busy, timeout=5000)


def names(model: PeopleSearchModel) -> list[str]:
    return [model.index(r, 0).data() for r in range(model.rowCount())]


@pytest.fixture
def page(qtbot, clerk: AppContext) -> PeoplePage:  # noqa: ANN001
    create_application()
    widget = PeoplePage(clerk)
    qtbot.addWidget(widget)
    widget.resize(1000, 600)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_type_a_name_see_the_row_and_open_it_with_enter(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    pid = _person(clerk, "João da Silva")
    _person(clerk, "Maria Aparecida Souza")
    create_application()
    page = PeoplePage(clerk)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    wait_idle(qtbot, page)
    assert names(page.model) == ["João da Silva", "Maria Aparecida Souza"]  # everyone, by name

    qtbot.keyClicks(page.search_box, "joao")
    wait_idle(qtbot, page)
    assert names(page.model) == ["João da Silva"]
    assert page.model.index(0, 4).data() == "Sem requerimento"
    assert "1 pessoa" in page.status.text() and "busca por nome" in page.status.text()

    qtbot.keyClick(page.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pid in page.dossiers)
    dossier = page.dossiers[pid]
    qtbot.waitUntil(lambda: dossier.windowTitle() == "Dossiê – João da Silva")  # the dossier loads off the GUI thread
    # Opening the same person again brings the same window forward.
    assert page.open_dossier(pid) is dossier
    dossier.close()
    assert pid not in page.dossiers


def test_cpf_plate_and_permit_from_the_box(qtbot, page: PeoplePage, clerk: AppContext) -> None:  # noqa: ANN001
    cpf = valid_cpf()
    pid = _person(clerk, "Titular da Placa", cpf)
    with clerk.write() as s:
        existing_register(s)
        s.add(Vehicle(plate="ABC1234", holder_id=pid, active=True, service_type=ServiceType.MOTOTAXI))
        s.add(Permit(number="MT-0007/2026", service_type=ServiceType.MOTOTAXI, year=2026, seq=7, person_id=pid,
                     state=PermitState.ACTIVE, issued_on=date(2026, 1, 5), term_end=date(2031, 1, 5),
                     certificate_valid_until=date(2027, 1, 5)))
    for typed in (f"{cpf[:3]}.{cpf[3:6]}", "abc-1234", "ABC1C34", "mt-7"):
        page.search_box.clear()
        qtbot.keyClicks(page.search_box, typed)
        wait_idle(qtbot, page)
        assert names(page.model) == ["Titular da Placa"], typed
    row = [page.model.index(0, c).data() for c in range(6)]
    assert row == ["Titular da Placa", f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}", "Mototáxi", "MT-0007/2026",
                   "Em vigor", "ABC-1234"]


def test_enter_typed_before_the_answer_opens_the_first_row(qtbot, page: PeoplePage, clerk: AppContext) -> None:  # noqa: ANN001
    pid = _person(clerk, "Ana Rápida Enter")
    wait_idle(qtbot, page)
    qtbot.keyClicks(page.search_box, "ana rap")
    qtbot.keyClick(page.search_box, Qt.Key.Key_Return)  # the debounce has not fired yet
    qtbot.waitUntil(lambda: pid in page.dossiers)
    from motodesk.ui.ops import ServiceOp

    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the dossier has loaded before it is closed
    page.dossiers[pid].close()


def test_a_stale_answer_never_overwrites_a_newer_one(qtbot, clerk: AppContext, monkeypatch) -> None:  # noqa: ANN001
    _person(clerk, "Antônio Lento")
    _person(clerk, "Beatriz Rápida")
    release = threading.Event()
    real = search.search_people

    def slow_for_a(ctx, query, **kw):  # noqa: ANN001, ANN003, ANN202
        if query == "ant":
            release.wait(5)
        return real(ctx, query, **kw)

    monkeypatch.setattr(search, "search_people", slow_for_a)
    model = PeopleSearchModel(clerk)
    model.set_query("ant")
    model.set_query("bea")
    qtbot.waitUntil(lambda: not model.busy, timeout=5000)
    assert names(model) == ["Beatriz Rápida"]
    release.set()  # the older answer arrives now…
    from motodesk.ui.ops import ServiceOp

    qtbot.waitUntil(lambda: ServiceOp.running() == 0)
    drain_events()
    assert names(model) == ["Beatriz Rápida"]  # …and is dropped


def test_pages_load_as_the_list_scrolls_and_sort_runs_in_the_database(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                       qtmodeltester) -> None:
    for i in range(12):
        _person(clerk, f"Pessoa {i:02d} Teste")
    model = PeopleSearchModel(clerk, page_size=5)
    model.set_query("pessoa")
    qtbot.waitUntil(lambda: not model.busy)
    assert model.rowCount() == 5 and model.canFetchMore()
    qtmodeltester.check(model)
    qtbot.waitUntil(lambda: not model.busy)
    while model.canFetchMore():
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.busy)
    assert names(model) == [f"Pessoa {i:02d} Teste" for i in range(12)]
    model.sort(0, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: not model.busy)
    assert names(model)[:2] == ["Pessoa 11 Teste", "Pessoa 10 Teste"]
    cpfs = []
    model.sort(1, Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: not model.busy)
    while model.canFetchMore():
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.busy)
    cpfs = [model.index(r, 1).data() for r in range(model.rowCount())]
    assert cpfs == sorted(cpfs) and len(cpfs) == 12
    model.sort(2)  # Serviço does not sort: nothing is asked of the database
    assert not model.busy


def test_pasted_junk_is_searched_safely(qtbot, page: PeoplePage, clerk: AppContext) -> None:  # noqa: ANN001
    _person(clerk, "Maria D'Ávila-Souza")
    QApplication.clipboard().setText("'; DROP TABLE people; -- %_" + "x" * 10_000)
    page.search_box.setFocus()
    qtbot.keyClick(page.search_box, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    wait_idle(qtbot, page)
    assert len(page.search_box.text()) == search.MAX_QUERY
    assert page.model.rowCount() == 0 and page.status.text() == "Nenhuma pessoa encontrada."
    page.search_box.clear()
    qtbot.keyClicks(page.search_box, "d'avila-sou")
    wait_idle(qtbot, page)
    assert names(page.model) == ["Maria D'Ávila-Souza"]


def test_database_down_says_why_in_the_status(qtbot, page: PeoplePage, monkeypatch) -> None:  # noqa: ANN001
    from motodesk.services.errors import DatabaseUnavailableError

    def down(*_a, **_k):  # noqa: ANN002, ANN003, ANN202
        raise DatabaseUnavailableError("Não foi possível conectar ao servidor de banco de dados.")

    monkeypatch.setattr(search, "search_people", down)
    qtbot.keyClicks(page.search_box, "ana")
    wait_idle(qtbot, page)
    assert page.status.text().startswith("Não foi possível buscar: Não foi possível conectar")


def test_inspector_cannot_create_people(qtbot, inspector: AppContext) -> None:  # noqa: ANN001
    create_application()
    page = PeoplePage(inspector)
    qtbot.addWidget(page)
    assert not page.new_button.isEnabled()
    assert page.new_person() is None


def test_main_window_shortcuts_and_screenshot(qtbot, ctx: AppContext, clerk: AppContext, backend: str,  # noqa: ANN001
                                              monkeypatch) -> None:
    from motodesk.services.demo import seed_demo
    from motodesk.ui.app import build_main_window

    seed_demo(ctx, 120)
    create_application()
    window = build_main_window(clerk)
    qtbot.addWidget(window)
    window.resize(1280, 760)
    window.show()
    qtbot.waitExposed(window)
    page = window.page_by_key["people"]
    wait_idle(qtbot, page)
    assert page.model.rowCount() == 120

    window.nav.setCurrentRow(1)
    window.action_collection["find"].trigger()  # Ctrl+F
    assert window.pages.currentIndex() == 0 and page.isVisible() and page.search_box.hasFocus()
    qtbot.keyClicks(page.search_box, "ana")
    wait_idle(qtbot, page)
    assert page.model.rowCount() > 0
    page.table.setFocus()
    if backend == "sqlite":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(SCREENSHOTS / "main_window.png"))

    window.action_collection["new_person"].trigger()  # Ctrl+N
    blank = [w for k, w in page.dossiers.items() if not isinstance(k, int)]
    assert len(blank) == 1 and blank[0].windowTitle() == "Dossiê – Pessoa nova"
    qtbot.keyClicks(blank[0].person_inputs["full_name"], "Alguem Digitando")
    from motodesk.ui import dossier as dossier_module
    from motodesk.ui.guard import Answer

    asked: list[str] = []
    answers = iter([Answer.CANCEL, Answer.DISCARD])
    monkeypatch.setattr(dossier_module, "ask_unsaved", lambda parent, what: asked.append(what) or next(answers))
    assert not window.close()  # the unsaved dossier keeps the main window open
    assert window.isVisible()
    assert window.close()
    assert asked == ["O dossiê de Alguem Digitando tem alterações que não foram salvas."] * 2


def test_a_first_page_says_it_is_the_first_page(qtbot, page: PeoplePage, clerk: AppContext) -> None:  # noqa: ANN001
    for name in ("Ana Lima", "Bruno Lima", "Carla Lima"):
        _person(clerk, name)
    page.model.page_size = 2
    shown: list[str] = []
    page.model.loaded.connect(lambda *_a: shown.append(page.status.text()))  # after the page's own slot
    page.run_query()
    qtbot.waitUntil(lambda: bool(shown), timeout=5000)
    assert shown[0].startswith("primeiras 2 pessoas — refine a busca")  # (the view then fetches the rest)
    qtbot.keyClicks(page.search_box, "carla")
    wait_idle(qtbot, page)
    assert page.status.text().startswith("1 pessoa")
    assert not page.table.tabKeyNavigation()  # Tab leaves the results
