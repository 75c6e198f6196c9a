"""The Relatórios page: exports behind a progress dialog that can cancel (no file left), the import
dialog (report per line, nothing written until confirmed, all or nothing, no duplicates), the template."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import openpyxl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QPushButton
from reports_factory import fill_register, holder, register_row  # type: ignore[import-not-found]
from sqlalchemy import func, select
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    fits_screen,
    missing_access_keys,
    valid_cpf,
)

from motodesk.models import Person
from motodesk.services import reports as reports_service
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.imports import Outcome
from motodesk.ui.app import create_application
from motodesk.ui.changes import change_bus
from motodesk.ui.import_dialog import ImportDialog
from motodesk.ui.screens.reports import ReportsPage

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "planilhas"
    folder.mkdir()
    return folder


def _page(qtbot, who: AppContext) -> ReportsPage:  # noqa: ANN001
    page = ReportsPage(who)
    qtbot.addWidget(page)
    page.resize(1200, 760)
    page.show()
    qtbot.waitExposed(page)
    if page.dashboard is not None:
        qtbot.waitUntil(lambda: page.dashboard.data is not None, timeout=20_000)
    return page


def _save_as(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), "Planilha do Excel (*.xlsx)"))


def _people(ctx: AppContext) -> int:
    with ctx.read() as s:
        return int(s.scalar(select(func.count(Person.id))) or 0)


def test_export_from_the_page(qtbot, monkeypatch: pytest.MonkeyPatch, supervisor: AppContext, out_dir: Path) -> None:  # noqa: ANN001
    holder(supervisor, '=HYPERLINK("http://x","y")')
    page = _page(qtbot, supervisor)
    assert [page.tabs.tabText(i).replace("&", "") for i in range(page.tabs.count())] == ["Planilhas", "Importação", "Painel"]
    _save_as(monkeypatch, out_dir / "permissoes")  # typed without the extension
    qtbot.mouseClick(page.exports.buttons["permits"], LEFT)
    qtbot.waitUntil(lambda: page.exports.status.text().startswith("Planilha gravada"), timeout=20_000)
    assert page.exports.status.text() == f"Planilha gravada: {out_dir / 'permissoes.xlsx'} (1 linha)."
    ws = openpyxl.load_workbook(out_dir / "permissoes.xlsx").worksheets[0]
    assert ws["A2"].value == "Número" and ws["C3"].value == "'=HYPERLINK(\"http://x\",\"y\")"
    assert all(b.isEnabled() for b in page.exports.buttons.values())


def test_cancel_mid_export_leaves_no_file(qtbot, monkeypatch: pytest.MonkeyPatch, supervisor: AppContext,
                                          out_dir: Path) -> None:  # noqa: ANN001
    for n in range(3):
        holder(supervisor, f"Pessoa Número {n} Silva")
    real = reports_service.export
    writing = threading.Event()
    pressed = threading.Event()

    def export_waiting_for_the_clerk(ctx, kind, path, progress=None, cancel=None, **kw):  # noqa: ANN001, ANN202
        def asked() -> bool:  # the first time the writer asks, the clerk has just pressed "Cancelar"
            writing.set()
            pressed.wait(10)
            return cancel()

        return real(ctx, kind, path, progress, asked, **kw)

    monkeypatch.setattr(reports_service, "export", export_waiting_for_the_clerk)
    page = _page(qtbot, supervisor)
    target = out_dir / "pessoas.xlsx"
    _save_as(monkeypatch, target)
    qtbot.mouseClick(page.exports.buttons["people"], LEFT)
    progress = page.exports._export_progress
    assert isinstance(progress, QProgressDialog) and progress.isVisible()
    assert progress.labelText().startswith("Exportando “Pessoas”")
    qtbot.waitUntil(writing.is_set, timeout=10_000)
    cancel_button = progress.findChild(QPushButton)
    assert cancel_button.text().replace("&", "") == "Cancelar"
    qtbot.mouseClick(cancel_button, LEFT)
    pressed.set()
    qtbot.waitUntil(lambda: "cancelada" in page.exports.status.text(), timeout=20_000)
    assert page.exports.status.text() == "Exportação cancelada; nenhum arquivo foi gravado."
    assert list(out_dir.iterdir()) == []  # neither the file nor a temporary one
    assert all(b.isEnabled() for b in page.exports.buttons.values())


def test_roles_on_the_page(qtbot, clerk: AppContext, inspector: AppContext) -> None:  # noqa: ANN001
    page = _page(qtbot, clerk)
    assert page.tabs.count() == 2 and page.tabs.currentWidget() is page.imports
    assert not any(b.isEnabled() for b in page.exports.buttons.values())
    assert page.imports.import_button.isEnabled()
    look = _page(qtbot, inspector)
    assert not look.imports.import_button.isEnabled() and look.imports.template_button.isEnabled()


def test_template_from_the_page(qtbot, monkeypatch: pytest.MonkeyPatch, clerk: AppContext, out_dir: Path) -> None:  # noqa: ANN001
    page = _page(qtbot, clerk)
    _save_as(monkeypatch, out_dir / "modelo.xlsx")
    qtbot.mouseClick(page.imports.template_button, LEFT)
    wb = openpyxl.load_workbook(out_dir / "modelo.xlsx")
    assert wb.sheetnames == ["Cadastro", "Instruções"] and wb["Cadastro"]["A1"].value == "Nome completo"
    assert "Modelo gravado" in page.imports.status.text()


def _dialog(qtbot, who: AppContext) -> ImportDialog:  # noqa: ANN001
    dialog = ImportDialog(who)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _choose(qtbot, monkeypatch: pytest.MonkeyPatch, dialog: ImportDialog, path: Path) -> None:  # noqa: ANN001
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "Planilha do Excel (*.xlsx)"))
    with qtbot.waitSignal(dialog.previewed, timeout=20_000):
        qtbot.mouseClick(dialog.choose_button, LEFT)


def test_import_dialog_report_confirm_and_reimport(qtbot, qtmodeltester, monkeypatch: pytest.MonkeyPatch,
                                                   clerk: AppContext, out_dir: Path, backend: str) -> None:  # noqa: ANN001
    today = local_today()
    good = valid_cpf()
    path = fill_register(out_dir / "cadastro.xlsx", [
        register_row(good, "Marta Lúcia Ferreira", "QWE4R56", permit_number=f"MB-0901/{today.year}",
                     issued_on=today - timedelta(days=3)),
        register_row(valid_cpf(), "Otávio Menor Teixeira", birth_date=today.replace(year=today.year - 18)),
        register_row("12345678900", "Sem Documento Válido"),
        register_row(valid_cpf(), "Paula Sem Categoria", cnh_categories="B"),
    ])
    before = _people(clerk)
    dialog = _dialog(qtbot, clerk)
    assert not dialog.confirm_button.isEnabled()
    _choose(qtbot, monkeypatch, dialog, path)
    qtmodeltester.check(dialog.model)
    outcomes = [r.outcome for r in dialog.model.rows()]
    assert outcomes == [Outcome.NEW, Outcome.REFUSED, Outcome.REFUSED, Outcome.REFUSED]
    status = [c.key for c in dialog.model.columns].index("status")
    reason = [c.key for c in dialog.model.columns].index("reason")
    assert dialog.model.index(0, status).data() == "✚ será incluída"
    assert dialog.model.index(1, status).data() == "✖ recusada"
    assert "Art. 5º, I" in dialog.model.index(1, reason).data()
    assert "CPF" in dialog.model.index(2, reason).data()
    assert "categoria A" in dialog.model.index(3, reason).data()
    assert dialog.model.index(1, status).data(Qt.ItemDataRole.ForegroundRole).name() == "#b00020"
    assert "4 linhas lidas — 1 nova, 0 atualizações, 0 sem alterações, 3 recusadas" in dialog.summary_label.text()
    assert dialog.confirm_button.isEnabled() and dialog.confirm_button.text() == "C&onfirmar importação (1 linha)"
    assert _people(clerk) == before  # nothing yet

    dialog.show_filter.setCurrentIndex(dialog.show_filter.findData("refused"))
    assert dialog.model.rowCount() == 3
    dialog.show_filter.setCurrentIndex(0)
    if backend == "sqlite":  # one picture is enough
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        dialog.resize(1180, 420)
        dialog.path.setText("C:/Users/sestran/Documentos/cadastro-mototaxistas.xlsx")
        drain_events()
        dialog.grab().save(str(SCREENSHOTS / "import_report.png"))

    asked: list[str] = []

    def answer_no(_parent, _title, text, *a, **k):  # noqa: ANN001, ANN202
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", answer_no)
    qtbot.mouseClick(dialog.confirm_button, LEFT)
    assert "Gravar 1 linha da planilha cadastro.xlsx?" in asked[0] and "3 linhas recusadas" in asked[0]
    assert _people(clerk) == before  # the clerk said no

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    changes: list[str] = []
    change_bus().changed.connect(changes.append)
    with qtbot.waitSignal(dialog.imported, timeout=20_000):
        qtbot.mouseClick(dialog.confirm_button, LEFT)
    assert _people(clerk) == before + 1
    assert changes == ["*"]  # every built page (people, vehicles, permits) shows what went in
    assert "Importação concluída: 1 pessoa incluída" in dialog.summary_label.text()
    assert not dialog.confirm_button.isEnabled()
    assert dialog.model.index(0, status).data() == "✚ será incluída" or dialog.model.rows()[0].outcome is Outcome.NEW

    again = _dialog(qtbot, clerk)
    _choose(qtbot, monkeypatch, again, path)
    assert again.model.rows()[0].outcome is Outcome.UNCHANGED
    assert again.model.index(0, status).data() == "= já existe, sem alterações"
    assert not again.confirm_button.isEnabled()
    assert _people(clerk) == before + 1


def test_import_dialog_bad_file(qtbot, monkeypatch: pytest.MonkeyPatch, clerk: AppContext, out_dir: Path) -> None:  # noqa: ANN001
    bad = out_dir / "cadastro.xlsx"
    bad.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    dialog = _dialog(qtbot, clerk)
    _choose(qtbot, monkeypatch, dialog, bad)
    assert "Arquivo recusado; nada foi importado." in dialog.summary_label.text()
    assert "PDF" in dialog.summary_label.text()
    assert dialog.model.rowCount() == 0 and not dialog.confirm_button.isEnabled()


def test_the_exports_tab_shows_every_spreadsheet_apart_from_the_public_ones_and_the_last_result(
        qtbot, supervisor: AppContext, backend: str) -> None:  # noqa: ANN001
    """What the screenshot shows, asserted: a button per spreadsheet (enabled, with its own access
    key), the transparency files in their own box, the last result, all within the counter's screen."""
    page = _page(qtbot, supervisor)
    page.tabs.setCurrentWidget(page.exports)
    page.exports.status.setText("Planilha gravada: C:/Users/sestran/Documentos/permissoes-2026-03-02.xlsx "
                                "(1.248 linhas).")
    buttons = page.exports.buttons
    assert list(buttons) == [k.key for k in reports_service.EXPORTERS]
    assert all(b.isVisible() and b.isEnabled() for b in buttons.values())
    keys = [b.text().lower().split("&", 1)[1][0] for b in buttons.values()]
    assert len(set(keys)) == len(keys), keys  # each reachable with its own Alt+letter
    boxes = {k.key: buttons[k.key].parentWidget().title() for k in reports_service.EXPORTERS}
    assert {k for k, title in boxes.items() if "transparência" in title} == {
        k.key for k in reports_service.EXPORTERS if k.public}
    assert page.exports.status.isVisible() and "1.248 linhas" in page.exports.status.text()
    assert fits_screen(page) == [] and missing_access_keys(page.exports) == []
    if backend == "sqlite":  # one picture is enough
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.grab().save(str(SCREENSHOTS / "reports.png"))
