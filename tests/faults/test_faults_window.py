"""PostgreSQL going away under an open dossier window: said in pt_BR, the typed data stays in the
form, and the same window saves it once the server is back (no restart, no retyping)."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tcp_proxy import TcpProxy  # type: ignore[import-not-found]
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.services.settings import ensure_defaults
from motodesk.ui.app import create_application
from motodesk.ui.dossier import DossierWindow
from motodesk.ui.ops import ServiceOp


@pytest.mark.slow
@pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Ctrl+S's release reaches a form locked by the save
def test_the_dossier_form_survives_the_server_going_away(qtbot, request: pytest.FixtureRequest,  # noqa: ANN001
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import _truncate_all, user_ctx  # type: ignore[import-not-found]

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(f"{box.text()}\n{box.informativeText()}") or 0)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    base = Database.open(request.getfixturevalue("pg_migrated"))
    _truncate_all(base)
    ensure_defaults(AppContext(base))
    proxy = TcpProxy(base.url.host or "127.0.0.1", base.url.port or 5432)
    db = Database.open(base.url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    clerk = user_ctx(AppContext(db), Role.CLERK)
    try:
        pid = people.save_person(clerk, PersonInput(full_name="Rosa Maria Guimarães", cpf=valid_cpf(),
                                                    birth_date=date(1985, 3, 9), phone="(34) 3000-0000")).id
        create_application()
        window = DossierWindow(clerk, pid)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=30_000)  # the dossier loads off the GUI thread
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        phone = window.person_inputs["phone"]
        phone.selectAll()
        qtbot.keyClicks(phone, "(34) 95555-5555")
        qtbot.keyClicks(window.person_inputs["mother_name"], "Luzia Alves")

        proxy.cut()  # the server goes away with the window open and the changes typed
        qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not window.saving, timeout=30_000)
        assert "Não foi possível conectar ao servidor" in "\n".join(shown)
        assert window.status.text().startswith("Não salvo:")
        assert phone.text() == "(34) 95555-5555" and window.is_dirty()
        assert window.person_inputs["mother_name"].text() == "Luzia Alves"

        proxy.restore()  # the server is back: the same window, the same typed data, one more Ctrl+S
        qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not window.saving, timeout=30_000)
        assert not window.is_dirty()
        stored = people.get_dossier(user_ctx(AppContext(base), Role.CLERK), pid).person
        assert (stored.phone, stored.mother_name) == ("(34) 95555-5555", "Luzia Alves")
        window.close()
    finally:
        proxy.cut()
        db.dispose()
        base.dispose()
