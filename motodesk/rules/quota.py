"""How many mototáxi permits the town admits (Art. 10, Art. 39).

Art. 10, I: "na proporção de 01 (um) para cada 2.000 (dois mil) habitantes do
Município, levando-se em consideração os dados estatísticos oficiais do
IBGE".  Only whole permits count: the quota is the population divided by
2,000, rounded down (89,826 inhabitants → 44 permits).  Motoboy and
moto-frete have no quota (Art. 10, II–III).

The population and its reference year are settings; Art. 39 asks the
secretariat to re-evaluate the number by a technical study, for which
:func:`quota_status` gives permits in force against the quota at any time.
"""

from __future__ import annotations

from dataclasses import dataclass

from motodesk.rules.common import Status, Verdict
from motodesk.rules.text import format_int, plural

#: Art. 10, I: one permit "para cada 2.000 (dois mil) habitantes".
INHABITANTS_PER_PERMIT = 2_000
ARTICLE = "Art. 10, I"


def mototaxi_quota(population: int) -> int:
    """Number of mototáxi permits for ``population`` inhabitants: floor(population / 2,000)."""
    if population < 0:
        raise ValueError("A população não pode ser negativa.")
    return population // INHABITANTS_PER_PERMIT


@dataclass(frozen=True)
class QuotaStatus:
    """Mototáxi permits in force against the quota (Art. 10, I; Art. 39)."""

    population: int
    population_year: int
    quota: int
    in_force: int
    open_places: int

    @property
    def excess(self) -> int:
        """Permits in force beyond the quota (after a fall in population); 0 normally."""
        return max(0, self.in_force - self.quota)


def quota_status(population: int, year: int, in_force: int) -> QuotaStatus:
    """The quota for ``population`` (IBGE, ``year``) and how many places ``in_force`` permits leave open."""
    quota = mototaxi_quota(population)
    return QuotaStatus(
        population=population,
        population_year=year,
        quota=quota,
        in_force=in_force,
        open_places=max(0, quota - in_force),
    )


def check_quota_place(in_force: int, population: int) -> Verdict:
    """Is there a place for one more mototáxi permit?  NOT_MET when the quota is full (Art. 10, I)."""
    rule_id = "art10_i_quota"
    if population <= 0 or in_force < 0:
        return Verdict(
            rule_id,
            ARTICLE,
            Status.NOT_MET,
            f"{ARTICLE}: dado impossível — população de {format_int(population)} habitantes e "
            f"{format_int(in_force)} permissões em vigor.",
        )
    quota = mototaxi_quota(population)
    base = (
        f"{plural(quota, 'permissão', 'permissões')} para {format_int(population)} habitantes, "
        f"{format_int(in_force)} em vigor"
    )
    if in_force >= quota:
        return Verdict(rule_id, ARTICLE, Status.NOT_MET, f"{ARTICLE}: não há vaga de mototáxi — {base}.")
    places = quota - in_force
    return Verdict(
        rule_id,
        ARTICLE,
        Status.MET,
        f"{ARTICLE}: há {plural(places, 'vaga', 'vagas')} de mototáxi — {base}.",
    )
