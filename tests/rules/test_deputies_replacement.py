"""The deputy while the link lasts (Art. 14; Art. 31, Grupo 4, III) and the replacement vehicle
(Art. 31, Grupo 3, II) as pure rules."""

from __future__ import annotations

from tests_helpers import assert_refused  # type: ignore[import-not-found]

from motodesk.rules.common import Status, Verdict
from motodesk.rules.deputies import deputy_requirements, holder_keeps_hours
from motodesk.rules.replacement import documents_wait_for_replacement, new_vehicle_refusals, permit_may_name

MET = Verdict("art3_i_engine", "Art. 3º, I", Status.MET, "ok")
NOT_MET = Verdict("art3_ii_life", "Art. 3º, II", Status.NOT_MET, "Art. 3º, II: vida útil vencida.")
PENDING = Verdict("art5_1_i_crlv", "Art. 5º, § 1º, I", Status.PENDING, "Art. 5º, § 1º, I: pendente.", ("crlv",))


def test_the_holder_must_keep_hours_when_the_deputy_has_some() -> None:
    refusal = holder_keeps_hours(0, 60)
    assert refusal is not None and refusal.status is Status.NOT_MET
    assert refusal.article == "Art. 14 e Art. 31, Grupo 4, III"
    assert holder_keeps_hours(1, 6000) is None
    assert holder_keeps_hours(0, 0) is None  # no schedule yet
    assert holder_keeps_hours(480, 0) is None

OLD_PLATE, NEW_PLATE = "ABC-1234", "QWE2R34"


def test_deputy_requirements_name_the_deputy_and_keep_each_article() -> None:
    found = deputy_requirements([MET, NOT_MET, PENDING], "Paulo Nunes")
    assert [(v.rule_id, v.article, v.status) for v in found] == [
        ("deputy_art3_ii_life", "Art. 3º, II", Status.NOT_MET),
        ("deputy_art5_1_i_crlv", "Art. 5º, § 1º, I", Status.PENDING),
    ]
    assert found[0].message.endswith(NOT_MET.message)  # the deputy it names: tests/rules/test_wording.py
    assert found[1].missing == ("crlv",)
    assert deputy_requirements([MET], "Paulo Nunes") == []


def test_the_new_vehicle_is_refused_for_what_is_not_met_and_named_only_after_inspection() -> None:
    assert new_vehicle_refusals([MET, NOT_MET, PENDING]) == [NOT_MET]
    assert new_vehicle_refusals([MET, PENDING]) == []
    waiting = permit_may_name([MET], False, NEW_PLATE)
    assert [v.rule_id for v in waiting] == ["replacement_inspection"] and NEW_PLATE in waiting[0].message
    assert permit_may_name([MET, PENDING], True, NEW_PLATE) == [PENDING]  # judged again on that day
    assert permit_may_name([MET], True, NEW_PLATE) == []


def test_no_document_while_the_replacement_waits() -> None:
    verdict = documents_wait_for_replacement(OLD_PLATE, None)
    assert verdict.status is Status.NOT_MET and OLD_PLATE in verdict.message
    assert_refused([verdict], "replacement_pending")
    assert NEW_PLATE not in verdict.message  # no replacement registered yet: none is named
    assert NEW_PLATE in documents_wait_for_replacement(OLD_PLATE, NEW_PLATE).message
