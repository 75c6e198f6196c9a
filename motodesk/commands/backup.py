"""Backups from a terminal: `motodesk backup OUT`, `motodesk restore FILE` (into an empty database) and
`motodesk export-backup-key FILE` (the public key that lets another machine check this one's backups)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import login, logs_in, open_database

EXIT_OK = 0


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("backup", help="grava uma cópia de segurança completa (com anexos e fotos) em OUT")
    p.add_argument("out", metavar="OUT", help="arquivo .zip a criar, ou uma pasta (nome com a data e a hora)")
    logs_in(p, add_db_arg, cmd_backup)
    # No login for restore (see motodesk.commands): its target must be empty, without users.
    p = sub.add_parser("restore", help="restaura uma cópia de segurança em um banco de dados VAZIO e a confere")
    p.add_argument("file", metavar="ARQUIVO", help="cópia de segurança feita com 'motodesk backup'")
    p.add_argument("--trust-key", metavar="CHAVE", default=None,
                   help="chave pública (de 'motodesk export-backup-key') da instalação que fez a cópia: "
                        "passa a ser confiável nesta instalação")
    add_db_arg(p)
    p.set_defaults(handler=cmd_restore)
    p = sub.add_parser("export-backup-key",
                       help="grava a chave PÚBLICA que assina as cópias desta instalação, para conferi-las em outra")
    p.add_argument("out", metavar="ARQUIVO", help="arquivo a criar (.pem)")
    p.set_defaults(handler=cmd_export_key)


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f}".replace(".", ",") + " MB"


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def cmd_backup(args: argparse.Namespace) -> int:
    from motodesk.services.backup import create_backup
    from motodesk.services.context import AppContext

    # No prepare(): an older database is backed up as it is (before `motodesk db-upgrade`).
    db = open_database(args)
    try:
        result = create_backup(login(AppContext(db), args), Path(args.out), progress=_progress)
    finally:
        db.dispose()
    m = result.manifest
    rows = sum(m.counts.values())
    print(f"Cópia de segurança gravada: {result.path} ({_megabytes(result.size)}), assinada pela chave "
          f"{result.key_id}.")
    print(f"  {rows} linha(s) em {len(m.counts)} tabela(s); {m.counts.get('blobs', 0)} arquivo(s) e foto(s) "
          f"({_megabytes(m.blob_bytes)}); revisão {m.revision}.")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace) -> int:
    from motodesk.models.db import Database
    from motodesk.services.backup import clean_interrupted, restore_backup

    db = Database.open(getattr(args, "database", None))
    try:
        for note in clean_interrupted(db):  # what a killed restore left (also when this one is refused)
            print(f"motodesk: aviso: {note[0].upper()}{note[1:]}.", file=sys.stderr)
        result = restore_backup(Path(args.file), db, progress=_progress, trust_key=args.trust_key)
    finally:
        db.dispose()
    m = result.manifest
    rows = sum(result.snapshot.counts.values())
    print(f"Restauração concluída e conferida: {rows} linha(s) em {len(result.snapshot.counts)} tabela(s), "
          f"{m.counts.get('blobs', 0)} arquivo(s) e foto(s), revisão {m.revision} — cópia de {m.created_at} "
          f"({m.kind}, MotoDesk {m.program_version}), assinada pela chave {result.key_id}.")
    last = m.audit_last
    if last:
        print(f"  Última entrada da trilha de auditoria: nº {last['id']} de {last['at']} "
              f"({last['user']}, {last['table']} {last['action']}).")
    if m.kind == "postgresql":
        print("  Lembrete: as permissões das estações não vêm na cópia; conceda-as de novo ao perfil das estações.")
    return EXIT_OK


def cmd_export_key(args: argparse.Namespace) -> int:
    from motodesk.services.backup_keys import export_public_key

    key = export_public_key(Path(args.out))
    print(f"Chave pública das cópias de segurança gravada em {args.out} (chave {key}).")
    print("  Na estação que vai restaurar: motodesk restore --trust-key ARQUIVO-DA-CHAVE COPIA.zip --database …")
    return EXIT_OK
