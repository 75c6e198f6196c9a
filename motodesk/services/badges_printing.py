"""Printing badges (:mod:`motodesk.services.badges`): what each badge says, signed, rendered before
anything is written, then the issue number raised and the print logged; previews carry an unsigned
placeholder; the print log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from motodesk.models import BadgePrint, Blob, CardUse, DeputyLink, Permit, Person, Photo, Vehicle
from motodesk.printing.badge import BadgeData, render_badges
from motodesk.printing.token import BadgeClaim, sign_claim
from motodesk.rules.common import Role
from motodesk.rules.document_gate import Document
from motodesk.rules.fees import FeeAct
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_plate, mask_cpf
from motodesk.services import card_stock, fees
from motodesk.services.badges_keypair import READERS, current_signing_key
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.document_checks import DocumentRequest, require_documents
from motodesk.services.errors import ConflictError, InvalidInputError, NotFoundError
from motodesk.services.settings import law_settings

PRINTERS = (Role.CLERK, Role.SUPERVISOR)
FIRST_PRINT_REASON = "Primeira via"
MAX_REASON = 500
MAX_BATCH = 5000
Layout = Literal["card", "a4"]


def preview_token(claim: BadgeClaim) -> str:
    """What a preview's QR says instead of the token: an unsigned text as long as the token of *claim*
    would be, so the code looks the same size (and reads "não é um crachá" on any verifier)."""
    length = len("MD1.") + -(-len(claim.canonical_bytes()) * 8 // 5) + 1 + 103
    return ("PREVIA-SEM-VALOR-" * (length // 17 + 1))[:length]


@dataclass(frozen=True)
class BadgeRequest:
    """One badge to print: the holder's, or the deputy's (preposto) of that permit.

    ``person_id``, when given, is the person the badge is asked for: it must be the holder (or, for a
    deputy badge, the linked deputy), or the print is refused (Art. 6º, § 1º; Art. 7º).
    """

    permit_id: int
    deputy: bool = False
    person_id: int | None = None


@dataclass(frozen=True)
class PrintedBadge:
    permit_id: int
    permit_number: str
    issue_no: int
    holder_kind: str  # titular | preposto
    holder_name: str
    qr_text: str = ""  # what its QR code holds: the verifier page's address with the signed token


@dataclass(frozen=True)
class PrintedBadges:
    pdf: bytes
    badges: list[PrintedBadge]
    layout: str


@dataclass(frozen=True)
class BadgePrintRow:
    printed_at: datetime
    printed_by: str
    issue_no: int
    holder_kind: str
    reason: str
    layout: str
    card_serial: str | None = None  # the pre-numbered card it was printed on


@dataclass
class _Planned:
    request: BadgeRequest
    permit_id: int
    link_id: int | None
    old_issue: int
    data: BadgeData
    claim_sha256: str | None = None


def claim_digest(claim: BadgeClaim) -> str:
    """SHA-256 of what a badge's QR asserts, kept in the print log (``BadgePrint.claim_sha256``)."""
    return hashlib.sha256(claim.canonical_bytes()).hexdigest()


def badge_valid_until(permit: Permit) -> date:
    """The badge is the registration (Art. 5º, § 4º): valid while the certificate is (Art. 4º, § 1º)."""
    return min(permit.certificate_valid_until, permit.term_end)


def _gate(s: Session, requests: Sequence[BadgeRequest], on: date, settings: LawSettings) -> None:
    """Every badge judged by the document gate (:mod:`motodesk.rules.document_gate`) in this transaction.

    The permit in force, the bearer the one it was granted to, the vehicle's documents, inspection
    and accidents, the holder's (and the deputy's) certificates: every failing article is listed.
    """
    require_documents(s, [DocumentRequest(r.permit_id, Document.DEPUTY_BADGE if r.deputy else Document.BADGE,
                                          r.person_id) for r in requests],
                      on, settings, "Crachá não impresso:")


def _newest_photos(s: Session, person_ids: set[int]) -> dict[int, bytes]:
    if not person_ids:
        return {}
    newest = (
        select(Photo.person_id, func.max(Photo.captured_at).label("at"))
        .where(Photo.person_id.in_(person_ids)).group_by(Photo.person_id).subquery()
    )
    rows = s.execute(
        select(Photo.person_id, Blob.data)
        .join(newest, (newest.c.person_id == Photo.person_id) & (newest.c.at == Photo.captured_at))
        .join(Blob, Blob.sha256 == Photo.blob_sha256)
        .order_by(Photo.id)
    ).all()
    return {pid: bytes(data) for pid, data in rows}


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def _plan(s: Session, requests: Sequence[BadgeRequest], private_pem: bytes, on: date, settings: LawSettings, *,
          reason: str | None, preview: bool) -> list[_Planned]:
    ids = sorted({r.permit_id for r in requests})
    permits: dict[int, Permit] = {}
    for chunk in _chunks(ids):
        permits.update({p.id: p for p in s.scalars(select(Permit).where(Permit.id.in_(chunk)))})
    links: dict[int, DeputyLink] = {}
    deputy_ids = [r.permit_id for r in requests if r.deputy]
    for chunk in _chunks(deputy_ids):
        links.update({link.permit_id: link for link in s.scalars(
            select(DeputyLink).where(DeputyLink.permit_id.in_(chunk), DeputyLink.end_on.is_(None)))})
    person_ids = {p.person_id for p in permits.values()} | {link.deputy_person_id for link in links.values()}
    people: dict[int, Person] = {}
    photos: dict[int, bytes] = {}
    for chunk in _chunks(sorted(person_ids)):
        people.update({p.id: p for p in s.scalars(select(Person).where(Person.id.in_(chunk)))})
        photos.update(_newest_photos(s, set(chunk)))
    vehicle_ids = sorted({p.vehicle_id for p in permits.values() if p.vehicle_id})
    plates: dict[int, str] = {}
    for chunk in _chunks(vehicle_ids):
        plates.update(dict(s.execute(select(Vehicle.id, Vehicle.plate).where(Vehicle.id.in_(chunk))).all()))

    missing_reason: list[str] = []
    planned: list[_Planned] = []
    if any(r.permit_id not in permits for r in requests):
        raise NotFoundError("Uma das permissões pedidas não existe mais.")
    _gate(s, requests, on, settings)
    for request in requests:
        permit = permits[request.permit_id]
        holder = people[permit.person_id]
        link = links.get(permit.id) if request.deputy else None
        assert link is not None or not request.deputy  # the gate refuses a deputy badge without a deputy
        bearer = people[link.deputy_person_id] if link else holder
        current = link.badge_issue_no if link else permit.badge_issue_no
        if current >= 1 and not reason and not preview:
            missing_reason.append(permit.number + (" (preposto)" if link else ""))
        issue_no = current + 1
        valid_until = badge_valid_until(permit)
        kind = "preposto" if link else "titular"
        digest: str | None = None
        plate = format_plate(plates[permit.vehicle_id]) if permit.vehicle_id in plates else "—"
        # The claim carries what the badge prints, for the public verifier page (Art. 13, VI).
        claim = BadgeClaim.for_badge(permit.number, bearer.cpf, valid_until, issue_no, kind,
                                     service_code=permit.service_type.code, plate=plate,
                                     holder_name=bearer.full_name)
        if preview:
            token = preview_token(claim)
        else:
            token = sign_claim(claim, private_pem)
            digest = claim_digest(claim)
        data = BadgeData(
            permit_number=permit.number,
            service=permit.service_type,
            holder_name=bearer.full_name,
            cpf_masked=mask_cpf(bearer.cpf),
            plate=plate,
            valid_until=valid_until,
            photo_jpeg=photos.get(bearer.id),
            token=token,
            issue_no=issue_no,
            is_deputy=link is not None,
            holder_of_deputy=holder.full_name if link else None,
            qr_base_url=settings.verifier_base_url,
        )
        planned.append(_Planned(request, permit.id, link.id if link else None, current, data, digest))
    if missing_reason:
        raise InvalidInputError(
            "Informe o motivo da reimpressão (perda, roubo, dano, renovação…): já existe crachá de "
            + ", ".join(missing_reason[:10]) + ("…" if len(missing_reason) > 10 else "") + ".",
            {"reason": "Obrigatório para reimpressão."},
        )
    return planned


def _requests(items: Sequence[int | BadgeRequest]) -> list[BadgeRequest]:
    requests = [item if isinstance(item, BadgeRequest) else BadgeRequest(int(item)) for item in items]
    if not requests:
        raise InvalidInputError("Escolha ao menos um crachá para imprimir.")
    if len(requests) > MAX_BATCH:
        raise InvalidInputError(f"No máximo {MAX_BATCH} crachás por impressão.")
    if len(set(requests)) != len(requests):
        raise InvalidInputError("O mesmo crachá aparece duas vezes na impressão.", code="badge.duplicate_in_print")
    return requests


def _render(planned: list[_Planned], layout: Layout, offset_mm: tuple[float, float]) -> bytes:
    if layout not in ("card", "a4"):
        raise InvalidInputError(f"Leiaute de impressão desconhecido: {layout!r}.")
    try:
        return render_badges([p.data for p in planned], layout=layout, offset_mm=offset_mm)
    except ValueError as exc:
        raise InvalidInputError(f"Não foi possível montar o crachá: {exc}.") from exc


@requires(*PRINTERS)
def preview_badges(ctx: AppContext, items: Sequence[int | BadgeRequest], *, layout: Layout = "card",
                   offset_mm: tuple[float, float] = (0.0, 0.0), on: date | None = None) -> bytes:
    """The badges as they will print, with an unsigned QR: nothing is logged or numbered."""
    requests = _requests(items)
    settings = law_settings(ctx)
    with ctx.read() as s:
        planned = _plan(s, requests, b"", on or local_today(), settings, reason=None, preview=True)
    return _render(planned, layout, offset_mm)


@requires(*PRINTERS)
def print_badges(ctx: AppContext, items: Sequence[int | BadgeRequest], *, reason: str | None = None,
                 layout: Layout = "card", offset_mm: tuple[float, float] = (0.0, 0.0),
                 on: date | None = None, card_serials: Sequence[str] | None = None,
                 spool: Callable[[bytes], object] | None = None) -> PrintedBadges:
    """Sign, number and log the badges, and return their PDF (one page per face, or A4 sheets).

    A first print is logged as "Primeira via"; a reprint needs ``reason`` and raises the issue
    number, so the previous copy stops verifying. Nothing is written when anything is refused.
    ``card_serials``: the pre-numbered card of each badge, in the PDF's order (see
    :mod:`motodesk.services.card_stock`, which says when they are required).
    ``spool(pdf)``: hands the PDF to the print queue inside the transaction, so the badges and their
    cards are recorded only once the queue accepted the job (it raises to refuse: nothing is written).
    """
    requests = _requests(items)
    reason = " ".join((reason or "").split()) or None
    if reason and len(reason) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais (até {MAX_REASON} caracteres).", {"reason": "Longo demais."})
    key = current_signing_key(ctx)  # this workstation must be registered to print
    private_pem, signer = key.private_pem, key.key_id
    on = on or local_today()
    settings = law_settings(ctx)
    with ctx.read() as s:
        planned = _plan(s, requests, private_pem, on, settings, reason=reason, preview=False)
    pdf = _render(planned, layout, offset_mm)
    now = datetime.now(UTC)
    stale = ("Outra estação imprimiu um destes crachás neste instante; nada foi registrado. "
             "Confira o histórico de impressões e tente de novo.")
    with ctx.write() as s:
        _gate(s, requests, on, settings)  # judged again in the transaction that numbers and logs the badges
        for p in planned:  # a second copy is paid for (Art. 6º, § 6º): one guia/DAM per badge reprinted
            if p.old_issue >= 1:
                fees.require_payment(s, settings, FeeAct.BADGE_COPY, p.permit_id)
        loaded: dict[int, Permit] = {}
        links: dict[int, DeputyLink] = {}
        for chunk in _chunks(sorted({p.permit_id for p in planned})):
            loaded.update({permit.id: permit for permit in s.scalars(select(Permit).where(Permit.id.in_(chunk)))})
        for chunk in _chunks(sorted({p.link_id for p in planned if p.link_id})):
            links.update({link.id: link for link in s.scalars(select(DeputyLink).where(DeputyLink.id.in_(chunk)))})
        rows = []
        for p in planned:
            holder: Permit | DeputyLink | None = links.get(p.link_id) if p.link_id else loaded.get(p.permit_id)
            if holder is None or holder.badge_issue_no != p.old_issue:
                raise ConflictError(stale)
            holder.badge_issue_no = p.data.issue_no
            rows.append({"permit_id": p.permit_id, "deputy_link_id": p.link_id, "issue_no": p.data.issue_no,
                         "claim_sha256": p.claim_sha256, "key_id": signer,
                         "printed_at": now, "printed_by": ctx.user.login,
                         "reason": FIRST_PRINT_REASON if p.old_issue == 0 else (reason or ""), "layout": layout})
        s.flush()
        s.execute(insert(BadgePrint), rows)
        card_stock.record_uses(s, ctx.user.login, now, layout, rows, card_serials)
        if spool is not None:
            spool(pdf)
    return PrintedBadges(pdf, [PrintedBadge(p.permit_id, p.data.permit_number, p.data.issue_no,
                                            "preposto" if p.link_id else "titular", p.data.holder_name,
                                            p.data.qr_text)
                               for p in planned], layout)


@requires(*READERS)
def print_log(ctx: AppContext, permit_id: int) -> list[BadgePrintRow]:
    """Every print and reprint of a permit's badges, newest first."""
    with ctx.read() as s:
        rows = s.execute(select(BadgePrint, CardUse.serial).outerjoin(CardUse, CardUse.badge_print_id == BadgePrint.id)
                         .where(BadgePrint.permit_id == permit_id)
                         .order_by(BadgePrint.printed_at.desc(), BadgePrint.id.desc())).all()
    return [BadgePrintRow(r.printed_at, r.printed_by, r.issue_no, "preposto" if r.deputy_link_id else "titular",
                          r.reason, r.layout, serial) for r, serial in rows]
