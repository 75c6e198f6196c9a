"""Art. 31, Grupo 4, II from the "Veículos" page, driven from the keyboard: a supervisor sees the pending
baixa on the vehicle of a permit that ended (its status and its verdict, with the article), gives it with
the access key Alt+X after a confirmation in pt_BR, and the vehicle leaves the active register; the
vehicle of a permit in force offers no baixa."""

from __future__ import annotations

import pytest
from enforcement_factory import add_holder  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from tests_helpers import no_button_down  # type: ignore[import-not-found]
from window_factory import shown  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType, Status
from motodesk.services import permits
from motodesk.services.context import AppContext
from motodesk.services.vehicle_release import release_due_of
from motodesk.ui.app import create_application
from motodesk.ui.screens import vehicles as screen
from motodesk.ui.screens.vehicles import VehiclesPage


def _select(page: VehiclesPage, plate: str, wait_ops) -> None:  # noqa: ANN001
    assert page.select_vehicle(next(page.model.row_at(r).id for r in range(page.model.rowCount())
                                    if page.model.row_at(r).plate.replace("-", "") == plate.replace("-", "")))
    wait_ops()


def test_a_supervisor_gives_the_baixa_from_the_keyboard(qtbot, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                        ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext, wait_ops) -> None:
    create_application()
    ended = add_holder(ctx, "Rui Barbosa Lima", service=ServiceType.MOTOBOY)
    still = add_holder(ctx, "Ana Clara Souza", service=ServiceType.MOTOBOY)
    permits.cancel(clerk, ended.permit_id, None, express_request=True)

    page = VehiclesPage(supervisor)
    shown(qtbot, page)
    wait_ops()
    button = page.release_button
    assert button.isVisible() and "bai&xa" in button.text()

    _select(page, still.plate, wait_ops)
    assert not button.isEnabled()  # in force: taking it out is a replacement (Art. 31, Grupo 3, II)

    _select(page, ended.plate, wait_ops)
    assert button.isEnabled()
    assert page.selected().status_label == "Ativo – baixa pendente (Art. 31, Grupo 4, II)"  # type: ignore[union-attr]
    due = [v for v in page.verdicts.verdicts() if v.article == "Art. 31, Grupo 4, II"]
    assert due and due[0].status is Status.NOT_MET and ended.permit_number in due[0].message

    asked: list[str] = []
    monkeypatch.setattr(screen, "confirm", lambda _parent, title, text: asked.append(f"{title}: {text}") or False)
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_X, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)
    wait_ops()
    assert asked and "Registrar a baixa do veículo" in asked[0] and "Art. 31, Grupo 4, II" in asked[0]
    assert release_due_of(ctx, ended.vehicle_id) is not None  # declined: nothing written

    monkeypatch.setattr(screen, "confirm", lambda *_a: True)
    qtbot.keyClick(page.table, Qt.Key.Key_X, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)
    for _ in range(3):
        wait_ops()
    assert release_due_of(ctx, ended.vehicle_id) is None
    assert "Baixa do veículo" in page.panel.status.text() and "registrada" in page.panel.status.text()
    plates = {page.model.row_at(r).plate.replace("-", "") for r in range(page.model.rowCount())}
    assert ended.plate.replace("-", "") not in plates and still.plate.replace("-", "") in plates
    history = permits.history(ctx, "permit", ended.permit_id)
    assert [e.by_user for e in history if e.transition == "vehicle_release"] == ["supervisor"]


def test_the_inspector_sees_no_baixa(qtbot, ctx: AppContext, clerk: AppContext, inspector: AppContext,  # noqa: ANN001
                                     wait_ops) -> None:
    create_application()
    ended = add_holder(ctx, "Paulo Mendes Rocha", service=ServiceType.MOTOFRETE)
    permits.cancel(clerk, ended.permit_id, None, express_request=True)
    page = VehiclesPage(inspector)
    shown(qtbot, page)
    wait_ops()
    assert not page.release_button.isVisible()
