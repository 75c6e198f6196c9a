"""The signed text inside a badge's QR code, and its offline verification.

A badge (crachá, Art. 5º §4º and Art. 13, VI of Lei nº 4.883/2017) is checked in
the street by an inspector with a phone or a USB scanner, often without a network.
The QR therefore carries a small *claim* (whose permit, which person, valid until
when, which copy) signed with the secretariat's Ed25519 private key; any workstation
holding the public key can tell a genuine badge from a forged or altered one.

Token format (version 1)::

    MD1.<payload>.<signature>

- ``payload``: base32 (RFC 4648, upper case, no ``=`` padding) of the canonical UTF-8
  text ``permit|cpf_digest|YYYYMMDD|issue_no|T`` (``T`` titular, ``P`` preposto),
  for example ``MT-0007/2026|3f1c9a0b7e|20270315|2|T``, optionally followed by what the
  badge prints for the public verifier page (:mod:`motodesk.commands.verifier`):
  ``|service code|plate|six middle CPF digits|name``, for example
  ``MT-0007/2026|3f1c9a0b7e|20270315|2|T|MT|ABC-1D23|456789|Maria da Silva``.
  Badges signed before those fields existed carry five fields and still verify;
- the QR code holds the token as the *fragment* of an address,
  ``https://<verifier page>#MD1.…`` (:func:`badge_url`): a phone's camera opens the
  public page, which verifies the signature in the browser, and the fragment never
  reaches a web server's log. :func:`verify_token` accepts that address or the bare token;
- ``signature``: base32 of the 64-byte Ed25519 signature over ``b"MD1." + payload``
  (the version prefix is signed too, so a signature cannot be replayed in another
  format).

Why base32 rather than base64: the whole token then uses only ``A-Z``, ``2-7`` and
``.``, all in the QR *alphanumeric* mode (5.5 bits a character instead of 8, so a
smaller code for the same text), and all typed identically by a USB scanner
whatever the keyboard layout (US or ABNT2). A scanner typing with Caps Lock on
sends the whole token in lower case: :func:`verify_token` accepts a token that is
entirely upper or entirely lower case, never a mix, so changing any one character
still breaks verification.

Everything wrong with a scanned text raises :class:`ForgedTokenError` and nothing
else. Text that does not even claim to be a badge (no ``MD1.`` token, bare or after
``#``: a CNH's QR, a web address, junk) raises its subclass :class:`NotABadgeError`,
so the counter can say "não é um crachá do MotoDesk" rather than call a shop's QR
code a forgery; a text that claims to be a badge but is truncated, tampered, signed
by another key or carries an impossible date is a forgery: "Crachá falsificado ou
ilegível.".
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "PREFIX",
    "SERVICE_CODES",
    "BadgeClaim",
    "ForgedTokenError",
    "NotABadgeError",
    "badge_url",
    "cpf_digest",
    "extract_token",
    "generate_keypair",
    "public_key_raw",
    "sign_claim",
    "sign_status",
    "verify_status",
    "verify_token",
]

PREFIX = "MD1."
HOLDER_KINDS = ("titular", "preposto")
_KIND_CODES = {"titular": "T", "preposto": "P"}
_CODE_KINDS = {v: k for k, v in _KIND_CODES.items()}
#: Codes of the services in a claim (the prefixes of the permit numbers, ServiceType.code).
SERVICE_CODES = ("MT", "MB", "MF")

# Domain separation: a digest made here can never collide with a sha256 of a CPF
# computed for some other purpose (or by another system) over the bare digits.
_CPF_DIGEST_DOMAIN = b"motodesk:badge-cpf:v1:"
_CPF_DIGEST_HEX = 10

# A genuine token is about 170 characters (five fields) or 230-330 (with the printed
# fields); anything much longer is junk and is refused before any decoding work.
_MAX_TOKEN_CHARS = 600
_SIGNATURE_BYTES = 64
_B32_TEXT = re.compile(r"[A-Z2-7]+")
_DIGEST_TEXT = re.compile(rf"[0-9a-f]{{{_CPF_DIGEST_HEX}}}")
_PAYLOAD = re.compile(
    r"(?P<permit>[^|]{1,40})\|(?P<digest>[0-9a-f]+)\|(?P<date>[0-9]{8})\|(?P<issue>[1-9][0-9]{0,3})\|(?P<kind>[TP])"
    r"(?:\|(?P<service>MT|MB|MF)\|(?P<plate>[A-Z0-9-]{0,10})\|(?P<cpf>[0-9]{6})\|(?P<name>[^|]{1,80}))?"
)
_PERMIT_CHARS = re.compile(r"[A-Za-z0-9./ -]{1,40}")
_PLATE_CHARS = re.compile(r"[A-Z0-9-]{0,10}")
_CPF_MIDDLE = re.compile(r"[0-9]{6}")
#: The longest name a claim carries; a longer one is cut (with "…") in the QR only.
MAX_CLAIM_NAME = 80
#: Where the token starts in a scanned address: after the fragment mark.
_FRAGMENT_TOKEN = re.compile(r"#(md1\.)", re.IGNORECASE)


class ForgedTokenError(ValueError):
    """The scanned text is not a genuine badge token. Its message is safe to show."""

    MESSAGE = "Crachá falsificado ou ilegível."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.MESSAGE)


class NotABadgeError(ForgedTokenError):
    """The scanned text does not claim to be a badge at all (no ``MD1.`` token in it)."""

    MESSAGE = "Este código não é um crachá do MotoDesk."


@dataclass(frozen=True)
class BadgeClaim:
    """What a badge's QR asserts, once its signature has been checked.

    The caller still compares it with the register: the permit is in force, the
    issue number is the latest copy (an older, lost copy must be refused), and
    the person in front of the inspector has this CPF digest.
    """

    permit_number: str
    cpf_digest: str
    valid_until: date
    issue_no: int
    holder_kind: str  # "titular" | "preposto"
    # What the badge prints, for the public verifier page; all four or none (older badges).
    service_code: str | None = None  # "MT" | "MB" | "MF"
    plate: str | None = None  # as printed, "ABC-1D23"; "" without a vehicle
    cpf_middle: str | None = None  # the six digits the masked CPF shows: ***.456.789-**
    holder_name: str | None = None

    @property
    def printed_fields(self) -> bool:
        """Whether the claim carries the printed fields (badges signed since the public verifier)."""
        return self.service_code is not None

    @property
    def cpf_masked(self) -> str | None:
        if self.cpf_middle is None:
            return None
        return f"***.{self.cpf_middle[:3]}.{self.cpf_middle[3:]}-**"

    def __post_init__(self) -> None:
        if not isinstance(self.permit_number, str) or not _PERMIT_CHARS.fullmatch(self.permit_number):
            raise ValueError(f"número de permissão inválido para o crachá: {self.permit_number!r}")
        if not isinstance(self.cpf_digest, str) or not _DIGEST_TEXT.fullmatch(self.cpf_digest):
            raise ValueError("cpf_digest deve ser o resultado de cpf_digest()")
        if not isinstance(self.valid_until, date) or not 1 <= self.valid_until.year <= 9999:
            raise ValueError("valid_until deve ser uma data")
        if (
            isinstance(self.issue_no, bool)
            or not isinstance(self.issue_no, int)
            or not 1 <= self.issue_no <= 9999
        ):
            raise ValueError("issue_no deve ser um inteiro de 1 a 9999")
        if self.holder_kind not in HOLDER_KINDS:
            raise ValueError(f"holder_kind deve ser 'titular' ou 'preposto', não {self.holder_kind!r}")
        printed = (self.service_code, self.plate, self.cpf_middle, self.holder_name)
        if all(value is None for value in printed):
            return
        if any(value is None for value in printed):
            raise ValueError("serviço, placa, CPF mascarado e nome vão juntos no crachá (todos ou nenhum)")
        if self.service_code not in SERVICE_CODES:
            raise ValueError(f"código de serviço inválido: {self.service_code!r}")
        if not isinstance(self.plate, str) or not _PLATE_CHARS.fullmatch(self.plate):
            raise ValueError(f"placa inválida para o crachá: {self.plate!r}")
        if not isinstance(self.cpf_middle, str) or not _CPF_MIDDLE.fullmatch(self.cpf_middle):
            raise ValueError("cpf_middle deve ter os 6 dígitos centrais do CPF")
        name = self.holder_name
        if (not isinstance(name, str) or not name.strip() or len(name) > MAX_CLAIM_NAME or "|" in name
                or name != name.strip() or any(not ch.isprintable() for ch in name)):
            raise ValueError(f"nome inválido para o crachá: {name!r}")

    @classmethod
    def for_badge(cls, permit_number: str, cpf: str, valid_until: date, issue_no: int, holder_kind: str, *,
                  service_code: str, plate: str, holder_name: str) -> BadgeClaim:
        """The claim of a badge being printed: the CPF's digest and middle digits, the name as printed
        (one space between words, cut to :data:`MAX_CLAIM_NAME` characters with "…")."""
        digits = "".join(ch for ch in str(cpf) if ch.isdigit())
        name = " ".join(holder_name.replace("|", " ").split())
        if len(name) > MAX_CLAIM_NAME:
            name = name[:MAX_CLAIM_NAME - 1].rstrip() + "…"
        plate = "" if plate in ("", "—", None) else plate.upper()
        return cls(permit_number, cpf_digest(cpf), valid_until, issue_no, holder_kind, service_code, plate,
                   digits[3:9], name)

    def canonical_bytes(self) -> bytes:
        """The exact bytes that are signed."""
        fields = [
            self.permit_number,
            self.cpf_digest,
            f"{self.valid_until.year:04d}{self.valid_until.month:02d}{self.valid_until.day:02d}",
            str(self.issue_no),
            _KIND_CODES[self.holder_kind],
        ]
        if self.printed_fields:
            fields += [str(self.service_code), str(self.plate), str(self.cpf_middle), str(self.holder_name)]
        return "|".join(fields).encode("utf-8")


def cpf_digest(cpf_digits: str) -> str:
    """Short digest of a CPF that binds a badge to a person without printing the CPF in the QR.

    Any phone reads a QR code aloud, so the CPF itself (personal data under the
    LGPD, Lei nº 13.709/2018) must not be in it; the badge shows a masked CPF and
    the QR a digest the inspector can compare with the CPF on the holder's CNH or
    RG (the app computes the digest of the typed CPF). It is pseudonymisation, not
    secrecy: there are only about 10⁹ CPFs, so a determined attacker can recover
    a CPF from its digest by brute force. It keeps the CPF away from casual readers,
    and 40 bits make an accidental match between two people negligible.

    Accepts the 11 digits with or without the usual punctuation (``123.456.789-09``).
    """
    digits = "".join(ch for ch in str(cpf_digits) if ch.isdigit())
    if len(digits) != 11 or len(digits) != len(re.sub(r"[.\-\s]", "", str(cpf_digits))):
        raise ValueError("CPF deve ter 11 dígitos")
    return hashlib.sha256(_CPF_DIGEST_DOMAIN + digits.encode("ascii")).hexdigest()[:_CPF_DIGEST_HEX]


def generate_keypair() -> tuple[bytes, bytes]:
    """A new Ed25519 key pair as (private PKCS#8 PEM, public SubjectPublicKeyInfo PEM).

    The private key stays on the issuing workstation (or the server); only the
    public key is distributed to the workstations and phones that verify badges.
    """
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private_pem, public_pem


def _pem_bytes(pem: bytes | str) -> bytes:
    return pem.encode("ascii", "replace") if isinstance(pem, str) else bytes(pem)


@lru_cache(maxsize=8)
def _private_key(private_pem: bytes) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(private_pem, password=None)
    except Exception as exc:  # noqa: BLE001 - ValueError, TypeError, UnsupportedAlgorithm...
        raise ValueError("a chave de assinatura dos crachás é inválida") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("a chave de assinatura dos crachás deve ser Ed25519")
    return key


@lru_cache(maxsize=8)
def _public_key(public_pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(public_pem)
    except Exception as exc:  # noqa: BLE001 - ValueError, TypeError, UnsupportedAlgorithm...
        raise ValueError("a chave de verificação dos crachás é inválida") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("a chave de verificação dos crachás deve ser Ed25519")
    return key


def _b32encode(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").rstrip("=")


def _b32decode(text: str) -> bytes:
    """Strict decode: only the canonical upper-case encoding of some bytes is accepted."""
    if not _B32_TEXT.fullmatch(text) or len(text) % 8 in (1, 3, 6):
        raise ValueError("not canonical base32")
    data = base64.b32decode(text + "=" * (-len(text) % 8))
    if _b32encode(data) != text:  # non-zero trailing bits: another text for the same bytes
        raise ValueError("not canonical base32")
    return data


def badge_url(base_url: str, token: str) -> str:
    """What a badge's QR code holds: the verifier page's address with the token as its fragment."""
    return f"{base_url.split('#', 1)[0]}#{token}"


def extract_token(text: str) -> str:
    """The ``MD1.`` token in a scanned text: the text itself, or the fragment of a badge's address.

    Raises :class:`NotABadgeError` when there is none (the text does not claim to be a badge). The
    address before the ``#`` is not compared with the setting: badges printed before the secretariat
    moved its page still verify. What is returned may still be a forgery.
    """
    if not isinstance(text, str):
        raise NotABadgeError()
    text = text[: _MAX_TOKEN_CHARS * 4].strip()
    if text[:4].upper() == PREFIX:
        return text
    found = list(_FRAGMENT_TOKEN.finditer(text))  # the last one: an address has no '#' before its fragment
    if not found:
        raise NotABadgeError()
    return text[found[-1].start(1):]


def sign_claim(claim: BadgeClaim, private_pem: bytes | str) -> str:
    """The token of a badge: ``MD1.<payload>.<signature>``, upper-case base32, 170 to 330 characters.

    A malformed or non-Ed25519 key raises ``ValueError`` (a configuration error,
    not something a clerk can fix at the counter).
    """
    payload = _b32encode(claim.canonical_bytes())
    signature = _private_key(_pem_bytes(private_pem)).sign((PREFIX + payload).encode("ascii"))
    return f"{PREFIX}{payload}.{_b32encode(signature)}"


def verify_token(text: str, public_pem: bytes | str) -> BadgeClaim:
    """Check a scanned token (or a badge's address) and return its claim, or raise :class:`ForgedTokenError`.

    Surrounding whitespace (the Enter a scanner types) is ignored. Whatever is wrong
    with *text* raises ForgedTokenError (:class:`NotABadgeError` when it holds no
    token at all) and nothing else; only a bad *public_pem* raises ``ValueError`` (a
    configuration error, which must not be reported to the inspector as a forged badge).
    """
    key = _public_key(_pem_bytes(public_pem))
    try:
        return _verify(extract_token(text), key)
    except ForgedTokenError:
        raise
    except Exception:  # noqa: BLE001 - the contract: any defect of the text is "forged"
        raise ForgedTokenError() from None


def _verify(text: object, key: Ed25519PublicKey) -> BadgeClaim:
    if not isinstance(text, str) or len(text) > _MAX_TOKEN_CHARS * 4:
        raise ForgedTokenError()
    text = text.strip()
    if len(text) > _MAX_TOKEN_CHARS or not text.isascii():
        raise ForgedTokenError()
    if text.islower():  # typed by a scanner with Caps Lock on: all or nothing
        text = text.upper()
    parts = text.split(".")
    if len(parts) != 3 or parts[0] + "." != PREFIX:
        raise ForgedTokenError()
    payload_text, signature_text = parts[1], parts[2]
    payload = _b32decode(payload_text)
    signature = _b32decode(signature_text)
    if len(signature) != _SIGNATURE_BYTES:
        raise ForgedTokenError()
    try:
        key.verify(signature, (PREFIX + payload_text).encode("ascii"))
    except InvalidSignature:
        raise ForgedTokenError() from None
    # Signed by us: parse strictly anyway, so a buggy issuer can never hand the
    # caller a half-valid claim.
    match = _PAYLOAD.fullmatch(payload.decode("utf-8"))
    if match is None:
        raise ForgedTokenError()
    raw_date = match["date"]
    claim = BadgeClaim(
        permit_number=match["permit"],
        cpf_digest=match["digest"],
        valid_until=date(int(raw_date[:4]), int(raw_date[4:6]), int(raw_date[6:])),
        issue_no=int(match["issue"]),
        holder_kind=_CODE_KINDS[match["kind"]],
        service_code=match["service"],
        plate=match["plate"],
        cpf_middle=match["cpf"],
        holder_name=match["name"],
    )
    if claim.canonical_bytes() != payload:
        raise ForgedTokenError()
    return claim


# --- the signed status list of the public verifier -------------------------------------------

#: Signed before a status list's bytes: a signature over a status list can never pass for a badge's
#: (those sign ``MD1.`` and base32 text) nor the reverse.
STATUS_PREFIX = b"MDS1."


def public_key_raw(public_pem: bytes | str) -> bytes:
    """The 32 bytes of an Ed25519 public key, as a browser's WebCrypto imports it (format "raw")."""
    return _public_key(_pem_bytes(public_pem)).public_bytes(serialization.Encoding.Raw,
                                                            serialization.PublicFormat.Raw)


def sign_status(body: bytes, private_pem: bytes | str) -> bytes:
    """The Ed25519 signature of a status list's exact bytes (see :data:`STATUS_PREFIX`)."""
    return _private_key(_pem_bytes(private_pem)).sign(STATUS_PREFIX + bytes(body))


def verify_status(body: bytes, signature: bytes, public_pem: bytes | str) -> bool:
    """Whether *signature* is the badge key's signature over the status list *body*."""
    try:
        _public_key(_pem_bytes(public_pem)).verify(bytes(signature), STATUS_PREFIX + bytes(body))
    except InvalidSignature:
        return False
    return True
