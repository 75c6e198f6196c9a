"""What makes a keystroke cheap (issue 28) must not change what it finds: statements built once
per shape answer every value of that shape, the linked parts' two strategies agree, and the
covering indexes of revision 0020 exist on both databases."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import text
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Permit, Vehicle
from motodesk.models.db import Database
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import people, search
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput


def _person(ctx: AppContext, name: str) -> int:
    return people.save_person(ctx, PersonInput(full_name=name, cpf=valid_cpf())).id


def _names(page: search.SearchPage) -> list[str]:
    return [h.full_name for h in page.hits]


def test_one_statement_per_shape_answers_every_value(clerk: AppContext) -> None:
    for name in ("Ana Souza Lima", "Bia Lima Souza", "Carla Mota", "Souza Ana Prado"):
        _person(clerk, name)
    search._STATEMENTS.clear()
    first = search.search_people(clerk, "ana souza")
    shapes = len(search._STATEMENTS)
    assert shapes > 0
    second = search.search_people(clerk, "bia lima")  # the same shape: two words, infix part included
    assert len(search._STATEMENTS) == shapes  # nothing built for it
    assert _names(first) == ["Ana Souza Lima", "Souza Ana Prado"]  # prefix first, then the infix part
    assert _names(second) == ["Bia Lima Souza"]
    assert _names(search.search_people(clerk, "ana souza")) == _names(first)  # and back, unchanged


def test_a_resumed_page_binds_its_cursor(clerk: AppContext) -> None:
    for i in range(9):
        _person(clerk, f"Dora {i} Alves")
    page = search.search_people(clerk, "dora", limit=4)
    seen = _names(page)
    while page.next is not None:
        page = search.search_people(clerk, "dora", limit=4, after=page.next)
        seen += _names(page)
    assert seen == [f"Dora {i} Alves" for i in range(9)]
    back = search.search_people(clerk, "dora", limit=4, descending=True)
    assert _names(back) == [f"Dora {i} Alves" for i in (8, 7, 6, 5)]


def test_the_linked_strategies_agree(clerk: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """A permit or plate prefix: the people found by id and sorted, or the names walked in order
    and each tested, page by page and both ways: the same people in the same order."""
    ids = [_person(clerk, f"{'Elza' if i % 2 else 'Edna'} {i:02d} Permissionária") for i in range(14)]
    ids.append(_person(clerk, "Fora Da Busca"))
    with clerk.write() as s:
        existing_register(s)
        for i, pid in enumerate(ids[:14]):
            v = Vehicle(plate=f"QWE{i:04d}", holder_id=pid, active=True, service_type=ServiceType.MOTOBOY)
            s.add(v)
            s.flush()
            s.add(Permit(number=f"MB-{i + 1:04d}/2025", service_type=ServiceType.MOTOBOY, year=2025, seq=i + 1,
                         person_id=pid, vehicle_id=v.id, state=PermitState.ACTIVE, issued_on=date(2025, 1, 10),
                         term_end=date(2030, 1, 10), certificate_valid_until=date(2026, 1, 10)))
        s.add(Vehicle(plate="QWE9999", holder_id=ids[14], active=False, service_type=ServiceType.MOTOBOY))

    def collect(typed: str, descending: bool) -> list[str]:
        found: list[str] = []
        page = search.search_people(clerk, typed, limit=4, descending=descending)
        while True:
            found += _names(page)
            if page.next is None:
                return found
            page = search.search_people(clerk, typed, limit=4, descending=descending, after=page.next)

    expected = sorted(f"{'Elza' if i % 2 else 'Edna'} {i:02d} Permissionária" for i in range(14))
    for strategy, few in (("sorted whole", None), ("walked", 0)):
        if few is not None:
            monkeypatch.setattr(search, "FEW_LINKED", few)  # PostgreSQL
            monkeypatch.setattr(search, "FEW_MATCHES", few)  # SQLite
        for typed in ("MB-", "QWE-0"):
            assert collect(typed, False) == expected, (strategy, typed)
            assert collect(typed, True) == expected[::-1], (strategy, typed)


def _index_names(db: Database) -> set[str]:
    with db.engine.connect() as conn:
        if db.is_sqlite:
            return set(conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'")).scalars())
        return set(conn.execute(text("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"))
                   .scalars())


def test_the_covering_indexes_exist(db: Database) -> None:
    names = _index_names(db)
    if db.is_sqlite:
        wanted = {"ix_search_people_cpf_name", "ix_search_permits_number_person", "ix_search_vehicles_plate_holder",
                  "ix_search_vehicles_renavam_holder", "ix_search_people_name_id_cpf",
                  "ix_search_permits_person_number"}
        assert "ix_search_people_name_cpf" not in names  # replaced
    else:
        wanted = {"ix_search_permits_number_person_c", "ix_search_vehicles_plate_holder_c",
                  "ix_search_vehicles_renavam_holder_c", "ix_search_people_id_keys"}
        assert not names & {"ix_search_permits_number_c", "ix_search_vehicles_plate_c",
                            "ix_search_vehicles_renavam_c"}  # replaced
    assert wanted <= names


def test_the_three_infix_answers_agree(clerk: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL: the density window when it holds a page, else every trigram match sorted;
    SQLite: its few trigram matches sorted whole, its window, its trigram table or the walk. Same pages."""
    for i in range(12):
        _person(clerk, f"{'Gil' if i % 2 else 'Ivo'} {i:02d} Queiroz Nunes")
    _person(clerk, "Queiroz Primeiro Nome")  # the prefix part, listed first

    def collect(descending: bool) -> list[str]:
        found: list[str] = []
        page = search.search_people(clerk, "queiroz", limit=5, descending=descending)
        while True:
            found += _names(page)
            if page.next is None:
                return found
            page = search.search_people(clerk, "queiroz", limit=5, descending=descending, after=page.next)

    infix = sorted(f"{'Gil' if i % 2 else 'Ivo'} {i:02d} Queiroz Nunes" for i in range(12))
    for strategy, few_infix, window, few in (("sorted whole", 500, 20000, 2000), ("window", 0, 5000, 2000),
                                             ("every match", 0, 3, 5)):
        monkeypatch.setattr(search, "FEW_INFIX", few_infix)
        monkeypatch.setattr(search, "DENSITY_WINDOW", window)
        monkeypatch.setattr(search, "FEW_MATCHES", few)
        assert collect(False) == ["Queiroz Primeiro Nome", *infix], strategy
        assert collect(True) == ["Queiroz Primeiro Nome", *infix[::-1]], strategy
