"""The dashboard's charts show the service's figures and print on one landscape A4 page."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from reports_factory import holder, notice  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui import dashboard as module
from motodesk.ui.app import create_application
from motodesk.ui.dashboard import DashboardWidget


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def _values(widget: DashboardWidget, chart: int) -> dict[str, list[float]]:
    series = widget.views[chart].chart().series()[0]
    return {bar.label(): [bar.at(i) for i in range(bar.count())] for bar in series.barSets()}


def _register(supervisor: AppContext) -> None:
    today = local_today()
    now = datetime.now(UTC)
    names = ("Ana Paula Vieira", "Bruno Souza Lima", "Carla Mendes Rocha", "Davi Reis Campos", "Elisa Prado Luz",
             "Fábio Nunes Reis", "Gisele Martins Dias")
    services = (ServiceType.MOTOTAXI, ServiceType.MOTOTAXI, ServiceType.MOTOBOY, ServiceType.MOTOBOY,
                ServiceType.MOTOFRETE, ServiceType.MOTOBOY, ServiceType.MOTOTAXI)
    states = (PermitState.ACTIVE, PermitState.SUSPENDED, PermitState.ACTIVE, PermitState.ACTIVE, PermitState.ACTIVE,
              PermitState.REVOKED, PermitState.ACTIVE)
    made = []
    for i, (name, service, state) in enumerate(zip(names, services, states, strict=True)):
        made.append(holder(supervisor, name, service, state=state,
                           medical_issued=today - timedelta(days=(400 if i % 3 == 0 else 30)),
                           cnh_valid_until=today + timedelta(days=1 + i)))
    for n, (r, days, severity) in enumerate([(made[0], 5, "grave"), (made[2], 40, "leve"), (made[3], 100, "media"),
                                             (made[3], 200, "gravissima"), (made[4], 300, "media")], 1):
        notice(supervisor, r.holder, n, occurred_at=now - timedelta(days=days), severity=severity)


def test_the_charts_and_printing(qtbot, monkeypatch: pytest.MonkeyPatch, supervisor: AppContext,  # noqa: ANN001
                                 backend: str) -> None:
    _register(supervisor)
    widget = DashboardWidget(supervisor)
    qtbot.addWidget(widget)
    widget.resize(1200, 820)
    with qtbot.waitSignal(widget.loaded, timeout=20_000):
        widget.show()
    permits = _values(widget, 0)
    assert permits["Em vigor"] == [2, 2, 1] and permits["Suspensa"] == [1, 0, 0] and permits["Cassada"] == [0, 1, 0]
    quota = _values(widget, 1)
    assert quota["Vagas (1 por 2.000 habitantes)"] == [44] and quota["Em vigor"] == [3]
    assert quota["Vagas abertas"] == [41]
    assert "89.826 hab. (IBGE 2022)" in widget.views[1].chart().title()
    due = widget.views[2].chart().series()[0]
    assert sum(due.barSets()[0].at(i) for i in range(due.barSets()[0].count())) == 3  # medical certificates overdue
    months = _values(widget, 3)
    assert sum(sum(v) for v in months.values()) == 5
    assert sum(months["Grupo 4 – Gravíssima"]) == 1
    assert "Em vigor (ativas e suspensas): 3 mototáxi (de 44 vagas), 2 motoboy, 1 moto-frete" in widget.figures.text()
    assert "autos de infração em 12 meses: 5" in widget.figures.text()

    printed: list[tuple[str, bytes]] = []
    monkeypatch.setattr(module, "preview_pdf", lambda _p, pdf, title: printed.append((title, pdf)))
    qtbot.mouseClick(widget.print_button, Qt.MouseButton.LeftButton)
    title, pdf = printed[0]
    assert title.startswith("Painel da SESTRAN ")
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert round(float(box.width)) == 842 and round(float(box.height)) == 595  # A4 landscape
    assert "Painel da SESTRAN" in " ".join(reader.pages[0].extract_text().split())

    if backend == "sqlite":  # one picture is enough
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(50)
        widget.grab().save(str(SCREENSHOTS / "dashboard.png"))


def test_refresh_follows_the_register(qtbot, supervisor: AppContext, ctx: AppContext) -> None:  # noqa: ANN001
    widget = DashboardWidget(ctx)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.loaded, timeout=20_000):
        widget.show()
    assert _values(widget, 1)["Em vigor"] == [0]
    holder(supervisor, "Hugo Ferreira Campos", ServiceType.MOTOTAXI)
    with qtbot.waitSignal(widget.loaded, timeout=20_000):
        qtbot.mouseClick(widget.refresh_button, Qt.MouseButton.LeftButton)
    assert _values(widget, 1)["Em vigor"] == [1]
