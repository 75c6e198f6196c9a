"""Turning what one rule found into one :class:`~motodesk.rules.common.Verdict`.

A rule looks at the evidence for one article and notes, in pt_BR:

* **impossible** data (a birth date after the reference date, a negative
  engine capacity): the verdict is NOT_MET and says the data is impossible,
  so the clerk corrects the record;
* **problems** (the requirement is not met): NOT_MET;
* **missing** evidence (a field left empty): PENDING, listing what is missing.

Otherwise the verdict is MET.  Impossible data outranks problems, which
outrank missing evidence: once a requirement is known to fail, the missing
pieces are mentioned but do not hide the failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from motodesk.rules.common import Status, Verdict
from motodesk.rules.text import format_date, join_words


def after_reference(what: str, day: date, on: date, *, plural: bool = False) -> str:
    """The impossible date of a document: ``"a foto (02/03/2027) é posterior à data de referência (…)"``."""
    verb = "são posteriores" if plural else "é posterior"
    return f"{what} ({format_date(day)}) {verb} à data de referência ({format_date(on)})"


class Findings:
    """Notes of one rule about one article, made into a verdict by :meth:`verdict`."""

    def __init__(self, rule_id: str, article: str, labels: Mapping[str, str]) -> None:
        self.rule_id = rule_id
        self.article = article
        self._labels = labels
        self.missing: list[str] = []
        self.problems: list[str] = []
        self.impossible: list[str] = []
        self.pending_note: str | None = None

    @property
    def clear(self) -> bool:
        """Nothing missing, failing or impossible so far: the requirement is met."""
        return not (self.missing or self.problems or self.impossible)

    def need(self, field_name: str) -> None:
        """Evidence ``field_name`` is missing."""
        if field_name not in self.missing:
            self.missing.append(field_name)

    def fail(self, sentence: str) -> None:
        """The requirement is not met, for the reason in ``sentence``."""
        self.problems.append(sentence)

    def impossible_data(self, sentence: str) -> None:
        """The data cannot be true, for the reason in ``sentence``."""
        self.impossible.append(sentence)

    def dated(self, field_name: str, what: str, day: date | None, on: date, *, plural: bool = False) -> date | None:
        """A date of the evidence that cannot be after ``on``: ``day`` when given and possible; else None,
        the field noted missing or the date impossible (:func:`after_reference`)."""
        if day is None:
            self.need(field_name)
        elif day > on:
            self.impossible_data(after_reference(what, day, on, plural=plural))
        else:
            return day
        return None

    def in_force(self, field_name: str, what: str, until: date | None, on: date) -> date | None:
        """The last day of a validity, which must not have passed on ``on``: ``until`` when in force; else
        None, the field noted missing or the failure said (``"a CNH venceu em 31/05/2026"``)."""
        if until is None:
            self.need(field_name)
        elif until < on:
            self.fail(f"{what} venceu em {format_date(until)}")
        else:
            return until
        return None

    def verdict(self, met_sentence: str = "requisito atendido") -> Verdict:
        """The verdict; ``met_sentence`` (a clause, no final period) is used only when met."""
        missing = tuple(self.missing)
        if self.impossible:
            message = f"{self.article}: dado impossível — {'; '.join(self.impossible)}."
            return Verdict(self.rule_id, self.article, Status.NOT_MET, message, missing)
        if self.problems:
            message = f"{self.article}: {'; '.join(self.problems)}."
            if missing:
                message += f" Falta também: {self._missing_text()}."
            return Verdict(self.rule_id, self.article, Status.NOT_MET, message, missing)
        if missing:
            message = f"{self.article}: pendente — falta {self._missing_text()}"
            message += f" ({self.pending_note})." if self.pending_note else "."
            return Verdict(self.rule_id, self.article, Status.PENDING, message, missing)
        return Verdict(self.rule_id, self.article, Status.MET, f"{self.article}: {met_sentence}.")

    def _missing_text(self) -> str:
        return join_words([self._labels.get(name, name) for name in self.missing])


def as_clause(message: str) -> str:
    """A full sentence made into a clause: ``"O CPF deve ter…."`` → ``"o CPF deve ter…"``.

    The first letter is lowered unless the first word is an acronym ("CPF inválido" stays).
    """
    text = message.strip().rstrip(".")
    first_word = text.split(" ", 1)[0]
    if len(first_word) > 1 and first_word.isupper():
        return text
    return text[:1].lower() + text[1:]
