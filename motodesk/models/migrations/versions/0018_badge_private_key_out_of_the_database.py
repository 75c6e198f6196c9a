"""The badges' private signing key leaves the database for the workstation that runs the upgrade.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

Before this revision the private key (PKCS#8 PEM) was the ``settings`` row ``badge_signing_key``,
readable by every workstation's database login. From now on the database keeps public keys only
and the private key lives with the workstations registered to print
(:mod:`motodesk.services.badge_keys`). A migration cannot know which workstation prints, so the
workstation that runs the upgrade takes the key: it is written to that workstation's store, read
back and compared, and only then deleted from the database. When the store refuses it, the upgrade
stops with a pt_BR message and the key stays where it was: it is never lost silently. Other
printing workstations get it afterwards with ``motodesk export-badge-signing-key`` and
``motodesk register-printer-station --key-file``.

Downgrade puts the key back from this workstation's store, when it has it (an older version reads
it from ``settings``); otherwise the older version has no key to sign with.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

PRIVATE = "badge_signing_key"
PUBLIC = "badge_public_key"

_settings = sa.table("settings", sa.column("key", sa.String), sa.column("value", sa.Text),
                     sa.column("version", sa.Integer))


def _value(conn: sa.Connection, key: str) -> str | None:
    raw = conn.execute(sa.select(_settings.c.value).where(_settings.c.key == key)).scalar()
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def upgrade() -> None:
    from motodesk.services import badge_keys

    conn = op.get_bind()
    private = _value(conn, PRIVATE)
    if private is not None:
        pem = private.encode("ascii", "replace")
        public = badge_keys.public_of(pem)  # a damaged key raises: the upgrade stops, nothing is deleted
        if _value(conn, PUBLIC) is None:  # half a pair: the public half follows from the private one
            conn.execute(sa.insert(_settings).values(key=PUBLIC, value=json.dumps(public.decode("ascii")),
                                                     version=1))
        badge_keys.save(pem)  # written and read back on this workstation, or an error
    conn.execute(sa.delete(_settings).where(_settings.c.key == PRIVATE))


def downgrade() -> None:
    from motodesk.services import badge_keys

    conn = op.get_bind()
    public = _value(conn, PUBLIC)
    if public is None or _value(conn, PRIVATE) is not None:
        return
    pem = badge_keys.load(badge_keys.key_id(public.encode("ascii")))
    if pem is not None:
        conn.execute(sa.insert(_settings).values(key=PRIVATE, value=json.dumps(pem.decode("ascii")), version=1))
        if conn.dialect.name == "postgresql":  # the audit trigger's deferred events fire now, so that an
            conn.exec_driver_sql("SET CONSTRAINTS ALL IMMEDIATE")  # earlier revision may drop the table
