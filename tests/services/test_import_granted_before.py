"""Issue 24, "the import of the existing register", on SQLite and PostgreSQL: the import records permits
granted *before* — original number and issue date kept, marked as imported from the register with its
source line — refuses a permit dated today or later, and judges today's facts of every imported permit
with the same facts and rules as every act, listing each non-conformity per holder."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Permit, PermitEvent
from motodesk.rules.common import PermitState
from motodesk.services import facts, permits
from motodesk.services.context import AppContext
from motodesk.services.errors import RuleViolationError
from motodesk.services.imports import Outcome, apply_import, preview_import, render_summary

sys.path.insert(0, str(Path(__file__).parent))
from test_imports import TODAY, register, row  # type: ignore[import-not-found]  # noqa: E402


def test_a_permit_dated_today_or_later_is_not_imported(clerk: AppContext, tmp_path: Path) -> None:
    path = register(tmp_path / "cadastro.xlsx", [
        row(valid_cpf(), "Hoje Emitida", "HJE1A23", permit_number=f"MB-0101/{TODAY.year}", issued_on=TODAY),
        row(valid_cpf(), "Amanhã Emitida", "AMN1A23", permit_number=f"MB-0102/{TODAY.year}",
            issued_on=TODAY + timedelta(days=1)),
    ])
    preview = preview_import(clerk, path)
    assert [line.outcome for line in preview.lines] == [Outcome.REFUSED, Outcome.REFUSED]
    today_line = preview.lines[0]
    assert any(e.startswith(f"Art. 6º: a permissão MB-0101/{TODAY.year} tem emissão em") and
               "outorgadas antes de hoje" in e for e in today_line.errors), today_line.errors
    assert preview.lines[1].errors  # a date in the future is refused by the sheet's own reading


def test_an_imported_permit_keeps_its_dates_is_marked_and_its_facts_are_judged_today(
        clerk: AppContext, ctx: AppContext, tmp_path: Path) -> None:
    issued = TODAY - timedelta(days=400)
    good_cpf = valid_cpf()
    path = register(tmp_path / "cadastro.xlsx", [
        row(good_cpf, "Antiga Titular", "ANT1A23", permit_number=f"MB-0201/{issued.year}", issued_on=issued),
    ])
    summary = apply_import(clerk, preview_import(clerk, path))
    assert summary.permits == 1
    with ctx.read() as s:
        permit = s.scalar(select(Permit).where(Permit.number == f"MB-0201/{issued.year}"))
        assert permit is not None
        assert (permit.issued_on, permit.state, permit.application_id) == (issued, PermitState.ACTIVE, None)
        event = s.scalar(select(PermitEvent).where(PermitEvent.permit_id == permit.id))
        assert event is not None and event.transition == "import"
        assert event.reason == f"Importada da planilha {path.name}, linha 2."
        loaded = facts.permit_facts(s, permit.id)
    assert loaded.imported and loaded.issued_on == issued and loaded.granted_person_id is None

    # The sheet holds no medical or criminal certificates, no CRLV nor inspection: today's facts do not
    # hold, and the summary lists each article for the holder instead of accepting the permit silently.
    [(holder, number, messages)] = summary.findings
    assert (holder, number) == ("Antiga Titular", f"MB-0201/{issued.year}")
    articles = {m.split(":", 1)[0] for m in messages}
    assert {"Art. 5º, VII e § 2º", "Art. 5º, XI", "Art. 5º, § 6º; Art. 23"} <= articles
    assert "Não conformidades de hoje (1 titular)" in render_summary(summary)
    assert "Antiga Titular — MB-0201/" in render_summary(summary)

    # the same facts refuse its documents: the import granted nothing the law has not judged
    try:
        permits.registration_certificate_pdf(clerk, loaded.permit_id)
    except RuleViolationError as refused:
        assert {v.message for v in refused.verdicts} == set(messages)
    else:
        raise AssertionError("an imported permit with non-conformities printed its certificate")
