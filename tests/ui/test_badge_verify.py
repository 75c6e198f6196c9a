"""The verification screen as an inspector uses it: a scanner types the QR's text and Enter."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

from motodesk.printing.token import BadgeClaim, cpf_digest, sign_claim
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.settings import DEFAULT_VERIFIER_BASE_URL
from motodesk.services import badges, permits
from motodesk.services.context import AppContext
from motodesk.services.errors import DatabaseUnavailableError
from motodesk.ui import badge_verify
from motodesk.ui.app import create_application
from motodesk.ui.badge_verify import BadgeVerifyDialog

TODAY = date.today()


@pytest.fixture
def printed(ctx: AppContext, supervisor: AppContext) -> tuple[str, int, object]:
    """A mototáxi permit with its first badge printed: (its QR's text -- the verifier page's address with
    the token as its fragment --, permit id, dossier)."""
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name="João Conceição Araújo",
                           photo_seed=4)
    issued = permits.issue(supervisor, dossier.application_id)
    (badge,) = badges.print_badges(supervisor, [issued.id]).badges
    return badge.qr_text, issued.id, dossier


def _dialog(qtbot, ctx: AppContext) -> BadgeVerifyDialog:  # noqa: ANN001
    create_application()
    dialog = BadgeVerifyDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _scan(qtbot, dialog: BadgeVerifyDialog, text: str) -> None:  # noqa: ANN001
    """A USB scanner: the characters, then Enter, into the focused line."""
    dialog.scan.setFocus()
    qtbot.keyClicks(dialog.scan, text)
    _enter(qtbot, dialog)


def _enter(qtbot, dialog: BadgeVerifyDialog) -> None:  # noqa: ANN001
    """Enter, and the verdict, which is read off the GUI thread."""
    with qtbot.waitSignal(dialog.verified):
        qtbot.keyClick(dialog.scan, Qt.Key.Key_Return)


def test_a_scanned_valid_badge_shows_photo_and_name(qtbot, inspector: AppContext, printed) -> None:  # noqa: ANN001
    token, _permit_id, _dossier = printed
    dialog = _dialog(qtbot, inspector)
    _scan(qtbot, dialog, token)
    assert dialog.verdict.text() == "CRACHÁ VÁLIDO"
    assert "#2e7d32" in dialog.verdict.styleSheet()
    assert dialog.name.text() == "João Conceição Araújo"
    assert dialog.photo.pixmap() is not None and not dialog.photo.pixmap().isNull()
    assert "MT-0001" in dialog.details.text() and "Via: 1ª" in dialog.details.text()
    assert dialog.scan.selectedText() == token  # the next scan replaces it
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SCREENSHOTS / "badge_verify_valid.png"))

    # The bare token (a scanner set to send only the fragment, or pasted) verifies the same.
    _scan(qtbot, dialog, token.split("#", 1)[1])
    assert dialog.verdict.text() == "CRACHÁ VÁLIDO"

    # The next scan: a damaged badge typed over the selection.
    _scan(qtbot, dialog, "MD1.JUNK.NOT-A-BADGE")
    assert dialog.verdict.text() == "CRACHÁ FALSIFICADO"
    assert dialog.name.text() == "" and (dialog.photo.pixmap() is None or dialog.photo.pixmap().isNull())
    dialog.grab().save(str(SCREENSHOTS / "badge_verify_forged.png"))

    # Something that is no badge at all: said so, not called a forgery (issue #18, item 11).
    _scan(qtbot, dialog, "https://www.patrocinio.mg.gov.br/")
    assert dialog.verdict.text() == "NÃO É UM CRACHÁ"
    assert "não é um crachá do MotoDesk" in dialog.message.text()
    assert "falsificado" not in dialog.message.text().lower()
    assert dialog.name.text() == "" and dialog.details.text() == ""
    dialog.grab().save(str(SCREENSHOTS / "badge_verify_not_a_badge.png"))


def test_pasted_junk_of_every_kind_is_forged_or_not_a_badge(qtbot, inspector: AppContext,  # noqa: ANN001
                                                            printed) -> None:
    token, _permit_id, _dossier = printed
    dialog = _dialog(qtbot, inspector)
    forged = (token[:-4] + "AAAA", token[:120], "MD1." + "X" * 10_240,
              DEFAULT_VERIFIER_BASE_URL + "#MD1.AAAA.BBBB")
    # Our own signature over a permit the register does not know: the register entry fails, forged too.
    private_pem, _ = badges._key_pair(inspector)
    unknown = sign_claim(BadgeClaim("MT-0999/2020", cpf_digest("52998224725"), TODAY + timedelta(days=90), 1,
                                    "titular"), private_pem)
    dialog.scan.setText(DEFAULT_VERIFIER_BASE_URL + "#" + unknown)
    _enter(qtbot, dialog)
    assert dialog.verdict.text() == "CRACHÁ FALSIFICADO" and "não consta do cadastro" in dialog.message.text()
    for text in forged:  # claims to be a badge; the signature fails
        dialog.scan.setText(text)
        _enter(qtbot, dialog)
        assert dialog.verdict.text() == "CRACHÁ FALSIFICADO", text[:30]
        assert "Crachá falsificado ou ilegível." in dialog.message.text()
    for text in ("X" * 10_240, bytes(range(1, 256)).decode("latin-1"), "7891000100103", DEFAULT_VERIFIER_BASE_URL,
                 DEFAULT_VERIFIER_BASE_URL + "#PREVIA-SEM-VALOR-PREVIA"):
        dialog.scan.setText(text)
        _enter(qtbot, dialog)
        assert dialog.verdict.text() == "NÃO É UM CRACHÁ", text[:30]
        assert "Este código não é um crachá do MotoDesk." in dialog.message.text()
        assert "#455a64" in dialog.verdict.styleSheet()


def test_suspended_and_superseded(qtbot, supervisor: AppContext, printed) -> None:  # noqa: ANN001
    token, permit_id, _dossier = printed
    dialog = _dialog(qtbot, supervisor)
    badges.print_badges(supervisor, [permit_id], reason="Perda")
    _scan(qtbot, dialog, token)
    assert dialog.verdict.text() == "VIA SUBSTITUÍDA" and "em uso: 2ª" in dialog.details.text()
    assert dialog.name.text() == "João Conceição Araújo"  # who it was, without the photo
    assert dialog.photo.pixmap() is None or dialog.photo.pixmap().isNull()
    suspend_through_process(supervisor, permit_id, TODAY + timedelta(days=15))
    dialog.scan.setText(token)
    with qtbot.waitSignal(dialog.verified):
        dialog.verify()
    assert dialog.verdict.text() == "PERMISSÃO SUSPENSA"
    assert f"até {TODAY + timedelta(days=15):%d/%m/%Y}" in dialog.message.text()
    dialog.grab().save(str(SCREENSHOTS / "badge_verify_suspended.png"))


def test_without_the_database_the_public_key_still_answers(qtbot, monkeypatch, inspector: AppContext,  # noqa: ANN001
                                                           printed) -> None:
    token, _permit_id, _dossier = printed
    dialog = _dialog(qtbot, inspector)

    def down(*_a, **_k):  # noqa: ANN002, ANN003, ANN202
        raise DatabaseUnavailableError("Não foi possível conectar ao servidor de banco de dados.")

    monkeypatch.setattr(badge_verify.badges, "verify_badge", down)
    _scan(qtbot, dialog, token)
    assert dialog.verdict.text() == "CRACHÁ VÁLIDO"
    assert "sem o cadastro" in dialog.message.text()
    assert dialog.last is not None and not dialog.last.online


def test_reachable_from_the_menu_and_the_permits_page(qtbot, supervisor: AppContext, printed) -> None:  # noqa: ANN001
    from motodesk.ui.app import build_main_window

    create_application()
    window = build_main_window(supervisor)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.action_collection["verify_badge"].trigger()
    dialog = window.findChild(BadgeVerifyDialog)
    assert dialog is not None and dialog.isVisible()
    assert "Verificar crachá" in [a.text().replace("&", "").rstrip("…") for menu in window.menuBar().actions()
                                  for a in menu.menu().actions()]
    dialog.close()
    page = window.show_section("permits")
    page.permits_tab.verify_button.click()
    assert window.findChild(BadgeVerifyDialog) is dialog and dialog.isVisible()
