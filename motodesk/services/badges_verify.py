"""Verifying a badge (:mod:`motodesk.services.badges`): the signature (current or retired key), the
claim against the print log, then the register; offline, with the public key only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import BadgePrint, DeputyLink, Permit, Person
from motodesk.printing.token import BadgeClaim, ForgedTokenError, NotABadgeError, cpf_digest, verify_token
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.text import format_date
from motodesk.services.badge_keys import key_id
from motodesk.services.badges_keypair import READERS, _current_public, _retired_keys, _verification_keys
from motodesk.services.badges_printing import _newest_photos, badge_valid_until, claim_digest
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires


class BadgeStatus(StrEnum):
    VALID = "valid"
    EXPIRED = "expired"
    SUSPENDED = "suspended"
    REVOKED = "revoked"
    CANCELLED = "cancelled"
    SUPERSEDED = "superseded"
    UNLINKED = "unlinked"  # a deputy's badge after the link ended (Art. 14)
    DEPUTY_SUSPENDED = "deputy_suspended"  # a penalty of the deputy (Art. 34, III)
    DEPUTY_REVOKED = "deputy_revoked"  # cassação of the deputy (Art. 34, IV)
    FORGED = "forged"
    NOT_A_BADGE = "not_a_badge"  # the text holds no badge token at all (a CNH's QR, an address, junk)
    UNCONFIRMED = "unconfirmed"  # an old print (no digest) the register cannot confirm field by field

    @property
    def label(self) -> str:
        return {
            "valid": "CRACHÁ VÁLIDO",
            "expired": "CRACHÁ VENCIDO",
            "suspended": "PERMISSÃO SUSPENSA",
            "revoked": "PERMISSÃO CASSADA",
            "cancelled": "PERMISSÃO CANCELADA",
            "superseded": "VIA SUBSTITUÍDA",
            "unlinked": "PREPOSTO DESVINCULADO",
            "deputy_suspended": "PREPOSTO SUSPENSO",
            "deputy_revoked": "PREPOSTO CASSADO",
            "forged": "CRACHÁ FALSIFICADO",
            "not_a_badge": "NÃO É UM CRACHÁ",
            "unconfirmed": "CONFIRME NO BALCÃO",
        }[self.value]

    @property
    def colour(self) -> str:
        """Background of the verdict on screen."""
        return {
            "valid": "#2e7d32",
            "expired": "#ef6c00",
            "suspended": "#ef6c00",
            "superseded": "#c62828",
            "unlinked": "#c62828",
            "deputy_suspended": "#ef6c00",
            "deputy_revoked": "#c62828",
            "revoked": "#c62828",
            "cancelled": "#c62828",
            "forged": "#b71c1c",
            "not_a_badge": "#455a64",
            "unconfirmed": "#ef6c00",
        }[self.value]


@dataclass(frozen=True)
class BadgeVerification:
    status: BadgeStatus
    message: str
    online: bool  # checked against the register (False: public key only)
    permit_number: str | None = None
    service: ServiceType | None = None
    holder_kind: str | None = None
    holder_name: str | None = None
    photo_jpeg: bytes | None = None
    valid_until: date | None = None
    issue_no: int | None = None
    current_issue_no: int | None = None
    holder_of_deputy: str | None = None  # a deputy's badge: the holder's name, from the register

    @property
    def valid(self) -> bool:
        return self.status is BadgeStatus.VALID

    @property
    def bearer_role(self) -> str:
        """Whose badge it is (Art. 11: only the holder and his deputy drive): "Titular" or "Preposto de …"."""
        if self.holder_kind == "titular":
            return "Titular"
        if self.holder_kind == "preposto":
            return f"Preposto de {self.holder_of_deputy}" if self.holder_of_deputy else "Preposto"
        return ""


def _forged(online: bool, detail: str = "") -> BadgeVerification:
    message = ForgedTokenError.MESSAGE + (f" {detail}" if detail else "")
    return BadgeVerification(BadgeStatus.FORGED, message, online)


def _not_a_badge(online: bool) -> BadgeVerification:
    return BadgeVerification(BadgeStatus.NOT_A_BADGE, NotABadgeError.MESSAGE + " O texto lido não traz o código "
                             "assinado de um crachá (confira se foi lido o código QR do verso do crachá).", online)


def verify_offline(text: str, public_pem: bytes | Sequence[bytes], *, today: date | None = None) -> BadgeVerification:
    """Signature and printed validity only, with the public key (or the current and retired keys of
    :func:`public_keys`): no register needed (street checks)."""
    today = today or local_today()
    keys = [public_pem] if isinstance(public_pem, bytes | str) else list(public_pem)
    claim: BadgeClaim | None = None
    for key in keys:
        try:
            claim = verify_token(text, key)
            break
        except NotABadgeError:
            return _not_a_badge(False)
        except ForgedTokenError:
            continue
    if claim is None:
        return _forged(False)
    who = "titular" if claim.holder_kind == "titular" else "preposto"
    note = (" Verificação sem o cadastro: suspensão, cassação e substituição da via não foram conferidas.")
    # What the badge prints, as its signed claim says (badges printed before the public verifier: nothing).
    service = next((t for t in ServiceType if t.code == claim.service_code), None)
    if claim.valid_until < today:
        return BadgeVerification(
            BadgeStatus.EXPIRED, f"Crachá de {claim.permit_number} ({who}) vencido em "
            f"{format_date(claim.valid_until)} (Art. 4º, § 1º).{note}", False, claim.permit_number,
            holder_kind=claim.holder_kind, valid_until=claim.valid_until, issue_no=claim.issue_no, service=service, holder_name=claim.holder_name)
    return BadgeVerification(
        BadgeStatus.VALID, f"Assinatura autêntica: crachá de {claim.permit_number} ({who}), "
        f"{claim.issue_no}ª via, válido até {format_date(claim.valid_until)}.{note}", False,
        claim.permit_number, holder_kind=claim.holder_kind, valid_until=claim.valid_until,
        issue_no=claim.issue_no, service=service, holder_name=claim.holder_name)


@requires(*READERS)
def verify_badge(ctx: AppContext, text: str, *, today: date | None = None) -> BadgeVerification:
    """Signature, then the register: forged, revoked, cancelled, suspended, expired, superseded or valid."""
    today = today or local_today()
    claim: BadgeClaim | None = None
    signer = ""
    for public in _verification_keys(ctx):
        try:
            claim = verify_token(text, public)
        except NotABadgeError:
            return _not_a_badge(True)
        except ForgedTokenError:
            continue
        signer = key_id(public)
        break
    if claim is None:
        return _forged(True)
    with ctx.read() as s:
        permit = s.scalar(select(Permit).where(Permit.number == claim.permit_number))
        if permit is None:
            return _forged(True, "A permissão do código não consta do cadastro.")
        holder = s.get(Person, permit.person_id)
        assert holder is not None
        link: DeputyLink | None = None
        bearer: Person | None = None
        if claim.holder_kind == "titular":
            bearer = holder
            if cpf_digest(holder.cpf) != claim.cpf_digest:
                return _forged(True, "O código não corresponde ao titular cadastrado.")
            current = permit.badge_issue_no
        else:
            for candidate, person in s.execute(
                select(DeputyLink, Person).join(Person, Person.id == DeputyLink.deputy_person_id)
                .where(DeputyLink.permit_id == permit.id).order_by(DeputyLink.id.desc())
            ).all():
                if cpf_digest(person.cpf) == claim.cpf_digest:
                    link, bearer = candidate, person
                    break
            if link is None or bearer is None:
                return _forged(True, "O código não corresponde a nenhum preposto cadastrado.")
            current = link.badge_issue_no
        assert bearer is not None
        if claim.issue_no > current:
            return _forged(True, "Esta via nunca foi impressa pelo sistema.")
        mismatch, unconfirmed = _printed_mismatch(s, permit, link, claim, signer)
        if mismatch:
            return _forged(True, mismatch)
        photos = _newest_photos(s, {bearer.id})
    result = _register_status(permit, link, claim, current, today)
    status, message = result
    if unconfirmed and status is BadgeStatus.VALID:  # never VÁLIDO for what the register cannot confirm
        status, message = BadgeStatus.UNCONFIRMED, unconfirmed
    shown = status is not BadgeStatus.FORGED
    return BadgeVerification(
        status, message, True, permit.number, permit.service_type, claim.holder_kind,
        bearer.full_name if shown else None, photos.get(bearer.id) if status is BadgeStatus.VALID else None,
        claim.valid_until, claim.issue_no, current,
        holder.full_name if shown and link is not None else None,
    )


def _printed_mismatch(s: Session, permit: Permit, link: DeputyLink | None, claim: BadgeClaim,
                      signer: str) -> tuple[str | None, str | None]:
    """(why the claim is not a badge the system printed, why the register cannot confirm it), pt_BR.

    The print log keeps the digest of each signed claim: a badge signed with a leaked key, but never
    printed, or printed and then altered (validity, copy, holder), differs from it. Prints made
    before the log kept digests are compared field by field with what they could have been; a
    validity earlier than the register's then reads "confirme no balcão", never valid.
    """
    printed = s.scalars(select(BadgePrint).where(
        BadgePrint.permit_id == permit.id, BadgePrint.issue_no == claim.issue_no,
        BadgePrint.deputy_link_id.is_(None) if link is None else BadgePrint.deputy_link_id == link.id,
    ).order_by(BadgePrint.id.desc())).first()
    if printed is None:
        return "Esta via não consta do registro de impressões do sistema.", None
    if printed.claim_sha256 is not None:
        if printed.claim_sha256 != claim_digest(claim):
            return ("Os dados do código (validade, via ou portador) não conferem com o crachá impresso "
                    f"pelo sistema em {format_date(printed.printed_at.date())}."), None
        if printed.key_id is not None and printed.key_id != signer:
            return "O código foi assinado com uma chave diferente da que assinou o crachá impresso.", None
        return None, None
    # A print without a digest was made before revision 0008, when a claim had five fields (the
    # printed fields came later) and the installation had one key (rotation came with 0008): every
    # field the claim carries is checked against what such a print could have been.
    if claim.printed_fields:
        return ("Esta via foi impressa antes de o código trazer nome, placa e CPF mascarado: um código com "
                "esses dados nesta via não foi impresso pelo sistema."), None
    retired = _retired_keys(s)
    first_key = retired[0] if retired else _current_public(s)
    if first_key is None or key_id(first_key) != signer:
        return "O código foi assinado com uma chave criada depois da impressão desta via.", None
    register = badge_valid_until(permit)
    if claim.valid_until > register:
        return (f"A validade do código ({format_date(claim.valid_until)}) passa da validade do registro no "
                f"cadastro ({format_date(register)})."), None
    if claim.valid_until != register:  # a badge printed before a renewal, or a forgery: the counter decides
        return None, (f"Via impressa antes do registro completo das impressões: a validade do código "
                      f"({format_date(claim.valid_until)}) difere da do cadastro ({format_date(register)}). "
                      "Confirme no balcão da SESTRAN antes de aceitar o crachá.")
    return None, None


def _register_status(permit: Permit, link: DeputyLink | None, claim: BadgeClaim, current: int,
                     today: date) -> tuple[BadgeStatus, str]:
    instrument = permit.service_type.instrument
    ended = format_date(permit.ended_on) if permit.ended_on else "data não registrada"
    if permit.state is PermitState.REVOKED:
        return BadgeStatus.REVOKED, (f"A {instrument} {permit.number} foi cassada em {ended} "
                                     "(Art. 34, IV; Art. 35). Recolha o crachá.")
    if permit.state is PermitState.CANCELLED:
        return BadgeStatus.CANCELLED, (f"A {instrument} {permit.number} foi cancelada a pedido em {ended} "
                                       "(Art. 6º, § 7º). Recolha o crachá.")
    if permit.state is PermitState.SUSPENDED:
        until = f" até {format_date(permit.suspended_until)}" if permit.suspended_until else ""
        return BadgeStatus.SUSPENDED, (f"A {instrument} {permit.number} está suspensa{until} (Art. 34, III): "
                                       "o serviço não pode ser prestado.")
    if permit.state is PermitState.EXPIRED:
        return BadgeStatus.EXPIRED, (f"O prazo da {instrument} {permit.number} terminou em "
                                     f"{format_date(permit.term_end)} (Art. 6º).")
    if permit.state is not PermitState.ACTIVE:
        return BadgeStatus.REVOKED, f"A {instrument} {permit.number} não está em vigor ({permit.state.label})."
    if link is not None and link.revoked:
        return BadgeStatus.DEPUTY_REVOKED, (f"O registro do preposto de {permit.number} foi cassado em "
                                            f"{format_date(link.end_on) if link.end_on else ended} (Art. 34, IV): "
                                            "o crachá não vale mais. Recolha o crachá.")
    if link is not None and link.end_on is None and link.suspended_until is not None \
            and today < link.suspended_until:
        return BadgeStatus.DEPUTY_SUSPENDED, (f"O preposto de {permit.number} está suspenso até "
                                              f"{format_date(link.suspended_until)} (Art. 34, III): não pode "
                                              "conduzir o veículo.")
    if link is not None and link.end_on is not None:
        return BadgeStatus.UNLINKED, (f"O preposto foi desvinculado de {permit.number} em "
                                      f"{format_date(link.end_on)} (Art. 14): o crachá não vale mais.")
    if claim.issue_no < current:
        return BadgeStatus.SUPERSEDED, (f"Este crachá é a {claim.issue_no}ª via; a via em uso é a {current}ª. "
                                        "Uma via anterior (perdida, roubada ou substituída) não vale mais.")
    if claim.valid_until < today:
        return BadgeStatus.EXPIRED, (f"Crachá vencido em {format_date(claim.valid_until)}: o registro deve ser "
                                     "renovado anualmente (Art. 4º, § 1º).")
    who = "titular" if link is None else "preposto"
    return BadgeStatus.VALID, (f"{instrument.capitalize()} {permit.number} em vigor ({who}), "
                               f"{claim.issue_no}ª via, válido até {format_date(claim.valid_until)}.")
