"""The "Organizações" page as a clerk and a supervisor use it: an invalid CNPJ marked and refused, an
organisation registered, holders joining and leaving (always allowed), the members exported."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from openpyxl import load_workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFileDialog
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import organisations, permits
from motodesk.services.context import AppContext
from motodesk.services.organisations import OrganisationInput, OrganisationKind
from motodesk.services.search import PersonHit
from motodesk.ui import ops, person_picker, widgets
from motodesk.ui.app import create_application
from motodesk.ui.screens import organisations as screen
from motodesk.ui.screens.organisations import OrganisationDialog, OrganisationsPage
from motodesk.ui.widgets import field_error

TODAY = date.today()


def _page(qtbot, qtmodeltester, ctx: AppContext, wait_ops) -> OrganisationsPage:  # noqa: ANN001
    create_application()
    page = OrganisationsPage(ctx)
    qtbot.addWidget(page)
    page.resize(1200, 760)
    page.show()
    qtbot.waitExposed(page)
    wait_ops()
    wait_ops()  # the members of the first organisation
    qtmodeltester.check(page.model)
    qtmodeltester.check(page.members_model)
    return page


def _holder(ctx: AppContext, supervisor: AppContext, name: str,
            service: ServiceType = ServiceType.MOTOBOY) -> PersonHit:
    dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name)
    permits.issue(supervisor, dossier.application_id)
    return PersonHit(dossier.person_id, name, dossier.cpf)


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(screen, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    monkeypatch.setattr(ops, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    monkeypatch.setattr(ops, "show_unexpected", lambda _parent, details: shown.append(details))
    return shown


def test_an_invalid_cnpj_is_marked_and_refused_then_the_organisation_is_registered(
        qtbot, qtmodeltester, monkeypatch, clerk: AppContext, errors: list[str], wait_ops) -> None:  # noqa: ANN001
    page = _page(qtbot, qtmodeltester, clerk, wait_ops)
    assert page.model.rowCount() == 0 and not page.export_button.isVisible()
    forms: list[OrganisationDialog] = []

    def fill_and_save(dialog: QDialog) -> bool:
        assert isinstance(dialog, OrganisationDialog)
        forms.append(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.kind.setCurrentIndex(list(OrganisationKind).index(OrganisationKind.COOPERATIVE))
        dialog.name.setText("Cooperativa dos Mototaxistas de Patrocínio")  # QTest types ASCII only
        qtbot.keyClicks(dialog.cnpj, "11.222.333/0001-82")  # last digit wrong
        assert "dígitos verificadores" in (field_error(dialog.cnpj) or "")
        qtbot.keyClicks(dialog.address, "Rua Governador Valadares, 455, Centro")
        qtbot.keyClicks(dialog.phone, "(34) 3831-2020")
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        wait_ops()
        assert dialog.saved is None and dialog.isVisible()  # refused: what was typed stays
        assert "dígitos verificadores" in (field_error(dialog.cnpj) or "")
        dialog.cnpj.clear()
        qtbot.keyClicks(dialog.cnpj, "11222333000181")
        assert dialog.cnpj.text() == "11.222.333/0001-81" and field_error(dialog.cnpj) is None
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        wait_ops()
        return dialog.result() == QDialog.DialogCode.Accepted

    monkeypatch.setattr(widgets, "run_dialog", fill_and_save)
    qtbot.mouseClick(page.new_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert errors == []  # the refusal was on the field itself, not in a message box
    assert page.model.rowCount() == 1
    row = page.model.row_at(0)
    assert (row.name, row.cnpj_formatted, row.kind.label) == ("Cooperativa dos Mototaxistas de Patrocínio",
                                                             "11.222.333/0001-81", "Cooperativa")
    assert "cadastrada" in page.status.text()


def test_holders_join_and_leave_and_the_supervisor_exports_the_members(
        qtbot, qtmodeltester, monkeypatch, ctx: AppContext, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        errors: list[str], tmp_path: Path, wait_ops) -> None:
    coop = organisations.save_organisation(clerk, OrganisationInput(
        OrganisationKind.COOPERATIVE, "Cooperativa dos Mototaxistas de Patrocínio", "11.222.333/0001-81",
        "Rua Governador Valadares, 455, Centro", "(34) 3831-2020", "contato@coopmoto.org.br", "Maria Aparecida"))
    organisations.save_organisation(clerk, OrganisationInput(
        OrganisationKind.ASSOCIATION, "Associação dos Motoboys e Motofretistas", "11.444.777/0001-61",
        "Av. Dom José André Coimbra, 1020", "(34) 99811-3030", None, "José Carlos"))
    ana = _holder(ctx, supervisor, "Ana Beatriz Costa", ServiceType.MOTOTAXI)
    bruno = _holder(ctx, supervisor, "Bruno Henrique Dias")
    carla = _holder(ctx, supervisor, "Carla Mendes Rocha", ServiceType.MOTOFRETE)

    page = _page(qtbot, qtmodeltester, clerk, wait_ops)
    assert [r.name for r in page.model.rows()] == ["Associação dos Motoboys e Motofretistas",
                                                   "Cooperativa dos Mototaxistas de Patrocínio"]
    page.table.selectRow(1)
    wait_ops()
    assert "Filiados de Cooperativa" in page.members_title.text() and not page.leave_button.isEnabled()

    monkeypatch.setattr(widgets, "run_dialog", lambda _dialog: True)  # the date: today
    for hit in (ana, bruno, carla):
        monkeypatch.setattr(person_picker, "pick", lambda _picker, hit=hit: hit)
        qtbot.mouseClick(page.join_button, Qt.MouseButton.LeftButton)
        wait_ops()
        wait_ops()
    assert errors == []
    assert [m.name for m in page.members_model.rows()] == ["Ana Beatriz Costa", "Bruno Henrique Dias",
                                                           "Carla Mendes Rocha"]
    assert page.model.row_at(1).members == 3
    monkeypatch.setattr(person_picker, "pick", lambda _picker: ana)
    qtbot.mouseClick(page.join_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert len(errors) == 1 and "já é filiado(a)" in errors[0]

    # Bruno leaves (Art. 9º, § 3º): never refused.
    wait_ops()
    page.members_table.selectRow(1)
    assert page.leave_button.isEnabled()
    qtbot.mouseClick(page.leave_button, Qt.MouseButton.LeftButton)
    wait_ops()
    wait_ops()
    assert "Saída de Bruno Henrique Dias registrada" in page.status.text()
    assert [m.name for m in page.members_model.rows()] == ["Ana Beatriz Costa", "Carla Mendes Rocha"]
    page.former.setChecked(True)
    wait_ops()
    qtmodeltester.check(page.members_model)
    assert [(m.name, m.left_on) for m in page.members_model.rows()][-1] == ("Bruno Henrique Dias", TODAY)
    page.grab().save(str(SCREENSHOTS / "organisations.png"))

    # The supervisor exports, off the GUI thread.
    boss = _page(qtbot, qtmodeltester, supervisor, wait_ops)
    boss.table.selectRow(1)
    wait_ops()
    assert boss.export_button.isVisible() and boss.export_button.isEnabled()
    target = tmp_path / "filiados"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    qtbot.mouseClick(boss.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "exportada" in boss.status.text(), timeout=10_000)
    assert "3 filiação(ões) exportada(s)" in boss.status.text()
    rows = list(load_workbook(tmp_path / "filiados.xlsx").active.iter_rows(values_only=True))[2:]
    assert [(r[3], r[8] is None) for r in rows] == [("Ana Beatriz Costa", True), ("Carla Mendes Rocha", True),
                                                    ("Bruno Henrique Dias", False)]
    assert coop.cnpj_formatted in {r[2] for r in rows}


def test_the_main_window_builds_the_page_when_it_is_first_shown(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import MainWindow

    create_application()
    window = MainWindow(clerk)
    qtbot.addWidget(window)
    assert not window.page_by_key.is_built("organisations")
    page = window.show_section("organisations")
    assert isinstance(page, OrganisationsPage) and window.page_by_key.is_built("organisations")
