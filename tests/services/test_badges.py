"""Badges end to end on SQLite and PostgreSQL: from application to a printed, logged badge whose QR,
decoded from the page at print resolution, verifies against the register; and every way a badge fails."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from dataclasses import replace
from datetime import date, timedelta

import pytest
import zxingcpp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from enforcement_factory import revoke_through_process, suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PIL import Image
from pypdf import PdfReader
from sqlalchemy import select
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    check_wording,
    existing_register,
    raises_code,
    raises_rule,
)

from motodesk.models import AuditEvent, BadgePrint, DeputyLink, Permit, Setting
from motodesk.printing.token import BadgeClaim, cpf_digest, generate_keypair, sign_claim, verify_token
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.periods import add_years
from motodesk.rules.settings import DEFAULT_VERIFIER_BASE_URL
from motodesk.services import badges, badges_printing, permits
from motodesk.services.badges import BadgeRequest, BadgeStatus
from motodesk.services.context import AppContext
from motodesk.services.errors import ConflictError, InvalidInputError

TODAY = date.today()
MM_PER_PT = 25.4 / 72


def _issued(ctx: AppContext, supervisor: AppContext, service: ServiceType = ServiceType.MOTOBOY, **kw):  # noqa: ANN003, ANN202
    dossier = make_dossier(ctx, service, **kw)
    permits.approve(supervisor, dossier.application_id, "1.234/2026", TODAY)
    return dossier, permits.issue(supervisor, dossier.application_id)


def _pages_mm(pdf: bytes) -> list[tuple[float, float]]:
    reader = PdfReader(io.BytesIO(pdf))
    return [(float(p.mediabox.width) * MM_PER_PT, float(p.mediabox.height) * MM_PER_PT) for p in reader.pages]


def _text(pdf: bytes, page: int) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        return PdfReader(io.BytesIO(pdf)).pages[page - 1].extract_text()
    out = subprocess.run([tool, "-f", str(page), "-l", str(page), "-enc", "UTF-8", "-", "-"], input=pdf,
                         capture_output=True, check=True)
    return " ".join(out.stdout.decode("utf-8").split())


def _render(pdf: bytes, page: int, dpi: int = 300) -> Image.Image:
    tool = shutil.which("pdftoppm")
    if tool is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    out = subprocess.run([tool, "-f", str(page), "-l", str(page), "-r", str(dpi), "-png", "-"], input=pdf,
                         capture_output=True, check=True)
    return Image.open(io.BytesIO(out.stdout)).convert("RGB")


def _qr_raw(pdf: bytes, page: int, dpi: int = 300) -> list[str]:
    image = _render(pdf, page, dpi)
    return [b.text for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]


def _qr(pdf: bytes, page: int, dpi: int = 300) -> list[str]:
    """The tokens in the QR codes: each code is the verifier page's address, the token its fragment."""
    texts = _qr_raw(pdf, page, dpi)
    for text in texts:
        assert text.startswith(DEFAULT_VERIFIER_BASE_URL + "#"), text[:60]
    return [text.split("#", 1)[1] for text in texts]


def test_full_path_from_application_to_a_verified_badge(ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext, inspector: AppContext) -> None:
    dossier, issued = _issued(ctx, supervisor, ServiceType.MOTOTAXI, name="João Conceição Araújo")
    printed = badges.print_badges(clerk, [issued.id])
    assert [(b.permit_number, b.issue_no, b.holder_kind) for b in printed.badges] == [(issued.number, 1, "titular")]

    # The PDF read back: CR80 pages, the texts, the very photo of the dossier.
    pages = _pages_mm(printed.pdf)
    assert len(pages) == 2
    for width, height in pages:
        assert width == pytest.approx(85.60, abs=0.05) and height == pytest.approx(53.98, abs=0.05)
    front = _text(printed.pdf, 1)
    for expected in ("MOTOTÁXI", "João Conceição Araújo", issued.number, "PERMISSÃO Nº",
                     f"Válido até {add_years(TODAY, 1):%d/%m/%Y}", f"***.{dossier.cpf[3:6]}.{dossier.cpf[6:9]}-**"):
        assert expected in front, expected
    page = PdfReader(io.BytesIO(printed.pdf)).pages[0]
    assert [img.image.size for img in page.images] == [(354, 472)]
    (xobject,) = page["/Resources"]["/XObject"].values()
    assert xobject.get_object().get_data() == dossier.photo  # the stored JPEG, embedded as it is
    assert "1ª via" in _text(printed.pdf, 2)

    # A picture of the issued badge, front and back, for people to look at.
    if ctx.db.is_sqlite:
        front_png, back_png = _render(printed.pdf, 1, 200), _render(printed.pdf, 2, 200)
        sheet = Image.new("RGB", (front_png.width + back_png.width + 30, front_png.height + 20), "white")
        sheet.paste(front_png, (10, 10))
        sheet.paste(back_png, (front_png.width + 20, 10))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        sheet.save(SCREENSHOTS / "badge_issued_mototaxi.png")

    # The QR, rendered at print resolution and decoded, is the signed token; it verifies as valid.
    (address,) = _qr_raw(printed.pdf, 2, dpi=300)
    tokens = _qr(printed.pdf, 2, dpi=300)
    assert len(tokens) == 1 and tokens[0].startswith("MD1.") and address.endswith("#" + tokens[0])
    for text in (address, tokens[0]):  # the scanner types the address; a bare token verifies too
        assert badges.verify_badge(inspector, text).status is BadgeStatus.VALID
    claim = verify_token(address, badges.public_key_pem(inspector))
    assert (claim.holder_name, claim.service_code, claim.cpf_masked) == (
        "João Conceição Araújo", "MT", f"***.{dossier.cpf[3:6]}.{dossier.cpf[6:9]}-**")
    result = badges.verify_badge(inspector, tokens[0])
    assert result.status is BadgeStatus.VALID and result.online
    assert result.holder_name == "João Conceição Araújo" and result.photo_jpeg == dossier.photo
    assert (result.permit_number, result.issue_no, result.current_issue_no) == (issued.number, 1, 1)
    assert result.valid_until == add_years(TODAY, 1)

    # The print is logged, with who and why.
    log = badges.print_log(clerk, issued.id)
    assert [(r.issue_no, r.reason, r.printed_by, r.layout) for r in log] == [(1, "Primeira via", "clerk", "card")]

    # The documents of the permit, read back.
    certificate = permits.registration_certificate_pdf(clerk, issued.id)
    (width, height), = _pages_mm(certificate)
    assert (round(width), round(height)) == (210, 297)
    text = _text(certificate, 1)
    assert "Certificado de Registro Cadastral" in text and issued.number in text and "João Conceição Araújo" in text
    assert f"até {add_years(TODAY, 1):%d/%m/%Y}" in text and "Decreto nº 1.234/2026" in text
    authorization = permits.transit_authorization_pdf(clerk, issued.id)
    text = _text(authorization, 1)
    assert "Autorização de Trânsito" in text and issued.number in text
    assert dossier.cpf not in text.replace(".", "").replace("-", "")  # masked in a document carried in public


def test_a_reprint_needs_a_reason_and_supersedes_the_lost_copy(ctx: AppContext, clerk: AppContext,
                                                               supervisor: AppContext) -> None:
    _dossier, issued = _issued(ctx, supervisor)
    first = _qr(badges.print_badges(clerk, [issued.id]).pdf, 2)[0]
    with raises_code(InvalidInputError, "invalid_input", fields=("reason",)):
        badges.print_badges(clerk, [issued.id])
    second = badges.print_badges(clerk, [issued.id], reason="Perda informada pelo titular (BO 123/2026)",
                                 layout="a4")
    assert second.badges[0].issue_no == 2
    assert [(round(w), round(h)) for w, h in _pages_mm(second.pdf)] == [(210, 297), (210, 297)]
    lost = badges.verify_badge(clerk, first)
    assert lost.status is BadgeStatus.SUPERSEDED and (lost.issue_no, lost.current_issue_no) == (1, 2)
    check_wording(lost.status.value, lost.message)
    assert lost.photo_jpeg is None
    new = _qr(second.pdf, 2)[0]
    assert badges.verify_badge(clerk, new).status is BadgeStatus.VALID
    reasons = [r.reason for r in badges.print_log(clerk, issued.id)]
    assert reasons == ["Perda informada pelo titular (BO 123/2026)", "Primeira via"]


def test_a_suspended_permit_verifies_as_suspended_and_prints_nothing(ctx: AppContext, clerk: AppContext,
                                                                     supervisor: AppContext) -> None:
    _dossier, issued = _issued(ctx, supervisor)
    token = _qr(badges.print_badges(clerk, [issued.id]).pdf, 2)[0]
    suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=20))
    result = badges.verify_badge(clerk, token)
    assert result.status is BadgeStatus.SUSPENDED
    assert (TODAY + timedelta(days=20)).strftime("%d/%m/%Y") in result.message  # the end of the suspension
    check_wording(result.status.value, result.message)
    with raises_rule("document_state"):
        badges.print_badges(clerk, [issued.id], reason="Dano")
    with ctx.read() as s:
        assert len(s.scalars(select(BadgePrint)).all()) == 1
    revoke_through_process(supervisor, issued.id)
    assert badges.verify_badge(clerk, token).status is BadgeStatus.REVOKED


def test_cancelled_and_expired(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    _d1, cancelled = _issued(ctx, supervisor)
    _d2, expired = _issued(ctx, supervisor, name="Maria Lúcia Andrade")
    printed = badges.print_badges(clerk, [cancelled.id, expired.id])
    assert len(_pages_mm(printed.pdf)) == 4
    token_cancelled, token_expired = _qr(printed.pdf, 2)[0], _qr(printed.pdf, 4)[0]
    # The badge's printed validity passes before anything else happens:
    later = badges.verify_badge(clerk, token_expired, today=add_years(TODAY, 1) + timedelta(days=1))
    assert later.status is BadgeStatus.EXPIRED and later.valid_until == add_years(TODAY, 1)
    check_wording(later.status.value, later.message)
    permits.cancel(clerk, cancelled.id, "Aposentadoria", express_request=True)
    assert badges.verify_badge(clerk, token_cancelled).status is BadgeStatus.CANCELLED
    permits.expire(clerk, expired.id, on=expired.term_end + timedelta(days=1))
    assert badges.verify_badge(clerk, token_expired).status is BadgeStatus.EXPIRED


def test_tampered_junk_and_foreign_tokens_are_forged_never_a_crash(ctx: AppContext, clerk: AppContext,
                                                                    supervisor: AppContext) -> None:
    dossier, issued = _issued(ctx, supervisor)
    token = _qr(badges.print_badges(clerk, [issued.id]).pdf, 2)[0]
    prefix, payload, signature = token.split(".")
    flipped = payload[:10] + ("A" if payload[10] != "A" else "B") + payload[11:]
    private_pem, _ = badges._key_pair(ctx)
    claim = BadgeClaim(issued.number, cpf_digest(dossier.cpf), add_years(TODAY, 1), 1, "titular")
    other_key = sign_claim(claim, generate_keypair()[0])
    unknown_permit = sign_claim(replace(claim, permit_number="MB-9999/2020"), private_pem)
    someone_else = sign_claim(replace(claim, cpf_digest=cpf_digest("52998224725")), private_pem)
    never_printed = sign_claim(replace(claim, issue_no=7), private_pem)
    cases = [
        f"{prefix}.{flipped}.{signature}",  # one character of the payload changed
        f"{prefix}.{payload}.{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}",
        "MD1." + "X" * 10_240,  # 10 KB
        DEFAULT_VERIFIER_BASE_URL + "#" + f"{prefix}.{flipped}.{signature}",  # the same, in the badge's address
        other_key,  # a valid signature by another key
        unknown_permit,  # our signature over a permit the register does not know
        someone_else,  # our signature, the permit's number, another person's CPF
        never_printed,  # an issue number never printed
        token.lower()[:-3] + token[-3:],  # mixed case
    ]
    for text in cases:
        result = badges.verify_badge(clerk, text)
        assert result.status is BadgeStatus.FORGED, text[:40]
        assert result.message.startswith("Crachá falsificado ou ilegível.")
        assert result.holder_name is None and result.photo_jpeg is None
    # Texts that do not claim to be a badge are "not a badge", never "forged" (issue #18, item 11).
    for text in ("X" * 10_240, bytes(range(256)).decode("latin-1") * 4, "\x00\x01\x02MD1.", "",
                 "https://www.patrocinio.mg.gov.br/", DEFAULT_VERIFIER_BASE_URL, "ABC1D23"):
        result = badges.verify_badge(clerk, text)
        assert result.status is BadgeStatus.NOT_A_BADGE, text[:40]
        assert result.message.startswith("Este código não é um crachá do MotoDesk.")
        assert result.holder_name is None and result.permit_number is None
        assert badges.verify_offline(text, badges.public_key_pem(clerk)).status is BadgeStatus.NOT_A_BADGE
    assert badges.verify_badge(clerk, token.lower()).status is BadgeStatus.VALID  # Caps Lock scanner
    assert badges.verify_badge(clerk, f"  {token}\r\n").status is BadgeStatus.VALID  # the scanner's Enter


def test_offline_verification_needs_only_the_public_key(ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext, tmp_path) -> None:  # noqa: ANN001
    _dossier, issued = _issued(ctx, supervisor)
    token = _qr(badges.print_badges(clerk, [issued.id]).pdf, 2)[0]
    key_file = badges.export_public_key(supervisor, tmp_path / "motodesk-crachas.pem")
    public = key_file.read_bytes()
    assert public.startswith(b"-----BEGIN PUBLIC KEY-----") and b"PRIVATE" not in public
    ok = badges.verify_offline(token, public)
    assert ok.status is BadgeStatus.VALID and not ok.online and issued.number in ok.message
    check_wording(ok.status.value, ok.message)  # says the register was not consulted
    assert ok.holder_name == _dossier.name and ok.service is ServiceType.MOTOBOY  # as the signed claim says
    assert badges.verify_offline(token, public, today=add_years(TODAY, 2)).status is BadgeStatus.EXPIRED
    tampered = token[:-2] + ("AB" if token.endswith("AA") else "AA")  # always a different token
    assert badges.verify_offline(tampered, public).status is BadgeStatus.FORGED
    assert badges.verify_offline(token, generate_keypair()[1]).status is BadgeStatus.FORGED


def test_the_key_pair_is_made_once_and_stays_out_of_the_database(ctx: AppContext, clerk: AppContext) -> None:
    first = badges._key_pair(ctx)  # made when the test workstation was registered (conftest)
    assert badges._key_pair(clerk) == first
    assert first[0].startswith(b"-----BEGIN PRIVATE KEY-----")
    with ctx.read() as s:
        assert s.get(Setting, badges.SIGNING_KEY_SETTING) is None  # the database keeps public keys only
        assert isinstance(load_pem_public_key(json.loads(s.get(Setting, badges.PUBLIC_KEY_SETTING).value).encode()), Ed25519PublicKey)
        values = " ".join(s.scalars(select(Setting.value)).all())
        trail = " ".join(s.scalars(select(AuditEvent.changes)).all())
    assert "PRIVATE KEY" not in values
    assert "PRIVATE KEY" not in trail and "badge_signing_key" not in trail


def test_preview_is_unsigned_and_logs_nothing(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    _dossier, issued = _issued(ctx, supervisor)
    pdf = badges.preview_badges(clerk, [issued.id], offset_mm=(1.5, -0.5))
    texts = _qr(pdf, 2)
    assert texts[0].startswith("PREVIA-SEM-VALOR-") and 200 < len(texts[0]) < 330  # a real token's size
    assert badges.verify_badge(clerk, texts[0]).status is BadgeStatus.NOT_A_BADGE
    assert badges.verify_badge(clerk, _qr_raw(pdf, 2)[0]).status is BadgeStatus.NOT_A_BADGE
    assert badges.print_log(clerk, issued.id) == []
    assert permits.get_row(clerk, "permit", issued.id).badge_issue_no == 0


def test_deputy_badge_is_marked_and_verifies_as_the_deputy(ctx: AppContext, clerk: AppContext,
                                                           supervisor: AppContext) -> None:
    _holder, issued = _issued(ctx, supervisor, name="Titular Tomás Ribeiro")
    deputy = make_dossier(ctx, name="Preposto Paulo Nunes")
    with raises_rule("document_deputy"):
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])
    with ctx.write() as s:
        existing_register(s)
        s.add(DeputyLink(permit_id=issued.id, deputy_person_id=deputy.person_id, start_on=TODAY))
    printed = badges.print_badges(clerk, [BadgeRequest(issued.id), BadgeRequest(issued.id, deputy=True)])
    assert [b.holder_kind for b in printed.badges] == ["titular", "preposto"]
    front = _text(printed.pdf, 3)
    assert "PREPOSTO" in front and "Preposto Paulo Nunes" in front and "Titular Tomás Ribeiro" in front
    result = badges.verify_badge(clerk, _qr(printed.pdf, 4)[0])
    assert result.status is BadgeStatus.VALID and result.holder_kind == "preposto"
    assert result.holder_name == "Preposto Paulo Nunes" and result.photo_jpeg == deputy.photo
    with ctx.write() as s:
        existing_register(s)
        s.scalar(select(DeputyLink)).end_on = TODAY
    ended = badges.verify_badge(clerk, _qr(printed.pdf, 4)[0])
    assert ended.status is BadgeStatus.UNLINKED
    check_wording(ended.status.value, ended.message)


def test_two_workstations_reprinting_at_once_do_not_share_an_issue_number(ctx: AppContext, clerk: AppContext,
                                                                          supervisor: AppContext,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _dossier, issued = _issued(ctx, supervisor)
    badges.print_badges(clerk, [issued.id])
    real = badges_printing._render

    def render_while_another_prints(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        monkeypatch.setattr(badges_printing, "_render", real)
        badges.print_badges(supervisor, [issued.id], reason="Dano")  # the other workstation is faster
        return real(*args, **kwargs)

    monkeypatch.setattr(badges_printing, "_render", render_while_another_prints)
    with raises_code(ConflictError, "conflict"):
        badges.print_badges(clerk, [issued.id], reason="Perda")
    assert [r.issue_no for r in badges.print_log(clerk, issued.id)] == [2, 1]
    with ctx.read() as s:
        assert s.get(Permit, issued.id).badge_issue_no == 2


def test_badge_needs_a_current_registration(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    _dossier, issued = _issued(ctx, supervisor)
    with ctx.write() as s:
        existing_register(s)
        s.get(Permit, issued.id).certificate_valid_until = TODAY - timedelta(days=1)
    with raises_rule("document_certificate"):
        badges.print_badges(clerk, [issued.id])
    old = make_dossier(ctx, name="Antigo Titular Expirado")
    with ctx.write() as s:
        existing_register(s)
        permit = Permit(number="MB-0999/2020", service_type=ServiceType.MOTOBOY, year=2020, seq=999,
                        person_id=old.person_id, state=PermitState.EXPIRED, issued_on=date(2020, 1, 2),
                        term_end=date(2025, 1, 2), certificate_valid_until=date(2021, 1, 2))
        s.add(permit)
        s.flush()
        expired_id = permit.id
    with raises_rule("document_state"):
        badges.print_badges(clerk, [expired_id])
    with raises_code(InvalidInputError, "badge.duplicate_in_print"):
        badges.print_badges(clerk, [issued.id, issued.id])


def test_workstations_creating_the_key_at_once_end_with_one_pair(ctx: AppContext, db_url: str) -> None:
    import threading

    from motodesk.models.db import Database
    from motodesk.services.errors import MotodeskError

    with ctx.write() as s:  # a fresh installation: no key yet
        s.delete(s.get(Setting, badges.PUBLIC_KEY_SETTING))
    barrier = threading.Barrier(6)
    created: list[str] = []
    refused: list[str] = []
    failures: list[BaseException] = []

    def workstation() -> None:
        db = Database.open(db_url)
        try:
            barrier.wait(timeout=30)
            created.append(badges.register_printing_station(AppContext(db)).key_id)
        except MotodeskError as exc:
            refused.append(str(exc))
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)
        finally:
            db.dispose()

    threads = [threading.Thread(target=workstation) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == [] and len(created) >= 1 and len(created) + len(refused) == 6
    assert len(set(created)) == 1 and badges.current_signing_key(ctx).key_id == created[0]
    assert badges.public_keys(ctx) == [badges.public_key_pem(ctx)]  # one pair, and nobody's half pair
