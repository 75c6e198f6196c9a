"""Issue 24, `seed-demo` on SQLite and PostgreSQL: each seeded permit is judged by the transitions a real
one in its state went through — the issue on its date, the renewal of its certificate while in force,
the penalty step of a suspension or cassação (:func:`motodesk.rules.acts.seeded_permit_verdicts`, with the
contexts :func:`~motodesk.rules.acts.issue_context` and :func:`~motodesk.rules.acts.renewal_context` the
services build) — on facts built by the mappers of :mod:`motodesk.rules.facts`, the same facts the loader
of a stored permit gives; a seed input the law refuses writes no permit and names its article."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from motodesk.models import Application, InfractionNotice, Permit
from motodesk.rules import acts
from motodesk.rules.common import PermitState, Role, Status, Verdict
from motodesk.rules.document_gate import Document, check_document, document_facts_of
from motodesk.rules.facts import PermitFacts
from motodesk.rules.lifecycle import check_transition
from motodesk.rules.penalty_evidence import check_notice_basis
from motodesk.services import demo
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.evidence import notice_evidence
from motodesk.services.facts import permits_facts
from motodesk.services.settings import law_settings


def _spy(monkeypatch: pytest.MonkeyPatch) -> tuple[list[PermitFacts], list[Verdict]]:
    """Record the facts the seed judged and the verdicts that refused a permit."""
    judged: list[PermitFacts] = []
    refused: list[Verdict] = []

    def spy(permit: PermitFacts, *args: Any, **kwargs: Any) -> list[Verdict]:
        verdicts = acts.seeded_permit_verdicts(permit, *args, **kwargs)
        judged.append(permit)
        refused.extend(v for v in verdicts if v.status is not Status.MET)
        return verdicts

    monkeypatch.setattr(demo, "seeded_permit_verdicts", spy)
    return judged, refused


def test_seeded_permits_pass_the_rules_on_the_stored_facts(ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    judged, _refused = _spy(monkeypatch)
    counts = demo.seed_demo(ctx, 300)
    today = local_today()
    settings = law_settings(ctx)
    with ctx.read() as s:
        ids = list(s.scalars(select(Permit.id)))
        assert len(ids) == counts["permits"] > 100
        assert s.scalar(select(func.count(Application.id))) == counts["applications"] >= counts["refused"]
        stored = permits_facts(s, ids)
        notices = {n.permit_id: notice_evidence(s, n) for n in s.scalars(
            select(InfractionNotice).where(InfractionNotice.status.in_(("decided", "closed"))))}
    in_memory = {p.permit_id: p for p in judged}
    in_force = 0
    states: set[PermitState] = set()
    for pid, permit in stored.items():
        # The seed judged the very facts the loader reads back from the register.
        seen = in_memory[pid]
        states.add(permit.state)
        assert seen.holder.dossier == permit.holder.dossier, permit.number
        assert seen.vehicle is not None and permit.vehicle is not None
        assert seen.vehicle.facts == permit.vehicle.facts, permit.number
        assert seen.vehicle.last_inspection == permit.vehicle.last_inspection, permit.number
        assert (seen.state, seen.issued_on, seen.term_end) == (permit.state, permit.issued_on, permit.term_end)
        if permit.state.in_force:
            # The certificate the seed wrote is one the renewal, judged as the service judges it, grants.
            in_force += 1
            renewal = check_transition("renew_registration", PermitState.ACTIVE, Role.SUPERVISOR,
                                       acts.renewal_context(permit, today, settings))
            assert not [v for v in renewal if v.status is Status.NOT_MET], (permit.number, renewal)
            gate = check_document(document_facts_of(permit, Document.REGISTRATION_CERTIFICATE, today, settings),
                                  today, settings)
            assert not [v for v in gate if v.rule_id == "document_cnh"], (permit.number, gate)
            assert not [v for v in gate if v.rule_id == "document_criminal"], (permit.number, gate)
        if permit.state is PermitState.EXPIRED:  # Art. 6º: only a term that ended expires
            assert permit.term_end < today, permit.number
        step = acts.SEED_PENALTY_STEP.get(permit.state)
        if step is not None:  # the decided notice, loaded from the register, is the penalty's basis
            assert check_notice_basis(step, notices.get(pid), permit_id=pid) == [], permit.number
    assert in_force > 50
    assert {PermitState.EXPIRED, PermitState.SUSPENDED} <= states


def test_an_engine_below_the_law_is_refused_with_its_article(ctx: AppContext,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _judged, refused = _spy(monkeypatch)
    monkeypatch.setattr(demo, "MAKES", (("Honda", "Pop 110i", 110),))
    counts = demo.seed_demo(ctx, 60)
    assert counts["permits"] == 0 and counts["refused"] > 20
    assert {v.article for v in refused} >= {"Art. 3º, I"}
    assert all("110" in v.message for v in refused if v.article == "Art. 3º, I")
    with ctx.read() as s:
        assert s.scalar(select(func.count(Permit.id))) == 0
        assert s.scalar(select(func.count(Application.id))) == counts["applications"] >= counts["refused"]


def test_an_expired_cnh_refuses_a_permit_in_force(ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    _judged, refused = _spy(monkeypatch)
    yesterday = local_today() - timedelta(days=1)
    mapped = demo.seeded_permit_facts

    def expired_cnh(*rows: Any) -> PermitFacts:
        permit = mapped(*rows)
        dossier = dataclasses.replace(permit.holder.dossier, cnh_expiry=yesterday)
        return dataclasses.replace(permit, holder=dataclasses.replace(permit.holder, dossier=dossier))

    monkeypatch.setattr(demo, "seeded_permit_facts", expired_cnh)
    counts = demo.seed_demo(ctx, 120)
    assert counts["refused"] > 30
    assert any(v.rule_id == "art5_ii_cnh" and v.article.startswith("Art. 5º, II") for v in refused), refused
    with ctx.read() as s:
        states = set(s.scalars(select(Permit.state)))
    assert states and not {PermitState.ACTIVE, PermitState.SUSPENDED} & states


def test_a_penalty_without_its_decided_notice_is_refused(ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Art. 29, § 3º: a seeded suspension or cassação whose notice is still open is not written."""
    _judged, refused = _spy(monkeypatch)
    rows = demo._penalty_rows

    def undecided(*args: Any, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        notice, decision = rows(*args, **kwargs)
        return {**notice, "status": "open"}, decision

    monkeypatch.setattr(demo, "_penalty_rows", undecided)
    counts = demo.seed_demo(ctx, 300)
    assert counts["permits"] > 100
    assert any(v.rule_id == "evidence_notice_undecided" and v.article.startswith("Art. 29, § 3º")
               for v in refused), refused
    with ctx.read() as s:
        states = set(s.scalars(select(Permit.state)))
        assert not {PermitState.SUSPENDED, PermitState.REVOKED} & states
        assert s.scalar(select(func.count(InfractionNotice.id)).where(InfractionNotice.status != "open")) == 0


def test_a_vehicle_never_approved_is_not_issued(ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's own condition (Art. 5º, § 1º, II e III): the inspection before it approved the vehicle."""
    _judged, refused = _spy(monkeypatch)
    judge = demo.seeded_permit_verdicts

    def failed_inspection(permit: PermitFacts, *args: Any, **kwargs: Any) -> list[Verdict]:
        return judge(permit, *args, **{**kwargs, "issue_inspection": dataclasses.replace(
            kwargs["issue_inspection"], approved=False)})

    monkeypatch.setattr(demo, "seeded_permit_verdicts", failed_inspection)
    counts = demo.seed_demo(ctx, 60)
    assert counts["permits"] == 0 and counts["refused"] > 20
    assert any(v.rule_id == "transition_inspection" and v.article == "Art. 5º, § 1º, II e III" for v in refused)
