"""The Prazos page driven like the counter uses it: windows, filters, a row opens the dossier, the
renewal letters for the rows shown, the spreadsheet of the rows shown."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import openpyxl
import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFileDialog
from reports_factory import holder, notice  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS, drain_events  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.screens import deadlines as screen
from motodesk.ui.screens.deadlines import DeadlinesPage

TODAY = local_today()


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


class PeoplePageStub:
    """What the main window's people page offers: it opens (and tracks) dossier windows."""

    def __init__(self) -> None:
        self.opened: list[int] = []

    def open_dossier(self, person_id: int) -> None:
        self.opened.append(person_id)


def _page(qtbot, who: AppContext, people: PeoplePageStub | None = None) -> DeadlinesPage:  # noqa: ANN001
    main = SimpleNamespace(page_by_key={"people": people or PeoplePageStub()})
    page = DeadlinesPage(who, main)  # type: ignore[arg-type]
    qtbot.addWidget(page)
    page.resize(1280, 640)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.show()
    qtbot.waitExposed(page)
    return page


def _reload(qtbot, page: DeadlinesPage, action) -> None:  # noqa: ANN001
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        action()


def _cells(page: DeadlinesPage, column: str) -> list[str]:
    col = [c.key for c in page.model.columns].index(column)
    return [page.model.index(r, col).data() for r in range(page.model.rowCount())]


def test_a_medical_certificate_due_in_10_days_is_listed(qtbot, qtmodeltester, clerk: AppContext) -> None:  # noqa: ANN001
    r = holder(clerk, "Maria Aparecida Silva", medical_issued=TODAY + timedelta(days=10) - timedelta(days=365))
    people = PeoplePageStub()
    page = _page(qtbot, clerk, people)
    qtmodeltester.check(page.model)
    assert page.window_buttons.checkedId() == 30
    assert page.model.rowCount() == 1
    assert _cells(page, "obligation") == ["Renovação do atestado médico"]
    assert _cells(page, "days_left") == ["Faltam 10 dias"]
    assert _cells(page, "due") == [(TODAY + timedelta(days=10)).strftime("%d/%m/%Y")]
    assert _cells(page, "person") == ["Maria Aparecida Silva"]
    assert _cells(page, "article") == ["Art. 5º, VII e § 2º"]
    assert page.status.text() == "1 prazo de 1 pessoa — 0 vencidos, 1 nos próximos 30 dias"

    # Enter on the row, and a double-click, open the dossier through the people page.
    page.table.setFocus()
    page.table.selectRow(0)
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    rect = page.table.visualRect(page.model.index(0, 5))
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # press, then double
    qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert people.opened == [r.holder.person_id, r.holder.person_id]

    _reload(qtbot, page, lambda: qtbot.mouseClick(page.window_buttons.button(0), Qt.MouseButton.LeftButton))
    assert page.model.rowCount() == 0 and page.status.text() == "Nenhum prazo vencido."


def test_windows_and_filters(qtbot, qtmodeltester, clerk: AppContext) -> None:  # noqa: ANN001
    holder(clerk, "Ana Beatriz Costa", ServiceType.MOTOTAXI, medical_issued=TODAY - timedelta(days=300))  # 65 d
    holder(clerk, "Bruno Henrique Dias", ServiceType.MOTOBOY, medical_issued=TODAY - timedelta(days=400),
           cnh_valid_until=TODAY + timedelta(days=20))
    page = _page(qtbot, clerk)
    assert sorted(_cells(page, "person")) == ["Bruno Henrique Dias", "Bruno Henrique Dias"]
    assert page.status.text() == "2 prazos de 1 pessoa — 1 vencido, 1 nos próximos 30 dias"
    red = page.model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole)
    assert red is not None and red.name() == "#b00020"  # the overdue one comes first, in red
    _reload(qtbot, page, lambda: qtbot.mouseClick(page.window_buttons.button(90), Qt.MouseButton.LeftButton))
    assert sorted(_cells(page, "person")) == ["Ana Beatriz Costa", "Bruno Henrique Dias", "Bruno Henrique Dias"]
    qtmodeltester.check(page.model)
    _reload(qtbot, page, lambda: page.service.setCurrentIndex(page.service.findData(ServiceType.MOTOTAXI)))
    assert _cells(page, "person") == ["Ana Beatriz Costa"]
    _reload(qtbot, page, lambda: page.service.setCurrentIndex(0))
    _reload(qtbot, page, lambda: page.kind.setCurrentIndex(page.kind.findData(DeadlineKind.CNH)))
    assert _cells(page, "obligation") == ["Validade da CNH"]
    _reload(qtbot, page, lambda: page.kind.setCurrentIndex(0))
    _reload(qtbot, page, lambda: qtbot.keyClicks(page.person, "costa"))
    assert _cells(page, "person") == ["Ana Beatriz Costa"]
    _reload(qtbot, page, lambda: qtbot.mouseClick(page.window_buttons.button(0), Qt.MouseButton.LeftButton))
    assert page.model.rowCount() == 0
    page.person.clear()
    qtbot.waitSignal(page.loaded, timeout=10_000).wait()
    assert [(r.person_name, r.kind) for r in page.model.rows()] == [("Bruno Henrique Dias", DeadlineKind.MEDICAL)]


def test_renewal_letters_for_the_rows_shown(qtbot, monkeypatch: pytest.MonkeyPatch, clerk: AppContext) -> None:  # noqa: ANN001
    holder(clerk, "Carla Mendes Rocha", medical_issued=TODAY - timedelta(days=360))
    holder(clerk, "Davi Reis Campos", ServiceType.MOTOTAXI, medical_issued=TODAY - timedelta(days=370))
    shown: list[tuple[str, bytes]] = []
    monkeypatch.setattr(screen, "preview_pdf", lambda _parent, pdf, title: shown.append((title, pdf)))

    class Driven(screen.RenewalDialog):  # the clerk fills the campaign and presses "Gerar cartas"
        def exec(self) -> int:
            self.show()
            qtbot.keyClicks(self.portaria, "Portaria SESTRAN 12/2026")
            self.accept()
            return int(QDialog.DialogCode.Accepted)

    monkeypatch.setattr(screen, "RenewalDialog", Driven)
    page = _page(qtbot, clerk)
    assert page.model.rowCount() == 2
    with qtbot.waitSignal(page.letters_done, timeout=20_000) as signal:
        qtbot.mouseClick(page.letters_button, Qt.MouseButton.LeftButton)
    assert signal.args == [2]
    assert shown[0][0] == "Cartas de renovação"
    reader = PdfReader(io.BytesIO(shown[0][1]))
    assert len(reader.pages) == 2
    text = " ".join(p.extract_text() for p in reader.pages)
    assert "Carla Mendes Rocha" in text and "Davi Reis Campos" in text and "Portaria SESTRAN 12/2026" in text
    assert page.status.text() == "2 cartas de renovação geradas."


def test_roles_and_the_spreadsheet_of_the_rows_shown(qtbot, monkeypatch: pytest.MonkeyPatch, inspector: AppContext,
                                                     supervisor: AppContext, tmp_path: Path) -> None:  # noqa: ANN001
    r = holder(supervisor, "Elisa Ramos Prado", medical_issued=TODAY - timedelta(days=360))
    notice(supervisor, r.holder, 7, decided=False, notified_on=TODAY - timedelta(days=3),
           defence_due=TODAY + timedelta(days=12))
    look = _page(qtbot, inspector)
    assert look.model.rowCount() == 2
    assert not look.letters_button.isEnabled() and not look.export_button.isEnabled()

    page = _page(qtbot, supervisor)
    out = tmp_path / "prazos"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "Planilha do Excel (*.xlsx)"))
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.status.text().startswith("Planilha gravada"), timeout=20_000)
    ws = openpyxl.load_workbook(tmp_path / "prazos.xlsx").worksheets[0]
    rows = list(ws.iter_rows(min_row=3, values_only=True))
    assert sorted(row[2].split(" (")[0] for row in rows) == ["Prazo de defesa", "Renovação do atestado médico"]
    assert all(row[6] == "Elisa Ramos Prado" for row in rows)


def test_screenshot(qtbot, clerk: AppContext, backend: str) -> None:  # noqa: ANN001
    names = [("Maria Aparecida Souza", ServiceType.MOTOTAXI, 400), ("José Carlos Ferreira", ServiceType.MOTOBOY, 358),
             ("Antônio Marcos Vieira", ServiceType.MOTOFRETE, 350), ("Luciana Prado Rocha", ServiceType.MOTOBOY, 340)]
    for name, service, medical_age in names:
        holder(clerk, name, service, medical_issued=TODAY - timedelta(days=medical_age),
               cnh_valid_until=TODAY + timedelta(days=medical_age - 330))
    page = _page(qtbot, clerk)
    assert page.model.rowCount() == 7  # the overdue medical certificate, six falling due within 30 days
    page.table.selectRow(0)
    if backend == "sqlite":  # one picture is enough
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        drain_events()
        page.grab().save(str(SCREENSHOTS / "deadlines.png"))


def test_accidents_reported_late_and_awaiting_inspection_are_shown(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.services import vehicles

    r = holder(clerk, "Célia Acidente Tardio")
    vehicles.record_accident(clerk, r.holder.vehicle_id, TODAY - timedelta(days=12), TODAY - timedelta(days=1), True)
    page = _page(qtbot, clerk)
    _reload(qtbot, page, lambda: page.kind.setCurrentIndex(page.kind.findData(DeadlineKind.ACCIDENT_REPORT)))
    assert _cells(page, "obligation") == ["Comunicação de acidente"]
    assert "comunicado após 5 dias — Art. 31, G2, II" in _cells(page, "detail")[0]
    assert _cells(page, "article") == ["Art. 31, Grupo 2, II"]
    _reload(qtbot, page, lambda: page.kind.setCurrentIndex(page.kind.findData(DeadlineKind.INSPECTION)))
    assert any("documentos bloqueados até a vistoria" in d for d in _cells(page, "detail"))
