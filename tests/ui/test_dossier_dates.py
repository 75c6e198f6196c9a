"""Issue 30, item 5: the date field of a dossier loaded from the database takes typing at once — the
date it shows is replaced by what is typed, without first giving the field the focus (or selecting)."""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QPoint, Qt
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.dossier import DocumentKind
from motodesk.services import people
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.people import DocumentInput, PersonInput
from motodesk.ui.app import create_application
from motodesk.ui.dossier import DossierWindow
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import DateField

TODAY = local_today()


def _loaded(qtbot, clerk: AppContext) -> DossierWindow:  # noqa: ANN001
    saved = people.save_dossier(clerk, PersonInput(full_name="Lúcia Helena Paiva", cpf=valid_cpf(),
                                                   birth_date=date(1980, 2, 3)),
                                [DocumentInput(DocumentKind.MEDICAL, issue_date=TODAY - timedelta(days=200))])
    create_application()
    window = DossierWindow(clerk, saved.person_id)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and window.person_id is not None, timeout=15_000)
    return window


def test_a_loaded_date_is_replaced_by_typing_without_focusing_it_first(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = _loaded(qtbot, clerk)
    window.tabs.setCurrentIndex(1)
    medical = window.documents[DocumentKind.MEDICAL].inputs["issue_date"]
    birth = window.person_inputs["birth_date"]
    assert isinstance(medical, DateField) and medical.value() == TODAY - timedelta(days=200)
    new = TODAY - timedelta(days=3)
    qtbot.keyClicks(medical, new.strftime("%d%m%Y"))  # straight in: no Tab, no click, no selection first
    assert medical.value() == new and medical.text() == new.strftime("%d/%m/%Y")
    assert isinstance(birth, DateField) and birth.value() == date(1980, 2, 3)
    window.tabs.setCurrentIndex(0)
    qtbot.keyClicks(birth, "17051990")
    assert birth.value() == date(1990, 5, 17)
    window._set_base()


def test_a_click_into_a_loaded_date_then_typing_replaces_it(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = _loaded(qtbot, clerk)
    birth = window.person_inputs["birth_date"]
    assert isinstance(birth, DateField)
    qtbot.mouseClick(birth, Qt.MouseButton.LeftButton, pos=QPoint(birth.width() // 2, birth.height() // 2))
    qtbot.waitUntil(birth.hasFocus)
    qtbot.keyClicks(birth, "17051990")
    assert birth.value() == date(1990, 5, 17)
    window._set_base()
