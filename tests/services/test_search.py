"""The search box's service, on SQLite and PostgreSQL: every kind of query, paging, bad input."""

from __future__ import annotations

from datetime import date

import pytest
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Application, Permit, Vehicle
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import people, search
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.services.search import QueryKind, SortKey, classify


def _person(ctx: AppContext, name: str, cpf: str | None = None) -> int:
    return people.save_person(ctx, PersonInput(full_name=name, cpf=cpf or valid_cpf())).id


def _names(page: search.SearchPage) -> list[str]:
    return [h.full_name for h in page.hits]


def _vehicle(ctx: AppContext, holder: int, plate: str, renavam: str | None = None, active: bool = True,
             service: ServiceType = ServiceType.MOTOBOY) -> int:
    with ctx.write() as s:
        existing_register(s)
        v = Vehicle(plate=plate, renavam=renavam, holder_id=holder, active=active, service_type=service)
        s.add(v)
        s.flush()
        return v.id


def _permit(ctx: AppContext, person: int, number: str, state: PermitState = PermitState.ACTIVE,
            service: ServiceType = ServiceType.MOTOBOY) -> None:
    seq = int(number[3:7])
    with ctx.write() as s:
        existing_register(s)
        s.add(Permit(number=number, service_type=service, year=int(number[-4:]), seq=seq, person_id=person,
                     state=state, issued_on=date(2025, 1, 10), term_end=date(2030, 1, 10),
                     certificate_valid_until=date(2026, 1, 10)))


# --- classification (no database) ----------------------------------------------------------------


@pytest.mark.parametrize(("typed", "kind", "value"), [
    ("", QueryKind.EVERYONE, ""),
    ("   ", QueryKind.EVERYONE, ""),
    ("João", QueryKind.NAME, "joao"),
    ("  MARIA   d'Ávila ", QueryKind.NAME, "maria d'avila"),
    ("529.982.247-25", QueryKind.DIGITS, "52998224725"),
    ("529 982", QueryKind.DIGITS, "529982"),
    ("ABC-1234", QueryKind.PLATE, "ABC1234"),
    ("abc1d23", QueryKind.PLATE, "ABC1D23"),
    ("abc1", QueryKind.PLATE, "ABC1"),
    ("abc", QueryKind.NAME, "abc"),
    ("MB-0012/2026", QueryKind.PERMIT, "MB-0012/2026"),
    ("mb 12", QueryKind.PERMIT, "MB-12"),
    ("mt-", QueryKind.PERMIT, "MT-"),
    ("'; DROP TABLE people; --", QueryKind.NAME, "'; drop table people; --"),
])
def test_classify(typed: str, kind: QueryKind, value: str) -> None:
    parsed = classify(typed)
    assert (parsed.kind, parsed.text) == (kind, value)


def test_plate_alternatives_and_bounds() -> None:
    assert classify("ABC-1234").alternatives == ("ABC1C34",)
    assert classify("ABC1C34").alternatives == ("ABC1234",)
    assert classify("MB-12").alternatives == ("MB-0012/",)
    assert search.prefix_upper_bound("joao") == "joap"
    assert search.prefix_upper_bound("ab\U0010ffff") == "ac"
    assert search.prefix_upper_bound("a\ud7ff") == "a\ue000"
    assert classify("x" * 10_000).text == "x" * search.MAX_QUERY


# --- names -------------------------------------------------------------------------------------


def test_name_is_accent_and_case_insensitive_prefix_first_then_infix(clerk: AppContext) -> None:
    _person(clerk, "João da Silva")
    _person(clerk, "Joana Prado")
    _person(clerk, "Ana Maria Joanópolis")
    _person(clerk, "Pedro Álvares")
    assert _names(search.search_people(clerk, "joao")) == ["João da Silva"]
    assert _names(search.search_people(clerk, "JOÃO")) == ["João da Silva"]
    assert _names(search.search_people(clerk, "jo")) == ["Joana Prado", "João da Silva"]  # prefix only
    # Prefix matches first (by name), then names that contain the text elsewhere.
    assert _names(search.search_people(clerk, "joa")) == ["Joana Prado", "João da Silva", "Ana Maria Joanópolis"]
    assert _names(search.search_people(clerk, "silva")) == ["João da Silva"]
    assert _names(search.search_people(clerk, "alvar")) == ["Pedro Álvares"]
    # Every word, in any order, anywhere in the name.
    assert _names(search.search_people(clerk, "silva joão")) == ["João da Silva"]
    assert _names(search.search_people(clerk, "silva pedro")) == []


def test_everyone_by_name_with_keyset_pages_in_both_directions(clerk: AppContext) -> None:
    names = [f"Pessoa {chr(65 + i // 5)}{i % 5} Teste" for i in range(23)]
    for name in reversed(names):
        _person(clerk, name)
    seen: list[str] = []
    page = search.search_people(clerk, "", limit=10)
    while True:
        seen += _names(page)
        if page.next is None:
            break
        page = search.search_people(clerk, "", limit=10, after=page.next)
    assert seen == sorted(names, key=lambda n: n.lower())
    down = search.search_people(clerk, "", limit=100, descending=True)
    assert _names(down) == seen[::-1]


def test_paging_crosses_from_prefix_to_infix_without_repeats(clerk: AppContext) -> None:
    for i in range(4):
        _person(clerk, f"Souza Número {i}")
    for i in range(5):
        _person(clerk, f"Ana {i} de Souza")
    collected: list[str] = []
    page = search.search_people(clerk, "souza", limit=4)  # exactly the prefix part on the first page
    while True:
        collected += _names(page)
        if page.next is None:
            break
        page = search.search_people(clerk, "souza", limit=4, after=page.next)
    assert collected[:4] == [f"Souza Número {i}" for i in range(4)]
    assert collected[4:] == [f"Ana {i} de Souza" for i in range(5)]
    assert len(collected) == len(set(collected)) == 9
    backwards: list[str] = []
    page = search.search_people(clerk, "souza", limit=3, descending=True)
    while True:
        backwards += _names(page)
        if page.next is None:
            break
        page = search.search_people(clerk, "souza", limit=3, descending=True, after=page.next)
    assert backwards == collected[:4][::-1] + collected[4:][::-1]


def test_sort_by_cpf(clerk: AppContext) -> None:
    cpfs = sorted(valid_cpf() for _ in range(5))
    for i, cpf in enumerate(cpfs):
        _person(clerk, f"Ordem {4 - i} Teste", cpf)
    page = search.search_people(clerk, "ordem", sort=SortKey.CPF)
    assert [h.cpf for h in page.hits] == cpfs
    page = search.search_people(clerk, "ordem", sort="cpf", descending=True, limit=2)
    page = search.search_people(clerk, "ordem", sort="cpf", descending=True, limit=2, after=page.next)
    assert [h.cpf for h in page.hits] == cpfs[::-1][2:4]


def test_renamed_person_is_found_by_the_new_name_only(clerk: AppContext) -> None:
    pid = _person(clerk, "Carla Antiga Sobrenome")
    assert _names(search.search_people(clerk, "antiga")) == ["Carla Antiga Sobrenome"]
    person = people.get_person(clerk, pid)
    people.save_person(clerk, PersonInput(full_name="Carla Nova Sobrenome", cpf=person.cpf), person_id=pid)
    assert _names(search.search_people(clerk, "antiga")) == []
    assert _names(search.search_people(clerk, "nova")) == ["Carla Nova Sobrenome"]


# --- numbers -----------------------------------------------------------------------------------


def test_cpf_with_or_without_punctuation_and_by_prefix(clerk: AppContext) -> None:
    cpf = valid_cpf()
    _person(clerk, "Dona do CPF", cpf)
    _person(clerk, "Outra Pessoa")
    formatted = f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}"
    for typed in (cpf, formatted, formatted[:7], cpf[:5]):
        assert "Dona do CPF" in _names(search.search_people(clerk, typed)), typed
    hit = search.search_people(clerk, cpf).hits[0]
    assert hit.cpf_formatted == formatted
    assert _names(search.search_people(clerk, cpf + "9")) == []


def test_plate_in_either_format_finds_the_holder_of_the_active_vehicle(clerk: AppContext) -> None:
    old = _person(clerk, "Dono Placa Antiga")
    new = _person(clerk, "Dona Placa Mercosul")
    gone = _person(clerk, "Dono Veículo Baixado")
    _vehicle(clerk, old, "ABC1234")
    _vehicle(clerk, new, "QWE1D23")
    _vehicle(clerk, gone, "ABC1299", active=False)
    for typed in ("ABC-1234", "abc1234", "ABC1C34", "abc-12", "AbC1"):
        assert _names(search.search_people(clerk, typed)) == ["Dono Placa Antiga"], typed
    assert _names(search.search_people(clerk, "qwe1d2")) == ["Dona Placa Mercosul"]
    assert _names(search.search_people(clerk, "QWE-1323")) == ["Dona Placa Mercosul"]  # its old form
    hit = search.search_people(clerk, "ABC1234").hits[0]
    assert hit.plate == "ABC-1234" and hit.service is ServiceType.MOTOBOY


def test_renavam_and_permit_number(clerk: AppContext) -> None:
    pid = _person(clerk, "Titular Com Permissão")
    _vehicle(clerk, pid, "JKL4321", renavam="63968557805")
    _permit(clerk, pid, "MB-0012/2026")
    assert _names(search.search_people(clerk, "63968557805")) == ["Titular Com Permissão"]
    assert _names(search.search_people(clerk, "6396855")) == ["Titular Com Permissão"]
    for typed in ("MB-0012/2026", "mb-0012", "MB 12", "mb12/2026", "MB-"):
        assert _names(search.search_people(clerk, typed)) == ["Titular Com Permissão"], typed
    assert _names(search.search_people(clerk, "MT-0012")) == []
    hit = search.search_people(clerk, "MB-0012").hits[0]
    assert (hit.permit_number, hit.situation, hit.plate) == ("MB-0012/2026", "Em vigor", "JKL-4321")


def test_situation_column(clerk: AppContext) -> None:
    applicant = _person(clerk, "Requerente Em Análise")
    nobody = _person(clerk, "Sem Nada Ainda")
    former = _person(clerk, "Ex Titular Reaplicando")
    _permit(clerk, former, "MF-0001/2021", state=PermitState.EXPIRED, service=ServiceType.MOTOFRETE)
    with clerk.write() as s:
        existing_register(s)
        for pid, state in ((applicant, PermitState.UNDER_REVIEW), (former, PermitState.REQUESTED)):
            s.add(Application(person_id=pid, service_type=ServiceType.MOTOTAXI, state=state,
                              opened_on=date(2026, 1, 5), opened_by="clerk"))
    hits = {h.person_id: h for h in search.search_people(clerk, "").hits}
    assert (hits[applicant].service, hits[applicant].situation) == (ServiceType.MOTOTAXI, "Requerimento em análise")
    assert (hits[nobody].service, hits[nobody].situation) == (None, "Sem requerimento")
    assert hits[former].situation == "Requerimento aberto"
    assert hits[former].permit_number == "MF-0001/2021"


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", [
    "'; DROP TABLE people; --", "%", "_", "a%b", "\\", '"', "x' OR '1'='1", "(", "*", "NEAR(a b)",
    "nul\x00byte", "tab\tand\nnewline", "🙂", "ção" * 3334, "1" * 10_000, "MB-" + "9" * 10_000,
])
def test_metacharacters_and_huge_pastes_never_break_a_query(clerk: AppContext, typed: str) -> None:
    _person(clerk, "Maria D'Ávila-Souza")
    page = search.search_people(clerk, typed)
    assert isinstance(page.hits, list)
    assert len(_names(search.search_people(clerk, ""))) == 1  # the table is still there


def test_wildcards_are_literal(clerk: AppContext) -> None:
    _person(clerk, "Maria D'Ávila-Souza")
    _person(clerk, "Marta Lima Souza")
    assert _names(search.search_people(clerk, "d'avila")) == ["Maria D'Ávila-Souza"]
    assert _names(search.search_people(clerk, "avila-sou")) == ["Maria D'Ávila-Souza"]
    assert _names(search.search_people(clerk, "mar%")) == []
    assert _names(search.search_people(clerk, "ma_ia")) == []


def test_inspector_may_search(inspector: AppContext, clerk: AppContext) -> None:
    _person(clerk, "Visível Ao Fiscal")
    assert _names(search.search_people(inspector, "visivel")) == ["Visível Ao Fiscal"]


def test_the_infix_strategies_agree(clerk: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Infix answers come two ways on each database: PostgreSQL takes a window of the sort order
    when it holds a page of matches, else the trigram index; SQLite lists a few matches of its
    trigram table sorted whole, or walks the name index when there are many. Each way must list
    the same people in the same order, page by page, both directions."""
    for i in range(30):
        _person(clerk, f"{'Bruna' if i % 2 else 'Ana'} {i:02d} Aparecida Lemos")
    for i in range(10):
        _person(clerk, f"Carla {i:02d} Ribeiro")
    _person(clerk, "Aparecida Começa Assim")  # the prefix part, listed first

    def collect(descending: bool) -> list[str]:
        names: list[str] = []
        page = search.search_people(clerk, "aparecida", limit=7, descending=descending)
        while True:
            names += _names(page)
            if page.next is None:
                return names
            page = search.search_people(clerk, "aparecida", limit=7, descending=descending, after=page.next)

    results = {}
    for strategy, window, few in (("window", 5000, 2000), ("trigram index", 3, 2000), ("walk", 3, 5)):
        monkeypatch.setattr(search, "DENSITY_WINDOW", window)
        monkeypatch.setattr(search, "FEW_MATCHES", few)
        results[strategy] = (collect(False), collect(True))
    expected = ["Aparecida Começa Assim"] + sorted(n for n in (f"{'Bruna' if i % 2 else 'Ana'} {i:02d} Aparecida Lemos"
                                                                for i in range(30)))
    for strategy, (forward, backward) in results.items():
        assert forward == expected, strategy
        assert backward == [expected[0]] + expected[1:][::-1], strategy
