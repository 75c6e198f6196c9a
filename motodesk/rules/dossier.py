"""The documents of an applicant's dossier (Art. 5 I–XII) and the article each serves.

The kinds below are the values stored in the database; what each document is — its label, article,
fields, validity, rule — is declared once in :mod:`motodesk.rules.documents_declared`.  A document
declared there with a kind that has no member here is still a :class:`DocumentKind` (a pseudo-member
made on first use), so a new document needs no edit of this enum.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any

from motodesk.rules.common import Status, Verdict


class DocumentKind(StrEnum):
    """One row of the dossier checklist; values are stored in the database."""

    IDENTITY = "identity"  # Art. 5º, V
    CNH = "cnh"  # Art. 5º, II
    COURSE = "course"  # Art. 5º, III
    MILITARY = "military"  # Art. 5º, VI (men)
    ELECTORAL = "electoral"  # Art. 5º, VI
    MEDICAL = "medical"  # Art. 5º, VII and §2
    INSS = "inss"  # Art. 5º, VIII
    RESIDENCE = "residence"  # Art. 5º, X
    CRIMINAL = "criminal"  # Art. 5º, XI
    CPF = "cpf"  # Art. 5º, XII
    DECLARATION_ART8 = "declaration_art8"  # Art. 8º
    OTHER = "other"

    @classmethod
    def _missing_(cls, value: object) -> Any:
        """A kind declared in ``documents_declared`` without a member here (a document a Decree added)."""
        from motodesk.rules.documents_declared import declaration

        if not isinstance(value, str) or declaration(value) is None:
            return None
        member = str.__new__(cls, value)
        member._name_ = value.upper()
        member._value_ = value
        return cls._value2member_map_.setdefault(value, member)

    @property
    def label(self) -> str:
        from motodesk.rules.documents_declared import declaration

        found = declaration(self.value)
        return found.label if found is not None else self.value

    @property
    def article(self) -> str:
        from motodesk.rules.documents_declared import declaration

        found = declaration(self.value)
        return found.article if found is not None else ""


def declared_kinds() -> list[DocumentKind]:
    """The kinds of the declared documents, in the order of the screen."""
    from motodesk.rules.documents_declared import kinds

    return [DocumentKind(k) for k in kinds()]


def check_certificate_change(kind: DocumentKind, *, holder_in_force: bool, old_issue: date | None,
                             new_issue: date | None, old_result: str | None, new_result: str | None,
                             changed: bool) -> list[Verdict]:
    """A document of a holder whose permit is in force, already judged for it, changes only by a newer
    certificate (Art. 5º): its facts are not rewritten in place. A positive criminal certificate is
    undone only by a newer negative one (Art. 5º, XI), never by editing the recorded one."""
    if not holder_in_force or not changed or old_issue is None:
        return []
    label, article = kind.label, kind.article or "Art. 5º"
    if kind is DocumentKind.CRIMINAL and old_result == "positive" and new_result != "positive" and (
            new_issue is None or new_issue <= old_issue):
        return [Verdict("certificate_rewritten", article, Status.NOT_MET,
                        f"{article}: a certidão criminal registrada é positiva; ela não se reescreve — só uma "
                        "certidão negativa mais recente, com nova data de emissão, a substitui.")]
    if new_issue is None or new_issue < old_issue:
        return [Verdict("certificate_rewritten", article, Status.NOT_MET,
                        f"{article}: {label} já foi julgado(a) para a permissão em vigor; só um documento mais "
                        "recente o substitui, nunca um com data de emissão anterior ou sem data.")]
    return []
