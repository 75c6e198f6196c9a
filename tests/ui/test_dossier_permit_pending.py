"""Issue 24: the dossier of a holder imported from the existing register shows what today's facts do not
vouch for of the permit in force ("Pendências da permissão"), each item with its article."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from PySide6.QtWidgets import QTabWidget
from sqlalchemy import select
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Person
from motodesk.services.context import AppContext
from motodesk.services.imports import apply_import, preview_import

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "services"))
from test_dossier import never_block_on_close, open_window  # type: ignore[import-not-found]  # noqa: E402, F401
from test_imports import TODAY, register, row  # type: ignore[import-not-found]  # noqa: E402


def test_the_dossier_lists_the_imported_permit_pending_items(qtbot, clerk: AppContext,  # noqa: ANN001
                                                              tmp_path: Path) -> None:
    issued = TODAY - timedelta(days=400)
    number = f"MB-0401/{issued.year}"
    path = register(tmp_path / "cadastro.xlsx", [
        row(valid_cpf(), "Pendente Titular", "PND1A23", permit_number=number, issued_on=issued),
        row(valid_cpf(), "Sem Permissão"),
    ])
    apply_import(clerk, preview_import(clerk, path))
    with clerk.read() as s:
        ids = {name: pid for name, pid in s.execute(select(Person.full_name, Person.id))}

    window = open_window(qtbot, clerk, ids["Pendente Titular"])
    label = window.permit_pending_label
    page = label.parentWidget()
    [tabs] = [t for t in window.findChildren(QTabWidget) if t.indexOf(page) >= 0]
    tabs.setCurrentWidget(page)
    assert label.isVisible()
    text = label.text()
    assert text.startswith(f"Pendências da permissão {number} (importada do cadastro anterior):")
    assert "• Art. 5º, VII e § 2º: não há atestado médico do titular Pendente Titular." in text
    assert "• Art. 5º, XI: " in text

    other = open_window(qtbot, clerk, ids["Sem Permissão"])
    assert other.permit_pending_label.isHidden() and other.permit_pending_label.text() == ""
