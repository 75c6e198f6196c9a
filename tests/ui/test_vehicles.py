"""The vehicle register driven like a clerk: field messages, live verdicts, duplicates and replacement."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from tests_helpers import check_wording, no_button_down, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType, Status
from motodesk.services import people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput
from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp
from motodesk.ui.screens import vehicles as screen
from motodesk.ui.screens.vehicles import VehiclesPage
from motodesk.ui.vehicle_form import VehicleForm

THIS_YEAR = vehicles.local_today().year


@pytest.fixture(autouse=True)
def never_block_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """A form left with typed text must not wait for "Salvar / Descartar / Cancelar" at teardown."""
    from motodesk.ui import guard

    monkeypatch.setattr(guard, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)


@pytest.fixture
def holder(clerk: AppContext) -> tuple[int, str]:
    cpf = valid_cpf()
    return people.save_person(clerk, PersonInput(full_name="Maria Aparecida Souza", cpf=cpf)).id, cpf


def _form(qtbot, ctx: AppContext, **kwargs: int) -> VehicleForm:  # noqa: ANN001
    create_application()
    form = VehicleForm(ctx, **kwargs)
    qtbot.addWidget(form)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the vehicle and its holder read off the GUI thread
    form.show()
    qtbot.waitExposed(form)
    form.activateWindow()  # its access keys (Alt+S) work in the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is form)
    return form


def _type(qtbot, edit: QLineEdit, text: str) -> None:  # noqa: ANN001
    edit.clear()
    if text.isascii():
        qtbot.keyClicks(edit, text)
    else:  # QTest types ASCII only; accented text arrives as from an input method
        edit.insert(text)


def _fill_valid(qtbot, form: VehicleForm, plate: str = "PTC4B83") -> None:  # noqa: ANN001
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # a form opened from the page reads off the GUI thread
    form.service.setCurrentIndex(form.service.findData(ServiceType.MOTOTAXI.value))
    _type(qtbot, form.plate, plate)
    _type(qtbot, form.make, "Honda")
    _type(qtbot, form.model, "CG 160 Titan")
    _type(qtbot, form.year_manufacture, str(THIS_YEAR - 1))
    _type(qtbot, form.year_model, str(THIS_YEAR))
    _type(qtbot, form.engine_cc, "162")
    form.colour.setFocus()
    qtbot.keyClicks(form.colour, "Am")  # a closed list: typing picks the colour
    assert form.colour.currentText() == "Amarela"
    form.category.setCurrentIndex(form.category.findData("aluguel"))
    _type(qtbot, form.crlv_year, str(THIS_YEAR))
    _type(qtbot, form.crlv_municipality, "Patrocínio")
    form.crlv_uf.setFocus()
    qtbot.keyClicks(form.crlv_uf, "MG")
    qtbot.mouseClick(form.copy_holder, Qt.MouseButton.LeftButton)


def _save(qtbot, form: VehicleForm) -> None:  # noqa: ANN001
    """Alt+S, as the clerk saves; the save runs in the background."""
    qtbot.keyPress(form, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)  # an access key "animates" the click: the button fires 100 ms later
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and not form.saving, timeout=10_000)


def _verdict(form: VehicleForm, rule_id: str):  # noqa: ANN202
    return next(v for v in form.verdicts.verdicts() if v.rule_id == rule_id)


def test_bad_input_is_marked_on_its_field_in_portuguese(qtbot, clerk: AppContext,  # noqa: ANN001
                                                        holder: tuple[int, str]) -> None:
    form = _form(qtbot, clerk, holder_id=holder[0])
    assert form.holder_name.text() == "Maria Aparecida Souza" and form.holder_cpf.isReadOnly()
    _fill_valid(qtbot, form)
    assert all(form.field_error(k) is None for k in form.inputs)
    cases = [
        (form.plate, "AB-12345", "plate", "use o formato ABC-1234 ou o formato Mercosul ABC1D23"),
        (form.year_manufacture, "1850", "year_manufacture", "Ano de fabricação impossível: 1850"),
        (form.year_manufacture, str(THIS_YEAR + 3), "year_manufacture", "é posterior a"),
        (form.year_model, "3000", "year_model", "Ano do modelo impossível"),
        (form.engine_cc, "0", "engine_cc", "Cilindrada impossível: 0 cc"),
        (form.engine_cc, "10000", "engine_cc", "Cilindrada impossível para uma motocicleta: 10.000 cc"),
        (form.vin, "9C2KC1670JR5OOIQ1", "vin", "as letras I, O e Q não são usadas"),
    ]
    for edit, text, key, words in cases:
        before = edit.text()
        _type(qtbot, edit, text)
        assert words in (form.field_error(key) or ""), key
        assert words in edit.toolTip()
        _type(qtbot, edit, before)
        assert form.field_error(key) is None
    _type(qtbot, form.engine_cc, "10000")
    _save(qtbot, form)
    assert form.saved_id is None and "10.000 cc" in form.message.text()
    assert vehicles.list_vehicles(clerk) == []


def test_verdicts_follow_the_typing_and_the_vehicle_is_saved(qtbot, clerk: AppContext,  # noqa: ANN001
                                                             holder: tuple[int, str]) -> None:
    form = _form(qtbot, clerk, holder_id=holder[0])
    _fill_valid(qtbot, form)
    assert _verdict(form, "art3_i_engine").ok and _verdict(form, "art3_ii_useful_life").ok
    _type(qtbot, form.engine_cc, "300")
    engine = _verdict(form, "art3_i_engine")
    assert engine.status is Status.NOT_MET and engine.article == "Art. 3º, I"
    check_wording("art3_i_engine", engine.message)
    _type(qtbot, form.year_manufacture, str(THIS_YEAR - 6))
    _type(qtbot, form.year_model, str(THIS_YEAR - 6))
    life = _verdict(form, "art3_ii_useful_life")
    assert life.status is Status.NOT_MET and life.article == "Art. 3º, II"
    shown = [form.verdicts.item(i).text() for i in range(form.verdicts.count())]
    assert any("Art. 3º, I:" in line and "300 cc" in line for line in shown)
    assert any("Art. 3º, II:" in line and "vida útil" in line for line in shown)
    _type(qtbot, form.engine_cc, "162")
    _type(qtbot, form.year_manufacture, str(THIS_YEAR - 1))
    _type(qtbot, form.year_model, str(THIS_YEAR - 1))
    _save(qtbot, form)
    assert form.saved_id is not None, form.message.text()
    saved = vehicles.get_vehicle(clerk, form.saved_id)
    assert saved.data.plate == "PTC4B83" and saved.data.owner_cpf == holder[1]


def test_a_duplicate_active_plate_is_refused_on_the_plate_field(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                holder: tuple[int, str]) -> None:
    other = valid_cpf()
    other_id = people.save_person(clerk, PersonInput(full_name="Pedro Henrique Alves", cpf=other)).id
    vehicles.save_vehicle(clerk, VehicleInput(plate="ABC-1234", holder_id=other_id,
                                              service_type=ServiceType.MOTOBOY))
    form = _form(qtbot, clerk)
    form.holder_cpf.setFocus()
    _type(qtbot, form.holder_cpf, holder[1])
    assert form.holder_cpf.text() == f"{holder[1][:3]}.{holder[1][3:6]}.{holder[1][6:9]}-{holder[1][9:]}"
    qtbot.keyClick(form.holder_cpf, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)
    assert form.holder_name.text() == "Maria Aparecida Souza"
    _fill_valid(qtbot, form, plate="ABC1C34")  # the Mercosul form of ABC-1234
    _save(qtbot, form)
    assert form.saved_id is None
    assert "Já existe um veículo ativo com a placa ABC-1234 de Pedro Henrique Alves" in form.field_error("plate")


def test_required_fields_are_marked_only_after_a_save_attempt(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    form = _form(qtbot, clerk)
    assert form.field_error("holder_id") is None and form.field_error("service_type") is None
    _save(qtbot, form)
    assert "Informe o titular" in form.field_error("holder_id")
    assert "Informe o serviço" in form.field_error("service_type")
    assert form.field_error("plate") == "Informe a placa."


def test_page_lists_authorises_and_replaces(qtbot, qtmodeltester, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                           supervisor: AppContext, inspector: AppContext,
                                           holder: tuple[int, str], wait_ops) -> None:
    create_application()
    hid, cpf = holder
    old = vehicles.save_vehicle(clerk, VehicleInput(
        plate="ABC1234", holder_id=hid, service_type=ServiceType.MOTOTAXI, make="Honda", model="CG 160",
        year_manufacture=THIS_YEAR - 2, year_model=THIS_YEAR - 2, engine_cc=300, colour="Amarela",
        category="aluguel", crlv_year=THIS_YEAR, crlv_municipality="Patrocínio", crlv_uf="MG", owner_cpf=cpf))

    boss = VehiclesPage(supervisor)
    qtbot.addWidget(boss)
    boss.show()
    wait_ops()
    qtmodeltester.check(boss.model)
    qtmodeltester.check(boss.history_model)
    assert boss.model.rowCount() == 1
    boss.table.selectRow(0)
    wait_ops()
    assert any(v.article == "Art. 3º, I" and v.status is Status.NOT_MET for v in boss.verdicts.verdicts())
    assert not boss.replace_button.isEnabled() and boss.authorise_button.isEnabled()
    monkeypatch.setattr(screen.QInputDialog, "getMultiLineText",
                        lambda *a, **k: ("Motor acima de 250 cc: troca por veículo conforme", True))
    qtbot.mouseClick(boss.authorise_button, Qt.MouseButton.LeftButton)
    for _ in range(3):
        wait_ops()
    assert boss.model.row_at(0).status_label == "Ativo – substituição autorizada"

    page = VehiclesPage(clerk)
    qtbot.addWidget(page)
    page.show()
    wait_ops()
    assert not page.authorise_button.isVisible()
    qtbot.keyClicks(page.search, "abc1c34")
    page.reload()
    wait_ops()
    page.table.selectRow(0)
    wait_ops()
    assert page.replace_button.isEnabled()
    forms: list[VehicleForm] = []

    class Replacing(VehicleForm):
        def exec(self) -> int:
            forms.append(self)
            self.show()
            _fill_valid(qtbot, self, plate="QWE2R34")
            self.save()
            qtbot.waitUntil(lambda: ServiceOp.running() == 0 and not self.saving, timeout=10_000)
            return int(self.saved_id is not None)

    monkeypatch.setattr(screen, "VehicleForm", Replacing)
    qtbot.mouseClick(page.replace_button, Qt.MouseButton.LeftButton)
    form = forms[-1]
    assert "Substituição (permuta) do veículo ABC-1234" in form.banner.text() and "Art. 31, Grupo 3, II" in form.banner.text()
    assert form.holder_cpf.isReadOnly() and form.current_service() is ServiceType.MOTOTAXI
    assert form.saved_id is not None, form.message.text()
    page.search.clear()
    page.include_replaced.setChecked(True)
    for _ in range(3):
        wait_ops()
    plates = {page.model.row_at(r).plate: page.model.row_at(r).status_label for r in range(page.model.rowCount())}
    assert plates == {"QWE2R34": "Ativo", "ABC-1234": "Substituído"}

    viewer = _form(qtbot, inspector, vehicle_id=old.id)
    assert "Veículo substituído" in viewer.banner.text() and not viewer.save_button.isVisible()
    assert viewer.plate.isReadOnly()


def test_the_mandatory_insurance_is_typed_and_judged_live(qtbot, clerk: AppContext,  # noqa: ANN001
                                                          holder: tuple[int, str]) -> None:
    form = _form(qtbot, clerk, holder_id=holder[0])
    _fill_valid(qtbot, form)  # "Mesmo do titular" fills the insured too
    assert form.insurance_insured_cpf.text() and form.insurance_insured_name.text() == "Maria Aparecida Souza"
    insurance = _verdict(form, "art5_1_i_insurance")
    assert insurance.status is Status.PENDING
    check_wording("art5_1_i_insurance", insurance.message)
    form.insurance.setFocus()
    qtbot.keyClicks(form.insurance, f"3112{THIS_YEAR + 1}")
    _type(qtbot, form.insurance_number, "SPVAT-123")
    assert _verdict(form, "art5_1_i_insurance").ok
    _type(qtbot, form.insurance_insured_cpf, valid_cpf())
    insurance = _verdict(form, "art5_1_i_insurance")
    assert insurance.status is Status.NOT_MET
    check_wording("art5_1_i_insurance", insurance.message)
    _type(qtbot, form.insurance_insured_cpf, holder[1])
    _save(qtbot, form)
    assert form.saved_id is not None, form.message.text()
    saved = vehicles.get_vehicle(clerk, form.saved_id).data
    assert (saved.insurance_number, saved.insurance_insured_cpf) == ("SPVAT-123", holder[1])
    assert saved.insurance_valid_until is not None and saved.insurance_valid_until.year == THIS_YEAR + 1


@pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Return locks the dialog while it saves
def test_an_accident_is_recorded_from_the_keyboard(qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                                   holder: tuple[int, str], wait_ops) -> None:
    from datetime import timedelta

    from motodesk.ui import accident_dialog

    create_application()
    hid, cpf = holder
    vehicles.save_vehicle(clerk, VehicleInput(
        plate="ACD1234", holder_id=hid, service_type=ServiceType.MOTOBOY, owner_cpf=cpf))
    page = VehiclesPage(clerk)
    qtbot.addWidget(page)
    page.show()
    wait_ops()
    page.table.selectRow(0)
    wait_ops()
    assert page.accident_button.isEnabled()
    shown: list[str] = []
    monkeypatch.setattr(accident_dialog.QMessageBox, "information", lambda _p, _t, text: shown.append(text))
    opened: list[accident_dialog.AccidentDialog] = []

    def drive(dialog: accident_dialog.AccidentDialog) -> int:
        opened.append(dialog)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        happened = vehicles.local_today() - timedelta(days=9)
        dialog.happened_on.setFocus()
        qtbot.keyClicks(dialog.happened_on, happened.strftime("%d%m%Y"))
        qtbot.keyClick(dialog.happened_on, Qt.Key.Key_Tab)
        qtbot.keyClick(dialog.reported_on, Qt.Key.Key_Tab)
        qtbot.keyClick(dialog.safety, Qt.Key.Key_Space)
        qtbot.keyClicks(dialog.description, "Colisao traseira")
        qtbot.keyClick(dialog.description, Qt.Key.Key_Return)  # the default button: Registrar
        wait_ops()
        return int(dialog.result())

    monkeypatch.setattr(accident_dialog.AccidentDialog, "exec", drive)
    qtbot.mouseClick(page.accident_button, Qt.MouseButton.LeftButton)
    for _ in range(3):
        wait_ops()
    recorded = opened[0].recorded
    assert recorded is not None and recorded.accident.safety_compromised and recorded.accident.late_report
    assert any("comunicado após 5 dias — Art. 31, G2, II" in text for text in shown)
    assert "comunicado após 5 dias" in page.accidents.text() and "documentos bloqueados" in page.accidents.text()
