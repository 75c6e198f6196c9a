"""The tender that precedes the mototáxi permission (Art. 6º): called candidate, homologated tender."""

from __future__ import annotations

from datetime import date

import pytest
from tests_helpers import assert_refused, names_in  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.tenders import TenderCandidateFacts, check_tender, tender_required, tender_requirement

CALLED = TenderCandidateFacts(
    rank=3, status="called", tender_number="01/2026", homologated_on=date(2026, 2, 20)
)


def test_only_the_mototaxi_permission_follows_a_tender() -> None:
    assert tender_required(ServiceType.MOTOTAXI)
    assert not tender_required(ServiceType.MOTOBOY)
    assert not tender_required(ServiceType.MOTOFRETE)


def test_called_candidate_of_a_homologated_tender_is_met() -> None:
    assert check_tender(True, TenderCandidateFacts(3, "called", "01/2026", date(2026, 2, 20))) == []


def test_a_spent_candidacy_serves_no_new_application() -> None:
    """Issue #24: the candidacy that gave its permission is spent (Art. 6º)."""
    verdicts = check_tender(True, TenderCandidateFacts(3, "accepted", "01/2026", date(2026, 2, 20)))
    assert [(v.article, v.status) for v in verdicts] == [("Art. 6º", Status.NOT_MET)]
    assert_refused(verdicts, "tender")  # its sentence: "… já foi usada", in the wording table
    names_in(verdicts[0].message, "3º", "01/2026")  # the candidacy it names


def test_applicant_who_is_no_called_candidate_is_refused() -> None:
    assert check_tender(False, None) == [
        Verdict(
            "tender",
            "Art. 6º",
            Status.NOT_MET,
            "Art. 6º: a permissão de mototáxi é precedida de licitação, e o requerente não é candidato "
            "convocado de nenhuma licitação.",
        )
    ]


def test_not_linked_wins_over_any_candidate_facts() -> None:
    assert [v.message for v in check_tender(False, CALLED)] == [v.message for v in check_tender(False, None)]


def test_linked_candidate_that_no_longer_exists_is_refused() -> None:
    assert check_tender(True, None) == [
        Verdict(
            "tender",
            "Art. 6º",
            Status.NOT_MET,
            "Art. 6º: o candidato da licitação vinculado ao requerimento não existe mais.",
        )
    ]


@pytest.mark.parametrize("status", ["waiting", "declined", "eliminated"])
def test_candidate_not_called_is_refused(status: str) -> None:
    verdicts = check_tender(True, TenderCandidateFacts(3, status, "01/2026", date(2026, 2, 20)))
    assert verdicts == [
        Verdict(
            "tender",
            "Art. 6º",
            Status.NOT_MET,
            "Art. 6º: o candidato 3º da licitação 01/2026 não foi convocado (ou desistiu, ou foi eliminado).",
        )
    ]


def test_tender_not_homologated_is_pending_with_what_is_missing() -> None:
    verdicts = check_tender(True, TenderCandidateFacts(3, "called", "01/2026", None))
    assert verdicts == [
        Verdict(
            "tender",
            "Art. 6º",
            Status.PENDING,
            "Art. 6º: pendente — a licitação 01/2026 ainda não foi homologada.",
            ("tender_homologation_date",),
        )
    ]


def test_candidate_not_called_of_a_tender_not_homologated_gives_both() -> None:
    verdicts = check_tender(True, TenderCandidateFacts(7, "eliminated", "02/2026", None))
    assert [(v.rule_id, v.article, v.status) for v in verdicts] == [
        ("tender", "Art. 6º", Status.NOT_MET),
        ("tender", "Art. 6º", Status.PENDING),
    ]
    assert verdicts[0].message.startswith("Art. 6º: o candidato 7º da licitação 02/2026 não foi convocado")


# --- the tender as a requirement of the dossier (Art. 6º; Art. 10, I) -----------------------------


def _called(**changes: object) -> TenderCandidateFacts:
    from dataclasses import replace

    return replace(TenderCandidateFacts(rank=3, status="called", tender_number="01/2026",
                                        homologated_on=date(2026, 2, 9)), **changes)


@pytest.mark.parametrize(
    ("candidate", "open_tenders", "status", "words"),
    [
        (_called(), (), Status.MET, "candidato 3º da licitação 01/2026 (homologada em 09/02/2026) e foi convocado"),
        (_called(status="accepted"), (), Status.NOT_MET, "já recebeu a permissão"),
        (_called(status="waiting"), (), Status.NOT_MET, "aguarda convocação"),
        (_called(status="declined"), (), Status.NOT_MET, "desistiu"),
        (_called(status="eliminated"), (), Status.NOT_MET, "foi eliminado"),
        (_called(homologated_on=None), (), Status.PENDING, "ainda não homologada"),
        (None, ("01/2026",), Status.NOT_MET, "não está entre os candidatos da licitação 01/2026"),
        (None, ("01/2026", "02/2026"), Status.NOT_MET, "das licitações 01/2026 e 02/2026"),
        (None, (), Status.NOT_MET, "não há licitação de mototáxi em andamento"),
    ],
)
def test_tender_requirement(candidate: TenderCandidateFacts | None, open_tenders: tuple[str, ...],
                            status: Status, words: str) -> None:
    verdict = tender_requirement(candidate, open_tenders)
    assert (verdict.rule_id, verdict.article, verdict.status) == ("art6_tender", "Art. 6º; Art. 10, I", status)
    assert words in verdict.message, verdict.message


@pytest.mark.parametrize("status", ["waiting", "called", "accepted", "declined", "eliminated"])
@pytest.mark.parametrize("homologated", [date(2026, 2, 9), None])
def test_tender_requirement_is_met_exactly_when_approval_would_pass(status: str, homologated: date | None) -> None:
    candidate = _called(status=status, homologated_on=homologated)
    assert (tender_requirement(candidate).status is Status.MET) == (check_tender(True, candidate) == [])
