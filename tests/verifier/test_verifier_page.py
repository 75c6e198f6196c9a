"""The public badge verifier page in a real headless Chromium (Debian's package, driven by Playwright).

One register (SQLite) with real printed badges -- valid, suspended, revoked, reprinted -- is published
with ``publish_verifier`` into a folder served by a local http.server on 127.0.0.1; each case opens the
page at a phone's size with a badge's token as the address's fragment, as a phone camera does.

These tests are never skipped: without /usr/bin/chromium or Playwright they fail (scripts/setup.sh
installs both with WITH_TEST=1).
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from enforcement_factory import revoke_through_process, suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import SCREENSHOTS, existing_register  # type: ignore[import-not-found]

from motodesk.models import DeputyLink
from motodesk.models.db import Database
from motodesk.printing.token import BadgeClaim, cpf_digest, sign_claim, verify_token
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import badges, permits
from motodesk.services.badges import BadgeRequest
from motodesk.services.clock import local_time
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults

pytestmark = pytest.mark.browser  # part of the normal suite; `-m browser` runs only these

CHROMIUM = Path("/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
LIST_AGE = timedelta(days=3, hours=2)  # the published status list was made three days ago
# Ed25519 removed from this browser's WebCrypto: the page must fall back to the vendored @noble/ed25519.
NO_WEBCRYPTO_ED25519 = """
(() => {
  const subtle = crypto.subtle;
  const importKey = subtle.importKey.bind(subtle);
  subtle.importKey = (format, key, algorithm, ...rest) =>
    (algorithm && (algorithm.name || algorithm) === "Ed25519")
      ? Promise.reject(new DOMException("Ed25519 desligado no teste", "NotSupportedError"))
      : importKey(format, key, algorithm, ...rest);
})();
"""


@dataclass
class Register:
    valid: str
    suspended: str
    revoked: str
    superseded: str  # the first copy of a badge reprinted since
    reprinted: str  # the copy in use of that badge
    deputy_revoked: str  # the badge of the valid permit's deputy, whose registration was revoked
    expired: str
    old_format: str  # a badge signed before the claims carried the printed fields
    valid_number: str
    valid_until: date
    suspended_until: date
    issued_at: datetime
    site: Path
    tampered_site: Path


def _token(qr_text: str) -> str:
    return qr_text.split("#", 1)[1]


@pytest.fixture(scope="module")
def register(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Register]:
    root = tmp_path_factory.mktemp("verifier")
    db = Database.open(f"sqlite:///{root / 'motodesk.sqlite3'}")
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    badges.register_printing_station(ctx)  # this test workstation prints and signs the status list
    supervisor = ctx.as_user(CurrentUser(None, "supervisor", "Supervisora", Role.SUPERVISOR))

    def printed(name: str, service: ServiceType, seed: int) -> tuple[int, str, str]:
        dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name, photo_seed=seed)
        issued = permits.issue(supervisor, dossier.application_id)
        (badge,) = badges.print_badges(supervisor, [issued.id]).badges
        return issued.id, issued.number, badge.qr_text

    _valid_id, valid_number, valid = printed("Maria da Conceição Araújo", ServiceType.MOTOTAXI, 1)
    suspended_id, _n, suspended = printed("Pedro Henrique Souza", ServiceType.MOTOBOY, 2)
    revoked_id, _n, revoked = printed("José Carlos Ribeiro", ServiceType.MOTOFRETE, 3)
    reprint_id, _n, superseded = printed("Ana Beatriz Lima", ServiceType.MOTOTAXI, 4)
    (again,) = badges.print_badges(supervisor, [reprint_id], reason="Perda").badges
    deputy = make_dossier(ctx, name="Preposto Paulo Nunes", photo_seed=5)
    with ctx.write() as s:
        existing_register(s)
        s.add(DeputyLink(permit_id=_valid_id, deputy_person_id=deputy.person_id, start_on=date.today()))
    (deputy_badge,) = badges.print_badges(supervisor, [BadgeRequest(_valid_id, deputy=True)]).badges
    with ctx.write() as s:  # the deputy's registration revoked (Art. 34, IV); the holder's badge stays valid
        existing_register(s)
        link = s.scalar(select(DeputyLink))
        assert link is not None
        link.revoked, link.end_on = True, date.today()
    until = date.today() + timedelta(days=20)
    suspend_through_process(supervisor, suspended_id, until)
    revoke_through_process(supervisor, revoked_id)
    private_pem, public_pem = badges._key_pair(ctx)
    claim = verify_token(valid, public_pem)
    expired = sign_claim(replace(claim, valid_until=date.today() - timedelta(days=2)), private_pem)
    old_format = sign_claim(BadgeClaim(claim.permit_number, claim.cpf_digest, claim.valid_until, 1, "titular"),
                            private_pem)

    issued_at = datetime.now(UTC).replace(microsecond=0) - LIST_AGE
    site = root / "site"
    published = badges.publish_verifier(supervisor, site, now=issued_at)
    assert {"index.html", "verifier.js", "verifier.css", "sw.js", "keys.json", "status.json",
            "vendor/noble-ed25519-3.2.0.js", "vendor/LICENSE-noble-ed25519.txt"} <= set(published.files)

    # A copy of the site whose status list was altered after signing: it claims the valid badge revoked.
    tampered = root / "tampered"
    shutil.copytree(site, tampered)
    envelope = json.loads((tampered / "status.json").read_text())
    body = json.loads(base64.b64decode(envelope["body"]))
    body["permits"][valid_number] = {"state": "revoked", "on": date.today().isoformat()}
    envelope["body"] = base64.b64encode(json.dumps(body).encode()).decode()
    (tampered / "status.json").write_text(json.dumps(envelope))
    db.dispose()
    yield Register(_token(valid), _token(suspended), _token(revoked), _token(superseded), _token(again.qr_text),
                   _token(deputy_badge.qr_text), expired, old_format, valid_number, claim.valid_until, until, issued_at, site, tampered)


class Server:
    """http.server on 127.0.0.1 in a thread, serving a folder; stop() makes the phone offline."""

    def __init__(self, folder: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    assert CHROMIUM.exists(), "Debian's chromium is missing: run WITH_TEST=1 scripts/setup.sh"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(register: Register) -> Iterator[Server]:
    running = Server(register.site)
    yield running
    running.stop()


def _open(context, url: str):  # noqa: ANN001, ANN202
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    return page


#: The verdict's words are never cut: each fits the width of a phone.
FITS = """(() => { const box = document.getElementById('verdict-text'); const range = document.createRange();
  range.selectNodeContents(box); const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  const words = box.textContent.trim().split(/\\s+/).length; return lines.size <= words
    && document.getElementById('verdict').scrollWidth <= document.getElementById('verdict').clientWidth; })()"""


def _verdict(page) -> str:  # noqa: ANN001
    return page.inner_text("#verdict-text").strip()


def _field(page, name: str) -> str:  # noqa: ANN001
    return page.inner_text(f"#f-{name}").strip()


def _list_line(issued_at: datetime) -> str:
    return f"Lista de situação de {local_time(issued_at):%d/%m/%Y %H:%M}, há 3 dias"


def test_each_badge_gets_its_verdict(browser, server: Server, register: Register) -> None:  # noqa: ANN001
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    try:
        page = _open(context, server.url + "#" + register.valid)
        assert _verdict(page) == "VÁLIDO"
        assert page.evaluate("document.body.dataset.engine") == "webcrypto"  # the browser's own Ed25519
        assert _field(page, "name") == "Maria da Conceição Araújo"
        assert _field(page, "service") == "Mototáxi" and _field(page, "permit") == register.valid_number
        assert _field(page, "plate") not in ("", "—", "não consta deste crachá")
        assert _field(page, "cpf").startswith("***.") and _field(page, "cpf").endswith("-**")
        assert _field(page, "valid") == f"{register.valid_until:%d/%m/%Y}"
        status = page.inner_text("#status")
        assert _list_line(register.issued_at) in status and "sem conexão" not in status
        # Big enough to read at arm's length: the verdict's type is at least 38 CSS pixels (1 cm capitals).
        assert page.evaluate("parseFloat(getComputedStyle(document.getElementById('verdict')).fontSize)") >= 38
        page.screenshot(path=str(SCREENSHOTS / "verifier_valid.png"), full_page=True)

        cases = {
            register.suspended: "SUSPENSO",
            register.revoked: "CASSADO",
            register.superseded: "SUBSTITUÍDO",
            register.reprinted: "VÁLIDO",
            register.deputy_revoked: "CASSADO",
            register.expired: "VENCIDO",
            register.old_format: "VÁLIDO",
        }
        for token, verdict in cases.items():
            # A second badge scanned into the open page: only the fragment changes (no reload).
            page.evaluate("t => { document.body.dataset.ready = ''; location.hash = t; }", token)
            page.wait_for_selector("body[data-ready='1']")
            assert _verdict(page) == verdict, token[:30]
            assert page.evaluate(FITS), verdict
        assert _field(page, "name") == "não consta deste crachá"  # the old badge: no printed fields in its QR
        assert _field(page, "permit") == register.valid_number

        page = _open(context, server.url + "#" + register.suspended)
        assert _verdict(page) == "SUSPENSO"
        assert f"até {register.suspended_until:%d/%m/%Y}" in page.inner_text("#explanation")
        page = _open(context, server.url + "#" + register.superseded)
        assert "a via em uso é a 2ª" in page.inner_text("#explanation")
    finally:
        context.close()


def test_tampered_and_foreign_codes(browser, server: Server, register: Register) -> None:  # noqa: ANN001
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    try:
        head, payload, signature = register.valid.split(".")
        flipped = payload[:12] + ("B" if payload[12] == "A" else "A") + payload[13:]
        for token in (f"{head}.{flipped}.{signature}", register.valid[:-2] + ("AB" if register.valid.endswith("AA")
                                                                              else "AA"), "MD1.AAAA.BBBB"):
            page = _open(context, server.url + "#" + token)
            assert _verdict(page) == "FALSIFICADO", token[:30]
            assert page.evaluate(FITS)
            assert page.is_hidden("#details")  # nothing of a forgery is shown as if it were true
        page.screenshot(path=str(SCREENSHOTS / "verifier_forged.png"), full_page=True)
        for text in ("", "https://example.com/", "PREVIA-SEM-VALOR-PREVIA", "7891000100103"):
            page = _open(context, server.url + "#" + text)
            assert _verdict(page) == "NÃO É UM CRACHÁ", text
            assert page.evaluate(FITS)
            assert page.is_hidden("#details")
    finally:
        context.close()


def test_without_webcrypto_ed25519_the_vendored_library_verifies(browser, server: Server,  # noqa: ANN001
                                                                 register: Register) -> None:
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(NO_WEBCRYPTO_ED25519)
    try:
        page = _open(context, server.url + "#" + register.valid)
        assert _verdict(page) == "VÁLIDO" and page.evaluate("document.body.dataset.engine") == "noble"
        assert "@noble/ed25519 3.2.0" in page.inner_text("#engine")
        # One character of the payload changed (not the last ones, whose padding bits may not decode):
        # the claim still reads, so the forgery is found by the signature check — noble's.
        token = register.valid
        middle = len(token) // 2
        altered = token[:middle] + ("B" if token[middle] != "B" else "C") + token[middle + 1:]
        page = _open(context, server.url + "#" + altered)
        assert _verdict(page) == "FALSIFICADO" and page.evaluate("document.body.dataset.engine") == "noble"
        page = _open(context, server.url + "#" + register.revoked)
        assert _verdict(page) == "CASSADO"  # the status list's signature checked by noble too
    finally:
        context.close()


def test_outside_a_secure_context_it_says_so_instead_of_forged(browser, server: Server,  # noqa: ANN001
                                                               register: Register) -> None:
    """Served over plain http from another host, browsers give no WebCrypto: never "falsificado"."""
    context = browser.new_context(viewport=PHONE)
    context.add_init_script("Object.defineProperty(globalThis.crypto, 'subtle', {value: undefined});")
    try:
        page = _open(context, server.url + "#" + register.valid)
        assert _verdict(page) == "VERIFICANDO…" and "https://" in page.inner_text("#explanation")
        assert page.is_hidden("#details")
    finally:
        context.close()


def test_a_tampered_status_list_is_refused(browser, register: Register) -> None:  # noqa: ANN001
    tampered = Server(register.tampered_site)
    context = browser.new_context(viewport=PHONE)
    try:
        page = _open(context, tampered.url + "#" + register.valid)
        # The forged list's "cassado" is not believed, and without a genuine list nothing says VÁLIDO.
        assert _verdict(page) == "NÃO CONFIRMADO"
        assert "A assinatura do crachá é autêntica" in page.inner_text("#explanation")
        status = page.inner_text("#status")
        assert "a assinatura não confere" in status and "foi recusada" in status
        assert "Sem lista de situação neste aparelho" in status
        assert page.evaluate("localStorage.length") == 0  # and not kept
    finally:
        context.close()
        tampered.stop()


def test_offline_the_last_list_is_used_and_its_age_shown(browser, register: Register) -> None:  # noqa: ANN001
    online = Server(register.site)
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    try:
        page = _open(context, online.url + "#" + register.valid)
        assert _verdict(page) == "VÁLIDO"
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # the page is cached for offline use
        page.wait_for_function("caches.has('motodesk-verificador-v1')")
        online.stop()  # no network from here on: the server is gone

        page = _open(context, online.url + "#" + register.suspended)  # a new tab, served by the service worker
        assert _verdict(page) == "SUSPENSO"
        status = page.inner_text("#status")
        assert _list_line(register.issued_at) in status
        assert "sem conexão: usada a última lista guardada neste aparelho" in status
        assert page.evaluate("document.body.dataset.statusSource") == "saved"
        page.screenshot(path=str(SCREENSHOTS / "verifier_offline_suspended.png"), full_page=True)
        page = _open(context, online.url + "#" + register.superseded)
        assert _verdict(page) == "SUBSTITUÍDO"
    finally:
        context.close()


def test_the_status_list_is_signed_and_names_no_one(register: Register) -> None:
    envelope = json.loads((register.site / "status.json").read_text())
    body = base64.b64decode(envelope["body"])
    keys = json.loads((register.site / "keys.json").read_text())["keys"]
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(keys[0]["ed25519"]))
    key.verify(base64.b64decode(envelope["signature"]), b"MDS1." + body)  # raises if not genuine
    listed = json.loads(body)
    assert listed["issued_at"] == register.issued_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert [v["state"] for v in listed["permits"].values()].count("suspended") == 1
    assert [v["state"] for v in listed["permits"].values()].count("revoked") == 1
    assert list(listed["copies"].values()) == [2]
    assert [v["state"] for v in listed["deputies"].values()] == ["revoked"]
    text = body.decode()
    for name in ("Maria", "Pedro", "José", "Ana"):
        assert name not in text
    assert cpf_digest("52998224725") not in text
