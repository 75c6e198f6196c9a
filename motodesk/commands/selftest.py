"""`motodesk --self-test` (also `motodesk self-test`): checks that this installation works.

Run by the installer's tests on the built bundle: a temporary SQLite database created by the
migrations shipped with the program, a user and a login, a signed badge rendered as PDF, a backup
and its verified restore, the PostgreSQL driver, OpenCV's face model and the Qt parts the
windows need (pt_BR translations, the SVG icon, QtPdf, the QtMultimedia backend). Exit code 0
and "Autoteste concluído" when all pass.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
DONE = "Autoteste concluído"


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("self-test", help="verifica esta instalação (banco temporário, migrações, crachá em PDF)")
    p.add_argument("--no-gui", action="store_true", help="não verifica as partes do Qt")
    p.set_defaults(handler=lambda args: run_self_test(gui=not args.no_gui))


def _say(line: str) -> None:
    """Print, also from a windowed Windows build whose stdout is None (then the log has it)."""
    import logging

    logging.getLogger("motodesk.selftest").info(line)
    if sys.stdout is not None:
        print(line, flush=True)


def _photo_jpeg() -> bytes:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (354, 472), (120, 160, 200))
    draw = ImageDraw.Draw(im)
    draw.ellipse((106, 90, 248, 260), fill=(224, 182, 150))
    buffer = io.BytesIO()
    im.save(buffer, "JPEG", quality=85, dpi=(300, 300))
    return buffer.getvalue()


def badge_pdf() -> bytes:
    from motodesk.printing.badge import BadgeData, render_badges
    from motodesk.printing.token import BadgeClaim, cpf_digest, generate_keypair, sign_claim, verify_token
    from motodesk.rules.common import ServiceType

    private_pem, public_pem = generate_keypair()
    token = sign_claim(BadgeClaim("MT-0001/2026", cpf_digest("52998224725"), date(2027, 3, 15), 1, "titular"),
                       private_pem)
    verify_token(token, public_pem)
    badge = BadgeData(permit_number="MT-0001/2026", service=ServiceType.MOTOTAXI, holder_name="Autoteste da Silva",
                      cpf_masked="***.982.247-**", plate="ABC1D23", valid_until=date(2027, 3, 15),
                      photo_jpeg=_photo_jpeg(), token=token, issue_no=1)
    pdf = render_badges([badge], layout="card")
    if not pdf.startswith(b"%PDF"):
        raise AssertionError("o crachá não saiu como PDF")
    return pdf


def _badge_station(admin: Any) -> None:
    """This workstation registered to print: the private key in its own store, only the public key in
    the database, and a status list signed through the one accessor of the key."""
    import base64
    import json

    from motodesk.printing.token import verify_status
    from motodesk.services import badges

    registration = badges.register_printing_station(admin)
    envelope = json.loads(badges.status_list(admin))
    if not verify_status(base64.b64decode(envelope["body"]), base64.b64decode(envelope["signature"]),
                         badges.public_key_pem(admin)):
        raise AssertionError("a lista de situação não confere com a chave pública dos crachás")
    with admin.read() as s:
        from sqlalchemy import select

        from motodesk.models import Setting

        if any("PRIVATE KEY" in value for value in s.scalars(select(Setting.value))):
            raise AssertionError("a chave privada dos crachás está no banco de dados")
    _say(f"  estação registrada para imprimir crachás (chave {registration.key_id}, guardada fora do banco)")


def check_core(folder: Path) -> bytes:
    """Everything but Qt; returns the badge PDF for the Qt checks."""
    from motodesk.models.db import Database
    from motodesk.rules.common import Role
    from motodesk.services.auth import authenticate, create_first_admin
    from motodesk.services.backup import create_backup, restore_backup
    from motodesk.services.context import AppContext
    from motodesk.services.settings import ensure_defaults, law_settings

    db = Database.open(f"sqlite:///{folder / 'autoteste.sqlite3'}")
    try:
        done = db.prepare()
        head = db.head_revision()
        if done != "created" or db.current_revision() != head:
            raise AssertionError(f"migrações: {done}, revisão {db.current_revision()} em vez de {head}")
        _say(f"  banco temporário criado pelas migrações (revisão {head})")
        ctx = AppContext(db)
        ensure_defaults(ctx)
        law_settings(ctx)
        create_first_admin(ctx, "autoteste", "Autoteste", "autoteste-123")
        user = authenticate(ctx, "autoteste", "autoteste-123")
        if user.role is not Role.ADMIN:
            raise AssertionError(f"o primeiro usuário deveria ser administrador, não {user.role.label}")
        _say(f"  primeiro administrador criado e login conferido ({user.role.label})")
        if os.name == "posix" and (folder / "autoteste.sqlite3").stat().st_mode & 0o077:
            raise AssertionError("o arquivo do banco de dados pode ser lido por outros usuários (deveria ser 0600)")
        pdf = badge_pdf()
        _say(f"  crachá assinado em PDF ({len(pdf)} bytes)")
        # Keys of its own, in the temporary folder: the self-test leaves the installation's keys alone.
        from motodesk.services.backup_keys import KEY_DIR_ENV
        from motodesk.services.badge_keys import BADGE_KEY_DIR_ENV

        saved = {name: os.environ.get(name) for name in (KEY_DIR_ENV, BADGE_KEY_DIR_ENV)}
        os.environ[KEY_DIR_ENV] = str(folder / "chaves")
        os.environ[BADGE_KEY_DIR_ENV] = str(folder / "chaves-crachas")
        try:
            _badge_station(ctx.as_user(user))
            backup = create_backup(ctx.as_user(user), folder / "copia.zip")
            restored = Database.open(f"sqlite:///{folder / 'restaurado.sqlite3'}")
            try:
                restore_backup(backup.path, restored)
            finally:
                restored.dispose()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        _say("  cópia de segurança gravada, assinada, restaurada e conferida")
    finally:
        db.dispose()
    import psycopg

    _say(f"  driver do PostgreSQL (libpq {psycopg.pq.version()})")
    import cv2

    from motodesk.imaging.faces import CASCADE_FILE

    cascade = Path(cv2.data.haarcascades) / CASCADE_FILE  # type: ignore[attr-defined]
    if cv2.CascadeClassifier(str(cascade)).empty():
        raise AssertionError(f"modelo de rostos do OpenCV ausente: {cascade}")
    _say(f"  OpenCV {cv2.__version__} com o modelo de rostos")
    from babel.dates import format_date
    from babel.numbers import format_currency

    if format_date(date(2026, 2, 1), "d 'de' MMMM", locale="pt_BR") != "1 de fevereiro":
        raise AssertionError("datas em pt_BR (babel)")
    if format_currency(1234.5, "BRL", locale="pt_BR").replace("\xa0", " ") != "R$ 1.234,50":
        raise AssertionError("valores em reais (babel)")
    _say("  datas e valores em pt_BR")
    return pdf


def run_self_test(*, gui: bool = True) -> int:
    from motodesk import __version__

    _say(f"MotoDesk {__version__}: autoteste")
    try:
        with tempfile.TemporaryDirectory(prefix="motodesk-autoteste-") as tmp:
            pdf = check_core(Path(tmp))
        if gui:
            from motodesk.ui.selftest import check_qt

            for line in check_qt(pdf):
                _say(f"  {line}")
    except Exception as exc:  # noqa: BLE001 - the self-test reports every failure
        _say(f"Autoteste FALHOU: {exc}")
        details = traceback.format_exc()
        if sys.stderr is not None:
            print(details, file=sys.stderr)
        return EXIT_FAILED
    _say(DONE)
    return EXIT_OK
