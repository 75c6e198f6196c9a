"""The public verifier page fails closed (issue 25, item 4), in a real headless Chromium.

Without a genuine, current status list a genuine badge never reads VÁLIDO: the page says the
situation could not be confirmed (NÃO CONFIRMADO) and why, and still shows that the badge's signature
is genuine. Every bad list is tried on a FIRST visit (nothing kept on the phone) and on a RETURNING
visit (the phone already keeps a newer genuine list, which lists the suspension): the status list
edited, re-signed with another key (naming the real key, or its own), garbage, missing (404), an older
genuine list replayed, and a genuine list dated in the future. A suspended permit never shows VÁLIDO.
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import badges, permits
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
STORAGE_KEY = "motodesk-verificador-situacao"


@dataclass
class Lists:
    valid: str  # a valid mototáxi badge's token
    suspended: str  # a motoboy badge whose permit is suspended
    site: Path
    current: bytes  # genuine, an hour old, lists the suspension: what a returning phone keeps
    variants: dict[str, bytes | None]  # None: status.json missing (404)


def _token(qr_text: str) -> str:
    return qr_text.split("#", 1)[1]


def _resigned(current: bytes, own_key_id: bool) -> bytes:
    """The current list with the suspension removed, signed with a key the page does not ship."""
    envelope = json.loads(current)
    body = json.loads(base64.b64decode(envelope["body"]))
    body["permits"] = {}
    raw = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    other = Ed25519PrivateKey.generate()
    if own_key_id:
        envelope["key_id"] = body["key_id"] = badges.key_id(
            other.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
        raw = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    envelope["body"] = base64.b64encode(raw).decode()
    envelope["signature"] = base64.b64encode(other.sign(b"MDS1." + raw)).decode()
    return json.dumps(envelope).encode()


def _edited(current: bytes) -> bytes:
    envelope = json.loads(current)
    body = json.loads(base64.b64decode(envelope["body"]))
    body["permits"] = {}  # the suspension taken out after signing
    envelope["body"] = base64.b64encode(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).decode()
    return json.dumps(envelope).encode()


@pytest.fixture(scope="module")
def lists(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lists]:
    root = tmp_path_factory.mktemp("fail-closed")
    db = Database.open(f"sqlite:///{root / 'motodesk.sqlite3'}")
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    badges.register_printing_station(ctx)  # this test workstation prints and signs the status list
    supervisor = ctx.as_user(CurrentUser(None, "supervisor", "Supervisora", Role.SUPERVISOR))

    def printed(name: str, service: ServiceType, seed: int) -> tuple[int, str]:
        dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name, photo_seed=seed)
        issued = permits.issue(supervisor, dossier.application_id)
        (badge,) = badges.print_badges(supervisor, [issued.id]).badges
        return issued.id, _token(badge.qr_text)

    _valid_id, valid = printed("Maria da Conceição Araújo", ServiceType.MOTOTAXI, 1)
    suspended_id, suspended = printed("Pedro Henrique Souza", ServiceType.MOTOBOY, 2)
    now = datetime.now(UTC).replace(microsecond=0)

    def listed(when: datetime) -> bytes:
        return badges.status_list(supervisor, now=when)

    # Genuine lists from before the suspension: nothing in them says the permit is suspended.
    replayed = listed(now - timedelta(days=10))
    future = listed(now + timedelta(days=1))
    suspend_through_process(supervisor, suspended_id, (now + timedelta(days=20)).date())
    site = root / "site"
    badges.publish_verifier(supervisor, site, now=now - timedelta(hours=1))
    current = (site / "status.json").read_bytes()
    near_future = listed(now + timedelta(minutes=2))  # within the clock skew the page allows
    db.dispose()
    variants: dict[str, bytes | None] = {
        "edited": _edited(current),
        "resigned": _resigned(current, own_key_id=False),
        "foreign-key": _resigned(current, own_key_id=True),
        "garbage": b"\x00\xff{isto n\xc3\xa3o \xc3\xa9 uma lista",
        "missing": None,
        "replayed": replayed,
        "future": future,
    }
    yield Lists(valid, suspended, site, current, variants | {"near-future": near_future})


class Server:
    """http.server on 127.0.0.1 serving the site; serve() swaps its status.json (None: 404)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def serve(self, status: bytes | None) -> None:
        path = self.folder / "status.json"
        if status is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(status)

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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
def server(lists: Lists) -> Iterator[Server]:
    running = Server(lists.site)
    yield running
    running.stop()


def _open(context, url: str):  # noqa: ANN001, ANN202
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    return page


def _seen(page) -> tuple[str, str, str]:  # noqa: ANN001
    return (page.inner_text("#verdict-text").strip(), page.inner_text("#explanation"), page.inner_text("#status"))


def _kept(page) -> str | None:  # noqa: ANN001
    return page.evaluate(f"localStorage.getItem({STORAGE_KEY!r})")


#: What the page says about each refused list (in #status, and in the reason of NÃO CONFIRMADO).
WHY = {
    "edited": "a assinatura não confere",
    "resigned": "a assinatura não confere",
    "foreign-key": "chave que não é a da Prefeitura",
    "garbage": "não é uma lista de situação",
    "missing": "não foi encontrada no site (erro 404)",
    "replayed": "mais antiga que o limite de 4 dias",
    "future": "está datada no futuro",
}


@pytest.mark.parametrize("variant", list(WHY))
def test_first_visit_without_a_current_genuine_list_is_never_valid(browser, server: Server, lists: Lists,  # noqa: ANN001
                                                                    variant: str) -> None:
    server.serve(lists.variants[variant])
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        for token in (lists.valid, lists.suspended):
            page = _open(context, server.url + "#" + token)
            verdict, explanation, status = _seen(page)
            assert verdict == "NÃO CONFIRMADO", (variant, verdict, explanation)
            assert "A assinatura do crachá é autêntica" in explanation  # the signature is still proved
            assert WHY[variant] in explanation, (variant, explanation)
            assert page.is_visible("#details") and page.inner_text("#f-name").strip() != "não consta deste crachá"
            assert page.evaluate("document.body.dataset.statusCurrent") == "0"
            if variant != "replayed":  # nothing refused is kept on the phone
                assert _kept(page) is None, variant
            if variant in ("edited", "resigned", "foreign-key", "garbage", "future"):
                assert "foi recusada" in status and WHY[variant] in status, (variant, status)
        if variant == "edited":
            page.screenshot(path=str(SCREENSHOTS / "verifier_unconfirmed.png"), full_page=True)
    finally:
        context.close()
        server.serve(lists.current)


@pytest.mark.parametrize("variant", list(WHY))
def test_returning_visit_keeps_the_newer_genuine_list(browser, server: Server, lists: Lists,  # noqa: ANN001
                                                      variant: str) -> None:
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        server.serve(lists.current)
        page = _open(context, server.url + "#" + lists.suspended)  # an earlier visit keeps the current list
        assert _seen(page)[0] == "SUSPENSO" and _kept(page) == lists.current.decode()
        server.serve(lists.variants[variant])
        for token, expected in ((lists.valid, "VÁLIDO"), (lists.suspended, "SUSPENSO")):
            page = _open(context, server.url + "#" + token)
            verdict, explanation, status = _seen(page)
            assert verdict == expected, (variant, verdict, explanation, status)
            assert page.evaluate("document.body.dataset.statusSource") == "saved"
            assert "usada a lista guardada neste aparelho" in status
            if variant == "replayed":
                assert "mais antiga que a já guardada neste aparelho" in status and "foi recusada" in status
            elif variant != "missing":
                assert "foi recusada" in status and WHY[variant] in status, (variant, status)
            else:
                assert WHY[variant] in status
            assert _kept(page) == lists.current.decode(), variant  # the newer list is never replaced
            assert page.evaluate("document.getElementById('status').classList.contains('warn')")
    finally:
        context.close()
        server.serve(lists.current)


def test_a_kept_list_past_the_freshness_limit_no_longer_confirms(browser, server: Server,  # noqa: ANN001
                                                                 lists: Lists) -> None:
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        server.serve(lists.variants["replayed"])  # genuine but ten days old: kept, since it is all there is
        page = _open(context, server.url + "#" + lists.valid)
        assert _seen(page)[0] == "NÃO CONFIRMADO" and _kept(page) is not None
        server.serve(None)
        page = _open(context, server.url + "#" + lists.valid)
        verdict, explanation, status = _seen(page)
        assert verdict == "NÃO CONFIRMADO" and "mais antiga que o limite de 4 dias" in explanation
        assert "Lista antiga demais" in status
    finally:
        context.close()
        server.serve(lists.current)


def test_a_list_within_the_clock_skew_is_accepted(browser, server: Server, lists: Lists) -> None:  # noqa: ANN001
    server.serve(lists.variants["near-future"])
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        assert _seen(_open(context, server.url + "#" + lists.valid))[0] == "VÁLIDO"
        page = _open(context, server.url + "#" + lists.suspended)
        assert _seen(page)[0] == "SUSPENSO"
        assert page.evaluate("document.body.dataset.statusSource") == "online"
    finally:
        context.close()
        server.serve(lists.current)


def test_a_future_list_kept_by_an_older_page_is_dropped(browser, server: Server, lists: Lists) -> None:  # noqa: ANN001
    """A list dated years ahead (signed with a leaked key) must not stick on a phone that kept it."""
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        page = _open(context, server.url + "#" + lists.valid)
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [STORAGE_KEY, lists.variants["future"].decode()])
        page = _open(context, server.url + "#" + lists.suspended)
        assert _seen(page)[0] == "SUSPENSO" and _kept(page) == lists.current.decode()
    finally:
        context.close()


def test_the_verdict_is_announced_in_a_live_region(browser, server: Server, lists: Lists) -> None:  # noqa: ANN001
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        page = _open(context, server.url + "#" + lists.valid)
        region = page.evaluate("""(() => { const r = document.getElementById('verdict-text').closest('[aria-live]');
            return r && [r.getAttribute('aria-live'), r.getAttribute('role'), r.contains(document.getElementById('explanation'))]; })()""")
        assert region == ["polite", "status", True]
    finally:
        context.close()
