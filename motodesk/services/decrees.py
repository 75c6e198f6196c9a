"""Decrees the services cite (approval of a permit, Art. 6º; stands, Art. 17): found by number, or
recorded with their date inside the caller's transaction."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import Decree
from motodesk.rules.text import format_date
from motodesk.services.errors import InvalidInputError

MAX_NUMBER = 32


def find_or_record_decree(s: Session, number: str, signed_on: date | None, on: date, *, article: str,
                          subject: str, missing_number: str) -> Decree:
    """The Decree registered with this number, or a new one signed on `signed_on` (not after `on`).

    `missing_number` is the pt_BR message when no number is given; `article` names the law in the
    missing-date message; `subject` is stored with a new Decree.
    """
    number = " ".join((number or "").split())
    if not number:
        raise InvalidInputError(missing_number, {"decree_number": "Obrigatório."})
    if len(number) > MAX_NUMBER:
        raise InvalidInputError(f"Número do Decreto longo demais (até {MAX_NUMBER} caracteres).",
                                {"decree_number": "Longo demais."})
    decree = s.scalar(select(Decree).where(Decree.number == number))
    if decree is None:
        if signed_on is None:
            raise InvalidInputError(f"Informe a data do Decreto ({article}).", {"decree_date": "Obrigatória."})
        if signed_on > on:
            raise InvalidInputError(f"A data do Decreto ({format_date(signed_on)}) é posterior a hoje.",
                                    {"decree_date": "Data no futuro."})
        decree = Decree(number=number, signed_on=signed_on, subject=subject)
        s.add(decree)
        s.flush()
    elif signed_on is not None and decree.signed_on != signed_on:
        raise InvalidInputError(f"O Decreto nº {number} já está cadastrado com a data "
                                f"{format_date(decree.signed_on)}, não {format_date(signed_on)}.",
                                {"decree_date": "Data diferente da cadastrada."})
    return decree
