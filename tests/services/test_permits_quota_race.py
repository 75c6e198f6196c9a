"""The quota of Art. 10, I holds when workstations issue at the same instant: N issuers, each with its own
engine and connection, released together by a barrier, race for the last mototáxi place; exactly one wins."""

from __future__ import annotations

import threading
from datetime import date

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import func, select
from tests_helpers import check_wording  # type: ignore[import-not-found]

from motodesk.models import Permit, QuotaCounter
from motodesk.models.db import Database
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import permits, permits_applications
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.errors import MotodeskError, RuleViolationError
from motodesk.services.settings import update_settings

ISSUERS = 20  # the issue asks for 20 workstations

#: Art. 10, I refused by the transition's check or, past it, by the counter inside the write.
QUOTA_RULES = ("transition_quota", "art10_i_quota")

def _race(db_url: str, application_ids: list[int]) -> tuple[list[permits.IssuedPermit], list[BaseException]]:
    barrier = threading.Barrier(len(application_ids))
    won: list[permits.IssuedPermit] = []
    lost: list[BaseException] = []
    lock = threading.Lock()

    def issuer(n: int, application_id: int) -> None:
        db = Database.open(db_url)  # one engine per workstation
        user = CurrentUser(id=None, login=f"supervisor{n}", full_name=f"Supervisor {n}", role=Role.SUPERVISOR)
        ctx = AppContext(db, user)
        try:
            with db.engine.connect():
                pass  # connected before the start, as a workstation would be
            barrier.wait(timeout=60)
            result = permits.issue(ctx, application_id)
            with lock:
                won.append(result)
        except BaseException as exc:  # noqa: BLE001 - collected and checked below
            with lock:
                lost.append(exc)
        finally:
            db.dispose()

    threads = [threading.Thread(target=issuer, args=(n, app_id)) for n, app_id in enumerate(application_ids)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "an issuer hung"
    return won, lost


@pytest.mark.parametrize("places", [1, 3])
def test_concurrent_issuers_for_the_last_place_exactly_one_wins(ctx: AppContext, supervisor: AppContext,
                                                                 db_url: str, places: int) -> None:
    update_settings(ctx, {"population": places * 2_000})
    taken = [make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name=f"Titular Anterior {i}")
             for i in range(places - 1)]
    for dossier in taken:
        permits.issue(supervisor, dossier.application_id)
    racers = [make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name=f"Candidato Número {i}")
              for i in range(ISSUERS)]

    won, lost = _race(db_url, [d.application_id for d in racers])

    assert len(won) == 1, f"{len(won)} issuers took the last place"
    assert won[0].number == f"MT-{places:04d}/{date.today().year}"
    assert len(lost) == ISSUERS - 1
    for exc in lost:
        assert isinstance(exc, RuleViolationError), repr(exc)
        assert isinstance(exc, MotodeskError)
        assert len(exc.rule_ids) == 1 and exc.rule_ids[0] in QUOTA_RULES, exc.rule_ids
        check_wording(exc.rule_ids[0], str(exc))
        assert [v.article for v in exc.verdicts] == ["Art. 10, I"]
    with ctx.read() as s:
        counter = s.get(QuotaCounter, ServiceType.MOTOTAXI)
        assert (counter.places, counter.in_force) == (places, places)
        in_force = s.scalar(select(func.count(Permit.id)).where(Permit.service_type == ServiceType.MOTOTAXI,
                                                                Permit.state == PermitState.ACTIVE))
        assert in_force == places


def test_concurrent_motoboy_issuers_get_distinct_numbers(ctx: AppContext, db_url: str) -> None:
    """No quota for motoboy (Art. 10, II), and the numbering never hands out the same number twice."""
    racers = [make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name=f"Entregador Número {i}")
              for i in range(8)]
    won, lost = _race(db_url, [d.application_id for d in racers])
    assert lost == []
    year = date.today().year
    assert sorted(p.number for p in won) == [f"MB-{i:04d}/{year}" for i in range(1, 9)]


def test_the_guarantee_is_the_database_not_the_check(ctx: AppContext, supervisor: AppContext, db_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when every issuer's check sees an open place, the conditional UPDATE lets one through."""
    update_settings(ctx, {"population": 2_000})
    racers = [make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name=f"Candidato Número {i}")
              for i in range(ISSUERS)]
    real = permits_applications.quota_counts  # the issue's own check (services/permits_applications.py)
    monkeypatch.setattr(permits_applications, "quota_counts", lambda s: (1, 0, 1) if real(s) else None)
    won, lost = _race(db_url, [d.application_id for d in racers])
    assert len(won) == 1 and len(lost) == ISSUERS - 1
    assert all(len(getattr(exc, "rule_ids", ())) == 1 and exc.rule_ids[0] in QUOTA_RULES for exc in lost), lost
    monkeypatch.setattr(permits_applications, "quota_counts", real)
    assert permits.quota_overview(supervisor).in_force == 1
