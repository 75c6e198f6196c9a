"""The deputy dialog as a clerk uses it from the "Permissões" page: choose the person, see his verdicts,
attach the nomination, keep the schedule, print it, end the link; and the verification screen telling an
inspector whose badge it is (Art. 11)."""

from __future__ import annotations

from datetime import date, time, timedelta
from pathlib import Path

import pytest
from permit_factory import add_person, make_dossier, requirement_count  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFileDialog, QPushButton, QTimeEdit
from tests_helpers import SCREENSHOTS, drain_events  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.periods import add_years
from motodesk.services import badges, badges_printing, deputies, permits
from motodesk.services.badges import BadgeRequest
from motodesk.services.context import AppContext
from motodesk.services.deputies import Shift
from motodesk.services.search import PersonHit
from motodesk.ui import deputy_dialog, ops, person_picker
from motodesk.ui.app import create_application
from motodesk.ui.badge_verify import BadgeVerifyDialog
from motodesk.ui.deputy_dialog import DeputyDialog, EndInput, NominateDialog
from motodesk.ui.screens import permits as permits_screen
from motodesk.ui.screens.permits import PermitsPage

TODAY = date.today()

NOMINATION = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


def _issued(ctx: AppContext, supervisor: AppContext, name: str = "Tomás Ribeiro Gonçalves") -> permits.IssuedPermit:
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name=name, photo_seed=2)
    return permits.issue(supervisor, dossier.application_id)


def _deputy(ctx: AppContext, name: str = "Paulo Henrique Nunes", *, age_days: int | None = None) -> PersonHit:
    with ctx.write() as s:
        person, _ = add_person(s, TODAY, name=name, photo_seed=9)
        if age_days is not None:  # a young deputy, licensed at 18
            person.birth_date = TODAY - timedelta(days=age_days)
            for doc in person.documents:
                if doc.kind.value == "cnh":
                    doc.reference_date = add_years(person.birth_date, 18)
        return PersonHit(person.id, person.full_name, person.cpf)


def _show(qtbot, widget):  # noqa: ANN001, ANN202
    create_application()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(deputy_dialog, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    monkeypatch.setattr(ops, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    return shown


@pytest.fixture
def nomination_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "indicacao-preposto.pdf"
    path.write_bytes(NOMINATION)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    return path


def _nominate_through_the_dialog(qtbot, monkeypatch, hit: PersonHit, wait_ops):  # noqa: ANN001, ANN202
    """ask_nomination, driven like a clerk: choose the person, attach the scan, click Indicar."""
    seen: list[NominateDialog] = []

    def drive(ctx: AppContext, permit, parent):  # noqa: ANN001, ANN202
        dialog = _show(qtbot, NominateDialog(ctx, permit, parent))
        seen.append(dialog)
        monkeypatch.setattr(person_picker, "pick", lambda _picker: hit)
        qtbot.mouseClick(dialog.choose_button, Qt.MouseButton.LeftButton)
        wait_ops()
        qtbot.mouseClick(dialog.attach_button, Qt.MouseButton.LeftButton)
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        wait_ops()
        return dialog.nominated

    monkeypatch.setattr(deputy_dialog, "ask_nomination", drive)
    return seen


def test_the_permits_page_opens_the_deputy_dialog_of_the_selected_permit(qtbot, qtmodeltester, monkeypatch,  # noqa: ANN001
                                                                         ctx: AppContext, clerk: AppContext,
                                                                         supervisor: AppContext, wait_ops) -> None:
    issued = _issued(ctx, supervisor)
    page = _show(qtbot, PermitsPage(clerk))
    wait_ops()
    tab = page.permits_tab
    qtmodeltester.check(tab.model)
    assert not tab.deputy_button.isEnabled()
    assert tab.select("permit", issued.id)
    assert tab.deputy_button.isEnabled()
    opened: list[int] = []
    monkeypatch.setattr(deputy_dialog, "open_deputy_dialog", lambda _ctx, permit_id, _parent: opened.append(permit_id))
    qtbot.mouseClick(tab.deputy_button, Qt.MouseButton.LeftButton)
    assert opened == [issued.id]
    assert permits_screen.PermitsTab is type(tab)


def test_a_clerk_nominates_keeps_the_schedule_prints_it_and_ends_the_link(
        qtbot, qtmodeltester, monkeypatch, ctx: AppContext, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        errors: list[str], nomination_file: Path, wait_ops) -> None:
    issued = _issued(ctx, supervisor)
    hit = _deputy(ctx)
    dialog = _show(qtbot, DeputyDialog(clerk, issued.id))
    wait_ops()
    assert dialog.windowTitle() == f"Preposto – {issued.number}"
    dialog.resize(900, 760)
    qtmodeltester.check(dialog.history_model)
    qtmodeltester.check(dialog.schedule.table.model())
    assert "Nenhum preposto vinculado" in dialog.current_label.text()
    assert dialog.nominate_button.isEnabled() and not dialog.end_button.isEnabled()
    assert not dialog.schedule.add_button.isEnabled() and not dialog.badge_button.isEnabled()

    seen = _nominate_through_the_dialog(qtbot, monkeypatch, hit, wait_ops)
    qtbot.mouseClick(dialog.nominate_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert errors == []
    nominate = seen[0]
    assert nominate.summary.text() == "Todas as exigências atendidas."
    assert nominate.verdict_list.count() == requirement_count(ServiceType.MOTOTAXI, deputy=True) and "indicacao-preposto.pdf" in nominate.file_label.text()
    assert "Paulo Henrique Nunes" in dialog.current_label.text()
    assert "indicacao-preposto.pdf" in dialog.current_label.text()
    assert "Preposto indicado" in dialog.status.text()
    assert dialog.end_button.isEnabled() and dialog.badge_button.isEnabled()
    assert not dialog.nominate_button.isEnabled()

    # The schedule: a clash between holder and deputy is refused, with Art. 11.
    editor = dialog.schedule
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)  # segunda 08:00–12:00, titular
    row = editor.add_shift()
    editor.table.cellWidget(row, 3).setCurrentIndex(1)  # preposto, same hours
    qtbot.mouseClick(dialog.save_schedule_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert len(errors) == 1 and "Art. 11" in errors[0]
    start = editor.table.cellWidget(row, 1)
    end = editor.table.cellWidget(row, 2)
    assert isinstance(start, QTimeEdit) and isinstance(end, QTimeEdit)
    start.setTime(start.time().fromString("13:00", "HH:mm"))
    end.setTime(end.time().fromString("19:30", "HH:mm"))
    day = editor.table.cellWidget(row, 0)
    assert isinstance(day, QComboBox) and day.currentText() == "Segunda-feira"
    editor.add_shift(Shift(5, time(7), time(13), "preposto"))
    editor.add_shift(Shift(2, time(6), time(14), "titular"))
    assert editor.totals.text() == "Por semana: titular 12h · preposto 12h30"
    qtbot.mouseClick(dialog.save_schedule_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert len(errors) == 1, errors
    assert "Escala registrada" in dialog.status.text()
    saved = deputies.current_deputy(clerk, issued.id)
    assert [(s.weekday, s.driver) for s in saved.schedule] == [(0, "titular"), (0, "preposto"), (2, "titular"),
                                                               (5, "preposto")]
    qtmodeltester.check(editor.table.model())
    drain_events()  # let the layout take the new texts
    dialog.grab().save(str(SCREENSHOTS / "deputy_dialog.png"))

    shown: list[tuple[bytes, str]] = []
    monkeypatch.setattr(deputy_dialog, "preview_pdf", lambda _parent, pdf, title: shown.append((pdf, title)))
    qtbot.mouseClick(dialog.print_schedule_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert shown and shown[0][0].startswith(b"%PDF") and shown[0][1] == f"Escala de trabalho {issued.number}"
    qtbot.mouseClick(dialog.nomination_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert shown[1][0] == NOMINATION

    # The end of the link: its date, the deregistration deadline, the badge dead.
    monkeypatch.setattr(deputy_dialog, "ask_end", lambda _d, _p: EndInput(TODAY, "Fim do contrato de trabalho"))
    qtbot.mouseClick(dialog.end_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert errors == [errors[0]]
    assert "encerrado em" in dialog.status.text() and "Art. 31, Grupo 1, I" in dialog.status.text()
    assert "Nenhum preposto vinculado" in dialog.current_label.text()
    assert dialog.history_model.rowCount() == 1
    past = dialog.history_model.row_at(0)
    assert (past.end_on, past.end_reason) == (TODAY, "Fim do contrato de trabalho")
    assert dialog.nominate_button.isEnabled() and not dialog.schedule.add_button.isEnabled()


def test_a_deputy_of_20_is_shown_not_met_and_refused(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                     supervisor: AppContext, errors: list[str],
                                                     nomination_file: Path, wait_ops) -> None:
    issued = _issued(ctx, supervisor)
    young = _deputy(ctx, "Jovem Aprendiz Souza", age_days=21 * 365 - 30)
    permit = permits.get_row(clerk, "permit", issued.id)
    dialog = _show(qtbot, NominateDialog(clerk, permit))
    assert not dialog.ok_button.isEnabled()
    dialog.set_person(young)
    wait_ops()
    refused = [dialog.verdict_list.item(i).text() for i in range(dialog.verdict_list.count())
               if dialog.verdict_list.item(i).text().startswith("✘")]
    assert len(refused) == 1 and "o preposto tem 20 anos" in refused[0]
    assert "1 exigência(s) não atendida(s)" in dialog.summary.text()
    qtbot.mouseClick(dialog.attach_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert len(errors) == 1 and "Art. 14, § 2º" in errors[0] and "20 anos" in errors[0]
    assert dialog.nominated is None and dialog.isVisible()
    assert deputies.current_deputy(clerk, issued.id) is None
    dialog.done(0)  # closed without the unsaved question (the person and the file are typed changes)


def test_esc_with_a_typed_change_asks_before_closing(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                     supervisor: AppContext, wait_ops) -> None:
    from motodesk.ui import guard
    from motodesk.ui.guard import Answer

    issued = _issued(ctx, supervisor)
    deputies.nominate_deputy(clerk, issued.id, _deputy(ctx).person_id, (NOMINATION, "indicacao.pdf"))
    asked: list[str] = []
    answers = [Answer.CANCEL, Answer.DISCARD]
    monkeypatch.setattr(guard, "ask_unsaved", lambda parent, *_a: asked.append(parent.objectName()) or answers.pop(0))

    # The end of the link: a reason typed, Esc asks; Cancelar keeps the form, Descartar closes it.
    current = deputies.current_deputy(clerk, issued.id)
    end = _show(qtbot, deputy_dialog.EndLinkDialog(current))
    qtbot.keyClick(end, Qt.Key.Key_Escape)
    assert asked == [] and not end.isVisible()  # nothing typed: Esc just closes
    end = _show(qtbot, deputy_dialog.EndLinkDialog(current))
    qtbot.keyClicks(end.reason, "Fim do contrato")
    qtbot.keyClick(end, Qt.Key.Key_Escape)
    assert asked == ["end_link"] and end.isVisible() and end.reason.toPlainText() == "Fim do contrato"
    qtbot.keyClick(end, Qt.Key.Key_Escape)
    assert asked == ["end_link", "end_link"] and not end.isVisible()

    # The deputy dialog: an unsaved schedule; Salvar saves it and closes.
    dialog = _show(qtbot, DeputyDialog(clerk, issued.id))
    wait_ops()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert len(asked) == 2 and not dialog.isVisible()
    dialog = _show(qtbot, DeputyDialog(clerk, issued.id))
    wait_ops()
    qtbot.mouseClick(dialog.schedule.add_button, Qt.MouseButton.LeftButton)
    answers.append(Answer.SAVE)
    qtbot.mouseClick(dialog.findChild(QPushButton, "close"), Qt.MouseButton.LeftButton)
    wait_ops()
    assert asked[2:] == ["deputy_dialog"] and not dialog.isVisible()
    assert deputies.current_deputy(clerk, issued.id).schedule == [Shift(0, time(8), time(12), "titular")]


def test_the_inspector_sees_whose_badge_it_is(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                              supervisor: AppContext, inspector: AppContext) -> None:
    issued = _issued(ctx, supervisor)
    nominated = deputies.nominate_deputy(clerk, issued.id, _deputy(ctx).person_id, (NOMINATION, "indicacao.pdf"))
    tokens: list[str] = []
    real = badges_printing._render
    monkeypatch.setattr(badges_printing, "_render", lambda planned, *a: tokens.extend(p.data.token for p in planned)
                        or real(planned, *a))
    badges.print_badges(clerk, [BadgeRequest(issued.id), BadgeRequest(issued.id, deputy=True)])
    holder_token, deputy_token = tokens

    dialog = _show(qtbot, BadgeVerifyDialog(inspector))
    for token, role in ((holder_token, "Titular"), (deputy_token, "Preposto de Tomás Ribeiro Gonçalves")):
        dialog.scan.clear()
        qtbot.keyClicks(dialog.scan, token)
        with qtbot.waitSignal(dialog.verified):  # the check runs off the GUI thread
            qtbot.keyClick(dialog.scan, Qt.Key.Key_Return)
        assert dialog.verdict.text() == "CRACHÁ VÁLIDO"
        assert dialog.bearer_role.text() == role
    assert dialog.name.text() == "Paulo Henrique Nunes"
    assert not dialog.photo.pixmap().isNull()
    dialog.grab().save(str(SCREENSHOTS / "badge_deputy_verify.png"))

    deputies.end_deputy_link(clerk, nominated.link_id, TODAY, "Fim do contrato")
    dialog.scan.clear()
    qtbot.keyClicks(dialog.scan, deputy_token)
    with qtbot.waitSignal(dialog.verified):
        qtbot.keyClick(dialog.scan, Qt.Key.Key_Return)
    assert dialog.verdict.text() == "PREPOSTO DESVINCULADO"
    assert "Art. 14" in dialog.message.text() and dialog.bearer_role.text() == "Preposto de Tomás Ribeiro Gonçalves"


def test_the_person_picker_finds_as_the_clerk_types(qtbot, qtmodeltester, ctx: AppContext, clerk: AppContext) -> None:  # noqa: ANN001
    _deputy(ctx, "Paulo Henrique Nunes")
    _deputy(ctx, "Paula Regina Lopes")
    picker = _show(qtbot, person_picker.people_picker(clerk, "Escolher o preposto"))
    qtmodeltester.check(picker.model)
    assert not picker.buttons.button(picker.buttons.StandardButton.Ok).isEnabled()
    qtbot.keyClicks(picker.query, "paul")
    qtbot.waitUntil(lambda: picker.model.rowCount() == 2)
    qtbot.keyClicks(picker.query, "o h")
    qtbot.waitUntil(lambda: picker.model.rowCount() == 1)
    qtbot.keyClick(picker.query, Qt.Key.Key_Return)
    assert picker.chosen is not None and picker.chosen.full_name == "Paulo Henrique Nunes"
    assert picker.result() == picker.DialogCode.Accepted


def test_the_deputy_badge_is_printed_from_the_dialog(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                     supervisor: AppContext, wait_ops) -> None:
    from motodesk.ui.badge_print import BadgePrintDialog

    issued = _issued(ctx, supervisor)
    deputies.nominate_deputy(clerk, issued.id, _deputy(ctx).person_id, (NOMINATION, "indicacao.pdf"))
    dialog = _show(qtbot, DeputyDialog(clerk, issued.id))
    wait_ops()
    assert "crachá do preposto: não impresso" in dialog.current_label.text()
    printed: list[object] = []

    def print_now(self: BadgePrintDialog) -> int:
        assert self.deputy.isChecked() and not self.deputy.isEnabled()  # always the deputy's badge here
        self._sign(printed.append)  # signed off the GUI thread: the dialog waits for it as exec() would
        qtbot.waitUntil(lambda: bool(printed))
        return 1

    monkeypatch.setattr(BadgePrintDialog, "exec", print_now)
    qtbot.mouseClick(dialog.badge_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert [b.holder_kind for b in printed[0].badges] == ["preposto"]  # type: ignore[attr-defined]
    assert "crachá do preposto: 1ª via" in dialog.current_label.text()
    assert badges.print_log(clerk, issued.id)[0].holder_kind == "preposto"
