"""Stands (pontos, Art. 17–18): where the services wait for customers, and who may take a place there.

* A bus or taxi stop is never a stand (Art. 18: "é proibido exercer os serviços … nos pontos de ônibus
  e de táxi").
* A stand is created by Decree with its number of places and the services it serves (Art. 17); a place
  is taken only by the holder of a permit in force of one of those services, and never beyond the
  Decree's number of places; places and services are not reduced below the holders assigned there.
"""

from __future__ import annotations

from collections.abc import Sequence

from motodesk.rules.common import ServiceType, Verdict, not_met
from motodesk.rules.text import plural

ART_STANDS = "Art. 17"
ART_STOPS = "Art. 18"


def services_text(services: Sequence[ServiceType]) -> str:
    return ", ".join(s.label for s in services)


def bus_or_taxi_stop(*, registered: bool) -> Verdict:
    """Art. 18: a bus or taxi stop is not registered (``registered=False``) nor kept as a stand."""
    if registered:
        return not_met("art18_stop", ART_STOPS, "é proibido exercer os serviços nos pontos de ônibus e de táxi; "
                                                "o ponto não pode continuar cadastrado nesse local.")
    return not_met("art18_stop", ART_STOPS, "é proibido exercer os serviços de mototáxi, motoboy e moto-frete nos "
                                            "pontos de ônibus e de táxi; um ponto de ônibus ou de táxi não pode ser "
                                            "cadastrado como ponto.")


def places_below_assigned(stand: str, occupied: int, places: int) -> Verdict:
    return not_met("art17_places", ART_STANDS,
                   f"o ponto {stand} tem {plural(occupied, 'titular designado', 'titulares designados')}; "
                   f"retire-os antes de reduzir as vagas para {places}.")


def services_still_assigned(stand: str, removed: Sequence[ServiceType]) -> Verdict:
    return not_met("art17_services", ART_STANDS,
                   f"há titulares de {services_text(removed)} designados ao ponto {stand}; retire-os antes de "
                   "deixar de permitir o serviço.")


def stand_inactive(stand: str) -> Verdict:
    return not_met("art17_inactive", ART_STANDS, f"o ponto {stand} não está mais em uso.")


def permit_not_in_force(instrument: str, number: str, state_label: str) -> Verdict:
    return not_met("art17_permit", ART_STANDS,
                   f"só o titular de {instrument} em vigor ocupa vaga em ponto; {number} está “{state_label}”.")


def service_not_served(stand: str, allowed: Sequence[ServiceType], service: ServiceType) -> Verdict:
    return not_met("art17_service", ART_STANDS,
                   f"o ponto {stand} é destinado a {services_text(allowed)}, não a {service.label}.")


def no_free_place(stand: str, places: int, occupied: int) -> Verdict:
    return not_met("art17_places", ART_STANDS,
                   f"o ponto {stand} tem {plural(places, 'vaga', 'vagas')}, "
                   f"{'todas ocupadas' if occupied >= places else 'sem vaga livre'}; o limite de vagas do Decreto "
                   "não pode ser excedido (a última vaga pode ter sido ocupada por outra estação neste instante).")
