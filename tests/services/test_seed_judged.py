"""Issue 24, `seed-demo` on SQLite and PostgreSQL: the seed's permits are judged by the rule functions of
issue and the document gate (:func:`motodesk.rules.acts.seeded_permit_verdicts`) on facts built by the
mappers of :mod:`motodesk.rules.facts` — the same facts the loader of a stored permit gives — and a seed
input the law refuses writes no permit."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from motodesk.models import Application, Permit, TenderCandidate
from motodesk.rules import acts
from motodesk.rules.common import PermitState, ServiceType, Status, Verdict
from motodesk.rules.document_gate import Document, check_document, document_facts_of
from motodesk.rules.facts import PermitFacts
from motodesk.rules.tenders import TenderCandidateFacts
from motodesk.services import demo
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.facts import permits_facts
from motodesk.services.settings import law_settings


def _spy(monkeypatch: pytest.MonkeyPatch) -> tuple[list[PermitFacts], list[Verdict]]:
    """Record the facts the seed judged and the verdicts that refused a permit."""
    judged: list[PermitFacts] = []
    refused: list[Verdict] = []

    def spy(permit: PermitFacts, *args: Any) -> list[Verdict]:
        verdicts = acts.seeded_permit_verdicts(permit, *args)
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
        candidacies = {c.person_id: c for c in s.scalars(select(TenderCandidate))}
    in_memory = {p.permit_id: p for p in judged}
    in_force = 0
    for pid, permit in stored.items():
        # The seed judged the very facts the loader reads back from the register.
        seen = in_memory[pid]
        assert seen.holder.dossier == permit.holder.dossier, permit.number
        assert seen.vehicle is not None and permit.vehicle is not None
        assert seen.vehicle.facts == permit.vehicle.facts, permit.number
        assert (seen.state, seen.issued_on, seen.term_end) == (permit.state, permit.issued_on, permit.term_end)
        c = candidacies.get(permit.holder.person_id)
        candidacy = (TenderCandidateFacts(rank=c.rank, status="called", tender_number="DEMO",
                                          homologated_on=today - timedelta(days=6 * 365))
                     if c is not None and permit.service is ServiceType.MOTOTAXI else None)
        verdicts = acts.seeded_permit_verdicts(permit, today, settings, candidacy)
        assert verdicts and all(v.status is Status.MET for v in verdicts), (permit.number, verdicts)
        if permit.state.in_force:
            in_force += 1
            gate = check_document(document_facts_of(permit, Document.REGISTRATION_CERTIFICATE, today, settings),
                                  today, settings)
            assert not [v for v in gate if v.rule_id == "document_cnh"], (permit.number, gate)
            assert not [v for v in gate if "não são negativas" in v.message], (permit.number, gate)
    assert in_force > 50


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
