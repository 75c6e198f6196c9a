"""Issue 24, "the import of the existing register", on SQLite and PostgreSQL: every non-conformity the
import lists per holder is also pending on the holder's dossier — the permit in force judged on today's
facts by the same rules, each item with its article — and recording the fact that clears it clears it."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Person
from motodesk.rules.dossier import DocumentKind
from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.imports import apply_import, preview_import

sys.path.insert(0, str(Path(__file__).parent))
from test_imports import TODAY, register, row  # type: ignore[import-not-found]  # noqa: E402

CNH = "Art. 5º, II"


def _articles(pending: list[people.PermitPending]) -> set[str]:
    return {v.message.split(":", 1)[0] for p in pending for v in p.verdicts}


def test_the_import_findings_are_pending_on_the_dossier_until_the_fact_is_recorded(
        clerk: AppContext, ctx: AppContext, tmp_path: Path) -> None:
    # Imported a month ago, when its CNH was still valid; it expired five days ago.
    then = TODAY - timedelta(days=30)
    issued = TODAY - timedelta(days=400)
    number = f"MB-0301/{issued.year}"
    path = register(tmp_path / "cadastro.xlsx", [
        row(valid_cpf(), "Vencida Titular", "VNC1A23", permit_number=number, issued_on=issued,
            cnh_expiry=TODAY - timedelta(days=5)),
    ])
    summary = apply_import(clerk, preview_import(clerk, path, today=then), today=then)
    assert summary.permits == 1
    with ctx.read() as s:
        person_id = s.scalar(select(Person.id).where(Person.full_name == "Vencida Titular"))
    assert person_id is not None

    # On the import's day the report listed the CNH's missing EAR; today the dossier lists the same
    # items and, judged on today's facts, the expiry too — each with its article.
    [(_, reported_number, reported)] = summary.findings
    assert reported_number == number
    assert not any("venceu" in m for m in reported)
    [pending] = people.permit_pending(clerk, person_id)
    assert (pending.number, pending.imported) == (number, True)
    messages = {v.message for v in pending.verdicts}
    expired = f"a CNH venceu em {TODAY - timedelta(days=5):%d/%m/%Y}"
    [cnh_item] = [v for v in pending.verdicts if expired in v.message]
    assert cnh_item.article == CNH and cnh_item.message.startswith(f"{CNH}: ")
    unchanged = {m for m in reported if not m.startswith(CNH)}
    assert unchanged and unchanged <= messages  # the medical and criminal certificates, the CRLV…
    assert {"Art. 5º, VII e § 2º", "Art. 5º, XI"} <= _articles([pending])

    # Recording a valid CNH (with its EAR) clears that item, and only that one.
    cnh = people.get_dossier(clerk, person_id).document(DocumentKind.CNH)
    cnh.valid_until, cnh.flag = TODAY + timedelta(days=900), True
    people.save_document(clerk, person_id, cnh)
    [after] = people.permit_pending(clerk, person_id)
    assert CNH not in _articles([after])
    assert {v.message for v in after.verdicts} == messages - {cnh_item.message}


def test_a_person_without_a_permit_in_force_has_nothing_of_a_permit_pending(clerk: AppContext, ctx: AppContext, tmp_path: Path) -> None:
    path = register(tmp_path / "cadastro.xlsx", [row(valid_cpf(), "Sem Permissão Titular")])
    apply_import(clerk, preview_import(clerk, path))
    with ctx.read() as s:
        person_id = s.scalar(select(Person.id).where(Person.full_name == "Sem Permissão Titular"))
    assert person_id is not None
    assert people.permit_pending(clerk, person_id) == []  # no permit in force: nothing of a permit pending
