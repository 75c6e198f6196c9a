"""The dashboard's charts show the service's figures and print on one landscape A4 page."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from reports_factory import holder, notice  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS, drain_events  # type: ignore[import-not-found]

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
    assert sum(months["G4 Gravíssima"]) == 1 and sum(months["G3 Grave"]) == 1
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
        drain_events()
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


def test_readable_at_1366x768_with_the_campaign_progress(qtbot, supervisor: AppContext, wait_ops,  # noqa: ANN001
                                                         backend: str) -> None:
    """Issue 18, item 11: in the window at the counter's screen, every chart label is whole and legible;
    issue 19: the re-registration campaign's progress is on the dashboard (and on its printout)."""
    from PySide6.QtCharts import QBarCategoryAxis
    from PySide6.QtGui import QFontMetrics
    from tests_helpers import fits_screen  # type: ignore[import-not-found]

    from motodesk.services import campaigns
    from motodesk.ui.mainwindow import MainWindow

    _register(supervisor)
    today = local_today()
    opened = campaigns.open_campaign(supervisor, today + timedelta(days=1), today + timedelta(days=60))
    first = campaigns.list_appointments(supervisor, opened.campaign.id)[0]
    campaigns.mark_attendance(supervisor, first.id, True)

    window = MainWindow(supervisor)
    qtbot.addWidget(window)
    window.showMaximized()
    qtbot.waitExposed(window)
    page = window.show_section("reports")
    widget = page.findChild(DashboardWidget)
    assert widget is not None
    page.tabs.setCurrentWidget(widget)
    wait_ops()
    qtbot.waitUntil(lambda: widget.data is not None, timeout=20_000)
    drain_events()
    assert fits_screen(window) == []

    assert widget.campaign_bar.isVisible()
    assert (widget.campaign_bar.value(), widget.campaign_bar.maximum()) == (1, opened.appointments)
    assert f"compareceram 1 · faltaram 0 · pendentes {opened.appointments - 1}" in widget.campaign_label.text()

    for view in widget.views:
        chart = view.chart()
        assert view.width() >= 380 and view.height() >= 220, (chart.title(), view.size())
        # The title fits the chart: nothing cut with an ellipsis.
        metrics_width = view.fontMetrics().horizontalAdvance(chart.title())
        assert metrics_width <= view.width(), chart.title()
        for axis in chart.axes():
            assert axis.labelsFont().pointSizeF() >= 8.5
            if isinstance(axis, QBarCategoryAxis) and axis.orientation() == Qt.Orientation.Vertical:
                widest = max(view.fontMetrics().horizontalAdvance(c) for c in axis.categories())
                assert widest <= view.width() * 0.4, axis.categories()  # short labels leave room for the bars
        assert chart.legend().font().pointSizeF() >= 8.5
        # The legend fits on its line: every entry whole (text, marker and spacing).
        legend_metrics = QFontMetrics(chart.legend().font())
        labels = [m.label() for m in chart.legend().markers()]
        assert sum(legend_metrics.horizontalAdvance(label) + 36 for label in labels) <= view.width(), labels

    # A change anywhere reloads the dashboard (the change bus), without pressing "Atualizar".
    from motodesk.ui.changes import notify_changed

    campaigns.mark_attendance(supervisor, campaigns.list_appointments(supervisor, opened.campaign.id)[1].id, True)
    with qtbot.waitSignal(widget.loaded, timeout=20_000):
        notify_changed("campaign")
    assert widget.campaign_bar.value() == 2

    if backend == "sqlite":
        window.grab().save(str(SCREENSHOTS / "dashboard-1366x768.png"))
