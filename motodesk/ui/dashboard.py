"""The supervisor's dashboard as charts (QtCharts), printable on one landscape A4 page.

Four charts: permits by service and state; mototáxi permits in force against the quota of Art. 10, I
(the figure Art. 39's study re-evaluates); this month's deadlines, overdue and still to fall due;
the infractions of the last 12 months by group (Art. 33). Above them, the progress of the yearly
re-registration campaign (Art. 4º, § 1º). "Imprimir" paints the sheet into a PDF that the shared
preview prints at true size or saves.

Readable at the counter's 1366x768 (issue 18, item 11): short category labels (the deadline kinds'
full names are in the tooltips of the Prazos page), titles that fit half the window, axis and legend
text at :data:`LABEL_POINTS` at least. The figures load through :class:`~motodesk.ui.ops.ServiceOp`
and follow the change bus, so any change made elsewhere shows the next time the dashboard is seen.
"""

from __future__ import annotations

from datetime import date

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QChart,
    QChartView,
    QHorizontalStackedBarSeries,
    QStackedBarSeries,
    QValueAxis,
)
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMargins, QMarginsF, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.rules.text import format_int
from motodesk.services.context import AppContext
from motodesk.services.dashboard import STATES, DashboardData, dashboard, group_label
from motodesk.ui.changes import follow_changes
from motodesk.ui.formatting import format_date, format_datetime
from motodesk.ui.formkit import push_button
from motodesk.ui.ops import ServiceOp
from motodesk.ui.pdfpreview import preview_pdf

STATE_COLOURS = {PermitState.ACTIVE: "#2e7d32", PermitState.SUSPENDED: "#ef6c00", PermitState.EXPIRED: "#9e9e9e",
                 PermitState.CANCELLED: "#546e7a", PermitState.REVOKED: "#c62828"}
GROUP_COLOURS = {1: "#90caf9", 2: "#42a5f5", 3: "#ef6c00", 4: "#c62828", 0: "#6d4c41"}  # 0: Art. 32
#: Smallest point size of axis labels and legends (readable at 1366x768 and on the A4 printout).
LABEL_POINTS = 9.0
#: The deadline kinds in a few words: the chart's category axis leaves the bars most of the width.
SHORT_KIND_LABELS: dict[DeadlineKind, str] = {
    DeadlineKind.MEDICAL: "Atestado médico",
    DeadlineKind.REGISTRATION_CERTIFICATE: "Certificado de registro",
    DeadlineKind.CRIMINAL_CERTIFICATES: "Certidões criminais",
    DeadlineKind.VEHICLE_USEFUL_LIFE: "Vida útil do veículo",
    DeadlineKind.INSPECTION: "Vistoria",
    DeadlineKind.PERMIT_TERM: "Prazo da permissão",
    DeadlineKind.CNH: "CNH",
    DeadlineKind.PASSENGER_INSURANCE: "Seguro de passageiros",
    DeadlineKind.DEPUTY_DEREGISTRATION: "Baixa de preposto",
    DeadlineKind.ACCIDENT_REPORT: "Aviso de acidente",
    DeadlineKind.DEFENCE_PERIOD: "Prazo de defesa",
    DeadlineKind.APPEAL_PERIOD: "Prazo de recurso",
}


def short_group_label(group: int) -> str:
    """The legend's words for a group: "G3 Grave", "Art. 32" (the full "Grupo 3 – Grave" would be cut)."""
    if group == 0:
        return "Art. 32"
    return "G" + group_label(group).removeprefix("Grupo ").replace(" – ", " ")


def _readable(chart: QChart) -> QChart:
    """Axis labels and legend at :data:`LABEL_POINTS` at least (Qt's default is smaller on Windows)."""
    for axis in chart.axes():
        font = QFont(axis.labelsFont())
        font.setPointSizeF(max(LABEL_POINTS, font.pointSizeF()))
        axis.setLabelsFont(font)
    legend = chart.legend()
    font = QFont(legend.font())
    font.setPointSizeF(max(LABEL_POINTS, font.pointSizeF()))
    legend.setFont(font)
    return chart


def _int_axis(maximum: int) -> QValueAxis:
    """A count axis from 0 with round steps (1, 2, 5, 10, 20, 50…) and room above the tallest bar."""
    axis = QValueAxis()
    axis.setLabelFormat("%d")
    wanted = max(4.0, maximum * 1.1)
    magnitude, step = 1, 1
    while True:
        step = next((m * magnitude for m in (1, 2, 5) if wanted / (m * magnitude) <= 5), 0)
        if step:
            break
        magnitude *= 10
    ticks = -(-int(wanted * 1000) // (step * 1000))  # ceiling
    axis.setRange(0, step * ticks)
    axis.setTickCount(ticks + 1)
    return axis


def _chart(title: str) -> QChart:
    chart = QChart()
    chart.setTitle(title)
    font = QFont(chart.titleFont())
    font.setBold(True)
    font.setPointSizeF(max(9.0, font.pointSizeF()))
    chart.setTitleFont(font)
    chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
    chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
    chart.setMargins(QMargins(4, 4, 4, 4))
    return chart


def _bar_set(label: str, values: list[int], colour: str) -> QBarSet:
    bar = QBarSet(label)
    bar.append([float(v) for v in values])
    bar.setColor(QColor(colour))
    bar.setBorderColor(QColor(colour))
    return bar


def permits_chart(data: DashboardData) -> QChart:
    chart = _chart("Permissões e autorizações por serviço e situação")
    series = QBarSeries()
    for state in STATES:
        series.append(_bar_set(state.label, [data.permits[s][state] for s in ServiceType], STATE_COLOURS[state]))
    series.setLabelsVisible(True)
    chart.addSeries(series)
    axis_x = QBarCategoryAxis()
    axis_x.append([s.label for s in ServiceType])
    chart.addAxis(axis_x, Qt.AlignmentFlag.AlignBottom)
    series.attachAxis(axis_x)
    axis_y = _int_axis(max((v for counts in data.permits.values() for v in counts.values()), default=0))
    chart.addAxis(axis_y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(axis_y)
    return _readable(chart)


def quota_chart(data: DashboardData) -> QChart:
    q = data.quota
    population = format_int(q.population)
    chart = _chart(f"Mototáxi em vigor × vagas (Art. 10, I) – {population} hab. (IBGE {q.population_year})")
    series = QBarSeries()
    series.append(_bar_set("Vagas (1 por 2.000 habitantes)", [q.quota], "#1565c0"))
    series.append(_bar_set("Em vigor", [q.in_force], "#2e7d32"))
    series.append(_bar_set("Vagas abertas", [q.open_places], "#9e9e9e"))
    if q.excess:
        series.append(_bar_set("Acima das vagas", [q.excess], "#c62828"))
    series.setLabelsVisible(True)
    chart.addSeries(series)
    axis_x = QBarCategoryAxis()
    axis_x.append(["Mototáxi"])
    chart.addAxis(axis_x, Qt.AlignmentFlag.AlignBottom)
    series.attachAxis(axis_x)
    axis_y = _int_axis(max(q.quota, q.in_force))
    chart.addAxis(axis_y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(axis_y)
    return _readable(chart)


def deadlines_chart(data: DashboardData) -> QChart:
    chart = _chart(f"Prazos deste mês ({data.today:%m/%Y}): vencidos e a vencer")
    kinds = sorted(set(data.deadlines_this_month) | set(data.overdue), key=lambda k: SHORT_KIND_LABELS[k])
    series = QHorizontalStackedBarSeries()
    series.append(_bar_set("Vencidos", [data.overdue.get(k, 0) for k in kinds], "#c62828"))
    series.append(_bar_set("A vencer neste mês", [data.deadlines_this_month.get(k, 0) for k in kinds], "#ef6c00"))
    series.setLabelsVisible(True)
    chart.addSeries(series)
    axis_y = QBarCategoryAxis()
    axis_y.append([SHORT_KIND_LABELS[k] for k in kinds] or ["Nenhum prazo"])
    chart.addAxis(axis_y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(axis_y)
    top = max((data.overdue.get(k, 0) + data.deadlines_this_month.get(k, 0) for k in kinds), default=0)
    axis_x = _int_axis(top)
    chart.addAxis(axis_x, Qt.AlignmentFlag.AlignBottom)
    series.attachAxis(axis_x)
    return _readable(chart)


def infractions_chart(data: DashboardData) -> QChart:
    chart = _chart("Autos de infração em 12 meses: grupos do Art. 33 e Art. 32")
    series = QStackedBarSeries()
    for group in (1, 2, 3, 4, 0):
        series.append(_bar_set(short_group_label(group), list(data.infractions[group]), GROUP_COLOURS[group]))
    chart.addSeries(series)
    axis_x = QBarCategoryAxis()
    axis_x.append(list(data.months))
    axis_x.setLabelsAngle(-45)  # twelve "mmm/aa" labels side by side would not fit
    axis_x.setTruncateLabels(False)
    chart.addAxis(axis_x, Qt.AlignmentFlag.AlignBottom)
    series.attachAxis(axis_x)
    totals = [sum(counts[i] for counts in data.infractions.values()) for i in range(len(data.months))]
    axis_y = _int_axis(max(totals, default=0))
    chart.addAxis(axis_y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(axis_y)
    return _readable(chart)


class DashboardWidget(QWidget):
    """The four charts, a line of figures, "Atualizar" and "Imprimir"."""

    loaded = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, today: date | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.today = today
        self.data: DashboardData | None = None
        self._generation = 0

        self.refresh_button = push_button("At&ualizar", "refresh", self.refresh)
        self.print_button = push_button("&Imprimir…", "print", self.print_dashboard)
        self.print_button.setEnabled(False)

        # What is printed: the heading, the figures and the charts.
        self.sheet = QWidget()
        self.sheet.setObjectName("sheet")
        self.sheet.setStyleSheet("#sheet { background: white; }")
        self.heading = QLabel("Painel — carregando…")
        self.heading.setObjectName("heading")
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.figures = QLabel()
        self.figures.setObjectName("figures")
        self.figures.setWordWrap(True)
        # The yearly re-registration campaign (Art. 4º, § 1º): hidden before the first one.
        self.campaign_label = QLabel()
        self.campaign_label.setObjectName("campaign_label")
        self.campaign_label.setTextFormat(Qt.TextFormat.RichText)
        self.campaign_bar = QProgressBar()
        self.campaign_bar.setObjectName("campaign_bar")
        self.campaign_bar.setFormat("%v de %m compareceram")
        self.campaign_bar.setMinimumWidth(280)
        campaign_row = QHBoxLayout()
        campaign_row.addWidget(self.campaign_label, 1)
        campaign_row.addWidget(self.campaign_bar)
        self.campaign_label.hide()
        self.campaign_bar.hide()
        self.views: list[QChartView] = []
        grid = QGridLayout()
        for i in range(4):
            view = QChartView()
            view.setObjectName(f"chart_{i}")
            view.setRenderHint(QPainter.RenderHint.Antialiasing)
            view.setMinimumSize(380, 220)
            self.views.append(view)
            grid.addWidget(view, i // 2, i % 2)
        sheet_layout = QVBoxLayout(self.sheet)
        sheet_layout.addWidget(self.heading)
        sheet_layout.addWidget(self.figures)
        sheet_layout.addLayout(campaign_row)
        sheet_layout.addLayout(grid, 1)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.print_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.sheet, 1)
        self.refresh()

        follow_changes(self, self.refresh)  # a change anywhere: reload now if seen, else when next shown

    def refresh(self) -> None:
        """Load the figures off the GUI thread; of loads that overlap, only the newest is shown."""
        self._generation += 1
        generation = self._generation
        self.refresh_button.setEnabled(False)

        def loaded(data: DashboardData) -> None:
            if isValid(self) and generation == self._generation:
                self.show_data(data)

        ServiceOp(self, lambda: dashboard(self.ctx, self.today), lock=False, title="Painel") \
            .success(loaded).failure(self._failed).finally_(lambda: self._done(generation)).run()

    def _done(self, generation: int) -> None:
        if isValid(self) and generation == self._generation:
            self.refresh_button.setEnabled(True)

    def _failed(self, exc: BaseException) -> bool:
        if isValid(self):
            self.heading.setText("<h3>Painel</h3>Não foi possível carregar os números.")
        return not isValid(self)  # shown by ServiceOp (in pt_BR), unless the dashboard is gone

    def show_data(self, data: DashboardData) -> None:
        if not isValid(self):
            return  # closed while the work ran
        self.data = data
        self.refresh_button.setEnabled(True)
        self.print_button.setEnabled(True)
        self.heading.setText(f"<h3 style='margin:0'>Painel da SESTRAN – permissões de mototáxi, motoboy e "
                             f"moto-frete</h3>Situação em {format_datetime(data.generated_at)}, por "
                             f"{self.ctx.user.full_name}.")
        in_force = {s: data.in_force(s) for s in ServiceType}
        overdue = sum(data.overdue.values())
        due = sum(data.deadlines_this_month.values())
        parts = [f"Em vigor (ativas e suspensas): {in_force[ServiceType.MOTOTAXI]} mototáxi (de {data.quota.quota} vagas), "
                 f"{in_force[ServiceType.MOTOBOY]} motoboy, {in_force[ServiceType.MOTOFRETE]} moto-frete",
                 f"prazos: {overdue} vencido{'s' if overdue != 1 else ''} e {due} a vencer até o fim do mês",
                 f"autos de infração em 12 meses: {data.infractions_total}"]
        self.figures.setText(" · ".join(parts) + ".")
        self._show_campaign(data)
        for view, chart in zip(self.views, (permits_chart(data), quota_chart(data), deadlines_chart(data),
                                            infractions_chart(data)), strict=True):
            old = view.chart()
            view.setChart(chart)
            if old is not None and old is not chart:
                old.deleteLater()
        self.loaded.emit()

    def _show_campaign(self, data: DashboardData) -> None:
        p = data.campaign
        self.campaign_label.setVisible(p is not None)
        self.campaign_bar.setVisible(p is not None)
        if p is None:
            return
        c = p.campaign
        state = "aberto" if c.is_open else "encerrado"
        self.campaign_label.setText(
            f"<b>Recadastramento</b> de {format_date(c.period_start)} a {format_date(c.period_end)} ({state}): "
            f"{p.scheduled} agendados · compareceram {p.attended} · faltaram {p.missed} · pendentes {p.pending}"
            + (f" · hoje {p.today}" if c.is_open else ""))
        self.campaign_bar.setMaximum(max(1, p.scheduled))
        self.campaign_bar.setValue(p.attended)  # who came: an absence concludes nothing

    def pdf_bytes(self) -> bytes:
        """The dashboard on one landscape A4 page (vector charts)."""
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = QPdfWriter(buffer)
        writer.setTitle("Painel da SESTRAN")
        writer.setCreator("MotoDesk")
        writer.setResolution(300)
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Landscape,
                                         QMarginsF(10, 10, 10, 10), QPageLayout.Unit.Millimeter))
        painter = QPainter(writer)
        try:
            page = writer.pageLayout().paintRectPixels(writer.resolution())
            size = self.sheet.size()
            scale = min(page.width() / max(1, size.width()), page.height() / max(1, size.height()))
            painter.scale(scale, scale)
            self.sheet.render(painter, QPoint(0, 0))
        finally:
            painter.end()
        buffer.close()
        return bytes(data.data())

    def print_dashboard(self) -> None:
        if self.data is None:
            return
        title = f"Painel da SESTRAN {format_date(self.data.today)}"
        preview_pdf(self, self.pdf_bytes(), title)
