"""The mototáxi quota (Art. 10, I)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests_helpers import assert_refused, names_in  # type: ignore[import-not-found]

from motodesk.rules.common import Status
from motodesk.rules.quota import QuotaStatus, check_quota_place, mototaxi_quota, quota_status


@pytest.mark.parametrize(
    ("population", "quota"),
    [(0, 0), (1_999, 0), (2_000, 1), (3_999, 1), (4_000, 2), (89_826, 44), (88_000, 44), (87_999, 43)],
)
def test_one_permit_per_2000_inhabitants_rounded_down(population: int, quota: int) -> None:
    assert mototaxi_quota(population) == quota


def test_negative_population_is_refused() -> None:
    with pytest.raises(ValueError):  # the one refusal of mototaxi_quota
        mototaxi_quota(-1)
    assert mototaxi_quota(0) == 0


def test_the_last_place() -> None:
    open_ = check_quota_place(43, 89_826)
    assert (open_.rule_id, open_.status) == ("art10_i_quota", Status.MET)
    names_in(open_.message, "44 permissões", "89.826", "43 em vigor")  # its sentence: tests/rules/test_wording.py
    full = check_quota_place(44, 89_826)
    assert full.status is Status.NOT_MET
    assert full.article == "Art. 10, I"
    assert_refused([full], "art10_i_quota")
    names_in(full.message, "44 permissões", "89.826", "44 em vigor")


def test_impossible_quota_data() -> None:
    for in_force, population in ((1, 0), (-1, 89_826), (0, -5)):
        verdict = check_quota_place(in_force, population)
        assert verdict.status is Status.NOT_MET
        assert_refused([verdict], "art10_i_quota")


def test_quota_status() -> None:
    assert quota_status(89_826, 2022, 40) == QuotaStatus(89_826, 2022, 44, 40, 4)
    shrunk = quota_status(80_000, 2025, 44)
    assert (shrunk.quota, shrunk.open_places, shrunk.excess) == (40, 0, 4)


@given(population=st.integers(1, 10_000_000), in_force=st.integers(0, 10_000))
def test_a_place_is_open_exactly_when_in_force_is_below_quota(population: int, in_force: int) -> None:
    verdict = check_quota_place(in_force, population)
    assert verdict.ok is (quota_status(population, 2022, in_force).open_places > 0)
