"""Badges (crachás, Art. 5º § 4º): the signing key, printing with its log, and verification.

**The key.**  Badges are signed with one Ed25519 key pair per secretariat
(:mod:`motodesk.printing.token`).  The database keeps the PUBLIC keys only (settings
``badge_public_key`` and ``badge_public_keys_retired``), so every workstation verifies badges.  The
private key lives only with the workstations registered to print (:mod:`motodesk.services.badge_keys`:
the system keyring, or a 0600 file in the workstation's own folder): no database login, backup,
log or audit row carries it.  :func:`current_signing_key` is the one accessor of it (printing, the
status list, the audit checkpoints); on a workstation not registered it fails with a pt_BR message.
:func:`register_printing_station` (``motodesk register-printer-station``) makes the installation's
first pair, or imports the key exported by :func:`export_signing_key` on a registered workstation.
``motodesk rotate-badge-key`` (:func:`rotate_signing_key`) makes a new pair on this workstation and
keeps the old public keys (setting ``badge_public_keys_retired``) so the badges they signed still
verify; nothing is reprinted, and the other printing workstations register again.  The public key
is exported (``motodesk export-public-key``) for offline verifiers, which need nothing else.

**Printing.**  A print or reprint raises the badge's issue number (``Permit.badge_issue_no``, or the
deputy link's) and logs a :class:`BadgePrint` with its reason; a reprint needs a reason, and the old
copy's QR then verifies as *superseded*.  The PDF is rendered before anything is written; the write
then checks that no other workstation printed the same badge meanwhile.  A preview carries an
unsigned placeholder in its QR, so a previewed PDF can never pass for a badge.

**Verification.**  :func:`verify_badge` checks the signature (current or retired key), then that the
claim is exactly one the print log recorded (its SHA-256, the signing key; for older prints the
validity against the register) — a badge signed with a leaked key but never printed reads forged —
then the register: forged, revoked,
cancelled, suspended, expired, superseded or valid.  :func:`verify_offline` needs only the public key
and can tell forged, expired and valid apart.  Both take the badge's QR text -- the verifier page's
address with the token as its fragment -- or the bare token, and call a text with no token in it
"not a badge" (never "forged").

**The public verifier.**  :func:`publish_verifier` writes the static page a passenger's phone opens
from the QR (:mod:`motodesk.commands.verifier`) with the public keys; :func:`publish_status` writes
the signed status list (suspended, revoked, cancelled permits, deputies' states, the copy in use of
each badge reprinted) the page fetches to tell a valid badge from a withdrawn one without a server.

This module is the services' one door to badges (what callers import); the work is in four modules:
`badges_keypair` (the public keys kept, the private key held, registering, exporting, rotating),
`badges_printing` (assembling, signing, rendering and logging a print; previews; the print log),
`badges_verify` (online and offline verification) and `badges_publish` (the public verifier's page,
its keys and the signed status list).
"""

from __future__ import annotations

from motodesk.models import BadgePrint
from motodesk.services.badge_keys import key_id
from motodesk.services.badges_keypair import (
    NO_KEY_YET,
    PUBLIC_KEY_SETTING,
    READERS,
    RETIRED_KEYS_SETTING,
    SIGNING_KEY_SETTING,
    KeyRotation,
    SigningKey,
    StationRegistration,
    _key_pair,
    current_signing_key,
    export_public_key,
    export_signing_key,
    public_key_pem,
    public_keys,
    register_printing_station,
    rotate_signing_key,
    write_owner_only,
)
from motodesk.services.badges_printing import (
    FIRST_PRINT_REASON,
    MAX_BATCH,
    MAX_REASON,
    PRINTERS,
    BadgePrintRow,
    BadgeRequest,
    Layout,
    PrintedBadge,
    PrintedBadges,
    _plan,
    _render,
    badge_valid_until,
    claim_digest,
    preview_badges,
    preview_token,
    print_badges,
    print_log,
)
from motodesk.services.badges_publish import (
    KEYS_FILE,
    KEYS_FORMAT,
    PUBLISHERS,
    SIGNED_STATUS_FORMAT,
    STATUS_FILE,
    STATUS_FORMAT,
    PublishedStatus,
    PublishedVerifier,
    _write_atomic,
    publish_status,
    publish_verifier,
    status_list,
    verifier_keys,
)
from motodesk.services.badges_verify import (
    BadgeStatus,
    BadgeVerification,
    verify_badge,
    verify_offline,
)

__all__ = [
    "BadgePrint",
    "key_id",
    "BadgePrintRow",
    "BadgeRequest",
    "BadgeStatus",
    "BadgeVerification",
    "FIRST_PRINT_REASON",
    "KEYS_FILE",
    "KEYS_FORMAT",
    "KeyRotation",
    "Layout",
    "MAX_BATCH",
    "MAX_REASON",
    "NO_KEY_YET",
    "PRINTERS",
    "PUBLIC_KEY_SETTING",
    "PUBLISHERS",
    "PrintedBadge",
    "PrintedBadges",
    "PublishedStatus",
    "PublishedVerifier",
    "READERS",
    "RETIRED_KEYS_SETTING",
    "SIGNED_STATUS_FORMAT",
    "SIGNING_KEY_SETTING",
    "STATUS_FILE",
    "STATUS_FORMAT",
    "SigningKey",
    "StationRegistration",
    "_key_pair",
    "_plan",
    "_render",
    "_write_atomic",
    "badge_valid_until",
    "claim_digest",
    "current_signing_key",
    "export_public_key",
    "export_signing_key",
    "preview_badges",
    "preview_token",
    "print_badges",
    "print_log",
    "public_key_pem",
    "public_keys",
    "publish_status",
    "publish_verifier",
    "register_printing_station",
    "rotate_signing_key",
    "status_list",
    "verifier_keys",
    "verify_badge",
    "verify_offline",
    "write_owner_only",
]
