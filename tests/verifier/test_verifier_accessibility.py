"""The public verifier page has no WCAG 2.1 AA violation found by axe-core, in every verdict it can show,
and its verdict is announced to screen readers (Lei 13.146/2015, eMAG; issue #29 item 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the page's server and badges, shared with its other tests
import test_verifier_page as page_tests  # type: ignore[import-not-found]  # noqa: E402

Register, Server = page_tests.Register, page_tests.Server
PHONE, _open, _verdict = page_tests.PHONE, page_tests._open, page_tests._verdict
browser, register, server = page_tests.browser, page_tests.register, page_tests.server  # the module's fixtures

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
RUN = ("axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
       ".then(r => ({violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
       " nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)})), passes: r.passes.length}))")


def _violations(page) -> list[dict]:  # noqa: ANN001
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(RUN)
    assert result["passes"] > 10  # axe really ran its rules
    return result["violations"]


def _show(page, token: str) -> str:  # noqa: ANN001
    page.evaluate("t => { document.body.dataset.ready = ''; location.hash = t; }", token)
    page.wait_for_selector("body[data-ready='1']")
    return _verdict(page)


def test_no_wcag_aa_violation_in_any_verdict(browser, server: Server, register: Register) -> None:  # noqa: ANN001
    head, payload, signature = register.valid.split(".")
    forged = f"{head}.{payload[:12]}{'B' if payload[12] == 'A' else 'A'}{payload[13:]}.{signature}"
    cases = {register.valid: "VÁLIDO", register.suspended: "SUSPENSO", register.revoked: "CASSADO",
             register.superseded: "SUBSTITUÍDO", register.expired: "VENCIDO", forged: "FALSIFICADO",
             "PREVIA-SEM-VALOR-PREVIA": "NÃO É UM CRACHÁ"}
    found: dict[str, list[dict]] = {}
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # axe is injected inline
    try:
        page = _open(context, server.url + "#" + register.valid)
        for token, verdict in cases.items():
            assert (_verdict(page) if token == register.valid else _show(page, token)) == verdict
            violations = _violations(page)
            if violations:
                found[verdict] = violations
    finally:
        context.close()
    assert found == {}, json.dumps(found, ensure_ascii=False, indent=1)


def test_no_wcag_aa_violation_while_it_cannot_verify(browser, server: Server,  # noqa: ANN001
                                                      register: Register) -> None:
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # axe is injected inline
    context.add_init_script("Object.defineProperty(globalThis.crypto, 'subtle', {value: undefined});")
    try:
        page = _open(context, server.url + "#" + register.valid)
        assert _verdict(page) == "VERIFICANDO…"
        violations = _violations(page)
    finally:
        context.close()
    assert violations == [], json.dumps(violations, ensure_ascii=False, indent=1)


def test_the_verdict_is_announced_to_screen_readers(browser, server: Server,  # noqa: ANN001
                                                     register: Register) -> None:
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # axe is injected inline
    try:
        page = _open(context, server.url + "#" + register.valid)
        # the verdict and its explanation are one live region (#result holds #verdict)
        region = page.locator("#result")
        assert page.locator("#result #verdict").count() == 1
        assert region.get_attribute("role") == "status" or region.get_attribute("aria-live") in ("polite", "assertive")
        assert page.evaluate("document.documentElement.lang") == "pt-BR"
        # the live region holds the verdict's words, so a new scan is read out when they change
        assert "VÁLIDO" in region.inner_text()
        assert _show(page, register.revoked) == "CASSADO" and "CASSADO" in region.inner_text()
        snapshot = page.accessibility.snapshot() if hasattr(page, "accessibility") else None
        if snapshot is not None:
            assert "CASSADO" in json.dumps(snapshot, ensure_ascii=False)
    finally:
        context.close()


def test_axe_would_see_a_violation(browser, server: Server, register: Register) -> None:  # noqa: ANN001
    """The check can fail: grey on white text and an unlabelled input are reported."""
    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    try:
        page = _open(context, server.url + "#" + register.valid)
        page.evaluate("""() => { const p = document.createElement('p'); p.textContent = 'texto apagado';
            p.style.color = '#bbb'; p.style.background = '#fff'; document.body.appendChild(p);
            document.body.appendChild(document.createElement('input')); }""")
        ids = {v["id"] for v in _violations(page)}
    finally:
        context.close()
    assert {"color-contrast", "label"} <= ids
