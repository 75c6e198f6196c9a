"""The "Permissões" page driven like a supervisor and a clerk: steps through the buttons, refusals
shown with their article, documents previewed, the tender tab with the quota and the candidates."""

from __future__ import annotations

import io
from datetime import date, timedelta
from pathlib import Path

import pytest
from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from openpyxl import Workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog, QMessageBox
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    settle_gui,
    valid_cpf,
)

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import enforcement, permits
from motodesk.services.context import AppContext
from motodesk.services.settings import update_settings
from motodesk.ui import ops
from motodesk.ui.app import create_application
from motodesk.ui.screens import permits as screen
from motodesk.ui.screens.permits import PermitsPage, StepInput

TODAY = date.today()


def _page(qtbot, qtmodeltester, ctx: AppContext) -> PermitsPage:  # noqa: ANN001
    create_application()
    page = PermitsPage(ctx)
    qtbot.addWidget(page)
    page.resize(1280, 720)
    page.show()
    qtbot.waitExposed(page)
    settle(qtbot)
    for model in (page.permits_tab.model, page.permits_tab.events_model, page.permits_tab.prints_model,
                  page.tender_tab.tender_model, page.tender_tab.candidate_model):
        qtmodeltester.check(model)
    return page


def settle(qtbot) -> None:  # noqa: ANN001
    """Every service call of the page delivered: the write, the reload, then the selected row's detail."""
    settle_gui(qtbot)


def _click(qtbot, button) -> None:  # noqa: ANN001
    assert button.isEnabled(), button.objectName()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settle(qtbot)


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(screen, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    monkeypatch.setattr(ops, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    return shown


def test_supervisor_takes_an_application_to_a_suspended_permit(qtbot, qtmodeltester, monkeypatch,  # noqa: ANN001
                                                              ctx: AppContext, supervisor: AppContext,
                                                              errors: list[str]) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOFRETE, name="Sebastião Moreira Lopes")
    page = _page(qtbot, qtmodeltester, supervisor)
    tab = page.permits_tab
    assert tab.model.rowCount() == 1 and tab.select("application", dossier.application_id)
    assert tab.step_buttons["approve"].isEnabled()
    assert not {"suspend", "reinstate", "revoke"} & set(tab.step_buttons)  # penalties only through a process

    answers = iter([StepInput(decree_number="1.234/2026", decree_date=TODAY - timedelta(days=1))])
    monkeypatch.setattr(screen, "ask_step", lambda *a, **k: next(answers))
    _click(qtbot, tab.step_buttons["approve"])
    assert "aprovado pelo Decreto nº 1.234/2026" in tab.status.text()
    assert tab.selected().state is PermitState.APPROVED

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    _click(qtbot, tab.step_buttons["issue"])
    number = f"MF-0001/{TODAY.year}"
    assert f"Emitida {number}" in tab.status.text()
    row = tab.selected()
    assert row.kind == "permit" and row.number == number and row.state is PermitState.ACTIVE
    qtmodeltester.check(tab.events_model)
    assert [e.transition for e in tab.events_model.rows()] == ["approve", "issue"]
    assert tab.badge_button.isEnabled() and tab.certificate_button.isEnabled()

    # Art. 35: the only cassação of this page, from the court's certificate, typed from the keyboard.
    assert tab.conviction_button.isEnabled()
    final_on = TODAY - timedelta(days=2)

    def fill(dialog: screen.ConvictionDialog) -> None:
        qtbot.keyClicks(dialog.court, "1a Vara Criminal da Comarca de Patrocinio")
        qtbot.keyClick(dialog.court, Qt.Key.Key_Tab)
        qtbot.keyClicks(dialog.case_number, "00012345620248130481")
        dialog.final_on.set_value(final_on)
        qtbot.keyClick(dialog.case_number, Qt.Key.Key_Return)

    def ask(parent, row):  # noqa: ANN001, ANN202 - the real dialog, driven by the keyboard
        dialog = screen.ConvictionDialog(row, parent)
        QTimer.singleShot(0, lambda: fill(dialog))
        return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None

    monkeypatch.setattr(screen, "ask_conviction", ask)
    _click(qtbot, tab.conviction_button)
    assert not errors, errors
    assert tab.selected().state is PermitState.REVOKED and "Art. 35" in tab.status.text()
    last = tab.events_model.rows()[-1]
    assert last.transition == "revoke" and "0001234-56.2024.8.13.0481" in last.reason
    assert f"{final_on:%d/%m/%Y}" in last.reason and not tab.conviction_button.isEnabled()


def test_an_incomplete_conviction_is_refused_with_art_35(qtbot, qtmodeltester, monkeypatch,  # noqa: ANN001
                                                         ctx: AppContext, supervisor: AppContext,
                                                         errors: list[str]) -> None:
    issued = permits.issue(supervisor, make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED,
                                                    name="Ana Clara Rocha").application_id)
    page = _page(qtbot, qtmodeltester, supervisor)
    tab = page.permits_tab
    tab.select("permit", issued.id)
    monkeypatch.setattr(screen, "ask_conviction",
                        lambda *a: enforcement.ConvictionInput("1ª Vara Criminal", "123", None))
    _click(qtbot, tab.conviction_button)
    assert errors and "Art. 35" in errors[-1]
    assert tab.selected().state is PermitState.ACTIVE


def test_refusals_of_the_law_reach_the_screen(qtbot, qtmodeltester, monkeypatch, ctx: AppContext,  # noqa: ANN001
                                              supervisor: AppContext, errors: list[str]) -> None:
    update_settings(ctx, {"population": 1_999})  # no mototáxi place
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name="Sem Vaga Nenhuma")
    page = _page(qtbot, qtmodeltester, supervisor)
    tab = page.permits_tab
    tab.select("application", dossier.application_id)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    _click(qtbot, tab.step_buttons["issue"])
    assert "Art. 10, I" in errors[-1] and "não há vaga de mototáxi" in errors[-1]
    assert tab.selected().state is PermitState.APPROVED


def test_clerk_sees_only_the_steps_of_a_clerk(qtbot, qtmodeltester, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                              supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.REQUESTED)
    issued_dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Ana Clara Rocha")
    issued = permits.issue(supervisor, issued_dossier.application_id)
    page = _page(qtbot, qtmodeltester, clerk)
    tab = page.permits_tab
    tab.select("application", dossier.application_id)
    enabled = {name for name, b in tab.step_buttons.items() if b.isEnabled()}
    assert enabled == {"start_review", "cancel"}
    tab.select("permit", issued.id)
    enabled = {name for name, b in tab.step_buttons.items() if b.isEnabled()}
    assert enabled == {"renew_registration", "cancel"}  # extend: supervisor only
    assert not tab.conviction_button.isEnabled()  # Art. 35 is recorded by a supervisor


def test_filters_and_search(qtbot, qtmodeltester, ctx: AppContext, supervisor: AppContext) -> None:  # noqa: ANN001
    make_dossier(ctx, ServiceType.MOTOBOY, name="Pedro Pereira Pinto")
    issued_dossier = make_dossier(ctx, ServiceType.MOTOFRETE, state=PermitState.APPROVED, name="Quitéria Quintão")
    permits.issue(supervisor, issued_dossier.application_id)
    page = _page(qtbot, qtmodeltester, supervisor)
    tab = page.permits_tab
    assert tab.model.rowCount() == 2
    tab.state_filter.setCurrentIndex(tab.state_filter.findData("in_force"))
    settle(qtbot)
    assert [tab.model.row_at(i).holder for i in range(tab.model.rowCount())] == ["Quitéria Quintão"]
    tab.state_filter.setCurrentIndex(tab.state_filter.findData("all"))
    settle(qtbot)
    qtbot.keyClicks(tab.search, "pedro")
    qtbot.waitUntil(lambda: tab.model.rowCount() == 1)
    assert tab.model.row_at(0).holder == "Pedro Pereira Pinto"
    tab.search.clear()
    tab.service_filter.setCurrentIndex(tab.service_filter.findData("motofrete"))
    settle(qtbot)
    assert tab.model.rowCount() == 1 and tab.model.row_at(0).service is ServiceType.MOTOFRETE
    qtmodeltester.check(tab.model)


def test_documents_open_in_the_preview(qtbot, qtmodeltester, monkeypatch, ctx: AppContext,  # noqa: ANN001
                                       supervisor: AppContext) -> None:
    from motodesk.ui import pdfpreview

    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED)
    issued = permits.issue(supervisor, dossier.application_id)
    page = _page(qtbot, qtmodeltester, supervisor)
    tab = page.permits_tab
    tab.select("permit", issued.id)
    shown: list[tuple[bytes, str]] = []
    monkeypatch.setattr(pdfpreview, "preview_pdf", lambda _p, pdf, title, *a: shown.append((pdf, title)))
    _click(qtbot, tab.certificate_button)
    _click(qtbot, tab.authorization_button)
    assert [t for _pdf, t in shown] == [f"Certificado de Registro Cadastral {issued.number}",
                                        f"Autorização de Trânsito {issued.number}"]
    assert all(pdf.startswith(b"%PDF-") for pdf, _t in shown)


def _sheet(rows: list[list[object]]) -> bytes:
    wb = Workbook()
    wb.active.append(["Classificação", "CPF", "Nome"])
    for row in rows:
        wb.active.append(row)
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def test_tender_tab_quota_import_and_call(qtbot, qtmodeltester, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                          ctx: AppContext, supervisor: AppContext, errors: list[str]) -> None:
    update_settings(ctx, {"population": 89_826, "population_year": 2022})
    page = _page(qtbot, qtmodeltester, supervisor)
    page.tabs.setCurrentIndex(1)
    settle(qtbot)
    tab = page.tender_tab
    labels = {k: v.text() for k, v in tab.quota_labels.items()}
    assert labels == {"population": "89.826", "year": "2022", "quota": "44", "in_force": "0", "open": "44"}

    monkeypatch.setattr(screen, "ask_tender", lambda _p: ("Concorrência 01/2026", "Mototáxi", TODAY - timedelta(days=2)))
    _click(qtbot, tab.new_tender_button)
    assert tab.tender_model.rowCount() == 1 and "Art. 5º, § 2º" in tab.medical.text()

    sheet = tmp_path / "classificacao.xlsx"
    sheet.write_bytes(_sheet([[2, valid_cpf(), "Segundo Colocado Silva"], [1, valid_cpf(), "Primeira Colocada Reis"]]))
    monkeypatch.setattr(screen.QFileDialog, "getOpenFileName", lambda *a, **k: (str(sheet), ""))
    _click(qtbot, tab.import_button)
    assert "2 candidato(s) importado(s)" in tab.status.text()
    qtmodeltester.check(tab.candidate_model)
    assert [c.name for c in tab.candidate_model.rows()] == ["Primeira Colocada Reis", "Segundo Colocado Silva"]

    asked: list[str] = []

    def question(_parent: object, title: str, text: str, _buttons: object = None,
                 default: object = None) -> QMessageBox.StandardButton:
        asked.append(title)
        assert default == QMessageBox.StandardButton.No  # an irreversible step: "Não" is the default
        return QMessageBox.StandardButton.No if len(asked) == 1 else QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    _click(qtbot, tab.call_button)  # "Não": nobody is called
    assert asked == ["Convocar próximo"] and tab.candidate_model.rows()[0].status_label != "Convocado"
    _click(qtbot, tab.call_button)
    assert "Convocado: 1º Primeira Colocada Reis" in tab.status.text()
    assert tab.candidate_model.rows()[0].status_label == "Convocado"

    bad = tmp_path / "ruim.xlsx"
    bad.write_bytes(b"isto nao e planilha")
    monkeypatch.setattr(screen.QFileDialog, "getOpenFileName", lambda *a, **k: (str(bad), ""))
    _click(qtbot, tab.import_button)
    assert "é texto (CSV ou TXT), não uma planilha .xlsx" in errors[-1]

    # The screenshot people look at: the register with permits in several states.
    page.tabs.setCurrentIndex(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shown = _screenshot_data(ctx, supervisor)
    page.permits_tab.reload()
    settle(qtbot)
    assert page.permits_tab.select("permit", shown)
    settle(qtbot)
    drain_events()
    page.grab().save(str(SCREENSHOTS / "permits_page.png"))
    page.tabs.setCurrentIndex(1)
    tab.reload()
    settle(qtbot)
    page.grab().save(str(SCREENSHOTS / "permits_tender_tab.png"))


def _screenshot_data(ctx: AppContext, supervisor: AppContext) -> int:
    """A few permits in several states; returns the id of the one to show selected."""
    from motodesk.services import badges

    names = ["Maria Aparecida Souza", "José Carlos Ferreira", "Antônio Marcos Vieira", "Luciana Prado Rocha"]
    shown = 0
    for i, (name, service) in enumerate(zip(names, (ServiceType.MOTOBOY, ServiceType.MOTOFRETE,
                                                    ServiceType.MOTOBOY, ServiceType.MOTOFRETE), strict=True)):
        dossier = make_dossier(ctx, service, name=name, photo_seed=i)
        permits.approve(supervisor, dossier.application_id, "1.234/2026", TODAY - timedelta(days=3))
        issued = permits.issue(supervisor, dossier.application_id)
        badges.print_badges(supervisor, [issued.id])
        if i == 1:
            badges.print_badges(supervisor, [issued.id], reason="Perda informada pelo titular")
            suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=20))
            shown = issued.id
        if i == 2:
            permits.renew_registration(supervisor, issued.id)
    make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.UNDER_REVIEW, name="Rafael Nogueira Lima")
    return shown


@pytest.mark.parametrize("scale", [1.0, 1.25, 1.5], ids=lambda s: f"{s}x")
def test_the_tender_tabs_buttons_are_whole_at_1366x768(qtbot, supervisor: AppContext, wait_ops,  # noqa: ANN001
                                                       scale: float) -> None:
    """"Licitação e cota" at 1366x768 with its quota warning, a tender and its candidates: every button
    as wide as its text needs and inside the window, not scrolled below its edge (with a larger font
    the candidate buttons were: a word-wrapped label held the whole tab to its preferred height)."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication, QPushButton

    from motodesk.clock import local_today
    from motodesk.services import tenders
    from motodesk.ui.app import build_main_window

    tender = tenders.create_tender(supervisor, "007/2026", description="Edital de mototáxi",
                                   homologated_on=local_today() - timedelta(days=3))
    for rank in (1, 2, 3):
        tenders.add_candidate(supervisor, tender, rank, valid_cpf(), f"Candidata Número {rank} da Silva Santos")
    create_application()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    original = QFont(app.font())
    larger = QFont(original)
    larger.setPointSizeF(original.pointSizeF() * scale)
    app.setFont(larger)
    try:
        window = build_main_window(supervisor)
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        page = window.show_section("permits")
        qtbot.waitUntil(lambda: "permits" not in window.loading, timeout=10_000)
        page.tabs.setCurrentWidget(page.tender_tab)
        wait_ops()
        tab = page.tender_tab
        tab.tender_table.selectRow(0)
        wait_ops()
        tab.candidate_table.selectRow(0)
        tab.quota_warning.setText("Há 3 permissão(ões) acima da cota (a população diminuiu): nenhuma nova será "
                                  "emitida até a cota voltar a ter vaga. O contador (47) difere das permissões "
                                  "em vigor (44): use “Recontar”.")
        wait_ops()
        qtbot.wait(20)
        assert (window.width(), window.height()) == (1366, 768)
        viewport = window.pages.currentWidget().viewport()
        buttons = [b for b in tab.findChildren(QPushButton) if b.isVisible()]
        assert {"add_candidate", "import_candidates", "call_next", "declined", "eliminated"} <= {
            b.objectName() for b in buttons}
        for button in buttons:
            assert button.width() >= button.sizeHint().width(), (button.text(), button.width())
            where = QRect(button.mapTo(viewport, button.rect().topLeft()), button.size())
            assert viewport.rect().contains(where), (button.text(), where, viewport.rect())
    finally:
        app.setFont(original)
