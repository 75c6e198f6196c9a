"""The signed QR text of a badge: genuine tokens verify, anything else is 'forged'."""

from __future__ import annotations

import base64
import random
from dataclasses import replace
from datetime import date

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from motodesk.printing.token import (
    MAX_CLAIM_NAME,
    BadgeClaim,
    ForgedTokenError,
    NotABadgeError,
    badge_url,
    cpf_digest,
    extract_token,
    generate_keypair,
    sign_claim,
    verify_token,
)

CLAIM = BadgeClaim(
    permit_number="MT-0007/2026",
    cpf_digest=cpf_digest("529.982.247-25"),
    valid_until=date(2027, 3, 15),
    issue_no=2,
    holder_kind="titular",
)


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode().rstrip("=")


def _sign_raw(payload: bytes, private_pem: bytes) -> str:
    """A token whose signature is genuine over an arbitrary payload (what a buggy issuer could make)."""
    key = serialization.load_pem_private_key(private_pem, password=None)
    body = _b32(payload)
    return f"MD1.{body}.{_b32(key.sign(('MD1.' + body).encode()))}"


def test_round_trip(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(CLAIM, private_pem)
    assert verify_token(token, public_pem) == CLAIM


def test_deputy_claim_round_trip(keypair):
    private_pem, public_pem = keypair
    claim = replace(CLAIM, holder_kind="preposto", issue_no=1)
    assert verify_token(sign_claim(claim, private_pem), public_pem) == claim


def test_token_is_compact_qr_alphanumeric_text(keypair):
    token = sign_claim(CLAIM, keypair[0])
    assert token.startswith("MD1.")
    assert len(token) < 200
    _, body, signature = token.split(".")
    base32 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")  # no padding; all in the QR alphanumeric mode
    assert set(body) <= base32 and set(signature) <= base32
    payload = base64.b32decode(body + "=" * (-len(body) % 8)).decode()
    assert payload == f"MT-0007/2026|{CLAIM.cpf_digest}|20270315|2|T"
    assert "529982" not in payload  # the CPF itself is not in the QR


@pytest.mark.parametrize("wrapping", [" {}", "{}\n", "\t{}\r\n", "\n  {}  \n"])
def test_scanner_whitespace_is_ignored(keypair, wrapping):
    private_pem, public_pem = keypair
    assert verify_token(wrapping.format(sign_claim(CLAIM, private_pem)), public_pem) == CLAIM


def test_scanner_with_caps_lock_types_it_all_lower_case(keypair):
    private_pem, public_pem = keypair
    assert verify_token(sign_claim(CLAIM, private_pem).lower(), public_pem) == CLAIM


def test_every_single_character_change_is_refused(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(CLAIM, private_pem)
    rng = random.Random(4883)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567.abcz019=-_ \n\x00é"
    for i, original in enumerate(token):
        replacements = {rng.choice(alphabet) for _ in range(6)} | {original.lower(), "A", "7", "."}
        for ch in replacements - {original}:
            tampered = token[:i] + ch + token[i + 1 :]
            with pytest.raises(ForgedTokenError):
                verify_token(tampered, public_pem)


def test_one_byte_changed_in_the_decoded_payload_is_refused(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(CLAIM, private_pem)
    _, body, signature = token.split(".")
    payload = bytearray(base64.b32decode(body + "=" * (-len(body) % 8)))
    for i in range(len(payload)):
        changed = bytearray(payload)
        changed[i] ^= 0x01
        with pytest.raises(ForgedTokenError):
            verify_token(f"MD1.{_b32(bytes(changed))}.{signature}", public_pem)


def test_truncated_and_extended_tokens_are_refused(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(CLAIM, private_pem)
    for cut in range(len(token)):
        with pytest.raises(ForgedTokenError):
            verify_token(token[:cut], public_pem)
    for extra in ("A", "AA", ".", ".AAAA", token):
        with pytest.raises(ForgedTokenError):
            verify_token(token + extra, public_pem)


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "   \n",
        "MD1.",
        "MD1..",
        "MD2.AAAA.AAAA",
        "https://example.com/?q=1",
        "A" * 10_240,
        "MD1." + "A" * 10_240 + "." + "A" * 103,
        bytes(random.Random(7).randrange(256) for _ in range(300)).decode("latin-1"),
        bytes(range(256)).decode("latin-1"),
        "MD1.====.====",
        "MD1.JVKC2MBQGA3S6MRQ.ZZZZ",
        "\x00" * 50,
        "🏍️ crachá",
    ],
    ids=lambda v: repr(v[:20]),
)
def test_junk_is_refused(keypair, junk):
    """Text with an MD1 token that does not verify is a forgery; text without one is not a badge at all."""
    with pytest.raises(ForgedTokenError) as raised:
        verify_token(junk, keypair[1])
    if junk.startswith("MD1."):
        assert type(raised.value) is ForgedTokenError
        assert str(raised.value) == ForgedTokenError.MESSAGE
    else:
        assert isinstance(raised.value, NotABadgeError)
        assert str(raised.value) == NotABadgeError.MESSAGE


@pytest.mark.parametrize("not_text", [None, b"MD1.AAAA.AAAA", 12345, ["MD1."]])
def test_non_text_is_refused_as_forged(keypair, not_text):
    with pytest.raises(ForgedTokenError):
        verify_token(not_text, keypair[1])  # type: ignore[arg-type]


def test_random_junk_never_raises_anything_else(keypair):
    rng = random.Random(2017)
    public_pem = keypair[1]
    for _ in range(500):
        length = rng.randrange(0, 300)
        text = "".join(rng.choice("MD1.ABCDEFGHIJKLMNOPQRSTUVWXYZ234567= \n\x00ç") for _ in range(length))
        if rng.random() < 0.5:
            text = "MD1." + text
        with pytest.raises(ForgedTokenError):
            verify_token(text, public_pem)


def test_signature_from_another_key_is_refused(keypair):
    other_private, _ = generate_keypair()
    token = sign_claim(CLAIM, other_private)
    with pytest.raises(ForgedTokenError):
        verify_token(token, keypair[1])


def test_signature_moved_onto_another_payload_is_refused(keypair):
    private_pem, public_pem = keypair
    genuine = sign_claim(CLAIM, private_pem).split(".")
    other = sign_claim(replace(CLAIM, permit_number="MT-0008/2026"), private_pem).split(".")
    with pytest.raises(ForgedTokenError):
        verify_token(f"MD1.{other[1]}.{genuine[2]}", public_pem)


def test_genuine_token_of_another_permit_verifies_as_that_permit(keypair):
    """The signature says who the badge belongs to; the caller compares it with the person."""
    private_pem, public_pem = keypair
    other = replace(CLAIM, permit_number="MB-0123/2026", cpf_digest=cpf_digest("11144477735"))
    claim = verify_token(sign_claim(other, private_pem), public_pem)
    assert claim.permit_number == "MB-0123/2026"
    assert claim != CLAIM
    assert claim.cpf_digest != CLAIM.cpf_digest


@pytest.mark.parametrize(
    "payload",
    [
        b"MT-0007/2026|0123456789|20270231|1|T",  # 31 February
        b"MT-0007/2026|0123456789|20271301|1|T",  # month 13
        b"MT-0007/2026|0123456789|00000000|1|T",
        b"MT-0007/2026|0123456789|2027315|1|T",
        b"MT-0007/2026|0123456789|20270315|0|T",  # copy number 0
        b"MT-0007/2026|0123456789|20270315|01|T",  # non-canonical number
        b"MT-0007/2026|0123456789|20270315|1|X",  # unknown holder kind
        b"MT-0007/2026|0123456789|20270315|1",
        b"MT-0007/2026|0123456789|20270315|1|T|extra",
        b"MT-0007/2026|XYZ|20270315|1|T",
        b"|0123456789|20270315|1|T",
        b"MT-0007/2026|0123456789|20270315|1|T\n",
        b"MT-0007/2026|0123456789|2027-03-15|1|T",
        "MT-ção/2026|0123456789|20270315|1|T".encode(),
        b"\xff\xfe\x00\x01",
    ],
)
def test_genuinely_signed_but_malformed_payload_is_refused(keypair, payload):
    private_pem, public_pem = keypair
    with pytest.raises(ForgedTokenError):
        verify_token(_sign_raw(payload, private_pem), public_pem)


def test_well_formed_raw_payload_verifies(keypair):
    """The helper above is sound: the same path accepts a correct payload."""
    private_pem, public_pem = keypair
    claim = verify_token(_sign_raw(CLAIM.canonical_bytes(), private_pem), public_pem)
    assert claim == CLAIM


def test_cpf_digest_is_short_stable_and_hides_the_cpf():
    digest = cpf_digest("52998224725")
    assert digest == cpf_digest("529.982.247-25")
    assert len(digest) == 10 and int(digest, 16) >= 0
    assert "529982" not in digest
    assert digest != cpf_digest("11144477735")


@pytest.mark.parametrize("bad", ["", "123", "529.982.247-2", "5299822472X", "529982247256"])
def test_cpf_digest_needs_eleven_digits(bad):
    with pytest.raises(ValueError):
        cpf_digest(bad)


@pytest.mark.parametrize(
    "change",
    [
        {"permit_number": ""},
        {"permit_number": "MT|7"},
        {"cpf_digest": "52998224725"},
        {"issue_no": 0},
        {"issue_no": True},
        {"holder_kind": "deputy"},
    ],
)
def test_claim_refuses_bad_fields(change):
    with pytest.raises(ValueError):
        replace(CLAIM, **change)


def test_bad_keys_are_configuration_errors_not_forgeries(keypair):
    token = sign_claim(CLAIM, keypair[0])
    with pytest.raises(ValueError) as raised:
        verify_token(token, b"not a key")
    assert not isinstance(raised.value, ForgedTokenError)
    rsa_like = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValueError):
        verify_token(token, rsa_like)  # a private key where the public one belongs
    with pytest.raises(ValueError):
        sign_claim(CLAIM, keypair[1])  # the public key cannot sign


def test_pem_as_text_is_accepted(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(CLAIM, private_pem.decode())
    assert verify_token(token, public_pem.decode()) == CLAIM


def test_keypair_is_pem():
    private_pem, public_pem = generate_keypair()
    assert private_pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public_pem.startswith(b"-----BEGIN PUBLIC KEY-----")


_PROPERTY_KEYS = generate_keypair()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400) | st.binary(max_size=400).map(lambda b: b.decode("latin-1")))
def test_any_text_is_a_claim_or_forged_never_another_error(text):
    with pytest.raises(ForgedTokenError):
        verify_token(text, _PROPERTY_KEYS[1])


@settings(max_examples=100, deadline=None)
@given(
    permit=st.from_regex(r"[A-Za-z0-9./ -]{1,40}", fullmatch=True),
    valid_until=st.dates(),
    issue_no=st.integers(1, 9999),
    kind=st.sampled_from(["titular", "preposto"]),
    cpf=st.from_regex(r"[0-9]{11}", fullmatch=True),
)
def test_every_valid_claim_round_trips(permit, valid_until, issue_no, kind, cpf):
    claim = BadgeClaim(permit, cpf_digest(cpf), valid_until, issue_no, kind)
    token = sign_claim(claim, _PROPERTY_KEYS[0])
    # the longest claim (40-character permit, issue 9999): 67 payload bytes -> 108 base32 characters,
    # plus the prefix, a dot and the 103-character signature: 216 at most
    assert len(token) <= 216
    assert verify_token(token, _PROPERTY_KEYS[1]) == claim
    assert verify_token(token.lower(), _PROPERTY_KEYS[1]) == claim


# --- the printed fields and the verifier page's address -------------------------------------

PRINTED = BadgeClaim.for_badge("MT-0007/2026", "529.982.247-25", date(2027, 3, 15), 2, "titular",
                               service_code="MT", plate="ABC-1D23", holder_name="Maria  da Conceição Ñúñez")
BASE = "https://verificar.patrocinio.mg.gov.br/cracha/"


def test_claim_with_the_printed_fields_round_trips(keypair):
    private_pem, public_pem = keypair
    assert PRINTED.cpf_middle == "982247" and PRINTED.cpf_masked == "***.982.247-**"
    assert PRINTED.holder_name == "Maria da Conceição Ñúñez"  # one space between words, accents kept
    token = sign_claim(PRINTED, private_pem)
    assert verify_token(token, public_pem) == PRINTED
    assert len(token) < 300


def test_old_five_field_tokens_still_verify(keypair):
    """Badges signed before the printed fields existed keep verifying, without those fields."""
    private_pem, public_pem = keypair
    old = _sign_raw(b"MT-0007/2026|" + CLAIM.cpf_digest.encode() + b"|20270315|2|T", private_pem)
    claim = verify_token(old, public_pem)
    assert claim == CLAIM and not claim.printed_fields and claim.cpf_masked is None


def test_long_names_are_cut_in_the_claim_only():
    claim = BadgeClaim.for_badge("MT-0007/2026", "52998224725", date(2027, 3, 15), 1, "preposto",
                                 service_code="MB", plate="", holder_name="Nome " * 40)
    assert claim.holder_name is not None and len(claim.holder_name) == MAX_CLAIM_NAME
    assert claim.holder_name.endswith("…") and claim.plate == ""


@pytest.mark.parametrize("changes", [
    {"service_code": "XX"},
    {"plate": "abc 1234"},
    {"cpf_middle": "12345"},
    {"holder_name": "Ana|Bia"},
    {"holder_name": ""},
    {"holder_name": "Ana\nBia"},
    {"holder_name": None},  # half of the printed fields
])
def test_printed_fields_are_checked(changes):
    with pytest.raises(ValueError):
        replace(PRINTED, **changes)


def test_payload_with_tampered_printed_fields_is_refused(keypair):
    private_pem, public_pem = keypair
    genuine = sign_claim(PRINTED, private_pem).split(".")
    other = sign_claim(replace(PRINTED, holder_name="Outra Pessoa"), private_pem).split(".")
    with pytest.raises(ForgedTokenError) as raised:
        verify_token(f"MD1.{other[1]}.{genuine[2]}", public_pem)
    assert not isinstance(raised.value, NotABadgeError)


def test_the_badge_address_and_the_bare_token_both_verify(keypair):
    private_pem, public_pem = keypair
    token = sign_claim(PRINTED, private_pem)
    url = badge_url(BASE, token)
    assert url == BASE + "#" + token
    assert badge_url(BASE + "#old", token) == url
    for text in (url, token, f"  {url}\r\n", url.upper(), url.lower(), "http://192.168.0.9/v/#" + token):
        assert verify_token(text, public_pem) == PRINTED, text[:60]
        assert extract_token(text).upper() == token
    # A USB scanner emulating a US keyboard on an ABNT2 layout garbles ':' and '/' but types '#' and the
    # base32 token alike: the address before the fragment is not needed.
    abnt2 = BASE.replace(":", "Ç").replace("/", ";") + "#" + token
    assert verify_token(abnt2, public_pem) == PRINTED
    with pytest.raises(ForgedTokenError) as raised:  # a tampered token inside the address: forged
        verify_token(url[:-2] + ("AB" if url.endswith("AA") else "AA"), public_pem)
    assert not isinstance(raised.value, NotABadgeError)


@pytest.mark.parametrize("text", [
    BASE, BASE + "#", BASE + "#PREVIA-SEM-VALOR-PREVIA", "https://example.com/#top", "ABC1D23",
    "MD2.AAAA.AAAA", "https://wa.me/5534999999999",
])
def test_texts_without_a_token_are_not_badges(keypair, text):
    with pytest.raises(NotABadgeError):
        verify_token(text, keypair[1])
