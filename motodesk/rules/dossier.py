"""The documents of an applicant's dossier (Art. 5 I–XII) and the article each serves."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

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

    @property
    def label(self) -> str:
        return _LABELS[self][0]

    @property
    def article(self) -> str:
        return _LABELS[self][1]


_LABELS: dict[DocumentKind, tuple[str, str]] = {
    DocumentKind.IDENTITY: ("Documento de identidade (RG)", "Art. 5º, V"),
    DocumentKind.CNH: ("Carteira Nacional de Habilitação", "Art. 5º, II"),
    DocumentKind.COURSE: ("Certificado do curso especializado", "Art. 5º, III"),
    DocumentKind.MILITARY: ("Certificado de reservista", "Art. 5º, VI"),
    DocumentKind.ELECTORAL: ("Título de eleitor e quitação eleitoral", "Art. 5º, VI"),
    DocumentKind.MEDICAL: ("Atestado médico (físico e mental)", "Art. 5º, VII"),
    DocumentKind.INSS: ("Inscrição no INSS (NIT/PIS)", "Art. 5º, VIII"),
    DocumentKind.RESIDENCE: ("Comprovante de residência", "Art. 5º, X"),
    DocumentKind.CRIMINAL: ("Certidões negativas criminais", "Art. 5º, XI"),
    DocumentKind.CPF: ("CPF", "Art. 5º, XII"),
    DocumentKind.DECLARATION_ART8: ("Declaração de não ser permissionário de táxi/escolar/coletivo", "Art. 8º"),
    DocumentKind.OTHER: ("Outro documento", ""),
}


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
